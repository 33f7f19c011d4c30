/**
 * GRAIL's σ (training's `grailSigma`) from the policy itself: the saliency of thinking token t is
 * s_t = ‖∂ log p(answer tokens | x, o_{≤thinkEnd}) / ∂ e_t‖₁, the L1 norm of the gradient of the answer's
 * log-probability (the tokens after `</think>`, `<eos>` included) at the input embedding e_t — one
 * forward and one backward pass per trace (`LanguageModel.embeddingGradientNorms`). GRAIL's abstract
 * names "gradient-activation saliency"; the LanguageModel exposes the gradient at the embedding, not
 * its product with the activation, so this is the gradient-norm form. Traces with A = 0, without a
 * closed thinking span or without answer tokens keep uniform σ (counted as fallback when A ≠ 0).
 */
import type { Rng } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import { grailSigma } from '@rred/training';
import { tracesWithSignal, type EstimatorHook, type RedistributionCallStats } from './estimator-hook';

export function grailRedistribution(o: { model: Pick<LanguageModel, 'embeddingGradientNorms'> }): EstimatorHook {
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook = async (traces: Trace[], context: { rng: Rng; advantages: number[] }): Promise<number[][]> => {
    const rows = traces.map((t) => t.completion.map(() => 1 / Math.max(1, t.completion.length)));
    let fallback = 0;
    const chosen = tracesWithSignal(traces, context.advantages);
    for (const i of chosen) {
      const t = traces[i];
      const answerFrom = t.thinkEnd + 1; // completion index of the first token after `</think>`
      if (t.thinkEnd === 0 || answerFrom >= t.completion.length) {
        fallback++;
        continue;
      }
      const sequence = [...t.prompt, ...t.completion];
      const { norms } = await o.model.embeddingGradientNorms(sequence, t.prompt.length + answerFrom);
      rows[i] = grailSigma(norms.slice(t.prompt.length, t.prompt.length + t.thinkEnd), t.completion.length);
    }
    last = { estimated: chosen.length - fallback, fallback };
    return rows;
  };
  return Object.assign(hook, { lastCall: () => last });
}
