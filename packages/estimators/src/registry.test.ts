import { Rng } from '@rred/core';
import { estimatorEntry, estimatorMethods, getEstimator } from './registry';
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
  it('estimateMany equals estimate trace by trace, and RREDCoT flags a fallback with its reason', async () => {
    const model = toyModel();
    const trace = toyTrace(model);
    const alignment = (thinking: readonly number[], solution: readonly number[]) =>
      solution.slice(Math.min(thinking.length, solution.length));
    const inputs = { tokens: toyTokens, references: { dataset: toyReferences }, reward: toyReward, alignment };
    const config = { samplesPerExitPoint: 2, maxNewTokens: 6 };
    const items = [0, 1].map((i) => ({ trace, segments: toySegments, inputs, rng: new Rng(i) }));
    const many = await estimatorEntry('mc').estimateMany(model, items, config);
    for (const i of [0, 1])
      expect(many[i].credits).toEqual((await getEstimator('mc')(model, trace, toySegments, inputs, config, new Rng(i))).credits);
    const rr = estimatorEntry('rredcot');
    expect(rr.readsSamplerCache).toBe(true);
    expect(estimatorMethods.filter((m) => estimatorEntry(m).readsSamplerCache)).toEqual(['rredcot']);
    const noRefs = { ...inputs, references: {} };
    const [ok, empty] = await rr.estimateMany(
      model,
      [
        { trace, segments: toySegments, inputs },
        { trace, segments: toySegments, inputs: noRefs },
      ],
      { emptyReferences: 'uniform' },
    );
    expect(ok.fallback).toBeUndefined();
    expect(ok.credits).toEqual((await getEstimator('rredcot')(model, trace, toySegments, inputs, {})).credits);
    expect(empty.fallback).toBe('noReferences');
    // the overlong option replaces the config's: a tiny context makes every suffix overflow
    const short = toyModel(11, 8);
    const [over] = await rr.estimateMany(short, [{ trace: toyTrace(short), segments: toySegments, inputs }], {}, { overlong: 'uniform' });
    expect(over.fallback).toBe('overlong');
    await expect(
      rr.estimateMany(short, [{ trace: toyTrace(short), segments: toySegments, inputs }], {}, { overlong: 'error' }),
    ).rejects.toThrow(/exceeds the model's maxLength 8/);
  });
});
