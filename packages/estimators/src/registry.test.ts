import { Rng } from '@rred/core';
import { getEstimator } from './registry';
import { toyModel, toyReferences, toyReward, toySegments, toyTokens, toyTrace } from './testing/toy-setup';

describe('getEstimator', () => {
  it('runs every method by name with the common signature', async () => {
    const model = toyModel();
    const trace = toyTrace(model);
    // the alignment the default valueSuffix 'remaining' reads: the reference minus as many tokens as the thinking has
    const alignment = (thinking: readonly number[], solution: readonly number[]) =>
      solution.slice(Math.min(thinking.length, solution.length));
    const inputs = { tokens: toyTokens, references: { dataset: toyReferences }, reward: toyReward, alignment };
    for (const [name, config] of [
      ['rredcot', {}],
      ['mc', { samplesPerExitPoint: 3, maxNewTokens: 6 }],
      ['loo', {}],
      ['gradient', {}],
    ] as const) {
      const res = await getEstimator(name)(model, trace, toySegments, inputs, config, new Rng(1));
      expect(res.method).toBe(name);
      expect(res.credits).toHaveLength(toySegments.length);
      expect(res.credits.every(Number.isFinite)).toBe(true);
    }
  });
  it('names the allowed methods for an unknown one', () => {
    expect(() => getEstimator('shapley')).toThrow(/unknown estimator 'shapley': expected one of rredcot, mc, loo, gradient/);
  });
});
