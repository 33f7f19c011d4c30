import { meanCi, medianCi, wilsonInterval } from './intervals';

describe('meanCi (Student-t interval)', () => {
  it('matches the interval computed by hand', () => {
    const c = meanCi([0.2, 0.4, 0.6], 0.95);
    // sd = 0.2, se = 0.2 / √3, half-width = t_{0.975,2} · se, t_{0.975,2} = 0.95 / √(2 · 0.975 · 0.025)
    const t = 0.95 / Math.sqrt(2 * 0.975 * 0.025);
    expect(c.mean).toBeCloseTo(0.4, 12);
    expect(c.hi - c.mean).toBeCloseTo(t * (0.2 / Math.sqrt(3)), 8);
    expect(c.mean - c.lo).toBeCloseTo(c.hi - c.mean, 12);
    expect(c.n).toBe(3);
  });

  it('a single value has no interval; NaN is not dropped; no values give NaN, not 0', () => {
    const one = meanCi([0.5], 0.95);
    expect(one.mean).toBe(0.5);
    expect(Number.isNaN(one.lo) && Number.isNaN(one.hi)).toBe(true);
    const withNaN = meanCi([0.1, NaN, 0.3], 0.95);
    expect([withNaN.mean, withNaN.lo, withNaN.hi].every(Number.isNaN)).toBe(true);
    const none = meanCi([], 0.95);
    expect(none.n).toBe(0);
    expect(Number.isNaN(none.mean)).toBe(true);
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

describe('medianCi', () => {
  it('takes the order statistics of the binomial rule (hand-computed for n = 15 and n = 7)', () => {
    const xs = [15, 3, 9, 1, 12, 7, 5, 14, 2, 11, 8, 4, 13, 6, 10]; // 1..15 shuffled
    // P(Binom(15, ½) ≤ 3) = (1 + 15 + 105 + 455) / 32768 = 0.01758 ≤ 0.025 < P(≤ 4) = 0.05923: j = 4
    const ci = medianCi(xs, 0.95);
    expect(ci).toMatchObject({ median: 8, lo: 4, hi: 12, n: 15 });
    expect(ci.coverage).toBeCloseTo(1 - (2 * 576) / 32768, 12);
    // n = 7: P(≤ 0) = 1/128 ≤ 0.025 < P(≤ 1) = 8/128, so j = 1: the range
    expect(medianCi([5, 1, 4, 2, 7, 3, 6], 0.95)).toMatchObject({ median: 4, lo: 1, hi: 7 });
  });
  it('is NaN when n is too small for the level, or a value is NaN', () => {
    expect(medianCi([1, 2, 3, 4, 5], 0.95).lo).toBeNaN(); // P(≤ 0) = 1/32 > 0.025
    expect(medianCi([1, NaN, 3, 4, 5, 6, 7], 0.95).hi).toBeNaN();
  });
});
