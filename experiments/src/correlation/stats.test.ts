import { Rng } from '@rred/core';
import { correlate, positionBin, type PairedPoint } from './stats';

describe('correlation math', () => {
  it('bootstrap: perfect linear data has a degenerate interval at 1; counts non-finite pairs', () => {
    const pts: PairedPoint[] = [];
    for (let t = 0; t < 10; t++) for (let k = 0; k < 4; k++) pts.push({ trace: t, a: t + k / 10, b: 2 * (t + k / 10) + 1 });
    pts.push({ trace: 3, a: NaN, b: 1 }, { trace: 4, a: 1, b: -Infinity });
    const est = correlate(pts, 200, 0.95, new Rng(1));
    expect(est.n).toBe(40);
    expect(est.nonFinite).toBe(2);
    expect(est.traces).toBe(10);
    expect(est.pearson).toBeCloseTo(1, 12);
    expect(est.pearsonLo).toBeCloseTo(1, 9);
    expect(est.spearmanHi).toBeCloseTo(1, 9);
  });

  it('bootstrap interval covers the estimate for noisy data and is seeded', () => {
    const rng = new Rng(7);
    const pts: PairedPoint[] = [];
    for (let t = 0; t < 30; t++)
      for (let k = 0; k < 5; k++) {
        const a = rng.normal();
        pts.push({ trace: t, a, b: 0.5 * a + rng.normal() });
      }
    const e1 = correlate(pts, 300, 0.9, new Rng(3));
    const e2 = correlate(pts, 300, 0.9, new Rng(3));
    expect(e1).toEqual(e2);
    expect(e1.pearsonLo).toBeLessThan(e1.pearson);
    expect(e1.pearsonHi).toBeGreaterThan(e1.pearson);
    // true correlation 0.5/sqrt(1.25) ≈ 0.447
    expect(e1.pearson).toBeGreaterThan(0.25);
    expect(e1.pearson).toBeLessThan(0.65);
  });

  it('position bins by segment midpoint', () => {
    expect([1, 2, 3, 4, 5, 6].map((k) => positionBin(k, 6))).toEqual(['early', 'early', 'middle', 'middle', 'late', 'late']);
    expect(positionBin(1, 1)).toBe('middle');
  });
});
