/**
 * The step oracle (@rred/tasks) on a segmented trace: which segment holds the trace's first
 * uncorrected wrong line of its thinking. Computed when the trace is benchmarked and stored as the
 * `oracle` estimate rows (credit 1 on that segment, 0 on the others), so the renderers need no tokenizer.
 */
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { recordFirstError, tokenSpanOfChars, type TaskRecord } from '@rred/tasks';

export const ORACLE_METHOD = 'oracle';

export interface FirstError {
  /** Segment k = 1..K holding the first token of the line; null when no uncorrected wrong line is in the thinking. */
  segment: number | null;
  /** The oracle's kind of error (wrong-result, wrong-operand, ...), null without one. */
  kind: string | null;
}

export function firstErrorSegment(
  record: TaskRecord,
  trace: Pick<Trace, 'completion' | 'thinkEnd'>,
  segments: readonly Segment[],
  tokenText: (id: number) => string,
): FirstError {
  const texts = trace.completion.slice(0, trace.thinkEnd).map(tokenText); // [thinkEnd]
  const error = recordFirstError(record, texts.join(''));
  if (!error) return { segment: null, kind: null };
  const [first] = tokenSpanOfChars(texts, error.start, error.end);
  const i = segments.findIndex((s) => s.start <= first && first < s.end);
  if (i < 0) throw new Error(`first error at token ${first} of problem ${record.id} lies in no segment`);
  return { segment: i + 1, kind: error.kind };
}
