import { normalQuantile, tQuantile } from './distributions';

describe('distributions (jstat)', () => {
  it('t quantiles match the closed forms for df = 1 and 2 to 2e-8 relative', () => {
    for (const p of [0.9, 0.95, 0.975, 0.99, 0.995]) {
      const cauchy = Math.tan(Math.PI * (p - 0.5)); // df = 1
      const df2 = (2 * p - 1) / Math.sqrt(2 * p * (1 - p)); // df = 2
      expect(Math.abs(tQuantile(p, 1) / cauchy - 1)).toBeLessThan(2e-8);
      expect(Math.abs(tQuantile(p, 2) / df2 - 1)).toBeLessThan(2e-8);
    }
  });

  it('t quantiles match the textbook table, are symmetric, and approach the normal for large df', () => {
    expect(tQuantile(0.975, 10)).toBeCloseTo(2.2281, 4);
    expect(tQuantile(0.95, 5)).toBeCloseTo(2.015, 3);
    expect(tQuantile(0.025, 2)).toBeCloseTo(-tQuantile(0.975, 2), 10);
    expect(tQuantile(0.5, 7)).toBeCloseTo(0, 9);
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.959966, 5);
    expect(() => tQuantile(1, 3)).toThrow(RangeError);
    expect(() => tQuantile(0.9, 0)).toThrow(/df > 0/);
  });

  it('normal quantiles match the table to 1e-9', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 9);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 12);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.5758293035489, 9);
    expect(() => normalQuantile(1)).toThrow(/\(0, 1\)/);
  });
});
