import type { Rng } from '@rred/core';

export interface Interval {
  lower: number;
  upper: number;
  /** Two-sided coverage, e.g. 0.95. */
  level: number;
  method: 'wilson' | 'bootstrap';
}

/** Standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/**
 * Wilson score interval for a binomial proportion with `successes` out of `trials` (may be
 * fractional, e.g. a mean of per-problem scores × problems). Unlike the normal interval it stays
 * inside [0, 1] and is sensible at 0 and n successes.
 */
export function wilsonInterval(successes: number, trials: number, level = 0.95): Interval {
  if (!(trials > 0)) throw new RangeError(`wilsonInterval: trials must be > 0, got ${trials}`);
  if (!(successes >= 0 && successes <= trials)) throw new RangeError(`wilsonInterval: successes ${successes} not in [0, ${trials}]`);
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half), level, method: 'wilson' };
}

/**
 * Percentile bootstrap interval of the mean of `values` (one per problem: resampling problems keeps
 * the samples of one problem together). Seeded through `rng`, so the interval is reproducible.
 */
export function bootstrapMeanInterval(values: readonly number[], rng: Rng, resamples = 2000, level = 0.95): Interval {
  const n = values.length;
  if (n === 0) throw new RangeError('bootstrapMeanInterval: no values');
  if (values.some((v) => Number.isNaN(v))) throw new RangeError('bootstrapMeanInterval: values contain NaN');
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(rng.next() * n)];
    means[r] = sum / n;
  }
  means.sort();
  const alpha = (1 - level) / 2;
  return { lower: quantileSorted(means, alpha), upper: quantileSorted(means, 1 - alpha), level, method: 'bootstrap' };
}

/** Linear-interpolated quantile of a sorted array (type 7, as R's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
