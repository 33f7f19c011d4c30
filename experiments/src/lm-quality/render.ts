import * as path from 'path';
import { fmt, toMarkdown } from '@rred/core';
import type { Store } from '@rred/results-store';
import { EVAL_SPLITS } from '@rred/tasks';
import { markdownHeader } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import type { LmQualityConfig } from './config';

/** The acceptance ranges of the embedded model (issue 3), checked in the report. */
const QUALITY_BARS = { greedyAccuracy: [0.35, 0.85], mixedFraction: 0.2, entropyRatio: 3 } as const;

interface LmQualityReport {
  runId: string;
  checkpoint: string;
  checkpointHash: string;
  defaultSplit: string;
  greedyAccuracy: number;
  mixedFraction: number;
  entropyRatio: number;
  meanEntropy: { result: number; format: number; other: number };
  accuracyBySplit: Record<string, number>;
  lengthBySplit: Record<string, { mean: number; max: number }>;
  t1Accuracy: number;
  problemsPerSplit: number;
  samplesPerProblem: number;
}

function metric(metrics: Record<string, number | null>, key: string): number {
  const v = metrics[key];
  if (v === undefined) throw new Error(`lm-quality run is missing metric ${key}`);
  return v === null ? NaN : v;
}

function lmQualityReport(store: Store, runId: string): LmQualityReport {
  const run = store.getRun(runId);
  const c = run.config as LmQualityConfig;
  const m = run.metrics;
  const accuracyBySplit: Record<string, number> = {};
  const lengthBySplit: Record<string, { mean: number; max: number }> = {};
  for (const split of EVAL_SPLITS) {
    accuracyBySplit[split] = metric(m, `greedy.${split}.accuracy`);
    lengthBySplit[split] = { mean: metric(m, `greedy.${split}.meanLength`), max: metric(m, `greedy.${split}.maxLength`) };
  }
  return {
    runId: run.id,
    checkpoint: c.checkpoint,
    checkpointHash: run.tags.checkpointHash ?? 'unknown',
    defaultSplit: c.defaultSplit,
    greedyAccuracy: accuracyBySplit[c.defaultSplit],
    mixedFraction: metric(m, 't1.mixedFraction'),
    entropyRatio: metric(m, 't1.entropyRatio'),
    meanEntropy: { result: metric(m, 't1.entropy.result'), format: metric(m, 't1.entropy.format'), other: metric(m, 't1.entropy.other') },
    accuracyBySplit,
    lengthBySplit,
    t1Accuracy: metric(m, 't1.accuracy'),
    problemsPerSplit: c.problemsPerSplit,
    samplesPerProblem: c.samplesPerProblem,
  };
}

const check = (ok: boolean) => (ok ? 'yes' : '**no**');

export function renderLmQualityTables(store: Store, runId: string, outDir: string): string[] {
  const r = lmQualityReport(store, runId);
  const [lo, hi] = QUALITY_BARS.greedyAccuracy;
  const md = [
    markdownHeader('Embedded model quality', store, [runId], 'npx nx run experiments:tables'),
    `Checkpoint \`${r.checkpoint}\` (weights sha256 ${r.checkpointHash.slice(0, 12)}); first ${r.problemsPerSplit} problems of each split.`,
    '',
    toMarkdown({
      columns: ['measure', 'value', 'required', 'met'],
      rows: [
        [`greedy accuracy (${r.defaultSplit})`, fmt(r.greedyAccuracy), `${lo}–${hi}`, check(r.greedyAccuracy >= lo && r.greedyAccuracy <= hi)],
        [`problems with right and wrong among ${r.samplesPerProblem} samples at T = 1 (${r.defaultSplit})`, fmt(r.mixedFraction), `≥ ${QUALITY_BARS.mixedFraction}`, check(r.mixedFraction >= QUALITY_BARS.mixedFraction)],
        ['mean entropy of result tokens / format tokens (T = 1)', fmt(r.entropyRatio, 2), `≥ ${QUALITY_BARS.entropyRatio}`, check(r.entropyRatio >= QUALITY_BARS.entropyRatio)],
      ],
    }),
    `Mean token entropy (nats) at T = 1: result ${fmt(r.meanEntropy.result, 4)}, format ${fmt(r.meanEntropy.format, 4)}, other ${fmt(r.meanEntropy.other, 4)}; T = 1 accuracy ${fmt(r.t1Accuracy)}.`,
    '',
    '## Greedy accuracy and completion length per eval split',
    '',
    toMarkdown({
      columns: ['split', 'greedy accuracy', 'mean length (tokens)', 'max length (tokens)'],
      rows: EVAL_SPLITS.map((s) => [s, fmt(r.accuracyBySplit[s]), fmt(r.lengthBySplit[s].mean, 1), String(r.lengthBySplit[s].max)]),
    }),
  ].join('\n');
  const files = [path.join(outDir, 'embedded.md'), path.join(outDir, 'embedded.json')];
  writeText(files[0], md);
  writeText(files[1], `${JSON.stringify(r, null, 2)}\n`);
  return files;
}

export async function renderLmQualityPlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const r = lmQualityReport(store, runId);
  return writePlot(outDir, 'embedded_accuracy', {
    title: { text: 'Embedded model: greedy accuracy per eval split', subtitle: `run ${runId}` },
    data: { values: EVAL_SPLITS.map((s, i) => ({ split: s, order: i, accuracy: r.accuracyBySplit[s] })) },
    width: 300,
    height: 200,
    mark: 'bar',
    encoding: {
      x: { field: 'split', type: 'ordinal', sort: { field: 'order' }, title: 'eval split (rising difficulty)' },
      y: { field: 'accuracy', type: 'quantitative', scale: { domain: [0, 1] }, title: 'greedy accuracy' },
    },
  });
}
