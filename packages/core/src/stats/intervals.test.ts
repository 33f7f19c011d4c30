import { meanCi, wilsonInterval } from './intervals';

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
