import { Rng, UserError } from '@rred/core';
import { toyModel, toySegments, toyTokens, toyTrace } from '../testing/toy-setup';
import type { HiddenStateModel } from './hidden-states';
import { exitPointFeatures, fitValueHead, predictValue, valueHeadEstimate } from './value-head';

describe('value head (optional baseline)', () => {
  it('recovers a logistic model from soft targets', () => {
    const rng = new Rng(4);
    const trueW = [1.5, -2, 0.5];
    const features = Array.from({ length: 400 }, () => [rng.normal(), rng.normal() * 3 + 1, rng.normal()]);
    const logit = (f: number[]) => 0.3 + trueW[0] * f[0] + (trueW[1] * (f[1] - 1)) / 3 + trueW[2] * f[2];
    const targets = features.map((f) => 1 / (1 + Math.exp(-logit(f))));
    const head = fitValueHead(features, targets, { steps: 3000, learningRate: 1, l2: 0 });
    const err = features.reduce((a, f, i) => a + Math.abs(predictValue(head, f) - targets[i]), 0) / features.length;
    expect(err).toBeLessThan(0.01);
    // and it must clearly beat predicting the mean target everywhere
    const meanT = targets.reduce((a, b) => a + b, 0) / targets.length;
    const base = targets.reduce((a, t) => a + Math.abs(t - meanT), 0) / targets.length;
    expect(err).toBeLessThan(base / 5);
  });

  it('reads features at the last token of every exit point and credits value differences', async () => {
    const seen: number[][] = [];
    const fake: HiddenStateModel = {
      dim: 2,
      async hiddenStates(sequence, positions) {
        seen.push(positions);
        return {
          states: positions.map((p) => [p, sequence[p]]),
          cost: { tokensForwarded: sequence.length, tokensGenerated: 0, forwardPasses: 1 },
        };
      },
    };
    const trace = toyTrace(toyModel());
    const { features } = await exitPointFeatures(fake, trace, toySegments, toyTokens);
    expect(seen[0]).toEqual([1, 3, 4, 6]); // exitAt − 1 for exitAt = [2, 4, 5, 7]
    const head = fitValueHead(features, [0.1, 0.3, 0.2, 0.8], { steps: 50 });
    const res = await valueHeadEstimate(fake, head, trace, toySegments, toyTokens);
    expect(res.values).toHaveLength(4);
    res.credits.forEach((r, i) => expect(r).toBeCloseTo(res.values![i + 1] - res.values![i], 12));
    expect(res.cost.tokensForwarded).toBe(7);
  });

  it('rejects bad targets, mismatched heads and unknown config keys', async () => {
    expect(() => fitValueHead([[1]], [1.5])).toThrow(/target 0 is 1.5/);
    expect(() => fitValueHead([[1]], [])).toThrow(UserError);
    expect(() => fitValueHead([[1]], [0.5], { stepz: 3 } as never)).toThrow(/stepz/);
    const fake: HiddenStateModel = {
      dim: 3,
      hiddenStates: async () => ({ states: [], cost: { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 } }),
    };
    await expect(valueHeadEstimate(fake, fitValueHead([[1]], [0.5]), toyTrace(toyModel()), toySegments, toyTokens)).rejects.toThrow(
      /1 weights, model features have 3/,
    );
  });
});
