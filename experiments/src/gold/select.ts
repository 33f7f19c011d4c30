/** Stratified choice of the benchmark's traces: the first correct and the first wrong rollouts, in problem order. */
import { UserError } from '@rred/core';

interface Candidate {
  /** ζ of the rollout (> 0: correct). */
  reward: number;
  /** The last exit point plus the reference fit the context (every method can score it). */
  fits: boolean;
}

interface Selection {
  /** Indices into the candidates, in candidate order. */
  indices: number[];
  /** Candidates left out because they did not fit, among those looked at before the quotas were full. */
  skippedOverlong: number;
}

/**
 * The indices of the first `correct` correct and the first `wrong` wrong candidates that fit, in
 * candidate order; a UserError naming the counts when the candidates run out (raise `problems`).
 */
export function selectStratified(candidates: readonly Candidate[], quota: { correct: number; wrong: number }, what: string): Selection {
  const indices: number[] = [];
  let correct = 0;
  let wrong = 0;
  let skippedOverlong = 0;
  for (let i = 0; i < candidates.length && (correct < quota.correct || wrong < quota.wrong); i++) {
    const c = candidates[i];
    const isCorrect = c.reward > 0;
    if ((isCorrect && correct >= quota.correct) || (!isCorrect && wrong >= quota.wrong)) continue;
    if (!c.fits) {
      skippedOverlong++;
      continue;
    }
    indices.push(i);
    if (isCorrect) correct++;
    else wrong++;
  }
  if (correct < quota.correct || wrong < quota.wrong) {
    throw new UserError(
      `${what}: ${candidates.length} rollouts gave ${correct} correct and ${wrong} wrong usable traces; traces.correct ${quota.correct} and traces.wrong ${quota.wrong} ` +
        'were asked for (raise problems)',
    );
  }
  return { indices, skippedOverlong };
}
