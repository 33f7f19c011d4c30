import { rredcotConfigSchema, rredcotPresets } from '@rred/estimators';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { DEFAULT_DATASET_SEED, EVAL_SPLITS } from '@rred/tasks';
import { grpoConfigFields, optimizerConfigSchema, refineGrpoConfig } from '@rred/training';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';

/** The compared fine-tuning methods (paper Sec. 4, Tab. 1 and Tab. 2). */
export const METHODS = ['grpo', 'rredcot', 'rredcot-own'] as const;
export type Method = (typeof METHODS)[number];

const lr = (dflt: number, what: string) =>
  z.number().positive().max(1).default(dflt).describe(`Peak learning rate of ${what}. Default ${dflt}; (0, 1].`);

/** GRPO hyperparameters shared by every method: the trainer's schema (and its cross-field checks) minus what the experiment sets per child. */
const sharedGrpoSchema = grpoConfigFields
  .omit({ seed: true, steps: true, redistribution: true, optimizer: true, checkpointEvery: true })
  .superRefine(refineGrpoConfig);

export const finetuneConfigSchema = z
  .object({
    checkpoint: z
      .string()
      .min(1)
      .default(EMBEDDED_CHECKPOINT)
      .describe(`Starting checkpoint of every run, relative to the repository root. Default ${EMBEDDED_CHECKPOINT}.`),
    methods: z
      .array(z.enum(METHODS))
      .min(1)
      .default([...METHODS])
      .describe(
        "Methods to train: 'grpo' (uniform σ, Eq. 12), 'rredcot' (config `rredcot`; default Tab. 1: dataset references, I+V, log, L1), " +
          "'rredcot-own' (config `rredcotOwn`; default Tab. 2: the model's own correct answers, I, log, softmax). Default all three; " +
          'the sample-efficiency ratio needs grpo.',
      ),
    seeds: z
      .array(seedSchema)
      .min(1)
      .default([1, 2, 3])
      .describe(
        'One run per (method, seed); the seed drives prompt order, sampling and evaluation draws (paired across methods). Default [1, 2, 3]; distinct integers.',
      ),
    scale: z
      .number()
      .positive()
      .default(1)
      .describe(
        'Multiplies steps, validation.every, validation.problems and evaluation.problems (each rounded, at least 1). Default 1; > 0.',
      ),
    steps: z
      .number()
      .int()
      .min(1)
      .default(80)
      .describe(
        'Optimizer steps per run (before scale). Default 80, sized so the default target (9 runs) takes ≤ 60 min on 2 shared cores (measured: 40 steps took 14.7 min in all, ~0.7–1.8 s per step); the paper: 500.',
      ),
    learningRates: z
      .object({
        grpo: lr(1e-4, 'grpo'),
        rredcot: lr(1e-4, 'rredcot'),
        'rredcot-own': lr(1e-4, 'rredcot-own'),
      })
      .strict()
      .default({})
      .describe(
        'Per-method peak lr. Default 1e-4 for every method (not tuned), so the comparison is lr-matched. The paper (App. 10.3) gives RREDCoT half ' +
          "GRPO's lr (5e-7 vs 1e-6); here that confounds the comparison: GRPO at 1e-4 beat GRPO at 2e-4 (see the experiments README).",
      ),
    grpo: sharedGrpoSchema
      .default({ promptsPerStep: 8, groupSize: 4, maxNewTokens: 120, importanceSampling: 'sequenceToken' })
      .describe(
        'GRPO hyperparameters shared by all methods (see grpoConfigSchema). Default: 8 prompts × G = 4, ≤ 120 new tokens, GSPO-token ratios (sequence-level ratio values, Sec. 4, with per-token gradients so σ acts; with uniform σ as in GRPO identical to GSPO), loss grpo, no KL.',
      ),
    optimizer: optimizerConfigSchema
      .omit({ lr: true })
      .default({ warmupSteps: 4, minLrRatio: 0.1, weightDecay: 0 })
      .describe(
        'AdamW + linear warmup / cosine decay shared by all methods (lr is per method). Default warmup 4 steps, floor 0.1 × lr, no weight decay.',
      ),
    data: z
      .object({
        datasetSeed: seedSchema
          .default(DEFAULT_DATASET_SEED)
          .describe(`buildDatasets seed of the train prompts. Default ${DEFAULT_DATASET_SEED} (the committed splits).`),
        trainProblems: z.number().int().min(1).default(2000).describe('Train-split problems the prompts are drawn from. Default 2000.'),
      })
      .strict()
      .default({})
      .describe('Training prompts (train split; validation and eval splits are the committed JSONL files).'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 8 }).describe(
      'Exit points of each rollout for RREDCoT (Sec. 3.1). Default hybrid keyword-entropy, K ≤ 8 (rollouts have ~5–8 lines).',
    ),
    rredcot: rredcotConfigSchema
      .default({ ...rredcotPresets.dataset, maxReferences: 4 })
      .describe(
        "Estimator of method 'rredcot'. Default Tab. 1 preset (dataset references, v̂ = I+V, log space, L1) with at most 4 of the up to 9 listed solution orders (N of Eq. 9).",
      ),
    rredcotOwn: rredcotConfigSchema
      .default({ ...rredcotPresets.own })
      .describe(
        "Estimator of method 'rredcot-own'. Default Tab. 2 preset (the group's own correct answers, v̂ = I, log space, softmax τ = 1).",
      ),
    validation: z
      .object({
        every: z.number().int().min(1).default(5).describe('Validate every N steps (and at step 0 and the last step). Default 5.'),
        problems: z.number().int().min(1).default(64).describe('First N problems of the validation split. Default 64.'),
        samplesPerProblem: z.number().int().min(1).default(4).describe('k of the validation avg@k, T = 1 (App. 10.3: avg@4). Default 4.'),
      })
      .strict()
      .default({})
      .describe('Learning curve: validation avg@k vs step and vs training wall time; picks the best checkpoint.'),
    evaluation: z
      .object({
        splits: z
          .array(z.enum(EVAL_SPLITS))
          .min(1)
          .default([...EVAL_SPLITS])
          .describe(`Held-out splits of the final table. Default ${EVAL_SPLITS.join(', ')}.`),
        problems: z
          .number()
          .int()
          .min(1)
          .default(64)
          .describe('First N problems of each split. Default 64 (× 8 samples; sized for the time budget).'),
        samplesPerProblem: z.number().int().min(1).default(8).describe('k of avg@k, T = 1 (App. 10.3: avg@8). Default 8.'),
        batchSize: z.number().int().min(1).default(128).describe('Completions sampled per batch (validation too). Default 128.'),
      })
      .strict()
      .default({})
      .describe('avg@k at the final and at the best (by validation) checkpoint of every run.'),
    confidence: z.number().gt(0).lt(1).default(0.95).describe('Level of the Student-t interval of the mean over seeds. Default 0.95.'),
  })
  .strict();

export type FinetuneConfig = z.infer<typeof finetuneConfigSchema>;

/** Cross-field checks of the experiment's own fields (the GRPO ones run inside the `grpo` schema), each message naming the values involved. */
export function finetuneConfigIssues(c: FinetuneConfig): string[] {
  const issues: string[] = [];
  if (new Set(c.seeds).size !== c.seeds.length) issues.push(`seeds: ${JSON.stringify(c.seeds)} has repeats; each seed must be distinct`);
  if (new Set(c.methods).size !== c.methods.length) issues.push(`methods: ${JSON.stringify(c.methods)} has repeats`);
  if (new Set(c.evaluation.splits).size !== c.evaluation.splits.length)
    issues.push(`evaluation.splits: ${JSON.stringify(c.evaluation.splits)} has repeats`);
  return issues;
}

export const FINETUNE_ALIASES: Record<string, string> = {};
