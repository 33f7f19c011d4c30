import { gradientConfigSchema, looConfigSchema, mcConfigSchema, rredcotConfigSchema, rredcotPresets } from '@rred/estimators';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';
import {
  bootstrapAnalysisSchema,
  checkpointSchema,
  datasetReferencesSchema,
  rolloutConfigSchema,
  splitSchema,
} from '../common/config-schemas';

export const correlationConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of every draw (rollouts and MC when generated, bootstrap CIs). Integer.'),
    checkpoint: checkpointSchema
      .default(EMBEDDED_CHECKPOINT)
      .describe('Model checkpoint, relative to the repository root, or a bed by name (embedded, assumptionsMet, freeForm).'),
    source: z
      .object({
        mcRun: z
          .string()
          .min(1)
          .default('latest')
          .describe(
            "Traces and MC values to reuse: 'latest' = the newest FINISHED mc-variance run on the same checkpoint (weights hash), if any; " +
              'or a run id (prefix). With none found, traces are generated with `generate` and MC sampled here.',
          ),
        onMissing: z
          .enum(['generate', 'error'])
          .default('generate')
          .describe(
            "No mc-variance run to reuse: 'generate' rollouts and sample MC here (slow: the full MC cost), or 'error' (sweeps: a variant must stay cheap).",
          ),
      })
      .strict()
      .default({})
      .describe('Where the traces and MC ground truth come from.'),
    maxTraces: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Use only the first N source traces (cheap sweep variants); null = all.'),
    generate: z
      .object({
        split: splitSchema,
        problems: z.number().int().min(1).default(40).describe('Problems (one rollout each) when no mc-variance run is reused.'),
        rollout: rolloutConfigSchema.default({}).describe('Rollout settings when generating.'),
      })
      .strict()
      .default({})
      .describe('Only used when no stored mc-variance run is reused.'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 20 }).describe(
      "Exit points (Sec. 3.1); the same as mc-variance's (hybrid, K ≤ 20), so stored segments and MC values are reused as is. " +
        'Another segmentation re-segments the stored traces and samples MC only at exit points the source run lacks.',
    ),
    mc: mcConfigSchema
      .default({ samplesPerExitPoint: 20, maxNewTokens: 120, horizon: 'completion', batchSize: 64 })
      .describe("MC proxy ground truth (App. 10.2: n = 20). Stored values are reused only when this equals the source run's MC config."),
    references: datasetReferencesSchema.default({}).describe('Reference set R for RREDCoT (dataset references).'),
    rredcot: rredcotConfigSchema
      .default(rredcotPresets.dataset)
      .describe(
        "RREDCoT estimator config (Eq. 5–11): the dataset preset (Tab. 1 with dataset references); experiments/configs/correlation.json sets the paper's I + V, log, joint, full.",
      ),
    rredcotQuantity: z
      .enum(['credit', 'sigma'])
      .default('credit')
      .describe(
        "RREDCoT number correlated per segment: 'credit' r_k (Eq. 5–8) or 'sigma' σ_k as the estimator reports it (estimators/src/sigma.ts; for normalization sweeps).",
      ),
    baselines: z
      .enum(['compute', 'skip'])
      .default('compute')
      .describe(
        "'compute' the LOO and gradient baselines and MC at equal cost (`mcAtEqualCost`), or 'skip' them (sweeps over RREDCoT/segmentation " +
          'options that only need RREDCoT vs MC). The trivial baselines (segment length, position) cost nothing and are always scored.',
      ),
    mcAtEqualCost: z
      .array(z.number().int().min(1))
      .default([1, 2])
      .describe(
        'n of the cheap MC methods `mc.n<n>` scored against the proxy like every method: V_MC from n fresh continuations per exit point, drawn ' +
          'from their own seeded stream (independent of the proxy samples, so their noise is independent of the proxy noise), with the ' +
          "proxy's mc settings otherwise. RREDCoT costs about as much as MC with n = 1–2. [] = none.",
      ),
    loo: looConfigSchema.default({}).describe('Leave-one-out baseline (App. 10.2).'),
    gradient: gradientConfigSchema.default({}).describe('Gradient attribution baseline (App. 10.2).'),
    analysis: bootstrapAnalysisSchema.default({}).describe('Correlation analysis (recomputed on every re-render, seeded).'),
  })
  .strict();

export type CorrelationConfig = z.infer<typeof correlationConfigSchema>;
export const CORRELATION_ALIASES = { refs: 'references.count', K: 'segmentation.maxSegments', mcRun: 'source.mcRun' };
export const CORRELATION_METHODS = ['rredcot', 'loo', 'gradient', 'mc'] as const;
export type CorrelationMethod = (typeof CORRELATION_METHODS)[number];
/** The trivial baselines, computed from the segments alone: segment length in tokens, and its position k (1..K). */
export const TRIVIAL_BASELINES = ['length', 'position'] as const;
/** Store method name of MC with n samples per exit point, scored as a method (not the proxy). */
export const mcAtN = (n: number): string => `mc.n${n}`;
/** Every method compared with the n = 20 proxy, in table order. */
export function proxyComparedMethods(config: CorrelationConfig): string[] {
  return ['rredcot', 'loo', 'gradient', ...config.mcAtEqualCost.map(mcAtN), ...TRIVIAL_BASELINES];
}
