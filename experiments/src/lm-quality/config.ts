import { DEFAULT_EVAL_SPLIT, EVAL_SPLITS } from '@rred/tasks';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';

/** Quality report of a checkpoint (issue: the embedded model must leave room for RL and vary under sampling). */
export const lmQualityConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of every temperature-1 draw. Integer, default 1.'),
    checkpoint: z.string().min(1).default(EMBEDDED_CHECKPOINT).describe(`Checkpoint, relative to the repository root. Default ${EMBEDDED_CHECKPOINT}.`),
    defaultSplit: z
      .enum(EVAL_SPLITS)
      .default(DEFAULT_EVAL_SPLIT as (typeof EVAL_SPLITS)[number])
      .describe(`Held-out split of the headline numbers (greedy accuracy, mixed fraction, entropy ratio). Default ${DEFAULT_EVAL_SPLIT}.`),
    problemsPerSplit: z.number().int().min(1).default(300).describe('First N problems of each eval split. Default 300.'),
    samplesPerProblem: z.number().int().min(2).default(8).describe('Temperature-1 samples per problem of the default split, for the mixed fraction. Default 8.'),
    maxNewTokens: z.number().int().min(1).default(120).describe('Token limit of a completion (prompt + limit ≤ context 160). Default 120.'),
    batchSize: z.number().int().min(1).default(64).describe('Sequences sampled per batch. Default 64.'),
  })
  .strict();

export type LmQualityConfig = z.infer<typeof lmQualityConfigSchema>;
export const LM_QUALITY_ALIASES = { n: 'problemsPerSplit' };
