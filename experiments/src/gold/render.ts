import * as path from 'path';
import { fmt, toCsv, toMarkdown, type Cell, type Table } from '@rred/core';
import type { Store } from '@rred/results-store';
import { checkpointStem } from '../common/model';
import { csvHeader, markdownTitle, withProvenance } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { analyzeGold, methodsOf, type CheckpointMetrics, type GoldAnalysis, type Interval3, type MethodMetrics } from './analysis';
import type { GoldConfig } from './config';
import { mcAtCost, type McPoint } from './equal-cost';
import { loadGold, type GoldData } from './load';
import { BASELINES, mcMethod } from './methods';

const ci = (x: Interval3, digits = 3) => `${fmt(x.value, digits)} [${fmt(x.lo, digits)}, ${fmt(x.hi, digits)}]`;

type Family = 'mc' | 'rredcot' | 'loo' | 'gradient' | 'baseline';
function familyOf(method: string): Family {
  if (method.startsWith('mc.')) return 'mc';
  if (method.startsWith('rredcot.')) return 'rredcot';
  if (method in BASELINES) return 'baseline';
  return method as Family;
}

/** The RREDCoT variant with the highest within-trace Spearman (ties: name order), or null when none was scored. */
function bestRredcot(c: CheckpointMetrics): string | null {
  const rr = Object.entries(c.methods)
    .filter(([m, x]) => m.startsWith('rredcot.') && Number.isFinite(x.withinSpearman.value))
    .sort(([a, x], [b, y]) => y.withinSpearman.value - x.withinSpearman.value || (a < b ? -1 : 1));
  return rr.length ? rr[0][0] : null;
}

function mcPoints(c: CheckpointMetrics, config: GoldConfig): McPoint[] {
  return config.mcSamples
    .filter((n) => c.methods[mcMethod(n)])
    .map((n) => ({ n, tokens: c.methods[mcMethod(n)].tokensPerTrace, quality: c.methods[mcMethod(n)].withinSpearman.value }));
}

/** Methods by within-trace Spearman, highest first (NaN last, then by name). */
function sortedMethods(c: CheckpointMetrics): [string, MethodMetrics][] {
  const key = (m: MethodMetrics) => (Number.isFinite(m.withinSpearman.value) ? m.withinSpearman.value : -Infinity);
  return Object.entries(c.methods).sort(([a, x], [b, y]) => key(y) - key(x) || (a < b ? -1 : 1));
}

function checkpointTable(c: CheckpointMetrics, config: GoldConfig): Table {
  const best = bestRredcot(c);
  const baseTokens = best ? c.methods[best].tokensPerTrace : NaN;
  const mc = mcPoints(c, config);
  return {
    columns: [
      'method',
      'within ρ vs ΔV_gold [95% CI]',
      'traces',
      'pooled ρ',
      'value ρ',
      'top-1 [95% CI]',
      'AUC',
      'tokens/trace',
      'wall ms/trace',
      `tokens / ${best ?? 'RREDCoT'}`,
      'MC at equal tokens: within ρ (n)',
    ],
    rows: sortedMethods(c).map(([name, m]) => {
      const at = mcAtCost(m.tokensPerTrace, mc);
      return [
        name,
        ci(m.withinSpearman),
        m.tracesUsed.within,
        fmt(m.pooledSpearman),
        m.valueSpearman === null ? '—' : fmt(m.valueSpearman),
        ci(m.localizationTop1, 2),
        fmt(m.localizationAuc),
        Math.round(m.tokensPerTrace),
        fmt(m.wallMsPerTrace, 0),
        m.tokensPerTrace === 0 ? '0' : fmt(m.tokensPerTrace / baseTokens, 2),
        familyOf(name) === 'mc' || m.tokensPerTrace === 0 ? '—' : `${at.quality === null ? '—' : fmt(at.quality)} (n ${at.n})`,
      ] as Cell[];
    }),
  };
}

function checkpointSection(name: string, c: CheckpointMetrics, data: GoldData, hash: string | undefined): string[] {
  const config = data.config;
  const traces = data.traces.filter((t) => t.checkpoint === name);
  const meanK = traces.reduce((n, t) => n + t.segmentLengths.length, 0) / Math.max(1, traces.length);
  const best = bestRredcot(c);
  return [
    `## ${name}`,
    '',
    `Checkpoint \`${config.checkpoints.find((p) => checkpointStem(p) === name) ?? name}\` (identity ${hash?.slice(0, 12) ?? 'unknown'}). ` +
      `${c.traces} traces (${c.correct} correct, ${c.wrong} wrong), ${c.exitPoints} exit points (mean K ${fmt(meanK, 1)}); ` +
      `${c.localizationTraces} failed traces with their first uncorrected wrong line in the thinking (chance top-1 ${fmt(c.methods[best ?? 'length']?.chanceTop1 ?? NaN)}).`,
    '',
    `Ceiling: split-half reliability of ΔV_MC at n = ${config.ceilingSamples} (two halves of ${config.ceilingSamples / 2}, within-trace Spearman, Spearman–Brown) ` +
      `${ci(c.reliabilityN20)} over ${c.ceilingTraces} traces; ceiling √rel for any method's correlation with the n = ${config.ceilingSamples} proxy ${ci(c.ceilingN20)}.`,
    '',
    toMarkdown(checkpointTable(c, config)),
  ];
}

export function renderGoldTables(store: Store, runId: string, outDir: string): string[] {
  const data = loadGold(store, runId);
  const a = analyzeGold(data);
  const c = data.config;
  const tags = store.getRun(runId).tags;
  const md = [
    markdownTitle('Gold-value credit benchmark (issue 13)'),
    `T = 1 rollouts of the first problems of ${c.split}, stratified (${c.traces.correct} correct + ${c.traces.wrong} wrong per checkpoint); ` +
      `${c.segmentation.strategy} segmentation, K ≤ ${c.segmentation.maxSegments}. V_gold(s_k) = mean ζ of n = ${c.gold.samplesPerExitPoint} continuations per exit point ` +
      `(truncated MC, M = ${c.gold.maxNewTokens}, horizon ${c.gold.horizon}, T = ${c.gold.temperature}; every continuation stored). ` +
      `MC(n), n ∈ {${c.mcSamples.join(', ')}}: independent draws with the same settings. RREDCoT: ${c.references.count} dataset reference per problem ` +
      "(with one reference `combine` does not matter); a name slot 'any' is one the variant's result does not read.",
    '',
    'within ρ: Spearman of the credits with ΔV_gold inside each trace, mean over the traces where both vary (traces), 95 % bootstrap CI over traces. ' +
      'pooled ρ: all segments at once. value ρ: v̂(s_k) vs V_gold(s_k) over all exit points (rank-based: log and prob space give the same). ' +
      "top-1: the most negative credit on the oracle's first-error segment, over the failed traces with that error in the thinking; AUC: of −credit for that segment. " +
      'tokens/trace: tokens forwarded (generated tokens are forwarded once and counted once). Baselines: `length` = +segment length in tokens, ' +
      '`position` = +segment index k (cost 0). MC at equal tokens: MC(n) interpolated in log tokens; the cost ratio is to the best RREDCoT variant.',
    '',
    ...data.checkpoints.flatMap((name) => checkpointSection(name, a.checkpoints[name], data, tags[`checkpointHash.${name}`])),
  ].join('\n');
  const files = ['table.md', 'metrics.json', 'methods.csv', 'segments.csv'].map((f) => path.join(outDir, f));
  writeText(files[0], withProvenance(md, store, [runId], 'npx nx run experiments:tables'));
  writeText(files[1], `${JSON.stringify(a, null, 2)}\n`);
  writeText(files[2], csvHeader(store, [runId]) + toCsv(methodsCsv(a)));
  writeText(files[3], csvHeader(store, [runId]) + toCsv(segmentsCsv(data)));
  return files;
}

function methodsCsv(a: GoldAnalysis): Table {
  const rows: Cell[][] = [];
  for (const [checkpoint, c] of Object.entries(a.checkpoints)) {
    for (const [method, m] of Object.entries(c.methods)) {
      rows.push([
        checkpoint,
        method,
        m.withinSpearman.value,
        m.withinSpearman.lo,
        m.withinSpearman.hi,
        m.tracesUsed.within,
        m.pooledSpearman,
        m.tracesUsed.pooledSegments,
        m.valueSpearman,
        m.tracesUsed.valuePoints,
        m.localizationTop1.value,
        m.localizationTop1.lo,
        m.localizationTop1.hi,
        m.tracesUsed.localization,
        m.localizationAuc,
        m.chanceTop1,
        m.tokensPerTrace,
        m.wallMsPerTrace,
      ]);
    }
  }
  return {
    columns: [
      'checkpoint',
      'method',
      'within_spearman',
      'within_lo',
      'within_hi',
      'within_traces',
      'pooled_spearman',
      'pooled_segments',
      'value_spearman',
      'value_points',
      'top1',
      'top1_lo',
      'top1_hi',
      'top1_traces',
      'auc',
      'chance_top1',
      'tokens_per_trace',
      'wall_ms_per_trace',
    ],
    rows,
  };
}

/** One row per exit point k = 0..K of every trace: V_gold, the oracle mark, and each method's value (v:) and credit (r:). */
function segmentsCsv(data: GoldData): Table {
  const methods = methodsOf(data.traces, data.config.mcSamples);
  const valued = methods.filter((m) => data.traces.every((t) => t.values[m]));
  const rows: Cell[][] = data.traces.flatMap((t) =>
    t.gold.map((v, k) => [
      t.checkpoint,
      t.key,
      t.reward,
      k,
      k === 0 ? null : t.segmentLengths[k - 1],
      v,
      k === 0 ? null : v - t.gold[k - 1],
      k === 0 ? null : k === t.firstError ? 1 : 0,
      ...valued.map((m) => t.values[m][k]),
      ...methods.map((m) => (k === 0 ? null : t.credits[m][k - 1])),
    ]),
  );
  return {
    columns: [
      'checkpoint',
      'trace',
      'reward',
      'k',
      'segment_tokens',
      'v_gold',
      'dv_gold',
      'first_error',
      ...valued.map((m) => `v:${m}`),
      ...methods.map((m) => `r:${m}`),
    ],
    rows,
  };
}

/** The RREDCoT variant of the committed results before this benchmark (Tab. 1 preset with the old defaults: joint exit, full suffix). */
const LITERAL_RREDCOT = 'rredcot.joint.full.both.log';

/** Point label on the frontier: MC's n, the named baselines, the best and the literal RREDCoT variant. */
function frontierLabel(method: string, best: string | null): string {
  if (method.startsWith('mc.')) return method.slice(3);
  if (method === best) return `best RREDCoT: ${method.slice('rredcot.'.length)}`;
  if (method === LITERAL_RREDCOT) return `literal: ${method.slice('rredcot.'.length)}`;
  return method.startsWith('rredcot.') ? '' : method;
}

export async function renderGoldPlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const data = loadGold(store, runId);
  const a = analyzeGold(data);
  const points = Object.entries(a.checkpoints).flatMap(([checkpoint, c]) => {
    const best = bestRredcot(c);
    return Object.entries(c.methods).map(([method, m]) => ({
      checkpoint,
      method,
      family: familyOf(method),
      label: frontierLabel(method, best),
      tokens: m.tokensPerTrace,
      rho: m.withinSpearman.value,
      lo: m.withinSpearman.lo,
      hi: m.withinSpearman.hi,
    }));
  });
  const x = { field: 'tokens', type: 'quantitative', scale: { type: 'log' }, title: 'tokens forwarded per trace (log)' };
  const y = { field: 'rho', type: 'quantitative', title: 'within-trace Spearman with ΔV_gold (mean, 95% CI)' };
  const color = {
    field: 'family',
    type: 'nominal',
    title: 'method',
    scale: { domain: ['mc', 'rredcot', 'loo', 'gradient', 'baseline'], range: ['#1f4e9c', '#2ca02c', '#d62728', '#ff7f0e', '#7f7f7f'] },
  };
  const spec = {
    title: {
      text: 'Credit quality vs cost: within-trace Spearman with gold ΔV',
      subtitle: `run ${runId}; MC(n) a line labelled by n; dashed: the zero-cost baselines; bars: 95% bootstrap CI over traces`,
    },
    data: { values: points.filter((p) => Number.isFinite(p.rho)) },
    facet: { column: { field: 'checkpoint', type: 'nominal', title: null, sort: data.checkpoints } },
    spec: {
      width: 420,
      height: 320,
      layer: [
        {
          transform: [{ filter: 'datum.tokens > 0' }],
          mark: { type: 'rule', opacity: 0.45 },
          encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color },
        },
        {
          transform: [{ filter: "datum.family === 'mc'" }],
          mark: { type: 'line', point: true },
          encoding: { x, y, color, order: { field: 'tokens', type: 'quantitative' } },
        },
        {
          transform: [{ filter: "datum.tokens > 0 && datum.family !== 'mc'" }],
          mark: { type: 'point', filled: true, size: 45 },
          encoding: { x, y, color },
        },
        {
          transform: [{ filter: "datum.tokens > 0 && datum.label !== ''" }],
          mark: { type: 'text', align: 'left', dx: 6, dy: -6, fontSize: 9 },
          encoding: { x, y, text: { field: 'label' }, color },
        },
        {
          transform: [{ filter: "datum.family === 'baseline'" }],
          mark: { type: 'rule', strokeDash: [4, 4] },
          encoding: { y, color },
        },
        {
          transform: [{ filter: "datum.family === 'baseline'" }],
          mark: { type: 'text', align: 'left', dx: 2, dy: -5, fontSize: 9 },
          encoding: { x: { value: 2 }, y, text: { field: 'label' }, color },
        },
      ],
    },
    resolve: { scale: { x: 'independent' } },
  };
  return writePlot(outDir, 'frontier', spec);
}
