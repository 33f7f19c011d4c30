/**
 * Quantiles of the Student-t and standard normal distributions, from jstat.
 * - `jStat.studentt.inv` inverts the regularized incomplete beta; against the closed forms for df = 1
 *   (tan) and df = 2 its relative error is below 2e-8 for p in [0.9, 0.995] (tested), far below the
 *   digits an interval over a handful of seeds is printed with.
 * - The normal quantile is jstat's too: simple-statistics' `probit` goes through an approximate inverse
 *   error function and is off by 2.8e-3 at p = 0.975 (1.95716 instead of 1.95996), too coarse for an
 *   interval's z.
 */
import { jStat } from 'jstat';

/** The p-quantile of Student's t with `df` degrees of freedom (0 < p < 1, df > 0). */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) throw new RangeError(`tQuantile: need 0 < p < 1 and df > 0, got p = ${p}, df = ${df}`);
  return jStat.studentt.inv(p, df);
}

/** The p-quantile of the standard normal distribution (0 < p < 1). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  return jStat.normal.inv(p, 0, 1);
}
