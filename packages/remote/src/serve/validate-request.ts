import type { SampleOptions, Tokenizer } from '@rred/lm';
import { showValue } from '../json';
import { RequestError } from './http-io';

/** The model limits every request is checked against. */
interface Limits {
  vocabSize: number;
  contextLength: number;
}

/**
 * A list of token-id lists (or one list, `single`), each id in the vocabulary; text is tokenized when
 * `tokenizer` is given. Every list must hold a token (an empty text prompt has nothing to score or
 * continue) unless `allowEmptyText` (POST /tokenize of '').
 */
export function tokenLists(
  value: unknown,
  field: string,
  limits: Limits,
  tokenizer?: Tokenizer,
  allowEmptyText = false,
): { lists: number[][]; single: boolean } {
  const asList = (v: unknown, where: string): number[] => {
    if (typeof v === 'string' && tokenizer) {
      let ids: number[];
      try {
        ids = tokenizer.encode(v);
      } catch (err) {
        throw new RequestError(400, `${where}: ${(err as Error).message}`);
      }
      if (ids.length === 0 && !allowEmptyText) throw new RequestError(400, `${where}: an empty text has no tokens to score or continue`);
      return ids;
    }
    if (!Array.isArray(v) || v.length === 0)
      throw new RequestError(400, `${where}: expected a non-empty list of token ids, got ${showValue(v)}`);
    const bad = v.findIndex((t) => !(Number.isInteger(t) && t >= 0 && t < limits.vocabSize));
    if (bad >= 0) throw new RequestError(400, `${where}[${bad}]: token id ${showValue(v[bad])} is outside 0..${limits.vocabSize - 1}`);
    if (v.length > limits.contextLength)
      throw new RequestError(400, `${where}: ${v.length} tokens, more than the model's context of ${limits.contextLength}`);
    return v as number[];
  };
  const nested = Array.isArray(value) && value.length > 0 && (Array.isArray(value[0]) || typeof value[0] === 'string');
  if (nested) return { lists: (value as unknown[]).map((v, i) => asList(v, `${field}[${i}]`)), single: false };
  return { lists: [asList(value, field)], single: true };
}

/** An optional number field: absent/null → fallback; otherwise it must satisfy `ok`. */
export function numberField(
  body: Record<string, unknown>,
  field: string,
  fallback: number,
  ok: (n: number) => boolean,
  expected: string,
): number {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !ok(v)) throw new RequestError(400, `${field}: expected ${expected}, got ${showValue(v)}`);
  return v;
}

export const isInt =
  (lo: number, hi = Infinity) =>
  (n: number) =>
    Number.isInteger(n) && n >= lo && n <= hi;

/** The one stop token of a request: stop_token_ids must be absent (→ `fallback`) or hold exactly one id. */
function stopTokenOf(value: unknown, fallback: number, limits: Limits): number {
  if (value === undefined || value === null) return fallback;
  if (!Array.isArray(value) || value.length !== 1 || !isInt(0, limits.vocabSize - 1)(value[0] as number))
    throw new RequestError(
      400,
      `stop_token_ids: rred serve takes exactly one stop token id in 0..${limits.vocabSize - 1}, got ${showValue(value)}`,
    );
  return value[0] as number;
}

/** An optional integer field in [lo, hi]: absent or null → null. */
export function optionalInt(obj: Record<string, unknown>, field: string, lo: number, hi = Infinity): number | null {
  if (obj[field] === undefined || obj[field] === null) return null;
  return numberField(obj, field, 0, isInt(lo, hi), hi === Infinity ? `an integer >= ${lo}` : `an integer in [${lo}, ${hi + 1})`);
}

/**
 * The sampling options and seed of a request (SGLang's sampling_params or the OpenAI body; the field
 * names of the token limit and the seed differ), each checked with a one-line 400 naming the field.
 */
export function samplingOf(
  obj: Record<string, unknown>,
  fields: { maxNew: string; maxNewDefault: number; seed: string },
  eos: number,
  limits: Limits,
): { options: SampleOptions; seed: number | null } {
  const options = {
    temperature: numberField(obj, 'temperature', 1, (x) => x >= 0 && Number.isFinite(x), 'a number >= 0'),
    topP: numberField(obj, 'top_p', 1, (x) => x > 0 && x <= 1, 'a number in (0, 1]'),
    maxNewTokens: optionalInt(obj, fields.maxNew, 0) ?? fields.maxNewDefault,
    stopToken: stopTokenOf(obj.stop_token_ids, eos, limits),
  };
  return { options, seed: optionalInt(obj, fields.seed, 0, 2 ** 32 - 1) };
}

/** Refuses fields outside `allowed` (rred serve implements a subset; nothing is silently ignored). */
export function checkKeys(obj: Record<string, unknown>, allowed: Set<string>, where: string): void {
  const extra = Object.keys(obj).filter((k) => !allowed.has(k));
  if (extra.length)
    throw new RequestError(
      400,
      `${where}: unsupported field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `'${k}'`).join(', ')} (rred serve implements a subset)`,
    );
}
