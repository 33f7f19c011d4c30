/**
 * Seeded bootstraps. Hand-written because no kept library has one that takes our seeded `Rng` (every
 * random draw must come from a generator passed in explicitly) or resamples clusters.
 */
import type { Rng } from '../rng';
import { mean, quantileSorted } from './descriptive';
import type { Interval } from './intervals';

/**
 * Cluster bootstrap: each of `resamples` resamples draws `draws` clusters (default: as many as there
 * are) uniformly with replacement, one `rng.next()` per draw, and concatenates their members; returns
 * `statistic(sample)` of each resample. Members of one cluster (the segments of one trace, the samples
 * of one problem) are not independent, so they are resampled together.
 */
export function clusterBootstrap<T, R>(
  clusters: readonly (readonly T[])[],
  resamples: number,
  rng: Rng,
  statistic: (sample: T[]) => R,
  draws = clusters.length,
): R[] {
  const out: R[] = [];
  if (clusters.length === 0) return out;
  for (let r = 0; r < resamples; r++) {
    const sample: T[] = [];
    for (let i = 0; i < draws; i++) for (const x of clusters[Math.floor(rng.next() * clusters.length)]) sample.push(x);
    out.push(statistic(sample));
  }
  return out;
}

/** Percentile interval [q_{(1−level)/2}, q_{(1+level)/2}] of bootstrap replicates; NaN when there are none. */
export function percentileInterval(replicates: readonly number[], level: number): [number, number] {
  const sorted = Float64Array.from(replicates).sort();
  const alpha = (1 - level) / 2;
  return [quantileSorted(sorted, alpha), quantileSorted(sorted, 1 - alpha)];
}

/**
 * Percentile bootstrap interval of the mean of `values` (one per problem: resampling problems keeps
 * the samples of one problem together). Seeded through `rng`, so the interval is reproducible.
 */
export function bootstrapMeanInterval(values: readonly number[], rng: Rng, resamples = 2000, level = 0.95): Interval {
  if (values.length === 0) throw new RangeError('bootstrapMeanInterval: no values');
  if (values.some((v) => Number.isNaN(v))) throw new RangeError('bootstrapMeanInterval: values contain NaN');
  const means = clusterBootstrap(
    values.map((v) => [v]),
    resamples,
    rng,
    mean,
  );
  const [lower, upper] = percentileInterval(means, level);
  return { lower, upper, level, method: 'bootstrap' };
}

/**
 * Population SD of the bootstrap distribution of the mean of `m` draws (with replacement) from
 * `values`; NaN for no values. The SD is accumulated in one pass, √(E[x̄²] − E[x̄]²) clamped at 0
 * (resamples can be many; results/mc-variance was computed this way).
 */
export function bootstrapSdOfMean(values: readonly number[], m: number, resamples: number, rng: Rng): number {
  if (values.length === 0) return NaN;
  let total = 0;
  let totalSq = 0;
  for (const x of clusterBootstrap(
    values.map((v) => [v]),
    resamples,
    rng,
    mean,
    m,
  )) {
    total += x;
    totalSq += x * x;
  }
  const mu = total / resamples;
  return Math.sqrt(Math.max(0, totalSq / resamples - mu * mu));
}

/** A point estimate with a bootstrap percentile interval [lo, hi] (NaN bounds when the interval is undefined). */
export interface Estimate {
  value: number;
  lo: number;
  hi: number;
}

/** Bootstrap settings of the credit-quality statistics. */
export interface BootstrapOptions {
  /** Number of bootstrap resamples; default 2000. */
  resamples?: number;
  /** Two-sided coverage of the percentile interval; default 0.95. */
  level?: number;
}

/**
 * `statistic` on all clusters (the point estimate) and its percentile interval over cluster-bootstrap
 * resamples (clusters resampled with replacement, as many as there are). A NaN point estimate or a NaN
 * replicate gives NaN bounds: an interval with replicates left out would claim coverage it does not have.
 */
export function clusterBootstrapEstimate<T>(
  clusters: readonly (readonly T[])[],
  statistic: (sample: T[]) => number,
  rng: Rng,
  { resamples = 2000, level = 0.95 }: BootstrapOptions = {},
): Estimate {
  const value = statistic(clusters.flat() as T[]);
  if (Number.isNaN(value) || clusters.length === 0) return { value, lo: NaN, hi: NaN };
  const replicates = clusterBootstrap(clusters, resamples, rng, statistic);
  if (replicates.some(Number.isNaN)) return { value, lo: NaN, hi: NaN };
  const [lo, hi] = percentileInterval(replicates, level);
  return { value, lo, hi };
}
