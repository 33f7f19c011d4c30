import * as path from 'path';
import { fmt, type Table, toCsv, toMarkdown, withFixedDigits } from '@rred/core';
import type { Store } from '@rred/results-store';
import { csvHeader, markdownTitle, withProvenance } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { analyzeMcRun, loadMcRun, type McAnalysis } from './load';
import type { McVarianceConfig } from '../common/mc-variance-config';

function sdTable(a: McAnalysis): Table {
  return {
    columns: ['samples', 'mean_sd', 'p10_sd', 'median_sd', 'p90_sd', 'fraction_at_or_below_threshold', 'exit_points'],
    rows: a.sd.map((r) => [r.samples, r.meanSd, r.p10, r.p50, r.p90, r.fractionBelowThreshold, r.exitPoints]),
  };
}

function truncationTable(a: McAnalysis): Table {
  return {
    columns: [
      'fraction_of_M',
      'limit',
      'continuations',
      'cut',
      'cut_fraction',
      'correct_under_M',
      'cut_correct',
      'cut_correct_fraction',
      'mean_abs_value_shift',
    ],
    rows: a.truncation.map((t) => [
      t.fraction,
      t.limit,
      t.continuations,
      t.cut,
      t.cutFraction,
      t.correctUnderM,
      t.cutCorrect,
      t.cutCorrectFraction,
      t.meanAbsValueShift,
    ]),
  };
}

function summaryMarkdown(c: McVarianceConfig, a: McAnalysis): string {
  const n = c.mc.samplesPerExitPoint;
  const at = (m: number) => a.sd.find((r) => r.samples === m);
  return [
    `Setting: ${a.traces} problems of ${c.split} (one rollout each at T = ${c.rollout.temperature}; rollout accuracy ${fmt(a.rolloutAccuracy)}), ` +
      `${c.segmentation.strategy} segmentation with K ≤ ${c.segmentation.maxSegments} (mean ${fmt(a.meanSegments, 1)} segments, ${a.exitPoints} exit points), ` +
      `n = ${n} continuations per exit point, M = ${c.mc.maxNewTokens} (horizon: ${c.mc.horizon}), ${c.analysis.bootstrapResamples} bootstrap resamples.`,
    '',
    `Mean bootstrap SD of V_MC: ${[1, 5, 10, n]
      .filter((m, i, xs) => m <= n && xs.indexOf(m) === i)
      .map((m) => `${fmt(at(m)?.meanSd ?? NaN)} at ${m}`)
      .join(', ')} samples; ` +
      `mean SD first at or below ${c.analysis.sdThreshold} with ${a.samplesForThreshold ?? `more than ${n}`} samples (paper, Fig. 8: about 5).`,
  ].join('\n');
}

export function renderMcVarianceTables(store: Store, runId: string, outDir: string): string[] {
  const data = loadMcRun(store, runId);
  const a = analyzeMcRun(data);
  const header = markdownTitle('MC value variance and truncation (paper Sec. 4, Fig. 8, Fig. 4, App. 10.1)');
  const md = [
    header,
    summaryMarkdown(data.config, a),
    '',
    '## SD of the MC value estimate vs number of samples (Fig. 8)',
    '',
    toMarkdown(withFixedDigits(sdTable(a), ['samples', 'exit_points'])),
    `## Truncation loss at M′ (Fig. 4; M = ${data.config.mc.maxNewTokens})`,
    '',
    'cut_fraction: continuations not finished within M′ (of all); cut_correct_fraction: correct continuations under M that M′ cuts.',
    '',
    toMarkdown(withFixedDigits(truncationTable(a), ['limit', 'continuations', 'cut', 'correct_under_M', 'cut_correct'])),
  ].join('\n');
  const files = [path.join(outDir, 'table.md'), path.join(outDir, 'sd_by_samples.csv'), path.join(outDir, 'truncation.csv')];
  writeText(files[0], withProvenance(md, store, [runId], 'npx nx run experiments:tables'));
  writeText(files[1], csvHeader(store, [runId]) + toCsv(sdTable(a)));
  writeText(files[2], csvHeader(store, [runId]) + toCsv(truncationTable(a)));
  return files;
}

export async function renderMcVariancePlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const data = loadMcRun(store, runId);
  const a = analyzeMcRun(data);
  const title = `run ${runId}: ${a.traces} traces, ${a.exitPoints} exit points`;
  const sdSpec = {
    title: { text: 'SD of the MC value estimate vs samples (Fig. 8)', subtitle: title },
    width: 420,
    height: 260,
    layer: [
      {
        data: { values: a.sd.map((r) => ({ samples: r.samples, p10: r.p10, p90: r.p90 })) },
        mark: { type: 'area', opacity: 0.25, color: '#4c78a8' },
        encoding: { x: { field: 'samples', type: 'quantitative' }, y: { field: 'p10', type: 'quantitative' }, y2: { field: 'p90' } },
      },
      {
        data: { values: a.sd.map((r) => ({ samples: r.samples, meanSd: r.meanSd })) },
        mark: { type: 'line', point: true, color: '#4c78a8' },
        encoding: {
          x: { field: 'samples', type: 'quantitative', title: 'samples per exit point' },
          y: { field: 'meanSd', type: 'quantitative', title: 'bootstrap SD of V_MC (mean, band p10–p90)' },
        },
      },
      {
        data: { values: [{ y: data.config.analysis.sdThreshold }] },
        mark: { type: 'rule', color: '#e45756', strokeDash: [6, 4] },
        encoding: { y: { field: 'y', type: 'quantitative' } },
      },
    ],
  };
  const truncValues = a.truncation.flatMap((t) => [
    { limit: `${Math.round(t.fraction * 100)}% (${t.limit})`, order: t.fraction, measure: 'completions cut', fraction: t.cutFraction },
    {
      limit: `${Math.round(t.fraction * 100)}% (${t.limit})`,
      order: t.fraction,
      measure: 'correct completions lost',
      fraction: t.cutCorrectFraction,
    },
  ]);
  const truncSpec = {
    title: { text: `Truncation loss at M′ (Fig. 4; M = ${data.config.mc.maxNewTokens})`, subtitle: title },
    data: { values: truncValues },
    width: 360,
    height: 240,
    mark: 'bar',
    encoding: {
      x: { field: 'limit', type: 'ordinal', sort: { field: 'order' }, title: 'M′ (% of M, tokens)' },
      xOffset: { field: 'measure' },
      y: { field: 'fraction', type: 'quantitative', title: 'fraction', scale: { domain: [0, 1] } },
      color: { field: 'measure', type: 'nominal', title: null },
    },
  };
  return [...(await writePlot(outDir, 'sd_by_samples', sdSpec)), ...(await writePlot(outDir, 'truncation', truncSpec))];
}
