import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TransformerLM } from '@rred/lm';
import type { ChatConfig } from '../config';
import { handleCompletions } from './completions';
import { handleGenerate } from './generate';
import { readJsonBody, RequestError, sendError, sendJson } from './http-io';
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
  /** 127.0.0.1 unless told otherwise: the server has no authentication. */
  host?: string;
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

type Handler = (model: ServedModel, body: Record<string, unknown>) => Promise<unknown> | unknown;

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
      const tokens = tokenLists(text, 'text', { ...m.limits, contextLength: Infinity }, tok).lists[0];
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
 * subsets the remote LanguageModel uses), on localhost. Bad requests get a 400 with a one-line message;
 * a bug in the server is a 500.
 */
export function startServer(opts: ServeOptions): Promise<RunningServer> {
  const model = new ServedModel(opts.lm, opts.name, opts.checkpointHash, opts.chat, opts.seed ?? 0);
  const table = routes(opts);
  const server = http.createServer((req, res) => {
    const route = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    const started = Date.now();
    const handler = table[route];
    const done = (status: number) => opts.onRequest?.(`${route} ${status} ${Date.now() - started} ms`);
    if (!handler) {
      sendError(res, 404, `no route ${route}; rred serve has ${Object.keys(table).join(', ')}`);
      done(404);
      return;
    }
    (async () => {
      const body = req.method === 'POST' ? await readJsonBody(req) : {};
      return handler(model, body);
    })().then(
      (answer) => {
        sendJson(res, 200, answer);
        done(200);
      },
      (err: unknown) => {
        const status = err instanceof RequestError ? err.status : (err as { exitCode?: number }).exitCode !== undefined ? 400 : 500;
        sendError(res, status, (err as Error).message.split('\n')[0]);
        done(status);
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      const host = opts.host ?? '127.0.0.1';
      resolve({
        url: `http://${host}:${port}`,
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
