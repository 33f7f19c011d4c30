import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { optimizerConfigSchema } from './optimizer';

/** Supervised fine-tuning (next-token NLL on completion tokens only). */
export const sftConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of the data order (and of the model init in pretrain). Integer.'),
    steps: z.number().int().min(1).default(1000).describe('Optimizer steps. Integer ≥ 1.'),
    batchSize: z.number().int().min(1).default(32).describe('Sequences per step. Integer ≥ 1.'),
    contextLength: z
      .number()
      .int()
      .min(2)
      .default(128)
      .describe('Sequences are truncated to this many input tokens (must not exceed the model maxLength).'),
    checkpointEvery: z
      .number()
      .int()
      .min(0)
      .default(100)
      .describe('Save trainer state (+ model checkpoint) every N steps; 0 = only at the end.'),
    optimizer: optimizerConfigSchema.default({}).describe('AdamW + warmup/cosine schedule + grad clipping (see fields).'),
  })
  .strict();

export type SftConfig = z.infer<typeof sftConfigSchema>;
