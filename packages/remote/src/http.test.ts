import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestJson } from './http';

/** A server answering the n-th request with `answer(n)`. */
async function serve(
  answer: (n: number) => { status: number; headers?: Record<string, string> },
): Promise<{ url: string; close: () => void }> {
  let n = 0;
  const server = http.createServer((_req, res) => {
    const a = answer(++n);
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(a.status === 200 ? '{"ok":true}' : '{"error":{"message":"slow down"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, close: () => server.close() };
}

describe('requestJson retries', () => {
  it('retries HTTP 429, waiting what Retry-After asks (seconds or a date) when it is longer than the backoff', async () => {
    const date = new Date(Date.now() + 30_000).toUTCString();
    const s = await serve((n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '7' } }
        : n === 2
          ? { status: 429, headers: { 'retry-after': date } }
          : n === 3
            ? { status: 429 }
            : { status: 200 },
    );
    const waits: number[] = [];
    try {
      const answer = await requestJson('GET', s.url, undefined, {
        timeoutMs: 5000,
        retries: 3,
        backoffMs: 10,
        sleep: async (ms) => {
          waits.push(ms);
        },
      });
      expect(answer).toEqual({ ok: true });
    } finally {
      s.close();
    }
    expect(waits[0]).toBe(7000);
    expect(waits[1]).toBeGreaterThan(20_000); // the date, ~30 s ahead (whole seconds)
    expect(waits[1]).toBeLessThanOrEqual(30_000);
    expect(waits[2]).toBe(40); // no Retry-After: the backoff, 10 · 2^2
  });

  it('gives up after the retries with a one-line error naming the last status', async () => {
    const s = await serve(() => ({ status: 429, headers: { 'retry-after': '1' } }));
    try {
      await expect(
        requestJson('POST', s.url, {}, { timeoutMs: 5000, retries: 1, backoffMs: 10, sleep: async () => undefined }),
      ).rejects.toThrow(`POST ${s.url}: failed after 2 attempts; last: HTTP 429: {"error":{"message":"slow down"}}`);
    } finally {
      s.close();
    }
  });
});
