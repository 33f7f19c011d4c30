/** The oracle, GRAIL and VeriGate-step-score hooks on hand-made traces and the enumerable toy LM. */
import { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import { rredcotPresets } from '@rred/estimators';
import { toyModel, toyTokens } from '@rred/estimators/testing';
import { segmentationConfig } from '@rred/segmentation';
import { grailSigma } from '@rred/training';
import { grailRedistribution } from './grail-hook';
import { oracleRedistribution } from './oracle-hook';
import { creditStepScores, oracleStepScores } from './step-scores';

// the estimators' toy LM: ids a=0, b=1, '\n'=2, </think>=3, <eos>=4
const tokens = toyTokens;
const model = toyModel();
const tokenText = (id: number) => ['a', 'b', '\n', '</think>', '<eos>'][id];
const segmentation = segmentationConfig({ strategy: 'fixed', segmentLength: 3, maxSegments: 3 });
const trace = (thinking: number[], reward: number): Trace => ({
  problemId: 'toy',
  prompt: [0, 2],
  completion: [...thinking, 3, 1, 4],
  logprobs: [],
  entropies: [],
  thinkEnd: thinking.length,
  answer: null,
  reward,
  text: '',
});
const coefficients = (row: number[], a: number) => row.map((s) => a * s * row.length);

describe('oracleRedistribution', () => {
  it("blames the segment holding a failed trace's first error; correct and unlocated traces keep GRPO's σ", async () => {
    const ts = [trace([0, 1, 2, 1, 0, 2, 0, 0, 1], 0), trace([0, 1, 2, 1, 1, 2, 0, 1, 2], 1), trace([1, 1, 2, 0, 0, 2, 1, 0, 1], 0)];
    const errors = new Map([[ts[0], 4]]); // token 4 lies in segment 2 ([3, 6)); trace 2's error is not located
    const hook = oracleRedistribution({ segmentation, tokenText, firstError: (t) => errors.get(t) ?? null });
    const advantages = [-1, 1, -0.5];
    const rows = await hook(ts, { step: 0, rng: new Rng(1), advantages });
    const c = coefficients(rows[0], -1);
    const worst = Math.min(...c);
    expect([3, 4, 5].map((t) => c[t])).toEqual([worst, worst, worst]);
    expect(c.filter((x) => x === worst)).toHaveLength(3);
    expect(rows[0].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    [1, 2].forEach((i) => coefficients(rows[i], advantages[i]).forEach((x) => expect(x).toBeCloseTo(advantages[i], 12)));
    expect(hook.lastCall()).toEqual({ estimated: 2, fallback: 1 });
  });
});

describe('grailRedistribution', () => {
  it("gives thinking tokens σ ∝ the answer's gradient saliency at their embedding, answer tokens 1/|o|", async () => {
    const ts = [trace([0, 1, 2, 1, 0], 1), trace([0, 1], 0), { ...trace([0, 1, 1], 0), completion: [0, 1, 1], thinkEnd: 3 }];
    const hook = grailRedistribution({ model });
    const rows = await hook(ts, { step: 0, rng: new Rng(1), advantages: [1, 0, -1] });
    const t = ts[0];
    const { norms } = await model.embeddingGradientNorms([...t.prompt, ...t.completion], t.prompt.length + t.thinkEnd + 1);
    expect(rows[0]).toEqual(grailSigma(norms.slice(2, 7), 8));
    expect(new Set(rows[0].slice(0, 5)).size).toBeGreaterThan(1);
    expect(rows[0].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(rows[1]).toEqual(ts[1].completion.map(() => 1 / 5)); // A = 0
    expect(rows[2]).toEqual([1 / 3, 1 / 3, 1 / 3]); // never closed its thinking: no answer to be salient for
    expect(hook.lastCall()).toEqual({ estimated: 1, fallback: 1 });
  });
});

describe('creditStepScores', () => {
  it('scores the gated traces with their RREDCoT credits, the answer as a last step scored 0', async () => {
    const ts = [trace([0, 1, 2, 1, 0, 2, 0, 0, 1], 0), trace([0, 1, 2, 1, 1, 2, 0, 1, 2], 0)];
    const references = () => [{ solution: [0, 1, 2], answer: [1] }];
    const scores = creditStepScores({
      method: 'rredcot',
      model,
      segmentation,
      tokenText,
      estimatorConfig: { ...rredcotPresets.dataset, terms: 'immediatePlusValue', valueSuffix: 'full', space: 'log' }, // the Tab. 1 reading this test was written for
      tokens,
      datasetReferences: references,
    });
    const out = await scores(ts, { step: 0, rng: new Rng(1), gated: [true, false], rewards: [1, 1] });
    expect(out[1]).toBeNull();
    expect(out[0]!.ends).toEqual([3, 6, 9, 12]);
    expect(out[0]!.scores).toHaveLength(4);
    expect(out[0]!.scores[3]).toBe(0);
    out[0]!.scores.forEach((x) => expect(Number.isFinite(x)).toBe(true));
    expect(scores.lastCall()).toEqual({ estimated: 1, fallback: 0 });
  });
});

describe('oracleStepScores', () => {
  it('scores the steps before the first error 1, from it on 0, the answer step by its reward; no error: every segment 1', async () => {
    const ts = [trace([0, 1, 2, 1, 0, 2, 0, 0, 1], 0), trace([0, 1, 2, 1, 1, 2, 0, 1, 2], 0), trace([1, 1, 2, 0, 0, 2, 1, 0, 1], 0)];
    const errors = new Map([[ts[0], 4]]); // in segment [3, 6)
    const scores = oracleStepScores({ segmentation, tokenText, firstError: (t) => errors.get(t) ?? null });
    // the answer step takes the verifier's reward: 0 for the wrong trace 0, 1 for trace 1 (a 0 there would make the
    // answer the worst step of an all-correct group)
    const out = await scores(ts, { step: 0, rng: new Rng(1), gated: [true, true, false], rewards: [0, 1, 0] });
    expect(out[0]).toEqual({ ends: [3, 6, 9, 12], scores: [1, 0, 0, 0] });
    expect(out[1]).toEqual({ ends: [3, 6, 9, 12], scores: [1, 1, 1, 1] });
    expect(out[2]).toBeNull();
    expect(scores.lastCall()).toEqual({ estimated: 2, fallback: 0 });
  });
});
