import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';

/** `npx nx run lm:evaluate`: accuracy estimators of a checkpoint over one dataset split. */
export const evaluateConfigSchema = z
  .object({
    checkpoint: z.string().min(1).default(EMBEDDED_CHECKPOINT).describe('Model checkpoint to evaluate, relative to the repository root.'),
    split: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Split of the committed task data (train | validation | eval-easy | eval-medium | eval-hard). Unset: DEFAULT_EVAL_SPLIT of @rred/tasks (eval-medium).',
      ),
    dataFile: z.string().min(1).optional().describe('A JSONL dataset file to read instead of `split` (MATH-500-like records work too).'),
    problems: z.number().int().min(1).optional().describe('Evaluate only the first N problems. Unset: all.'),
    samplesPerProblem: z.number().int().min(1).default(4).describe('n, completions per problem.'),
    k: z.number().int().min(1).optional().describe('k of avg@k / pass@k / maj@k; ≤ samplesPerProblem. Unset: samplesPerProblem.'),
    temperature: z.number().min(0).default(1).describe('Sampling temperature; 0 = greedy (then n = 1 makes sense).'),
    topP: z.number().gt(0).max(1).default(1).describe('Nucleus mass; 1 disables.'),
    maxNewTokens: z.number().int().min(1).default(140).describe('Generation limit; a completion cut here scores 0 (truncated).'),
    batchSize: z.number().int().min(1).default(64).describe('Sequences sampled together.'),
    interval: z
      .enum(['wilson', 'bootstrap'])
      .default('wilson')
      .describe("Confidence interval: 'wilson' binomial score interval or 'bootstrap' percentile over problems."),
    level: z.number().gt(0).lt(1).default(0.95).describe('Two-sided interval coverage.'),
    resamples: z.number().int().min(100).default(2000).describe('Bootstrap resamples (seeded).'),
    seed: seedSchema.default(1).describe('Seed of sampling and the bootstrap.'),
  })
  .strict();
