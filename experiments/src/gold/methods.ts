/**
 * The methods of the gold benchmark and their names. A name says the variant: RREDCoT
 * `rredcot.<exit>.<valueSuffix>.<terms>.<space>`, where a slot that cannot change the result is
 * written `any` (the immediate term I does not read `valueSuffix`; the value term V does not read
 * `exit`), so every listed variant is distinct: 4 immediate + 4 value + 8 both = 16. MC at n samples
 * per exit point is `mc.n<n>`; the gold values themselves are `gold`.
 *
 * With one reference per problem `combine` does not matter: 'literal' divides V by N = 1 and 'sum'
 * keeps the one suffix, so both give the same V; the variants use 'sum'.
 */
import type { RredcotConfigInput } from '@rred/estimators';

interface RredcotVariant {
  name: string;
  config: RredcotConfigInput;
}

const SPACES = ['log', 'prob'] as const;
const EXITS = ['joint', 'forced'] as const;
const SUFFIXES = ['full', 'remaining'] as const;

/** Every distinct RREDCoT variant exit × valueSuffix × terms × space (dataset references, L1 σ; σ is not scored here). */
export function rredcotVariants(references: number): RredcotVariant[] {
  const base = { combine: 'sum', normalization: 'L1', referenceSource: 'dataset', maxReferences: references } as const;
  const out: RredcotVariant[] = [];
  for (const space of SPACES) {
    for (const exit of EXITS)
      out.push({ name: `rredcot.${exit}.any.immediate.${space}`, config: { ...base, terms: 'immediate', exit, space } });
    for (const valueSuffix of SUFFIXES)
      out.push({ name: `rredcot.any.${valueSuffix}.value.${space}`, config: { ...base, terms: 'value', valueSuffix, space } });
    for (const exit of EXITS)
      for (const valueSuffix of SUFFIXES)
        out.push({ name: `rredcot.${exit}.${valueSuffix}.both.${space}`, config: { ...base, terms: 'both', exit, valueSuffix, space } });
  }
  return out;
}

export const mcMethod = (n: number): string => `mc.n${n}`;
export const GOLD_METHOD = 'gold';

/**
 * The free baselines, computed from the segments and the verifier's outcome ζ alone (no model, cost 0).
 * Sign convention: credit = +length (segment length in tokens: a longer segment gets more credit) and
 * credit = +k (segment index k = 1..K: a later segment gets more credit); a negative correlation means
 * the reverse ordering predicts. The outcome-signed ones multiply by 2ζ − 1 (+1 on a correct trace, −1
 * on a wrong one): on a correct trace V rises towards 1 late, on a wrong one it falls towards 0, so
 * (2ζ − 1)·k is what position alone can say once the outcome is known. Localization takes the most
 * negative credit: the shortest, resp. the first, segment (signed: on a wrong trace the longest, resp. the last).
 */
export const BASELINES = {
  length: (lengths: readonly number[]): number[] => lengths.slice(),
  position: (lengths: readonly number[]): number[] => lengths.map((_, i) => i + 1),
  signedLength: (lengths: readonly number[], reward: number): number[] => lengths.map((l) => (2 * reward - 1) * l),
  signedPosition: (lengths: readonly number[], reward: number): number[] => lengths.map((_, i) => (2 * reward - 1) * (i + 1)),
} as const;
export type BaselineName = keyof typeof BASELINES;

/** Where each MC draw's continuations sit among the samples of an exit point in the store: gold first, then mcSamples in order. */
interface DrawSlot {
  method: string;
  n: number;
  /** First sample index of the draw at every exit point. */
  start: number;
}

export function drawLayout(goldSamples: number, mcSamples: readonly number[]): DrawSlot[] {
  const slots: DrawSlot[] = [{ method: GOLD_METHOD, n: goldSamples, start: 0 }];
  let start = goldSamples;
  for (const n of mcSamples) {
    slots.push({ method: mcMethod(n), n, start });
    start += n;
  }
  return slots;
}
