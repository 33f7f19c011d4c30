import { Rng } from '../rng';
import { spearman } from './correlation';
import { reliabilityCeiling, spearmanBrown, splitHalfReliability, withinTraceReliability } from './reliability';

describe('spearmanBrown', () => {
  it('factor·r / (1 + (factor − 1)·r), by hand', () => {
    expect(spearmanBrown(0.5, 2)).toBeCloseTo(2 / 3, 12); // 1 / 1.5
    expect(spearmanBrown(0.6, 3)).toBeCloseTo(1.8 / 2.2, 12); // 0.818181…
    expect(spearmanBrown(0.8, 0.5)).toBeCloseTo(0.4 / 0.6, 12); // halving a test: 0.666…
    expect(spearmanBrown(-0.25, 2)).toBeCloseTo(-0.5 / 0.75, 12);
    expect(spearmanBrown(0, 2)).toBe(0);
    expect(spearmanBrown(1, 2)).toBe(1);
    expect(spearmanBrown(0.3, 1)).toBeCloseTo(0.3, 15);
  });

  it('NaN in → NaN; NaN where the denominator is ≤ 0; wrong arguments throw', () => {
    expect(spearmanBrown(NaN, 2)).toBeNaN();
    expect(spearmanBrown(-1, 2)).toBeNaN();
    expect(spearmanBrown(-0.75, 3)).toBeNaN(); // 1 + 2·(−0.75) < 0
    expect(() => spearmanBrown(1.2, 2)).toThrow(/r must be in \[-1, 1\], got 1.2/);
    expect(() => spearmanBrown(0.5, 0)).toThrow(/factor must be a positive number, got 0/);
    expect(() => spearmanBrown(0.5, NaN)).toThrow(RangeError);
  });
});

describe('reliabilityCeiling', () => {
  it('√reliability; a negative reliability is noise → 0; NaN → NaN', () => {
    expect(reliabilityCeiling(0.64)).toBeCloseTo(0.8, 12);
    expect(reliabilityCeiling(1)).toBe(1);
    expect(reliabilityCeiling(-0.3)).toBe(0);
    expect(reliabilityCeiling(NaN)).toBeNaN();
  });
});

describe('splitHalfReliability', () => {
  // Three traces, halves A and B per segment. The third has 2 segments: pooled only.
  const traces = [
    { a: [1, 2, 3], b: [1, 2, 3] }, // within ρ = 1
    { a: [4, 5, 6], b: [5, 6, 4] }, // ranks 1,2,3 vs 2,3,1: Σd² = 6, ρ = 1 − 6·6/(3·8) = −0.5
    { a: [7, 8], b: [8, 7] }, // too short for a within-trace ρ
  ];

  it('matches the hand computation (pooled and mean within-trace), Spearman–Brown with factor 2', () => {
    const r = splitHalfReliability(traces, new Rng(1), { resamples: 500 });
    expect(r.traces).toBe(3);
    expect(r.segments).toBe(8);
    // pooled: A = 1..8, B = 1,2,3,5,6,4,8,7 → d = 0,0,0,−1,−1,2,−1,1, Σd² = 8, ρ = 1 − 6·8/(8·63) = 19/21
    expect(r.pooled.halfCorrelation).toBeCloseTo(19 / 21, 12);
    // SB: 2·(19/21) / (1 + 19/21) = 38/40 = 0.95; ceiling √0.95
    expect(r.pooled.reliability.value).toBeCloseTo(0.95, 12);
    expect(r.pooled.ceiling.value).toBeCloseTo(Math.sqrt(0.95), 12);
    // within: mean(1, −0.5) = 0.25 over 2 traces → SB 0.5/1.25 = 0.4, ceiling √0.4
    expect(r.withinTrace.tracesUsed).toBe(2);
    expect(r.withinTrace.halfCorrelation).toBeCloseTo(0.25, 12);
    expect(r.withinTrace.reliability.value).toBeCloseTo(0.4, 12);
    expect(r.withinTrace.ceiling.value).toBeCloseTo(Math.sqrt(0.4), 12);
  });

  it('the interval resamples traces: within-trace means can only be 1, 0.25 or −0.5', () => {
    // resampling the 2 used traces: both the first (p ¼) → SB(1) = 1; both the second (p ¼) → SB(−0.5) = −2
    const r = splitHalfReliability(traces, new Rng(7), { resamples: 2000 });
    expect(r.withinTrace.reliability.lo).toBeCloseTo(-2, 12);
    expect(r.withinTrace.reliability.hi).toBeCloseTo(1, 12);
    expect(r.withinTrace.ceiling.lo).toBe(0);
    expect(r.withinTrace.ceiling.hi).toBe(1);
    // a resample of the third trace only has pooled ρ = −1, where Spearman–Brown is undefined: the pooled
    // interval is NaN, not an interval with that replicate left out
    expect(r.pooled.reliability.value).toBeCloseTo(0.95, 12);
    expect(r.pooled.reliability.lo).toBeNaN();
    expect(r.pooled.ceiling.hi).toBeNaN();
    expect(splitHalfReliability(traces, new Rng(7), { resamples: 2000 })).toEqual(r); // seeded
  });

  it('identical halves: reliability 1 with a collapsed interval; a factor other than 2', () => {
    const same = [
      { a: [0.1, 0.5, 0.2], b: [0.1, 0.5, 0.2] },
      { a: [3, 1, 2, 0], b: [3, 1, 2, 0] },
    ];
    const r = splitHalfReliability(same, new Rng(2), { resamples: 200 });
    for (const e of [r.pooled.reliability, r.pooled.ceiling, r.withinTrace.reliability, r.withinTrace.ceiling]) {
      for (const v of [e.value, e.lo, e.hi]) expect(v).toBeCloseTo(1, 12);
    }
    const third = splitHalfReliability(traces, new Rng(1), { resamples: 10, factor: 3 });
    expect(third.pooled.reliability.value).toBeCloseTo((3 * 19) / 21 / (1 + (2 * 19) / 21), 12);
  });

  it('simulated halves (truth + independent noise): the reliability and ceiling of classical test theory', () => {
    // per segment: truth ~ N(0, 1), each half = truth + N(0, 1) noise. Pearson between halves 0.5; for normal
    // data Spearman = (6/π)·asin(0.5/2) = 0.4826, so SB → 0.651; the full (mean of halves) measure correlates with
    // the truth at about √0.651 = 0.807 — the ceiling for any estimator, the truth itself included.
    const rng = new Rng(11);
    const truth: number[][] = [];
    const halves = Array.from({ length: 60 }, () => {
      const t = Array.from({ length: 6 }, () => rng.normal());
      truth.push(t);
      return { a: t.map((v) => v + rng.normal()), b: t.map((v) => v + rng.normal()) };
    });
    const r = splitHalfReliability(halves, new Rng(12), { resamples: 400 });
    expect(r.pooled.halfCorrelation).toBeGreaterThan(0.4);
    expect(r.pooled.halfCorrelation).toBeLessThan(0.57);
    expect(r.pooled.reliability.value).toBeCloseTo(spearmanBrown(r.pooled.halfCorrelation, 2), 12);
    expect(r.pooled.reliability.lo).toBeLessThan(r.pooled.reliability.value);
    expect(r.pooled.reliability.hi).toBeGreaterThan(r.pooled.reliability.value);
    expect(r.pooled.reliability.lo).toBeLessThan(0.651);
    expect(r.pooled.reliability.hi).toBeGreaterThan(0.651);
    const full = halves.flatMap((h) => h.a.map((v, j) => (v + h.b[j]) / 2));
    const truthVsFull = spearman(truth.flat(), full);
    expect(Math.abs(r.pooled.ceiling.value - truthVsFull)).toBeLessThan(0.08);
    expect(r.pooled.ceiling.lo).toBeCloseTo(Math.sqrt(r.pooled.reliability.lo), 2);
    expect(r.withinTrace.tracesUsed).toBe(60);
    const other = splitHalfReliability(halves, new Rng(13), { resamples: 400 });
    expect(other.pooled.reliability.value).toBe(r.pooled.reliability.value);
    expect(other.pooled.reliability.lo).not.toBe(r.pooled.reliability.lo); // the interval comes from the seeded draws
  });

  it('NaN and empty input follow the module convention; unequal halves throw', () => {
    const r = splitHalfReliability([{ a: [1, NaN, 3], b: [1, 2, 3] }, ...traces], new Rng(1), { resamples: 50 });
    expect(r.pooled.reliability.value).toBeNaN();
    expect(r.pooled.reliability.lo).toBeNaN();
    expect(r.withinTrace.reliability.value).toBeNaN();
    const none = splitHalfReliability([], new Rng(1));
    expect(none.pooled.reliability.value).toBeNaN();
    expect(none.withinTrace.tracesUsed).toBe(0);
    expect(() => splitHalfReliability([{ a: [1, 2], b: [1] }], new Rng(1))).toThrow(/trace 0 has 2 vs 1 values/);
  });
});

describe('withinTraceReliability', () => {
  it("is splitHalfReliability's within-trace part from the same rng fork, and checks lengths the same way", () => {
    const rng = new Rng(9);
    const traces = Array.from({ length: 12 }, (_, t) => {
      const truth = Array.from({ length: 5 }, () => rng.next());
      return { a: truth.map((x) => x + 0.3 * rng.next()), b: truth.map((x, i) => (t % 4 === 0 && i === 0 ? 0.5 : x + 0.3 * rng.next())) };
    });
    const whole = splitHalfReliability(traces, new Rng(21), { resamples: 300, factor: 3 }).withinTrace;
    const alone = withinTraceReliability(traces, new Rng(21).fork('within'), { resamples: 300, factor: 3 });
    expect(alone).toEqual(whole);
    // the half correlation is the mean per-trace Spearman, corrected with factor 3: 3r / (1 + 2r)
    const r = alone.halfCorrelation;
    expect(alone.reliability.value).toBeCloseTo((3 * r) / (1 + 2 * r), 12);
    expect(() => withinTraceReliability([{ a: [1, 2], b: [1] }], new Rng(1))).toThrow(/trace 0 has 2 vs 1 values/);
  });
});
