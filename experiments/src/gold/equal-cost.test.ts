import { mcAtCost } from './equal-cost';

describe('mcAtCost', () => {
  const mc = [
    { n: 1, tokens: 100, quality: 0.1 },
    { n: 4, tokens: 400, quality: 0.3 },
    { n: 2, tokens: 200, quality: 0.2 },
  ];

  it('interpolates quality and n linearly in log tokens between the bracketing MC(n)', () => {
    const at = mcAtCost(Math.sqrt(200 * 400), mc);
    expect(at.quality).toBeCloseTo(0.25, 12);
    expect(at.n).toBe((2 * Math.SQRT2).toFixed(1));
    expect(mcAtCost(200, mc)).toEqual({ quality: 0.2, n: '2.0' });
    expect(mcAtCost(100, mc).quality).toBeCloseTo(0.1, 12);
  });

  it('says where a cost falls outside the measured range and never extrapolates', () => {
    expect(mcAtCost(50, mc)).toEqual({ quality: null, n: '< 1' });
    expect(mcAtCost(500, mc)).toEqual({ quality: null, n: '> 4' });
    expect(mcAtCost(0, mc)).toEqual({ quality: null, n: '—' });
  });
});
