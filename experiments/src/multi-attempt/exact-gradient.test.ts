import { MULTI_ATTEMPT_ARMS } from '@rred/training';
import { AttemptToy, armMoments, dot, maxAbsDiff, pairMean } from './exact-gradient';

/**
 * Bias tolerance: every quantity is a sum of at most a few hundred products of probabilities and weights of
 * magnitude ≤ 1, so floating-point error is ~1e-15; 1e-12 on the largest coordinate difference is "exact".
 */
const EXACT = 1e-12;

describe('multi-attempt attempt weights on the enumerable toy LM (K = 2)', () => {
  const toy = new AttemptToy();
  const grad = toy.exactGradient();
  const rollouts = toy.enumerate();
  const norm = Math.sqrt(dot(grad, grad));
  const J = toy.objective();

  it('the toy is a real two-attempt problem: both attempts matter and the rollout probabilities sum to 1', () => {
    expect(rollouts.reduce((s, r) => s + r.p, 0)).toBeCloseTo(1, 12);
    const first = rollouts.filter((r) => r.rewards[0] === 1).reduce((s, r) => s + r.p, 0);
    const success = rollouts.filter((r) => r.rewards[r.rewards.length - 1] === 1).reduce((s, r) => s + r.p, 0);
    expect(success).toBeCloseTo(J, 12);
    expect(first).toBeGreaterThan(0.05);
    expect(success - first).toBeGreaterThan(0.05); // the second attempt adds success
    expect(norm).toBeGreaterThan(1e-3);
  });

  it('the value-recursion gradient matches central finite differences of J (|Δ| ≤ 1e-8)', () => {
    const h = 1e-5;
    for (const i of [0, 1, 2, 7, 13, Math.floor(toy.dimension / 2), toy.dimension - 1]) {
      const fd = (toy.objective(new Map([[i, h]])) - toy.objective(new Map([[i, -h]]))) / (2 * h);
      expect(Math.abs(fd - grad[i])).toBeLessThan(1e-8);
    }
  });

  it("cal's expected gradient is ∇J within 1e-12 (population and critic baselines), naive-attempt's is not; variances reported", () => {
    const report: string[] = [
      `J = ${J.toFixed(6)}, ‖∇J‖ = ${norm.toExponential(4)}, ${toy.dimension} coordinates, ${rollouts.length} rollouts`,
    ];
    const bias: Record<string, number> = {};
    for (const arm of MULTI_ATTEMPT_ARMS) {
      for (const baseline of ['none', 'population', 'critic'] as const) {
        if (arm === 'cal-rredcot' || (baseline === 'critic' && arm !== 'cal')) continue; // σ inside an attempt needs a trace; a critic only for cal
        const m = armMoments(toy, rollouts, arm, baseline);
        const b = maxAbsDiff(m.mean, grad);
        bias[`${arm}/${baseline}`] = b;
        report.push(
          `${arm} (${baseline} baseline): max |E ĝ − ∇J| = ${b.toExponential(3)}, variance per rollout = ${m.variance.toFixed(6)}`,
        );
      }
    }
    console.log(report.join('\n'));
    expect(bias['cal/none']).toBeLessThan(EXACT);
    expect(bias['cal/population']).toBeLessThan(EXACT);
    expect(bias['cal/critic']).toBeLessThan(EXACT);
    expect(bias['grpo/population']).toBeLessThan(EXACT); // one advantage on the success-by-K reward is unbiased too
    expect(bias['naive-attempt/none']).toBeGreaterThan(1e-3 * norm);
    expect(bias['naive-attempt/population']).toBeGreaterThan(1e-3 * norm);
  });

  it("the trainer's group weights at G = 2 (every pair enumerated): cal unbiased, grpo scaled by (G − 1)/G, naive biased", () => {
    expect(maxAbsDiff(pairMean(toy, rollouts, 'cal'), grad)).toBeLessThan(EXACT);
    expect(maxAbsDiff(pairMean(toy, rollouts, 'grpo'), grad, 0.5)).toBeLessThan(EXACT);
    expect(maxAbsDiff(pairMean(toy, rollouts, 'naive-attempt'), grad)).toBeGreaterThan(1e-3 * norm);
  });
});
