/**
 * The comparisons the fine-tuning table answers, paired by seed, with Holm over every comparison of the
 * table (pure; tested on synthetic numbers):
 * - every arm against `grpo` (does it beat tuned GRPO?);
 * - `rredcot` against `sigma-shuffle` (does the content of the credit matter, beyond its concentration?),
 *   against `signed-position` (beyond the outcome-signed position?) and against `grpo-ref-sft` (is it more
 *   than access to the references?);
 * - `rredcot-oracle-aligned` against `rredcot` (what the answer key adds).
 * Per comparison: d_s = a_s − b_s over the seeds both ran (final avg@k, mean over splits), the mean, a
 * paired Student-t p-value, and Holm's step-down over the whole family: the comparison at Holm rank i of
 * m gets the t interval at level 1 − α/(m − i + 1) (α = 1 − confidence), and is "supported" only when
 * Holm rejects it, i.e. that interval excludes 0 and every smaller p was rejected too.
 */
import { holm, mean, meanCi } from '@rred/core';

interface ArmPair {
  a: string;
  b: string;
}

/** The pairs compared on a bed that runs `methods`, in table order. */
export function comparisonPairs(methods: readonly string[]): ArmPair[] {
  const has = (m: string) => methods.includes(m);
  const out: ArmPair[] = [];
  if (has('grpo')) for (const m of methods) if (m !== 'grpo') out.push({ a: m, b: 'grpo' });
  if (has('rredcot')) for (const b of ['sigma-shuffle', 'signed-position', 'grpo-ref-sft']) if (has(b)) out.push({ a: 'rredcot', b });
  if (has('rredcot-oracle-aligned') && has('rredcot')) out.push({ a: 'rredcot-oracle-aligned', b: 'rredcot' });
  return out;
}

export interface Comparison extends ArmPair {
  testBed: string;
  /** Seeds both arms ran, ascending. */
  seeds: number[];
  /** Mean of a − b over those seeds. */
  diff: number;
  /** Two-sided paired t p-value (NaN with fewer than 2 seeds or no spread). */
  p: number;
  /** Coverage of [lo, hi]: Holm's step level 1 − α/(m − rank + 1). */
  level: number;
  lo: number;
  hi: number;
  adjustedP: number;
  /** Holm rejects "no difference" (the interval at its level excludes 0, and every earlier step did). */
  supported: boolean;
}

/**
 * Two-sided p of the one-sample t test of mean 0 over d (seeds): the α at which the (1 − α) t interval
 * (meanCi) first touches 0, by bisection on α (the interval widens monotonically as α falls), to ~1e-15;
 * below 1e-15 it returns 1e-15. NaN with fewer than 2 values; 1 or 0 without spread (mean 0 or not).
 */
export function pairedTP(d: readonly number[]): number {
  const c = meanCi(d, 0.5);
  if (Number.isNaN(c.lo)) return NaN;
  if (c.lo === c.hi) return c.mean === 0 ? 1 : 0;
  const excludes = (alpha: number) => {
    const x = meanCi(d, 1 - alpha);
    return x.lo > 0 || x.hi < 0;
  };
  const floor = 1e-15;
  if (excludes(floor)) return floor;
  let lo = floor; // the interval at 1 − lo contains 0
  let hi = 1; // at level 0 it is the point mean ≠ 0
  while (hi - lo > 1e-15) {
    const mid = (lo + hi) / 2;
    if (excludes(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The family: every pair of every bed. `value(bed, method, seed)`: the per-seed number compared (final
 * avg@k, mean over splits), undefined where that arm did not run the seed.
 */
export function compareArms(
  beds: readonly { name: string; methods: readonly string[] }[],
  seedsOf: (bed: string, method: string) => readonly number[],
  value: (bed: string, method: string, seed: number) => number | undefined,
  confidence: number,
): Comparison[] {
  const alpha = 1 - confidence;
  const rows = beds.flatMap((bed) =>
    comparisonPairs(bed.methods).map((pair) => {
      const bSeeds = new Set(seedsOf(bed.name, pair.b));
      const seeds = seedsOf(bed.name, pair.a)
        .filter((s) => bSeeds.has(s))
        .sort((x, y) => x - y);
      const d = seeds.map((s) => value(bed.name, pair.a, s)! - value(bed.name, pair.b, s)!);
      return { testBed: bed.name, ...pair, seeds, d };
    }),
  );
  const ps = rows.map((r) => pairedTP(r.d));
  const steps = holm(ps, alpha);
  return rows.map((r, i) => {
    const level = 1 - steps[i].alpha;
    const c = meanCi(r.d, level);
    return {
      testBed: r.testBed,
      a: r.a,
      b: r.b,
      seeds: r.seeds,
      diff: mean(r.d),
      p: ps[i],
      level,
      lo: c.lo,
      hi: c.hi,
      adjustedP: steps[i].adjustedP,
      supported: steps[i].rejected,
    };
  });
}
