/**
 * Entropy (nats) of a next-token distribution known only through its top-k log-probs: the k listed
 * outcomes, plus the rest of the mass r = 1 − Σ_topk p lumped into one outcome:
 *   H ≈ −Σ_topk p log p − r log r,
 * a lower bound on the true entropy (splitting the rest can only add entropy); exact when k covers the
 * support. Used only when the server reports no exact entropy (rred serve reports it).
 */
export function entropyFromTopK(logprobs: readonly number[]): number {
  let h = 0;
  let mass = 0;
  for (const lp of logprobs) {
    if (Number.isNaN(lp)) return NaN;
    if (lp === -Infinity) continue;
    const p = Math.exp(lp);
    mass += p;
    h -= p * lp;
  }
  const rest = 1 - mass;
  if (rest > 1e-12) h -= rest * Math.log(rest);
  return h;
}
