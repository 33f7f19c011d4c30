import { z } from 'zod';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { grpoConfigSchema } from './grpo';

/** `packages/training/src/cli/grpo.ts`: GRPO fine-tuning of a checkpoint on the task's train split. */
export const grpoRunConfigSchema = z
  .object({
    grpo: grpoConfigSchema.default({}).describe('The GRPO algorithm (see grpoConfigSchema; redistribution picks σ, Eq. 11).'),
    checkpoint: z
      .string()
      .min(1)
      .default('packages/lm/checkpoints/embedded.ckpt')
      .describe('Starting checkpoint (also the frozen reference when grpo.beta > 0). Default: the embedded model.'),
    data: z
      .object({
        datasetSeed: z.number().int().default(20260601).describe('buildDatasets seed (default: the committed splits, DEFAULT_DATASET_SEED).'),
        trainProblems: z.number().int().min(1).default(2000).describe('Train-split problems prompts are drawn from. Default 2000.'),
      })
      .strict()
      .default({})
      .describe('Training prompts.'),
    redistributionOptions: z
      .object({
        segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid' }).describe("Segmentation of each trace's thinking (Sec. 3.1). Default hybrid."),
        estimator: z
          .record(z.unknown())
          .default({})
          .describe('Config of the estimator named by grpo.redistribution (validated by @rred/estimators; e.g. rredcot presets).'),
        normalization: z
          .enum(['L1', 'softmax', 'uniform'])
          .default('L1')
          .describe("Credits → σ_k for estimators that do not normalise (mc, loo, gradient): 'L1' | 'softmax' | 'uniform'. Default 'L1'."),
        tau: z.number().positive().default(1).describe("Softmax temperature for normalization 'softmax'. Default 1."),
      })
      .strict()
      .default({})
      .describe('Used when grpo.redistribution ≠ none.'),
    evaluation: z
      .object({
        every: z.number().int().min(0).default(10).describe('Evaluate every N steps (0 = start and end only). Default 10.'),
        problems: z.number().int().min(1).default(64).describe('Validation problems per evaluation. Default 64.'),
        samplesPerProblem: z.number().int().min(1).default(4).describe('T=1 samples per problem (avg@k, pass@k with k = this). Default 4.'),
      })
      .strict()
      .default({})
      .describe('Periodic avg@k / pass@k on the validation split.'),
    output: z
      .object({
        checkpoint: z.string().min(1).default('packages/training/.state/grpo.ckpt').describe('Fine-tuned checkpoint.'),
        state: z.string().min(1).default('packages/training/.state/grpo.state').describe('Trainer state for --resume.'),
      })
      .strict()
      .default({})
      .describe('Output paths (relative to the repository root).'),
  })
  .strict();

export type GrpoRunConfig = z.infer<typeof grpoRunConfigSchema>;
