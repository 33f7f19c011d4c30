import * as path from 'path';
import { fmt, mean, toMarkdown } from '@rred/core';
import type { Store } from '@rred/results-store';
import { EVAL_SPLITS, PHRASING_BARS } from '@rred/tasks';
import { checkpointStem } from '../common/model';
import { markdownTitle, withProvenance } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import type { LmQualityConfig } from './config';

/**
 * The quality bars of an embedded model, checked in the report; early exits (`</think>` before the last
 * line in at most 1% of T = 1 samples) are checked when the run measured them.
 */
const QUALITY_BARS = { greedyAccuracy: [0.35, 0.85], mixedFraction: 0.2, entropyRatio: 3, earlyExitFraction: 0.01 } as const;

/** One equal-width bin of the reliability plot: exit points whose forced-exit probability falls in [lo, hi). */
interface CalibrationBin {
  lo: number;
  hi: number;
  points: number;
  meanForced: number;
  meanMc: number;
}

interface LmQualityReport {
  runId: string;
  checkpoint: string;
  checkpointHash: string;
  /** What checkpointHash covers: absent on runs recorded when it was the weights hash alone (their renders stay byte for byte). */
  checkpointHashCovers?: string;
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
  /**
   * Early exits proper (exit-points.ts isEarlyExit): closed before a step line for every step and without the
   * last variable. Absent on runs before it was measured, which have only `missedLastSubgoalFraction`.
   */
  earlyExitFraction?: number;
  /** Closed without a line naming the last variable (early exits and misnamed or garbled last lines); stored as `t1.earlyExitFraction` by older runs. Absent on runs that measured neither. */
  missedLastSubgoalFraction?: number;
  composite?: { split: string; accuracy: number; partAccuracy: number; problems: number };
  calibration?: { traces: number; points: number; meanAbsGap: number; bins: CalibrationBin[] };
  terms?: { correctTraces: number; valueStep1Mean: number; immediateGainMean: number };
  /** The free-form bed's phrasing bars (@rred/tasks phrasingVariety); absent for a checkpoint of the notation. */
  phrasing?: { samples: number; reorderedShare: number; unreadLineShare: number; templates: Record<string, number> };
}

function calibrationBins(forced: number[], mc: number[], bins = 10): CalibrationBin[] {
  return Array.from({ length: bins }, (_, b) => {
    const lo = b / bins;
    const hi = (b + 1) / bins;
    const idx = forced.map((_, i) => i).filter((i) => forced[i] >= lo && (forced[i] < hi || (b === bins - 1 && forced[i] <= hi)));
    return { lo, hi, points: idx.length, meanForced: mean(idx.map((i) => forced[i])), meanMc: mean(idx.map((i) => mc[i])) };
  }).filter((b) => b.points > 0);
}

function metric(metrics: Record<string, number | null>, key: string): number {
  const v = metrics[key];
  if (v === undefined) throw new Error(`lm-quality run is missing metric ${key}`);
  return v === null ? NaN : v;
}

export function lmQualityReport(store: Store, runId: string): LmQualityReport {
  const run = store.getRun(runId);
  const c = run.config as LmQualityConfig;
  const m = run.metrics;
  const accuracyBySplit: Record<string, number> = {};
  const lengthBySplit: Record<string, { mean: number; max: number }> = {};
  for (const split of EVAL_SPLITS) {
    accuracyBySplit[split] = metric(m, `greedy.${split}.accuracy`);
    lengthBySplit[split] = { mean: metric(m, `greedy.${split}.meanLength`), max: metric(m, `greedy.${split}.maxLength`) };
  }
  const has = (key: string) => m[key] !== undefined;
  const history = (key: string) =>
    store
      .metricHistory(runId, key)
      .sort((a, b) => a.step - b.step)
      .map((p) => p.value ?? NaN);
  const split = (c as { compositeSplit?: string | null }).compositeSplit;
  return {
    runId: run.id,
    checkpoint: c.checkpoint,
    checkpointHash: run.tags.checkpointHash ?? 'unknown',
    ...(run.tags.checkpointHashCovers ? { checkpointHashCovers: run.tags.checkpointHashCovers } : {}),
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
    ...(has('t1.stoppedShortFraction') ? { earlyExitFraction: metric(m, 't1.stoppedShortFraction') } : {}),
    ...(has('t1.missedLastSubgoalFraction') || has('t1.earlyExitFraction')
      ? {
          missedLastSubgoalFraction: metric(
            m,
            has('t1.missedLastSubgoalFraction') ? 't1.missedLastSubgoalFraction' : 't1.earlyExitFraction',
          ),
        }
      : {}),
    ...(split && has(`composite.${split}.accuracy`)
      ? {
          composite: {
            split,
            accuracy: metric(m, `composite.${split}.accuracy`),
            partAccuracy: metric(m, `composite.${split}.partAccuracy`),
            problems: metric(m, `composite.${split}.problems`),
          },
        }
      : {}),
    ...phrasingOf(m),
    ...(has('calibration.points')
      ? {
          calibration: {
            traces: metric(m, 'calibration.traces'),
            points: metric(m, 'calibration.points'),
            meanAbsGap: metric(m, 'calibration.meanAbsGap'),
            bins: calibrationBins(history('calibration.forced'), history('calibration.mc')),
          },
          terms: {
            correctTraces: metric(m, 'terms.correctTraces'),
            valueStep1Mean: metric(m, 'terms.valueStep1.mean'),
            immediateGainMean: metric(m, 'terms.immediateGain.mean'),
          },
        }
      : {}),
  };
}

/**
 * The early-exit bar. Runs that measured early exits proper get the bar on them and the looser count (the last
 * variable never named) beside it; older runs have only the looser count, under its old label and the bar.
 */
function earlyExitRows(r: LmQualityReport): string[][] {
  const bar = `≤ ${QUALITY_BARS.earlyExitFraction}`;
  const missed = r.missedLastSubgoalFraction;
  if (r.earlyExitFraction === undefined) {
    if (missed === undefined) return [];
    return [
      [
        `T = 1 samples that close their thinking before the last line (${r.defaultSplit})`,
        fmt(missed, 4),
        bar,
        check(missed <= QUALITY_BARS.earlyExitFraction),
      ],
    ];
  }
  return [
    [
      `T = 1 samples that close their thinking early: before a step line for every step, the last variable unnamed (${r.defaultSplit})`,
      fmt(r.earlyExitFraction, 4),
      bar,
      check(r.earlyExitFraction <= QUALITY_BARS.earlyExitFraction),
    ],
    ...(missed === undefined
      ? []
      : [
          [
            `T = 1 samples that close their thinking with the last variable unnamed (early exits, misnamed or garbled last lines)`,
            fmt(missed, 4),
            '—',
            '—',
          ],
        ]),
  ];
}

/** The phrasing metrics of a free-form run (`phrasing.*`), or nothing. */
function phrasingOf(m: Record<string, number | null>): Pick<LmQualityReport, 'phrasing'> {
  if (m['phrasing.samples'] === undefined) return {};
  const prefix = 'phrasing.templates.';
  const templates = Object.fromEntries(
    Object.keys(m)
      .filter((k) => k.startsWith(prefix))
      .sort()
      .map((k) => [k.slice(prefix.length), metric(m, k)]),
  );
  return {
    phrasing: {
      samples: metric(m, 'phrasing.samples'),
      reorderedShare: metric(m, 'phrasing.reorderedShare'),
      unreadLineShare: metric(m, 'phrasing.unreadLineShare'),
      templates,
    },
  };
}

/** The bars rows of the phrasing (free-form bed only). */
function phrasingRows(r: LmQualityReport): string[][] {
  if (!r.phrasing) return [];
  const p = r.phrasing;
  return [
    ...Object.entries(p.templates).map(([kind, n]) => [
      `templates of '${kind}' lines in ${p.samples} T = 1 samples`,
      String(n),
      `≥ ${PHRASING_BARS.templatesPerKind}`,
      check(n >= PHRASING_BARS.templatesPerKind),
    ]),
    [
      `T = 1 samples ordering two steps otherwise than the reference (of ${p.samples})`,
      fmt(p.reorderedShare),
      `≥ ${PHRASING_BARS.reorderedShare}`,
      check(p.reorderedShare >= PHRASING_BARS.reorderedShare),
    ],
    [`thinking lines in none of the bed's templates`, fmt(p.unreadLineShare, 4), '—', '—'],
  ];
}

const check = (ok: boolean) => (ok ? 'yes' : '**no**');

export function renderLmQualityTables(store: Store, runId: string, outDir: string): string[] {
  const r = lmQualityReport(store, runId);
  const [lo, hi] = QUALITY_BARS.greedyAccuracy;
  const md = [
    markdownTitle('Embedded model quality'),
    `Checkpoint \`${r.checkpoint}\` (${r.checkpointHashCovers ? `sha256 of ${r.checkpointHashCovers}` : 'weights sha256'} ${r.checkpointHash.slice(0, 12)}); first ${r.problemsPerSplit} problems of each split.`,
    '',
    toMarkdown({
      columns: ['measure', 'value', 'required', 'met'],
      rows: [
        [
          `greedy accuracy (${r.defaultSplit})`,
          fmt(r.greedyAccuracy),
          `${lo}–${hi}`,
          check(r.greedyAccuracy >= lo && r.greedyAccuracy <= hi),
        ],
        [
          `problems with right and wrong among ${r.samplesPerProblem} samples at T = 1 (${r.defaultSplit})`,
          fmt(r.mixedFraction),
          `≥ ${QUALITY_BARS.mixedFraction}`,
          check(r.mixedFraction >= QUALITY_BARS.mixedFraction),
        ],
        // The prose bed varies its wording by design, so its format tokens carry entropy: the bar is the char beds'.
        [
          'mean entropy of result tokens / format tokens (T = 1)',
          fmt(r.entropyRatio, 2),
          r.phrasing ? '— (wording varies by design)' : `≥ ${QUALITY_BARS.entropyRatio}`,
          r.phrasing ? '—' : check(r.entropyRatio >= QUALITY_BARS.entropyRatio),
        ],
        ...earlyExitRows(r),
        ...phrasingRows(r),
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
    ...extraSections(r),
  ].join('\n');
  const stem = checkpointStem(r.checkpoint);
  const files = [path.join(outDir, `${stem}.md`), path.join(outDir, `${stem}.json`)];
  writeText(files[0], withProvenance(md, store, [runId], 'npx nx run experiments:tables'));
  writeText(files[1], `${JSON.stringify(r, null, 2)}\n`);
  return files;
}

/** Sections of the early-exit and exit-point measurements, present only when the run made them. */
function extraSections(r: LmQualityReport): string[] {
  const out: string[] = [];
  if (r.composite) {
    out.push(
      '',
      `## Composite answers (${r.composite.split})`,
      '',
      `Greedy, first ${r.composite.problems} problems: all parts right ${fmt(r.composite.accuracy)}; parts right ${fmt(r.composite.partAccuracy)}.`,
    );
  }
  if (r.calibration && r.terms) {
    out.push(
      '',
      '## Exit points: forced-exit answer probability vs MC value',
      '',
      `T = 1 rollouts of ${r.defaultSplit} (${r.calibration.traces} in all), an exit point after every line (keyword segmentation), ${r.calibration.points} exit points with MC values; ` +
        `forced = p(y* <eos> | s_k, </think>), MC = mean ζ of the continuations from s_k. Mean |forced − MC| ${fmt(r.calibration.meanAbsGap)}.`,
      '',
      toMarkdown({
        columns: ['forced-exit p in', 'exit points', 'mean forced-exit p', 'mean MC value'],
        rows: r.calibration.bins.map((b) => [`[${fmt(b.lo, 1)}, ${fmt(b.hi, 1)})`, String(b.points), fmt(b.meanForced), fmt(b.meanMc)]),
      }),
      `RREDCoT with exit 'forced', valueSuffix 'remaining', combine 'sum' on the ${r.terms.correctTraces} correct rollouts: ` +
        `mean log V(s_1) − log V(s_0) = ${fmt(r.terms.valueStep1Mean, 2)} nats (required > −5), ` +
        `mean log I(s_K) − log I(s_0) = ${fmt(r.terms.immediateGainMean, 2)} nats (required > 0).`,
    );
  }
  return out;
}

export async function renderLmQualityPlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const r = lmQualityReport(store, runId);
  const stem = checkpointStem(r.checkpoint);
  const files = await accuracyPlot(r, outDir, stem);
  if (r.calibration) files.push(...(await calibrationPlot(store, r, outDir, stem)));
  return files;
}

async function calibrationPlot(store: Store, r: LmQualityReport, outDir: string, stem: string): Promise<string[]> {
  const history = (key: string) =>
    store
      .metricHistory(r.runId, key)
      .sort((a, b) => a.step - b.step)
      .map((p) => p.value ?? NaN);
  const forced = history('calibration.forced');
  const mc = history('calibration.mc');
  const position = history('calibration.position');
  const points = forced.map((f, i) => ({ forced: f, mc: mc[i], position: position[i] }));
  return writePlot(outDir, `${stem}_calibration`, {
    title: {
      text: `${stem}.ckpt: forced-exit p(y* | s_k, </think>) vs MC value at the same exit points`,
      subtitle: `run ${r.runId}; ${r.calibration!.points} exit points; line: 10 equal-width bins`,
    },
    width: 320,
    height: 320,
    layer: [
      {
        data: {
          values: [
            { x: 0, y: 0 },
            { x: 1, y: 1 },
          ],
        },
        mark: { type: 'line', color: '#999', strokeDash: [4, 4] },
        encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
      },
      {
        data: { values: points },
        mark: { type: 'circle', opacity: 0.35, size: 20 },
        encoding: {
          x: { field: 'forced', type: 'quantitative', scale: { domain: [0, 1] }, title: 'forced-exit answer probability' },
          y: { field: 'mc', type: 'quantitative', scale: { domain: [0, 1] }, title: 'MC value (mean ζ of continuations)' },
          color: { field: 'position', type: 'quantitative', title: 'k / K', scale: { scheme: 'viridis' } },
        },
      },
      {
        data: { values: r.calibration!.bins },
        mark: { type: 'line', point: true, color: '#d62728' },
        encoding: { x: { field: 'meanForced', type: 'quantitative' }, y: { field: 'meanMc', type: 'quantitative' } },
      },
    ],
  });
}

async function accuracyPlot(r: LmQualityReport, outDir: string, stem: string): Promise<string[]> {
  return writePlot(outDir, `${stem}_accuracy`, {
    title: { text: `${stem}.ckpt: greedy accuracy per eval split`, subtitle: `run ${r.runId}` },
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
