import { Rng } from '../rng';
import { withinTraceSpearman } from './within-trace';

describe('withinTraceSpearman', () => {
  const traces = [
    { x: [1, 2, 3, 4], y: [10, 20, 30, 40] }, // ρ = 1
    { x: [1, 2, 3, 4], y: [2, 1, 4, 3] }, // d = −1,1,−1,1: ρ = 1 − 6·4/(4·15) = 0.6
    { x: [3, 2, 1], y: [1, 3, 2] }, // ranks 3,2,1 vs 1,3,2: Σd² = 4+1+1 = 6, ρ = 1 − 36/24 = −0.5
    { x: [1, 2], y: [2, 1] }, // < 3 segments: left out
    { x: [5, 5, 5], y: [1, 2, 3] }, // constant side: left out
  ];

  it('mean of the per-trace Spearman over the traces where it is defined, by hand', () => {
    const r = withinTraceSpearman(traces, new Rng(1), { resamples: 500 });
    expect(r.value).toBeCloseTo((1 + 0.6 - 0.5) / 3, 12);
    expect(r.tracesUsed).toBe(3);
    expect(r.traces).toBe(5);
    expect(r.perTrace.slice(0, 3).map((v) => +v.toFixed(12))).toEqual([1, 0.6, -0.5]);
    expect(r.perTrace.slice(3).every(Number.isNaN)).toBe(true);
  });

  it('the interval resamples traces: bounded by the extreme per-trace values, reached at these quantiles', () => {
    // three used traces: all three draws the −0.5 trace has p 1/27 > 2.5%, all three the ρ = 1 trace too
    const r = withinTraceSpearman(traces, new Rng(3), { resamples: 4000 });
    expect(r.lo).toBeCloseTo(-0.5, 12);
    expect(r.hi).toBeCloseTo(1, 12);
    expect(withinTraceSpearman(traces, new Rng(3), { resamples: 4000 })).toEqual(r);
    const narrow = withinTraceSpearman(traces, new Rng(3), { resamples: 4000, level: 0.5 });
    expect(narrow.lo).toBeGreaterThan(-0.5);
    expect(narrow.hi).toBeLessThan(1);
  });

  it('a NaN value is missing data, not an undefined correlation: the result is NaN; no usable trace → NaN', () => {
    const r = withinTraceSpearman([...traces, { x: [1, NaN, 3], y: [1, 2, 3] }], new Rng(1), { resamples: 50 });
    expect(r.value).toBeNaN();
    expect(r.lo).toBeNaN();
    expect(r.tracesUsed).toBe(4);
    const none = withinTraceSpearman(traces.slice(3), new Rng(1));
    expect(none.value).toBeNaN();
    expect(none.tracesUsed).toBe(0);
    expect(() => withinTraceSpearman([{ x: [1, 2, 3], y: [1, 2] }], new Rng(1))).toThrow(/trace 0 has 3 vs 2 values/);
  });
});
