import * as http from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { UserError } from '@rred/core';
import type { TransformerLM } from '@rred/lm';
import type { ChatConfig } from '../config';
import { handleCompletions } from './completions';
import { handleGenerate } from './generate';
import { MAX_BODY_BYTES, readJsonBody, RequestError, sendError, sendJson } from './http-io';
import { ServedModel } from './model';
import { tokenLists } from './validate-request';

interface ServeOptions {
  lm: TransformerLM;
  /** The model name GET /v1/models reports (and /v1/completions expects in `model`). */
  name: string;
  /** The served checkpoint's identity (`checkpointHash` in @rred/lm: weights + config + tokenizer), reported as data[0].rred.checkpoint_hash. */
  checkpointHash: string;
  /** The chat layout GET /rred/tokenizer reports. */
  chat: ChatConfig;
  /** 127.0.0.1 unless told otherwise: the server has no authentication. Any other address needs `allowRemote`. */
  host?: string;
  /** Listen on a host that is not loopback (the CLI's --allow-remote; it warns). */
  allowRemote?: boolean;
  /** Largest request body read (413 beyond it); default MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** 0 = an ephemeral port. */
  port?: number;
  /** Seeds the seed of every sampling request that sends none. */
  seed?: number;
  /** Called once per request after it is answered (the CLI logs; tests count). */
  onRequest?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  model: ServedModel;
  /** Stops accepting connections and drops open ones (a test can kill it mid-experiment this way). */
  close(): Promise<void>;
}

type Handler = (model: ServedModel, body: Record<string, unknown>, signal: AbortSignal) => Promise<unknown> | unknown;

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether a listen address is loopback: localhost, 127.0.0.0/8 or ::1. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return LOOPBACK_NAMES.has(h) || (isIP(h) === 4 && h.startsWith('127.'));
}

/** Refuses a listen address that is not loopback unless `allowRemote`; returns whether it is loopback. */
export function checkListenHost(host: string, allowRemote: boolean): boolean {
  const loopback = isLoopback(host);
  if (!loopback && !allowRemote)
    throw new UserError(
      `rred serve: --host ${host} is not loopback and the server has no authentication; pass --allow-remote to listen there`,
    );
  return loopback;
}

/** The host name of a Host header or an Origin URL ('' when it has none or does not parse). */
function hostnameOf(value: string, isUrl: boolean): string {
  try {
    return new URL(isUrl ? value : `http://${value}`).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return '';
  }
}

/**
 * Why a request may not be answered, or null. Bound to loopback, the Host header must name loopback:
 * a page whose own name resolves to 127.0.0.1 (DNS rebinding) sends its own name. An Origin header (a
 * browser's cross-site request, even a "simple" text/plain POST) must name the host the request was sent
 * to. Non-browser clients send no Origin.
 */
function refusal(req: http.IncomingMessage, loopback: boolean): string | null {
  const host = req.headers.host ?? '';
  const hostname = hostnameOf(host, false);
  if (loopback && !isLoopback(hostname))
    return `Host '${host}' is not this server; rred serve on loopback answers requests to localhost, 127.0.0.1 or [::1] only`;
  const origin = req.headers.origin;
  if (origin !== undefined && hostnameOf(origin, true) !== hostname)
    return `Origin '${origin}' is another site; rred serve answers no cross-site (browser) requests`;
  return null;
}

/** The routes: SGLang's native ones, the OpenAI/vLLM ones, and rred's own tokenizer file. */
function routes(opts: ServeOptions): Record<string, Handler> {
  const tok = opts.lm.tokenizer;
  return {
    'GET /health': () => ({ status: 'ok' }),
    'GET /v1/models': (m) => ({
      object: 'list',
      data: [
        {
          id: m.name,
          object: 'model',
          created: 0,
          owned_by: 'rred',
          max_model_len: m.lm.maxLength,
          rred: { checkpoint_hash: m.checkpointHash },
        },
      ],
    }),
    'GET /get_model_info': (m) => ({ model_path: m.name, tokenizer_path: null, is_generation: true }),
    'GET /rred/tokenizer': (m) => ({ tokenizer: tok.toJSON(), chat: m.chat }),
    'POST /tokenize': (m, body) => {
      const text = body.text ?? body.prompt;
      if (typeof text !== 'string') throw new RequestError(400, "tokenize: expected 'text' (SGLang) or 'prompt' (vLLM) as a string");
      const tokens = tokenLists(text, 'text', { ...m.limits, contextLength: Infinity }, tok, true).lists[0];
      return { tokens, count: tokens.length, max_model_len: m.lm.maxLength };
    },
    'POST /detokenize': (m, body) => {
      const ids = tokenLists(body.tokens, 'tokens', { ...m.limits, contextLength: Infinity }).lists[0];
      const text = tok.decode(ids);
      return { prompt: text, text };
    },
    'POST /generate': handleGenerate,
    'POST /v1/completions': handleCompletions,
  };
}

/**
 * `rred serve`: the checkpoint behind SGLang's POST /generate and vLLM's POST /v1/completions (the
 * subsets the remote LanguageModel uses), on localhost. Bad requests get a 400 with a one-line message,
 * a body over the cap a 413, a request for another Host or from another Origin a 403; a bug in the
 * server is a 500. A request whose client goes away stops its model work (queued: never started).
 */
export function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const loopback = checkListenHost(host, opts.allowRemote ?? false);
  const model = new ServedModel(opts.lm, opts.name, opts.checkpointHash, opts.chat, opts.seed ?? 0);
  const table = routes(opts);
  const server = http.createServer((req, res) => {
    const route = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    const started = Date.now();
    const done = (status: number | string) => opts.onRequest?.(`${route} ${status} ${Date.now() - started} ms`);
    const refused = refusal(req, loopback);
    if (refused) {
      sendError(res, 403, refused);
      done(403);
      return;
    }
    const handler = table[route];
    if (!handler) {
      sendError(res, 404, `no route ${route}; rred serve has ${Object.keys(table).join(', ')}`);
      done(404);
      return;
    }
    // The client going away (its connection closed before the answer) cancels the request's model work.
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort(new RequestError(499, 'the client closed the connection'));
    });
    (async () => {
      const body = req.method === 'POST' ? await readJsonBody(req, opts.maxBodyBytes ?? MAX_BODY_BYTES) : {};
      return handler(model, body, gone.signal);
    })().then(
      (answer) => {
        sendJson(res, 200, answer);
        done(200);
      },
      (err: unknown) => {
        if (gone.signal.aborted) {
          done('cancelled (client gone)');
          return;
        }
        const status = err instanceof RequestError ? err.status : (err as { exitCode?: number }).exitCode !== undefined ? 400 : 500;
        sendError(res, status, (err as Error).message.split('\n')[0]);
        done(status);
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'the port is in use' : err.code === 'EADDRNOTAVAIL' ? 'no such local address' : err.message;
      reject(
        new UserError(
          `rred serve: cannot listen on ${host}:${opts.port ?? 0}: ${why} (${err.code ?? 'error'}); pick another --port or --host`,
        ),
      );
    });
    server.listen(opts.port ?? 0, host, () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        port,
        model,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
