import * as path from 'path';
import { termsLabel } from '@rred/estimators';
import { fmt, type Table, toCsv, toMarkdown, withFixedDigits } from '@rred/core';
import type { Store } from '@rred/results-store';
import { csvHeader, markdownTitle, withProvenance } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { MC_SHARED_PREFILL_TAG } from '../common/mc-records';
import { CORRELATION_METHODS, TRIVIAL_BASELINES } from './config';
import { analyzeCorrelationRun, BINS, type CorrelationAnalysis, type PairRow } from './load';

/** `v [lo, hi]`; '—' where there is no value (a method this run did not score). */
const withCi = (v: number, lo: number, hi: number) => (Number.isNaN(v) ? '—' : `${fmt(v, 2)} [${fmt(lo, 2)}, ${fmt(hi, 2)}]`);

const METHOD_LABELS: Record<string, string> = {
  length: 'segment length (tokens)',
  position: 'segment position k',
};
const label = (method: string) => METHOD_LABELS[method] ?? (/^mc\.n\d+$/.test(method) ? `MC n = ${method.slice(4)} (fresh draws)` : method);

/** Each method against the proxy, with its cost; the ceiling first. Trivial baselines cost nothing. */
function proxyTable(a: CorrelationAnalysis): Table {
  const costOf = (m: string) => a.costs.find((c) => c.method === m);
  const free = (m: string) => (TRIVIAL_BASELINES as readonly string[]).includes(m);
  const c = a.ceiling;
  const ceilingRow = [
    `ceiling: √ reliability of the n = ${a.config.mc.samplesPerExitPoint} proxy`,
    c ? withCi(c.pooled.ceiling.value, c.pooled.ceiling.lo, c.pooled.ceiling.hi) : '—',
    c ? withCi(c.within.ceiling.value, c.within.ceiling.lo, c.within.ceiling.hi) : '—',
    c ? c.within.tracesUsed : '—',
    '',
    '',
    '',
  ];
  return {
    columns: [
      'method',
      'Spearman, pooled',
      'Spearman, within trace (mean)',
      'traces (within)',
      'tokens forwarded / trace',
      '× RREDCoT tokens',
      'wall ms / trace',
    ],
    rows: [
      ceilingRow,
      ...a.proxy.map((p) => {
        const cost = costOf(p.method);
        return [
          label(p.method),
          withCi(p.pooled.spearman, p.pooled.spearmanLo, p.pooled.spearmanHi),
          withCi(p.within.value, p.within.lo, p.within.hi),
          Number.isNaN(p.within.value) ? '—' : p.within.tracesUsed,
          free(p.method) ? '0' : cost ? fmt(cost.tokensForwarded, 0) : '—',
          free(p.method) ? '0' : cost ? fmt(cost.tokensRatio, 2) : '—',
          free(p.method) ? '0' : cost ? fmt(cost.wallMs, 1) : '—',
        ];
      }),
    ],
  };
}

function ceilingTable(c: NonNullable<CorrelationAnalysis['ceiling']>): Table {
  const row = (name: string, r: typeof c.pooled, traces: number) => [
    name,
    fmt(r.halfCorrelation, 2),
    withCi(r.reliability.value, r.reliability.lo, r.reliability.hi),
    withCi(r.ceiling.value, r.ceiling.lo, r.ceiling.hi),
    traces,
  ];
  return {
    columns: [
      'Spearman',
      `half vs half (n = ${c.half} each)`,
      `reliability at n = ${c.samples} (Spearman–Brown)`,
      'ceiling √reliability',
      'traces',
    ],
    rows: [row('pooled', c.pooled, c.traces), row('within trace (mean)', c.within, c.within.tracesUsed)],
  };
}

function proxyCsv(a: CorrelationAnalysis): Table {
  const c = a.ceiling;
  const none = [NaN, NaN, NaN];
  const est = (e: { value: number; lo: number; hi: number } | undefined) => (e ? [e.value, e.lo, e.hi] : none);
  return {
    columns: [
      'method',
      'spearman_pooled',
      'spearman_pooled_lo',
      'spearman_pooled_hi',
      'pearson_pooled',
      'pearson_pooled_lo',
      'pearson_pooled_hi',
      'spearman_within',
      'spearman_within_lo',
      'spearman_within_hi',
      'traces_within',
      'segments',
      'non_finite_excluded',
    ],
    rows: [
      ['ceiling', ...est(c?.pooled.ceiling), ...none, ...est(c?.within.ceiling), c ? c.within.tracesUsed : NaN, c ? c.segments : NaN, 0],
      [
        'reliability',
        ...est(c?.pooled.reliability),
        ...none,
        ...est(c?.within.reliability),
        c ? c.within.tracesUsed : NaN,
        c ? c.segments : NaN,
        0,
      ],
      ...a.proxy.map((p) => [
        p.method,
        p.pooled.spearman,
        p.pooled.spearmanLo,
        p.pooled.spearmanHi,
        p.pooled.pearson,
        p.pooled.pearsonLo,
        p.pooled.pearsonHi,
        p.within.value,
        p.within.lo,
        p.within.hi,
        p.within.tracesUsed,
        p.pooled.n,
        p.pooled.nonFinite,
      ]),
    ],
  };
}

function find(a: CorrelationAnalysis, bin: string, x: string, y: string): PairRow | undefined {
  return a.pairs.find((p) => p.bin === bin && ((p.a === x && p.b === y) || (p.a === y && p.b === x)));
}

function matrix(a: CorrelationAnalysis, kind: 'pearson' | 'spearman'): Table {
  return {
    columns: ['', ...CORRELATION_METHODS],
    rows: CORRELATION_METHODS.map((x) => [
      x,
      ...CORRELATION_METHODS.map((y) => {
        if (x === y) return '1';
        const p = find(a, 'all', x, y)!;
        return kind === 'pearson' ? withCi(p.pearson, p.pearsonLo, p.pearsonHi) : withCi(p.spearman, p.spearmanLo, p.spearmanHi);
      }),
    ]),
  };
}

function vsMcByBin(a: CorrelationAnalysis): Table {
  const methods = CORRELATION_METHODS.filter((m) => m !== 'mc');
  return {
    columns: ['position', 'segments', ...methods.map((m) => `${m} vs mc (Spearman)`), ...methods.map((m) => `${m} vs mc (Pearson)`)],
    rows: BINS.map((bin) => {
      const ps = methods.map((m) => find(a, bin, m, 'mc')!);
      return [
        bin,
        ps[0].n,
        ...ps.map((p) => withCi(p.spearman, p.spearmanLo, p.spearmanHi)),
        ...ps.map((p) => withCi(p.pearson, p.pearsonLo, p.pearsonHi)),
      ];
    }),
  };
}

function pairsCsv(a: CorrelationAnalysis): Table {
  return {
    columns: [
      'bin',
      'method_a',
      'method_b',
      'pearson',
      'pearson_lo',
      'pearson_hi',
      'spearman',
      'spearman_lo',
      'spearman_hi',
      'segments',
      'traces',
      'non_finite_excluded',
    ],
    rows: a.pairs.map((p) => [
      p.bin,
      p.a,
      p.b,
      p.pearson,
      p.pearsonLo,
      p.pearsonHi,
      p.spearman,
      p.spearmanLo,
      p.spearmanHi,
      p.n,
      p.traces,
      p.nonFinite,
    ]),
  };
}

function costsTable(a: CorrelationAnalysis): Table {
  return {
    columns: [
      'method',
      'traces',
      'wall_ms_per_trace',
      'tokens_forwarded',
      'tokens_generated',
      'forward_passes',
      'wall_ratio_to_rredcot',
      'tokens_ratio_to_rredcot',
    ],
    rows: a.costs.map((c) => [
      c.method,
      c.traces,
      c.wallMs,
      c.tokensForwarded,
      c.tokensGenerated,
      c.forwardPasses,
      c.wallRatio,
      c.tokensRatio,
    ]),
  };
}

/** Which MC cost this run states: at its best (samples of an exit point share its prefill) or as recorded before that. */
function mcCostNote(store: Store, runId: string): string {
  const shared = store.getRun(runId).tags[MC_SHARED_PREFILL_TAG];
  if (shared === 'true')
    return 'MC at its best: the n samples of an exit point share its prefill (one prefix forward per exit point and `sample` call).';
  if (shared === 'false')
    return "MC's stored cost comes from a source run whose samples each re-forwarded their exit point's prefix (not MC at its best).";
  return "MC costs as recorded by this run's source, before MC's samples shared their exit point's prefill (each sample re-forwarded its prefix).";
}

function sourceLine(store: Store, runId: string): string[] {
  const tags = store.getRun(runId).tags;
  return tags.sourceRun && tags.sourceRun !== 'none (generated)' ? [runId, tags.sourceRun] : [runId];
}

export function renderCorrelationTables(store: Store, runId: string, outDir: string): string[] {
  const a = analyzeCorrelationRun(store, runId);
  const c = a.config;
  const runs = sourceLine(store, runId);
  const skipped = (store.getRun(runId).tags.skippedTraces ?? '').split(',').filter(Boolean);
  const nonFinite = a.pairs.filter((p) => p.bin === 'all').reduce((m, p) => Math.max(m, p.nonFinite), 0);
  const md = [
    markdownTitle('Correlation between credit-assignment methods (paper Sec. 4, Fig. 5, App. 10.2)'),
    `Setting: ${a.traces} traces, ${a.segments} segments (${c.segmentation.strategy}, K ≤ ${c.segmentation.maxSegments}). ` +
      `Per segment: RREDCoT ${c.rredcotQuantity === 'sigma' ? 'σ_k' : 'credit r_k'} (terms ${termsLabel[c.rredcot.terms]}, ${c.rredcot.space} space, ${c.rredcot.normalization}, ` +
      `${c.references.count} dataset reference${c.references.count > 1 ? 's' : ''} per problem), leave-one-out PMI_k, gradient attribution (${c.gradient.aggregate} L1 norm), ` +
      `MC credit ΔV_MC with n = ${c.mc.samplesPerExitPoint} (proxy ground truth). Against the proxy also: MC at n = ${c.mcAtEqualCost.join(', ') || '—'} ` +
      `from fresh draws (independent of the proxy's), segment length and position k. Intervals: ${Math.round(c.analysis.level * 100)}% percentile bootstrap over traces ` +
      `(${c.analysis.bootstrapResamples} resamples).${nonFinite ? ` Up to ${nonFinite} segments with a non-finite value were excluded from a pair.` : ''}` +
      (skipped.length
        ? ` ${skipped.length} trace${skipped.length > 1 ? 's were' : ' was'} left out because a reference did not fit in the context after their last exit point: ${skipped.join(', ')}.`
        : ''),
    '',
    `## Against the MC proxy (n = ${c.mc.samplesPerExitPoint}), with the noise ceiling and MC at equal cost`,
    '',
    "Within trace: the Spearman of one trace's segments, averaged over the traces where it is defined (≥ 3 segments, no constant side: " +
      'MC at small n is often constant within a trace, and such traces are left out, see "traces"), since σ acts within a trace. The ceiling bounds any method\'s correlation with this proxy (its own noise); a method at the ceiling ' +
      'agrees with the proxy as well as the proxy agrees with itself. Costs per trace: ' +
      mcCostNote(store, runId),
    '',
    toMarkdown(proxyTable(a)),
    '## Noise ceiling of the proxy (split-half reliability of ΔV_MC)',
    '',
    a.ceiling
      ? `Each exit point's ${a.ceiling.samples} samples split into two independent halves (the first ${a.ceiling.half} and the next ${a.ceiling.half}); ` +
        `ΔV_MC from each half; Spearman between the halves over ${a.ceiling.segments} segments of ${a.ceiling.traces} traces, corrected to n = ${a.ceiling.samples} ` +
        `by Spearman–Brown; ceiling = √reliability.\n\n${toMarkdown(ceilingTable(a.ceiling))}`
      : '— (this run stored no proxy continuations: it was recorded before the ceiling was computed)\n',
    '## Spearman (pooled over all segments)',
    '',
    toMarkdown(matrix(a, 'spearman')),
    '## Pearson (pooled over all segments)',
    '',
    toMarkdown(matrix(a, 'pearson')),
    '## Correlation with MC by relative position of the segment (thirds of the trace)',
    '',
    toMarkdown(vsMcByBin(a)),
    '## Cost per trace (mean), ratio to RREDCoT',
    '',
    'wall ms measured on a shared 2-core machine; MC reused from the source run is charged at its stored cost. ' +
      'tokens_forwarded counts every position pushed through the network, generated tokens included (tokens_generated is the part of it that was sampled); ' +
      "the token ratio is tokens_forwarded over RREDCoT's. " +
      mcCostNote(store, runId),
    '',
    toMarkdown(withFixedDigits(costsTable(a), ['traces'], 2)),
  ].join('\n');
  const files = [
    path.join(outDir, 'table.md'),
    path.join(outDir, 'correlations.csv'),
    path.join(outDir, 'costs.csv'),
    path.join(outDir, 'versus_proxy.csv'),
  ];
  writeText(files[0], withProvenance(md, store, runs, 'npx nx run experiments:tables'));
  writeText(files[1], csvHeader(store, runs) + toCsv(pairsCsv(a)));
  writeText(files[2], csvHeader(store, runs) + toCsv(costsTable(a)));
  writeText(files[3], csvHeader(store, runs) + toCsv(proxyCsv(a)));
  return files;
}

export async function renderCorrelationPlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const a = analyzeCorrelationRun(store, runId);
  const subtitle = `run ${runId}: ${a.traces} traces, ${a.segments} segments`;
  const cells = CORRELATION_METHODS.flatMap((x) =>
    CORRELATION_METHODS.map((y) => {
      const r = x === y ? 1 : find(a, 'all', x, y)!.spearman;
      return { x, y, r, label: fmt(r, 2) };
    }),
  );
  const heatmap = {
    title: { text: 'Spearman correlation of segment credits (Fig. 5)', subtitle },
    data: { values: cells },
    width: 260,
    height: 260,
    encoding: {
      x: { field: 'x', type: 'nominal', sort: [...CORRELATION_METHODS], title: null },
      y: { field: 'y', type: 'nominal', sort: [...CORRELATION_METHODS], title: null },
    },
    layer: [
      {
        mark: 'rect',
        encoding: { color: { field: 'r', type: 'quantitative', scale: { scheme: 'redblue', domain: [-1, 1] }, title: 'ρ' } },
      },
      { mark: { type: 'text', fontSize: 12 }, encoding: { text: { field: 'label' } } },
    ],
  };
  const rows = BINS.filter((b) => b !== 'all').flatMap((bin) =>
    CORRELATION_METHODS.filter((m) => m !== 'mc').map((m) => {
      const p = find(a, bin, m, 'mc')!;
      return { position: bin, method: m, spearman: p.spearman, lo: p.spearmanLo, hi: p.spearmanHi };
    }),
  );
  const byPosition = {
    title: { text: 'Spearman correlation with MC by segment position', subtitle },
    data: { values: rows },
    width: 360,
    height: 240,
    encoding: {
      x: { field: 'position', type: 'ordinal', sort: ['early', 'middle', 'late'], title: 'relative position (thirds)' },
      xOffset: { field: 'method' },
      color: { field: 'method', type: 'nominal' },
    },
    layer: [
      {
        mark: { type: 'point', filled: true, size: 60 },
        encoding: { y: { field: 'spearman', type: 'quantitative', title: 'Spearman ρ with MC (95% CI)', scale: { domain: [-1, 1] } } },
      },
      { mark: 'rule', encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
    ],
  };
  return [...(await writePlot(outDir, 'heatmap', heatmap)), ...(await writePlot(outDir, 'by_position', byPosition))];
}
