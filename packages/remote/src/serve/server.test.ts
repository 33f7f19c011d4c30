import * as http from 'node:http';
import * as net from 'node:net';
import type { TransformerLM } from '@rred/lm';
import { UserError } from '@rred/core';
import { tinyModel } from '../../testing';
import { RRED_CHAT } from '../config';
import { startServer, type RunningServer } from './server';

/** One raw HTTP request (headers as given, no client-side rules about Host): status and body text. */
function request(
  port: number,
  method: string,
  url: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: url, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const messageOf = (text: string) => (JSON.parse(text) as { error: { message: string } }).error.message;

describe('rred serve guards: body cap, linear parsing, Host and Origin, cancellation, listen errors, messages', () => {
  let lm: TransformerLM;
  let server: RunningServer;
  const log: string[] = [];
  let host = '';
  beforeAll(async () => {
    lm = await tinyModel();
    server = await startServer({ lm, name: 'tiny', checkpointHash: 'f'.repeat(64), chat: RRED_CHAT, onRequest: (line) => log.push(line) });
    host = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
    lm.dispose();
  });

  it('answers a body over the cap with 413 and a one-line error', async () => {
    const r = await request(
      server.port,
      'POST',
      '/generate',
      { host, 'content-type': 'application/json' },
      `{"input_ids":[${'1,'.repeat(5 * 1024 * 1024)}1]}`,
    );
    expect(r.status).toBe(413);
    expect(messageOf(r.text)).toBe('request body is larger than 8388608 bytes; send smaller batches');
    expect((await request(server.port, 'GET', '/health', { host })).status).toBe(200);
  });

  it('parses a body of 100 000 NaN literals in one pass, and answers /health after it', async () => {
    const r = await request(server.port, 'POST', '/generate', { host }, `{"input_ids":[${'NaN,'.repeat(100000)}1]}`);
    expect(r.status).toBe(400);
    expect(messageOf(r.text)).toBe('input_ids[0]: token id NaN is outside 0..20');
    expect((await request(server.port, 'GET', '/health', { host })).status).toBe(200);
  }, 20000);

  it('shows NaN and Infinity as themselves in messages, not as null', async () => {
    const body = `{"input_ids":[1,2],"sampling_params":{"temperature":NaN,"max_new_tokens":1}}`;
    expect(messageOf((await request(server.port, 'POST', '/generate', { host }, body)).text)).toBe(
      'temperature: expected a number >= 0, got NaN',
    );
    const inf = `{"input_ids":[1,2],"sampling_params":{"top_p":Infinity}}`;
    expect(messageOf((await request(server.port, 'POST', '/generate', { host }, inf)).text)).toBe(
      'top_p: expected a number in (0, 1], got Infinity',
    );
  });

  it('refuses an empty text prompt instead of answering 200 with nothing', async () => {
    const r = await request(server.port, 'POST', '/v1/completions', { host }, '{"prompt":"","prompt_logprobs":0,"max_tokens":0}');
    expect(r.status).toBe(400);
    expect(messageOf(r.text)).toBe('prompt: an empty text has no tokens to score or continue');
  });

  it('refuses a request for another Host (DNS rebinding) and a cross-site Origin, even a text/plain POST', async () => {
    const evil = await request(
      server.port,
      'POST',
      '/generate',
      { host: `evil.example:${server.port}`, 'content-type': 'text/plain' },
      '{"input_ids":[1]}',
    );
    expect(evil.status).toBe(403);
    expect(messageOf(evil.text)).toBe(
      `Host 'evil.example:${server.port}' is not this server; rred serve on loopback answers requests to localhost, 127.0.0.1 or [::1] only`,
    );
    const origin = await request(
      server.port,
      'POST',
      '/tokenize',
      { host, origin: 'http://evil.example', 'content-type': 'text/plain' },
      '{"text":"1"}',
    );
    expect(origin.status).toBe(403);
    expect(messageOf(origin.text)).toBe(
      "Origin 'http://evil.example' is another site; rred serve answers no cross-site (browser) requests",
    );
    for (const ok of [host, `localhost:${server.port}`])
      expect((await request(server.port, 'POST', '/tokenize', { host: ok, origin: `http://${ok}` }, '{"text":"1"}')).status).toBe(200);
  });

  it('stops the model work of a request whose client went away', async () => {
    log.length = 0;
    const before = server.model.forwardedTotal;
    const body = JSON.stringify({
      input_ids: Array.from({ length: 512 }, () => [1, 2, 3]),
      sampling_params: { max_new_tokens: 40, sampling_seed: 1 },
    });
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.end(
      `POST /generate HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    while (log.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log[0]).toMatch(/^POST \/generate cancelled \(client gone\) \d+ ms$/);
    expect(server.model.forwardedTotal).toBe(before); // the sample never completed
    expect((await request(server.port, 'POST', '/tokenize', { host }, '{"text":"1"}')).status).toBe(200);
  });

  it('a busy port and a host that is not loopback (without allowRemote) are one-line UserErrors', async () => {
    const err = await startServer({ lm, name: 't', checkpointHash: 'f', chat: RRED_CHAT, port: server.port }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      `rred serve: cannot listen on 127.0.0.1:${server.port}: the port is in use (EADDRINUSE); pick another --port or --host`,
    );
    expect(() => startServer({ lm, name: 't', checkpointHash: 'f', chat: RRED_CHAT, host: '0.0.0.0' })).toThrow(
      'rred serve: --host 0.0.0.0 is not loopback and the server has no authentication; pass --allow-remote to listen there',
    );
    const open = await startServer({ lm, name: 't', checkpointHash: 'f', chat: RRED_CHAT, host: '0.0.0.0', allowRemote: true });
    try {
      expect((await request(open.port, 'GET', '/health', { host: `some-name:${open.port}` })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
