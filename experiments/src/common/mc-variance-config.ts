import { mcConfigSchema } from '@rred/estimators';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';
import { checkpointSchema, rolloutConfigSchema, splitSchema } from './config-schemas';

/**
 * The mc-variance experiment's config. Its home is common/ because correlation reads it back: it parses the
 * config recorded on the mc-variance run whose traces, segments and MC values it reuses.
 */
export const mcVarianceConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of every draw (rollouts, MC continuations, bootstrap). Integer.'),
    checkpoint: checkpointSchema
      .default(EMBEDDED_CHECKPOINT)
      .describe('Model checkpoint, relative to the repository root, or a bed by name (embedded, assumptionsMet, freeForm).'),
    split: splitSchema,
    problems: z
      .number()
      .int()
      .min(1)
      .default(150)
      .describe('N: held-out problems, one rollout each (the first N of the split); 150 run in ≤ 15 min on 2 cores.'),
    rollout: rolloutConfigSchema.default({}).describe('The on-policy rollout per problem.'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 20 }).describe(
      'Exit points (Sec. 3.1): hybrid keyword-entropy segmentation with K ≤ 20 (App. 10.1).',
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
          .describe('Bootstrap resamples per exit point and sample count for the SD curve (Fig. 8).'),
        sdThreshold: z.number().positive().default(0.1).describe("Reference line of Fig. 8: the paper's SD 0.1."),
        truncationFractions: z
          .array(z.number().gt(0).max(1))
          .min(1)
          .default([0.25, 0.5, 0.75, 1])
          .describe('M′ as fractions of M for the truncation study (Fig. 4).'),
      })
      .strict()
      .default({})
      .describe('Analysis of the stored records (runs again on every re-render, seeded).'),
  })
  .strict();

export type McVarianceConfig = z.infer<typeof mcVarianceConfigSchema>;
