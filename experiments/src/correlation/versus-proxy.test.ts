import { mean, Rng, spearman, spearmanBrown } from '@rred/core';
import type { ContinuationRow, StoredTrace } from '@rred/results-store';
import { proxyCeiling, versusProxy, type SegmentPoint } from './versus-proxy';

/** A stored trace with K segments and, per exit point 0..K, the given utilities as samples 0..n−1 (rows shuffled). */
function storedTrace(utilities: number[][]): StoredTrace {
  const continuations: ContinuationRow[] = utilities.flatMap((us, exitPoint) =>
    us.map((utility, sample) => ({ exitPoint, sample, offset: exitPoint, limit: 10, length: 3, truncated: false, utility })),
  );
  continuations.reverse(); // the order rows arrive in must not matter: samples are ordered by index
  return {
    segments: utilities.slice(1).map((_, i) => ({ start: i, end: i + 1 })),
    continuations,
  } as unknown as StoredTrace;
}

const options = { resamples: 200, level: 0.9 };

describe('proxyCeiling', () => {
  // 2 traces, n = 4 samples per exit point: half A = samples 0-1, half B = samples 2-3
  const t1 = [
    [0, 0, 0, 1],
    [1, 0, 1, 1],
    [1, 1, 0, 0],
    [1, 1, 1, 1],
  ];
  const t2 = [
    [0, 0, 0, 0],
    [0, 1, 0, 0],
    [1, 1, 1, 0],
    [0, 0, 1, 1],
  ];

  it('is the Spearman–Brown corrected half-vs-half Spearman of ΔV_MC, and its square root', () => {
    const halves = (us: number[][], from: number, to: number) => {
      const v = us.map((u) => mean(u.slice(from, to)));
      return v.slice(1).map((x, k) => x - v[k]);
    };
    // by hand: t1 ΔV_A = [0.5, 0.5, 0], ΔV_B = [0.5, −1, 1]; t2 ΔV_A = [0.5, 0.5, −1], ΔV_B = [0, 0.5, 0.5]
    expect(halves(t1, 0, 2)).toEqual([0.5, 0.5, 0]);
    expect(halves(t1, 2, 4)).toEqual([0.5, -1, 1]);
    const a = [...halves(t1, 0, 2), ...halves(t2, 0, 2)];
    const b = [...halves(t1, 2, 4), ...halves(t2, 2, 4)];
    const r = spearman(a, b);
    const c = proxyCeiling([storedTrace(t1), storedTrace(t2)], options, new Rng(1))!;
    expect(c.samples).toBe(4);
    expect(c.half).toBe(2);
    expect(c.segments).toBe(6);
    expect(c.pooled.halfCorrelation).toBeCloseTo(r, 12);
    expect(c.pooled.reliability.value).toBeCloseTo((2 * r) / (1 + r), 12);
    expect(c.pooled.ceiling.value).toBeCloseTo(Math.sqrt(Math.max(0, (2 * r) / (1 + r))), 12);
    // within trace: the mean of the two per-trace half-vs-half Spearmans, then corrected
    const within = mean([spearman(halves(t1, 0, 2), halves(t1, 2, 4)), spearman(halves(t2, 0, 2), halves(t2, 2, 4))]);
    expect(c.within.halfCorrelation).toBeCloseTo(within, 12);
    expect(c.within.reliability.value).toBeCloseTo(spearmanBrown(within, 2), 12);
    expect(c.within.tracesUsed).toBe(2);
  });

  it('with an odd n leaves the last sample out and corrects by n / ⌊n/2⌋', () => {
    const odd = (us: number[][], extra: number) => us.map((u) => [...u, extra]);
    const c = proxyCeiling([storedTrace(odd(t1, 1)), storedTrace(odd(t2, 0))], options, new Rng(1))!;
    const even = proxyCeiling([storedTrace(t1), storedTrace(t2)], options, new Rng(1))!;
    expect(c.samples).toBe(5);
    expect(c.half).toBe(2);
    expect(c.pooled.halfCorrelation).toBeCloseTo(even.pooled.halfCorrelation, 12);
    expect(c.pooled.reliability.value).toBeCloseTo(spearmanBrown(even.pooled.halfCorrelation, 2.5), 12);
  });

  it('is null for a run without stored continuations (recorded before they were stored)', () => {
    const bare = { segments: [{ start: 0, end: 1 }], continuations: [] } as unknown as StoredTrace;
    expect(proxyCeiling([bare], options, new Rng(1))).toBeNull();
    expect(proxyCeiling([], options, new Rng(1))).toBeNull();
  });
});

describe('versusProxy', () => {
  const mc = [
    [0.1, -0.2, 0.4, 0],
    [0.3, 0.2, -0.5],
  ];
  const x = [
    [1, 0, 2, NaN], // the NaN segment is left out within its trace and counted as non-finite pooled
    [-1, 2, 0],
  ];
  const points: SegmentPoint[] = mc.flatMap((trace, t) => trace.map((v, k) => ({ trace: t, values: { mc: v, x: x[t][k] } })));

  it('within trace: the mean of each trace Spearman over its finite segments; pooled: the finite pairs', () => {
    const [row, missing] = versusProxy(points, ['x', 'absent'], options, new Rng(3));
    expect(row.within.value).toBeCloseTo(mean([spearman([1, 0, 2], [0.1, -0.2, 0.4]), spearman([-1, 2, 0], [0.3, 0.2, -0.5])]), 12);
    expect(row.within.tracesUsed).toBe(2);
    expect(row.pooled.nonFinite).toBe(1);
    expect(row.pooled.n).toBe(6);
    expect(row.pooled.spearman).toBeCloseTo(spearman([1, 0, 2, -1, 2, 0], [0.1, -0.2, 0.4, 0.3, 0.2, -0.5]), 12);
    // a method this run did not score: no value anywhere, every segment counted as non-finite
    expect(missing.within.value).toBeNaN();
    expect(missing.pooled.spearman).toBeNaN();
    expect(missing.pooled.nonFinite).toBe(7);
  });
});
