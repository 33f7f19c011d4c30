/**
 * Pearson and Spearman correlation, from simple-statistics (`sampleCorrelation`,
 * `sampleRankCorrelation`; the latter gives tied values the average of the ranks they span).
 * NaN, never 0, when the coefficient is undefined: fewer than 2 pairs, a NaN member, or a constant
 * side (no spread to correlate). Callers that exclude non-finite pairs filter and count them first.
 */
import * as ss from 'simple-statistics';

function undefinedCoefficient(name: string, x: readonly number[], y: readonly number[]): boolean {
  if (x.length !== y.length) throw new RangeError(`${name}: ${x.length} vs ${y.length} values`);
  if (x.length < 2 || x.some(Number.isNaN) || y.some(Number.isNaN)) return true;
  return x.every((v) => v === x[0]) || y.every((v) => v === y[0]);
}

export function pearson(x: readonly number[], y: readonly number[]): number {
  return undefinedCoefficient('pearson', x, y) ? NaN : ss.sampleCorrelation(x as number[], y as number[]);
}

export function spearman(x: readonly number[], y: readonly number[]): number {
  return undefinedCoefficient('spearman', x, y) ? NaN : ss.sampleRankCorrelation(x as number[], y as number[]);
}
