import { Rng } from '@rred/core';
import { exactValue } from './enumerate';
import { toyModel, toyReward, toyTokens } from './toy-setup';

describe('EnumerableLM (test double)', () => {
  const model = toyModel();
  it('has normalized, context-dependent next-token distributions', () => {
    const a = model.nextLogProbs([0, 1]);
    const b = model.nextLogProbs([1, 0]);
    expect(a.reduce((s, x) => s + Math.exp(x), 0)).toBeCloseTo(1, 12);
    expect(a).not.toEqual(b);
  });
  it('scores suffixes as products of its table probabilities', async () => {
    const res = await model.scoreAfterPrefixes(
      [0, 2, 1, 0],
      [
        { exitAt: 3, suffix: [2, 3] },
        { exitAt: 4, suffix: [4] },
      ],
    );
    expect(res.logprobs[0][0] + res.logprobs[0][1]).toBeCloseTo(model.sequenceLogProb([0, 2, 1], [2, 3]), 12);
    expect(res.logprobs[1][0]).toBeCloseTo(model.nextLogProbs([0, 2, 1, 0])[4], 12);
    expect(res.cost).toEqual({ tokensForwarded: 4 + 3, tokensGenerated: 0, forwardPasses: 1 });
  });
  it('samples first tokens with the table frequencies (4 sd tolerance)', async () => {
    const n = 4000;
    const { results } = await model.sample(
      Array.from({ length: n }, () => [0, 2]),
      { temperature: 1, topP: 1, maxNewTokens: 1, stopToken: 4 },
      new Rng(5),
    );
    const p = model.nextLogProbs([0, 2]).map(Math.exp);
    for (let v = 0; v < 5; v++) {
      const freq = results.filter((r) => r.tokens[0] === v).length / n;
      expect(Math.abs(freq - p[v])).toBeLessThan(4 * Math.sqrt((p[v] * (1 - p[v])) / n));
    }
  });
  it('enumerates: the chance to stop within M equals 1 − P(still running at M)', () => {
    const always = () => 1;
    const stopWithin6 = exactValue(model, [0, 2], 6, always, toyTokens);
    expect(stopWithin6).toBeGreaterThan(0);
    expect(stopWithin6).toBeLessThan(1);
    expect(exactValue(model, [0, 2], 7, always, toyTokens)).toBeGreaterThan(stopWithin6);
    const v = exactValue(model, [0, 2], 6, toyReward, toyTokens);
    expect(v).toBeGreaterThan(0.02);
    expect(v).toBeLessThan(stopWithin6);
  });
});
