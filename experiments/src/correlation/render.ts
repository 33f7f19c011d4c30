import * as path from 'path';
import { fmt, type Table, toCsv, toMarkdown, withFixedDigits } from '@rred/core';
import type { Store } from '@rred/results-store';
import { csvHeader, markdownHeader } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { CORRELATION_METHODS } from './config';
import { analyzeCorrelationRun, BINS, type CorrelationAnalysis, type PairRow } from './load';

const withCi = (v: number, lo: number, hi: number) => `${fmt(v, 2)} [${fmt(lo, 2)}, ${fmt(hi, 2)}]`;

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
    markdownHeader(
      'Correlation between credit-assignment methods (paper Sec. 4, Fig. 5, App. 10.2)',
      store,
      runs,
      'npx nx run experiments:tables',
    ),
    `Setting: ${a.traces} traces, ${a.segments} segments (${c.segmentation.strategy}, K ≤ ${c.segmentation.maxSegments}). ` +
      `Per segment: RREDCoT ${c.rredcotQuantity === 'sigma' ? 'σ_k' : 'credit r_k'} (terms ${c.rredcot.terms}, ${c.rredcot.space} space, ${c.rredcot.normalization}, ` +
      `${c.references.count} dataset reference${c.references.count > 1 ? 's' : ''} per problem), leave-one-out PMI_k, gradient attribution (${c.gradient.aggregate} L1 norm), ` +
      `MC credit ΔV_MC with n = ${c.mc.samplesPerExitPoint} (proxy ground truth). Intervals: ${Math.round(c.analysis.level * 100)}% percentile bootstrap over traces ` +
      `(${c.analysis.bootstrapResamples} resamples).${nonFinite ? ` Up to ${nonFinite} segments with a non-finite value were excluded from a pair.` : ''}` +
      (skipped.length
        ? ` ${skipped.length} trace${skipped.length > 1 ? 's were' : ' was'} left out because a reference did not fit in the context after their last exit point: ${skipped.join(', ')}.`
        : ''),
    '',
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
    'wall ms measured on a shared 2-core machine; MC reused from the source run is charged at its stored cost.',
    '',
    toMarkdown(withFixedDigits(costsTable(a), ['traces'], 2)),
  ].join('\n');
  const files = [path.join(outDir, 'table.md'), path.join(outDir, 'correlations.csv'), path.join(outDir, 'costs.csv')];
  writeText(files[0], md);
  writeText(files[1], csvHeader(store, runs) + toCsv(pairsCsv(a)));
  writeText(files[2], csvHeader(store, runs) + toCsv(costsTable(a)));
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
