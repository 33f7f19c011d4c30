/**
 * Correlation between credit-assignment methods (App. 10.2): Pearson and Spearman (core's stats
 * module; Spearman averages the ranks of ties) with a percentile cluster bootstrap over traces
 * (segments of one trace stay together, since they are not independent). Pairs with a non-finite
 * member are excluded and COUNTED, never dropped silently.
 */
import { clusterBootstrap, pearson, percentileInterval, spearman, type Rng } from '@rred/core';

/** One observation: the two methods' numbers for one segment of one trace. */
export interface PairedPoint {
  trace: number;
  a: number;
  b: number;
}

export interface CorrelationEstimate {
  pearson: number;
  pearsonLo: number;
  pearsonHi: number;
  spearman: number;
  spearmanLo: number;
  spearmanHi: number;
  /** Segments used (both values finite). */
  n: number;
  traces: number;
  /** Segments excluded because a value was NaN or ±Inf. */
  nonFinite: number;
}

/**
 * Pearson and Spearman of the finite pairs, with percentile bootstrap intervals from resampling
 * traces with replacement (`resamples` times, level e.g. 0.95). Resamples where a coefficient is
 * undefined (constant input) are left out of its interval.
 */
export function correlate(points: readonly PairedPoint[], resamples: number, level: number, rng: Rng): CorrelationEstimate {
  const finite = points.filter((p) => Number.isFinite(p.a) && Number.isFinite(p.b));
  const byTrace = new Map<number, PairedPoint[]>();
  for (const p of finite) {
    const g = byTrace.get(p.trace) ?? [];
    g.push(p);
    byTrace.set(p.trace, g);
  }
  const groups = [...byTrace.values()];
  const both = (sample: readonly PairedPoint[]): [number, number] => {
    const a = sample.map((p) => p.a);
    const b = sample.map((p) => p.b);
    return [pearson(a, b), spearman(a, b)];
  };
  const replicates = clusterBootstrap(groups, resamples, rng, both);
  const defined = (i: 0 | 1) => replicates.map((r) => r[i]).filter((v) => !Number.isNaN(v));
  const [pearsonLo, pearsonHi] = percentileInterval(defined(0), level);
  const [spearmanLo, spearmanHi] = percentileInterval(defined(1), level);
  const [r, rho] = both(finite);
  return {
    pearson: r,
    pearsonLo,
    pearsonHi,
    spearman: rho,
    spearmanLo,
    spearmanHi,
    n: finite.length,
    traces: groups.length,
    nonFinite: points.length - finite.length,
  };
}

export const POSITION_BINS = ['early', 'middle', 'late'] as const;
type PositionBin = (typeof POSITION_BINS)[number];

/** Relative position of segment k (1-based) of K: its midpoint (k − ½)/K in thirds. */
export function positionBin(k: number, K: number): PositionBin {
  const rel = (k - 0.5) / K;
  return rel < 1 / 3 ? 'early' : rel < 2 / 3 ? 'middle' : 'late';
}
