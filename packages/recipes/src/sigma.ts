/**
 * Segment weights σ_k for training from segment credits r_k and the completion's advantage A_i (Eq. 11,
 * Sec. 3.3). The token coefficient is A_i · σ_t · |o_i|, so the sign of A_i decides what σ does:
 *
 *  - `literal` (Eq. 11 as written): σ = N(r). With signed L1 and A_i < 0, a segment the estimator
 *    blames (r_k < 0 ⇒ σ_k < 0) gets a positive coefficient and is pushed up; with softmax, the most
 *    blame goes to the segment that made the most progress.
 *  - `aligned`: σ = N(sign(A_i) · r). A failed completion (A_i < 0) puts the most weight — hence the
 *    most negative coefficient — on the segments that lowered the value; a correct one puts the most
 *    positive coefficient on the segments that raised it. For A_i > 0 aligned ≡ literal.
 *
 * N, the normalization (c_k = sign · r_k under aligned, r_k under literal; z_k the scaled credit):
 *   uniform  σ_k = |u_k| / Σ_j |u_j|                                  (Eq. 12: plain GRPO)
 *   softmax  σ_k = w_k e^{z_k/τ} / Σ_j w_j e^{z_j/τ}, w_k = |u_k| (lengthPrior) or 1
 *   L1       σ_k = c_k / Σ_j |c_j|                                    (signed; Σσ_k ∈ [−1, 1])
 * with z_k = (c_k − mean c) / sd c ('standardized', sd the population SD, z = 0 when sd = 0) or c_k ('raw').
 *
 * Return equivalence (Sec. 3.3) needs Σ_t σ_t = 1: uniform and softmax keep it for every trace
 * (tested), signed L1 does not (the trainer logs Σσ_t per step; `returnEquivalent` says which).
 * Why standardized credits: log-credits span 10–25 nats on the embedded checkpoint, so softmax at τ = 1
 * over raw credits is one-hot (largest σ_k had median 0.988 in the committed runs); after
 * standardization a segment one SD above the mean gets e ≈ 2.7 times the weight per token of a segment
 * at the mean, whatever the credit scale. Why the length prior: equal credits then give every token
 * 1/|o| (plain GRPO), and a two-token segment cannot take the whole trace's mass by itself.
 */
import { mean, standardDeviation } from '@rred/core';
import { normalizeCredits } from '@rred/estimators';
import { z } from 'zod';

export const sigmaConfigSchema = z
  .object({
    signHandling: z
      .enum(['aligned', 'literal'])
      .default('aligned')
      .describe(
        "'aligned': σ from sign(A_i)·r_k, so a failed completion puts the most blame on the segments that lowered the value (what Sec. 3.3 means: " +
          "the redistributed reward r_k scaled by |A_i|); 'literal': σ from r_k whatever the sign of A_i (Eq. 11 as written; the runs before " +
          "issue 14). Default 'aligned'.",
      ),
    normalization: z
      .enum(['softmax', 'L1', 'uniform'])
      .default('softmax')
      .describe(
        "σ_k from the (signed) credits c_k: 'softmax' σ_k ∝ w_k·exp(z_k/τ) (Σσ = 1); 'L1' σ_k = c_k/Σ|c| (signed, Σσ ∈ [−1, 1]: breaks " +
          "return equivalence, logged per step); 'uniform' σ_k ∝ |u_k| (Eq. 12, plain GRPO). Default 'softmax'.",
      ),
    credits: z
      .enum(['standardized', 'raw'])
      .default('standardized')
      .describe(
        "softmax input z_k: 'standardized' (c_k − mean c)/sd c per trace (population SD; all equal ⇒ z = 0), so τ is in SDs and the softmax does " +
          "not saturate on log-credits of tens of nats; 'raw' c_k (the paper's Tab. 2 softmax). Only with softmax. Default 'standardized'.",
      ),
    tau: z.number().positive().default(1).describe('Softmax temperature τ > 0 (in credit SDs when standardized). Default 1.'),
    lengthPrior: z
      .boolean()
      .default(true)
      .describe(
        'softmax only: w_k = |u_k| (true: a softmax over thinking tokens, each carrying its segment credit; equal credits give plain GRPO) or ' +
          'w_k = 1 (false: a softmax over segments, as in the paper). Default true.',
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
 * σ_1..σ_K of one trace (the thinking segments; `tokenWeights` spreads them over tokens and gives the
 * answer segment its GRPO share). credits [K], segmentLengths [K], advantage A_i of the trace.
 */
export function segmentSigma(credits: readonly number[], segmentLengths: readonly number[], advantage: number, c: SigmaConfig): number[] {
  if (!Number.isFinite(advantage)) throw new RangeError(`segmentSigma: advantage is ${advantage}`);
  const sign = c.signHandling === 'aligned' && advantage < 0 ? -1 : 1;
  const signed = credits.map((r) => sign * r);
  if (c.normalization !== 'softmax') return normalizeCredits(signed, c.normalization, { tau: c.tau, segmentLengths });
  const z = c.credits === 'standardized' ? standardize(signed) : signed;
  // softmax(z/τ + log w) = w e^{z/τ} / Σ w e^{z/τ}: the length prior enters as a shift of τ·log|u_k|
  const shifted = c.lengthPrior ? z.map((x, k) => x + c.tau * Math.log(segmentLengths[k])) : z;
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
