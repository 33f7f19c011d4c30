import type { Trace } from '@rred/lm';
import { normalizeCredits } from './normalize';
import { tokenWeights } from './token-weights';

function trace(completionLength: number, thinkEnd: number): Trace {
  const completion = Array.from({ length: completionLength }, (_, i) => i);
  return { problemId: 'p', prompt: [0], completion, logprobs: [], entropies: [], thinkEnd, answer: null, reward: 1, text: '' };
}
const segs = [
  { start: 0, end: 2 },
  { start: 2, end: 3 },
  { start: 3, end: 7 },
];
const lengths = segs.map((s) => s.end - s.start);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('tokenWeights', () => {
  it('uniform σ reproduces GRPO exactly: every token 1/|o|', () => {
    const t = trace(10, 7);
    const w = tokenWeights(t, segs, normalizeCredits([3, -1, 2], 'uniform', { tau: 1, segmentLengths: lengths }));
    w.forEach((x) => expect(x).toBeCloseTo(1 / 10, 15));
  });
  it('softmax σ: weights sum to 1, answer tokens keep 1/|o|, a segment spreads evenly', () => {
    const t = trace(10, 7);
    const sigma = normalizeCredits([3, -1, 2], 'softmax', { tau: 1, segmentLengths: lengths });
    const w = tokenWeights(t, segs, sigma);
    expect(sum(w)).toBeCloseTo(1, 12);
    for (let i = 7; i < 10; i++) expect(w[i]).toBeCloseTo(0.1, 15);
    expect(w[0]).toBeCloseTo((0.7 * sigma[0]) / 2, 15);
    expect(w[3]).toBe(w[6]);
  });
  it('L1 σ: Σ|σ_t| = 1 with the signs kept', () => {
    const w = tokenWeights(trace(10, 7), segs, normalizeCredits([3, -1, 2], 'L1', { tau: 1, segmentLengths: lengths }));
    expect(sum(w.map(Math.abs))).toBeCloseTo(1, 12);
    expect(w[2]).toBeLessThan(0);
  });
  it('covers unclosed thinking, no thinking and an explicit answer mass', () => {
    const unclosed = trace(7, 7);
    expect(sum(tokenWeights(unclosed, segs, [0.2, 0.3, 0.5]))).toBeCloseTo(1, 12);
    const noThink = trace(4, 0);
    expect(tokenWeights(noThink, [], [])).toEqual([0.25, 0.25, 0.25, 0.25]);
    const w = tokenWeights(trace(10, 7), segs, [0.2, 0.3, 0.5], { answerMass: 0.5 });
    expect(sum(w)).toBeCloseTo(1, 12);
    expect(w[9]).toBeCloseTo(0.5 / 3, 15);
    expect(() => tokenWeights(trace(10, 7), segs, [1, 0, 0], { answerMass: 2 })).toThrow(/answerMass/);
    expect(() => tokenWeights(trace(10, 7), segs, [1, 0])).toThrow(/2 weights for 3 segments/);
  });
});
