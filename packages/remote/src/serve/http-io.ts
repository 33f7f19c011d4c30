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

/** The request body as JSON (an empty body is {}); malformed JSON is a 400. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
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
  sendJson(res, status, {
    object: 'error',
    error: { message, type: status < 500 ? 'BadRequestError' : 'InternalServerError', code: status },
  });
}
