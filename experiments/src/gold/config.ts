import { gradientConfigSchema, looConfigSchema, mcConfigSchema } from '@rred/estimators';
import { EMBEDDED_CHECKPOINTS } from '@rred/lm';
import { REFERENCE_REWRITES } from '@rred/tasks';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import {
  bootstrapAnalysisSchema,
  checkpointSchema,
  datasetReferencesSchema,
  rolloutConfigSchema,
  splitSchema,
} from '../common/config-schemas';

const ALL_BEDS = [
  EMBEDDED_CHECKPOINTS.embedded.checkpoint,
  EMBEDDED_CHECKPOINTS.assumptionsMet.checkpoint,
  EMBEDDED_CHECKPOINTS.freeForm.checkpoint,
];

/**
 * The gold-value credit benchmark: per checkpoint, stratified T = 1 rollouts, gold values
 * V_gold(s_k) from truncated MC with many samples, and every credit method scored against them.
 */
export const goldConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of every draw (rollouts, gold and MC(n) continuations, bootstrap CIs). Integer.'),
    checkpoints: z
      .array(checkpointSchema)
      .min(1)
      .default(ALL_BEDS)
      .refine((c) => new Set(c).size === c.length, { message: 'expected distinct checkpoints' })
      .describe(
        'Checkpoints to benchmark, relative to the repository root, or beds by name (embedded, assumptionsMet, freeForm: its prose split files); each is one panel and one block of results/gold.',
      ),
    split: splitSchema,
    problems: z
      .number()
      .int()
      .min(2)
      .default(200)
      .describe('First N problems of the split, one T = 1 rollout each, from which the stratified traces are taken (in problem order).'),
    traces: z
      .object({
        correct: z.number().int().min(1).default(24).describe('Correct rollouts (ζ = 1) kept per checkpoint.'),
        wrong: z.number().int().min(1).default(24).describe('Wrong rollouts (ζ = 0) kept per checkpoint.'),
      })
      .strict()
      .default({})
      .describe(
        'Stratification: the first `correct` correct and the first `wrong` wrong rollouts (in problem order) whose last exit point plus the reference fit the context.',
      ),
    rollout: rolloutConfigSchema.default({}).describe('The on-policy rollout per problem (T = 1).'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 20 }).describe(
      'Exit points (Sec. 3.1), as in the correlation experiment (hybrid, K ≤ 20).',
    ),
    gold: mcConfigSchema
      .default({ samplesPerExitPoint: 256, maxNewTokens: 120, horizon: 'completion', temperature: 1, topP: 1, batchSize: 256 })
      .describe(
        'Gold values V_gold(s_k) = mean ζ of n continuations per exit point (truncated MC, the correlation config: M = 120, horizon completion, T = 1). ' +
          "With batchSize = n, one sample call holds an exit point's n samples, so they share one prefill.",
      ),
    mcSamples: z
      .array(z.number().int().min(1))
      .min(1)
      .default([1, 2, 4, 8, 20])
      .refine((ns) => new Set(ns).size === ns.length && ns.every((n, i) => i === 0 || n > ns[i - 1]), {
        message: 'expected distinct sample counts in increasing order',
      })
      .describe(
        'The MC(n) methods: for each n an independent draw (its own rng fork, none shared with the gold samples) with the gold settings (M, horizon, T, batchSize).',
      ),
    ceilingSamples: z
      .number()
      .int()
      .min(2)
      .default(20)
      .describe(
        'The n of mcSamples whose draw is split into two halves (first n/2 and last n/2 samples per exit point) for the split-half reliability of ΔV_MC and the ceiling √rel. Even.',
      ),
    references: datasetReferencesSchema
      .default({})
      .describe('Reference set R of the RREDCoT variants (dataset references); with one reference `referencePooling` does not matter.'),
    ownReferences: z
      .object({
        groupSize: z
          .number()
          .int()
          .min(2)
          .default(8)
          .describe(
            "G of a GRPO group: G − 1 sibling samples of the trace's problem at the rollout's temperature; the correct ones (never a copy of the trace) are the 'own' references (Sec. 4).",
          ),
      })
      .strict()
      .default({})
      .describe(
        "The model's own correct samples as references (variants '@own', '@both'): free inside GRPO, where they are the group's other rollouts.",
      ),
    stressArm: z
      .array(z.enum(REFERENCE_REWRITES))
      .default([...REFERENCE_REWRITES])
      .refine((w) => new Set(w).size === w.length, { message: 'expected distinct rewrites' })
      .describe(
        "Rewrites of the dataset references for the stress arm (variants '~<rewrite>'): 'reorder' another valid line order, 'swap' commutative operands swapped, 'reorderSwap' both.",
      ),
    loo: looConfigSchema.default({}).describe('Leave-one-out baseline (App. 10.2).'),
    gradient: gradientConfigSchema.default({}).describe('Gradient attribution baseline (App. 10.2).'),
    analysis: bootstrapAnalysisSchema.default({}).describe('Metrics (recomputed from the store on every render, seeded by the run seed).'),
    look: z
      .number()
      .int()
      .min(0)
      .default(4)
      .describe('Traces per checkpoint printed to stderr after the compute (V_gold per exit point, first error, a few credits).'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (!c.mcSamples.includes(c.ceilingSamples)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [],
        message: `ceilingSamples (${c.ceilingSamples}) must be one of mcSamples ([${c.mcSamples.join(', ')}])`,
      });
    }
    if (c.ceilingSamples % 2 !== 0) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [], message: `ceilingSamples (${c.ceilingSamples}) must be even (two halves)` });
    }
    if (c.traces.correct + c.traces.wrong > c.problems) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [],
        message: `problems (${c.problems}) must be ≥ traces.correct (${c.traces.correct}) + traces.wrong (${c.traces.wrong})`,
      });
    }
  });

export type GoldConfig = z.infer<typeof goldConfigSchema>;
export const GOLD_ALIASES = { n: 'gold.samplesPerExitPoint', K: 'segmentation.maxSegments' };
