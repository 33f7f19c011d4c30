/** Config pieces that several experiments share (mc-variance, correlation, gold). */
import { resolveCheckpoint } from '@rred/lm';
import { DEFAULT_EVAL_SPLIT, EVAL_SPLITS, FREE_FORM_SPLITS } from '@rred/tasks';
import { z } from 'zod';

/**
 * A checkpoint: a path relative to the repository root, or the name of a bed in the checkpoint registry
 * (@rred/lm EMBEDDED_CHECKPOINTS: `embedded`, `assumptionsMet`, `freeForm`), read as that bed's path.
 */
export const checkpointSchema = z.preprocess((v) => (typeof v === 'string' ? resolveCheckpoint(v) : v), z.string().min(1));

/** The one on-policy rollout per problem (mc-variance; correlation and gold when they generate traces). */
export const rolloutConfigSchema = z
  .object({
    temperature: z
      .number()
      .positive()
      .default(1)
      .describe('Sampling temperature of the one on-policy rollout per problem (Sec. 4: T = 1).'),
    maxNewTokens: z
      .number()
      .int()
      .min(1)
      .default(120)
      .describe('Token limit of a rollout; prompt + limit must fit the model context (160).'),
    batchSize: z.number().int().min(1).default(64).describe('Rollouts sampled per batch.'),
  })
  .strict();

/** The free-form bed's held-out splits by file (`free-form/eval-medium`), for a prose checkpoint outside the registry. */
const FREE_FORM_EVAL_SPLITS = FREE_FORM_SPLITS.filter((s) => !s.endsWith('/validation'));

export const splitSchema = z
  .enum([...EVAL_SPLITS, ...FREE_FORM_EVAL_SPLITS])
  .default(DEFAULT_EVAL_SPLIT as (typeof EVAL_SPLITS)[number])
  .describe(
    'Held-out split the problems come from (packages/tasks/data). A bed with its own rendering (freeForm) reads its own file of the split ' +
      `(data/free-form/); a prose checkpoint outside the registry names that file. One of ${[...EVAL_SPLITS, ...FREE_FORM_EVAL_SPLITS].join(', ')}.`,
  );

/** Bootstrap settings of an analysis whose CIs resample traces (correlation, gold). */
export const bootstrapAnalysisSchema = z
  .object({
    bootstrapResamples: z.number().int().min(10).default(1000).describe('Bootstrap resamples of traces for the CIs.'),
    level: z.number().gt(0).lt(1).default(0.95).describe('CI level in (0, 1).'),
  })
  .strict();

/** How many dataset references RREDCoT gets per problem (correlation, gold). */
export const datasetReferencesSchema = z
  .object({
    count: z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(1)
      .describe(
        'Dataset reference solutions per problem: the canonical order plus up to count − 1 alternative valid orders (Eq. 9; more shrink the Eq. 10 bias).',
      ),
  })
  .strict();
