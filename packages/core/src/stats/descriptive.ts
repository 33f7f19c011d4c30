/**
 * Sums, means, medians, SDs and quantiles, from simple-statistics. The convention of the whole stats
 * module (see index.ts): too few values → NaN (never 0, never a throw); a NaN input → NaN.
 */
import * as ss from 'simple-statistics';

/** Σ xs, left to right (0 for no values, as a sum should be). */
export function sum(xs: readonly number[]): number {
  return ss.sumSimple(xs as number[]);
}

/**
 * Arithmetic mean; NaN for no values. simple-statistics' `meanSimple` (a left-to-right sum / n): the
 * arithmetic every committed result was produced with. Its compensated `mean` (Kahan–Babuška) would
 * change the last digit of some full-precision numbers in results/*.csv.
 */
export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : ss.meanSimple(xs as number[]);
}

/** Median (average of the two middle values for an even count); NaN for no values or a NaN input. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0 || xs.some(Number.isNaN)) return NaN;
  return ss.median(xs as number[]);
}

/** Sample standard deviation (n − 1 in the denominator); NaN for fewer than 2 values. */
export function sampleStandardDeviation(xs: readonly number[]): number {
  return xs.length < 2 ? NaN : ss.sampleStandardDeviation(xs as number[]);
}

/** Population standard deviation (n in the denominator); NaN for no values. */
export function standardDeviation(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : ss.standardDeviation(xs as number[]);
}

/** Sample variance (n − 1 in the denominator); NaN for fewer than 2 values. */
export function sampleVariance(xs: readonly number[]): number {
  return xs.length < 2 ? NaN : ss.sampleVariance(xs as number[]);
}

/**
 * p-quantile (0 ≤ p ≤ 1) of ascending values, linear interpolation between order statistics (type 7,
 * R's and numpy's default). NaN for no values. The caller sorts (Float64Array.sort sorts numerically).
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileSorted: p must be in [0, 1], got ${p}`);
  return sorted.length === 0 ? NaN : ss.quantileSorted(sorted as number[], p);
}
