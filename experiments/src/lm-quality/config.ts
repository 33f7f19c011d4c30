import { COMPOSITE_SPLITS, DEFAULT_EVAL_SPLIT, EVAL_SPLITS, type CompositeSplitName } from '@rred/tasks';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';
import { checkpointSchema } from '../common/config-schemas';

/** Quality report of a checkpoint (issue: the embedded model must leave room for RL and vary under sampling). */
export const lmQualityConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of every temperature-1 draw. Integer.'),
    checkpoint: checkpointSchema
      .default(EMBEDDED_CHECKPOINT)
      .describe(
        'Checkpoint, relative to the repository root, or a bed by name (embedded, assumptionsMet, freeForm: its prose split files).',
      ),
    defaultSplit: z
      .enum(EVAL_SPLITS)
      .default(DEFAULT_EVAL_SPLIT as (typeof EVAL_SPLITS)[number])
      .describe(`Held-out split of the headline numbers (greedy accuracy, mixed fraction, entropy ratio).`),
    problemsPerSplit: z.number().int().min(1).default(300).describe('First N problems of each eval split.'),
    samplesPerProblem: z.number().int().min(2).default(8).describe('Temperature-1 samples per problem of `split`, for the mixed fraction.'),
    maxNewTokens: z.number().int().min(1).default(120).describe('Token limit of a completion (prompt + limit ≤ context 160).'),
    batchSize: z.number().int().min(1).default(64).describe('Sequences sampled per batch.'),
    compositeSplit: z
      .enum(Object.keys(COMPOSITE_SPLITS) as [CompositeSplitName, ...CompositeSplitName[]])
      .nullable()
      .default(null)
      .describe(
        'Also score greedy accuracy (all parts right) and part accuracy on this composite split (`?c,f` → `6,9`); null: none (the embedded ' +
          "checkpoint's alphabet has no ','). The 'assumptions met' checkpoint sets 'eval-medium-composite'.",
      ),
    calibration: z
      .object({
        problems: z
          .number()
          .int()
          .min(1)
          .default(60)
          .describe('First N problems of `split` whose exit points get MC values (reliability).'),
        termsProblems: z
          .number()
          .int()
          .min(1)
          .default(150)
          .describe('First N problems (≥ problems) of `split`, one T = 1 rollout each; the RREDCoT differences use the correct ones.'),
        mcSamples: z.number().int().min(1).default(8).describe('Truncated-MC continuations per exit point.'),
        maxNewTokens: z
          .number()
          .int()
          .min(1)
          .default(100)
          .describe("Token limit of a rollout, and the fixed total horizon of the MC continuations (horizon 'completion')."),
      })
      .strict()
      .nullable()
      .default(null)
      .describe(
        'Exit-point study, exit points after every line: the forced-exit p(y* | s_k, </think>) against MC values at the same exit ' +
          "points (reliability plot), and on the correct traces RREDCoT's log V(s_1) − log V(s_0) and log I(s_K) − log I(s_0) with exit 'forced', " +
          "valueSuffix 'remaining', referencePooling 'sum'. null: not run.",
      ),
  })
  .strict();

export type LmQualityConfig = z.infer<typeof lmQualityConfigSchema>;
export const LM_QUALITY_ALIASES = { n: 'problemsPerSplit' };
