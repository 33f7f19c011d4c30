import { Rng } from '@rred/core';
import { correlate, pearson, positionBin, ranks, spearman, type PairedPoint } from './stats';

describe('correlation math', () => {
  it('pearson on known inputs', () => {
    expect(pearson([1, 2, 3, 4], [2, 4, 6, 8])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])).toBeCloseTo(-1, 12);
    // x = [1,2,3], y = [1,3,2]: deviations [-1,0,1] and [-1,1,0] → Σdxdy = 1, Σdx² = Σdy² = 2 → r = 0.5
    expect(pearson([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(pearson([1], [2])).toBeNaN();
  });

  it('ranks average ties; spearman is pearson of ranks and invariant to monotone maps', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    const x = [0.1, 0.5, 0.3, 0.9, 0.7];
    const y = x.map((v) => Math.exp(5 * v));
    expect(spearman(x, y)).toBeCloseTo(1, 12);
    expect(pearson(x, y)).toBeLessThan(0.99);
    // one swap among 4: d² sum = 2 → 1 − 6·2/(4·15) = 0.8
    expect(spearman([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(0.8, 12);
  });

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
    for (let t = 0; t < 30; t++) for (let k = 0; k < 5; k++) {
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
