/**
 * Per-problem accuracy estimators over n sampled completions of one problem. Every function takes the
 * per-sample verifier rewards (1 correct, 0 not) and returns a value in [0, 1]; a dataset score is the
 * mean over problems (see `aggregate.ts`).
 */
import { mean } from '@rred/core';

/** avg@k: mean correctness of the first k samples (the expected accuracy of a single sample). */
export function avgAtK(correct: readonly number[], k: number): number {
  checkK(correct.length, k, 'avg@k');
  return mean(correct.slice(0, k));
}

/**
 * pass@k, unbiased estimator from n ≥ k samples with c correct (Chen et al. 2021):
 * 1 − C(n−c, k) / C(n, k), computed as 1 − Π_{i=n−c+1..n} (1 − k/i) to stay stable for large n.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkK(n, k, 'pass@k');
  if (!Number.isInteger(c) || c < 0 || c > n) throw new RangeError(`pass@k: correct count ${c} must be an integer in 0..${n}`);
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}

/**
 * maj@k: 1 when the most frequent answer among the first k samples is correct. Samples without an
 * answer (null) do not vote; ties go to the answer that reached the top count first in sample order
 * (deterministic); no votes at all scores 0.
 */
export function majAtK(answers: readonly (string | null)[], correct: readonly number[], k: number): number {
  checkK(answers.length, k, 'maj@k');
  if (correct.length !== answers.length) throw new RangeError(`maj@k: ${answers.length} answers but ${correct.length} rewards`);
  const counts = new Map<string, number>();
  let best: string | null = null;
  let bestCount = 0;
  let bestCorrect = 0;
  for (let i = 0; i < k; i++) {
    const a = answers[i];
    if (a === null) continue;
    const count = (counts.get(a) ?? 0) + 1;
    counts.set(a, count);
    if (count > bestCount) {
      best = a;
      bestCount = count;
      bestCorrect = correct[i];
    }
  }
  return best === null ? 0 : bestCorrect;
}

function checkK(n: number, k: number, what: string): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`${what}: k must be an integer ≥ 1, got ${k}`);
  if (n < k) throw new RangeError(`${what}: needs at least k = ${k} samples per problem, got ${n}`);
}
