import { logAddExp, logMeanExp, logSumExp, sumLogprobs } from './logspace';

describe('logSumExp', () => {
  it('matches the direct sum for moderate values', () => {
    const xs = [-1.2, 0.3, -4, 2];
    const direct = Math.log(xs.reduce((s, x) => s + Math.exp(x), 0));
    expect(logSumExp(xs)).toBeCloseTo(direct, 12);
  });
  it('stays finite where exp underflows', () => {
    // exp(-2000) is 0 in float64; the log-space sum is still exact
    expect(logSumExp([-2000, -2000])).toBeCloseTo(-2000 + Math.log(2), 10);
    expect(logAddExp(-1000, -1001)).toBeCloseTo(-1000 + Math.log1p(Math.exp(-1)), 10);
  });
  it('handles empty, −∞ and NaN inputs explicitly', () => {
    expect(logSumExp([])).toBe(-Infinity);
    expect(logSumExp([-Infinity, -Infinity])).toBe(-Infinity);
    expect(logSumExp([-Infinity, 0])).toBe(0);
    expect(logSumExp([0, NaN])).toBeNaN();
  });
  it('averages in log space', () => {
    expect(logMeanExp([Math.log(0.2), Math.log(0.4)])).toBeCloseTo(Math.log(0.3), 12);
    expect(() => logMeanExp([])).toThrow(/empty/);
    expect(sumLogprobs([-1, -2.5])).toBe(-3.5);
  });
});
