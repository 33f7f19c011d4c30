/** Test helpers of @rred/remote: a tiny served model and a fault-injecting proxy (for this package's and test/'s tests). */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { createTransformer, Tokenizer, TransformerLM } from '@rred/lm';
import { RRED_CHAT } from './src/config';
import { parseJson, stringifyJson } from './src/json';
import { startServer, type RunningServer } from './src/serve/server';

/** A tiny random transformer (seeded) over the digits and arithmetic signs, in-process. */
export async function tinyModel(seed = 3): Promise<TransformerLM> {
  await initEngine({ quiet: true });
  const tokenizer = Tokenizer.fromAlphabet('0123456789+-*=\n ');
  const transformer = createTransformer(
    { vocabSize: tokenizer.vocabSize, contextLength: 48, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 },
    new Rng(seed),
  );
  return new TransformerLM(transformer, tokenizer);
}

/** `rred serve`'s server over `lm` on an ephemeral localhost port. */
export function serveTiny(lm: TransformerLM): Promise<RunningServer> {
  return startServer({ lm, name: 'tiny', checkpointHash: 'f'.repeat(64), chat: RRED_CHAT });
}

/** What the fault proxy does to one request; null forwards it untouched. */
export type Fault =
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  | { kind: 'truncate' }
  | { kind: 'rewrite'; edit: (body: unknown) => unknown }
  | { kind: 'kill' };

export interface FaultProxy {
  url: string;
  /** Requests seen per route (`POST /generate`), counting faulted ones. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A proxy in front of a server that injects faults: `decide(route, n)` (n = 1, 2, ... per route) picks
 * what happens to the n-th request of that route. 'kill' drops the connection and stops listening,
 * as a server killed mid-request; 'truncate' answers 200 with the first half of the real body.
 */
export function startFaultProxy(target: string, decide: (route: string, n: number) => Fault | null): Promise<FaultProxy> {
  const counts = new Map<string, number>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const route = `${req.method} ${req.url}`;
    const n = (counts.get(route) ?? 0) + 1;
    counts.set(route, n);
    const fault = decide(route, n);
    if (fault?.kind === 'kill') {
      server.close();
      server.closeAllConnections();
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(JSON.stringify({ error: { message: `injected HTTP ${fault.status}` } }));
      return;
    }
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: { 'content-type': 'application/json' },
      body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    let text = await upstream.text();
    if (fault?.kind === 'truncate') text = text.slice(0, Math.floor(text.length / 2));
    if (fault?.kind === 'rewrite') text = stringifyJson(fault.edit(parseJson(text))); // NaN and ±Infinity survive the edit
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(text);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        counts,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
            if (!server.listening) done();
          }),
      });
    });
  });
}
