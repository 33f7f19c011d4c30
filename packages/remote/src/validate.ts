import { UserError } from '@rred/core';
import { z } from 'zod';
import { showValue } from './json';

/** Parses a server response with a zod schema; a mismatch is one line naming the field and what came back. */
export function expectResponse<S extends z.ZodTypeAny>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : '(body)';
  throw new UserError(`${where}: malformed response: field '${field}': ${issue.message}`);
}

/** The returned ids must be the ids sent: a mismatch means the server scored (or sampled) other tokens. */
export function checkTokens(sent: readonly number[], returned: readonly number[], where: string): void {
  if (returned.length !== sent.length) {
    throw new UserError(
      `${where}: token mismatch: sent ${sent.length} tokens to score, the server returned log-probs for ${returned.length}`,
    );
  }
  const i = returned.findIndex((id, k) => id !== sent[k]);
  if (i >= 0)
    throw new UserError(`${where}: token mismatch at scored position ${i}: sent token ${sent[i]}, the server returned ${returned[i]}`);
}

/** SGLang's and vLLM's POST /tokenize answer: {tokens, count, max_model_len}. */
export const tokenizeResponse = z.object({ tokens: z.array(z.number().int()) }).passthrough();

/**
 * Log-probabilities a server returned for `what` (e.g. "scored sequence 3"): each must be finite and
 * <= 0 (a probability is at most 1; float log-softmax never exceeds 0). One line naming the server, the
 * API's field and the position otherwise: a log-prob of +0.7 would silently change every credit.
 */
export function checkLogprobs(values: readonly number[], server: string, field: string, what: string): void {
  const i = values.findIndex((v) => !(Number.isFinite(v) && v <= 0));
  if (i >= 0)
    throw new UserError(
      `${server}: impossible ${field} for ${what} at position ${i}: ${showValue(values[i])}, expected a finite log-probability <= 0`,
    );
}

/** Entropies (nats) of next-token distributions over `vocabSize` tokens: each in [0, log V] (a float tolerance of 1e-6 per nat). */
export function checkEntropies(values: readonly number[], vocabSize: number, server: string, field: string, what: string): void {
  const max = Math.log(vocabSize);
  const slack = 1e-6 * Math.max(1, max);
  const i = values.findIndex((v) => !(v >= -slack && v <= max + slack));
  if (i >= 0)
    throw new UserError(
      `${server}: impossible ${field} for ${what} at position ${i}: ${showValue(values[i])}, expected an entropy in [0, log ${vocabSize} = ${max.toFixed(4)}]`,
    );
}

/** Sampled token ids: each in the vocabulary 0..V−1. */
export function checkTokenIds(ids: readonly number[], vocabSize: number, server: string, field: string, what: string): void {
  const i = ids.findIndex((t) => !(Number.isInteger(t) && t >= 0 && t < vocabSize));
  if (i >= 0)
    throw new UserError(
      `${server}: impossible ${field} for ${what} at position ${i}: token id ${showValue(ids[i])}, outside the vocabulary 0..${vocabSize - 1}`,
    );
}
