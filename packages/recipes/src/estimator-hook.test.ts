import { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import { parseRredcotConfig, rredcot, rredcotPresets } from '@rred/estimators';
import { toyModel, toyReward, toyTokens } from '@rred/estimators/testing';
import { segment, segmentationConfig } from '@rred/segmentation';
import { estimatorRedistribution } from './estimator-hook';

// The estimators' enumerable toy LM: ids a=0, b=1, '\n'=2, </think>=3, <eos>=4.
const tokens = toyTokens;
const reward = toyReward;
const model = toyModel(11, 40);
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
    const counting = toyModel(11, 40);
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
      estimatorConfig: { ...rredcotPresets.dataset, terms: 'value', valueSuffix: 'full' },
      tokens,
      datasetReferences: () => [{ solution, answer: [1] }],
    });
    const sigma = await hook(ts, { step: 0, rng: new Rng(1), advantages });
    expect(counting.calls).toMatchObject({ score: 0, batch: 1 });
    const fits = ts.map((t) => t.prompt.length + t.thinkEnd + solution.length + 3 <= 40);
    const expectedFallback = ts.filter((_, i) => advantages[i] !== 0 && !fits[i]).length;
    expect(expectedFallback).toBeGreaterThan(0);
    expect(hook.lastCall()).toMatchObject({
      estimated: advantages.filter((a, i) => a !== 0 && fits[i]).length,
      fallback: expectedFallback,
    });
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
    const parsed = parseRredcotConfig({ ...rredcotPresets.dataset, terms: 'value', valueSuffix: 'full' });
    expect(parsed.overlong).toBe('error');
    const lenient = estimatorRedistribution({ ...common, estimatorConfig: parsed });
    await lenient(ts, { step: 0, rng: new Rng(1), advantages });
    expect(lenient.lastCall().fallback).toBe(expectedFallback);
    const strict = estimatorRedistribution({
      ...common,
      estimatorConfig: { ...rredcotPresets.dataset, terms: 'value', valueSuffix: 'full' },
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
      estimatorConfig: rredcotPresets.own,
      sigma: { normalization: 'uniform', credits: 'raw' },
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
      sigma: { normalization: 'softmax', credits: 'raw', tau: 0.1 },
    });
    const a = await mc(ts, { step: 3, rng: new Rng(9), advantages });
    const b = await mc(ts, { step: 3, rng: new Rng(9), advantages });
    expect(b).toEqual(a);
    a.forEach((row) => expect(row.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12));
    const gradient = estimatorRedistribution({
      ...common,
      method: 'gradient',
      estimatorConfig: {},
      sigma: { normalization: 'L1', credits: 'raw' },
    });
    const g = await gradient(ts, { step: 0, rng: new Rng(1), advantages });
    g.forEach((row) => {
      expect(row.reduce((x, y) => x + Math.abs(y), 0)).toBeCloseTo(1, 12);
      expect(row.every((x) => x > 0)).toBe(true); // gradient norms are positive, so L1 weights are too
    });
  });
});

describe('sign handling on the enumerable toy LM', () => {
  const segmentation = segmentationConfig({ strategy: 'fixed', segmentLength: 3, maxSegments: 3 });
  const references = () => [{ solution: [0, 1, 2], answer: [1] }];
  // the Tab. 1 reading (I+V, full suffix, log space) this acceptance test was written for; the preset now follows the gold benchmark
  const estimatorConfig = { ...rredcotPresets.dataset, terms: 'immediatePlusValue', valueSuffix: 'full', space: 'log' } as const;
  const hookWith = (sigma: Parameters<typeof estimatorRedistribution>[0]['sigma']) =>
    estimatorRedistribution({
      method: 'rredcot',
      model,
      segmentation,
      tokenText,
      estimatorConfig,
      tokens,
      datasetReferences: references,
      sigma,
    });
  const coefficients = (row: number[], advantage: number) => row.map((s) => advantage * s * row.length); // the trainer's A·σ_t·|o|

  /** Traces with 3 segments whose credits differ, with the RREDCoT credits and token spans of their segments. */
  async function scoredTraces() {
    // hand-made traces: 9 thinking tokens over {a, b, \\n} from a seeded draw, then </think> b <eos>
    const rng = new Rng(5);
    const ts: Trace[] = Array.from({ length: 8 }, (_, i) => {
      const completion = [...Array.from({ length: 9 }, () => rng.int(0, 2)), 3, 1, 4];
      return {
        problemId: 'toy',
        prompt: [0, 2],
        completion,
        logprobs: [],
        entropies: [],
        thinkEnd: 9,
        answer: null,
        reward: i % 2,
        text: '',
      };
    });
    const out = [];
    for (const t of ts) {
      const segs = segment(t, segmentation, tokenText);
      if (segs.length !== 3) continue;
      const r = await rredcot(model, t, segs, { tokens, references: { dataset: references() } }, estimatorConfig);
      if (new Set(r.credits.map((c) => c.toFixed(6))).size === 3) out.push({ trace: t, segs, credits: r.credits });
    }
    expect(out.length).toBeGreaterThanOrEqual(2);
    return out;
  }
  const argmin = (xs: number[]) => xs.indexOf(Math.min(...xs));
  const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
  /** The segment holding the token with the most negative (or most positive) coefficient. */
  const segmentOf = (segs: { start: number; end: number }[], t: number) => segs.findIndex((s) => s.start <= t && t < s.end);

  it("aligned: a failed trace's most harmful segment gets the most negative coefficient, a correct trace's most helpful one the most positive", async () => {
    const scored = await scoredTraces();
    const hook = hookWith(undefined); // the default: aligned, standardized softmax
    for (const advantage of [-1, 1]) {
      const rows = await hook(
        scored.map((s) => s.trace),
        { step: 0, rng: new Rng(1), advantages: scored.map(() => advantage) },
      );
      scored.forEach(({ segs, credits }, n) => {
        const c = coefficients(rows[n], advantage);
        const thinking = c.slice(0, segs[segs.length - 1].end);
        if (advantage < 0) {
          expect(segmentOf(segs, argmin(thinking))).toBe(argmin(credits)); // blame where the value fell most
          expect(Math.min(...c)).toBe(Math.min(...thinking));
        } else {
          expect(segmentOf(segs, argmax(thinking))).toBe(argmax(credits)); // credit where it rose most
          expect(Math.max(...c)).toBe(Math.max(...thinking));
        }
        expect(rows[n].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12); // Σ_t σ_t = 1
        c.forEach((x) => expect(Math.sign(x)).toBe(Math.sign(advantage))); // softmax σ never flips a token's direction
      });
    }
  });

  it("literal (Eq. 11 as written): a failed trace's most helpful segment takes the most blame; signed L1 pushes the harmful segment up", async () => {
    const scored = await scoredTraces();
    expect(scored.some((s) => Math.min(...s.credits) < 0)).toBe(true);
    const traces = scored.map((s) => s.trace);
    const failed = { step: 0, rng: new Rng(1), advantages: scored.map(() => -1) };
    const softmax = await hookWith({ signHandling: 'literal' })(traces, failed);
    const l1 = await hookWith({ signHandling: 'literal', normalization: 'L1', credits: 'raw' })(traces, failed);
    const l1Aligned = await hookWith({ normalization: 'L1', credits: 'raw' })(traces, failed);
    scored.forEach(({ segs, credits }, n) => {
      const think = segs[segs.length - 1].end;
      expect(segmentOf(segs, argmin(coefficients(softmax[n], -1).slice(0, think)))).toBe(argmax(credits));
      const worst = segs[argmin(credits)];
      if (credits[argmin(credits)] < 0) {
        expect(coefficients(l1[n], -1)[worst.start]).toBeGreaterThan(0); // literal L1: the blamed segment is pushed up
        expect(coefficients(l1Aligned[n], -1)[worst.start]).toBeLessThan(0); // aligned L1: pushed down
      }
    });
  });

  it('uniform σ through the hook reproduces GRPO exactly for failed and correct traces', async () => {
    const scored = await scoredTraces();
    const rows = await hookWith({ normalization: 'uniform', credits: 'raw' })(
      scored.map((s) => s.trace),
      { step: 0, rng: new Rng(1), advantages: scored.map((_, i) => (i % 2 ? 1 : -1)) },
    );
    rows.forEach((row, n) => coefficients(row, n % 2 ? 1 : -1).forEach((c) => expect(c).toBeCloseTo(n % 2 ? 1 : -1, 12)));
  });
});
