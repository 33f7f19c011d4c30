/**
 * MC continuation records (@rred/estimators' truncatedMc) ↔ rows of the store's continuations table,
 * so every MC analysis (SD vs samples, truncation loss at M′) can be recomputed from the store
 * without the model. Exit points are 0..K on both sides; a row's `sample` is the record's position
 * among the records of its exit point, in truncatedMc's order.
 */
import type { ContinuationRecord } from '@rred/estimators';
import type { ContinuationRow, SegmentRecord } from '@rred/results-store';

/**
 * Run tag, 'true' on runs whose MC samples of one exit point shared its prefill (MC at its best: every run
 * since the sampler shares identical prompts); runs recorded before lack it, and their MC costs count
 * the prefix once per sample.
 */
export const MC_SHARED_PREFILL_TAG = 'mcSharedPrefill';

export function continuationRows(records: readonly ContinuationRecord[]): ContinuationRow[] {
  const seen = new Map<number, number>();
  return records.map((r) => {
    const sample = seen.get(r.exitPoint) ?? 0;
    seen.set(r.exitPoint, sample + 1);
    return {
      exitPoint: r.exitPoint,
      sample,
      offset: r.offset,
      limit: r.limit,
      length: r.length,
      truncated: r.truncated,
      utility: r.utility,
    };
  });
}

/** The records of one stored trace, ordered by exit point then sample (as truncatedMc orders them). */
export function continuationRecords(rows: readonly ContinuationRow[]): ContinuationRecord[] {
  return [...rows]
    .sort((a, b) => a.exitPoint - b.exitPoint || a.sample - b.sample)
    .map((c) => ({
      exitPoint: c.exitPoint,
      offset: c.offset,
      limit: c.limit,
      length: c.length,
      truncated: c.truncated,
      utility: c.utility,
      correct: c.utility > 0,
    }));
}

/** Exit-point offsets |u_1..u_k| (k = 0..K) of a segmented trace. */
export function exitOffsets(segments: readonly SegmentRecord[]): number[] {
  return [0, ...segments.map((s) => s.end)];
}
