/**
 * Confidence intervals. The t interval is built from library parts (simple-statistics variance,
 * jstat quantile); the Wilson score interval is written here because neither library has it; the
 * median's order-statistic interval takes its ranks from jstat's binomial cdf.
 */
import { jStat } from 'jstat';
import { mean, median, sampleVariance } from './descriptive';
import { normalQuantile, tQuantile } from './distributions';

export interface MeanCi {
  mean: number;
  /** Interval bounds; NaN with fewer than 2 values (no spread to estimate) or a NaN input. */
  lo: number;
  hi: number;
  n: number;
}

/** Mean and two-sided Student-t interval at `level` (e.g. 0.95): mean ± t_{(1+level)/2, n−1} · s/√n. */
export function meanCi(values: readonly number[], level: number): MeanCi {
  const n = values.length;
  const m = mean(values);
  if (n < 2 || Number.isNaN(m)) return { mean: m, lo: NaN, hi: NaN, n };
  const half = tQuantile(1 - (1 - level) / 2, n - 1) * Math.sqrt(sampleVariance(values) / n);
  return { mean: m, lo: m - half, hi: m + half, n };
}

export interface Interval {
  lower: number;
  upper: number;
  /** Two-sided coverage, e.g. 0.95. */
  level: number;
  method: 'wilson' | 'bootstrap';
}

/**
 * Wilson score interval for a binomial proportion with `successes` out of `trials` (may be
 * fractional, e.g. a mean of per-problem scores × problems). Unlike the normal interval it stays
 * inside [0, 1] and is sensible at 0 and n successes. Hand-written: neither simple-statistics nor
 * jstat has it. centre = (p + z²/2n) / (1 + z²/n), half = z/(1 + z²/n) · √(p(1−p)/n + z²/4n²).
 */
export function wilsonInterval(successes: number, trials: number, level = 0.95): Interval {
  if (!(trials > 0)) throw new RangeError(`wilsonInterval: trials must be > 0, got ${trials}`);
  if (!(successes >= 0 && successes <= trials)) throw new RangeError(`wilsonInterval: successes ${successes} not in [0, ${trials}]`);
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  // at 0 and n successes the bound is exactly 0 (resp. 1); say so rather than leave it to round-off
  const lower = successes === 0 ? 0 : Math.max(0, centre - half);
  const upper = successes === trials ? 1 : Math.min(1, centre + half);
  return { lower, upper, level, method: 'wilson' };
}

interface MedianCi {
  median: number;
  /** Order statistics x_(j) and x_(n−j+1); NaN when n is too small for the level or a value is NaN. */
  lo: number;
  hi: number;
  /** The interval's exact coverage, 1 − 2·P(Binom(n, ½) < j) ≥ level. */
  coverage: number;
  n: number;
}

/**
 * Distribution-free interval for a median (e.g. of paired timing ratios, whose tails are other jobs on
 * the machine): [x_(j), x_(n−j+1)] of the sorted values with the largest j such that
 * P(Binom(n, ½) ≤ j − 1) ≤ (1 − level)/2 (jstat's binomial cdf). n = 15 at 0.95 gives j = 4 (coverage 0.965).
 */
export function medianCi(values: readonly number[], level: number): MedianCi {
  const n = values.length;
  const m = median(values);
  const none = { median: m, lo: NaN, hi: NaN, coverage: NaN, n };
  if (n === 0 || values.some((v) => Number.isNaN(v))) return none;
  let j = 0;
  while (j + 1 <= n / 2 && jStat.binomial.cdf(j, n, 0.5) <= (1 - level) / 2) j++;
  if (j === 0) return none;
  const sorted = [...values].sort((a, b) => a - b);
  return { median: m, lo: sorted[j - 1], hi: sorted[n - j], coverage: 1 - 2 * jStat.binomial.cdf(j - 1, n, 0.5), n };
}
