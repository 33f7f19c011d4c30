import { Rng } from '../rng';
import { bootstrapMeanInterval, bootstrapSdOfMean, clusterBootstrap, clusterBootstrapEstimate, percentileInterval } from './bootstrap';
import { mean } from './descriptive';

describe('clusterBootstrap', () => {
  it('draws whole clusters, one rng.next() per draw, as many draws as clusters by default', () => {
    const clusters = [[1, 1], [2], [3, 3, 3]];
    const rng = new Rng(5);
    const samples = clusterBootstrap(clusters, 50, rng, (s) => s);
    const replay = new Rng(5);
    for (const s of samples) {
      const expected = [0, 1, 2].flatMap(() => clusters[Math.floor(replay.next() * 3)]);
      expect(s).toEqual(expected);
    }
    expect(clusterBootstrap([], 10, new Rng(1), (s) => s.length)).toEqual([]);
    expect(clusterBootstrap([[7]], 3, new Rng(1), (s) => s.length, 4)).toEqual([4, 4, 4]);
  });

  it('percentile interval: type-7 quantiles of the replicates; none → NaN', () => {
    // 0..100: the 2.5% and 97.5% quantiles are 2.5 and 97.5
    const [lo, hi] = percentileInterval(
      Array.from({ length: 101 }, (_, i) => 100 - i),
      0.95,
    );
    expect(lo).toBeCloseTo(2.5, 12);
    expect(hi).toBeCloseTo(97.5, 12);
    expect(percentileInterval([], 0.9).every(Number.isNaN)).toBe(true);
  });
});

describe('bootstrapMeanInterval', () => {
  it('is reproducible from the seed and collapses on constant data', () => {
    const values = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const a = bootstrapMeanInterval(values, new Rng(4), 1000);
    expect(bootstrapMeanInterval(values, new Rng(4), 1000)).toEqual(a);
    // sd of the mean = 0.05, so the 95% interval is about 0.5 ± 0.098
    expect(a.lower).toBeGreaterThan(0.38);
    expect(a.lower).toBeLessThan(0.43);
    expect(a.upper).toBeGreaterThan(0.57);
    expect(a.upper).toBeLessThan(0.62);
    const flat = bootstrapMeanInterval([0.25, 0.25, 0.25], new Rng(1), 200);
    expect(flat.lower).toBe(0.25);
    expect(flat.upper).toBe(0.25);
  });

  it('refuses NaN instead of dropping it', () => {
    expect(() => bootstrapMeanInterval([1, NaN], new Rng(1))).toThrow(/NaN/);
  });
});

describe('bootstrapSdOfMean', () => {
  it('≈ plug-in SD / √m; 0 for constant values; NaN for none', () => {
    const values = [1, 0, 0, 1, 1, 0, 1, 1, 0, 0]; // p = 0.5, plug-in SD 0.5
    for (const m of [1, 4, 16]) expect(bootstrapSdOfMean(values, m, 4000, new Rng(m))).toBeCloseTo(0.5 / Math.sqrt(m), 1);
    expect(bootstrapSdOfMean([1, 1, 1], 3, 100, new Rng(1))).toBe(0);
    expect(bootstrapSdOfMean([], 3, 100, new Rng(1))).toBeNaN();
  });
});

describe('clusterBootstrapEstimate', () => {
  it('point estimate on all clusters; percentile interval over cluster resamples; NaN replicate → NaN bounds', () => {
    const clusters = [[1, 3], [5], [7, 9, 11]];
    const e = clusterBootstrapEstimate(clusters, mean, new Rng(3), { resamples: 400, level: 0.9 });
    expect(e.value).toBeCloseTo(6, 12); // mean of 1, 3, 5, 7, 9, 11
    const replay = clusterBootstrap(clusters, 400, new Rng(3), mean);
    const [lo, hi] = percentileInterval(replay, 0.9);
    expect(e).toEqual({ value: e.value, lo, hi });
    // a statistic that is NaN on some resamples (here: those without the middle cluster)
    const picky = (s: number[]) => (s.includes(5) ? mean(s) : NaN);
    expect(clusterBootstrapEstimate(clusters, picky, new Rng(3), { resamples: 400 })).toEqual({ value: 6, lo: NaN, hi: NaN });
    expect(clusterBootstrapEstimate([], mean, new Rng(3))).toEqual({ value: NaN, lo: NaN, hi: NaN });
  });
});
