/** The credit controls on the estimators' enumerable toy LM and on hand-made traces. */
import { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import { rredcotPresets } from '@rred/estimators';
import { toyModel, toyTokens } from '@rred/estimators/testing';
import { estimatorRedistribution } from '@rred/recipes';
import { segment, segmentationConfig } from '@rred/segmentation';
import { permuteSegmentSigma, sigmaShuffleRedistribution, signedPositionRedistribution } from './control-hooks';

// ids a=0, b=1, '\n'=2, </think>=3, <eos>=4
const model = toyModel(11, 40);
const tokenText = (id: number) => ['a', 'b', '\n', '</think>', '<eos>'][id];
const segmentation = segmentationConfig({ strategy: 'fixed', segmentLength: 3, maxSegments: 4 });

const handTrace = (thinking: number[], reward: number): Trace => ({
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

/** σ_k of each thinking segment as the token weights carry it (Σ of the segment's token weights). */
const segmentMass = (row: number[], t: Trace) =>
  segment(t, segmentation, tokenText).map((s) => row.slice(s.start, s.end).reduce((a, b) => a + b, 0));

describe('permuteSegmentSigma', () => {
  it('keeps the multiset and, over seeds, changes the assignment', () => {
    const sigma = [0.5, 0.25, 0.15, 0.1];
    let moved = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const p = permuteSegmentSigma(sigma, new Rng(seed));
      expect([...p].sort()).toEqual([...sigma].sort());
      if (p.some((x, k) => x !== sigma[k])) moved++;
    }
    expect(moved).toBeGreaterThan(15); // the identity has probability 1/24 per draw
    expect(permuteSegmentSigma(sigma, new Rng(3))).toEqual(permuteSegmentSigma(sigma, new Rng(3))); // seeded
  });
});

describe('sigmaShuffleRedistribution', () => {
  it("permutes RREDCoT's segment weights within each trace: same multiset per trace, other segments, same answer share", async () => {
    const ts = [
      handTrace([0, 1, 2, 1, 0, 2, 0, 0, 1, 1, 0], 1),
      handTrace([0, 1, 2, 1, 0, 2, 0, 0, 1, 1, 1], 1),
      handTrace([1, 1, 2, 0, 0, 2, 1, 0, 1, 0], 0),
      handTrace([0, 0, 1, 2, 1, 1, 0, 2, 1, 0, 0, 1], 1),
      handTrace([1, 0, 2, 2, 0, 1, 1, 0, 0, 1], 0),
      handTrace([2, 1, 0, 1, 0, 2, 0, 1, 1, 2], 0),
    ];
    const options = {
      method: 'rredcot' as const,
      model,
      segmentation,
      tokenText,
      estimatorConfig: rredcotPresets.own,
      tokens: toyTokens,
      samplerCache: false,
    };
    const advantages = ts.map((t, i) => (i === 0 ? 0 : t.reward > 0 ? 1 : -1));
    const plain = await estimatorRedistribution(options)(ts, { step: 0, rng: new Rng(5), advantages });
    const hook = sigmaShuffleRedistribution(options);
    const shuffled = await hook(ts, { step: 0, rng: new Rng(5), advantages });
    expect(shuffled[0]).toEqual(ts[0].completion.map(() => 1 / ts[0].completion.length)); // A = 0: uniform
    let changed = 0;
    ts.forEach((t, i) => {
      if (i === 0) return;
      const a = segmentMass(plain[i], t);
      const b = segmentMass(shuffled[i], t);
      const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
      sorted(b).forEach((x, k) => expect(x).toBeCloseTo(sorted(a)[k], 12));
      if (b.some((x, k) => Math.abs(x - a[k]) > 1e-9)) changed++;
      for (let j = t.thinkEnd; j < t.completion.length; j++) expect(shuffled[i][j]).toBeCloseTo(plain[i][j], 15);
      expect(shuffled[i].reduce((x, y) => x + y, 0)).toBeCloseTo(1, 10);
    });
    expect(changed).toBeGreaterThan(0);
    expect(hook.lastCall().estimated + hook.lastCall().fallback).toBe(ts.length - 1);
  });
});

describe('signedPositionRedistribution', () => {
  it('weighs later segments more per token on correct and (aligned) on wrong traces; A = 0 stays uniform', async () => {
    const hook = signedPositionRedistribution({ segmentation, tokenText });
    const ts = [handTrace([0, 1, 2, 1, 0, 2, 0, 0, 1], 1), handTrace([1, 1, 2, 0, 0, 2, 1, 0, 1], 0), handTrace([0, 0, 0], 1)];
    const rows = await hook(ts, { step: 0, rng: new Rng(1), advantages: [1, -1, 0] });
    for (const i of [0, 1]) {
      const perToken = [0, 3, 6].map((t) => rows[i][t]); // three segments of 3 tokens
      expect(perToken[0]).toBeLessThan(perToken[1]);
      expect(perToken[1]).toBeLessThan(perToken[2]);
      expect(rows[i].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    }
    // aligned sign: the wrong trace's credits −k become +k, so it gets the correct trace's σ (equal lengths)
    rows[1].forEach((x, t) => expect(x).toBeCloseTo(rows[0][t], 15));
    expect(rows[2]).toEqual(ts[2].completion.map(() => 1 / 6));
    expect(hook.lastCall()).toEqual({ estimated: 2, fallback: 0 });
  });
});
