/**
 * The value term V(s_k) of RREDCoT (Eq. 9): what is scored after an exit point for each reference
 * pair (u*_j, y*_j), and how the scores combine into log V(s_k).
 *
 * `valueSuffix` says which part of the reference path u*_j is scored after s_k:
 * - 'full': the whole path, u*_j `</think>` y*_j `<eos>` (Eq. 9 read literally; a model that never
 *   restarts a solution scores it near zero once it has written a few lines);
 * - 'remaining' (an ORACLE bound): the part of u*_j whose subgoals the trace has not reached, as the
 *   task's alignment (inputs.alignment) says. It reads the task's structure and the correct values of
 *   the lines still to come, which a free-text chain of thought does not have;
 * - 'bestStart': max over the reference's own line starts i of p(u*_j[i..] `</think>` y*_j `<eos>` | s_k):
 *   the best place to join the reference from here. The reference is split at its own line breaks
 *   (tokens.newline); nothing looks at the trace. It assumes the trace, where it is right, is somewhere
 *   along the reference's path (a "not atypical" reference, Sec. 3.2.0.1);
 * - 'softStart': log (1/S) Σ_i p(u*_j[i..] `</think>` y*_j `<eos>` | s_k) over the S line starts: the
 *   marginal over where the trace stands in the reference, under a uniform prior. It assumes the same as
 *   bestStart, without committing to one place.
 * Both start rules include the start after the last line (nothing left: `</think>` y*_j `<eos>`).
 *
 * Pooling over the N references (`referencePooling`): 'literal' V = (1/N) Σ_j V_j (Eq. 9 as printed);
 * 'sum' V = Σ over distinct value suffixes ('full', 'remaining') or distinct references (start rules).
 * Cost at one exit point: 'full' and 'remaining' one suffix per reference; the start rules S suffixes per
 * reference, of lengths |u*_j| − start_i + |y*_j| + 2, so about (S/2)·|u*_j| tokens per reference.
 */
import { UserError } from '@rred/core';
import { logMeanExp, logSumExp, sumLogprobs } from './logspace';
import type { EstimatorInputs, Reference } from './types';

type ValueSuffix = 'full' | 'remaining' | 'bestStart' | 'softStart';
type ReferencePooling = 'literal' | 'sum';

/** The value suffixes scored at one exit point and which reference group each belongs to. */
export interface ValueRequests {
  /** Token ids of each suffix, `… </think> y* <eos>`. [S][len] */
  suffixes: number[][];
  /** group[i]: the reference group of suffix i (0..groupCount−1); a group's suffixes are combined by the start rule. */
  group: number[];
  groupCount: number;
}

/** Positions in `solution` where a line starts: 0, each position after a line break, and the end (nothing left). */
export function lineStarts(solution: readonly number[], newline: number): number[] {
  const starts = [0];
  solution.forEach((t, i) => {
    if (t === newline && i + 1 > starts[starts.length - 1]) starts.push(i + 1);
  });
  if (starts[starts.length - 1] !== solution.length) starts.push(solution.length);
  return starts;
}

/**
 * The value suffixes at the exit point whose thinking so far is `thinking`. `alignment` is called only
 * for 'remaining' (the start rules and 'full' never look at the task or at the trace).
 */
export function valueRequests(
  refs: readonly Reference[],
  thinking: readonly number[],
  inputs: EstimatorInputs,
  valueSuffix: ValueSuffix,
  pooling: ReferencePooling,
): ValueRequests {
  const { endThink, eos } = inputs.tokens;
  const close = (path: readonly number[], r: Reference) => [...path, endThink, ...r.answer, eos];
  if (valueSuffix === 'bestStart' || valueSuffix === 'softStart') {
    const newline = inputs.tokens.newline;
    if (newline === undefined) {
      throw new UserError(`rredcot: valueSuffix '${valueSuffix}' needs tokens.newline (the token that separates reference lines)`);
    }
    const suffixes: number[][] = [];
    const group: number[] = [];
    // references are distinct pairs already (buildReferenceSet), so 'sum' and 'literal' group them alike
    refs.forEach((r, j) => {
      for (const start of lineStarts(r.solution, newline)) {
        suffixes.push(close(r.solution.slice(start), r));
        group.push(j);
      }
    });
    return { suffixes, group, groupCount: refs.length };
  }
  const paths = refs.map((r) => {
    if (valueSuffix === 'full') return close(r.solution, r);
    if (!inputs.alignment) throw new UserError("rredcot: valueSuffix 'remaining' needs inputs.alignment (the task's subgoal alignment)");
    return close(inputs.alignment(thinking, r.solution), r);
  });
  // 'sum': identical suffixes (e.g. the remaining part of two orders that agree from here) are one continuation
  const kept = pooling === 'literal' ? paths : paths.filter((s, i) => paths.findIndex((t) => sameTokens(s, t)) === i);
  return { suffixes: kept, group: kept.map((_, i) => i), groupCount: kept.length };
}

/**
 * log V(s_k) from the per-token log-probabilities of the value suffixes at one exit point (Eq. 9): the
 * start rule inside each reference group, then the pooling over groups. `referenceCount` is N.
 */
export function logValue(
  logprobs: readonly (readonly number[])[],
  requests: ValueRequests,
  valueSuffix: ValueSuffix,
  pooling: ReferencePooling,
  referenceCount: number,
): number {
  const byGroup: number[][] = Array.from({ length: requests.groupCount }, () => []);
  logprobs.forEach((lp, i) => byGroup[requests.group[i]].push(sumLogprobs(lp)));
  const perReference = byGroup.map((scores) =>
    valueSuffix === 'bestStart' ? Math.max(...scores) : valueSuffix === 'softStart' ? logMeanExp(scores) : logSumExp(scores),
  );
  return logSumExp(perReference) - (pooling === 'literal' ? Math.log(referenceCount) : 0);
}

function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
