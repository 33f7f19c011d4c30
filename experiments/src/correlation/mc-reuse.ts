/**
 * MC proxy values at a trace's exit points, reusing stored continuations where an exit point (by its
 * token offset) was already sampled with the same MC config, and sampling only the missing ones.
 */
import { mean, type Rng } from '@rred/core';
import { truncatedMc, type ContinuationRecord, type McConfig } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { ExperimentLM } from '../common/model';
import type { CostRecord } from '@rred/results-store';
import type { Segment } from '@rred/segmentation';
import type { TaskRecord } from '@rred/tasks';
import { exitOffsets } from '../common/mc-records';
import { continuationReward, specialTokens } from '../common/rollouts';

interface McValues {
  /** V_MC(s_k), k = 0..K. */
  values: number[];
  /** The continuations behind `values`, exit point k = 0..K of these segments, in sample order within each (reused or sampled here). */
  records: ContinuationRecord[];
  /** Exit points sampled here (not reused). */
  sampled: number;
  /** Cost: what was sampled here plus the reused share of the stored cost (by exit point count). */
  cost: CostRecord;
}

/** Segments whose exit points are exactly the given offsets (> 0, < thinkEnd) plus thinkEnd. */
export function segmentsThrough(offsets: readonly number[], thinkEnd: number): Segment[] {
  const cuts = [...new Set(offsets.filter((o) => o > 0 && o < thinkEnd))].sort((a, b) => a - b);
  const ends = [...cuts, thinkEnd];
  return thinkEnd === 0 ? [] : ends.map((end, i) => ({ start: i === 0 ? 0 : ends[i - 1], end }));
}

export async function mcValuesWithReuse(
  lm: ExperimentLM,
  trace: Trace,
  segments: readonly Segment[],
  record: TaskRecord,
  mc: McConfig,
  stored: { records: readonly ContinuationRecord[]; cost: CostRecord | null } | null,
  rng: Rng,
): Promise<McValues> {
  const byOffset = new Map<number, ContinuationRecord[]>();
  const storedExitPoints = new Set<number>();
  for (const r of stored?.records ?? []) {
    const g = byOffset.get(r.offset) ?? [];
    g.push(r);
    byOffset.set(r.offset, g);
    storedExitPoints.add(r.exitPoint);
  }
  const offsets = exitOffsets(segments);
  const missing = offsets.filter((o) => !byOffset.has(o));
  let cost: CostRecord = { method: 'mc', tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0, wallMs: 0 };
  if (missing.length > 0) {
    const sub = segmentsThrough(missing, trace.thinkEnd);
    const result = await truncatedMc(
      lm,
      trace,
      sub,
      { tokens: specialTokens(lm.tokenizer), reward: continuationReward(lm.tokenizer, record) },
      { ...mc, progress: false },
      rng,
    );
    const subOffsets = exitOffsets(sub);
    for (const r of result.extra.records) {
      const o = subOffsets[r.exitPoint];
      if (!missing.includes(o)) continue; // exit point 0 / thinkEnd sampled only because truncatedMc always includes them
      const g = byOffset.get(o) ?? [];
      g.push(r);
      byOffset.set(o, g);
    }
    const c = result.cost;
    cost = {
      method: 'mc',
      tokensForwarded: c.tokensForwarded,
      tokensGenerated: c.tokensGenerated,
      forwardPasses: c.forwardPasses,
      wallMs: c.wallMs,
    };
  }
  const reused = offsets.length - missing.length;
  if (stored?.cost && reused > 0 && storedExitPoints.size > 0) {
    const share = reused / storedExitPoints.size;
    cost = {
      method: 'mc',
      tokensForwarded: cost.tokensForwarded + Math.round(stored.cost.tokensForwarded * share),
      tokensGenerated: cost.tokensGenerated + Math.round(stored.cost.tokensGenerated * share),
      forwardPasses: cost.forwardPasses + Math.round(stored.cost.forwardPasses * share),
      wallMs: cost.wallMs + stored.cost.wallMs * share,
    };
  }
  const records = offsets.flatMap((o, k) => byOffset.get(o)!.map((r) => ({ ...r, exitPoint: k })));
  const values = offsets.map((o) => mean(byOffset.get(o)!.map((r) => r.utility)));
  return { values, records, sampled: missing.length, cost };
}
