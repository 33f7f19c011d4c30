import { z } from 'zod';

/** Optimizer + schedule options shared by SFT and GRPO. */
export const optimizerConfigSchema = z
  .object({
    lr: z.number().positive().max(1).default(1e-3).describe('Peak learning rate after warmup. Range (0, 1].'),
    warmupSteps: z.number().int().min(0).default(20).describe('Linear warmup steps from 0 to lr. Integer ≥ 0.'),
    minLrRatio: z
      .number()
      .min(0)
      .max(1)
      .default(0.1)
      .describe('Cosine decay floor as a fraction of lr, reached at the last step. Range [0, 1].'),
    weightDecay: z.number().min(0).default(0.01).describe('AdamW decoupled weight decay on matrices (rank ≥ 2) only. ≥ 0.'),
    beta1: z.number().min(0).lt(1).default(0.9).describe('Adam first-moment decay. Range [0, 1).'),
    beta2: z.number().min(0).lt(1).default(0.99).describe('Adam second-moment decay. Range [0, 1).'),
    epsilon: z.number().positive().default(1e-8).describe('Adam denominator epsilon. > 0.'),
    gradClip: z.number().min(0).default(1).describe('Global gradient L2-norm clip; 0 disables. ≥ 0.'),
  })
  .strict();
