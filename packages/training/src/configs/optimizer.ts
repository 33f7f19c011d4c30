import { z } from 'zod';

/** Optimizer + schedule options shared by SFT and GRPO. */
export const optimizerConfigSchema = z
  .object({
    lr: z.number().positive().max(1).default(1e-3).describe('Peak learning rate after warmup. Default 1e-3; (0, 1].'),
    warmupSteps: z.number().int().min(0).default(20).describe('Linear warmup steps from 0 to lr. Default 20; integer ≥ 0.'),
    minLrRatio: z
      .number()
      .min(0)
      .max(1)
      .default(0.1)
      .describe('Cosine decay floor as a fraction of lr, reached at the last step. Default 0.1; [0, 1].'),
    weightDecay: z.number().min(0).default(0.01).describe('AdamW decoupled weight decay on matrices (rank ≥ 2) only. Default 0.01; ≥ 0.'),
    beta1: z.number().min(0).lt(1).default(0.9).describe('Adam first-moment decay. Default 0.9; [0, 1).'),
    beta2: z.number().min(0).lt(1).default(0.99).describe('Adam second-moment decay. Default 0.99; [0, 1).'),
    epsilon: z.number().positive().default(1e-8).describe('Adam denominator epsilon. Default 1e-8; > 0.'),
    gradClip: z.number().min(0).default(1).describe('Global gradient L2-norm clip; 0 disables. Default 1; ≥ 0.'),
  })
  .strict();
