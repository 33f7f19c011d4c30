/**
 * The methods of the gold benchmark and their names. A name says the variant: RREDCoT
 * `rredcot.<exit>.<valueSuffix>.<terms>.<space>[@<refs>][~<rewrite>]`, where a slot that cannot change
 * the result is written `any` (the immediate term I does not read `valueSuffix`; the value term V does
 * not read `exit`), so every listed variant is distinct; `@own` / `@both` name the reference source
 * (none: the dataset's) and `~reorder` / `~swap` / `~reorderSwap` a stress-arm rewrite of the dataset
 * references. `terms` is written `both` for I + V (the option value 'immediatePlusValue'). MC at n
 * samples per exit point is `mc.n<n>`; the gold values themselves are `gold`.
 *
 * With one reference per problem `referencePooling` does not matter: 'literal' divides V by N = 1 and 'sum'
 * keeps the one suffix, so both give the same V; the variants use 'sum'.
 */
import { signedPositionCredits, type RredcotConfigInput } from '@rred/estimators';
import type { ReferenceRewrite } from '@rred/tasks';

type ReferenceSource = 'dataset' | 'own' | 'both';

interface RredcotVariant {
  name: string;
  config: RredcotConfigInput;
  /** Which reference set the variant scores: the dataset's, the model's own correct siblings, or both (dataset first). */
  refs: ReferenceSource;
  /** The dataset references as written ('canonical') or rewritten for the stress arm. */
  rewrite: 'canonical' | ReferenceRewrite;
}

const SPACES = ['log', 'prob'] as const;
const EXITS = ['joint', 'forced'] as const;
/** Value suffixes: 'remaining' reads the task's alignment (an oracle bound); the others read text and tokens only. */
const SUFFIXES = ['full', 'bestStart', 'softStart', 'remaining'] as const;
const FREE_SUFFIXES = ['full', 'bestStart', 'softStart'] as const;

/** The name's tail for a reference source and rewrite: '' (dataset, canonical), '@own', '@both', '~swap', '@both~reorder', ... */
const tail = (refs: ReferenceSource, rewrite: RredcotVariant['rewrite']): string =>
  `${refs === 'dataset' ? '' : `@${refs}`}${rewrite === 'canonical' ? '' : `~${rewrite}`}`;

/**
 * The RREDCoT variants of the benchmark (σ is not scored here; own references fall back to uniform σ and
 * NaN credits where a problem has no correct sibling). `ownLimit` is the most own references a trace can
 * have (G − 1), so N keeps all of them beside the `references` dataset ones:
 * - on the dataset references as written, every distinct exit × valueSuffix × terms × space;
 * - on own references, on both, and on each stress-arm rewrite of the dataset references (alone and in
 *   'both'), the value term V alone with each alignment-free valueSuffix, both spaces, and the oracle
 *   'remaining' (prob space) where there are dataset references. The immediate term reads only the
 *   answers, which no rewrite and no reference source changes; I + V is left out there to keep the run's
 *   cost down (its reference-dependent part is V, scored alone).
 */
export function rredcotVariants(references: number, rewrites: readonly ReferenceRewrite[], ownLimit: number): RredcotVariant[] {
  const base = { referencePooling: 'sum', normalization: 'L1', maxReferences: references, emptyReferences: 'uniform' } as const;
  const out: RredcotVariant[] = [];
  const add = (name: string, config: RredcotConfigInput, refs: ReferenceSource, rewrite: RredcotVariant['rewrite']) =>
    out.push({
      name: `${name}${tail(refs, rewrite)}`,
      // N: every dataset reference and every own one (at most ownLimit, the G − 1 siblings) is kept
      config: {
        ...base,
        ...config,
        referenceSource: refs,
        maxReferences: (refs === 'own' ? 0 : references) + (refs === 'dataset' ? 0 : ownLimit),
      },
      refs,
      rewrite,
    });
  const alignment = (valueSuffix: (typeof SUFFIXES)[number]) => (valueSuffix === 'remaining' ? 'task' : 'none');
  for (const space of SPACES) {
    for (const exit of EXITS) add(`rredcot.${exit}.any.immediate.${space}`, { terms: 'immediate', exit, space }, 'dataset', 'canonical');
    for (const valueSuffix of SUFFIXES)
      add(
        `rredcot.any.${valueSuffix}.value.${space}`,
        { terms: 'value', valueSuffix, space, alignment: alignment(valueSuffix) },
        'dataset',
        'canonical',
      );
    for (const exit of EXITS)
      for (const valueSuffix of SUFFIXES)
        add(
          `rredcot.${exit}.${valueSuffix}.both.${space}`,
          { terms: 'immediatePlusValue', exit, valueSuffix, space, alignment: alignment(valueSuffix) },
          'dataset',
          'canonical',
        );
  }
  const arms: [ReferenceSource, RredcotVariant['rewrite']][] = [
    ...rewrites.map((w): [ReferenceSource, RredcotVariant['rewrite']] => ['dataset', w]),
    ['own', 'canonical'],
    ['both', 'canonical'],
    ...rewrites.map((w): [ReferenceSource, RredcotVariant['rewrite']] => ['both', w]),
  ];
  for (const [refs, rewrite] of arms) {
    for (const space of SPACES) {
      for (const valueSuffix of FREE_SUFFIXES)
        add(`rredcot.any.${valueSuffix}.value.${space}`, { terms: 'value', valueSuffix, space, alignment: 'none' }, refs, rewrite);
    }
    // the oracle on the same references: how much of its lead is the wording
    if (refs !== 'own')
      add(
        'rredcot.any.remaining.value.prob',
        { terms: 'value', valueSuffix: 'remaining', space: 'prob', alignment: 'task' },
        refs,
        rewrite,
      );
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
  signedPosition: (lengths: readonly number[], reward: number): number[] => signedPositionCredits(lengths.length, reward),
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
