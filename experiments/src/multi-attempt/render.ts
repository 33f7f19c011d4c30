/**
 * results/multi-attempt/ from the store alone: per arm the held-out Verification@K, pass@1 (first attempt),
 * attempts used and fix rate over seeds (mean and 95 % t interval), and the paired comparisons by seed
 * (cal vs naive-attempt, cal vs grpo, cal-rredcot vs cal) on Verification@K: paired bootstrap over seeds, Holm over
 * the family, each interval at its Holm step's level.
 */
import * as path from 'path';
import { holm, mean, meanCi, pairedBootstrapDifference, percentileInterval, Rng, toCsv, toMarkdown, type Table } from '@rred/core';
import type { Store } from '@rred/results-store';
import { markdownTitle, withProvenance, csvHeader } from '../common/provenance';
import { writeText } from '../report/write-text';
import { COMPARISONS, multiAttemptExperimentSchema } from './config';
import { CHILD_TAG_PREFIX } from './compute';

const METRICS = ['verificationAtK', 'passAt1', 'attemptsUsed', 'fixRate'] as const;

interface ArmRow {
  arm: string;
  seeds: number;
  metrics: Record<string, { mean: number; lo: number; hi: number }>;
}

interface ComparisonRow {
  arm: string;
  against: string;
  seeds: number;
  difference: number;
  lo: number;
  hi: number;
  /** The interval's level: 1 − the Holm step's alpha. */
  level: number;
  p: number;
  adjustedP: number;
  rejected: boolean;
  passAt1Difference: number;
}

interface MultiAttemptSummary {
  runId: string;
  childRuns: string[];
  start: Record<string, number>;
  arms: ArmRow[];
  comparisons: ComparisonRow[];
}

export function summarize(store: Store, runId: string): MultiAttemptSummary {
  const parent = store.getRun(runId);
  const config = multiAttemptExperimentSchema.parse(parent.config);
  const child = (key: string) => {
    const id = parent.tags[`${CHILD_TAG_PREFIX}${key}`];
    if (!id) throw new Error(`multi-attempt run ${runId} has no child ${key}`);
    return store.getRun(id);
  };
  const value = (key: string, metric: string) => child(key).metrics[`heldOut.${metric}`] ?? NaN;
  const perSeed = (arm: string, metric: string) => config.seeds.map((s) => value(`${arm}.seed${s}`, metric));
  const arms: ArmRow[] = config.arms.map((arm) => ({
    arm,
    seeds: config.seeds.length,
    metrics: Object.fromEntries(METRICS.map((m) => [m, meanCi(perSeed(arm, m), 0.95)])),
  }));
  const family = COMPARISONS.filter(([a, b]) => config.arms.includes(a as never) && config.arms.includes(b as never));
  const rng = new Rng(config.analysis.seed);
  const diffs = family.map(([a, b]) =>
    pairedBootstrapDifference(perSeed(a, 'verificationAtK'), perSeed(b, 'verificationAtK'), rng.fork(`${a}-${b}`), {
      resamples: config.analysis.resamples,
      level: config.analysis.level,
    }),
  );
  const steps = holm(
    diffs.map((d) => d.p),
    1 - config.analysis.level,
  );
  const comparisons = family.map(([a, b], i) => {
    const [lo, hi] = diffs[i].replicates.length ? percentileInterval(diffs[i].replicates, 1 - steps[i].alpha) : [NaN, NaN];
    const p1 = perSeed(a, 'passAt1').map((x, j) => x - perSeed(b, 'passAt1')[j]);
    return {
      arm: a,
      against: b,
      seeds: config.seeds.length,
      difference: diffs[i].value,
      lo,
      hi,
      level: 1 - steps[i].alpha,
      p: diffs[i].p,
      adjustedP: steps[i].adjustedP,
      rejected: steps[i].rejected,
      passAt1Difference: mean(p1),
    };
  });
  const start = Object.fromEntries(METRICS.map((m) => [m, value('start', m)]));
  const childRuns = Object.entries(parent.tags)
    .filter(([k]) => k.startsWith(CHILD_TAG_PREFIX))
    .map(([, id]) => id);
  return { runId, childRuns, start, arms, comparisons };
}

function armTable(s: MultiAttemptSummary): Table {
  const cell = (x: { mean: number; lo: number; hi: number }) => `${x.mean.toFixed(3)} [${x.lo.toFixed(3)}, ${x.hi.toFixed(3)}]`;
  return {
    columns: ['arm', 'seeds', 'Verification@K', 'pass@1 (first attempt)', 'attempts used', 'fix rate (2nd attempt after a wrong 1st)'],
    rows: [
      ['start (the checkpoint)', 1, s.start.verificationAtK, s.start.passAt1, s.start.attemptsUsed, s.start.fixRate],
      ...s.arms.map((a) => [a.arm, a.seeds, ...METRICS.map((m) => cell(a.metrics[m]))]),
    ],
  };
}

function comparisonTable(s: MultiAttemptSummary): Table {
  return {
    columns: ['comparison', 'seeds', 'Δ Verification@K', 'Holm interval', 'level', 'p', 'Holm p', 'verdict', 'Δ pass@1'],
    rows: s.comparisons.map((c) => [
      `${c.arm} − ${c.against}`,
      c.seeds,
      c.difference,
      `[${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}]`,
      c.level,
      c.p,
      c.adjustedP,
      c.rejected ? (c.difference > 0 ? `${c.arm} better` : `${c.against} better`) : 'no difference shown',
      c.passAt1Difference,
    ]),
  };
}

export function renderMultiAttemptTables(store: Store, runId: string, outDir: string): string[] {
  const s = summarize(store, runId);
  const runs = [runId, ...s.childRuns];
  const command = 'npx nx run experiments:multi-attempt';
  const body =
    `${markdownTitle('Several attempts: CAL-GRPO as read from its abstract vs naive attempt weights vs GRPO')}\n` +
    'Held-out Verification@K (success by the K-th attempt), pass@1 (the first attempt) and attempts used, after training each arm ' +
    'from the multi-attempt checkpoint; mean over seeds with a 95 % t interval (packages/training/README.md, "Several attempts").\n\n' +
    toMarkdown(armTable(s)) +
    '\nPaired by seed on Verification@K: paired bootstrap over seeds, Holm over the family, each interval at its Holm step level.\n\n' +
    toMarkdown(comparisonTable(s));
  const files = [
    path.join(outDir, 'summary.md'),
    path.join(outDir, 'arms.csv'),
    path.join(outDir, 'comparisons.csv'),
    path.join(outDir, 'summary.json'),
  ];
  writeText(files[0], withProvenance(body, store, runs, command));
  writeText(files[1], csvHeader(store, runs) + toCsv(armTable(s)));
  writeText(files[2], csvHeader(store, runs) + toCsv(comparisonTable(s)));
  writeText(files[3], `${JSON.stringify(s, null, 2)}\n`);
  return files;
}
