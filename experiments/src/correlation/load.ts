import { Rng } from '@rred/core';
import type { Run, Store } from '@rred/results-store';
import { CORRELATION_METHODS, correlationConfigSchema, type CorrelationConfig, type CorrelationMethod } from './config';
import { correlate, POSITION_BINS, positionBin, type CorrelationEstimate, type PairedPoint } from './stats';

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
  tokensForwarded: number;
  tokensGenerated: number;
  tokensTotal: number;
  forwardPasses: number;
  wallRatio: number;
  tokensRatio: number;
}

export interface CorrelationAnalysis {
  config: CorrelationConfig;
  pairs: PairRow[];
  costs: CostRow[];
  traces: number;
  segments: number;
}

/** One number per (trace, segment) per method: the credit r_k, or σ_k for RREDCoT when configured. */
interface SegmentValues {
  trace: number;
  k: number;
  K: number;
  values: Record<CorrelationMethod, number>;
}

function segmentValues(store: Store, runId: string, config: CorrelationConfig): SegmentValues[] {
  const out: SegmentValues[] = [];
  store.traces(runId).forEach((t, ti) => {
    const K = t.segments.length;
    const table = new Map<string, number>();
    for (const e of t.estimates) {
      if (e.exitPoint === 0) continue; // s_0 has a value, no credit
      const use = e.method === 'rredcot' && config.rredcotQuantity === 'sigma' ? e.sigma : e.credit;
      // null means "not produced"; keep it visible as NaN so it is counted as non-finite, never as 0
      table.set(`${e.method}:${e.exitPoint}`, use ?? NaN);
    }
    for (let k = 1; k <= K; k++) {
      const values = {} as Record<CorrelationMethod, number>;
      for (const m of CORRELATION_METHODS) values[m] = table.get(`${m}:${k}`) ?? NaN;
      out.push({ trace: ti, k, K, values });
    }
  });
  return out;
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
  return { config, pairs, costs: costTable(store, runId), traces: new Set(segs.map((s) => s.trace)).size, segments: segs.length };
}

/** Mean per-trace cost of each method, and its ratio to RREDCoT's. */
export function costTable(store: Store, runId: string): CostRow[] {
  const sums = new Map<string, { n: number; wall: number; fwd: number; gen: number; passes: number }>();
  for (const t of store.traces(runId)) {
    for (const c of t.costs) {
      const s = sums.get(c.method) ?? { n: 0, wall: 0, fwd: 0, gen: 0, passes: 0 };
      s.n++;
      s.wall += c.wallMs;
      s.fwd += c.tokensForwarded;
      s.gen += c.tokensGenerated;
      s.passes += c.forwardPasses;
      sums.set(c.method, s);
    }
  }
  const rows = [...sums.entries()].map(([method, s]) => ({
    method,
    traces: s.n,
    wallMs: s.wall / s.n,
    tokensForwarded: s.fwd / s.n,
    tokensGenerated: s.gen / s.n,
    tokensTotal: (s.fwd + s.gen) / s.n,
    forwardPasses: s.passes / s.n,
  }));
  const base = rows.find((r) => r.method === 'rredcot');
  const order = (m: string) => {
    const i = (CORRELATION_METHODS as readonly string[]).indexOf(m);
    return i < 0 ? CORRELATION_METHODS.length : i;
  };
  return rows
    .sort((x, y) => order(x.method) - order(y.method) || (x.method < y.method ? -1 : 1))
    .map((r) => ({ ...r, wallRatio: base ? r.wallMs / base.wallMs : NaN, tokensRatio: base ? r.tokensTotal / base.tokensTotal : NaN }));
}

/** Headline numbers as metrics (sweep-report and `rred runs compare` read these). */
export function logCorrelationSummary(store: Store, run: Run): void {
  const a = analyzeCorrelationRun(store, run.id);
  const metrics: Record<string, number> = { traces: a.traces, segments: a.segments };
  for (const p of a.pairs) {
    metrics[`pearson.${p.bin}.${p.a}_${p.b}`] = p.pearson;
    metrics[`spearman.${p.bin}.${p.a}_${p.b}`] = p.spearman;
  }
  for (const c of a.costs) {
    metrics[`cost.wall_ratio.${c.method}`] = c.wallRatio;
    metrics[`cost.tokens_ratio.${c.method}`] = c.tokensRatio;
  }
  run.logMetrics(metrics);
}
