import type { LanguageModel } from '@rred/lm';
import type { Completer } from './evaluate-split';

/** A Completer over any LanguageModel's batched sampler (e.g. @rred/lm's TransformerLM, KV-cached). */
export function completerFromModel(model: Pick<LanguageModel, 'sample'>, stopToken: number, topP = 1): Completer {
  return async (prompts, options, rng) => {
    const { results } = await model.sample(
      prompts,
      { temperature: options.temperature, topP, maxNewTokens: options.maxNewTokens, stopToken },
      rng,
    );
    return results.map((r) => ({ tokens: r.tokens, stopped: !r.truncated }));
  };
}
