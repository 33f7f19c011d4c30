/**
 * The reference set R = {(u*_j, y*_j)} of Eq. 9 with utility ζ > 0, built from explicit inputs: the
 * dataset's reference solutions, the model's own correct samples (Sec. 4, "Redistributing Reward
 * Using Model's Own Answer"), or both.
 */
import { UserError } from '@rred/core';
import type { Trace } from '@rred/lm';
import type { Reference, ReferenceInputs, SpecialTokens } from './types';

type ReferenceSource = 'dataset' | 'own' | 'both';

/**
 * Picks and de-duplicates references. The proposal q of Eq. 9 is uniform over *distinct* pairs, so an
 * identical (u*, y*) listed twice is kept once. Order: dataset pairs first, then own pairs; at most
 * `maxReferences` are kept. An empty result is returned as is: the caller decides what that means.
 */
export function buildReferenceSet(
  inputs: ReferenceInputs,
  source: ReferenceSource,
  tokens: SpecialTokens,
  maxReferences: number,
): Reference[] {
  const pools: Array<[string, Reference[] | undefined]> =
    source === 'dataset'
      ? [['dataset', inputs.dataset]]
      : source === 'own'
        ? [['own', inputs.own]]
        : [
            ['dataset', inputs.dataset],
            ['own', inputs.own],
          ];
  const seen = new Set<string>();
  const out: Reference[] = [];
  for (const [name, pool] of pools) {
    (pool ?? []).forEach((ref, i) => {
      checkReference(ref, `references.${name}[${i}]`, tokens);
      const key = `${ref.solution.join(',')}|${ref.answer.join(',')}`;
      if (seen.has(key) || out.length >= maxReferences) return;
      seen.add(key);
      out.push(ref);
    });
  }
  return out;
}

/** Distinct answers y* of R (Eq. 7 sums over distinct answers, so each is counted once). */
export function distinctAnswers(refs: readonly Reference[]): number[][] {
  const seen = new Set<string>();
  const out: number[][] = [];
  for (const r of refs) {
    const key = r.answer.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      out.push(r.answer);
    }
  }
  return out;
}

/**
 * The (thinking, answer) pair of a sampled trace, for use as an "own" reference; null unless the trace
 * is correct (reward > 0), closed its thinking and ended with `<eos>`.
 */
export function referenceFromTrace(trace: Trace, tokens: SpecialTokens): Reference | null {
  const c = trace.completion;
  if (!(trace.reward > 0) || trace.thinkEnd >= c.length || c[c.length - 1] !== tokens.eos) return null;
  return { solution: c.slice(0, trace.thinkEnd), answer: c.slice(trace.thinkEnd + 1, c.length - 1) };
}

/** Own references from a group of sampled traces (e.g. a GRPO group): the correct, finished ones. */
export function ownReferences(traces: readonly Trace[], tokens: SpecialTokens): Reference[] {
  return traces.map((t) => referenceFromTrace(t, tokens)).filter((r): r is Reference => r !== null);
}

function checkReference(ref: Reference, where: string, tokens: SpecialTokens): void {
  const ok = (xs: unknown) => Array.isArray(xs) && xs.every((t) => Number.isInteger(t) && t >= 0);
  if (!ref || !ok(ref.solution) || !ok(ref.answer)) {
    throw new UserError(`${where}: expected {solution: token ids, answer: token ids}`);
  }
  // A special token inside a reference would make the scored suffix a different sequence than Eq. 9 describes.
  for (const [field, xs] of [
    ['solution', ref.solution],
    ['answer', ref.answer],
  ] as const) {
    const bad = xs.findIndex((t) => t === tokens.endThink || t === tokens.eos);
    if (bad >= 0) throw new UserError(`${where}.${field}[${bad}]: contains </think> or <eos> (${xs[bad]}); pass the bare tokens`);
  }
  if (ref.answer.length === 0) throw new UserError(`${where}.answer: is empty; a reference needs its answer tokens`);
}

/**
 * Whether every value suffix u* `</think>` y* `<eos>` of `refs` fits after the trace's whole thinking
 * (its last exit point) within `maxLength` tokens: the traces an experiment can score with RREDCoT
 * without the `overlong` fallback.
 */
export function referencesFit(trace: Pick<Trace, 'prompt' | 'thinkEnd'>, refs: readonly Reference[], maxLength: number): boolean {
  const longest = Math.max(0, ...refs.map((r) => r.solution.length + r.answer.length + 2));
  return trace.prompt.length + trace.thinkEnd + longest <= maxLength;
}
