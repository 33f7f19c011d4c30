import { mcConfigSchema } from '@rred/estimators';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { DEFAULT_EVAL_SPLIT, EVAL_SPLITS } from '@rred/tasks';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';

export const rolloutConfigSchema = z
  .object({
    temperature: z
      .number()
      .positive()
      .default(1)
      .describe('Sampling temperature of the one on-policy rollout per problem (Sec. 4: T = 1). Default 1.'),
    maxNewTokens: z
      .number()
      .int()
      .min(1)
      .default(120)
      .describe('Token limit of a rollout; prompt + limit must fit the model context (160). Default 120.'),
    batchSize: z.number().int().min(1).default(64).describe('Rollouts sampled per batch. Default 64.'),
  })
  .strict();

export const splitSchema = z
  .enum(EVAL_SPLITS)
  .default(DEFAULT_EVAL_SPLIT as (typeof EVAL_SPLITS)[number])
  .describe(
    `Held-out split the problems come from (packages/tasks/data). One of ${EVAL_SPLITS.join(', ')}; default ${DEFAULT_EVAL_SPLIT}.`,
  );

export const mcVarianceConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of every draw (rollouts, MC continuations, bootstrap). Integer, default 1.'),
    checkpoint: z
      .string()
      .min(1)
      .default(EMBEDDED_CHECKPOINT)
      .describe(`Model checkpoint, relative to the repository root. Default ${EMBEDDED_CHECKPOINT}.`),
    split: splitSchema,
    problems: z
      .number()
      .int()
      .min(1)
      .default(150)
      .describe(
        'N: held-out problems, one rollout each (the first N of the split). Default 150 (sized so the target runs in ≤ 15 min on 2 cores).',
      ),
    rollout: rolloutConfigSchema.default({}).describe('The on-policy rollout per problem.'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 20 }).describe(
      'Exit points (Sec. 3.1): default hybrid keyword-entropy segmentation with K ≤ 20 (App. 10.1).',
    ),
    mc: mcConfigSchema
      .default({ samplesPerExitPoint: 20, maxNewTokens: 120, horizon: 'completion', batchSize: 64 })
      .describe(
        'Truncated MC (App. 10.1): n = 20 continuations per exit point; M = 120 bounds the whole completion (horizon completion), ' +
          'about 2.5× the typical eval-medium completion, so the M′ = 25..100% study has room.',
      ),
    analysis: z
      .object({
        bootstrapResamples: z
          .number()
          .int()
          .min(10)
          .default(400)
          .describe('Bootstrap resamples per exit point and sample count for the SD curve (Fig. 8). Default 400.'),
        sdThreshold: z.number().positive().default(0.1).describe("Reference line of Fig. 8: the paper's SD 0.1. Default 0.1."),
        truncationFractions: z
          .array(z.number().gt(0).max(1))
          .min(1)
          .default([0.25, 0.5, 0.75, 1])
          .describe('M′ as fractions of M for the truncation study (Fig. 4). Default [0.25, 0.5, 0.75, 1].'),
      })
      .strict()
      .default({})
      .describe('Analysis of the stored records (runs again on every re-render, seeded).'),
  })
  .strict();

export type McVarianceConfig = z.infer<typeof mcVarianceConfigSchema>;
export const MC_VARIANCE_ALIASES = { n: 'problems', samples: 'mc.samplesPerExitPoint', K: 'segmentation.maxSegments' };
