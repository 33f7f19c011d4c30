/**
 * Paired comparisons: two methods scored on the same units (e.g. one within-trace correlation per
 * trace for each), the seeded bootstrap of their mean difference with a two-sided bootstrap p-value,
 * and the Holm step-down correction over a family of such comparisons. Hand-written: no kept library
 * has a bootstrap that takes our seeded `Rng`, nor Holm.
 */
import type { Rng } from '../rng';
import { percentileInterval, type BootstrapOptions, type Estimate } from './bootstrap';
import { mean } from './descriptive';

interface PairedDifference extends Estimate {
  /**
   * Two-sided bootstrap p-value of "the mean difference is 0": 2·min(share of replicates ≤ 0, share ≥ 0),
   * capped at 1 (0 when every replicate is on one side: p < 1/resamples).
   */
  p: number;
  /** The bootstrap replicates of the mean difference (for intervals at other levels, e.g. Holm's). [resamples] */
  replicates: number[];
}

/**
 * Mean of a_i − b_i over the units i with a percentile interval and a p-value from a bootstrap that
 * resamples units with replacement (the same draws for a and b: the pairing is kept), one `rng.next()`
 * per draw as in `clusterBootstrap`. A NaN in a or b gives NaN for all (the module's convention);
 * no units give NaN. Unequal lengths throw RangeError.
 */
export function pairedBootstrapDifference(
  a: readonly number[],
  b: readonly number[],
  rng: Rng,
  { resamples = 2000, level = 0.95 }: BootstrapOptions = {},
): PairedDifference {
  if (a.length !== b.length) throw new RangeError(`pairedBootstrapDifference: ${a.length} vs ${b.length} values`);
  const d = a.map((x, i) => x - b[i]);
  if (d.length === 0 || d.some(Number.isNaN)) return { value: NaN, lo: NaN, hi: NaN, p: NaN, replicates: [] };
  // clusterBootstrap's draws (one rng.next() per unit) and mean's left-to-right sum, without a sample array per resample
  const n = d.length;
  const replicates = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += d[Math.floor(rng.next() * n)];
    replicates[r] = total / n;
  }
  const [lo, hi] = percentileInterval(replicates, level);
  return { value: mean(d), lo, hi, p: bootstrapP(replicates), replicates };
}

/** 2·min(share ≤ 0, share ≥ 0), capped at 1. */
function bootstrapP(replicates: readonly number[]): number {
  const below = replicates.filter((r) => r <= 0).length / replicates.length;
  const above = replicates.filter((r) => r >= 0).length / replicates.length;
  return Math.min(1, 2 * Math.min(below, above));
}

/** Holm's verdict on one hypothesis of a family. */
interface HolmStep {
  /** 1-based position of its p among the family's, ascending (ties in input order; NaN last). */
  rank: number;
  /** The step's level α/(m − rank + 1): reject when p ≤ this and every smaller p was rejected. */
  alpha: number;
  /** Holm-adjusted p: max over ranks j ≤ rank of min(1, (m − j + 1)·p_(j)); NaN for a NaN p. */
  adjustedP: number;
  /** adjustedP ≤ α (the same as the step-down rule). */
  rejected: boolean;
}

/**
 * Holm's step-down correction (Holm 1979) of m p-values at family-wise level `alpha`: sort ascending,
 * compare the i-th smallest with α/(m − i + 1), stop at the first that is not below. A NaN p counts as a
 * hypothesis of the family (m includes it), sorts last and is never rejected. Returns one step per input, in input order.
 */
export function holm(pValues: readonly number[], alpha = 0.05): HolmStep[] {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`holm: alpha must be in (0, 1), got ${alpha}`);
  for (const p of pValues) if (p < 0 || p > 1) throw new RangeError(`holm: p-values must be in [0, 1], got ${p}`);
  const m = pValues.length;
  const order = pValues
    .map((p, i) => ({ p, i }))
    .sort((x, y) => (Number.isNaN(x.p) ? 1 : 0) - (Number.isNaN(y.p) ? 1 : 0) || x.p - y.p || x.i - y.i);
  const steps = new Array<HolmStep>(m);
  let running = 0;
  order.forEach(({ p, i }, j) => {
    const factor = m - j;
    running = Number.isNaN(p) ? NaN : Math.max(running, Math.min(1, factor * p));
    steps[i] = { rank: j + 1, alpha: alpha / factor, adjustedP: running, rejected: running <= alpha };
  });
  return steps;
}
