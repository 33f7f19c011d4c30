import { UserError } from '@rred/core';
import { parseJson, stringifyJson } from './json';

/** How a client talks to one server: timeouts, retries and their backoff (see remoteConfigSchema). */
export interface HttpOptions {
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string | null;
  /** Waits `ms` before a retry (tests record the waits instead). */
  sleep?: (ms: number) => Promise<void>;
}

/** An HTTP status that may be retried: the server failed, or asks to be asked later (429 Too Many Requests). */
function retryable(status: number): boolean {
  return status >= 500 || status === 429;
}

/** The longest Retry-After honoured (a server asking for more gets asked again after this). */
const MAX_RETRY_AFTER_MS = 120_000;

/** A Retry-After header (delay-seconds or an HTTP date) in ms, or null when absent or unreadable. */
function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) : null;
}

/** The first line of a body, shortened, for a one-line message. */
function firstLine(text: string, max = 200): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One JSON request with the retry policy: a timeout, a connection error, an HTTP 5xx or 429 is retried up
 * to `retries` times, waiting backoffMs · 2^(i−1) before retry i, or longer when the answer carried a
 * Retry-After (at most 120 s); another 4xx is a one-line error at once (the
 * request is wrong, repeating it cannot help), and so is a 2xx whose body is not JSON (a truncated or
 * malformed response is the server's bug, not a transient fault). Every failure is one UserError line
 * naming the method, the URL and what came back.
 */
export async function requestJson(method: 'GET' | 'POST', url: string, body: unknown, opts: HttpOptions): Promise<unknown> {
  const attempts = opts.retries + 1;
  let last = '';
  let retryAfter: number | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await (opts.sleep ?? sleep)(Math.max(opts.backoffMs * 2 ** (attempt - 2), retryAfter ?? 0));
    retryAfter = null;
    let response: Response;
    let text: string;
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : stringifyJson(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      last = e.name === 'TimeoutError' ? `timed out after ${opts.timeoutMs} ms` : `connection failed (${e.cause?.code ?? e.message})`;
      continue;
    }
    if (retryable(response.status)) {
      last = `HTTP ${response.status}: ${firstLine(text)}`;
      retryAfter = retryAfterMs(response.headers.get('retry-after'));
      continue;
    }
    if (response.status >= 400) throw new UserError(`${method} ${url}: HTTP ${response.status}: ${firstLine(text)}`);
    try {
      return parseJson(text);
    } catch (err) {
      throw new UserError(
        `${method} ${url}: malformed response, not JSON (${(err as Error).message}; ${text.length} bytes, starting ${JSON.stringify(text.slice(0, 40))})`,
      );
    }
  }
  throw new UserError(`${method} ${url}: failed after ${attempts} attempt${attempts === 1 ? '' : 's'}; last: ${last}`);
}

/** requestJson, but null on a 404: an optional endpoint this server does not have. Other failures as requestJson. */
export async function requestOptional(method: 'GET' | 'POST', url: string, body: unknown, opts: HttpOptions): Promise<unknown | null> {
  try {
    return await requestJson(method, url, body, opts);
  } catch (err) {
    if (err instanceof UserError && / HTTP 404:/.test(err.message)) return null;
    throw err;
  }
}
