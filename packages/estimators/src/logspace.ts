/**
 * Log-space arithmetic. Probabilities of multi-token suffixes underflow quickly, so every sum of
 * probabilities is a logsumexp and nothing is exponentiated just to take its log again.
 */

/** log Σ exp(x_i); −∞ for an empty list or all −∞; NaN if any input is NaN (never hidden). */
export function logSumExp(xs: readonly number[]): number {
  let max = -Infinity;
  for (const x of xs) {
    if (Number.isNaN(x)) return NaN;
    if (x > max) max = x;
  }
  if (max === -Infinity) return -Infinity;
  if (max === Infinity) return Infinity;
  let sum = 0;
  for (const x of xs) sum += Math.exp(x - max);
  return max + Math.log(sum);
}

/** log(exp(a) + exp(b)). */
export function logAddExp(a: number, b: number): number {
  return logSumExp([a, b]);
}

/** log((1/n) Σ exp(x_i)). */
export function logMeanExp(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError('logMeanExp: empty list');
  return logSumExp(xs) - Math.log(xs.length);
}

/** Σ x_i of a log-probability list (the log-probability of a whole token sequence). */
export function sumLogprobs(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
