/** The one typed config of the RREDCoT estimator, with the two presets of Sec. 4. */
import { parseConfig } from '@rred/core';
import { z } from 'zod';

const rredcotFields = z
  .object({
    terms: z
      .enum(['immediate', 'value', 'immediatePlusValue'])
      .default('value')
      .describe(
        "Which estimate v̂ of the value v(s_k) to redistribute: 'immediate' = I(s_k) (Eq. 7, the answer now, see `exit`), " +
          "'value' = V(s_k) (Eq. 9, the reference's goal from here, see `valueSuffix` and `referencePooling`), 'immediatePlusValue' = I + V (Eq. 2: the exit term plus the continuation term; 'both' in older configs). " +
          "Sec. 4 (Tab. 1) uses I + V; docs/method.md, 'Terms', says which the benchmark favours.",
      ),
    exit: z
      .enum(['joint', 'forced'])
      .default('joint')
      .describe(
        "Immediate term I(s_k) = Σ_{distinct y*} of: 'joint' p(</think> y* <eos> | s_k) — Eq. 2 read literally, so it also measures how likely the " +
          "model is to stop at s_k (format, not progress, for a model that never stops mid-trace); 'forced' p(y* <eos> | s_k, </think>) — the exit " +
          'is forced and its own probability left out, as the probability-reward estimators the paper cites score the answer (RLPR, VeriFree); ' +
          "forced = joint − log p(</think> | s_k) per answer, exactly. Read only when `terms` includes I. docs/method.md, 'Exit'.",
      ),
    valueSuffix: z
      .enum(['full', 'remaining', 'bestStart', 'softStart'])
      .default('softStart')
      .describe(
        "Which part of each reference path u*_j the value term V(s_k) scores after s_k (Eq. 9): 'full' the whole path (Eq. 9 read literally); " +
          "'bestStart' the best of the reference's own line starts, max_i p(u*_j[i..] </think> y*_j <eos> | s_k); 'softStart' their uniform mean " +
          "(the marginal over where the trace stands in the reference); 'remaining' (ORACLE) the lines whose subgoals the trace has not reached, " +
          "from the task's alignment (needs alignment 'task'). The start rules split references at tokens.newline and read nothing of the trace. " +
          "docs/method.md, 'Value term'.",
      ),
    alignment: z
      .enum(['task', 'none'])
      .optional()
      .describe(
        "What the value term may read besides text and tokens: 'task' the task's subgoal alignment (inputs.alignment), needed by valueSuffix " +
          "'remaining' and read by nothing else, which makes that variant an oracle bound (a free-text chain of thought has no such alignment); " +
          "'none' never (every other valueSuffix). Unset: 'task' exactly when valueSuffix is 'remaining'. docs/method.md, 'Alignment'.",
      ),
    referencePooling: z
      .enum(['literal', 'sum'])
      .default('literal')
      .describe(
        "How the N references are pooled (Eq. 9; `combine` in older configs). 'sum': I = Σ over distinct answers, V = Σ over distinct value suffixes at each exit point — the " +
          'importance-sampling reading of Eq. 9 with every distinct ζ > 0 continuation counted once: both are lower bounds of v(s_k), and each ' +
          "added distinct reference shrinks the non-positive bias of Eq. 10; N does not shift the I:V balance. 'literal': I sums over distinct " +
          'answers (Eq. 7) but V = (1/N) Σ_j (Eq. 9 as printed, duplicates of a remaining suffix counted per reference), so a larger N lowers V ' +
          "relative to I and does not shrink the Eq. 10 bias. With one reference the two coincide. docs/method.md, 'Reference pooling'.",
      ),
    space: z
      .enum(['log', 'prob'])
      .default('prob')
      .describe(
        "Difference space of the credit r_k = v̂(s_k) − v̂(s_{k−1}) (Eq. 5–8): 'log' uses log v̂ (telescopes to the log probability reward, Sec. 4), " +
          "'prob' uses v̂ itself (Sec. 4 uses 'log'; the two give the same value ranks, not the same credit ranks). " +
          "docs/method.md, 'Space'.",
      ),
    normalization: z
      .enum(['L1', 'softmax', 'uniform'])
      .default('L1')
      .describe(
        "The σ this estimator reports to analyses (no advantage: literal sign, raw credits; estimators/src/sigma.ts), not the σ a GRPO run trains with: 'L1' σ_k = r_k / Σ|r| (signed; all-zero credits fall back to uniform), 'softmax' σ = softmax(r/tau), " +
          "'uniform' every token 1/|o| (Eq. 12, plain GRPO).",
      ),
    tau: z.number().positive().default(1).describe("Softmax temperature τ > 0 for normalization 'softmax' (Sec. 4)."),
    referenceSource: z
      .enum(['dataset', 'own', 'both'])
      .default('dataset')
      .describe(
        "Reference set R of Eq. 9: 'dataset' solution/answer pairs, 'own' the model's own correct samples (Sec. 4), 'both' (dataset first).",
      ),
    maxReferences: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .default(16)
      .describe(
        "N: at most this many distinct reference pairs are used (Eq. 9); each costs a suffix per exit point. Under referencePooling 'sum' a larger N shrinks " +
          "the bias of Eq. 10; under 'literal' it does not (the 1/N mean). Range 1..1024.",
      ),
    emptyReferences: z
      .enum(['error', 'uniform'])
      .default('error')
      .describe(
        "When R is empty (e.g. no correct sample in a group): 'error' raises, 'uniform' returns NaN credits and uniform σ (Eq. 12) flagged in extra.",
      ),
    overlong: z
      .enum(['error', 'uniform'])
      .default('error')
      .describe(
        "When the last exit point (prompt + thinking) plus the longest reference suffix exceeds the model's context: 'error' raises, " +
          "'uniform' returns NaN credits and uniform σ (Eq. 12) flagged extra.overlong (e.g. a rambling GRPO rollout).",
      ),
    scoring: z
      .enum(['sharedPrefix', 'sharedContinuation', 'perExitPoint'])
      .default('sharedContinuation')
      .describe(
        "'sharedPrefix': one prefix-sharing scoring call per trace (per batch with rredcotBatch), all exit points × all references (cost T + Σ suffix tokens, docs/method.md 'Cost'); " +
          "'sharedContinuation': sharedPrefix, but a request (a_i, u_i) whose tokens continue another one's, u_j = sequence[a_j, a_i) ++ u_i ++ …, is read from it instead of being forwarded (the same log-probabilities: same context, same positions; " +
          "e.g. the remaining value suffix after a correct line that is the reference's), so the cost is T + Σ over the forwarded suffixes; " +
          "'perExitPoint': one call per exit point (cost Σ_k (prefix_k + suffixes)), for cost comparisons and checks. All three give the same log-probabilities; 'sharedContinuation' forwards the fewest tokens (about half of 'sharedPrefix' in the training bench's I + V step).",
      ),
  })
  .strict();

/**
 * Reads configs written with the earlier names: key `combine` → `referencePooling`, terms 'both' →
 * 'immediatePlusValue'. Says so once per process (one line on stderr); a config giving both keys is left
 * as is, so the strict parse names the unknown key.
 */
let warnedOldNames = false;
function migrateRredcotConfig(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const o: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const renamed: string[] = [];
  if ('combine' in o && !('referencePooling' in o)) {
    o.referencePooling = o.combine;
    delete o.combine;
    renamed.push("'combine' is now 'referencePooling'");
  }
  if (o.terms === 'both') {
    o.terms = 'immediatePlusValue';
    renamed.push("terms 'both' is now 'immediatePlusValue'");
  }
  if (renamed.length > 0 && !warnedOldNames) {
    warnedOldNames = true;
    process.stderr.write(`rredcot config: read with the old option names (${renamed.join('; ')}); update the config file\n`);
  }
  return o;
}

export const rredcotConfigSchema = z.preprocess(migrateRredcotConfig, rredcotFields);

export type RredcotConfig = z.infer<typeof rredcotFields>;
export type RredcotConfigInput = z.input<typeof rredcotFields>;

/**
 * The two presets of Sec. 4, with what the gold benchmark (results/gold) chose where it decides:
 * - dataset (Tab. 1, dataset references, L1 σ): v̂ = V with valueSuffix 'softStart' in prob space, the best variant that needs no
 *   alignment on both embedded checkpoints (the oracle 'remaining' is one option away: valueSuffix 'remaining'; the paper: I+V in
 *   log space, with the literal joint exit and full suffix: set them explicitly, as the committed experiment configs do);
 * - own (Tab. 2, the model's own correct answers, softmax σ): I in log space as in the paper, with exit 'forced', the better
 *   immediate term on the 'assumptions met' checkpoint (on the embedded one every immediate variant is near 0).
 */
export const rredcotPresets = {
  dataset: { terms: 'value', valueSuffix: 'softStart', space: 'prob', normalization: 'L1', referenceSource: 'dataset' },
  own: { terms: 'immediate', exit: 'forced', space: 'log', normalization: 'softmax', tau: 1, referenceSource: 'own' },
} as const satisfies Record<string, RredcotConfigInput>;

/** How result tables name each `terms` value (I + V prints as 'both', so tables rendered before the rename read the same). */
export const termsLabel = { immediate: 'immediate', value: 'value', immediatePlusValue: 'both' } as const satisfies Record<
  RredcotConfig['terms'],
  string
>;

export function parseRredcotConfig(input: unknown, source = 'rredcot config'): RredcotConfig {
  return parseConfig(rredcotConfigSchema, input ?? {}, source);
}
