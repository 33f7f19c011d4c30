import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { checkModelShape, EMBEDDED_CHECKPOINTS, modelShapeFields } from '@rred/lm';
import { MultiAttemptMixSchema, ProseMixSchema, SftConfigSchema } from '@rred/tasks';
import { optimizerConfigSchema } from '@rred/training';

/** Where pretrain writes unless a config names its outputs: git-ignored (packages/training/.gitignore). */
const SCRATCH_DIR = 'packages/training/.state';

/**
 * `npx nx run lm:pretrain`: SFT of the embedded reasoning model from scratch on the synthetic task
 * corpus. Defaults are sized for ~40 min on 2 CPU cores with the wasm backend (measured: see the
 * training package README section in the report); every field can be overridden by --config.
 */
export const pretrainConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of model init, SFT corpus draws and data order. Integer.'),
    model: z
      .object({
        contextLength: modelShapeFields.contextLength.default(160),
        dModel: modelShapeFields.dModel.default(128),
        nLayers: modelShapeFields.nLayers.default(4),
        nHeads: modelShapeFields.nHeads.default(4),
        dFF: modelShapeFields.dFF.default(512),
        positionInit: z
          .enum(['sinusoidal', 'random'])
          .default('sinusoidal')
          .describe(
            "Initial position table: 'sinusoidal' (Vaswani et al.; breaks the uniform-digit plateau much sooner) or 'random' N(0, 0.02) as @rred/lm.",
          ),
        embeddingStd: z
          .number()
          .positive()
          .default(0.1)
          .describe(
            "Std of the initial (tied) token embeddings; the sinusoidal position table is scaled to the same norm (GPT-2's 0.02 let the digit embeddings collapse together).",
          ),
      })
      .strict()
      .superRefine(checkModelShape)
      .default({})
      .describe('Transformer shape (vocabSize comes from the task alphabet): the fields and limits of @rred/lm modelShapeFields.'),
    data: z
      .object({
        datasetSeed: seedSchema
          .default(20260601)
          .describe(
            'Seed of buildDatasets (DEFAULT_DATASET_SEED of @rred/tasks gives the committed splits), so held-out problems never enter training.',
          ),
        trainProblems: z.number().int().min(1).default(20000).describe('Train-split problems to draw.'),
        corpusRefreshEpochs: z.boolean().default(true).describe('Draw fresh SFT solutions (orders, errors, corrections) for every epoch.'),
        format: z
          .enum(['notation', 'prose'])
          .default('notation')
          .describe(
            "How the task is written: 'notation' (`a=4+3;?a`, solutions `a=4+3=7`, a character tokenizer) or 'prose' (the free-form bed: " +
              'problems as sentences, solutions in varied phrasings, references in a `Step k.` style the corpus never holds; the piece ' +
              'tokenizer of @rred/tasks prosePieces, validation and final evaluation on the prose splits).',
          ),
        prose: ProseMixSchema.default({}).describe("The phrasing of a 'prose' corpus (@rred/tasks ProseMixSchema); unused for 'notation'."),
        mix: SftConfigSchema.default({}).describe(
          'The SFT example mix (@rred/tasks SftConfigSchema: alternative orders, errors and corrections, errorLineLoss, ' +
            "composite forms, early exits). {}: the committed embedded checkpoint's mix. The tokenizer alphabet is " +
            "COMPOSITE_TASK_ALPHABET when mix.compositeRate > 0, else TASK_ALPHABET ('notation'); 'prose' needs compositeRate 0.",
        ),
        multiAttempt: MultiAttemptMixSchema.nullable()
          .default(null)
          .describe(
            'Multi-attempt examples (@rred/tasks MultiAttemptMixSchema: failed attempts, the verifier feedback, a later fix) mixed ' +
              "into a 'notation' corpus; null: none.",
          ),
      })
      .strict()
      .superRefine((d, ctx) => {
        if (d.format === 'prose' && d.multiAttempt !== null)
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['multiAttempt'], message: "must be null with format 'prose'" });
        if (d.format === 'prose' && d.mix.compositeRate > 0)
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            path: ['mix', 'compositeRate'],
            message: "must be 0 with format 'prose' (its problems ask one value)",
          });
      })
      .default({})
      .describe('Where the SFT corpus comes from (generated on the fly from the seeds; nothing downloaded).'),
    initCheckpoint: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        "Start from this checkpoint's weights instead of the seeded init (a second stage; same alphabet and model shape, path relative to " +
          'the repository root); the optimizer state and lr schedule start fresh. null: train from the seed.',
      ),
    steps: z
      .number()
      .int()
      .min(1)
      .default(2000)
      .describe(
        'Optimizer steps of the lr schedule (the run may stop earlier, see validation.stopAtGreedyAccuracy); 2000 take ~45 min with the wasm+native engine on 2 cores.',
      ),
    batchSize: z.number().int().min(1).default(32).describe('Sequences per step.'),
    optimizer: optimizerConfigSchema
      .default({ lr: 2e-3, warmupSteps: 40, minLrRatio: 0.05, weightDecay: 0.01 })
      .describe("AdamW + warmup/cosine with the pretrain's own lr, warmup, floor and decay (small model, short run)."),
    checkpointEvery: z.number().int().min(0).default(50).describe('Trainer state + model checkpoint every N steps (0 = end only).'),
    validation: z
      .object({
        every: z.number().int().min(0).default(100).describe('Validate every N steps (0 = only at the end).'),
        problems: z.number().int().min(1).default(64).describe('Validation problems per check (first N of the split).'),
        stopAtGreedyAccuracy: z
          .number()
          .min(0)
          .default(0.7)
          .describe(
            'Stop (and finish normally) at the first validation whose greedy accuracy is ≥ this; > 1 disables. 0.7 makes the ' +
              'embedded model lands inside the 35–85% band the RL experiments need (accurate enough to have correct samples, ' +
              'wrong often enough to learn from). Deterministic for a given seed and backend.',
          ),
        samplesPerProblem: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe('Samples at T=1 per validation problem for avg@k / pass@k (k = this).'),
        finalProblems: z
          .number()
          .int()
          .min(1)
          .default(100)
          .describe('Problems of DEFAULT_EVAL_SPLIT (@rred/tasks) scored at the end (greedy; the first 50 also 4× at T=1).'),
        maxNewTokens: z.number().int().min(1).default(140).describe('Generation limit for greedy decoding.'),
      })
      .strict()
      .default({})
      .describe('Periodic greedy (argmax) accuracy on validation, final accuracy on DEFAULT_EVAL_SPLIT (@rred/tasks).'),
    output: z
      .object({
        checkpoint: z
          .string()
          .min(1)
          .default(`${SCRATCH_DIR}/pretrain.ckpt`)
          .describe(
            `Model checkpoint path (≤ 10 MB); ${SCRATCH_DIR}/ is git-ignored: a committed checkpoint is replaced ` +
              `only when a config names it (${EMBEDDED_CHECKPOINTS.embedded.checkpoint}: packages/lm/checkpoints/embedded.pretrain.json).`,
          ),
        state: z
          .string()
          .min(1)
          .default(`${SCRATCH_DIR}/pretrain.state`)
          .describe('Trainer state for --resume (weights + optimizer + data position; not committed).'),
        runRecord: z
          .string()
          .min(1)
          .default(`${SCRATCH_DIR}/pretrain.run.json`)
          .describe(`JSON run record (seed, config, git commit, backend, metrics) written beside the checkpoint.`),
      })
      .strict()
      .default({})
      .describe(
        'Output paths, relative to the repository root. Unset, they are git-ignored scratch paths, so a pretrain without output.* never replaces a committed checkpoint.',
      ),
  })
  .strict();

export type PretrainConfig = z.infer<typeof pretrainConfigSchema>;
