import { parseConfig } from '@rred/core';
import { returnEquivalent, segmentSigma, sigmaConfigSchema, type SigmaConfigInput } from './sigma';

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
