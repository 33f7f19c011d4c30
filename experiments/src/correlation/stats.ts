/**
 * Correlation math for comparing credit-assignment methods (App. 10.2): Pearson, Spearman (average
 * ranks for ties) and a percentile bootstrap over traces (segments of one trace stay together, since
 * they are not independent). Pairs with a non-finite member are excluded and COUNTED, never dropped silently.
 */
import type { Rng } from '@rred/core';
import { quantileSorted } from '@rred/evaluation';

export function pearson(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError(`pearson: ${x.length} vs ${y.length} values`);
  const n = x.length;
  if (n < 2) return NaN;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  // a constant input has no correlation with anything: NaN, not 0
  if (sxx === 0 || syy === 0) return NaN;
  return sxy / Math.sqrt(sxx * syy);
}

/** Ranks 1..n, ties get the average of the ranks they span. */
export function ranks(x: readonly number[]): number[] {
  const order = x.map((v, i) => i).sort((a, b) => x[a] - x[b]);
  const r = new Array<number>(x.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && x[order[j + 1]] === x[order[i]]) j++;
    const avg = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) r[order[t]] = avg;
    i = j + 1;
  }
  return r;
}

export function spearman(x: readonly number[], y: readonly number[]): number {
  return pearson(ranks(x), ranks(y));
}

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
  const xs = finite.map((p) => p.a);
  const ys = finite.map((p) => p.b);
  const ps: number[] = [];
  const ss: number[] = [];
  for (let r = 0; r < resamples && groups.length > 0; r++) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      for (const p of groups[Math.floor(rng.next() * groups.length)]) {
        a.push(p.a);
        b.push(p.b);
      }
    }
    const pr = pearson(a, b);
    const sr = spearman(a, b);
    if (!Number.isNaN(pr)) ps.push(pr);
    if (!Number.isNaN(sr)) ss.push(sr);
  }
  const lo = (1 - level) / 2;
  const interval = (vals: number[]): [number, number] => {
    if (vals.length === 0) return [NaN, NaN];
    const sorted = Float64Array.from(vals).sort();
    return [quantileSorted(sorted, lo), quantileSorted(sorted, 1 - lo)];
  };
  const [pearsonLo, pearsonHi] = interval(ps);
  const [spearmanLo, spearmanHi] = interval(ss);
  return {
    pearson: pearson(xs, ys),
    pearsonLo,
    pearsonHi,
    spearman: spearman(xs, ys),
    spearmanLo,
    spearmanHi,
    n: finite.length,
    traces: groups.length,
    nonFinite: points.length - finite.length,
  };
}

export const POSITION_BINS = ['early', 'middle', 'late'] as const;
export type PositionBin = (typeof POSITION_BINS)[number];

/** Relative position of segment k (1-based) of K: its midpoint (k − ½)/K in thirds. */
export function positionBin(k: number, K: number): PositionBin {
  const rel = (k - 0.5) / K;
  return rel < 1 / 3 ? 'early' : rel < 2 / 3 ? 'middle' : 'late';
}
