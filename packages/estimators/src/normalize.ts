/**
 * Segment weights σ_k from credits r_k (Eq. 11). Return equivalence (Sec. 3.3) needs the weights to
 * sum to 1: `softmax` and `uniform` give positive weights with Σσ = 1; `L1` keeps the sign of each
 * credit (a harmful segment gets a negative weight) with Σ|σ| = 1, so Σσ = Σr / Σ|r| ∈ [−1, 1] and
 * return equivalence does NOT hold. Training builds σ with `@rred/recipes`' `segmentSigma` (sign
 * handling, standardized softmax), which calls this function.
 */

type Normalization = 'L1' | 'softmax' | 'uniform';

interface NormalizeOptions {
  /** Softmax temperature τ (> 0): σ = softmax(r/τ). */
  tau: number;
  /** Token count of each segment; `uniform` weighs segments by length so every token gets the same share (Eq. 12). */
  segmentLengths: readonly number[];
}

export function normalizeCredits(credits: readonly number[], normalization: Normalization, options: NormalizeOptions): number[] {
  const K = credits.length;
  if (options.segmentLengths.length !== K) {
    throw new RangeError(`normalizeCredits: ${K} credits but ${options.segmentLengths.length} segment lengths`);
  }
  if (K === 0) return [];
  const bad = credits.findIndex((r) => !Number.isFinite(r));
  // A non-finite credit means a probability was exactly 0 or a NaN upstream; weighting on it would be silent garbage.
  if (bad >= 0 && normalization !== 'uniform') {
    throw new RangeError(`normalizeCredits: credit of segment ${bad + 1} is ${credits[bad]}; cannot normalize with '${normalization}'`);
  }
  switch (normalization) {
    case 'uniform':
      return byLength(options.segmentLengths);
    case 'softmax': {
      if (!(options.tau > 0)) throw new RangeError(`normalizeCredits: tau must be > 0, got ${options.tau}`);
      const z = credits.map((r) => r / options.tau);
      const max = Math.max(...z);
      const e = z.map((x) => Math.exp(x - max));
      const s = e.reduce((a, b) => a + b, 0);
      return e.map((x) => x / s);
    }
    case 'L1': {
      const s = credits.reduce((a, r) => a + Math.abs(r), 0);
      // All credits zero: the estimate says nothing about any segment, so fall back to the GRPO
      // weighting (uniform per token), which also satisfies Σ|σ| = 1.
      if (s === 0) return byLength(options.segmentLengths);
      return credits.map((r) => r / s);
    }
  }
}

/** σ_k = |u_k| / Σ|u|: every thinking token gets the same weight. */
function byLength(lengths: readonly number[]): number[] {
  const total = lengths.reduce((a, b) => a + b, 0);
  if (!(total > 0)) throw new RangeError('normalizeCredits: segments have no tokens');
  return lengths.map((l) => l / total);
}
