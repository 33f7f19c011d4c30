/**
 * The search's choice, from the validation curves of its children alone (pure; the compute and the
 * renderer call the same function on the same stored curves, so the table shows the choice that ran).
 * Score of a run: its validation avg@k averaged over the last `lastPoints` validation points (less noisy
 * than the last point alone on 64 problems × k samples). Score of a candidate: the mean over its seeds.
 * The best score wins; a tie goes to the candidate listed first (the smaller lr of an ascending grid).
 */
import { mean } from '@rred/core';
import type { CurvePoint } from './curves';
import type { Choices, SearchCandidate } from './plan';

/** Mean validation avg@k over the last `lastPoints` points of one run (by step); NaN for an empty curve. */
export function runScore(curve: readonly CurvePoint[], lastPoints: number): number {
  const sorted = [...curve].sort((a, b) => a.step - b.step);
  return sorted.length === 0 ? NaN : mean(sorted.slice(-lastPoints).map((p) => p.avg));
}

export interface ScoredCandidate {
  candidate: SearchCandidate;
  /** runScore per seed, in the candidate's seed order (NaN where a child has not finished). */
  perSeed: number[];
  /** Mean over seeds (NaN until every child finished). */
  score: number;
  chosen: boolean;
}

/**
 * Scores every candidate; within each (test bed, method, what varies) group whose children all finished,
 * marks the best and records it in the returned choices. `curveOf(key)`: a FINISHED child's validation
 * curve, or null.
 */
export function chooseSettings(
  candidates: readonly SearchCandidate[],
  curveOf: (key: string) => readonly CurvePoint[] | null,
  lastPoints: number,
): { choices: Choices; scored: ScoredCandidate[] } {
  const scored: ScoredCandidate[] = candidates.map((candidate) => {
    const perSeed = candidate.plans.map((p) => {
      const curve = curveOf(p.key);
      return curve ? runScore(curve, lastPoints) : NaN;
    });
    return { candidate, perSeed, score: perSeed.some(Number.isNaN) ? NaN : mean(perSeed), chosen: false };
  });
  const choices: Choices = {};
  const groups = new Map<string, ScoredCandidate[]>();
  for (const s of scored) {
    const k = `${s.candidate.testBed}\0${s.candidate.method}\0${s.candidate.varies}`;
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  for (const group of groups.values()) {
    if (group.some((s) => Number.isNaN(s.score))) continue;
    const best = group.reduce((a, b) => (b.score > a.score ? b : a));
    best.chosen = true;
    const { testBed, method, setting } = best.candidate;
    choices[testBed] = { ...choices[testBed], [method]: setting };
  }
  return { choices, scored };
}
