import * as aq from 'arquero';
import { mean, Rng } from '@rred/core';
import type { Run, Store } from '@rred/results-store';
import { groupRows } from '../common/frame';
import {
  CORRELATION_METHODS,
  correlationConfigSchema,
  proxyComparedMethods,
  TRIVIAL_BASELINES,
  type CorrelationConfig,
  type CorrelationMethod,
} from './config';
import { correlate, POSITION_BINS, positionBin, type CorrelationEstimate, type PairedPoint } from './stats';
import { proxyCeiling, versusProxy, type ProxyCeiling, type ProxyRow } from './versus-proxy';

export type Bin = 'all' | (typeof POSITION_BINS)[number];
export const BINS: readonly Bin[] = ['all', ...POSITION_BINS];

export interface PairRow extends CorrelationEstimate {
  bin: Bin;
  a: CorrelationMethod;
  b: CorrelationMethod;
}

export interface CostRow {
  method: string;
  traces: number;
  wallMs: number;
  /** Token-forwards: every position pushed through the network, generated tokens included (the compute). */
  tokensForwarded: number;
  /** Of which sampled (already inside tokensForwarded: the sampler forwards each fed-back token once). */
  tokensGenerated: number;
  forwardPasses: number;
  wallRatio: number;
  /** tokensForwarded / RREDCoT's tokensForwarded. */
  tokensRatio: number;
}

export interface CorrelationAnalysis {
  config: CorrelationConfig;
  pairs: PairRow[];
  /** Every method (and the trivial baselines, and MC at small n) against the MC proxy, pooled and within trace. */
  proxy: ProxyRow[];
  /** Split-half noise ceiling of the proxy; null for runs that stored no proxy continuations (recorded before). */
  ceiling: ProxyCeiling | null;
  costs: CostRow[];
  traces: number;
  segments: number;
}

/**
 * One number per (trace, segment) per method: the credit r_k, or σ_k for RREDCoT when configured; the
 * trivial baselines `length` (tokens of segment k) and `position` (k).
 */
interface SegmentValues {
  trace: number;
  k: number;
  K: number;
  values: Record<string, number>;
}

const KEYS = ['trace', 'k'];
const noValues = (methods: readonly string[]) => Object.fromEntries(methods.map((m) => [m, NaN])) as Record<string, number>;

/**
 * Estimate rows (trace, exit point k, method, value) pivoted to one column per method and left-joined
 * onto every segment k = 1..K of every trace (s_0 has a value, no credit): a segment a method did not
 * score, or scored null, is NaN (counted as non-finite later), never 0.
 */
function segmentValues(store: Store, runId: string, config: CorrelationConfig): SegmentValues[] {
  const methods = [
    ...CORRELATION_METHODS,
    ...proxyComparedMethods(config).filter((m) => !(CORRELATION_METHODS as readonly string[]).includes(m)),
  ];
  const stored = new Set(methods.filter((m) => !(TRIVIAL_BASELINES as readonly string[]).includes(m)));
  const segments: { trace: number; k: number; K: number; length: number }[] = [];
  const estimates: { trace: number; k: number; method: string; value: number }[] = [];
  store.traces(runId).forEach((t, ti) => {
    const K = t.segments.length;
    t.segments.forEach((seg, i) => segments.push({ trace: ti, k: i + 1, K, length: seg.end - seg.start }));
    for (const e of t.estimates) {
      if (e.exitPoint === 0 || !stored.has(e.method)) continue;
      const use = e.method === 'rredcot' && config.rredcotQuantity === 'sigma' ? e.sigma : e.credit;
      estimates.push({ trace: ti, k: e.exitPoint, method: e.method, value: use ?? NaN });
    }
  });
  const withBaselines = (s: { trace: number; k: number; K: number; length: number }, values: Record<string, number>): SegmentValues => ({
    trace: s.trace,
    k: s.k,
    K: s.K,
    values: { ...values, length: s.length, position: s.k },
  });
  if (segments.length === 0) return [];
  if (estimates.length === 0) return segments.map((s) => withBaselines(s, noValues(methods)));
  const wide = aq.from(estimates).groupby('trace', 'k').pivot('method', 'value');
  return (
    aq
      .from(segments)
      // [[left keys], [right keys]]: a flat ['trace', 'k'] would mean left.trace = right.k
      .join_left(wide, [KEYS, KEYS])
      .orderby('trace', 'k')
      .objects()
      .map((row) => {
        const o = row as Record<string, unknown>;
        const values = noValues(methods);
        for (const m of stored) if (typeof o[m] === 'number') values[m] = o[m] as number;
        return withBaselines({ trace: o.trace as number, k: o.k as number, K: o.K as number, length: o.length as number }, values);
      })
  );
}

/** Deterministic from the store: bootstrap seeded by the run's seed, one stream per (bin, pair). */
export function analyzeCorrelationRun(store: Store, runId: string): CorrelationAnalysis {
  const config = correlationConfigSchema.parse(store.getRun(runId).config);
  const segs = segmentValues(store, runId, config);
  const rng = new Rng(config.seed).fork('correlation-bootstrap');
  const pairs: PairRow[] = [];
  for (const bin of BINS) {
    const inBin = bin === 'all' ? segs : segs.filter((s) => positionBin(s.k, s.K) === bin);
    CORRELATION_METHODS.forEach((a, i) => {
      CORRELATION_METHODS.slice(i + 1).forEach((b) => {
        const points: PairedPoint[] = inBin.map((s) => ({ trace: s.trace, a: s.values[a], b: s.values[b] }));
        const est = correlate(points, config.analysis.bootstrapResamples, config.analysis.level, rng.fork(`${bin}-${a}-${b}`));
        pairs.push({ bin, a, b, ...est });
      });
    });
  }
  const options = { resamples: config.analysis.bootstrapResamples, level: config.analysis.level };
  return {
    config,
    pairs,
    proxy: versusProxy(segs, proxyComparedMethods(config), options, rng),
    ceiling: proxyCeiling(store.traces(runId), options, rng),
    costs: costTable(store, runId),
    traces: new Set(segs.map((s) => s.trace)).size,
    segments: segs.length,
  };
}

/** Mean per-trace cost of each method, and its ratio to RREDCoT's. */
function costTable(store: Store, runId: string): CostRow[] {
  const costs = store.traces(runId).flatMap((t) => t.costs);
  const rows = groupRows(costs, ['method']).map(({ key, rows: cs }) => ({
    method: key.method,
    traces: cs.length,
    wallMs: mean(cs.map((c) => c.wallMs)),
    tokensForwarded: mean(cs.map((c) => c.tokensForwarded)),
    tokensGenerated: mean(cs.map((c) => c.tokensGenerated)),
    forwardPasses: mean(cs.map((c) => c.forwardPasses)),
  }));
  const base = rows.find((r) => r.method === 'rredcot');
  const order = (m: string) => {
    const i = (CORRELATION_METHODS as readonly string[]).indexOf(m);
    return i < 0 ? CORRELATION_METHODS.length : i;
  };
  return (
    rows
      .sort((x, y) => order(x.method) - order(y.method) || (x.method < y.method ? -1 : 1))
      // tokens: the forwarded count alone (it already holds the generated tokens; adding them counted them twice)
      .map((r) => ({
        ...r,
        wallRatio: base ? r.wallMs / base.wallMs : NaN,
        tokensRatio: base ? r.tokensForwarded / base.tokensForwarded : NaN,
      }))
  );
}

/** Headline numbers as metrics (sweep-report and `rred runs compare` read these). */
export function logCorrelationSummary(store: Store, run: Run): void {
  const a = analyzeCorrelationRun(store, run.id);
  const metrics: Record<string, number> = { traces: a.traces, segments: a.segments };
  for (const p of a.pairs) {
    metrics[`pearson.${p.bin}.${p.a}_${p.b}`] = p.pearson;
    metrics[`spearman.${p.bin}.${p.a}_${p.b}`] = p.spearman;
  }
  for (const p of a.proxy) metrics[`spearman_within.${p.method}_mc`] = p.within.value;
  if (a.ceiling) {
    metrics['ceiling.pooled'] = a.ceiling.pooled.ceiling.value;
    metrics['ceiling.within'] = a.ceiling.within.ceiling.value;
  }
  for (const c of a.costs) {
    metrics[`cost.wall_ratio.${c.method}`] = c.wallRatio;
    metrics[`cost.tokens_ratio.${c.method}`] = c.tokensRatio;
  }
  run.logMetrics(metrics);
}
