import { z } from 'zod';
import { parseConfig, seedSchema } from '@rred/core';
import { optimizerConfigSchema } from './optimizer';
import { VERIGATE_ORDERS, VERIGATE_SCALES } from '../verigate';

const REDISTRIBUTIONS = ['none', 'rredcot', 'mc', 'loo', 'gradient', 'grail', 'oracle', 'position'] as const;

/**
 * GRPO with optional token-level reward redistribution (token weights σ from a hook). Field names follow TRL's
 * GRPOConfig where one exists. The fields alone (for `omit`/`pick`); `grpoConfigSchema` adds the
 * cross-field checks.
 */
export const grpoConfigFields = z
  .object({
    seed: seedSchema.default(1).describe('Seed of prompt order and sampling. Integer.'),
    steps: z.number().int().min(1).default(100).describe('Optimizer steps (one batch of prompts each when numIterations = 1).'),
    promptsPerStep: z.number().int().min(1).default(8).describe('Distinct prompts per step. Integer ≥ 1.'),
    groupSize: z
      .number()
      .int()
      .min(2)
      .default(4)
      .describe('G, completions sampled per prompt (advantages are relative within a group; paper App. 10: 4). Integer ≥ 2.'),
    gradientAccumulationSteps: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('Micro-batches per optimizer step; promptsPerStep must divide by it.'),
    maxNewTokens: z.number().int().min(1).default(140).describe("Generation limit |o| ≤ this (also dr_grpo's normalizer)."),
    temperature: z.number().min(0).default(1).describe('Sampling temperature. ≥ 0.'),
    topP: z.number().gt(0).max(1).default(1).describe('Nucleus mass; 1 disables. Range (0, 1].'),
    scaleRewards: z
      .enum(['group', 'batch', 'none'])
      .default('group')
      .describe("Advantage scaling: 'group' std (GRPO), 'batch' std, 'none' (Dr. GRPO)."),
    lossType: z
      .enum(['grpo', 'bnpo', 'dr_grpo', 'dapo'])
      .default('grpo')
      .describe(
        "Loss reduction: 'grpo' mean over tokens per sequence then over sequences (Eq. 20); 'bnpo' sum / active " +
          "tokens of the micro-batch; 'dr_grpo' sum / (rows × maxNewTokens); 'dapo' sum / active tokens of the " +
          'whole accumulated batch.',
      ),
    epsilon: z.number().gt(0).lt(1).default(0.2).describe('Lower clip ε: ratio ≥ 1 − ε. Range (0, 1).'),
    epsilonHigh: z
      .number()
      .gt(0)
      .optional()
      .describe('Upper clip: ratio ≤ 1 + epsilonHigh (DAPO clip-higher, e.g. 0.28). Unset: equal to epsilon.'),
    beta: z.number().min(0).default(0).describe('KL coefficient to the frozen reference (k3 estimator); 0: no reference model.'),
    numIterations: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('μ, optimizer updates per generated batch, reusing the sampling-time logprobs as π_old.'),
    importanceSampling: z
      .enum(['token', 'sequence', 'sequenceToken'])
      .default('token')
      .describe(
        "'token' ratios (GRPO); 'sequence' = GSPO's length-normalised sequence ratio (paper Sec. 4), one shared gradient per completion; " +
          "'sequenceToken' = GSPO-token: the sequence ratio's value with each token's own gradient, so token weights σ act. " +
          "'sequence' cannot be combined with a redistribution (σ would only rescale A_i).",
      ),
    redistribution: z
      .enum(REDISTRIBUTIONS)
      .default('none')
      .describe(
        "Token weights σ: 'none' = uniform 1/|o| (Eq. 12, plain GRPO), or from a hook (setup.redistribute) of credits 'rredcot' | 'mc' | " +
          "'loo' | 'gradient' | 'oracle' (the task's step oracle) | 'position' (the outcome-signed position (2ζ − 1)·k), or 'grail' (gradient saliency, grail.ts).",
      ),
    processAdvantage: z
      .enum(['none', 'verigate'])
      .default('none')
      .describe(
        "'verigate': in a group whose verifier rewards all coincide (GRPO advantage 0), token advantages from process scores instead — " +
          'the step scores of the group, normalized and future-cumulated in the order verigateOrder sets (verigate.ts; needs setup.stepScores). Other groups keep A_i. ' +
          "'none': every group keeps A_i.",
      ),
    verigateOrder: z
      .enum(VERIGATE_ORDERS)
      .default('normalize-then-cumulate')
      .describe(
        "With processAdvantage 'verigate', the order of its two steps (verigate.ts): 'normalize-then-cumulate' " +
          "Â_{i,t} = Σ_{j ≥ k(t)} (p_{i,j} − mean p)/(sd p + 1e-4) over the group's step scores p; " +
          "'cumulate-then-normalize' Â_{i,t} = (F_{i,k(t)} − mean F)/(sd F + 1e-4) with F_{i,k} = Σ_{j ≥ k} p_{i,j}, which favours " +
          "early tokens and long traces whenever scores are positive (the committed fine-tuning comparison's setting).",
      ),
    verigateScale: z
      .enum(VERIGATE_SCALES)
      .default('unit')
      .describe(
        "With processAdvantage 'verigate', the scale of a gated group's token advantages (verigate.ts): 'unit' divides them by their " +
          "sample SD over the group's scored tokens (+ 1e-4), Â ← Â/(sd Â + 1e-4), not re-centered: group-normalized token-level advantages " +
          "with a verifier group's spread; 'none' keeps the future-cumulated sums (up to K normalized scores each).",
      ),
    referenceSft: z
      .number()
      .min(0)
      .default(0)
      .describe(
        "λ ≥ 0 of an SFT term on the dataset references of each step's prompts (setup.referenceCompletion): loss = GRPO loss + λ · mean " +
          'NLL over the reference completion tokens. 0: plain GRPO (the references are not read).',
      ),
    checkpointEvery: z.number().int().min(0).default(20).describe('Trainer state every N steps (0 = end only).'),
    optimizer: optimizerConfigSchema
      .default({ lr: 1e-4, warmupSteps: 5, minLrRatio: 0.1, weightDecay: 0 })
      .describe('AdamW + warmup/cosine (GRPO: short warmup, no weight decay).'),
  })
  .strict();

type GrpoFields = z.infer<typeof grpoConfigFields>;
type CheckedFields = 'promptsPerStep' | 'gradientAccumulationSteps' | 'epsilon' | 'epsilonHigh' | 'importanceSampling' | 'redistribution';

/**
 * The cross-field checks, all here, each message naming both values (a `superRefine`). A derived
 * schema (`grpoConfigFields.omit(...)`, e.g. without what an experiment sets per run) refines with it
 * too; a check whose fields it leaves out is skipped, and whoever sets them later parses the full schema.
 */
export function refineGrpoConfig(c: Partial<Pick<GrpoFields, CheckedFields>>, ctx: z.RefinementCtx): void {
  const issue = (message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, message });
  if (c.promptsPerStep !== undefined && c.gradientAccumulationSteps !== undefined && c.promptsPerStep % c.gradientAccumulationSteps !== 0)
    issue(`promptsPerStep (${c.promptsPerStep}) must be a multiple of gradientAccumulationSteps (${c.gradientAccumulationSteps})`);
  if (c.epsilon !== undefined && c.epsilonHigh !== undefined && c.epsilonHigh < c.epsilon)
    issue(`epsilonHigh (${c.epsilonHigh}) must be ≥ epsilon (${c.epsilon})`);
  if (c.redistribution !== undefined && c.redistribution !== 'none' && c.importanceSampling === 'sequence')
    issue(
      `importanceSampling 'sequence' with redistribution '${c.redistribution}': every token of a completion shares the sequence ratio's gradient, ` +
        "so the token weights σ would only rescale each completion's advantage by Σσ_t (and do nothing when Σσ_t = 1); use 'sequenceToken' (GSPO-token) or 'token'",
    );
}

/** The GRPO config: every field with its default, and the cross-field checks (superRefine). */
export const grpoConfigSchema = grpoConfigFields.superRefine(refineGrpoConfig);

export type GrpoConfig = z.infer<typeof grpoConfigSchema>;

/** Parses a GRPO config (defaults applied, cross-field checks run); UserError naming the source on any issue. */
export function parseGrpoConfig(input: unknown, source = 'grpo config'): GrpoConfig {
  return parseConfig(grpoConfigSchema, input, source);
}
