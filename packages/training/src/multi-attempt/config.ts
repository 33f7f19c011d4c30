import { z } from 'zod';
import { parseConfig, seedSchema } from '@rred/core';
import { optimizerConfigSchema } from '../configs/optimizer';
import { MULTI_ATTEMPT_ARMS } from './attempt-weights';

/**
 * Policy-gradient training on multi-attempt rollouts (packages/training/README.md, "Several attempts", Eq. M1–M9):
 * G rollouts per prompt, each attempt, verifier feedback, attempt, … up to K or the first correct attempt, every
 * attempt weighted by its arm's weight (Eq. M9), the feedback tokens masked.
 */
export const multiAttemptConfigSchema = z
  .object({
    seed: seedSchema.default(1).describe('Seed of prompt order and sampling. Integer.'),
    arm: z
      .enum(MULTI_ATTEMPT_ARMS)
      .default('cal')
      .describe(
        "Attempt weights: 'grpo' (S − group mean on every attempt), 'naive-attempt' (r_k − b_k, Eq. M5), 'cal' (S − b_k, Eq. M7–M8), " +
          "'cal-rredcot' (cal with RREDCoT's σ inside each attempt, needs a redistribution hook).",
      ),
    attempts: z.number().int().min(1).max(8).default(3).describe('K, attempts at most per rollout (Eq. M1). Integer in 1..8.'),
    steps: z.number().int().min(1).default(60).describe('Optimizer steps (one batch of prompts each).'),
    promptsPerStep: z.number().int().min(1).default(8).describe('Distinct prompts per step. Integer ≥ 1.'),
    groupSize: z.number().int().min(2).default(4).describe('G, rollouts per prompt (the baselines of Eq. M8 pool the group). Integer ≥ 2.'),
    maxNewTokensPerAttempt: z
      .number()
      .int()
      .min(1)
      .default(60)
      .describe('Generation limit of one attempt (also capped by the room left in the context). Integer ≥ 1.'),
    temperature: z.number().min(0).default(1).describe('Sampling temperature. ≥ 0.'),
    scaleRewards: z
      .enum(['batch', 'none'])
      .default('batch')
      .describe("s of Eq. M9: 'batch' = SD of S over the step's rollouts + 1e-4 (one number per step), 'none' = 1 (exactly Eq. M7)."),
    lossType: z
      .enum(['dr_grpo', 'grpo'])
      .default('dr_grpo')
      .describe(
        "Token reduction: 'dr_grpo' Σ / (rows × K × maxNewTokensPerAttempt), a constant, so the step follows Eq. M3; 'grpo' the " +
          'per-rollout token mean (weights a rollout by 1/its length).',
      ),
    optimizer: optimizerConfigSchema
      .default({ lr: 1e-4, warmupSteps: 5, minLrRatio: 0.1, weightDecay: 0 })
      .describe('AdamW + warmup/cosine (as GRPO: short warmup, no weight decay).'),
  })
  .strict();

export type MultiAttemptConfig = z.infer<typeof multiAttemptConfigSchema>;

export function parseMultiAttemptConfig(input: unknown, source = 'multi-attempt config'): MultiAttemptConfig {
  return parseConfig(multiAttemptConfigSchema, input, source);
}
