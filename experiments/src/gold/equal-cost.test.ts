import { mcAtCost } from './equal-cost';

describe('mcAtCost', () => {
  const draws = [
    { n: 1, tokens: 100, perTrace: [0.1, 0, -0.2] },
    { n: 4, tokens: 400, perTrace: [0.3, 0.6, 0.2] },
    { n: 2, tokens: 200, perTrace: [0.2, 0.4, 0] },
  ];

  it('interpolates each trace and n linearly in log tokens between the bracketing MC(n)', () => {
    // √(200·400) is halfway between 200 and 400 in log tokens: the traces' midpoints, n = √(2·4) = 2√2
    const at = mcAtCost(Math.sqrt(200 * 400), draws)!;
    [0.25, 0.5, 0.1].forEach((x, j) => expect(at.perTrace[j]).toBeCloseTo(x, 12));
    expect(at.n).toBeCloseTo(2 * Math.SQRT2, 12);
    expect(at.range).toBe('within');
    expect(mcAtCost(200, draws)).toEqual({ perTrace: [0.2, 0.4, 0], n: 2, range: 'within' });
    expect(mcAtCost(100, draws)!.perTrace).toEqual([0.1, 0, -0.2]);
  });

  it('outside the measured range: the nearest draw, said so; never extrapolates', () => {
    expect(mcAtCost(0, draws)).toEqual({ perTrace: [0.1, 0, -0.2], n: 1, range: 'below' });
    expect(mcAtCost(500, draws)).toEqual({ perTrace: [0.3, 0.6, 0.2], n: 4, range: 'above' });
    expect(mcAtCost(100, [])).toBeNull();
  });
});
