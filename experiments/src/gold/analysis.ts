/**
 * The gold benchmark's metrics, from the loaded traces alone (deterministic: every bootstrap is
 * seeded by the run's seed, one stream per checkpoint and metric and method). Per checkpoint and method,
 * on all traces and on the correct and the wrong ones apart (`subsets`):
 * - within.all: Spearman of the method's credits r_k with ΔV_gold(s_k) = V_gold(s_k) − V_gold(s_{k−1})
 *   inside each trace, averaged over EVERY trace: a trace where the credit says nothing (constant, or a
 *   NaN among its credits) scores 0, as does a trace where ρ is undefined for every method (ΔV_gold
 *   constant, fewer than 3 segments); bootstrap CI over traces;
 * - within.varies: the same averaged only over the traces where both sides vary (`tracesVaries`);
 * - pooled: the same over all segments of the subset at once;
 * - value: v̂(s_k) against V_gold(s_k) over all exit points k = 0..K of the traces with values (finite pairs: valuePoints). Spearman is
 *   rank-based and exp is monotone, so a variant's log- and prob-space values give the same number;
 * and on all traces:
 * - localizationTop1: over failed traces whose first uncorrected wrong line is in the thinking, the share
 *   where the most negative credit lands on that line's segment (chanceTop1 = mean 1/K); localizationAuc:
 *   AUC of credit for "holds the first error" over those traces' segments (lower credit = more blame; 1 = the
 *   error segment always has the lowest credit, 0.5 = chance);
 * - tokensPerTrace: tokens forwarded per trace (the sampler counts every generated token as forwarded,
 *   so generated tokens are in it once); wallMsPerTrace: the method's measured wall time per trace;
 * - vsSignedPosition / vsMcAtCost: the paired comparisons of verdict.ts (within.all per trace).
 * Per checkpoint and subset, split-half reliabilities (two halves of one draw, within-trace Spearman of
 * ΔV over the halves, Spearman–Brown corrected) and the ceiling √rel: of the gold itself (halves of
 * n_gold/2; the ceiling on any method's correlation with ΔV_gold) and of the MC(ceilingSamples) proxy
 * (the ceiling on correlation with that proxy, not with the gold).
 */
import {
  bootstrapMeanInterval,
  localizationAuc,
  localizationTop1,
  mean,
  Rng,
  spearman,
  withinTraceReliability,
  withinTraceSpearman,
} from '@rred/core';
import type { GoldData, GoldTrace } from './load';
import { BASELINES, mcMethod } from './methods';
import { parseMethodName } from './names';
import { compareFamily, stressRows, type Comparison, type StressRow } from './verdict';

export interface Interval3 {
  value: number;
  lo: number;
  hi: number;
}

export const SUBSETS = ['all', 'correct', 'wrong'] as const;
export type Subset = (typeof SUBSETS)[number];

/** One method's correlation with ΔV_gold on one subset of traces. */
export interface SubsetMetrics {
  traces: number;
  within: {
    /** Mean over every trace of the subset (a trace where the credit says nothing scores 0). */
    all: Interval3;
    /** Mean over the traces where both the credit and ΔV_gold vary. */
    varies: Interval3;
    tracesVaries: number;
    /** Traces where the credit says nothing: constant, or a NaN among its credits (scored 0 in `all`). */
    silent: number;
    /** Of those, the traces with a NaN credit (the method gave no answer there). */
    nan: number;
  };
  pooled: number;
  pooledSegments: number;
  value: number | null;
  valuePoints: number;
}

export interface MethodMetrics {
  /** Reads the task's alignment of trace to reference (an oracle bound, not computable on free text). */
  oracle: boolean;
  subsets: Record<Subset, SubsetMetrics>;
  localizationTop1: Interval3;
  localizationAuc: number;
  chanceTop1: number;
  localizationTraces: number;
  tokensPerTrace: number;
  wallMsPerTrace: number;
  /** Paired comparison of within.all with the outcome-signed position baseline (Holm over the bed's methods); null for the baseline itself. */
  vsSignedPosition: Comparison | null;
  /** Paired comparison with MC at matched tokens (Holm over the bed's non-MC methods); null for MC. */
  vsMcAtCost: Comparison | null;
}

export interface Reliability {
  /** Spearman–Brown corrected split-half reliability (within-trace Spearman of ΔV over the halves). */
  reliability: Interval3;
  /** √reliability: the ceiling on any method's within-trace correlation with the full draw. */
  ceiling: Interval3;
  tracesUsed: number;
}

export interface CheckpointMetrics {
  traces: number;
  correct: number;
  wrong: number;
  exitPoints: number;
  /** Traces where ΔV_gold does not vary or K < 3: every method scores 0 there in within.all. */
  undefinedTraces: number;
  /** The gold's own reliability (halves of n_gold/2 → n_gold) per subset. */
  gold: Record<Subset, Reliability>;
  /** The MC(ceilingSamples) proxy's reliability over all traces (halves of n/2 → n): a ceiling for correlation with that proxy. */
  proxy: Reliability;
  /** Failed traces whose first wrong line is in the thinking (the localization set). */
  localizationTraces: number;
  methods: Record<string, MethodMetrics>;
  /** The stress arm: each rewritten-reference variant against the same variant on canonical references. */
  stress: StressRow[];
}

export interface GoldAnalysis {
  checkpoints: Record<string, CheckpointMetrics>;
}

const diffs = (v: readonly number[]): number[] => v.slice(1).map((x, i) => x - v[i]);
const interval = (e: { value: number; lo: number; hi: number }): Interval3 => ({ value: e.value, lo: e.lo, hi: e.hi });

/** Every scored method, in a fixed order: MC(n), the RREDCoT variants, LOO, gradient, the baselines. */
export function methodsOf(traces: readonly GoldTrace[], mcSamples: readonly number[]): string[] {
  const present = new Set(traces.flatMap((t) => Object.keys(t.credits)));
  const rr = [...present].filter((m) => m.startsWith('rredcot.')).sort();
  return [...mcSamples.map(mcMethod), ...rr, 'loo', 'gradient', ...Object.keys(BASELINES)].filter((m) => present.has(m));
}

/** A method's credits on a trace; NaN throughout where the method has no rows for it (counted as silent, `nan`). */
const creditsOf = (t: GoldTrace, method: string): number[] => t.credits[method] ?? new Array<number>(t.segmentLengths.length).fill(NaN);

/** Fewer segments than this make a within-trace Spearman too coarse (as in withinTraceSpearman). */
const MIN_SEGMENTS = 3;

/** A credit vector that says nothing about the order of the segments: a NaN among it, or no spread. */
const silent = (x: readonly number[]): boolean => x.some(Number.isNaN) || x.every((v) => v === x[0]);
const goldUndefined = (d: readonly number[]): boolean => d.length < MIN_SEGMENTS || d.every((v) => v === d[0]);

/** Within-trace ρ of `credits` with `gold` (ΔV_gold) per trace over every trace: 0 where the credit is silent or ρ is undefined. */
export function withinAllPerTrace(credits: readonly (readonly number[])[], gold: readonly (readonly number[])[]): number[] {
  return credits.map((x, i) => (silent(x) || goldUndefined(gold[i]) ? 0 : spearman(x, gold[i])));
}

function subsetMetrics(method: string, traces: readonly GoldTrace[], B: number, level: number, rng: Rng): SubsetMetrics {
  const gold = traces.map((t) => diffs(t.gold));
  const credits = traces.map((t) => creditsOf(t, method));
  const perTrace = withinAllPerTrace(credits, gold);
  const all =
    traces.length === 0
      ? { value: NaN, lo: NaN, hi: NaN }
      : { value: mean(perTrace), ...bounds(bootstrapMeanInterval(perTrace, rng.fork('all'), B, level)) };
  // where it varies: the silent traces (NaN credits included) are left out here, as the constant ones always were
  const spoken = traces.map((_, i) => i).filter((i) => !silent(credits[i]));
  const varies = withinTraceSpearman(
    spoken.map((i) => ({ x: credits[i], y: gold[i] })),
    rng.fork('within'),
    { resamples: B, level },
  );
  const finitePairs = (xs: number[], ys: number[]) =>
    xs.map((x, i) => [x, ys[i]]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const pooled = finitePairs(credits.flat(), gold.flat());
  // values over the traces that have them (own references: none where a problem has no correct sibling), finite pairs counted in valuePoints
  const valued = traces.filter((t) => t.values[method] !== undefined);
  const hasValues = valued.length > 0;
  const valuePairs = finitePairs(
    valued.flatMap((t) => t.values[method]),
    valued.flatMap((t) => t.gold),
  );
  const rho = (pairs: number[][]) =>
    spearman(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
  return {
    traces: traces.length,
    within: {
      all,
      varies: interval(varies),
      tracesVaries: varies.tracesUsed,
      silent: traces.length - spoken.length,
      nan: credits.filter((x) => x.some(Number.isNaN)).length,
    },
    pooled: rho(pooled),
    pooledSegments: pooled.length,
    value: hasValues ? rho(valuePairs) : null,
    valuePoints: valuePairs.length,
  };
}

const bounds = (i: { lower: number; upper: number }) => ({ lo: i.lower, hi: i.upper });

const subsetOf = (traces: readonly GoldTrace[], s: Subset): GoldTrace[] =>
  s === 'all' ? traces.slice() : traces.filter((t) => (s === 'correct' ? t.reward > 0 : t.reward === 0));

// on all traces the method's own stream (its 'where it varies' interval is then the one this benchmark always reported)
function methodMetrics(
  method: string,
  traces: readonly GoldTrace[],
  B: number,
  level: number,
  rng: Rng,
): Omit<MethodMetrics, 'vsSignedPosition' | 'vsMcAtCost'> {
  const subsets = Object.fromEntries(
    SUBSETS.map((s) => [s, subsetMetrics(method, subsetOf(traces, s), B, level, s === 'all' ? rng : rng.fork(s))]),
  ) as Record<Subset, SubsetMetrics>;
  const failed = traces.filter((t) => t.reward === 0 && t.firstError !== null);
  const localized = failed.map((t) => ({ credits: creditsOf(t, method), errorSegment: t.firstError! - 1 }));
  const loc = localizationTop1(localized, rng.fork('top1'), { resamples: B, level });
  const costs = traces.map((t) => t.costs[method]);
  const free = method in BASELINES;
  return {
    oracle: parseMethodName(method).oracle,
    subsets,
    localizationTop1: interval(loc),
    localizationAuc: localizationAuc(localized),
    chanceTop1: loc.chance,
    localizationTraces: loc.traces,
    tokensPerTrace: free ? 0 : mean(costs.map((c) => c?.tokensForwarded ?? NaN)),
    wallMsPerTrace: free ? 0 : mean(costs.map((c) => c?.wallMs ?? NaN)),
  };
}

function reliability(halves: { a: number[]; b: number[] }[], B: number, level: number, rng: Rng): Reliability {
  const w = withinTraceReliability(halves, rng, { resamples: B, level });
  return { reliability: interval(w.reliability), ceiling: interval(w.ceiling), tracesUsed: w.tracesUsed };
}

function checkpointMetrics(data: GoldData, checkpoint: string, rng: Rng): CheckpointMetrics {
  const { config } = data;
  const { bootstrapResamples: B, level } = config.analysis;
  const traces = data.traces.filter((t) => t.checkpoint === checkpoint);
  const halves = (ts: readonly GoldTrace[], pick: (t: GoldTrace) => [number[], number[]]) =>
    ts.map((t) => ({ a: diffs(pick(t)[0]), b: diffs(pick(t)[1]) }));
  const gold = Object.fromEntries(
    SUBSETS.map((s) => [
      s,
      reliability(
        halves(subsetOf(traces, s), (t) => t.goldHalves),
        B,
        level,
        rng.fork('gold-split-half').fork(s),
      ),
    ]),
  ) as Record<Subset, Reliability>;
  // the fork splitHalfReliability(…, rng.fork('split-half')) gave its within-trace part: the same numbers as before
  const proxy = reliability(
    halves(traces, (t) => t.halves),
    B,
    level,
    rng.fork('split-half').fork('within'),
  );
  const names = methodsOf(traces, config.mcSamples);
  const base = Object.fromEntries(names.map((m) => [m, methodMetrics(m, traces, B, level, rng.fork(m))]));
  const dv = traces.map((t) => diffs(t.gold));
  const perTrace = Object.fromEntries(
    names.map((m) => [
      m,
      withinAllPerTrace(
        traces.map((t) => creditsOf(t, m)),
        dv,
      ),
    ]),
  );
  const tokens = Object.fromEntries(names.map((m) => [m, base[m].tokensPerTrace]));
  const family = { perTrace, tokens, mcSamples: config.mcSamples, resamples: B, level };
  const comparisons = compareFamily(family, rng.fork('verdict'));
  const methods: Record<string, MethodMetrics> = {};
  for (const m of names)
    methods[m] = { ...base[m], vsSignedPosition: comparisons[m]?.vsSignedPosition ?? null, vsMcAtCost: comparisons[m]?.vsMcAtCost ?? null };
  return {
    traces: traces.length,
    correct: traces.filter((t) => t.reward > 0).length,
    wrong: traces.filter((t) => t.reward === 0).length,
    exitPoints: traces.reduce((n, t) => n + t.gold.length, 0),
    undefinedTraces: dv.filter(goldUndefined).length,
    gold,
    proxy,
    localizationTraces: traces.filter((t) => t.reward === 0 && t.firstError !== null).length,
    methods,
    stress: stressRows(family, rng.fork('stress')),
  };
}

export function analyzeGold(data: GoldData): GoldAnalysis {
  const rng = new Rng(data.config.seed).fork('gold-analysis');
  return { checkpoints: Object.fromEntries(data.checkpoints.map((c) => [c, checkpointMetrics(data, c, rng.fork(c))])) };
}

/**
 * Headline numbers as run metrics (`rred runs compare`), per checkpoint: traces, exit points, the gold's
 * ceiling and the MC(ceilingSamples) proxy's; per method: within ρ over all traces (`withinAll`) and where
 * it varies (`withinSpearman`), and the two verdicts coded 1 yes, 0 undecided, −1 worse (NaN: not compared).
 */
export function goldSummaryMetrics(a: GoldAnalysis): Record<string, number> {
  const code = (c: Comparison | null) => (c === null ? NaN : c.verdict === 'yes' ? 1 : c.verdict === 'worse' ? -1 : 0);
  const out: Record<string, number> = {};
  for (const [checkpoint, c] of Object.entries(a.checkpoints)) {
    out[`${checkpoint}.traces`] = c.traces;
    out[`${checkpoint}.exitPoints`] = c.exitPoints;
    out[`${checkpoint}.ceilingN20`] = c.proxy.ceiling.value;
    out[`${checkpoint}.goldCeiling`] = c.gold.all.ceiling.value;
    for (const [method, m] of Object.entries(c.methods)) {
      const key = `${checkpoint}.${method}`;
      out[`${key}.withinAll`] = m.subsets.all.within.all.value;
      out[`${key}.withinSpearman`] = m.subsets.all.within.varies.value;
      out[`${key}.beatsSignedPosition`] = code(m.vsSignedPosition);
      out[`${key}.beatsMcAtCost`] = code(m.vsMcAtCost);
    }
  }
  return out;
}
