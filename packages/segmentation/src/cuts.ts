import type { Trace } from '@rred/lm';
import type { Segment } from './types';

/**
 * A cut c (0 < c < thinkEnd) is a boundary between completion positions c-1 and c: position c
 * starts a new segment, and the exit point before it is the state after position c-1.
 */
export function segmentsFromCuts(cuts: Iterable<number>, thinkEnd: number): Segment[] {
  if (thinkEnd === 0) return [];
  const sorted = [...new Set(cuts)].filter((c) => c > 0 && c < thinkEnd).sort((a, b) => a - b);
  const bounds = [0, ...sorted, thinkEnd];
  const out: Segment[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) out.push({ start: bounds[i], end: bounds[i + 1] });
  return out;
}

/**
 * At most `maxSegments - 1` of the sorted `cuts`, evenly spread over them by index (the j-th kept
 * cut is candidate round((j+1)·m/K) - 1 of m): used when a strategy proposes more cuts than K allows.
 */
export function capCuts(cuts: readonly number[], maxSegments: number): number[] {
  const keep = maxSegments - 1;
  if (cuts.length <= keep) return cuts.slice();
  const out: number[] = [];
  for (let j = 0; j < keep; j++) out.push(cuts[Math.round(((j + 1) * cuts.length) / maxSegments) - 1]);
  return [...new Set(out)];
}

/**
 * Checks the trace fields a segmenter reads; a violation is a bug upstream (not user input), so it
 * throws a plain Error naming the field. NaN in a per-token signal the strategy uses is an error too,
 * never silently dropped.
 */
export function checkTrace(trace: Trace, signals: readonly ('logprobs' | 'entropies')[] = []): void {
  const { thinkEnd, completion } = trace;
  if (!Number.isInteger(thinkEnd) || thinkEnd < 0 || thinkEnd > completion.length) {
    throw new Error(`trace ${trace.problemId}: thinkEnd ${thinkEnd} is not an integer in [0, completion.length=${completion.length}]`);
  }
  for (const name of signals) {
    const values = trace[name];
    if (values.length < thinkEnd)
      throw new Error(`trace ${trace.problemId}: ${name} has ${values.length} entries, thinking span needs ${thinkEnd}`);
    for (let t = 0; t < thinkEnd; t++) {
      if (Number.isNaN(values[t])) throw new Error(`trace ${trace.problemId}: ${name}[${t}] is NaN`);
    }
  }
}

/** Throws unless `segments` are contiguous, non-empty, non-overlapping and cover [0, thinkEnd) exactly. */
export function assertExactCover(segments: readonly Segment[], thinkEnd: number): void {
  if (thinkEnd === 0) {
    if (segments.length !== 0) throw new Error(`an empty thinking span must have no segments, got ${segments.length}`);
    return;
  }
  let at = 0;
  for (const [i, s] of segments.entries()) {
    if (s.start !== at) throw new Error(`segment ${i} starts at ${s.start}, expected ${at}`);
    if (!(s.end > s.start)) throw new Error(`segment ${i} [${s.start}, ${s.end}) is empty`);
    at = s.end;
  }
  if (at !== thinkEnd) throw new Error(`segments end at ${at}, expected thinkEnd ${thinkEnd}`);
}
