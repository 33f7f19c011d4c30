import * as path from 'path';
import { fmt, toCsv, toMarkdown, type Cell, type Table } from '@rred/core';
import type { Store } from '@rred/results-store';
import { checkpointStem } from '../common/model';
import { csvHeader, markdownTitle, withProvenance } from '../common/provenance';
import { writeText } from '../report/write-text';
import {
  analyzeGold,
  methodsOf,
  SUBSETS,
  type CheckpointMetrics,
  type GoldAnalysis,
  type Interval3,
  type MethodMetrics,
  type Reliability,
} from './analysis';
import { traceExamples } from './examples';
import { loadGold, type GoldData } from './load';
import { needsOf, parseMethodName } from './names';
import type { Comparison, StressRow } from './verdict';

export { renderGoldPlots } from './plot';

const ci = (x: Interval3, digits = 3) => `${fmt(x.value, digits)} [${fmt(x.lo, digits)}, ${fmt(x.hi, digits)}]`;
const signed = (x: number, digits = 3) => (Number.isFinite(x) && x > 0 ? `+${fmt(x, digits)}` : fmt(x, digits));
const withinAll = (m: MethodMetrics) => m.subsets.all.within.all;

/** "yes +0.12 [+0.05, +0.19]": the verdict, the mean paired difference and its Holm-adjusted interval. */
function verdictCell(c: Comparison | null): string {
  if (c === null) return '—';
  return `${c.verdict} ${signed(c.diff, 2)} [${signed(c.lo, 2)}, ${signed(c.hi, 2)}]`;
}

/** Which MC the method was compared with: n at its cost, or the nearest draw outside the measured range. */
function mcAgainst(c: Comparison | null): string {
  if (c === null || c.n === null) return '—';
  if (c.range === 'below') return `MC(${c.n}), costs more`;
  if (c.range === 'above') return `MC(${c.n}), costs less`;
  return `MC(n ≈ ${fmt(c.n, 1)})`;
}

/** Methods by within ρ over all traces, highest first (NaN last, then by name). */
function byRho(names: readonly string[], rho: (m: string) => number): string[] {
  const key = (m: string) => (Number.isFinite(rho(m)) ? rho(m) : -Infinity);
  return [...names].sort((a, b) => key(b) - key(a) || (a < b ? -1 : 1));
}

/** Methods on canonical references (every reference source), the rows of the verdict and detail tables. */
const canonicalMethods = (c: CheckpointMetrics) => Object.keys(c.methods).filter((m) => parseMethodName(m).rewrite === 'canonical');

/** The leading table: rows are methods, per bed ρ [CI] and the two verdicts. */
function verdictTable(a: GoldAnalysis, beds: readonly string[]): Table {
  const names = [...new Set(beds.flatMap((b) => canonicalMethods(a.checkpoints[b])))];
  const meanRho = (m: string) => {
    const xs = beds.map((b) => a.checkpoints[b].methods[m]).filter((x) => x !== undefined);
    return xs.reduce((s, x) => s + withinAll(x).value, 0) / xs.length;
  };
  return {
    columns: [
      'method',
      'needs',
      ...beds.flatMap((b) => [`${b}: ρ [95% CI]`, `${b}: beats signed position`, `${b}: beats MC at matched tokens`]),
    ],
    rows: byRho(names, meanRho).map((m) => [
      m,
      needsOf(m),
      ...beds.flatMap((b) => {
        const x = a.checkpoints[b].methods[m];
        if (!x) return ['—', '—', '—'];
        const mc = x.vsMcAtCost;
        return [ci(withinAll(x)), verdictCell(x.vsSignedPosition), mc === null ? '—' : `${verdictCell(mc)} vs ${mcAgainst(mc)}`];
      }),
    ]),
  };
}

/** The stress arm: per rewritten variant and bed, ρ on canonical → rewritten references, the change, and the lead over signed position. */
function stressTable(a: GoldAnalysis, beds: readonly string[]): Table | null {
  const rows = new Map<string, StressRow>();
  for (const b of beds) for (const r of a.checkpoints[b].stress) rows.set(r.method, r);
  if (rows.size === 0) return null;
  const order = [...rows.values()].sort(
    (x, y) =>
      (x.canonical < y.canonical ? -1 : x.canonical > y.canonical ? 1 : 0) || (x.rewrite < y.rewrite ? -1 : x.rewrite > y.rewrite ? 1 : 0),
  );
  return {
    columns: [
      'variant (canonical references)',
      'rewrite',
      'needs',
      ...beds.flatMap((b) => [
        `${b}: ρ canonical → rewritten`,
        `${b}: change [Holm CI]`,
        `${b}: lead over signed position canonical → rewritten`,
      ]),
    ],
    rows: order.map((r) => [
      r.canonical,
      r.rewrite,
      needsOf(r.method),
      ...beds.flatMap((b) => {
        const x = a.checkpoints[b].stress.find((s) => s.method === r.method);
        if (!x) return ['—', '—', '—'];
        // a share of a lead only where there is one: the canonical variant beats signed position (Holm, verdict table)
        const canonicalBeats = a.checkpoints[b].methods[x.canonical]?.vsSignedPosition?.verdict === 'yes';
        const kept =
          !canonicalBeats || x.survives === null ? 'no lead to keep' : x.survives <= 0 ? 'lead lost' : `${fmt(100 * x.survives, 0)} % kept`;
        return [
          `${fmt(x.canonicalRho)} → ${fmt(x.rho)}`,
          `${x.change.verdict === 'undecided' ? 'undecided' : x.change.diff > 0 ? 'higher' : 'lower'} ${signed(x.change.diff, 2)} [${signed(x.change.lo, 2)}, ${signed(x.change.hi, 2)}]`,
          `${signed(x.leadCanonical, 2)} → ${signed(x.leadRewritten, 2)} (${kept})`,
        ];
      }),
    ]),
  };
}

/** A run's latest metric values (null: stored as null). */
type RunMetrics = Record<string, number | null>;

/** The run's metrics about the references (logged by the compute; absent in runs before them): what each rewrite looks like to the model. */
function atypicalityText(metrics: RunMetrics, bed: string, rewrites: readonly string[]): string | null {
  const lp = (w: string) => metrics[`${bed}.references.meanTokenLogp.${w}`] ?? undefined;
  const canonical = lp('canonical');
  if (canonical === undefined) return null;
  const parts = rewrites
    .filter((w) => lp(w) !== undefined)
    .map((w) => {
      const changed = metrics[`${bed}.references.changed.${w}`] ?? undefined;
      return `${w} ${fmt(lp(w)!)} (Δ ${signed(lp(w)! - canonical)}; ${changed === undefined ? '?' : fmt(100 * changed, 0)} % of references changed)`;
    });
  return `${bed}: mean per-token log p of the reference after the prompt: canonical ${fmt(canonical)}; ${parts.join('; ')}.`;
}

/** Own-reference coverage (logged by the compute): how often a trace's problem had no correct sibling. */
function ownText(metrics: RunMetrics, bed: string): string | null {
  const m = (k: string) => metrics[`${bed}.ownReferences.${k}`] ?? NaN;
  if (metrics[`${bed}.ownReferences.mean`] == null) return null;
  return (
    `Own references: ${fmt(m('mean'), 2)} per trace on average; ${fmt(100 * m('none'), 0)} % of the traces have none ` +
    `(correct ${fmt(100 * m('noneCorrect'), 0)} %, wrong ${fmt(100 * m('noneWrong'), 0)} %): there the \`@own\` variants give NaN credits, ` +
    'a silent trace (0 in ρ over all traces, left out where it varies), and `@both` scores the dataset reference alone.'
  );
}

const reliabilityText = (r: Reliability) => `reliability ${ci(r.reliability)}, ceiling √rel ${ci(r.ceiling)} (${r.tracesUsed} traces)`;

/** Per bed: the correlation on all, correct and wrong traces. */
function correlationTable(c: CheckpointMetrics): Table {
  const names = byRho(canonicalMethods(c), (m) => withinAll(c.methods[m]).value);
  return {
    columns: [
      'method',
      'needs',
      'within ρ, all traces [95% CI]',
      'correct',
      'wrong',
      'where it varies [95% CI] (traces)',
      'varies: correct',
      'varies: wrong',
      'silent traces (NaN)',
      'pooled ρ all / correct / wrong',
      'value ρ all / correct / wrong (traces with values)',
    ],
    rows: names.map((name) => {
      const m = c.methods[name];
      const s = m.subsets;
      const value = (x: number | null) => (x === null ? '—' : fmt(x));
      return [
        name,
        needsOf(name),
        ci(s.all.within.all),
        ci(s.correct.within.all),
        ci(s.wrong.within.all),
        `${ci(s.all.within.varies)} (${s.all.within.tracesVaries})`,
        `${fmt(s.correct.within.varies.value)} (${s.correct.within.tracesVaries})`,
        `${fmt(s.wrong.within.varies.value)} (${s.wrong.within.tracesVaries})`,
        `${s.all.within.silent} (${s.all.within.nan})`,
        SUBSETS.map((x) => fmt(s[x].pooled)).join(' / '),
        SUBSETS.map((x) => value(s[x].value)).join(' / '),
      ] as Cell[];
    }),
  };
}

/** Per bed: localization, cost and the two comparisons with their Holm details. */
function costTable(c: CheckpointMetrics): Table {
  const names = byRho(canonicalMethods(c), (m) => withinAll(c.methods[m]).value);
  // a bootstrap p of 0 means no replicate on the other side of 0: p < 1/resamples
  const pText = (x: Comparison) => (x.p === 0 ? `< ${fmt(1 / x.resamples, 5)}` : fmt(x.p, 5));
  const detail = (x: Comparison | null) => (x === null ? '—' : `${fmt(100 * x.level, 2)} %, p ${pText(x)}, Holm ${fmt(x.adjustedP, 4)}`);
  return {
    columns: [
      'method',
      'top-1 [95% CI]',
      'AUC',
      'tokens/trace',
      'wall ms/trace',
      'vs signed position: Δρ [Holm CI]',
      'its CI level, p, Holm p',
      'MC at matched tokens',
      'vs MC: Δρ [Holm CI]',
      'its CI level, p, Holm p (MC)',
    ],
    rows: names.map((name) => {
      const m = c.methods[name];
      return [
        name,
        ci(m.localizationTop1, 2),
        fmt(m.localizationAuc),
        Math.round(m.tokensPerTrace),
        fmt(m.wallMsPerTrace, 0),
        verdictCell(m.vsSignedPosition),
        detail(m.vsSignedPosition),
        mcAgainst(m.vsMcAtCost),
        verdictCell(m.vsMcAtCost),
        detail(m.vsMcAtCost),
      ] as Cell[];
    }),
  };
}

function checkpointSection(name: string, c: CheckpointMetrics, data: GoldData, hash: string | undefined, metrics: RunMetrics): string[] {
  const config = data.config;
  const traces = data.traces.filter((t) => t.checkpoint === name);
  const meanK = traces.reduce((n, t) => n + t.segmentLengths.length, 0) / Math.max(1, traces.length);
  const chance = Object.values(c.methods)[0]?.chanceTop1 ?? NaN;
  const half = Math.floor(config.gold.samplesPerExitPoint / 2);
  return [
    `## ${name}`,
    '',
    `Checkpoint \`${config.checkpoints.find((p) => checkpointStem(p) === name) ?? name}\` (identity ${hash?.slice(0, 12) ?? 'unknown'}). ` +
      `${c.traces} traces (${c.correct} correct, ${c.wrong} wrong), ${c.exitPoints} exit points (mean K ${fmt(meanK, 1)}); ` +
      `${c.undefinedTraces} traces where ΔV_gold does not vary or K < 3 (every method scores 0 there); ` +
      `${c.localizationTraces} failed traces with their first uncorrected wrong line in the thinking (chance top-1 ${fmt(chance)}).`,
    '',
    `The gold's own split-half reliability (two halves of ${half} of the ${config.gold.samplesPerExitPoint} samples per exit point, within-trace Spearman of ΔV over the halves, ` +
      `Spearman–Brown to n = ${config.gold.samplesPerExitPoint}) and the ceiling √rel it sets on any method's within-trace correlation with ΔV_gold: ` +
      `all traces ${reliabilityText(c.gold.all)}; correct ${reliabilityText(c.gold.correct)}; wrong ${reliabilityText(c.gold.wrong)}.`,
    '',
    ...(ownText(metrics, name) ? [ownText(metrics, name)!, ''] : []),
    `For comparison, the MC(${config.ceilingSamples}) proxy's reliability (halves of ${config.ceilingSamples / 2}): ${reliabilityText(c.proxy)}; ` +
      `its √rel bounds a correlation with that n = ${config.ceilingSamples} proxy, not with the gold.`,
    '',
    `### ${name}: correlation with ΔV_gold on all, correct and wrong traces`,
    '',
    toMarkdown(correlationTable(c)),
    '',
    `### ${name}: localization, cost and the paired comparisons`,
    '',
    toMarkdown(costTable(c)),
    '',
  ];
}

export function renderGoldTables(store: Store, runId: string, outDir: string): string[] {
  const data = loadGold(store, runId);
  const a = analyzeGold(data);
  const c = data.config;
  const { tags, metrics: runMetrics } = store.getRun(runId);
  const alpha = 1 - c.analysis.level;
  const stress = stressTable(a, data.checkpoints);
  const md = [
    markdownTitle('Gold-value credit benchmark'),
    `T = 1 rollouts of the first problems of ${c.split}, stratified (${c.traces.correct} correct + ${c.traces.wrong} wrong per checkpoint); ` +
      `${c.segmentation.strategy} segmentation, K ≤ ${c.segmentation.maxSegments}. V_gold(s_k) = mean ζ of n = ${c.gold.samplesPerExitPoint} continuations per exit point ` +
      `(truncated MC, M = ${c.gold.maxNewTokens}, horizon ${c.gold.horizon}, T = ${c.gold.temperature}; every continuation stored). ` +
      `MC(n), n ∈ {${c.mcSamples.join(', ')}}: independent draws with the same settings. RREDCoT: ${c.references.count} dataset reference per problem ` +
      "unless the name says `@own` (the model's own correct samples of the problem) or `@both`; `~<rewrite>` is the stress arm (the dataset reference rewritten); " +
      "a name slot 'any' is one the variant's result does not read. needs = `task alignment`: the variant reads the task's alignment of trace lines to reference lines " +
      '(valueSuffix `remaining`), which a free-text chain of thought does not have: an oracle bound, not a method.',
    '',
    '## Verdicts',
    '',
    `ρ: Spearman of the method's credits with ΔV_gold inside each trace, averaged over ALL traces of the bed: a trace where the credit says nothing ` +
      '(constant, or NaN: e.g. `@own` with no correct sibling) scores 0, as does a trace where ΔV_gold does not vary or K < 3; ' +
      `${fmt(100 * c.analysis.level, 0)} % bootstrap CI over traces (${c.analysis.bootstrapResamples} resamples). ` +
      'Signed position = (2ζ − 1)·k, free. Beats signed position / beats MC at matched tokens: the mean per-trace difference of ρ (method − other) ' +
      "with a paired bootstrap interval over traces, Holm-corrected over the bed's methods (one family per comparison, the methods on canonical references): " +
      `the method with the i-th smallest bootstrap p of m gets its interval at level 1 − ${fmt(alpha, 2)}/(m − i + 1); ` +
      'yes: the adjusted interval is above 0; worse: below 0; undecided: it straddles 0, or a step with a smaller p was undecided (Holm stops there). ' +
      "MC at matched tokens: per trace, MC(n)'s ρ interpolated in log tokens between the two draws whose tokens/trace bracket the method's; " +
      "below MC(1)'s cost the comparison is with MC(1), which costs more. " +
      `A family of m comparisons is bootstrapped with max(${c.analysis.bootstrapResamples}, ⌈20·m/α⌉) resamples, so Holm's first step (the α/(2m) tail) ` +
      'rests on at least 10 replicates; a p below 1/resamples reads 0.',
    '',
    toMarkdown(verdictTable(a, data.checkpoints)),
    '',
    ...(stress
      ? [
          '## Stress arm: the same variants on rewritten references',
          '',
          "Each variant on a rewritten dataset reference against the same variant on the canonical one (paired over traces, Holm over the bed's stress rows: " +
            "higher / lower when the adjusted interval excludes 0). Lead: mean per-trace ρ minus signed position's; kept = rewritten lead / canonical lead (lost: the rewritten variant no longer leads), " +
            'given only where the canonical variant beats signed position (verdict table).',
          '',
          toMarkdown(stress),
          '',
          ...data.checkpoints.flatMap((b) => {
            const t = atypicalityText(runMetrics, b, c.stressArm);
            return t ? [`How atypical each rewrite is to the model, ${t}`, ''] : [];
          }),
        ]
      : []),
    ...data.checkpoints.flatMap((name) => checkpointSection(name, a.checkpoints[name], data, tags[`checkpointHash.${name}`], runMetrics)),
  ].join('\n');
  const files = ['table.md', 'metrics.json', 'methods.csv', 'segments.csv', 'traces.md'].map((f) => path.join(outDir, f));
  writeText(files[0], withProvenance(md, store, [runId], 'npx nx run experiments:tables'));
  writeText(files[1], `${JSON.stringify(a, null, 2)}\n`);
  writeText(files[2], csvHeader(store, [runId]) + toCsv(methodsCsv(a)));
  writeText(files[3], csvHeader(store, [runId]) + toCsv(segmentsCsv(data)));
  writeText(
    files[4],
    withProvenance(
      `${markdownTitle('Gold benchmark: traces beside their reference')}\n${traceExamples(data, a)}`,
      store,
      [runId],
      'npx nx run experiments:tables',
    ),
  );
  return files;
}

const comparisonCells = (x: Comparison | null): Cell[] =>
  x === null ? [null, null, null, null, null, null, null] : [x.verdict, x.diff, x.lo, x.hi, x.level, x.p, x.adjustedP];

/** One methods.csv row: the method's name parts, its metrics per subset of traces, localization, cost and the two comparisons. */
function methodRow(checkpoint: string, method: string, m: GoldAnalysis['checkpoints'][string]['methods'][string]): Cell[] {
  const parsed = parseMethodName(method);
  const comparison = comparisonCells;
  return [
    checkpoint,
    method,
    parsed.refs,
    parsed.rewrite,
    m.oracle ? 1 : 0,
    ...SUBSETS.flatMap((s): Cell[] => {
      const x = m.subsets[s];
      return [
        x.traces,
        x.within.all.value,
        x.within.all.lo,
        x.within.all.hi,
        x.within.varies.value,
        x.within.varies.lo,
        x.within.varies.hi,
        x.within.tracesVaries,
        x.within.silent,
        x.within.nan,
        x.pooled,
        x.value,
      ];
    }),
    m.localizationTop1.value,
    m.localizationTop1.lo,
    m.localizationTop1.hi,
    m.localizationTraces,
    m.localizationAuc,
    m.chanceTop1,
    m.tokensPerTrace,
    m.wallMsPerTrace,
    ...comparison(m.vsSignedPosition),
    m.vsMcAtCost?.n ?? null,
    m.vsMcAtCost?.range ?? null,
    ...comparison(m.vsMcAtCost),
  ];
}

const comparisonColumns = (p: string) => ['verdict', 'diff', 'lo', 'hi', 'level', 'p', 'holm_p'].map((c) => `${p}_${c}`);

/** methods.csv's columns, in methodRow's order. */
const METHOD_COLUMNS: string[] = [
  'checkpoint',
  'method',
  'refs',
  'rewrite',
  'oracle',
  ...SUBSETS.flatMap((s) =>
    [
      'traces',
      'within_all',
      'within_all_lo',
      'within_all_hi',
      'within_varies',
      'within_varies_lo',
      'within_varies_hi',
      'varies_traces',
      'silent',
      'nan',
      'pooled',
      'value',
    ].map((c) => `${s}_${c}`),
  ),
  'top1',
  'top1_lo',
  'top1_hi',
  'top1_traces',
  'auc',
  'chance_top1',
  'tokens_per_trace',
  'wall_ms_per_trace',
  ...comparisonColumns('vs_signed_position'),
  'mc_n_at_cost',
  'mc_range',
  ...comparisonColumns('vs_mc_at_cost'),
];

function methodsCsv(a: GoldAnalysis): Table {
  const rows: Cell[][] = [];
  for (const [checkpoint, c] of Object.entries(a.checkpoints)) {
    for (const [method, m] of Object.entries(c.methods)) rows.push(methodRow(checkpoint, method, m));
  }
  return { columns: METHOD_COLUMNS, rows };
}

/** One row per exit point k = 0..K of every trace: V_gold, its two halves, the oracle mark, and each method's value (v:) and credit (r:). */
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
      t.goldHalves[0][k],
      t.goldHalves[1][k],
      k === 0 ? null : k === t.firstError ? 1 : 0,
      ...valued.map((m) => t.values[m][k]),
      ...methods.map((m) => (k === 0 ? null : (t.credits[m]?.[k - 1] ?? null))),
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
      'v_gold_half1',
      'v_gold_half2',
      'first_error',
      ...valued.map((m) => `v:${m}`),
      ...methods.map((m) => `r:${m}`),
    ],
    rows,
  };
}
