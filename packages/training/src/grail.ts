/**
 * GRAIL (gradient-reweighted advantage), as implemented here: a token's share of
 * its completion's advantage grows with its saliency s_t ≥ 0 for the final answer (the redistribution
 * hook measures s_t; `@rred/recipes`' `grailRedistribution` takes ‖∂ log p(answer | x, o_{≤thinkEnd}) / ∂ e_t‖₁
 * at the input embedding e_t). Thinking tokens t < thinkEnd share the thinking mass |think|/|o| in
 * proportion to s_t; the answer tokens keep 1/|o| each, as under every redistribution here:
 *
 *   σ_t = (|think| / |o|) · s_t / Σ_{t' < thinkEnd} s_{t'}   (t < thinkEnd),   σ_t = 1/|o|   (t ≥ thinkEnd)
 *
 * so Σ_t σ_t = 1 and the coefficient A_i·σ_t·|o| = A_i · |think| · s_t / Σ s averages A_i over the thinking
 * tokens. All-zero saliency (or no thinking) gives uniform σ, plain GRPO.
 */

/** σ per completion token from the saliency of its thinking tokens (saliency [thinkEnd], completion length |o|). */
export function grailSigma(saliency: readonly number[], completionLength: number): number[] {
  const thinkEnd = saliency.length;
  const O = completionLength;
  if (!(Number.isInteger(O) && O >= thinkEnd))
    throw new RangeError(`grailSigma: ${thinkEnd} thinking saliencies for a completion of ${O} tokens`);
  const bad = saliency.findIndex((x) => !(Number.isFinite(x) && x >= 0));
  if (bad >= 0) throw new RangeError(`grailSigma: saliency of token ${bad} is ${saliency[bad]}; expected a finite value ≥ 0`);
  const uniform = new Array<number>(O).fill(1 / Math.max(1, O));
  const total = saliency.reduce((a, b) => a + b, 0);
  if (thinkEnd === 0 || !(total > 0)) return uniform;
  const thinkMass = thinkEnd / O;
  return uniform.map((u, t) => (t < thinkEnd ? (thinkMass * saliency[t]) / total : u));
}
