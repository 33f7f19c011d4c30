import { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { tokenRedistribution } from './redistribution';
import { ownReferences } from './references';
import { toyModel, toyReward, toySegments, toyTokens, toyTrace } from './testing/toy-setup';

const model = toyModel();
const base = toyTrace(model);
// a GRPO-like batch: two problems, two traces each (one incorrect)
const batch: Trace[] = [
  base,
  { ...base, reward: 0 },
  { ...base, problemId: 'toy-2' },
  { ...base, problemId: 'toy-2', reward: 0 },
];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const common = {
  model,
  segment: (): Segment[] => toySegments,
  inputs: (trace: Trace, all: readonly Trace[]) => ({
    tokens: toyTokens,
    reward: toyReward,
    references: { own: ownReferences(all.filter((t) => t.problemId === trace.problemId), toyTokens) },
  }),
};

describe('tokenRedistribution', () => {
  it('gives one σ per completion token per trace, summing to 1 (RREDCoT own-answer preset)', async () => {
    const seen: number[] = [];
    const hook = tokenRedistribution({
      ...common,
      method: 'rredcot',
      estimatorConfig: { terms: 'immediate', normalization: 'softmax', referenceSource: 'own' },
      onResult: (_t, segs, res) => seen.push(res.credits.length + segs.length),
    });
    const w = await hook(batch, { step: 0, rng: new Rng(1) });
    expect(w).toHaveLength(4);
    w.forEach((row, i) => {
      expect(row).toHaveLength(batch[i].completion.length);
      expect(sum(row)).toBeCloseTo(1, 12);
    });
    expect(seen).toEqual([6, 6, 6, 6]);
  });

  it("with 'uniform' σ reproduces GRPO's 1/|o| on every token", async () => {
    const hook = tokenRedistribution({ ...common, method: 'rredcot', estimatorConfig: { referenceSource: 'own', normalization: 'uniform' } });
    const w = await hook(batch, { step: 0, rng: new Rng(1) });
    w.flat().forEach((x) => expect(x).toBeCloseTo(1 / base.completion.length, 15));
  });

  it('normalizes credits of methods without their own σ (MC softmax: Σ = 1; gradient L1: Σ|σ| = 1), reproducibly', async () => {
    const mcHook = tokenRedistribution({ ...common, method: 'mc', estimatorConfig: { samplesPerExitPoint: 4, maxNewTokens: 6 }, normalization: 'softmax', tau: 0.1 });
    const a = await mcHook(batch, { step: 3, rng: new Rng(9) });
    const b = await mcHook(batch, { step: 3, rng: new Rng(9) });
    expect(b).toEqual(a);
    a.forEach((row) => expect(sum(row)).toBeCloseTo(1, 12));
    const gradHook = tokenRedistribution({ ...common, method: 'gradient' });
    const g = await gradHook(batch.slice(0, 1), { step: 0, rng: new Rng(1) });
    expect(sum(g[0].map(Math.abs))).toBeCloseTo(1, 12);
    // gradient norms are positive, so L1 weights are too
    expect(g[0].every((x) => x > 0)).toBe(true);
  });
});
