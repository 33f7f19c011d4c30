/**
 * The gold benchmark's metrics, from the loaded traces alone (deterministic: every bootstrap is
 * seeded by the run's seed, one stream per checkpoint and metric and method). Per checkpoint and method:
 * - withinSpearman: Spearman of the method's credits r_k with ΔV_gold(s_k) = V_gold(s_k) − V_gold(s_{k−1})
 *   inside each trace, averaged over the traces where it is defined (tracesUsed), bootstrap CI over traces;
 * - pooledSpearman: the same over all segments of all traces at once;
 * - valueSpearman: v̂(s_k) against V_gold(s_k) over all exit points k = 0..K (methods with values). Spearman is
 *   rank-based and exp is monotone, so a variant's log- and prob-space values give the same number;
 * - localizationTop1: over failed traces whose first uncorrected wrong line is in the thinking, the share
 *   where the most negative credit lands on that line's segment (chanceTop1 = mean 1/K); localizationAuc:
 *   AUC of credit for "holds the first error" over those traces' segments (lower credit = more blame; 1 = the
 *   error segment always has the lowest credit, 0.5 = chance);
 * - tokensPerTrace: tokens forwarded per trace (the sampler counts every generated token as forwarded,
 *   so generated tokens are in it once); wallMsPerTrace: the method's measured wall time per trace.
 * Per checkpoint: the split-half reliability of ΔV_MC at n = ceilingSamples (two halves of one draw,
 * within-trace Spearman, Spearman–Brown corrected) and the ceiling √rel it implies for any method's
 * correlation with that n = 20 proxy.
 */
import { localizationAuc, localizationTop1, mean, Rng, spearman, splitHalfReliability, withinTraceSpearman } from '@rred/core';
import type { GoldData, GoldTrace } from './load';
import { BASELINES, mcMethod } from './methods';

export interface Interval3 {
  value: number;
  lo: number;
  hi: number;
}

export interface MethodMetrics {
  withinSpearman: Interval3;
  pooledSpearman: number;
  valueSpearman: number | null;
  localizationTop1: Interval3;
  localizationAuc: number;
  chanceTop1: number;
  tokensPerTrace: number;
  wallMsPerTrace: number;
  /** The counts behind each metric. */
  tracesUsed: { within: number; pooledSegments: number; valuePoints: number; localization: number };
}

export interface CheckpointMetrics {
  traces: number;
  correct: number;
  wrong: number;
  exitPoints: number;
  ceilingN20: Interval3;
  /** Spearman–Brown corrected split-half reliability of ΔV_MC at n = ceilingSamples (the ceiling is its square root). */
  reliabilityN20: Interval3;
  ceilingTraces: number;
  /** Failed traces whose first wrong line is in the thinking (the localization set). */
  localizationTraces: number;
  methods: Record<string, MethodMetrics>;
}

export interface GoldAnalysis {
  checkpoints: Record<string, CheckpointMetrics>;
}

const diffs = (v: readonly number[]): number[] => v.slice(1).map((x, i) => x - v[i]);

/** Every scored method, in a fixed order: MC(n), the RREDCoT variants, LOO, gradient, the baselines. */
export function methodsOf(traces: readonly GoldTrace[], mcSamples: readonly number[]): string[] {
  const present = new Set(traces.flatMap((t) => Object.keys(t.credits)));
  const rr = [...present].filter((m) => m.startsWith('rredcot.')).sort();
  return [...mcSamples.map(mcMethod), ...rr, 'loo', 'gradient', ...Object.keys(BASELINES)].filter((m) => present.has(m));
}

function methodMetrics(method: string, traces: readonly GoldTrace[], resamples: number, level: number, rng: Rng): MethodMetrics {
  const gold = traces.map((t) => diffs(t.gold));
  const credits = traces.map((t) => t.credits[method]);
  const opts = { resamples, level };
  const within = withinTraceSpearman(
    traces.map((_, i) => ({ x: credits[i], y: gold[i] })),
    rng.fork('within'),
    opts,
  );
  const finitePairs = (xs: number[], ys: number[]) =>
    xs.map((x, i) => [x, ys[i]]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const pooled = finitePairs(credits.flat(), gold.flat());
  const hasValues = traces.every((t) => t.values[method] !== undefined);
  const valuePairs = hasValues
    ? finitePairs(
        traces.flatMap((t) => t.values[method]),
        traces.flatMap((t) => t.gold),
      )
    : [];
  const failed = traces.map((t, i) => ({ t, c: credits[i] })).filter(({ t }) => t.reward === 0 && t.firstError !== null);
  const localized = failed.map(({ t, c }) => ({ credits: c, errorSegment: t.firstError! - 1 }));
  const loc = localizationTop1(localized, rng.fork('top1'), opts);
  const costs = traces.map((t) => t.costs[method]);
  const baseline = method in BASELINES;
  return {
    withinSpearman: { value: within.value, lo: within.lo, hi: within.hi },
    pooledSpearman: spearman(
      pooled.map((p) => p[0]),
      pooled.map((p) => p[1]),
    ),
    valueSpearman: hasValues
      ? spearman(
          valuePairs.map((p) => p[0]),
          valuePairs.map((p) => p[1]),
        )
      : null,
    localizationTop1: { value: loc.value, lo: loc.lo, hi: loc.hi },
    localizationAuc: localizationAuc(localized),
    chanceTop1: loc.chance,
    tokensPerTrace: baseline ? 0 : mean(costs.map((c) => c.tokensForwarded)),
    wallMsPerTrace: baseline ? 0 : mean(costs.map((c) => c.wallMs)),
    tracesUsed: { within: within.tracesUsed, pooledSegments: pooled.length, valuePoints: valuePairs.length, localization: loc.traces },
  };
}

function checkpointMetrics(data: GoldData, checkpoint: string, rng: Rng): CheckpointMetrics {
  const { config } = data;
  const { bootstrapResamples: B, level } = config.analysis;
  const traces = data.traces.filter((t) => t.checkpoint === checkpoint);
  const split = splitHalfReliability(
    traces.map((t) => ({ a: diffs(t.halves[0]), b: diffs(t.halves[1]) })),
    rng.fork('split-half'),
    { resamples: B, level },
  ).withinTrace;
  const methods: Record<string, MethodMetrics> = {};
  for (const m of methodsOf(traces, config.mcSamples)) methods[m] = methodMetrics(m, traces, B, level, rng.fork(m));
  return {
    traces: traces.length,
    correct: traces.filter((t) => t.reward > 0).length,
    wrong: traces.filter((t) => t.reward === 0).length,
    exitPoints: traces.reduce((n, t) => n + t.gold.length, 0),
    ceilingN20: split.ceiling,
    reliabilityN20: split.reliability,
    ceilingTraces: split.tracesUsed,
    localizationTraces: traces.filter((t) => t.reward === 0 && t.firstError !== null).length,
    methods,
  };
}

export function analyzeGold(data: GoldData): GoldAnalysis {
  const rng = new Rng(data.config.seed).fork('gold-analysis');
  return { checkpoints: Object.fromEntries(data.checkpoints.map((c) => [c, checkpointMetrics(data, c, rng.fork(c))])) };
}
