/** Learning-curve math on stored validation points: seed means, and when a curve first reaches a target. */
import { clusterBootstrap, mean, type Rng } from '@rred/core';
import { groupRows } from '../common/frame';

export interface CurvePoint {
  step: number;
  /** Validation avg@k at this step. */
  avg: number;
  /** Training wall time (sampling + redistribution + update; validation excluded) up to this step, seconds. */
  trainSeconds: number;
}

/** Mean over seeds at every step that all curves share (steps in increasing order). */
export function meanCurve(curves: readonly (readonly CurvePoint[])[]): CurvePoint[] {
  if (curves.length === 0) return [];
  const rows = curves.flatMap((c, curve) => c.map((p) => ({ curve, ...p })));
  return groupRows(rows, ['step'], 'keys')
    .filter((g) => new Set(g.rows.map((r) => r.curve)).size === curves.length)
    .map((g) => {
      // one point per curve (the first, if a curve repeats a step), in curve order
      const pts = curves.map((_, c) => g.rows.find((r) => r.curve === c)!);
      return { step: g.key.step, avg: mean(pts.map((p) => p.avg)), trainSeconds: mean(pts.map((p) => p.trainSeconds)) };
    });
}

/** First point (by step) whose avg is ≥ target; null when the curve never gets there. */
export function firstReach(curve: readonly CurvePoint[], target: number): CurvePoint | null {
  if (Number.isNaN(target)) return null;
  return [...curve].sort((a, b) => a.step - b.step).find((p) => p.avg >= target) ?? null;
}

export interface EfficiencyRow {
  method: string;
  /** The target validation avg@k on GRPO's seed-mean curve (its final point, best point, or the midpoint between its start and best). */
  target: number;
  /** Step at which the method's seed-mean curve first reaches the target (null: never within the run). */
  steps: number | null;
  seconds: number | null;
  /** GRPO steps to reach / method steps to reach: > 1 = fewer steps than GRPO. */
  stepRatio: number | null;
  timeRatio: number | null;
}

/**
 * Sample efficiency against GRPO (paper Sec. 4, Tab. 1 "efficiency"): the target is the final point of
 * GRPO's seed-mean validation curve; each method's steps (and training seconds) to first reach it on its
 * own seed-mean curve, and GRPO's over the method's. `targetOf: 'max'` uses the best point of GRPO's curve
 * instead (still defined when GRPO ends below its start); 'midpoint' the midpoint between GRPO's start (its
 * first point) and its best point, which lies above the start whenever GRPO improved at all, so every
 * method that learns reaches it after step 0. A curve at step 0 is the untrained model, so a target at or
 * below it is reached at step 0 by every method and the ratio is undefined (null).
 */
export function sampleEfficiency(
  meanCurves: Record<string, readonly CurvePoint[]>,
  baseline = 'grpo',
  targetOf: 'final' | 'max' | 'midpoint' = 'final',
): EfficiencyRow[] {
  const base = meanCurves[baseline];
  if (!base || base.length === 0) return [];
  const best = Math.max(...base.map((p) => p.avg));
  const first = base.reduce((a, b) => (b.step < a.step ? b : a)).avg;
  const target =
    targetOf === 'final' ? base.reduce((a, b) => (b.step > a.step ? b : a)).avg : targetOf === 'max' ? best : (first + best) / 2;
  const baseHit = firstReach(base, target);
  return Object.entries(meanCurves).map(([method, curve]) => {
    const hit = firstReach(curve, target);
    const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && a > 0 && b > 0 ? a / b : null);
    return {
      method,
      target,
      steps: hit ? hit.step : null,
      seconds: hit ? hit.trainSeconds : null,
      stepRatio: ratio(baseHit?.step, hit?.step),
      timeRatio: ratio(baseHit?.trainSeconds, hit?.trainSeconds),
    };
  });
}

/** Percentile interval of a statistic that may be +∞ ("never reached"): order statistics, no interpolation. */
function orderInterval(values: readonly number[], level: number): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
  return [at((1 - level) / 2), at((1 + level) / 2)];
}

/** Bootstrap intervals of the steps and training seconds at which a seed-mean curve first reaches a target. */
export interface ReachInterval {
  /** [lo, hi]; hi = +∞ when more than (1 − level)/2 of the resamples never reach the target. */
  steps: [number, number];
  seconds: [number, number];
  /** Share of resamples whose mean curve never reaches the target. */
  unreached: number;
}

/**
 * Resamples a method's seeds with replacement (`resamples` times, one `rng.next()` per draw), takes the
 * mean curve of each resample and the first point at or above `target`: percentile intervals (order
 * statistics) of its step and training seconds, +∞ for a resample that never gets there.
 */
export function reachInterval(
  seedCurves: readonly (readonly CurvePoint[])[],
  target: number,
  rng: Rng,
  level: number,
  resamples = 2000,
): ReachInterval {
  const hits = clusterBootstrap(
    seedCurves.map((c) => [c]),
    resamples,
    rng,
    (sample) => firstReach(meanCurve(sample), target),
  );
  if (hits.length === 0) return { steps: [NaN, NaN], seconds: [NaN, NaN], unreached: NaN };
  return {
    steps: orderInterval(
      hits.map((h) => h?.step ?? Infinity),
      level,
    ),
    seconds: orderInterval(
      hits.map((h) => h?.trainSeconds ?? Infinity),
      level,
    ),
    unreached: hits.filter((h) => h === null).length / hits.length,
  };
}
