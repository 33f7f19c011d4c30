import { z } from 'zod';
import { parseConfig } from '@rred/core';

/**
 * Shape of the decoder-only transformer (GPT-2 style: pre-norm blocks, causal self-attention,
 * learned positions, ReLU or GELU MLP, input and output embeddings tied). The defaults give ≈ 0.8–1 M
 * parameters: the small reasoning model the paper's method is reproduced on (the paper uses
 * DeepSeek-R1-distilled Qwen models; this is the CPU-sized stand-in).
 */
export const modelConfigSchema = z
  .object({
    vocabSize: z.number().int().min(2).describe('Number of token ids (Tokenizer.vocabSize). Required, integer >= 2.'),
    contextLength: z
      .number()
      .int()
      .min(2)
      .max(4096)
      .default(160)
      .describe('Longest prompt + completion in tokens; size of the learned position table. Integer 2..4096.'),
    dModel: z.number().int().min(1).default(128).describe('Residual stream width C. Must be divisible by nHeads.'),
    nLayers: z.number().int().min(1).default(4).describe('Number of transformer blocks. Integer >= 1.'),
    nHeads: z.number().int().min(1).default(4).describe('Attention heads per block (head width dModel/nHeads). Integer >= 1.'),
    dFF: z
      .number()
      .int()
      .min(1)
      .default(512)
      .describe('Hidden width of the MLP in each block (4·dModel in the shipped models). Integer >= 1.'),
    activation: z
      .enum(['gelu', 'relu'])
      .default('gelu')
      .describe(
        "MLP non-linearity: 'gelu' (GPT-2's tanh approximation; a checkpoint without this key uses it) " +
          "or 'relu' (about 30% less kernel time per training step on wasm).",
      ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.dModel % c.nHeads !== 0) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['dModel'], message: `expected a multiple of nHeads (${c.nHeads})` });
    }
  });

export type ModelConfig = z.infer<typeof modelConfigSchema>;

/** Validates a model config (defaults applied); errors name the field and the source. */
export function parseModelConfig(input: unknown, source = 'model config'): ModelConfig {
  return parseConfig(modelConfigSchema, input, source);
}
