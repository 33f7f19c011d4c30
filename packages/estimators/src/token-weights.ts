/**
 * Per-token redistribution coefficients σ_t (Eq. 11) from segment weights σ_k. The training loss uses
 * coefficient A_i · σ_t · |o_i| for token t of completion o_i.
 *
 * The answer tokens after the thinking span (`</think>`, the answer, `<eos>`) form a segment of their
 * own. It receives its GRPO share |answer| / |o| of the total mass, and the thinking segments share the
 * remaining |thinking| / |o| in proportion to σ_k, spread evenly over each segment's tokens. Reasons:
 *  - no exit point lies inside the answer, so the estimators have no credit for it; keeping its
 *    uniform share leaves the answer/thinking balance of the gradient exactly as in GRPO;
 *  - Σ_t σ_t = |ans|/|o| + (|think|/|o|)·Σσ_k, which is 1 — return equivalence (Sec. 3.3) — exactly
 *    when Σσ_k = 1 (softmax, uniform). Signed L1 σ_k (Σ|σ_k| = 1) gives Σ|σ_t| = 1 but
 *    Σσ_t = |ans|/|o| + (|think|/|o|)·Σσ_k with Σσ_k anywhere in [−1, 1]: it breaks return equivalence
 *    (the GRPO trainer logs Σσ_t per step; `@rred/recipes`' `returnEquivalent` says which configs keep it);
 *  - with 'uniform' σ_k = |u_k|/|think| every token gets exactly 1/|o|: plain GRPO (Eq. 12).
 */
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';

interface TokenWeightOptions {
  /**
   * Total weight given to the answer segment, in [0, 1]. Default: |answer| / |o| (its GRPO share; see
   * above). Other values keep Σ = 1 but no longer reduce to GRPO under uniform σ.
   */
  answerMass?: number;
}

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
