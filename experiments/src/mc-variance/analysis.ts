/**
 * The analyses of Sec. 4 / App. 10.1 on stored MC records (no model): how the SD of the MC value
 * estimate falls with the number of samples (Fig. 8), and what a smaller length limit M′ loses (Fig. 4).
 */
import { bootstrapSdOfMean, mean, quantileSorted, type Rng } from '@rred/core';
import { truncationLoss, type ContinuationRecord } from '@rred/estimators';
import { groupRows } from '../common/frame';

export interface SdRow {
  samples: number;
  /** Mean over exit points of the bootstrap SD of V_MC from `samples` draws. */
  meanSd: number;
  p10: number;
  p50: number;
  p90: number;
  /** Share of exit points whose SD is at or below the threshold. */
  fractionBelowThreshold: number;
  exitPoints: number;
}

/** Utilities of each exit point of each trace, in record order; traces in order, exit points ascending. */
export function utilitiesByExitPoint(traces: readonly ContinuationRecord[][]): number[][] {
  const rows = traces.flatMap((records, trace) => records.map((r) => ({ trace, exitPoint: r.exitPoint, utility: r.utility })));
  return groupRows(rows, ['trace', 'exitPoint'], 'keys').map((g) => g.rows.map((r) => r.utility));
}

export function sdBySamples(groups: readonly number[][], maxSamples: number, resamples: number, threshold: number, rng: Rng): SdRow[] {
  if (groups.length === 0) return [];
  const rows: SdRow[] = [];
  for (let m = 1; m <= maxSamples; m++) {
    const sds = groups.map((g, i) => bootstrapSdOfMean(g, m, resamples, rng.fork(`sd-${m}-${i}`)));
    const sorted = Float64Array.from(sds).sort();
    rows.push({
      samples: m,
      meanSd: mean(sds),
      p10: quantileSorted(sorted, 0.1),
      p50: quantileSorted(sorted, 0.5),
      p90: quantileSorted(sorted, 0.9),
      fractionBelowThreshold: sds.filter((s) => s <= threshold).length / sds.length,
      exitPoints: sds.length,
    });
  }
  return rows;
}

export interface TruncationRow {
  fraction: number;
  limit: number;
  continuations: number;
  /** Continuations that end within M (finished, whatever their answer). */
  finishedUnderM: number;
  cut: number;
  /** cut / continuations: completions lost (includes those already cut by M). */
  cutFraction: number;
  correctUnderM: number;
  cutCorrect: number;
  /** cutCorrect / correctUnderM: correct completions lost by the smaller limit. */
  cutCorrectFraction: number;
  /** Mean |V_MC at M′ − V_MC at M| over exit points. */
  meanAbsValueShift: number;
}

export function truncationStudy(
  traces: readonly ContinuationRecord[][],
  maxNewTokens: number,
  horizon: 'continuation' | 'completion',
  fractions: readonly number[],
): TruncationRow[] {
  const all = traces.flat();
  const correctUnderM = all.filter((r) => r.correct).length;
  const finishedUnderM = all.filter((r) => !r.truncated).length;
  return fractions.map((fraction) => {
    const limit = Math.max(1, Math.round(fraction * maxNewTokens));
    let cut = 0;
    let cutCorrect = 0;
    let shiftSum = 0;
    let shiftCount = 0;
    for (const records of traces) {
      if (records.length === 0) continue;
      const full = truncationLoss(records, maxNewTokens, horizon);
      const loss = truncationLoss(records, limit, horizon);
      cut += loss.cut;
      cutCorrect += loss.cutCorrect;
      loss.valuesAtLimit.forEach((v, k) => {
        shiftSum += Math.abs(v - full.valuesAtLimit[k]);
        shiftCount++;
      });
    }
    return {
      fraction,
      limit,
      continuations: all.length,
      finishedUnderM,
      cut,
      cutFraction: all.length ? cut / all.length : NaN,
      correctUnderM,
      cutCorrect,
      cutCorrectFraction: correctUnderM ? cutCorrect / correctUnderM : NaN,
      meanAbsValueShift: shiftCount ? shiftSum / shiftCount : NaN,
    };
  });
}
