import { groupAdvantages, sampleStd, zeroStdGroupFraction } from './advantages';

describe('groupAdvantages', () => {
  const rewards = [1, 0, 0, 0, 1, 1, 1, 1];
  it("'group' divides by each group's sample std", () => {
    // group 1: mean 0.25, sample std sqrt(0.75/3) = 0.5
    const a = groupAdvantages(rewards, 4, 'group');
    expect(a[0]).toBeCloseTo(0.75 / (0.5 + 1e-4), 10);
    expect(a[1]).toBeCloseTo(-0.25 / (0.5 + 1e-4), 10);
    expect(a.slice(4)).toEqual([0, 0, 0, 0]); // all-equal group
  });
  it("'batch' divides by the batch std, 'none' only centres", () => {
    const s = sampleStd(rewards); // mean 5/8, ss = 3·(5/8)² + 5·(3/8)² = 1.875, /7
    expect(s).toBeCloseTo(Math.sqrt(1.875 / 7), 12);
    expect(groupAdvantages(rewards, 4, 'batch')[0]).toBeCloseTo(0.75 / (s + 1e-4), 10);
    expect(groupAdvantages(rewards, 4, 'none')).toEqual([0.75, -0.25, -0.25, -0.25, 0, 0, 0, 0]);
  });
  it('rejects ragged groups and NaN', () => {
    expect(() => groupAdvantages([1, 0, 1], 2, 'group')).toThrow(/groups of 2/);
    expect(() => groupAdvantages([1, NaN], 2, 'group')).toThrow(/finite/);
  });
  it('counts zero-std groups', () => {
    expect(zeroStdGroupFraction(rewards, 4)).toBe(0.5);
  });
});
