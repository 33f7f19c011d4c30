import { normalizeCredits } from './normalize';

const opts = { tau: 1, segmentLengths: [1, 2, 3, 4] };
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

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
