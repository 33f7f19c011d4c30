/** The oracle arm's error locator: the task's step oracle mapped onto a trace's completion tokens. */
import type { Tokenizer, Trace } from '@rred/lm';
import { firstUncorrectedError, problemFromRecord, tokenSpanOfChars, type TaskRecord } from '@rred/tasks';

/**
 * The task's step oracle on a trace: the completion index of the first token of its first uncorrected
 * wrong line (`firstUncorrectedError` on the decoded thinking, mapped back with `tokenSpanOfChars`), or null.
 */
export function firstErrorToken(tokenizer: Tokenizer, train: readonly TaskRecord[]): (trace: Trace) => number | null {
  const problems = new Map(train.map((r) => [r.id, problemFromRecord(r)]));
  return (trace) => {
    const problem = problems.get(trace.problemId);
    if (!problem) throw new Error(`finetune oracle: no training problem '${trace.problemId}'`);
    const error = firstUncorrectedError(problem, tokenizer.decode(trace.completion.slice(0, trace.thinkEnd)));
    if (!error) return null;
    return tokenSpanOfChars(
      trace.completion.map((id) => tokenizer.tokenText(id)),
      error.start,
      error.end,
    )[0];
  };
}
