import { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import { parseRredcotConfig, rredcotPresets } from '@rred/estimators';
import { EnumerableLM, exactAnswerReward } from '@rred/estimators/testing';
import { segmentationConfig } from '@rred/segmentation';
import { estimatorRedistribution } from './estimator-hook';

// The estimators' enumerable toy LM: ids a=0, b=1, '\n'=2, </think>=3, <eos>=4.
const tokens = { endThink: 3, eos: 4 };
const reward = exactAnswerReward([[1], [0, 1]], tokens);
const model = new EnumerableLM({
  vocabSize: 5,
  tokens,
  seed: 11,
  scale: 3,
  bias: [0, 0.6, 0, 0.3, -1.5],
  eosBiasAfterThink: 2,
  maxLength: 40,
});
const tokenText = (id: number) => ['a', 'b', '\n', '</think>', '<eos>'][id];

async function traces(n: number): Promise<Trace[]> {
  const { results } = await model.sample(
    Array.from({ length: n }, () => [0, 2]),
    { temperature: 1, topP: 1, maxNewTokens: 14, stopToken: 4 },
    new Rng(99),
  );
  return results.map((r) => {
    const close = r.tokens.indexOf(3);
    // one problem: all traces are a single GRPO group, so correct ones serve as own references
    return {
      problemId: 'toy',
      prompt: [0, 2],
      completion: r.tokens,
      logprobs: r.logprobs,
      entropies: r.entropies,
      thinkEnd: close < 0 ? r.tokens.length : close,
      answer: null,
      reward: reward(r.tokens, !r.truncated),
      text: '',
    };
  });
}

describe('estimatorRedistribution', () => {
  it('gives every completion token a weight; softmax σ sums to 1; A = 0 stays uniform', async () => {
    const ts = (await traces(16)).filter((t) => t.completion.length > 0);
    expect(ts.some((t) => t.reward > 0)).toBe(true);
    const hook = estimatorRedistribution({
      method: 'rredcot',
      model,
      segmentation: segmentationConfig({ strategy: 'entropy', maxSegments: 3 }),
      tokenText,
      estimatorConfig: rredcotPresets.own,
      tokens,
    });
    const advantages = ts.map((t, i) => (i === 0 ? 0 : t.reward - 0.5));
    const sigma = await hook(ts, { step: 0, rng: new Rng(1), advantages });
    expect(sigma).toHaveLength(ts.length);
    sigma.forEach((row, i) => {
      expect(row).toHaveLength(ts[i].completion.length);
      row.forEach((s) => expect(s).toBeGreaterThanOrEqual(0)); // softmax weights are positive
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10); // return equivalence
    });
    expect(sigma[0]).toEqual(ts[0].completion.map(() => 1 / ts[0].completion.length));
    // a trace with several thinking segments and a nonzero advantage gets non-uniform weights
    const varied = sigma.slice(1).some((row) => new Set(row.map((x) => x.toFixed(12))).size > 1);
    expect(varied).toBe(true);
  });

  it('scores every estimated trace of the batch in one batched model call and counts traces that fall back', async () => {
    const ts = (await traces(16)).filter((t) => t.completion.length > 0 && t.thinkEnd > 1);
    const counting = new EnumerableLM({
      vocabSize: 5,
      tokens,
      seed: 11,
      scale: 3,
      bias: [0, 0.6, 0, 0.3, -1.5],
      eosBiasAfterThink: 2,
      maxLength: 40,
    });
    const advantages = ts.map((_, i) => (i % 4 === 0 ? 0 : 1));
    // a dataset reference whose value suffix (u* </think> y* <eos>) fits after the shorter half of the thinking only
    const exitLengths = ts
      .filter((_, i) => advantages[i] !== 0)
      .map((t) => t.prompt.length + t.thinkEnd)
      .sort((a, b) => a - b);
    const threshold = exitLengths[Math.floor(exitLengths.length / 2)];
    expect(exitLengths[exitLengths.length - 1]).toBeGreaterThan(threshold);
    const solution = new Array(40 - threshold - 3).fill(1);
    const hook = estimatorRedistribution({
      method: 'rredcot',
      model: counting,
      segmentation: segmentationConfig({ strategy: 'fixed', maxSegments: 2 }),
      tokenText,
      estimatorConfig: { ...rredcotPresets.dataset, terms: 'value' },
      tokens,
      datasetReferences: () => [{ solution, answer: [1] }],
    });
    const sigma = await hook(ts, { step: 0, rng: new Rng(1), advantages });
    expect(counting.calls).toMatchObject({ score: 0, batch: 1 });
    const fits = ts.map((t) => t.prompt.length + t.thinkEnd + solution.length + 3 <= 40);
    const expectedFallback = ts.filter((_, i) => advantages[i] !== 0 && !fits[i]).length;
    expect(expectedFallback).toBeGreaterThan(0);
    expect(hook.lastCall()).toEqual({ estimated: advantages.filter((a, i) => a !== 0 && fits[i]).length, fallback: expectedFallback });
    ts.forEach((t, i) => {
      if (advantages[i] === 0 || !fits[i]) expect(sigma[i]).toEqual(t.completion.map(() => 1 / t.completion.length));
    });
    // the hook decides, whatever the (parsed, defaults filled) estimator config says: 'error' fails the step
    const common = {
      method: 'rredcot',
      model: counting,
      segmentation: segmentationConfig({ strategy: 'fixed', maxSegments: 2 }),
      tokenText,
      tokens,
      datasetReferences: () => [{ solution, answer: [1] }],
    } as const;
    const parsed = parseRredcotConfig({ ...rredcotPresets.dataset, terms: 'value' });
    expect(parsed.overlong).toBe('error');
    const lenient = estimatorRedistribution({ ...common, estimatorConfig: parsed });
    await lenient(ts, { step: 0, rng: new Rng(1), advantages });
    expect(lenient.lastCall().fallback).toBe(expectedFallback);
    const strict = estimatorRedistribution({
      ...common,
      estimatorConfig: { ...rredcotPresets.dataset, terms: 'value' },
      overlong: 'error',
    });
    await expect(strict(ts, { step: 0, rng: new Rng(1), advantages })).rejects.toThrow(/exceeds the model's maxLength 40/);
  });

  it("with 'uniform' σ reproduces GRPO's 1/|o| on every token", async () => {
    const ts = (await traces(16)).filter((t) => t.completion.length > 0);
    const hook = estimatorRedistribution({
      method: 'rredcot',
      model,
      segmentation: segmentationConfig({ strategy: 'entropy', maxSegments: 3 }),
      tokenText,
      estimatorConfig: { ...rredcotPresets.own, normalization: 'uniform' },
      tokens,
    });
    const sigma = await hook(ts, { step: 0, rng: new Rng(1), advantages: ts.map((t) => t.reward - 0.5) });
    sigma.forEach((row, i) => row.forEach((x) => expect(x).toBeCloseTo(1 / ts[i].completion.length, 15)));
    expect(hook.lastCall().estimated).toBe(ts.length);
  });

  it('normalizes credits of methods without their own σ (MC softmax: Σ = 1; gradient L1: Σ|σ| = 1), reproducibly', async () => {
    const ts = (await traces(8)).filter((t) => t.completion.length > 0 && t.thinkEnd > 0);
    const advantages = ts.map(() => 1);
    const common = {
      model,
      segmentation: segmentationConfig({ strategy: 'fixed', maxSegments: 3 }),
      tokenText,
      tokens,
      continuationReward: () => reward,
    };
    const mc = estimatorRedistribution({
      ...common,
      method: 'mc',
      estimatorConfig: { samplesPerExitPoint: 4, maxNewTokens: 6 },
      normalization: 'softmax',
      tau: 0.1,
    });
    const a = await mc(ts, { step: 3, rng: new Rng(9), advantages });
    const b = await mc(ts, { step: 3, rng: new Rng(9), advantages });
    expect(b).toEqual(a);
    a.forEach((row) => expect(row.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12));
    const gradient = estimatorRedistribution({ ...common, method: 'gradient', estimatorConfig: {} });
    const g = await gradient(ts, { step: 0, rng: new Rng(1), advantages });
    g.forEach((row) => {
      expect(row.reduce((x, y) => x + Math.abs(y), 0)).toBeCloseTo(1, 12);
      expect(row.every((x) => x > 0)).toBe(true); // gradient norms are positive, so L1 weights are too
    });
  });
});
