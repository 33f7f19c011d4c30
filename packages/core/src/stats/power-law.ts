/**
 * The exponent b of y ≈ a·x^b: the least-squares slope of log y on log x (simple-statistics'
 * linearRegression). Convention of the stats module: fewer than 2 points, or a NaN → NaN; a non-positive
 * value (no logarithm) throws RangeError, as do unequal lengths.
 */
import * as ss from 'simple-statistics';

export function powerLawExponent(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length) throw new RangeError(`powerLawExponent: ${xs.length} x values but ${ys.length} y values`);
  if (xs.length < 2 || [...xs, ...ys].some(Number.isNaN)) return NaN;
  const bad = [...xs, ...ys].find((v) => !(v > 0));
  if (bad !== undefined) throw new RangeError(`powerLawExponent: every value must be > 0, got ${bad}`);
  if (new Set(xs).size < 2) return NaN; // a single x: no slope
  return ss.linearRegression(xs.map((x, i) => [Math.log(x), Math.log(ys[i])])).m;
}
