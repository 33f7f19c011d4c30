/**
 * Attempt weights of the multi-attempt arms (packages/training/README.md, "Several attempts", Eq. M1–M9).
 * A rollout's per-attempt verifier rewards r_1..r_τ are 0 except perhaps the last: it stops at the first
 * correct attempt or after K.
 */
import { groupAdvantages } from '../advantages';

export const MULTI_ATTEMPT_ARMS = ['grpo', 'naive-attempt', 'cal', 'cal-rredcot'] as const;
export type MultiAttemptArm = (typeof MULTI_ATTEMPT_ARMS)[number];

/** Per-attempt rewards r_1..r_τ of one rollout (each 0 or 1; only the last may be 1). */
type AttemptRewards = readonly number[];

/** S = 1 − Π_{k ≤ τ}(1 − r_k) (Eq. M1): success by K, the Verification@K reward of one rollout. */
export function successByK(rewards: AttemptRewards): number {
  return 1 - rewards.reduce((p, r) => p * (1 - r), 1); // Eq. M1
}

/**
 * What each attempt k ≤ τ is weighted by before its baseline, length τ:
 * - grpo, cal, cal-rredcot: S on every attempt (the causal reward-to-go G_k = Σ_{j ≥ k} r_j = S, Eq. M4; unbiased, Eq. M7);
 * - naive-attempt: r_k, the attempt's own pass/fail (Eq. M5; biased by Eq. M6).
 */
export function attemptReturns(arm: MultiAttemptArm, rewards: AttemptRewards): number[] {
  checkRewards(rewards);
  if (arm === 'naive-attempt') return rewards.slice(); // Eq. M5
  const s = successByK(rewards);
  return rewards.map(() => s); // Eq. M4, M7
}

/**
 * Which rollouts an attempt's baseline pools: 'all' (grpo: one group mean for every attempt) or 'reached'
 * (the other arms: the rollouts that made attempt k, Eq. M8).
 */
export function baselinePool(arm: MultiAttemptArm): 'all' | 'reached' {
  return arm === 'grpo' ? 'all' : 'reached';
}

/**
 * Leave-one-out attempt-level baselines of rollout i in its group (Eq. M8): b_{i,k} = mean of the k-th
 * attempt return over the other rollouts that reached attempt k; when none did, b_{i,k−1}. Length τ_i.
 * Never reads rollout i itself, so Eq. M7 stays unbiased for any group size ≥ 2.
 */
function leaveOneOutBaselines(arm: MultiAttemptArm, group: readonly AttemptRewards[], i: number): number[] {
  const returns = group.map((r) => attemptReturns(arm, r));
  const out: number[] = [];
  for (let k = 0; k < group[i].length; k++) {
    let sum = 0;
    let n = 0;
    returns.forEach((ret, j) => {
      if (j !== i && ret.length > k) {
        sum += ret[k];
        n += 1;
      }
    });
    out.push(n > 0 ? sum / n : k > 0 ? out[k - 1] : 0); // Eq. M8 (and its fall-back)
  }
  return out;
}

/**
 * Attempt weights of every rollout of a batch laid out group by group, before the step's scale s (Eq. M9):
 * - grpo: S_i − mean_group S (GRPO's own group mean, the rollout included; `groupAdvantages` with no scaling), every attempt;
 * - naive-attempt, cal, cal-rredcot: return_{i,k} − b_{i,k} with the leave-one-out baselines of Eq. M8.
 * out[i][k] for k < τ_i.
 */
export function attemptWeights(arm: MultiAttemptArm, rewards: readonly AttemptRewards[], groupSize: number): number[][] {
  if (arm === 'grpo') {
    const a = groupAdvantages(rewards.map(successByK), groupSize, 'none');
    return rewards.map((r, i) => r.map(() => a[i]));
  }
  if (rewards.length % groupSize !== 0) throw new RangeError(`${rewards.length} rollouts do not split into groups of ${groupSize}`);
  return rewards.map((r, i) => {
    const start = i - (i % groupSize);
    const group = rewards.slice(start, start + groupSize);
    const b = leaveOneOutBaselines(arm, group, i - start);
    return attemptReturns(arm, r).map((x, k) => x - b[k]); // Eq. M7, M8
  });
}

function checkRewards(rewards: AttemptRewards): void {
  if (rewards.length === 0) throw new RangeError('a rollout has at least one attempt');
  rewards.forEach((r, k) => {
    if (r !== 0 && r !== 1) throw new RangeError(`attempt ${k + 1}'s reward must be 0 or 1, got ${r}`);
    if (r === 1 && k < rewards.length - 1) throw new RangeError(`attempt ${k + 1} succeeded but the rollout went on to attempt ${k + 2}`);
  });
}
