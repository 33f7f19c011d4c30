/**
 * Reliability of a noisy per-segment proxy (ΔV_MC at n samples) and the ceiling it sets on any method's
 * correlation with that proxy. Written here: no kept library has Spearman–Brown or split-half reliability.
 */
import type { Rng } from '../rng';
import { clusterBootstrapEstimate, type BootstrapOptions, type Estimate } from './bootstrap';
import { spearman } from './correlation';
import { mean } from './descriptive';
import { perTraceSpearman } from './within-trace';

/**
 * Spearman–Brown prophecy: the reliability of a measurement `factor` times as long as one whose
 * reliability (or split-half correlation) is `r`: factor·r / (1 + (factor − 1)·r). With factor 2 it turns
 * the correlation between two independent halves into the reliability of their sum (e.g. two MC halves of
 * n/2 samples → the n-sample mean). NaN for a NaN `r` and where the formula breaks down, a denominator
 * ≤ 0 (r ≤ −1/(factor − 1), e.g. r = −1 at factor 2); any other negative r gives a negative value,
 * reported as is (the halves agree less than chance). Throws
 * RangeError for r outside [−1, 1] or a factor that is not a positive finite number.
 */
/** A computed correlation of 1 can come out as 1 + 2e-16: accepted (and clamped), anything further is an error. */
const ROUND_OFF = 1e-12;

export function spearmanBrown(r: number, factor: number): number {
  if (!(Number.isFinite(factor) && factor > 0)) throw new RangeError(`spearmanBrown: factor must be a positive number, got ${factor}`);
  if (Number.isNaN(r)) return NaN;
  if (!(Math.abs(r) <= 1 + ROUND_OFF)) throw new RangeError(`spearmanBrown: r must be in [-1, 1], got ${r}`);
  const clamped = Math.max(-1, Math.min(1, r));
  const denominator = 1 + (factor - 1) * clamped;
  return denominator <= 0 ? NaN : (factor * clamped) / denominator;
}

/**
 * The highest correlation any estimator can have with a proxy of reliability `reliability`: √reliability.
 * Classical test theory: proxy = truth + error with the error independent of the truth and of the
 * estimator, so corr(X, proxy) = corr(X, truth)·√rel ≤ √rel for every X. The assumption is that
 * independence (MC sampling noise is independent of everything else given the exit point); the rank
 * version used here is the same bound applied to Spearman correlations, an approximation. A negative
 * reliability estimate (the halves disagree: the proxy is noise) gives 0; NaN gives NaN.
 */
export function reliabilityCeiling(reliability: number): number {
  if (Number.isNaN(reliability)) return NaN;
  return Math.sqrt(Math.max(0, Math.min(1, reliability)));
}

/** One trace's per-segment quantity measured twice, independently (e.g. ΔV_MC from two disjoint halves of the samples). */
interface SplitHalves {
  a: readonly number[];
  b: readonly number[];
}

/** A split-half reliability: the raw half-vs-half correlation, its Spearman–Brown correction and the ceiling it implies. */
interface Reliability {
  /** Spearman between the halves, uncorrected. */
  halfCorrelation: number;
  /** spearmanBrown(halfCorrelation, factor), with a bootstrap interval over traces. */
  reliability: Estimate;
  /** reliabilityCeiling of the reliability and of its bounds (the map is monotone, so the interval carries over). */
  ceiling: Estimate;
}

interface SplitHalfReliability {
  /** Pooled over all segments of all traces. */
  pooled: Reliability;
  /** Mean over traces of the within-trace half-vs-half Spearman, then corrected (see withinTraceSpearman for which traces count). */
  withinTrace: Reliability & { tracesUsed: number };
  traces: number;
  segments: number;
}

interface SplitHalfOptions extends BootstrapOptions {
  /** Spearman–Brown factor: the full measurement's size over one half's (default 2: halves of n/2 → n). */
  factor?: number;
}

/**
 * Split-half reliability of a per-segment quantity from two independent halves, grouped by trace. Both
 * versions are Spearman correlations between half A and half B, Spearman–Brown corrected by `factor`,
 * with percentile intervals from a bootstrap over traces (a trace's segments are resampled together;
 * the pooled and within-trace bootstraps draw from forks of `rng`, so neither shifts the other). The
 * within-trace version averages the per-trace Spearman over the traces where it is defined (≥ 3
 * segments, no constant half; `tracesUsed`), then corrects the mean.
 * Unequal half lengths within a trace throw RangeError.
 */
export function splitHalfReliability(traces: readonly SplitHalves[], rng: Rng, options: SplitHalfOptions = {}): SplitHalfReliability {
  const { factor = 2, ...bootstrap } = options;
  const clusters = traces.map(({ a, b }, i) => {
    if (a.length !== b.length) throw new RangeError(`splitHalfReliability: trace ${i} has ${a.length} vs ${b.length} values`);
    return a.map((v, j): [number, number] => [v, b[j]]);
  });
  const pooledR = (pairs: [number, number][]) =>
    spearman(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
  return {
    pooled: correctedEstimates(clusters, pooledR, factor, rng.fork('pooled'), bootstrap),
    withinTrace: withinTraceReliability(traces, rng.fork('within'), options),
    traces: traces.length,
    segments: clusters.reduce((n, c) => n + c.length, 0),
  };
}

/**
 * The within-trace half of `splitHalfReliability` alone (the same numbers from the same `rng`: it passes
 * its `rng.fork('within')` here), for callers that do not need the pooled version's bootstrap of a
 * pooled Spearman per resample, by far the dearer of the two.
 */
export function withinTraceReliability(
  traces: readonly SplitHalves[],
  rng: Rng,
  options: SplitHalfOptions = {},
): Reliability & { tracesUsed: number } {
  const { factor = 2, ...bootstrap } = options;
  const { used } = perTraceSpearman(
    traces.map(({ a, b }) => ({ x: a, y: b })),
    'splitHalfReliability',
  );
  return {
    ...correctedEstimates(
      used.map((r) => [r]),
      mean,
      factor,
      rng,
      bootstrap,
    ),
    tracesUsed: used.length,
  };
}

/**
 * The half correlation, its Spearman–Brown correction and the ceiling, the last two with percentile
 * intervals from the same resamples (the same `rng` state for both, so the draws coincide).
 */
function correctedEstimates<T>(
  clusters: readonly (readonly T[])[],
  half: (sample: T[]) => number,
  factor: number,
  rng: Rng,
  bootstrap: BootstrapOptions,
): Reliability {
  const corrected = (sample: T[]) => spearmanBrown(half(sample), factor);
  return {
    halfCorrelation: half(clusters.flat() as T[]),
    reliability: clusterBootstrapEstimate(clusters, corrected, rng.fork('reliability'), bootstrap),
    ceiling: clusterBootstrapEstimate(clusters, (sample) => reliabilityCeiling(corrected(sample)), rng.fork('reliability'), bootstrap),
  };
}
