/**
 * Within-trace rank correlation: credit acts within one trace (the weights σ are normalised per trace),
 * so a credit method is judged by how it orders the segments of each trace, not by a pooled correlation
 * that also rewards getting the level of whole traces right.
 */
import type { Rng } from '../rng';
import { clusterBootstrapEstimate, type BootstrapOptions, type Estimate } from './bootstrap';
import { spearman } from './correlation';
import { mean } from './descriptive';

/** Two per-segment vectors of one trace (e.g. a method's credits and ΔV_gold), same length. */
interface PairedSegments {
  x: readonly number[];
  y: readonly number[];
}

interface WithinTraceSpearman extends Estimate {
  /** Traces whose Spearman is defined (≥ 3 segments, neither side constant): the ones averaged. */
  tracesUsed: number;
  /** All traces given. */
  traces: number;
  /** Each trace's Spearman, NaN where it is undefined (those are the traces left out of the mean). */
  perTrace: number[];
}

/** Fewer segments than this make a within-trace Spearman too coarse to average (2 segments give only ±1). */
const MIN_SEGMENTS = 3;

/**
 * Spearman of `x` and `y` within each trace, averaged over traces, with a percentile bootstrap interval
 * over traces (resampling traces, seeded by `rng`). A trace with fewer than 3 segments or a constant side
 * has no defined correlation: its `perTrace` entry is NaN and it is left out of the mean, and `tracesUsed`
 * says how many remain (report it). A NaN among the values is not "undefined" but missing data: it makes
 * that trace's Spearman NaN, which stays in the mean, so the result is NaN (the module's convention).
 * No usable trace → NaN. Unequal lengths within a trace throw RangeError.
 */
export function withinTraceSpearman(traces: readonly PairedSegments[], rng: Rng, options: BootstrapOptions = {}): WithinTraceSpearman {
  const { perTrace, used } = perTraceSpearman(traces, 'withinTraceSpearman');
  const estimate = clusterBootstrapEstimate(
    used.map((r) => [r]),
    mean,
    rng,
    options,
  );
  return { ...estimate, tracesUsed: used.length, traces: traces.length, perTrace };
}

/** Each trace's Spearman (NaN where undefined) and the values of the traces it is defined for, in order. */
export function perTraceSpearman(traces: readonly PairedSegments[], caller: string): { perTrace: number[]; used: number[] } {
  const defined = traces.map((t, i) => {
    if (t.x.length !== t.y.length) throw new RangeError(`${caller}: trace ${i} has ${t.x.length} vs ${t.y.length} values`);
    return !undefinedWithin(t);
  });
  const perTrace = traces.map(({ x, y }, i) => (defined[i] ? spearman(x, y) : NaN));
  return { perTrace, used: perTrace.filter((_, i) => defined[i]) };
}

/** No correlation to speak of: too few segments, or a side without spread (NaN members do not count as spread). */
function undefinedWithin({ x, y }: PairedSegments): boolean {
  if (x.length < MIN_SEGMENTS) return true;
  const hasNaN = x.some(Number.isNaN) || y.some(Number.isNaN);
  return !hasNaN && (x.every((v) => v === x[0]) || y.every((v) => v === y[0]));
}
