import { z } from 'zod';
import { seedSchema } from '@rred/core';
import { rredcotConfigSchema, rredcotPresets } from '@rred/estimators';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { DEFAULT_DATASET_SEED } from '@rred/tasks';
import { MULTI_ATTEMPT_ARMS, multiAttemptConfigSchema } from '@rred/training';
import { checkpointSchema } from '../common/config-schemas';

/**
 * `experiments:multi-attempt`: the arms of packages/training/README.md "Several attempts" (grpo, naive-attempt, cal,
 * cal-rredcot) trained from the multi-attempt checkpoint over seeds, each evaluated on held-out problems
 * (Verification@K, pass@1, attempts used), compared pairwise by seed with Holm-corrected intervals.
 */
export const multiAttemptExperimentSchema = z
  .object({
    checkpoint: checkpointSchema
      .default('packages/lm/checkpoints/multi-attempt.ckpt')
      .describe('The starting checkpoint (one that knows the multi-attempt format), relative to the repository root.'),
    arms: z
      .array(z.enum(MULTI_ATTEMPT_ARMS))
      .min(1)
      .default([...MULTI_ATTEMPT_ARMS])
      .describe('Arms to train, each once per seed.'),
    seeds: z.array(seedSchema).min(1).default([1, 2, 3, 4, 5]).describe('Seeds: one child run per arm and seed; paired by seed.'),
    train: multiAttemptConfigSchema
      .omit({ seed: true, arm: true })
      .default({})
      .describe('The trainer config every arm shares (@rred/training multiAttemptConfigSchema without seed and arm).'),
    data: z
      .object({
        datasetSeed: seedSchema
          .default(DEFAULT_DATASET_SEED)
          .describe(`buildDatasets seed of the train prompts (${DEFAULT_DATASET_SEED}: the committed splits).`),
        trainProblems: z
          .number()
          .int()
          .min(1)
          .default(2000)
          .describe('Train-split problems drawn; those with ≤ maxSteps steps are the prompts.'),
        maxSteps: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe('Only train problems with at most this many steps (K attempts must fit the context).'),
      })
      .strict()
      .default({})
      .describe('Training prompts (train split, never a held-out problem).'),
    evaluation: z
      .object({
        split: z.string().min(1).default('eval-easy').describe('Held-out split (its 4-step problems fit K = 3 attempts in 160 tokens).'),
        problems: z.number().int().min(1).default(100).describe('First N problems of the split.'),
        samplesPerProblem: z.number().int().min(1).default(4).describe('Rollouts per problem at the training temperature.'),
      })
      .strict()
      .default({})
      .describe('Held-out evaluation of every child after training, and of the starting checkpoint.'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 8 }).describe(
      "Exit points inside each attempt for 'cal-rredcot' (Sec. 3.1).",
    ),
    rredcot: rredcotConfigSchema
      .default({ ...rredcotPresets.dataset, terms: 'value', exit: 'forced', valueSuffix: 'softStart', space: 'prob', maxReferences: 4 })
      .describe(
        "RREDCoT inside each attempt ('cal-rredcot'): the finetune experiment's `rredcot` estimator (dataset references, v̂ = V, softStart).",
      ),
    analysis: z
      .object({
        level: z.number().gt(0).lt(1).default(0.95).describe('Family-wise confidence level of the paired comparisons (Holm).'),
        resamples: z.number().int().min(100).default(4000).describe('Paired bootstrap resamples over seeds.'),
        seed: seedSchema.default(1).describe('Seed of the bootstrap.'),
      })
      .strict()
      .default({})
      .describe('Paired comparisons by seed: cal vs naive-attempt, cal vs grpo, cal-rredcot vs cal; Holm over the family.'),
  })
  .strict();

export type MultiAttemptExperimentConfig = z.infer<typeof multiAttemptExperimentSchema>;

export const MULTI_ATTEMPT_ALIASES: Record<string, string> = { steps: 'train.steps', problems: 'evaluation.problems' };

/** The comparisons of the family, [arm, against]; those whose arms are not both configured are left out. */
export const COMPARISONS: readonly [string, string][] = [
  ['cal', 'naive-attempt'],
  ['cal', 'grpo'],
  ['cal-rredcot', 'cal'],
];
