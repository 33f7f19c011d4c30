/**
 * σ, the token-wise redistribution coefficients of paper Eq. 11, in one place: from an estimator's segment
 * credits r_1..r_K and the completion's GRPO advantage A_i to one weight per completion token. The GRPO
 * loss (`@rred/training`) multiplies token t's term by Â_{i,t} = A_i · σ_t · |o_i|; σ_t = 1/|o_i| is plain
 * GRPO (Eq. 12). The steps, each with its `SigmaConfig` option:
 *
 * 1. Sign handling (`signHandling`): c_k = sign(A_i) · r_k ('aligned') or c_k = r_k ('literal', Eq. 11 as
 *    written). The coefficient is A_i · σ_t · |o_i|, so under literal with signed L1 and A_i < 0 a segment the
 *    estimator blames (r_k < 0 ⇒ σ_k < 0) gets a positive coefficient and is pushed up, and softmax puts the
 *    most blame on the segment that made the most progress. Aligned puts the most negative coefficient of a
 *    failed completion on the segments that lowered the value and the most positive coefficient of a correct
 *    one on the segments that raised it. For A_i > 0 aligned ≡ literal.
 * 2. Softmax input (`credits`, softmax only): z_k = (c_k − mean c) / sd c ('standardized'; population SD,
 *    z = 0 when sd = 0) or z_k = c_k ('raw').
 * 3. Normalization N (`normalization`), with |u_k| the token count of segment k:
 *      softmax  σ_k = w_k e^{z_k/τ} / Σ_j w_j e^{z_j/τ},  w_k = |u_k| (`lengthPrior`) or 1     Σσ = 1
 *      L1       σ_k = c_k / Σ_j |c_j|   (signed; all-zero credits fall back to uniform)      Σσ ∈ [−1, 1]
 *      uniform  σ_k = |u_k| / Σ_j |u_j|                                                   (Eq. 12)
 * 4. Spreading over tokens (`tokenWeights`), |o| = |think| + |ans|: the answer tokens after the thinking
 *    (`</think>`, the answer, `<eos>`) are a segment of their own with its GRPO share,
 *      σ_t = (|think| / |o|) · σ_k / |u_k|   for t in thinking segment k,
 *      σ_t = 1 / |o|                          for t in the answer,
 *    so Σ_t σ_t = |ans|/|o| + (|think|/|o|) · Σσ_k, which is 1 (return equivalence, Sec. 3.3) exactly when
 *    Σσ_k = 1 (softmax, uniform; `returnEquivalent`). Signed L1 keeps Σ|σ_t| = 1 but not Σσ_t = 1 (the
 *    trainer logs Σσ_t per step). Uniform σ_k gives every token exactly 1/|o|: plain GRPO.
 *
 * Why the answer keeps its share: no exit point lies inside the answer, so no estimator has a credit for it,
 * and its uniform share leaves the answer/thinking balance of the gradient as in GRPO. Why standardized
 * credits: log-credits span tens of nats on the embedded checkpoints, so a softmax at τ = 1 over raw credits
 * is one-hot, while after standardization a segment one SD above the mean gets e ≈ 2.7 times the weight per
 * token of one at the mean, whatever the credit scale. Why the length prior: equal credits then give every
 * token 1/|o| (plain GRPO), and a two-token segment cannot take the whole trace's mass by itself.
 *
 * An estimator reports σ to analyses without an advantage (`EstimatorResult.sigma`): that is `segmentSigma`
 * under `reportedSigmaConfig` of the estimator config's `normalization` and τ (literal sign, raw credits, no
 * length prior).
 */
import { mean, standardDeviation } from '@rred/core';
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { z } from 'zod';

const sigmaNormalizations = ['softmax', 'L1', 'uniform'] as const;
type Normalization = (typeof sigmaNormalizations)[number];

export const sigmaConfigSchema = z
  .object({
    signHandling: z
      .enum(['aligned', 'literal'])
      .default('aligned')
      .describe(
        "Step 1 of σ: 'aligned' σ from sign(A_i)·r_k, so a failed completion puts the most blame on the segments that lowered the value; " +
          "'literal' σ from r_k whatever the sign of A_i (the paper's formula as written).",
      ),
    normalization: z
      .enum(sigmaNormalizations)
      .default('softmax')
      .describe(
        "Step 3 of σ, from the (signed) credits c_k: 'softmax' σ_k ∝ w_k·exp(z_k/τ) (Σσ = 1); 'L1' σ_k = c_k/Σ|c| (signed, Σσ ∈ [−1, 1]: breaks " +
          "return equivalence, logged per step); 'uniform' σ_k ∝ |u_k| (Eq. 12, plain GRPO).",
      ),
    credits: z
      .enum(['standardized', 'raw'])
      .default('standardized')
      .describe(
        "Step 2 of σ, the softmax input z_k: 'standardized' (c_k − mean c)/sd c per trace (population SD; all equal ⇒ z = 0), so τ is in SDs; " +
          "'raw' c_k (the paper's softmax). Only with softmax.",
      ),
    tau: z.number().positive().default(1).describe('Softmax temperature τ > 0 (in credit SDs when standardized).'),
    lengthPrior: z
      .boolean()
      .default(true)
      .describe(
        'softmax only: w_k = |u_k| (true: a softmax over thinking tokens, each carrying its segment credit; equal credits give plain GRPO) or ' +
          'w_k = 1 (false: a softmax over segments, as in the paper).',
      ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.normalization !== 'softmax' && c.credits === 'standardized')
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `credits 'standardized' needs normalization 'softmax' (got '${c.normalization}'); use credits 'raw'`,
      });
  });

export type SigmaConfig = z.infer<typeof sigmaConfigSchema>;
export type SigmaConfigInput = z.input<typeof sigmaConfigSchema>;

/** Σ_t σ_t = 1 for every trace under this config (Sec. 3.3 return equivalence). */
export function returnEquivalent(c: Pick<SigmaConfig, 'normalization'>): boolean {
  return c.normalization !== 'L1';
}

/**
 * The σ an estimator reports without an advantage, from its config's `normalization` and τ: N applied to
 * the credits as they are (literal sign, raw credits, no length prior).
 */
export function reportedSigmaConfig(normalization: Normalization, tau: number): SigmaConfig {
  return { signHandling: 'literal', normalization, credits: 'raw', tau, lengthPrior: false };
}

/**
 * σ_1..σ_K of one trace (steps 1–3; `tokenWeights` spreads them over the tokens). credits [K],
 * segmentLengths [K] (|u_k|), advantage A_i of the trace.
 */
export function segmentSigma(credits: readonly number[], segmentLengths: readonly number[], advantage: number, c: SigmaConfig): number[] {
  if (!Number.isFinite(advantage)) throw new RangeError(`segmentSigma: advantage is ${advantage}`);
  const sign = c.signHandling === 'aligned' && advantage < 0 ? -1 : 1;
  const signed = credits.map((r) => sign * r);
  if (c.normalization !== 'softmax') return normalizeCredits(signed, c.normalization, { tau: c.tau, segmentLengths });
  const zs = c.credits === 'standardized' ? standardize(signed) : signed;
  // softmax(z/τ + log w) = w e^{z/τ} / Σ w e^{z/τ}: the length prior enters as a shift of τ·log|u_k|
  const shifted = c.lengthPrior ? zs.map((x, k) => x + c.tau * Math.log(segmentLengths[k])) : zs;
  return normalizeCredits(shifted, 'softmax', { tau: c.tau, segmentLengths });
}

/** (x − mean) / population SD; all zeros when the SD is 0. A non-finite input passes through (normalizeCredits rejects it). */
function standardize(xs: readonly number[]): number[] {
  if (xs.length === 0) return [];
  const m = mean(xs);
  const sd = standardDeviation(xs);
  if (!Number.isFinite(m) || !Number.isFinite(sd)) return [...xs];
  return sd > 0 ? xs.map((x) => (x - m) / sd) : xs.map(() => 0);
}

interface NormalizeOptions {
  /** Softmax temperature τ (> 0): σ = softmax(c/τ). */
  tau: number;
  /** |u_k| of each segment; `uniform` weighs segments by length so every token gets the same share (Eq. 12). */
  segmentLengths: readonly number[];
}

/** Step 3, the normalization N of (already signed, scaled) credits. A non-finite credit throws, except under 'uniform'. */
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
      const zs = credits.map((r) => r / options.tau);
      const max = Math.max(...zs);
      const e = zs.map((x) => Math.exp(x - max));
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

interface TokenWeightOptions {
  /**
   * Total weight given to the answer segment, in [0, 1]. Default: |answer| / |o| (its GRPO share; see
   * step 4 above). Other values keep Σ = 1 but no longer reduce to GRPO under uniform σ.
   */
  answerMass?: number;
}

/** Step 4: σ_t per completion token [|o|] from σ_k of the thinking segments [K]. */
export function tokenWeights(
  trace: Trace,
  segments: readonly Segment[],
  sigma: readonly number[],
  options: TokenWeightOptions = {},
): number[] {
  const O = trace.completion.length;
  if (sigma.length !== segments.length) {
    throw new RangeError(`tokenWeights: ${sigma.length} weights for ${segments.length} segments (trace '${trace.problemId}')`);
  }
  const covered = segments.length ? segments[segments.length - 1].end : 0;
  if (covered !== trace.thinkEnd) {
    throw new RangeError(`tokenWeights: segments cover [0, ${covered}) but thinkEnd is ${trace.thinkEnd} (trace '${trace.problemId}')`);
  }
  if (O === 0) return [];
  const answerLen = O - trace.thinkEnd;
  const thinkLen = trace.thinkEnd;
  let answerMass = options.answerMass ?? answerLen / O;
  if (!(answerMass >= 0 && answerMass <= 1)) throw new RangeError(`tokenWeights: answerMass must be in [0, 1], got ${answerMass}`);
  // Without thinking tokens the answer segment is the whole completion; without answer tokens it has nothing to hold.
  if (thinkLen === 0) answerMass = 1;
  if (answerLen === 0) answerMass = 0;
  const thinkMass = 1 - answerMass;
  const w = new Array<number>(O).fill(0);
  segments.forEach((seg, k) => {
    const per = (thinkMass * sigma[k]) / (seg.end - seg.start);
    for (let t = seg.start; t < seg.end; t++) w[t] = per;
  });
  for (let t = trace.thinkEnd; t < O; t++) w[t] = answerMass / answerLen;
  return w;
}

/**
 * σ_t of one trace from its credits: steps 1–4 (`segmentSigma`, then `tokenWeights`). What a trainer
 * multiplies by A_i · |o_i|; the estimator hook and `rred export-weights` both call it.
 */
export function traceSigma(
  trace: Trace,
  segments: readonly Segment[],
  credits: readonly number[],
  advantage: number,
  c: SigmaConfig,
): number[] {
  const sigmaK = segmentSigma(
    credits,
    segments.map((s) => s.end - s.start),
    advantage,
    c,
  );
  return tokenWeights(trace, segments, sigmaK);
}
