/**
 * Sample → segment → estimate → token weights → store rows, across @rred/segmentation and
 * @rred/estimators, on the enumerable toy LM (exact ground truth available).
 */
import { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import { getEstimator, ownReferences, rredcotPresets, toStoreRows, tokenWeights } from '@rred/estimators';
import { segment, segmentationConfig } from '@rred/segmentation';
import { exactAnswerReward, exactValue, toyModel } from '@rred/estimators/testing';

// token 2 is the line break ('\n' in tokenText): the dataset preset's softStart rule splits references at it
const tokens = { endThink: 3, eos: 4, newline: 2 };
const accepted = [[1], [0, 1]];
const reward = exactAnswerReward(accepted, tokens);
const model = toyModel(11, 40);
const prompt = [0, 2];
const tokenText = ['a', 'b', '\n', '</think>', '<eos>'];
const datasetRefs = [
  { solution: [1, 0], answer: [1] },
  { solution: [2], answer: [0, 1] },
];

async function sampleTraces(n: number): Promise<Trace[]> {
  const { results } = await model.sample(
    Array.from({ length: n }, () => prompt),
    { temperature: 1, topP: 1, maxNewTokens: 14, stopToken: tokens.eos },
    new Rng(99),
  );
  return results.map((r, i) => {
    const close = r.tokens.indexOf(tokens.endThink);
    const thinkEnd = close < 0 ? r.tokens.length : close;
    const z = reward(r.tokens, !r.truncated);
    return {
      problemId: `toy-${i}`,
      prompt,
      completion: r.tokens,
      logprobs: r.logprobs,
      entropies: r.entropies,
      thinkEnd,
      answer: null,
      reward: z,
      text: '',
    };
  });
}

describe('estimators on segmented sampled traces', () => {
  let traces: Trace[];
  beforeAll(async () => {
    traces = (await sampleTraces(60)).filter((t) => t.thinkEnd >= 3);
  });

  it('produces consistent results for every method on every trace', async () => {
    expect(traces.length).toBeGreaterThan(5);
    const group = ownReferences(traces, tokens);
    expect(group.length).toBeGreaterThan(0);
    for (const trace of traces.slice(0, 8)) {
      const segments = segment(trace, segmentationConfig({ strategy: 'entropy', maxSegments: 3 }), tokenText);
      const K = segments.length;
      // a toy subgoal alignment (for valueSuffix 'remaining'; the dataset preset's softStart never reads it): the reference minus as many tokens as the thinking has
      const alignment = (thinking: readonly number[], solution: readonly number[]) =>
        solution.slice(Math.min(thinking.length, solution.length));
      const inputs = { tokens, references: { dataset: datasetRefs, own: group }, reward, alignment };
      const sequence = [...trace.prompt, ...trace.completion];
      const exitAt = [2, ...segments.map((s) => 2 + s.end)];

      const rr = await getEstimator('rredcot')(model, trace, segments, inputs, { terms: 'immediate' });
      expect(rr.credits).toHaveLength(K);
      // I(s_k) is the probability of a subset of the correct continuations: never above the truth (Eq. 10)
      rr.values!.forEach((v, k) =>
        expect(v).toBeLessThanOrEqual(exactValue(model, sequence.slice(0, exitAt[k]), 6, reward, tokens) + 1e-12),
      );

      const own = await getEstimator('rredcot')(model, trace, segments, inputs, rredcotPresets.own);
      const w = tokenWeights(trace, segments, own.sigma!);
      expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);

      const ds = await getEstimator('rredcot')(model, trace, segments, inputs, { ...rredcotPresets.dataset, normalization: 'uniform' });
      // uniform σ reproduces GRPO: coefficient σ_t · |o| = 1 on every token
      tokenWeights(trace, segments, ds.sigma!).forEach((x) => expect(x * trace.completion.length).toBeCloseTo(1, 12));

      const mc = await getEstimator('mc')(model, trace, segments, inputs, { samplesPerExitPoint: 10, maxNewTokens: 8 }, new Rng(5));
      mc.values!.forEach((v) => expect(v >= 0 && v <= 1).toBe(true));
      const loo = await getEstimator('loo')(model, trace, segments, inputs, {});
      const grad = await getEstimator('gradient')(model, trace, segments, inputs, {});
      for (const res of [mc, loo, grad]) {
        expect(res.credits).toHaveLength(K);
        expect(res.credits.every(Number.isFinite)).toBe(true);
      }
      expect(toStoreRows(rr).rows).toHaveLength(K + 1);
      expect(toStoreRows(loo).rows).toHaveLength(K);
    }
  });
});
