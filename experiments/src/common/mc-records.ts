/**
 * Per-continuation MC records ↔ store estimate rows, so every MC analysis (SD vs samples, truncation
 * loss at M′) can be recomputed from the store without the model. The store's estimate table has one
 * row per (trace, method, segment); continuation j of exit point k is kept as three rows at segment
 * k − 1 (−1 = exit point 0), each in the `value` column:
 *   `mc.sample.<jj>`    ζ_j (0 for a truncated continuation, as in V_MC)
 *   `mc.length.<jj>`    tokens generated (incl. `<eos>`)
 *   `mc.truncated.<jj>` 1 when cut by its limit, else 0
 * `offset` and `limit` are not stored: they follow from the segments and the MC config.
 */
import type { ContinuationRecord } from '@rred/estimators';
import type { EstimateRecord, SegmentRecord, StoredTrace } from '@rred/results-store';

const FIELDS = ['sample', 'length', 'truncated'] as const;

function pad(j: number): string {
  return String(j).padStart(2, '0');
}

export function encodeContinuations(records: readonly ContinuationRecord[]): EstimateRecord[] {
  const seen = new Map<number, number>();
  const rows: EstimateRecord[] = [];
  for (const r of records) {
    const j = seen.get(r.exitPoint) ?? 0;
    seen.set(r.exitPoint, j + 1);
    const segment = r.exitPoint - 1;
    rows.push({ segment, method: `mc.sample.${pad(j)}`, value: r.utility });
    rows.push({ segment, method: `mc.length.${pad(j)}`, value: r.length });
    rows.push({ segment, method: `mc.truncated.${pad(j)}`, value: r.truncated ? 1 : 0 });
  }
  return rows;
}

/** MC limit of a continuation from exit point k, as truncatedMc computes it. */
export function limitAt(horizon: 'continuation' | 'completion', maxNewTokens: number, offset: number): number {
  return horizon === 'continuation' ? maxNewTokens : maxNewTokens - offset;
}

/** Exit-point offsets |u_1..u_k| (k = 0..K) of a segmented trace. */
export function exitOffsets(segments: readonly SegmentRecord[]): number[] {
  return [0, ...segments.map((s) => s.end)];
}

/** The records of one stored trace, ordered by exit point then sample index (as truncatedMc orders them). */
export function decodeContinuations(
  stored: Pick<StoredTrace, 'estimates' | 'segments'>,
  mc: { horizon: 'continuation' | 'completion'; maxNewTokens: number },
): ContinuationRecord[] {
  const byKey = new Map<string, { sample?: number; length?: number; truncated?: number }>();
  for (const e of stored.estimates) {
    const m = /^mc\.(sample|length|truncated)\.(\d+)$/.exec(e.method);
    if (!m) continue;
    const key = `${e.segment}:${m[2]}`;
    const entry = byKey.get(key) ?? {};
    entry[m[1] as (typeof FIELDS)[number]] = e.value ?? NaN;
    byKey.set(key, entry);
  }
  const offsets = exitOffsets(stored.segments);
  const out: { sampleIndex: number; record: ContinuationRecord }[] = [];
  for (const [key, entry] of byKey) {
    const [seg, sampleIndex] = key.split(':').map(Number);
    const exitPoint = seg + 1;
    for (const f of FIELDS) {
      if (entry[f] === undefined) throw new Error(`mc record (exit point ${exitPoint}, sample ${sampleIndex}) has no '${f}' row`);
    }
    const offset = offsets[exitPoint];
    const utility = entry.sample as number;
    out.push({
      sampleIndex,
      record: {
        exitPoint,
        offset,
        limit: limitAt(mc.horizon, mc.maxNewTokens, offset),
        length: entry.length as number,
        truncated: entry.truncated === 1,
        utility,
        correct: utility > 0,
      },
    });
  }
  out.sort((a, b) => a.record.exitPoint - b.record.exitPoint || a.sampleIndex - b.sampleIndex);
  return out.map((o) => o.record);
}
