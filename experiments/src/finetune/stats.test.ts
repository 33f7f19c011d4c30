import { incompleteBeta, meanCi, studentTCdf, studentTQuantile } from './stats';

describe('finetune stats', () => {
  it('Student-t quantiles match the textbook values', () => {
    // two-sided 95 % critical values t_{0.975, df}
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.3027, 3);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.2281, 3);
    expect(studentTQuantile(0.95, 5)).toBeCloseTo(2.0150, 3);
    expect(studentTQuantile(0.025, 2)).toBeCloseTo(-4.3027, 3);
    expect(studentTQuantile(0.5, 7)).toBeCloseTo(0, 9);
    // large df approaches the normal quantile 1.95996
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.96, 2);
    expect(() => studentTQuantile(1, 3)).toThrow(RangeError);
  });

  it('the CDF is the Cauchy CDF at df = 1 and symmetric', () => {
    for (const t of [-3, -0.5, 0, 0.7, 4]) expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 10);
    expect(studentTCdf(1.3, 4) + studentTCdf(-1.3, 4)).toBeCloseTo(1, 12);
    // I_x(1, 1) = x; I_x(a, 1) = x^a
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(incompleteBeta(0.4, 3, 1)).toBeCloseTo(0.064, 12);
  });

  it('meanCi: t interval over seeds; a single value has no interval; NaN is not dropped', () => {
    const c = meanCi([0.2, 0.4, 0.6], 0.95);
    // sd = 0.2, se = 0.2 / √3, half-width = t_{0.975,2} · se
    expect(c.mean).toBeCloseTo(0.4, 12);
    expect(c.hi - c.mean).toBeCloseTo(4.302653 * (0.2 / Math.sqrt(3)), 5);
    expect(c.mean - c.lo).toBeCloseTo(c.hi - c.mean, 12);
    expect(c.n).toBe(3);
    const one = meanCi([0.5], 0.95);
    expect(one.mean).toBe(0.5);
    expect(Number.isNaN(one.lo) && Number.isNaN(one.hi)).toBe(true);
    expect(Number.isNaN(meanCi([0.1, NaN], 0.95).mean)).toBe(true);
    expect(meanCi([], 0.95).n).toBe(0);
  });
});
