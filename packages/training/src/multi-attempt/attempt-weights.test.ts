import { attemptReturns, attemptWeights, successByK } from './attempt-weights';

describe('attempt weights (Eq. M1–M9)', () => {
  it('success by K and the returns each arm weights by', () => {
    expect(successByK([0, 0, 1])).toBe(1);
    expect(successByK([0, 0, 0])).toBe(0);
    expect(attemptReturns('cal', [0, 1])).toEqual([1, 1]);
    expect(attemptReturns('naive-attempt', [0, 1])).toEqual([0, 1]);
    expect(() => attemptReturns('cal', [1, 0])).toThrow(/succeeded but the rollout went on/);
    expect(() => attemptReturns('cal', [0.5])).toThrow(/0 or 1/);
  });

  it('a hand-computed group of 3: leave-one-out baselines per attempt, with the fall-back', () => {
    // rollouts: A = [1] (first attempt), B = [0, 1] (second), C = [0, 0] (failed twice); S = 1, 1, 0
    const group = [[1], [0, 1], [0, 0]];
    // cal: A: b_1 = mean(S_B, S_C) = 0.5 → 0.5. B: b_1 = mean(1, 0) = 0.5, b_2 = S_C (only C reached 2) = 0 → [0.5, 1].
    // C: b_1 = mean(1, 1) = 1, b_2 = S_B = 1 → [−1, −1].
    expect(attemptWeights('cal', group, 3)).toEqual([[0.5], [0.5, 1], [-1, -1]]);
    // naive: returns A [1], B [0, 1], C [0, 0]. A: b_1 = mean(0, 0) = 0 → 1. B: b_1 = mean(1, 0) = 0.5, b_2 = r_2 of C = 0
    // → [−0.5, 1]. C: b_1 = mean(1, 0) = 0.5, b_2 = r_2 of B = 1 → [−0.5, −1].
    expect(attemptWeights('naive-attempt', group, 3)).toEqual([[1], [-0.5, 1], [-0.5, -1]]);
    // grpo: S − mean(S) = 1 − 2/3 on every attempt of A and B, −2/3 on C's
    const g = attemptWeights('grpo', group, 3);
    expect(g[0][0]).toBeCloseTo(1 / 3, 12);
    expect(g[1]).toEqual([g[0][0], g[0][0]]);
    expect(g[2][1]).toBeCloseTo(-2 / 3, 12);
  });

  it('fall-back: when no other rollout reached attempt k, b_k = b_{k−1}', () => {
    // A = [0, 0, 1] alone reaches attempts 2 and 3; others [1], [1]: b_1 = 1 for A, then kept
    expect(attemptWeights('cal', [[0, 0, 1], [1], [1]], 3)[0]).toEqual([0, 0, 0]);
  });
});
