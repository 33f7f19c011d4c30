/** The one typed config of the RREDCoT estimator, with the two presets of Sec. 4. */
import { parseConfig } from '@rred/core';
import { z } from 'zod';

export const rredcotConfigSchema = z
  .object({
    terms: z
      .enum(['immediate', 'value', 'both'])
      .default('both')
      .describe(
        "Which estimate v̂ of the value v(s_k) to redistribute: 'immediate' = I(s_k) (Eq. 7, p(</think> y* <eos> | s_k) summed over distinct answers), " +
          "'value' = V(s_k) (Eq. 9, mean over references of p(u* </think> y* <eos> | s_k)), 'both' = I + V (Eq. 7 + Eq. 8). Default 'both'.",
      ),
    space: z
      .enum(['log', 'prob'])
      .default('log')
      .describe(
        "Difference space of the credit r_k = v̂(s_k) − v̂(s_{k−1}) (Eq. 5–8): 'log' uses log v̂ (telescopes to the log probability reward, Sec. 4), " +
          "'prob' uses v̂ itself. Default 'log'.",
      ),
    normalization: z
      .enum(['L1', 'softmax', 'uniform'])
      .default('L1')
      .describe(
        "Segment weights σ (Eq. 11): 'L1' σ_k = r_k / Σ|r| (signed; all-zero credits fall back to uniform), 'softmax' σ = softmax(r/tau), " +
          "'uniform' every token 1/|o| (Eq. 12, plain GRPO). Default 'L1'.",
      ),
    tau: z.number().positive().default(1).describe("Softmax temperature τ > 0 for normalization 'softmax' (Sec. 4). Default 1."),
    referenceSource: z
      .enum(['dataset', 'own', 'both'])
      .default('dataset')
      .describe(
        "Reference set R of Eq. 9: 'dataset' solution/answer pairs, 'own' the model's own correct samples (Sec. 4), 'both' (dataset first). Default 'dataset'.",
      ),
    maxReferences: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .default(16)
      .describe('N: at most this many distinct reference pairs are used (Eq. 9; larger N shrinks the bias of Eq. 10 and costs N suffixes per exit point). Default 16, range 1..1024.'),
    emptyReferences: z
      .enum(['error', 'uniform'])
      .default('error')
      .describe(
        "When R is empty (e.g. no correct sample in a group): 'error' raises, 'uniform' returns NaN credits and uniform σ (Eq. 12) flagged in extra. Default 'error'.",
      ),
    overlong: z
      .enum(['error', 'uniform'])
      .default('error')
      .describe(
        "When the last exit point (prompt + thinking) plus the longest reference suffix exceeds the model's context: 'error' raises, " +
          "'uniform' returns NaN credits and uniform σ (Eq. 12) flagged extra.overlong (e.g. a rambling GRPO rollout). Default 'error'.",
      ),
    scoring: z
      .enum(['sharedPrefix', 'perExitPoint'])
      .default('sharedPrefix')
      .describe(
        "'sharedPrefix': one prefix-sharing scoring call per trace (per batch with rredcotBatch), all exit points × all references (cost T + Σ suffix tokens, design.md 'Cost'); " +
          "'perExitPoint': one call per exit point (cost Σ_k (prefix_k + suffixes)), for cost comparisons and checks. Default 'sharedPrefix'.",
      ),
  })
  .strict();

export type RredcotConfig = z.infer<typeof rredcotConfigSchema>;
export type RredcotConfigInput = z.input<typeof rredcotConfigSchema>;

/** Sec. 4 defaults: Tab. 1 (dataset references: I+V, log, L1) and Tab. 2 (own answers: I, log, softmax). */
export const rredcotPresets = {
  dataset: { terms: 'both', space: 'log', normalization: 'L1', referenceSource: 'dataset' },
  own: { terms: 'immediate', space: 'log', normalization: 'softmax', tau: 1, referenceSource: 'own' },
} as const satisfies Record<string, RredcotConfigInput>;

export function parseRredcotConfig(input: unknown, source = 'rredcot config'): RredcotConfig {
  return parseConfig(rredcotConfigSchema, input ?? {}, source);
}
