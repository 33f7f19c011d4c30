import { parseConfig } from '@rred/core';
import type { Trace } from '@rred/lm';
import {
  normalizeCredits,
  reportedSigmaConfig,
  returnEquivalent,
  segmentSigma,
  sigmaConfigSchema,
  tokenWeights,
  traceSigma,
  type SigmaConfigInput,
} from './sigma';

const cfg = (c: SigmaConfigInput) => parseConfig(sigmaConfigSchema, c, 'test');
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const credits = [0.5, -20, 3, 12];
const lengths = [2, 5, 1, 4];

describe('segmentSigma', () => {
  const equivalent: SigmaConfigInput[] = [
    { normalization: 'uniform', credits: 'raw' },
    { normalization: 'softmax' },
    { normalization: 'softmax', lengthPrior: false },
    { normalization: 'softmax', credits: 'raw', tau: 5 },
    { normalization: 'softmax', credits: 'raw', lengthPrior: false, signHandling: 'literal' },
  ];
  it.each(equivalent)('Σσ_k = 1 for every normalization that claims return equivalence: %j', (c) => {
    const parsed = cfg(c);
    expect(returnEquivalent(parsed)).toBe(true);
    for (const a of [-1.3, 0.7]) {
      const s = segmentSigma(credits, lengths, a, parsed);
      expect(sum(s)).toBeCloseTo(1, 12);
      s.forEach((x) => expect(x).toBeGreaterThanOrEqual(0));
    }
  });
  it('signed L1 does not keep Σσ = 1 (documented; returnEquivalent says so)', () => {
    const c = cfg({ normalization: 'L1', credits: 'raw' });
    expect(returnEquivalent(c)).toBe(false);
    expect(sum(segmentSigma(credits, lengths, 1, c))).toBeCloseTo(-4.5 / 35.5, 12);
  });
  it('aligned flips the credits of a failed completion; literal does not; A > 0 is the same under both', () => {
    const aligned = cfg({ normalization: 'L1', credits: 'raw' });
    const literal = cfg({ normalization: 'L1', credits: 'raw', signHandling: 'literal' });
    expect(segmentSigma([1, -3], [1, 1], -2, aligned)).toEqual([-0.25, 0.75]);
    expect(segmentSigma([1, -3], [1, 1], -2, literal)).toEqual([0.25, -0.75]);
    expect(segmentSigma([1, -3], [1, 1], 2, aligned)).toEqual(segmentSigma([1, -3], [1, 1], 2, literal));
  });
  it('standardized softmax does not saturate on credits of tens of nats; raw softmax at τ = 1 is one-hot', () => {
    const nats = [-25, -12, 3, 10];
    const raw = segmentSigma(nats, [1, 1, 1, 1], 1, cfg({ credits: 'raw', lengthPrior: false }));
    expect(Math.max(...raw)).toBeGreaterThan(0.999);
    const std = segmentSigma(nats, [1, 1, 1, 1], 1, cfg({ lengthPrior: false }));
    expect(Math.max(...std)).toBeLessThan(0.6);
    // z = (r − mean) / sd, then softmax(z): by hand
    const m = -6;
    const sd = Math.sqrt((19 ** 2 + 6 ** 2 + 9 ** 2 + 16 ** 2) / 4);
    const e = nats.map((r) => Math.exp((r - m) / sd));
    std.forEach((x, k) => expect(x).toBeCloseTo(e[k] / sum(e), 12));
  });
  it('with the length prior equal credits give plain GRPO weights (σ_k ∝ |u_k|)', () => {
    const s = segmentSigma([2, 2, 2], [1, 3, 4], -1, cfg({}));
    s.forEach((x, k) => expect(x).toBeCloseTo([1, 3, 4][k] / 8, 12));
  });
  it('rejects standardized credits without softmax, a bad advantage and non-finite credits', () => {
    expect(() => cfg({ normalization: 'L1' })).toThrow(/credits 'standardized' needs normalization 'softmax' \(got 'L1'\)/);
    expect(() => segmentSigma([1], [1], NaN, cfg({}))).toThrow(/advantage is NaN/);
    expect(() => segmentSigma([1, NaN], [1, 1], 1, cfg({}))).toThrow(/credit of segment 2 is NaN/);
  });
});

const opts = { tau: 1, segmentLengths: [1, 2, 3, 4] };

describe('normalizeCredits', () => {
  const r = [0.5, -1.5, 0.25, 2];
  it('L1 keeps signs with Σ|σ| = 1', () => {
    const s = normalizeCredits(r, 'L1', opts);
    expect(sum(s.map(Math.abs))).toBeCloseTo(1, 12);
    expect(s[1]).toBeCloseTo(-1.5 / 4.25, 12);
  });
  it('L1 of all-zero credits falls back to the per-token uniform weights', () => {
    expect(normalizeCredits([0, 0, 0, 0], 'L1', opts)).toEqual([0.1, 0.2, 0.3, 0.4]);
  });
  it('softmax is positive, sums to 1 and sharpens as τ falls', () => {
    const s1 = normalizeCredits(r, 'softmax', opts);
    expect(sum(s1)).toBeCloseTo(1, 12);
    expect(s1[3] / s1[0]).toBeCloseTo(Math.exp(1.5), 10);
    const sharp = normalizeCredits(r, 'softmax', { ...opts, tau: 0.1 });
    expect(sharp[3]).toBeGreaterThan(s1[3]);
    // large credits do not overflow
    expect(sum(normalizeCredits([1000, 999, 0, 0], 'softmax', opts))).toBeCloseTo(1, 12);
  });
  it('uniform weighs segments by length and ignores the credits', () => {
    expect(normalizeCredits([NaN, 1, 2, 3], 'uniform', opts)).toEqual([0.1, 0.2, 0.3, 0.4]);
  });
  it('refuses non-finite credits instead of hiding them', () => {
    expect(() => normalizeCredits([1, NaN, 0, 0], 'L1', opts)).toThrow(/segment 2 is NaN/);
    expect(() => normalizeCredits([1, -Infinity, 0, 0], 'softmax', opts)).toThrow(/segment 2 is -Infinity/);
  });
  it('handles K = 0 and mismatched lengths', () => {
    expect(normalizeCredits([], 'L1', { tau: 1, segmentLengths: [] })).toEqual([]);
    expect(() => normalizeCredits([1], 'L1', opts)).toThrow(/1 credits but 4/);
  });
});

function trace(completionLength: number, thinkEnd: number): Trace {
  const completion = Array.from({ length: completionLength }, (_, i) => i);
  return { problemId: 'p', prompt: [0], completion, logprobs: [], entropies: [], thinkEnd, answer: null, reward: 1, text: '' };
}
const segs = [
  { start: 0, end: 2 },
  { start: 2, end: 3 },
  { start: 3, end: 7 },
];
const segLengths = segs.map((s) => s.end - s.start);

describe('tokenWeights', () => {
  it('uniform σ reproduces GRPO exactly: every token 1/|o|', () => {
    const t = trace(10, 7);
    const w = tokenWeights(t, segs, normalizeCredits([3, -1, 2], 'uniform', { tau: 1, segmentLengths: segLengths }));
    w.forEach((x) => expect(x).toBeCloseTo(1 / 10, 15));
  });
  it('softmax σ: weights sum to 1, answer tokens keep 1/|o|, a segment spreads evenly', () => {
    const t = trace(10, 7);
    const sigma = normalizeCredits([3, -1, 2], 'softmax', { tau: 1, segmentLengths: segLengths });
    const w = tokenWeights(t, segs, sigma);
    expect(sum(w)).toBeCloseTo(1, 12);
    for (let i = 7; i < 10; i++) expect(w[i]).toBeCloseTo(0.1, 15);
    expect(w[0]).toBeCloseTo((0.7 * sigma[0]) / 2, 15);
    expect(w[3]).toBe(w[6]);
  });
  it('L1 σ: Σ|σ_t| = 1 with the signs kept', () => {
    const w = tokenWeights(trace(10, 7), segs, normalizeCredits([3, -1, 2], 'L1', { tau: 1, segmentLengths: segLengths }));
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

describe('reportedSigmaConfig and traceSigma', () => {
  it('the σ an estimator reports is N of its credits as they are, whatever the advantage sign it would train with', () => {
    for (const n of ['L1', 'softmax', 'uniform'] as const) {
      const reported = segmentSigma(credits, lengths, 1, reportedSigmaConfig(n, 2));
      expect(reported).toEqual(normalizeCredits(credits, n, { tau: 2, segmentLengths: lengths }));
      expect(segmentSigma(credits, lengths, -1, reportedSigmaConfig(n, 2))).toEqual(reported);
    }
  });
  it('traceSigma is segmentSigma spread by tokenWeights; under aligned a failed trace differs from the reported σ', () => {
    const t = trace(10, 7);
    const r = [3, -1, 2];
    const c = cfg({ normalization: 'L1', credits: 'raw' });
    expect(traceSigma(t, segs, r, -1, c)).toEqual(tokenWeights(t, segs, segmentSigma(r, segLengths, -1, c)));
    const reported = tokenWeights(t, segs, segmentSigma(r, segLengths, -1, reportedSigmaConfig('L1', 1)));
    expect(traceSigma(t, segs, r, -1, c)[0]).toBeCloseTo(-reported[0], 15);
    expect(traceSigma(t, segs, r, 1, c)).toEqual(reported);
  });
});
