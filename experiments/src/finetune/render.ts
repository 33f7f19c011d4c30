/** results/finetune/: table.md, eval.csv, curves.csv and the learning-curve plots, from the store alone. */
import { termsLabel } from '@rred/estimators';
import * as path from 'path';
import { fmt, mean, type MeanCi, type Table, toCsv, toMarkdown } from '@rred/core';
import type { Store } from '@rred/results-store';
import { csvHeader, markdownTitle, withProvenance } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { CREDIT_METHODS, type CreditMethod, type Method } from './config';
import { loadFinetuneRun, type Diagnostics, type FinetuneRunData } from './load';
import { compareAll, summarize, type FinetuneSummary } from './summary';
import type { Comparison } from './comparisons';
import { summaryJson } from './summary-json';
import { curveSpec } from './curve-spec';

const COMMAND = 'npx nx run experiments:tables';

function ci(c: MeanCi | undefined): string {
  if (!c) return '—';
  return Number.isNaN(c.lo) ? fmt(c.mean) : `${fmt(c.mean)} ± ${fmt(c.hi - c.mean)}`;
}

const nullable = (v: number | null, digits = 3) => (v === null ? '—' : fmt(v, digits));

/** A method's name in tables, CSVs and plots: bare on the primary test bed, `<bed>:<method>` on the others. */
const label = (s: FinetuneSummary, method: string) => (s.primary ? method : `${s.testBed}:${method}`);

function runIds(data: FinetuneRunData): string[] {
  return [data.parent.id, ...data.children.map((c) => c.runId)];
}

function evalTable(s: FinetuneSummary, k: number): Table {
  return {
    columns: ['method', 'lr', 'checkpoint', ...s.splits.map((x) => `${x} avg@${k}`), 'mean over splits'],
    rows: s.evalRows.map((r) => [
      label(s, r.method),
      r.lr === null ? '—' : r.lr.toExponential(0),
      r.checkpoint === 'best' ? `best (mean step ${fmt(r.meanBestStep, 1)})` : r.checkpoint,
      ...s.splits.map((x) => ci(r.cells[x])),
      ci(r.cells.mean),
    ]),
  };
}

function evalCsv(summaries: readonly FinetuneSummary[]): Table {
  const cols = [...summaries[0].splits, 'mean'];
  return {
    columns: ['method', 'lr', 'checkpoint', 'mean_best_step', ...cols.flatMap((c) => [`${c}_mean`, `${c}_lo`, `${c}_hi`, `${c}_seeds`])],
    rows: summaries.flatMap((s) =>
      s.evalRows.map((r) => [
        label(s, r.method),
        r.lr,
        r.checkpoint,
        r.meanBestStep,
        ...cols.flatMap((c) => [r.cells[c].mean, r.cells[c].lo, r.cells[c].hi, r.cells[c].n]),
      ]),
    ),
  };
}

/** Every comparison of the table with its Holm-corrected interval (comparisons.ts). */
function comparisonsTable(comparisons: readonly Comparison[]): Table {
  return {
    columns: [
      'test bed',
      'a − b',
      'seeds',
      'Δ final avg (mean over splits)',
      'p (paired t)',
      'Holm level',
      'Holm-corrected CI',
      'Holm p',
      'verdict',
    ],
    rows: comparisons.map((c) => [
      c.testBed,
      `${c.a} − ${c.b}`,
      c.seeds.join(', '),
      fmt(c.diff),
      fmt(c.p, 4),
      fmt(c.level, 4),
      Number.isNaN(c.lo) ? '—' : `[${fmt(c.lo)}, ${fmt(c.hi)}]`,
      fmt(c.adjustedP, 4),
      Number.isNaN(c.lo)
        ? 'undecided (< 2 seeds)'
        : c.supported
          ? c.diff > 0
            ? 'a better (supported)'
            : 'b better (supported)'
          : 'not decided',
    ]),
  };
}

/** The search: every candidate, its per-seed validation scores, their mean, and the choice. */
function searchTable(data: FinetuneRunData): Table {
  const k = data.config.validation.samplesPerProblem;
  return {
    columns: [
      'test bed',
      'method',
      'varies',
      'value',
      `score per seed (val. avg@${k}, last ${data.config.search.lastPoints} points)`,
      'mean',
      'chosen',
    ],
    rows: data.search.map((s) => [
      s.candidate.testBed,
      s.candidate.method,
      s.candidate.varies === 'lr' ? 'lr' : 'λ (reference SFT)',
      s.candidate.varies === 'lr' ? s.candidate.setting.lr.toExponential(0) : String(s.candidate.setting.referenceSft),
      s.perSeed.map((x) => fmt(x)).join(', '),
      fmt(s.score),
      s.chosen ? '✓' : '',
    ]),
  };
}

/** Final and best-validation avg@k per arm and seed (mean over the eval splits). */
function perSeedTable(summaries: readonly FinetuneSummary[]): Table {
  return {
    columns: [
      'test bed',
      'method',
      'seed',
      'lr',
      'λ',
      'final avg (mean over splits)',
      'best-val. avg',
      'best step',
      'val. final',
      'val. best',
    ],
    rows: summaries.flatMap((s) =>
      s.perSeed.map((r) => [
        s.testBed,
        r.method,
        String(r.seed),
        r.lr.toExponential(0),
        r.referenceSft ? String(r.referenceSft) : '—',
        fmt(r.final),
        fmt(r.best),
        String(r.bestStep),
        fmt(r.validationFinal),
        fmt(r.validationBest),
      ]),
    ),
  };
}

function efficiencyTable(s: FinetuneSummary, rows: FinetuneSummary['efficiency'], target: string, level: number, withCi: boolean): Table {
  const interval = ([lo, hi]: [number, number], digits: number) =>
    Number.isNaN(lo)
      ? '—'
      : !Number.isFinite(lo)
        ? 'not reached'
        : `[${fmt(lo, digits)}, ${Number.isFinite(hi) ? fmt(hi, digits) : 'not reached'}]`;
  return {
    columns: [
      'method',
      'val. start',
      'val. final',
      'val. max',
      `target (GRPO ${target})`,
      'steps to reach',
      `[${Math.round(level * 100)} % CI over seeds]`,
      'GRPO steps / steps',
      'train s to reach',
      `[${Math.round(level * 100)} % CI]`,
      'GRPO s / s',
      's per step',
      'train s total',
      'σ fallback share',
    ],
    rows: rows.map((e) => {
      const c = s.cost.find((x) => x.method === e.method)!;
      const curve = s.curves.find((x) => x.method === e.method)!.mean;
      return [
        label(s, e.method),
        fmt(curve[0]?.avg),
        fmt(curve[curve.length - 1]?.avg),
        fmt(Math.max(...curve.map((p) => p.avg))),
        fmt(e.target),
        e.steps === null ? 'not reached' : String(e.steps),
        withCi && s.efficiencyCi[e.method] ? interval(s.efficiencyCi[e.method].steps, 0) : '—',
        nullable(e.stepRatio, 2),
        nullable(e.seconds, 1),
        withCi && s.efficiencyCi[e.method] ? interval(s.efficiencyCi[e.method].seconds, 1) : '—',
        nullable(e.timeRatio, 2),
        fmt(c.stepSeconds, 2),
        fmt(c.trainSeconds, 1),
        e.method === 'grpo' ? '—' : fmt(c.fallbackFraction),
      ];
    }),
  };
}

/** Seed means of the trainer's per-step diagnostics, method by method on every test bed (Σσ, σ entropy, grad norm, clipping). */
function diagnosticsTable(data: FinetuneRunData, summaries: readonly FinetuneSummary[]): Table {
  // one diagnostic over the seeds of a method, reduced by `over` (mean, or min/max for Σσ_t's extremes)
  const acrossSeeds = (over: (xs: number[]) => number) => (children: FinetuneRunData['children'], pick: (d: Diagnostics) => number) =>
    fmt(over(children.map((c) => pick(c.diagnostics))));
  const seedMean = acrossSeeds(mean);
  const seedMin = acrossSeeds((xs) => Math.min(...xs));
  const seedMax = acrossSeeds((xs) => Math.max(...xs));
  return {
    columns: [
      'method',
      'seeds',
      'train reward',
      'Σσ_t mean',
      'Σσ_t min',
      'Σσ_t max',
      'σ entropy (nats)',
      'grad norm (before clipping)',
      'clipped fraction',
    ],
    rows: summaries.flatMap((s) =>
      data.beds
        .find((b) => b.name === s.testBed)!
        .methods.map((m) => {
          const cs = data.children.filter((c) => c.testBed === s.testBed && c.method === m);
          return [
            label(s, m),
            String(cs.length),
            seedMean(cs, (d) => d.rewardMean),
            seedMean(cs, (d) => d.sigmaSumMean),
            seedMin(cs, (d) => d.sigmaSumMin),
            seedMax(cs, (d) => d.sigmaSumMax),
            seedMean(cs, (d) => d.sigmaEntropy),
            seedMean(cs, (d) => d.gradNorm),
            seedMean(cs, (d) => d.clippedFraction),
          ];
        }),
    ),
  };
}

function curvesCsv(summaries: readonly FinetuneSummary[]): Table {
  const rows: Table['rows'] = [];
  for (const s of summaries)
    for (const m of s.curves) {
      for (const sd of m.seeds) for (const p of sd.curve) rows.push([label(s, m.method), sd.seed, sd.runId, p.step, p.trainSeconds, p.avg]);
      for (const p of m.mean) rows.push([label(s, m.method), 'mean', '', p.step, p.trainSeconds, p.avg]);
    }
  return { columns: ['method', 'seed', 'run', 'step', 'train_seconds', 'validation_avg_at_k'], rows };
}

function runsTable(data: FinetuneRunData): Table {
  return {
    columns: ['run', 'method', 'seed', 'steps', 'best step', 'val. start', 'val. final', 'val. best', 'train s', 's per step'],
    rows: data.children.map((c) => {
      const last = c.curve[c.curve.length - 1];
      const primary = data.beds.find((b) => b.name === c.testBed)?.primary ?? true;
      return [
        c.runId,
        primary ? c.method : `${c.testBed}:${c.method}`,
        String(c.seed),
        String(c.config.steps),
        String(c.bestStep),
        fmt(c.curve[0]?.avg),
        fmt(last?.avg),
        fmt(Math.max(...c.curve.map((p) => p.avg))),
        fmt(c.trainSeconds, 1),
        fmt(c.stepMs / 1000, 2),
      ];
    }),
  };
}

function setting(data: FinetuneRunData): string {
  const c = data.config;
  const child = data.children[0]?.config;
  const g = c.grpo;
  return (
    `Setting: ${c.methods.length} methods × ${c.seeds.length} seeds (${c.seeds.join(', ')}), each run from the same starting checkpoint; ` +
    `${child?.steps ?? c.steps} GRPO steps of ${g.promptsPerStep} prompts × G = ${g.groupSize} (≤ ${g.maxNewTokens} new tokens, T = ${g.temperature}, ` +
    `${RATIO_TEXT[g.importanceSampling]}, loss ${g.lossType}, ε = ${g.epsilon}, β = ${g.beta}), AdamW with ${c.optimizer.warmupSteps} warmup steps and cosine decay to ` +
    `${c.optimizer.minLrRatio} × lr; ${lrText(c)}. rredcot: ${c.rredcot.referenceSource} references (≤ ${c.rredcot.maxReferences}), ` +
    `v̂ = ${termsLabel[c.rredcot.terms]}, ${c.rredcot.space} space, ${c.rredcot.normalization}; rredcot-own: ${c.rredcotOwn.referenceSource} references, ` +
    `v̂ = ${termsLabel[c.rredcotOwn.terms]}, ${c.rredcotOwn.space} space, ${c.rredcotOwn.normalization} (τ = ${c.rredcotOwn.tau}); ${c.segmentation.strategy} segmentation, ` +
    `K ≤ ${c.segmentation.maxSegments}. Validation: avg@${c.validation.samplesPerProblem} on the first ${child?.validation.problems ?? c.validation.problems} ` +
    `validation problems every ${child?.validation.every ?? c.validation.every} steps; evaluation: avg@${c.evaluation.samplesPerProblem} (T = 1) on the first ` +
    `${child?.evaluation.problems ?? c.evaluation.problems} problems of each split. Intervals: ${Math.round(c.confidence * 100)} % Student-t over seeds. ` +
    `Evaluation draws depend on the seed only, so methods are compared on paired samples.`
  );
}

/**
 * What the first sentence leaves out: μ and what it makes of the ratio, the test beds and
 * seeds per method, and for each credit method its estimator variant and σ.
 */
function settingDetails(data: FinetuneRunData): string {
  const c = data.config;
  const mu = c.grpo.numIterations;
  const ratio =
    mu === 1
      ? 'μ = 1 optimization pass per batch: the importance ratio is exactly 1 and clipping never acts, so this is token-level REINFORCE with a group baseline (the ratio setting only shapes the gradient)'
      : `μ = ${mu} optimization passes per batch: the ratio departs from 1 after the first pass and clipping acts`;
  const beds = data.beds.map((b) => `${b.name} (${b.checkpoint}: ${b.methods.join(', ')})`).join('; ');
  const seeds = Object.entries(c.seedsPerMethod)
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  const present = new Set(data.beds.flatMap((b) => b.methods));
  const credit = CREDIT_METHODS.filter((m) => present.has(m));
  const variant = (e: typeof c.rredcot) =>
    `v̂ = ${termsLabel[e.terms]}, exit ${e.exit}, value suffix ${e.valueSuffix}, combine ${e.referencePooling}, ${e.space} space`;
  const sigma = (m: CreditMethod) => {
    const x = c.sigma[m];
    const how =
      x.normalization === 'softmax'
        ? `softmax over ${x.credits} credits (τ = ${x.tau}${x.lengthPrior ? ', length prior' : ''})`
        : x.normalization;
    return `${m}: σ ${x.signHandling}, ${how}`;
  };
  const parts = [
    `${ratio}.`,
    data.beds.length > 1 ? `Test beds: ${beds}.` : '',
    seeds ? `Fewer seeds (the first n): ${seeds}.` : '',
    credit.length ? `σ per method: ${credit.map(sigma).join('; ')}.` : '',
    ['rredcot', 'rredcot-literal', 'rredcot-l1', 'verigate'].some((m) => present.has(m as Method))
      ? `rredcot estimator: ${variant(c.rredcot)}.`
      : '',
    present.has('rredcot-both') || present.has('rredcot-both-l1') ? `rredcotBoth estimator: ${variant(c.rredcotBoth)}.` : '',
    present.has('verigate') ? 'verigate: step scores = the rredcot segment credits (the answer step scores 0).' : '',
    present.has('verigate-oracle')
      ? 'verigate-oracle: step scores = the step oracle (1 before the first uncorrected wrong line, else 0).'
      : '',
    present.has('mc')
      ? `mc: n = ${c.mc.samplesPerExitPoint} continuations per exit point, M = ${c.mc.maxNewTokens} (${c.mc.horizon === 'completion' ? 'whole completion' : 'per continuation'}).`
      : '',
  ];
  return parts.filter(Boolean).join(' ');
}

/** "same lr for every method" or "only the lr differs between methods" (the paper's setting). */
function lrText(c: FinetuneRunData['config']): string {
  if (c.search.methods.length > 0)
    return `learning rates chosen per test bed by validation among ${c.search.learningRates.map((x) => x.toExponential(0)).join(', ')} for ${c.search.methods.join(', ')} (the others follow: ${Object.entries(
      c.search.follow,
    )
      .map(([m, f]) => `${m} → ${f}`)
      .join(', ')}; search table below)`;
  const lrs = c.methods.map((m) => c.learningRates[m]);
  return lrs.every((x) => x === lrs[0])
    ? `every method uses the same lr (${lrs[0].toExponential(0)})`
    : 'only the lr differs between methods';
}

/** How the table names the GRPO ratio setting. */
const RATIO_TEXT: Record<string, string> = {
  token: 'token-level ratios',
  sequence: 'sequence-level (GSPO) ratios',
  sequenceToken: 'GSPO-token ratios (sequence-level value, per-token gradient)',
};

/** The eval and sample-efficiency sections of one test bed. */
function bedSections(s: FinetuneSummary, k: number, kv: number, heading: string, level: number): string[] {
  return [
    `## avg@${k} on held-out splits (mean ± half-width over seeds)${heading}`,
    '',
    `"start" is the untrained checkpoint (same draws per seed); "best" is the checkpoint with the highest validation avg@${kv} (step 0 included).`,
    '',
    toMarkdown(evalTable(s, k)),
    `## Sample efficiency against GRPO (validation avg@${kv}, seed-mean curves)${heading}`,
    '',
    `Target: the midpoint between GRPO's start and its best seed-mean validation avg@${kv} (defined whenever GRPO improves at all). Intervals: ` +
      `seeds resampled with replacement (2,000 resamples), the resample's mean curve's first point at the target; "not reached" when over ` +
      `${fmt(((1 - level) / 2) * 100, 1)} % of resamples never get there. "GRPO steps / steps" > 1 means the method reached it in fewer steps; ` +
      '"train s" counts sampling, redistribution and updates (validation excluded). σ fallback share: traces with A ≠ 0 that ' +
      'RREDCoT could not score (a reference suffix did not fit the context after their thinking, or no reference) and so kept uniform σ (Eq. 12).',
    '',
    s.efficiency.length
      ? toMarkdown(efficiencyTable(s, s.efficiency, 'midpoint of start and best', level, true))
      : 'GRPO is not among the methods: no sample-efficiency ratio.\n',
    ...(s.efficiencyAtMax.length
      ? [
          `Supplementary, target = the best point of GRPO's seed-mean curve (defined even when GRPO ends below its start):`,
          '',
          toMarkdown(efficiencyTable(s, s.efficiencyAtMax, 'max', level, false)),
        ]
      : []),
  ];
}

export function renderFinetuneTables(store: Store, runId: string, outDir: string): string[] {
  const data = loadFinetuneRun(store, runId);
  const summaries = summarize(data);
  const k = data.config.evaluation.samplesPerProblem;
  const kv = data.config.validation.samplesPerProblem;
  const ids = runIds(data);
  const multi = summaries.length > 1;
  const comparisons = compareAll(data);
  const md = [
    markdownTitle('GRPO vs RREDCoT-GRPO fine-tuning (paper Sec. 4, Tab. 1, Tab. 2, App. 10.3)'),
    setting(data),
    '',
    settingDetails(data),
    '',
    ...(data.search.length
      ? [
          '## Search (learning rate per arm, λ of grpo-ref-sft), chosen on validation',
          '',
          `Each candidate ran the first ${data.config.search.seeds} seeds; its score is the validation avg@${kv} averaged over the last ` +
            `${data.config.search.lastPoints} validation points of each run, then over seeds; the best wins (ties: the first listed). The comparison's ` +
            'children at the chosen value are these same runs (reused by config hash).',
          '',
          toMarkdown(searchTable(data)),
        ]
      : []),
    ...summaries.flatMap((s) => bedSections(s, k, kv, multi ? ` — test bed ${s.testBed}` : '', data.config.confidence)),
    `## Comparisons (final checkpoint, mean over splits), Holm over the whole table`,
    '',
    'Per seed, a − b with the same seed (same evaluation draws), over the seeds both ran; paired Student-t p; Holm step-down over every ' +
      `comparison below (m = ${comparisons.length}, α = ${fmt(1 - data.config.confidence, 2)}): the comparison at Holm rank i gets the t interval at ` +
      'level 1 − α/(m − i + 1). "supported" only where Holm rejects (that interval excludes 0 and every smaller p was rejected). Also in summary.json.',
    '',
    comparisons.length ? toMarkdown(comparisonsTable(comparisons)) : 'No pair of compared arms ran.\n',
    '## Per seed (final and best-validation avg@k, mean over splits)',
    '',
    toMarkdown(perSeedTable(summaries)),
    '## Training diagnostics (per-step trainer metrics, mean over steps, then over seeds)',
    '',
    "Σσ_t: the sum of a completion's token weights over the completions with A ≠ 0 (1 under return equivalence, Sec. 3.3; steps where " +
      'every A = 0 are left out), its min and max over every step and seed. σ entropy: of |σ|/Σ|σ| (log |o| for uniform σ). ' +
      'grad norm: the gradient norm before clipping at `optimizer.gradClip`. Clipped fraction: tokens whose clipped PPO term was selected (0 when μ = 1).',
    '',
    toMarkdown(diagnosticsTable(data, summaries)),
    '## Runs',
    '',
    toMarkdown(runsTable(data)),
  ].join('\n');
  const files = ['table.md', 'eval.csv', 'curves.csv', 'summary.json'].map((f) => path.join(outDir, f));
  writeText(files[0], withProvenance(md, store, ids, COMMAND));
  writeText(files[1], csvHeader(store, ids) + toCsv(evalCsv(summaries)));
  writeText(files[2], csvHeader(store, ids) + toCsv(curvesCsv(summaries)));
  writeText(files[3], `${JSON.stringify(summaryJson(data, summaries, comparisons), null, 2)}\n`);
  return files;
}

/** Every comparison with its Holm-corrected interval, one row per pair, one colour per test bed. */
function pairedSpec(comparisons: readonly Comparison[], subtitle: string) {
  const values = comparisons.map((c) => ({
    bed: c.testBed,
    pair: `${c.a} − ${c.b}`,
    diff: c.diff,
    lo: c.lo,
    hi: c.hi,
    seeds: c.seeds.length,
  }));
  const y = { field: 'pair', type: 'nominal', title: null, sort: [...new Set(values.map((v) => v.pair))] };
  const color = { field: 'bed', type: 'nominal', title: 'test bed' };
  const yOffset = { field: 'bed', type: 'nominal' };
  return {
    title: { text: 'Final avg@k, a − b paired by seed (mean over splits)', subtitle },
    width: 420,
    height: { step: 14 },
    data: { values },
    layer: [
      { mark: { type: 'rule', strokeDash: [4, 3], color: 'gray' }, encoding: { x: { datum: 0 } } },
      {
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: {
          y,
          yOffset,
          color,
          x: { field: 'lo', type: 'quantitative', title: 'a − b, Holm-corrected t interval over seeds (whole table)' },
          x2: { field: 'hi' },
        },
      },
      { mark: { type: 'point', filled: true, size: 45 }, encoding: { y, yOffset, color, x: { field: 'diff', type: 'quantitative' } } },
    ],
  };
}

export async function renderFinetunePlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const data = loadFinetuneRun(store, runId);
  const s = summarize(data);
  const comparisons = compareAll(data);
  const kv = data.config.validation.samplesPerProblem;
  const subtitle = `run ${runId}: ${data.config.methods.length} methods × ${data.config.seeds.length} seeds`;
  return [
    ...(await writePlot(
      outDir,
      'curves_by_step',
      curveSpec(s, 'step', 'Validation accuracy vs GRPO step', 'optimizer step', kv, subtitle),
    )),
    ...(comparisons.length ? await writePlot(outDir, 'paired_vs_grpo', pairedSpec(comparisons, subtitle)) : []),
    ...(await writePlot(
      outDir,
      'curves_by_time',
      curveSpec(s, 'trainSeconds', 'Validation accuracy vs training wall time', 'training seconds (validation excluded)', kv, subtitle),
    )),
  ];
}
