import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson, stringifyJson } from '../json';

/** A request the server refuses: answered with this status and a one-line JSON error. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The largest request body the server reads (413 beyond it): the biggest request the remote client
 * sends, a batch of 2048 prompts of a full 256-token context as JSON, is ~2.5 MB.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The request body as JSON (an empty body is {}); a body over `maxBytes` is a 413, malformed JSON a 400. */
export async function readJsonBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const tooLarge = () => new RequestError(413, `request body is larger than ${maxBytes} bytes; send smaller batches`);
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (err) {
    throw new RequestError(400, `request body is not JSON (${(err as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new RequestError(400, 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Writes a JSON answer (non-finite numbers as Python's literals, as SGLang and vLLM write them). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = stringifyJson(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The error shape both APIs use: {error: {message, type, code}} (vLLM's; SGLang answers similarly). */
export function sendError(res: ServerResponse, status: number, message: string): void {
  // a refused body may still be arriving: close the connection after the answer instead of reading it
  if (status === 413) res.setHeader('connection', 'close');
  sendJson(res, status, {
    object: 'error',
    error: { message, type: status < 500 ? 'BadRequestError' : 'InternalServerError', code: status },
  });
}
