import { Rng } from '../rng';
import { mean, median, quantileSorted, sampleStandardDeviation, sampleVariance, standardDeviation, sum } from './descriptive';

/** The left-to-right sum the repo used before the stats module; mean must reproduce it bit for bit. */
const handMean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('descriptive statistics', () => {
  it('mean, sum: hand values, bit-identical to the old left-to-right sum', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(sum([0.5, 0.25, 0.25])).toBe(1);
    const rng = new Rng(3);
    for (let t = 0; t < 50; t++) {
      const xs = Array.from({ length: 1 + (t % 17) }, () => rng.normal() * 10 ** (t % 5));
      expect(mean(xs)).toBe(handMean(xs));
    }
  });

  it('median: odd, even (average of the middle two), unsorted input left alone', () => {
    const xs = [5, 1, 4, 2];
    expect(median(xs)).toBe(3);
    expect(xs).toEqual([5, 1, 4, 2]);
    expect(median([9, 1, 3])).toBe(3);
    expect(median([2])).toBe(2);
  });

  it('sample SD and variance (n − 1), population SD (n), against hand sums', () => {
    // [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, Σ(x − 5)² = 32 → population var 4, sample var 32/7
    const xs = [2, 4, 4, 4, 5, 5, 7, 9];
    expect(standardDeviation(xs)).toBeCloseTo(2, 12);
    expect(sampleVariance(xs)).toBeCloseTo(32 / 7, 12);
    expect(sampleStandardDeviation(xs)).toBeCloseTo(Math.sqrt(32 / 7), 12);
  });

  it('quantileSorted: type 7 (linear between order statistics), accepts a Float64Array', () => {
    expect(quantileSorted([0, 10, 20, 30], 0.5)).toBe(15);
    expect(quantileSorted([0, 10, 20, 30], 1)).toBe(30);
    expect(quantileSorted([0, 10, 20, 30], 0)).toBe(0);
    // h = (n − 1)p = 0.3 → 0 + 0.3 · 10
    expect(quantileSorted(Float64Array.from([0, 10, 20, 30]), 0.1)).toBeCloseTo(3, 12);
    expect(() => quantileSorted([1, 2], 1.5)).toThrow(/\[0, 1\]/);
  });

  it('the convention: no values (or too few) → NaN, never 0; a NaN input → NaN', () => {
    expect(mean([])).toBeNaN();
    expect(median([])).toBeNaN();
    expect(quantileSorted([], 0.5)).toBeNaN();
    expect(sampleStandardDeviation([3])).toBeNaN();
    expect(sampleVariance([])).toBeNaN();
    expect(standardDeviation([])).toBeNaN();
    expect(sum([])).toBe(0);
    expect(mean([1, NaN])).toBeNaN();
    expect(median([1, NaN, 3])).toBeNaN();
    expect(sampleStandardDeviation([1, NaN, 3])).toBeNaN();
    expect(sum([1, NaN])).toBeNaN();
  });
});
