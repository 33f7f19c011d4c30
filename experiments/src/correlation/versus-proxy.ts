/**
 * Every method against the MC proxy ΔV_MC (n = 20), and the ceiling the proxy's own noise sets on any
 * such correlation. The proxy is noisy (SE of V_MC ≈ 0.1 at p ≈ 0.5 with n = 20), so a correlation with
 * it is judged against √reliability of the proxy, estimated by split-half: ΔV_MC from the first and the
 * second half of the samples of each exit point (independent draws), Spearman between the halves,
 * Spearman–Brown corrected to the full n (core's stats module). Methods are scored pooled (all segments
 * of all traces) and within trace (mean over traces of the per-trace Spearman), since σ acts within one
 * trace. Intervals: percentile bootstrap over traces.
 */
import { mean, splitHalfReliability, withinTraceSpearman, type Rng } from '@rred/core';
import type { StoredTrace } from '@rred/results-store';
import { correlate, type CorrelationEstimate, type PairedPoint } from './stats';

/** A statistic with its bootstrap interval (NaN where undefined or without data). */
interface Interval {
  value: number;
  lo: number;
  hi: number;
}

export interface ProxyRow {
  method: string;
  pooled: CorrelationEstimate;
  /** Mean over traces of the within-trace Spearman with the proxy; traces with < 3 finite segments or a constant side are left out. */
  within: Interval & { tracesUsed: number };
}

export interface ProxyCeiling {
  /** Samples per exit point of the proxy (n) and per half (⌊n/2⌋). */
  samples: number;
  half: number;
  traces: number;
  segments: number;
  pooled: { halfCorrelation: number; reliability: Interval; ceiling: Interval };
  within: { halfCorrelation: number; reliability: Interval; ceiling: Interval; tracesUsed: number };
}

/** One segment's number per method, the proxy's under 'mc'. */
export interface SegmentPoint {
  trace: number;
  values: Record<string, number>;
}

interface AnalysisOptions {
  resamples: number;
  level: number;
}

/** The method's values and the proxy's for each trace, only the segments where both are finite. */
function perTracePairs(points: readonly SegmentPoint[], method: string): { x: number[]; y: number[] }[] {
  const byTrace = new Map<number, { x: number[]; y: number[] }>();
  for (const p of points) {
    const x = p.values[method];
    const y = p.values.mc;
    if (!(Number.isFinite(x) && Number.isFinite(y))) continue; // counted by `correlate` as nonFinite
    const g = byTrace.get(p.trace) ?? { x: [], y: [] };
    g.x.push(x);
    g.y.push(y);
    byTrace.set(p.trace, g);
  }
  return [...byTrace.values()];
}

/** Pooled Pearson/Spearman (with the non-finite count) and within-trace Spearman of each method with the proxy. */
export function versusProxy(points: readonly SegmentPoint[], methods: readonly string[], options: AnalysisOptions, rng: Rng): ProxyRow[] {
  return methods.map((method) => {
    const paired: PairedPoint[] = points.map((p) => ({ trace: p.trace, a: p.values[method] ?? NaN, b: p.values.mc }));
    // the stream of the pooled pair table ('all' bin, method before mc): the same numbers where both show a method
    const pooled = correlate(paired, options.resamples, options.level, rng.fork(`all-${method}-mc`));
    const w = withinTraceSpearman(perTracePairs(points, method), rng.fork(`proxy-within-${method}`), options);
    return { method, pooled, within: { value: w.value, lo: w.lo, hi: w.hi, tracesUsed: w.tracesUsed } };
  });
}

/**
 * Split-half reliability of the proxy ΔV_MC from a run's stored continuations (exit points 0..K, in sample
 * order): half A = the first ⌊n/2⌋ samples of each exit point, half B = the next ⌊n/2⌋ (an odd last one is
 * left out), Spearman–Brown factor n / ⌊n/2⌋. Null when the run stored no continuations (runs recorded
 * before the correlation experiment stored them) or n < 2.
 */
export function proxyCeiling(traces: readonly StoredTrace[], options: AnalysisOptions, rng: Rng): ProxyCeiling | null {
  // per trace, per exit point k = 0..K: the utilities in sample order
  const samples = traces
    .filter((t) => t.continuations.length > 0)
    .map((t) => {
      const byExit = Array.from({ length: t.segments.length + 1 }, () => [] as { sample: number; utility: number }[]);
      for (const c of t.continuations) byExit[c.exitPoint].push({ sample: c.sample, utility: c.utility });
      return byExit.map((g) => g.sort((x, y) => x.sample - y.sample).map((c) => c.utility));
    });
  const n = Math.min(...samples.flatMap((byExit) => byExit.map((u) => u.length)));
  if (samples.length === 0 || n < 2) return null;
  const h = Math.floor(n / 2);
  const deltas = (values: number[]) => values.slice(1).map((v, k) => v - values[k]); // ΔV for segments 1..K
  const halves = samples.map((byExit) => ({
    a: deltas(byExit.map((u) => mean(u.slice(0, h)))),
    b: deltas(byExit.map((u) => mean(u.slice(h, 2 * h)))),
  }));
  const rel = splitHalfReliability(halves, rng.fork('proxy-ceiling'), { ...options, factor: n / h });
  const interval = (e: Interval): Interval => ({ value: e.value, lo: e.lo, hi: e.hi });
  return {
    samples: n,
    half: h,
    traces: rel.traces,
    segments: rel.segments,
    pooled: {
      halfCorrelation: rel.pooled.halfCorrelation,
      reliability: interval(rel.pooled.reliability),
      ceiling: interval(rel.pooled.ceiling),
    },
    within: {
      halfCorrelation: rel.withinTrace.halfCorrelation,
      reliability: interval(rel.withinTrace.reliability),
      ceiling: interval(rel.withinTrace.ceiling),
      tracesUsed: rel.withinTrace.tracesUsed,
    },
  };
}
