import { Rng } from '../rng';
import { pearson, spearman } from './correlation';

/** The hand-written versions the repo had before (experiments/src/correlation/stats.ts), as references. */
function handPearson(x: number[], y: number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
function handRanks(x: number[]): number[] {
  const order = x.map((_, i) => i).sort((a, b) => x[a] - x[b]);
  const r = new Array<number>(x.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && x[order[j + 1]] === x[order[i]]) j++;
    for (let t = i; t <= j; t++) r[order[t]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

describe('correlation', () => {
  it('pearson on known inputs', () => {
    expect(pearson([1, 2, 3, 4], [2, 4, 6, 8])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])).toBeCloseTo(-1, 12);
    // x = [1,2,3], y = [1,3,2]: deviations [-1,0,1] and [-1,1,0] → Σdxdy = 1, Σdx² = Σdy² = 2 → r = 0.5
    expect(pearson([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
  });

  it('spearman averages ties, is invariant to monotone maps, and matches 1 − 6Σd²/(n(n²−1)) without ties', () => {
    const x = [0.1, 0.5, 0.3, 0.9, 0.7];
    const y = x.map((v) => Math.exp(5 * v));
    expect(spearman(x, y)).toBeCloseTo(1, 12);
    expect(pearson(x, y)).toBeLessThan(0.99);
    // one swap among 4: Σd² = 2 → 1 − 6·2/(4·15) = 0.8
    expect(spearman([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(0.8, 12);
    // ties: ranks of [10, 20, 20, 5] are [2, 3.5, 3.5, 1]
    expect(spearman([10, 20, 20, 5], [2, 3.5, 3.5, 1])).toBeCloseTo(1, 12);
  });

  it('agrees with the old hand-written Pearson and average-rank Spearman to 1e-12 on random data with ties', () => {
    const rng = new Rng(11);
    for (let t = 0; t < 40; t++) {
      const n = 3 + (t % 30);
      // rounded values: many ties, as MC values (means of 0/1 utilities) have
      const x = Array.from({ length: n }, () => Math.round(rng.normal() * 3) / 4);
      const y = x.map((v) => Math.round((0.4 * v + rng.normal()) * 5) / 5);
      if (x.every((v) => v === x[0]) || y.every((v) => v === y[0])) continue;
      expect(Math.abs(pearson(x, y) - handPearson(x, y))).toBeLessThan(1e-12);
      expect(Math.abs(spearman(x, y) - handPearson(handRanks(x), handRanks(y)))).toBeLessThan(1e-12);
    }
  });

  it('undefined coefficients are NaN, never 0; unequal lengths throw', () => {
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(spearman([1, 2, 3], [4, 4, 4])).toBeNaN();
    expect(pearson([1], [2])).toBeNaN();
    expect(pearson([], [])).toBeNaN();
    expect(pearson([1, NaN, 3], [1, 2, 3])).toBeNaN();
    expect(spearman([1, 2, 3], [1, NaN, 3])).toBeNaN();
    expect(() => pearson([1, 2], [1, 2, 3])).toThrow(/2 vs 3/);
  });
});
