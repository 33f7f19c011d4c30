import { z } from 'zod';
import { UserError, parseConfig } from '@rred/core';
import { optimizerConfigSchema } from './optimizer';

export const REDISTRIBUTIONS = ['none', 'rredcot', 'mc', 'loo', 'gradient'] as const;
export type Redistribution = (typeof REDISTRIBUTIONS)[number];

/**
 * GRPO with optional token-level reward redistribution (paper Eq. 11). Field names follow TRL's
 * GRPOConfig where one exists. Cross-field checks live in `checkGrpoConfig`.
 */
export const grpoConfigSchema = z
  .object({
    seed: z.number().int().default(1).describe('Seed of prompt order and sampling. Default 1; integer.'),
    steps: z.number().int().min(1).default(100).describe('Optimizer steps (one batch of prompts each when numIterations = 1). Default 100.'),
    promptsPerStep: z.number().int().min(1).default(8).describe('Distinct prompts per step. Default 8; integer ≥ 1.'),
    groupSize: z
      .number()
      .int()
      .min(2)
      .default(4)
      .describe('G, completions sampled per prompt (advantages are relative within a group). Default 4 (paper App. 10); integer ≥ 2.'),
    gradientAccumulationSteps: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('Micro-batches per optimizer step; promptsPerStep must divide by it. Default 1.'),
    maxNewTokens: z.number().int().min(1).default(140).describe('Generation limit |o| ≤ this (also dr_grpo\'s normalizer). Default 140.'),
    temperature: z.number().min(0).default(1).describe('Sampling temperature. Default 1; ≥ 0.'),
    topP: z.number().gt(0).max(1).default(1).describe('Nucleus mass; 1 disables. Default 1; (0, 1].'),
    scaleRewards: z
      .enum(['group', 'batch', 'none'])
      .default('group')
      .describe("Advantage scaling: 'group' std (GRPO), 'batch' std, 'none' (Dr. GRPO). Default 'group'."),
    lossType: z
      .enum(['grpo', 'bnpo', 'dr_grpo', 'dapo'])
      .default('grpo')
      .describe(
        "Loss reduction: 'grpo' mean over tokens per sequence then over sequences (Eq. 20); 'bnpo' sum / active " +
          "tokens of the micro-batch; 'dr_grpo' sum / (rows × maxNewTokens); 'dapo' sum / active tokens of the " +
          "whole accumulated batch. Default 'grpo'.",
      ),
    epsilon: z.number().gt(0).lt(1).default(0.2).describe('Lower clip ε: ratio ≥ 1 − ε. Default 0.2; (0, 1).'),
    epsilonHigh: z
      .number()
      .gt(0)
      .optional()
      .describe('Upper clip: ratio ≤ 1 + epsilonHigh (DAPO clip-higher, e.g. 0.28). Default: equal to epsilon.'),
    beta: z.number().min(0).default(0).describe('KL coefficient to the frozen reference (k3 estimator). Default 0 (no reference model).'),
    numIterations: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('μ, optimizer updates per generated batch, reusing the sampling-time logprobs as π_old. Default 1.'),
    importanceSampling: z
      .enum(['token', 'sequence', 'sequenceToken'])
      .default('token')
      .describe(
        "'token' ratios (GRPO); 'sequence' = GSPO's length-normalised sequence ratio (paper Sec. 4), one shared gradient per completion; " +
          "'sequenceToken' = GSPO-token: the sequence ratio's value with each token's own gradient, so token weights σ (Eq. 11) act. " +
          "'sequence' cannot be combined with a redistribution (σ would only rescale A_i). Default 'token'.",
      ),
    redistribution: z
      .enum(REDISTRIBUTIONS)
      .default('none')
      .describe("Token weights σ (Eq. 11): 'none' = uniform 1/|o| (Eq. 12, plain GRPO), or credits from 'rredcot' | 'mc' | 'loo' | 'gradient'. Default 'none'."),
    checkpointEvery: z.number().int().min(0).default(20).describe('Trainer state every N steps (0 = end only). Default 20.'),
    optimizer: optimizerConfigSchema
      .default({ lr: 1e-4, warmupSteps: 5, minLrRatio: 0.1, weightDecay: 0 })
      .describe('AdamW + warmup/cosine; GRPO default lr 1e-4, warmup 5, no weight decay.'),
  })
  .strict();

export type GrpoConfig = z.infer<typeof grpoConfigSchema>;

/** Cross-field checks, each message naming both values. */
export function grpoCrossFieldIssues(c: GrpoConfig): string[] {
  const issues: string[] = [];
  if (c.promptsPerStep % c.gradientAccumulationSteps !== 0)
    issues.push(`promptsPerStep (${c.promptsPerStep}) must be a multiple of gradientAccumulationSteps (${c.gradientAccumulationSteps})`);
  if (c.epsilonHigh !== undefined && c.epsilonHigh < c.epsilon)
    issues.push(`epsilonHigh (${c.epsilonHigh}) must be ≥ epsilon (${c.epsilon})`);
  if (c.redistribution !== 'none' && c.importanceSampling === 'sequence')
    issues.push(
      `importanceSampling 'sequence' with redistribution '${c.redistribution}': every token of a completion shares the sequence ratio's gradient, ` +
        "so the token weights σ would only rescale each completion's advantage by Σσ_t (and do nothing when Σσ_t = 1); use 'sequenceToken' (GSPO-token) or 'token'",
    );
  return issues;
}

/** Parses a GRPO config (defaults applied) and runs the cross-field checks; UserError on any issue. */
export function parseGrpoConfig(input: unknown, source = 'grpo config'): GrpoConfig {
  const config = parseConfig(grpoConfigSchema, input, source);
  const issues = grpoCrossFieldIssues(config);
  if (issues.length) throw new UserError(`invalid config (${source}):\n  ${issues.join('\n  ')}`);
  return config;
}
