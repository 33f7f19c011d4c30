import { TransformerLM } from '@rred/lm';
import { promptTokens, verify, type TaskRecord } from '@rred/tasks';
import { transformerPolicy, type GrpoPrompt, type GrpoSetup, type RedistributionHook } from '@rred/training';

/**
 * GRPO on the synthetic task: prompts `<bos>` problem `<think>` from dataset records, reward ζ from
 * the task verifier (1 = correct answer after `</think>`, completion stopped at `<eos>`). The policy
 * and the sampler share the model's weights; `reference` (for beta > 0) should be a frozen clone.
 */
export function taskGrpoSetup(options: {
  model: TransformerLM;
  records: readonly TaskRecord[];
  reference?: TransformerLM;
  redistribute?: RedistributionHook;
}): GrpoSetup {
  const { model, records } = options;
  const tokenizer = model.tokenizer;
  const prompts: GrpoPrompt[] = records.map((r) => ({ id: r.id, tokens: promptTokens(tokenizer, r.problem), answer: r.answer }));
  return {
    policy: transformerPolicy(model.transformer),
    sampler: model,
    prompts,
    reward: (prompt, completion, stopped) => {
      const v = verify(tokenizer.decode(completion), prompt.answer ?? '', stopped);
      return { reward: v.reward, answer: v.answer };
    },
    tokenizer,
    contextLength: model.maxLength,
    reference: options.reference ? transformerPolicy(options.reference.transformer) : undefined,
    redistribute: options.redistribute,
  };
}
