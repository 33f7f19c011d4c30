import { UserError } from '@rred/core';
import { z } from 'zod';

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
