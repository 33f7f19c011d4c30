import { Rng } from '../rng';
import { holm, pairedBootstrapDifference } from './paired';

describe('pairedBootstrapDifference', () => {
  it('resamples the pairs together, one rng.next() per draw: replicates replayed by hand', () => {
    // dyadic values: every sum is exact, so a replicate of 0 is exactly 0 on both sides
    const a = [0.75, 0, 0.5, 0.75];
    const b = [0.25, 0.5, 0.5, 0];
    const d = [0.5, -0.5, 0, 0.75];
    const r = pairedBootstrapDifference(a, b, new Rng(11), { resamples: 200 });
    const replay = new Rng(11);
    const expected = Array.from({ length: 200 }, () => {
      let s = 0;
      for (let i = 0; i < 4; i++) s += d[Math.floor(replay.next() * 4)];
      return s / 4;
    });
    r.replicates.forEach((x, i) => expect(x).toBeCloseTo(expected[i], 12));
    expect(r.value).toBeCloseTo(0.1875, 12);
    expect(expected.some((x) => x === 0)).toBe(true);
    const below = expected.filter((x) => x <= 0).length / 200;
    const above = expected.filter((x) => x >= 0).length / 200;
    expect(r.p).toBeCloseTo(2 * Math.min(below, above), 12);
    expect(r.lo).toBeLessThan(r.value);
    expect(r.hi).toBeGreaterThan(r.value);
  });

  it('a constant shift: the interval collapses on it and p = 0; no difference at all: p = 1', () => {
    const b = [0.1, 0.4, -0.3, 0.2, 0.5];
    const shifted = pairedBootstrapDifference(
      b.map((x) => x + 0.25),
      b,
      new Rng(3),
      { resamples: 100 },
    );
    expect(shifted.value).toBeCloseTo(0.25, 12);
    expect(shifted.lo).toBeCloseTo(0.25, 12);
    expect(shifted.hi).toBeCloseTo(0.25, 12);
    expect(shifted.p).toBe(0);
    const same = pairedBootstrapDifference(b, b, new Rng(3), { resamples: 100 });
    expect(same.p).toBe(1);
    expect(same.value).toBe(0);
  });

  it('a difference of one sign in most units is significant, p small; NaN propagates; unequal lengths throw', () => {
    const a = Array.from({ length: 40 }, (_, i) => 0.3 + 0.01 * (i % 5));
    const b = a.map((x, i) => x - (i === 7 ? -0.05 : 0.1));
    const r = pairedBootstrapDifference(a, b, new Rng(1), { resamples: 500 });
    expect(r.p).toBeLessThan(0.01);
    expect(r.lo).toBeGreaterThan(0);
    const nan = pairedBootstrapDifference([1, NaN], [0, 0], new Rng(1));
    expect([nan.value, nan.lo, nan.hi, nan.p].every(Number.isNaN)).toBe(true);
    expect(pairedBootstrapDifference([], [], new Rng(1)).value).toBeNaN();
    expect(() => pairedBootstrapDifference([1], [1, 2], new Rng(1))).toThrow(RangeError);
  });
});

describe('holm', () => {
  it('the textbook example: p = 0.01, 0.04, 0.03, 0.005 at α = 0.05', () => {
    // sorted: 0.005 ≤ 0.05/4 = 0.0125 reject; 0.01 ≤ 0.05/3 = 0.0167 reject; 0.03 > 0.05/2 = 0.025 stop:
    // 0.03 and 0.04 are kept (0.04 ≤ 0.05/1 would pass on its own, but the step-down has stopped).
    // adjusted: 4·0.005 = 0.02; max(0.02, 3·0.01) = 0.03; max(0.03, 2·0.03) = 0.06; max(0.06, 1·0.04) = 0.06
    const steps = holm([0.01, 0.04, 0.03, 0.005]);
    expect(steps.map((s) => s.rank)).toEqual([2, 4, 3, 1]);
    expect(steps.map((s) => s.rejected)).toEqual([true, false, false, true]);
    const adjusted = [0.03, 0.06, 0.06, 0.02];
    steps.forEach((s, i) => expect(s.adjustedP).toBeCloseTo(adjusted[i], 12));
    const alphas = [0.05 / 3, 0.05, 0.05 / 2, 0.05 / 4];
    steps.forEach((s, i) => expect(s.alpha).toBeCloseTo(alphas[i], 12));
  });

  it('stops at the first kept hypothesis; caps at 1; a NaN counts in m, sorts last and is kept', () => {
    // m = 2: 0.03 > 0.025 kept, so 0.04 is kept too (adjusted max(0.06, 0.04) = 0.06)
    expect(holm([0.04, 0.03]).map((s) => [s.rejected, s.adjustedP])).toEqual([
      [false, 0.06],
      [false, 0.06],
    ]);
    expect(holm([0.6, 0.9]).map((s) => s.adjustedP)).toEqual([1, 1]);
    // m = 3 with a NaN: 0.01·3 = 0.03 ≤ 0.05 rejected; 0.02·2 = 0.04 rejected; NaN kept
    const withNaN = holm([NaN, 0.02, 0.01]);
    expect(withNaN.map((s) => s.rejected)).toEqual([false, true, true]);
    expect(withNaN[0].adjustedP).toBeNaN();
    expect(withNaN[0].rank).toBe(3);
    expect(withNaN[1].adjustedP).toBeCloseTo(0.04, 12);
    expect(() => holm([1.2])).toThrow(RangeError);
    expect(holm([])).toEqual([]);
  });
});
