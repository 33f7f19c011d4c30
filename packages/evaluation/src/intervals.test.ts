import { Rng } from '@rred/core';
import { bootstrapMeanInterval, normalQuantile, quantileSorted, wilsonInterval } from './intervals';

describe('normalQuantile', () => {
  it('matches standard table values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.575829, 5);
    expect(() => normalQuantile(1)).toThrow(/\(0, 1\)/);
  });
});

describe('wilsonInterval', () => {
  it('matches the formula evaluated by hand for 8/10 at 95%', () => {
    // z = 1.9599640, p = 0.8, z²/n = 0.3841459; centre = (0.8 + 0.1920729)/1.3841459 = 0.7167402;
    // half = 1.9599640/1.3841459 · sqrt(0.016 + 0.0096036) = 0.2265777
    const ci = wilsonInterval(8, 10);
    expect(ci.lower).toBeCloseTo(0.4901625, 6);
    expect(ci.upper).toBeCloseTo(0.9433178, 6);
  });

  it('stays inside [0, 1] at the extremes', () => {
    const zero = wilsonInterval(0, 20);
    expect(zero.lower).toBe(0);
    expect(zero.upper).toBeCloseTo(3.841459 / (20 + 3.841459), 5); // z²/(n+z²) when p = 0
    expect(wilsonInterval(20, 20).upper).toBe(1);
    expect(() => wilsonInterval(3, 0)).toThrow(/trials/);
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

  it('interpolates quantiles linearly', () => {
    expect(quantileSorted([0, 10, 20, 30], 0.5)).toBe(15);
    expect(quantileSorted([0, 10, 20, 30], 1)).toBe(30);
  });
});
