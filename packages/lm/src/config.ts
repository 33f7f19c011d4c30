import { z } from 'zod';
import { parseConfig } from '@rred/core';

/**
 * The fields of a model's shape with the limits the transformer itself needs, without defaults: every door
 * that takes a shape (this package's `modelConfigSchema`, pretrain's `model`, the scaling bench's `model`)
 * builds on these and `checkModelShape`, so a shape one door accepts another does not refuse. The limits:
 * one token id besides the predicted one (vocabSize ≥ 2); one position to read and one to predict
 * (contextLength ≥ 2), at most 4096 (a guard: the attention scores of one sequence are T × T floats per head,
 * 64 MiB per head at 4096); widths ≥ 1 with dModel a multiple of nHeads (checkModelShape).
 */
export const modelShapeFields = {
  vocabSize: z.number().int().min(2).describe('Number of token ids (Tokenizer.vocabSize). Integer >= 2.'),
  contextLength: z
    .number()
    .int()
    .min(2)
    .max(4096)
    .describe('Longest prompt + completion in tokens; size of the learned position table. Integer 2..4096.'),
  dModel: z.number().int().min(1).describe('Residual stream width C. Must be divisible by nHeads.'),
  nLayers: z.number().int().min(1).describe('Number of transformer blocks. Integer >= 1.'),
  nHeads: z.number().int().min(1).describe('Attention heads per block (head width dModel/nHeads). Integer >= 1.'),
  dFF: z.number().int().min(1).describe('Hidden width of the MLP in each block (4·dModel in the shipped models). Integer >= 1.'),
  activation: z
    .enum(['gelu', 'relu'])
    .describe(
      "MLP non-linearity: 'gelu' (GPT-2's tanh approximation; a checkpoint without this key uses it) " +
        "or 'relu' (about 30% less kernel time per training step on wasm).",
    ),
};

/** The cross-field rule of a shape: dModel a multiple of nHeads. */
export function checkModelShape(c: { dModel: number; nHeads: number }, ctx: z.RefinementCtx): void {
  if (c.dModel % c.nHeads !== 0) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['dModel'], message: `expected a multiple of nHeads (${c.nHeads})` });
  }
}

const f = modelShapeFields;
/**
 * Shape of the decoder-only transformer (GPT-2 style: pre-norm blocks, causal self-attention,
 * learned positions, ReLU or GELU MLP, input and output embeddings tied). The defaults give ≈ 0.8–1 M
 * parameters: the small reasoning model the paper's method is reproduced on (the paper uses
 * DeepSeek-R1-distilled Qwen models; this is the CPU-sized stand-in).
 */
export const modelConfigSchema = z
  .object({
    vocabSize: f.vocabSize,
    contextLength: f.contextLength.default(160),
    dModel: f.dModel.default(128),
    nLayers: f.nLayers.default(4),
    nHeads: f.nHeads.default(4),
    dFF: f.dFF.default(512),
    activation: f.activation.default('gelu'),
  })
  .strict()
  .superRefine(checkModelShape);

export type ModelConfig = z.infer<typeof modelConfigSchema>;

/** Validates a model config (defaults applied); errors name the field and the source. */
export function parseModelConfig(input: unknown, source = 'model config'): ModelConfig {
  return parseConfig(modelConfigSchema, input, source);
}
