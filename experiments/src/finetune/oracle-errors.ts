/** The oracle arm's error locator: the task's step oracle mapped onto a trace's completion tokens. */
import type { Tokenizer, Trace } from '@rred/lm';
import { recordFirstError, tokenSpanOfChars, type TaskRecord } from '@rred/tasks';

/**
 * The task's step oracle on a trace, in its record's rendering (the task's notation or the free-form bed's
 * prose, `recordFirstError`): the completion index of the first token of its first uncorrected wrong line
 * (on the decoded thinking, mapped back with `tokenSpanOfChars`), or null.
 */
export function firstErrorToken(tokenizer: Tokenizer, train: readonly TaskRecord[]): (trace: Trace) => number | null {
  const records = new Map(train.map((r) => [r.id, r]));
  return (trace) => {
    const record = records.get(trace.problemId);
    if (!record) throw new Error(`finetune oracle: no training problem '${trace.problemId}'`);
    const error = recordFirstError(record, tokenizer.decode(trace.completion.slice(0, trace.thinkEnd)));
    if (!error) return null;
    return tokenSpanOfChars(
      trace.completion.map((id) => tokenizer.tokenText(id)),
      error.start,
      error.end,
    )[0];
  };
}
