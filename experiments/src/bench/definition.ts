/**
 * `experiments:bench` as an experiment: one store run per bench invocation (config, seeds, git state,
 * package versions and backend in the run context, as for every experiment), each section's numbers
 * as run metrics (document.ts), and results/bench/<section>.json rendered from the store.
 */
import * as path from 'path';
import type { Store } from '@rred/results-store';
import type { ExperimentDefinition } from '../common/experiment';
import { checkpointHashOf, engineBackend } from '../common/model';
import { fromCommittedConfig } from '../common/out-dir';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { scalingMarkdown, scalingPlotSpec } from './scaling-render';
import { benchConfigSchema, type BenchConfig, type BenchSection } from './config';
import { readDocument, recordDocument } from './document';
import { runEngineBench } from './engine-bench';
import { runEstimatorsBench } from './estimators-bench';
import { runLlamaBench } from './llama-bench';
import { runLmBench } from './lm-bench';
import { runRemoteBench } from './remote-bench';
import { runScalingBench } from './scaling-bench';
import { runStoreBench } from './store-bench';
import { runTrainingBench } from './training-bench';

/** Each section measures and returns its document (the run facts `config` and `measuredAt` are added when rendering). */
const SECTIONS: Record<BenchSection, (config: BenchConfig) => Promise<Record<string, unknown>>> = {
  engine: (c) => runEngineBench(c.engine),
  lm: (c) => runLmBench(c.lm),
  estimators: (c) => runEstimatorsBench(c.estimators),
  training: (c) => runTrainingBench(c.training),
  remote: (c) => runRemoteBench(c.remote),
  llama: (c) => runLlamaBench(c.llama),
  scaling: (c) => runScalingBench(c.scaling),
  store: (c) => runStoreBench(c.store),
};

/** Fields of a section document that the store run holds itself: the section config and the time. */
const RUN_FACTS = ['config', 'measuredAt'];

/** results/bench/<section>.json of every section of one run (and scaling.md for the scaling section), from the store alone. */
export function renderBench(store: Store, runId: string, outDir: string): string[] {
  const run = store.getRun(runId);
  const config = benchConfigSchema.parse(run.config);
  return config.sections.flatMap((section) => {
    const document = {
      ...readDocument(run, section),
      config: config[section],
      measuredAt: new Date(run.endTime ?? run.startTime).toISOString(),
    };
    const file = path.join(outDir, `${section}.json`);
    writeText(file, `${JSON.stringify(document, null, 2)}\n`);
    if (section !== 'scaling') return [file];
    const table = path.join(outDir, 'scaling.md');
    writeText(table, scalingMarkdown(document as unknown as Parameters<typeof scalingMarkdown>[0]));
    return [file, table];
  });
}

/** results/bench/scaling.{vl.json,svg,png} of a run holding the scaling section (none otherwise). */
async function renderBenchPlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const run = store.getRun(runId);
  if (!benchConfigSchema.parse(run.config).sections.includes('scaling')) return [];
  const doc = readDocument(run, 'scaling') as unknown as Parameters<typeof scalingPlotSpec>[0];
  return writePlot(outDir, 'scaling', scalingPlotSpec(doc));
}

/**
 * For each section, the newest FINISHED full (not --quick) run holding it; oldest first, so when two
 * runs hold a section the newer one is written last.
 */
export function benchRunsToRender(store: Store): string[] {
  const runs = store
    .listRuns({ experiment: 'bench', status: 'FINISHED' })
    .filter((r) => r.parentRunId === null && fromCommittedConfig(r))
    .map((r) => ({ summary: r, config: benchConfigSchema.parse(store.getRun(r.id).config) }))
    .filter((r) => !r.config.quick)
    .sort((a, b) => (a.summary.endTime ?? 0) - (b.summary.endTime ?? 0) || (a.summary.id < b.summary.id ? -1 : 1));
  const newest = new Map<BenchSection, string>();
  for (const r of runs) for (const s of r.config.sections) newest.set(s, r.summary.id);
  return runs.map((r) => r.summary.id).filter((id) => [...newest.values()].includes(id));
}

/** Identity (weights + config + tokenizer) of the checkpoint the chosen sections load (per section if they differ; the engine and scaling sections build random models, the store section loads none). */
function checkpointTags(config: BenchConfig): Record<string, string> {
  const bySection = config.sections
    .filter((s) => s !== 'engine' && s !== 'scaling' && s !== 'store')
    .map((s) => [s, checkpointHashOf((config[s] as { checkpoint: string }).checkpoint)] as const);
  const distinct = [...new Set(bySection.map(([, h]) => h))];
  if (distinct.length <= 1) return distinct.length ? { checkpointHash: distinct[0] } : {};
  return Object.fromEntries(bySection.map(([s, h]) => [`checkpointHash.${s}`, h]));
}

export const benchExperiment: ExperimentDefinition<typeof benchConfigSchema> = {
  name: 'bench',
  schema: benchConfigSchema,
  aliases: { only: 'sections' },
  selectors: ['sections'],
  summary:
    'Performance benchmarks (engine backends and MFU, lm KV cache and scorer, estimator costs, GRPO vs RREDCoT-GRPO step) as one store run; renders results/bench/<section>.json. --quick: a smoke run (fewer repetitions, no cpu backend, written to a temporary directory unless --out is given).',
  command: { project: 'experiments', target: 'bench', main: 'experiments/src/bench/main.ts' },
  precheck: (config) => {
    checkpointTags(config);
  },
  backend: engineBackend,
  compute: async ({ run, config }) => {
    for (const section of config.sections) {
      process.stderr.write(`bench: ${section}\n`);
      const document = await SECTIONS[section](config);
      for (const key of RUN_FACTS) delete document[key];
      recordDocument(run, section, document);
    }
  },
  tags: checkpointTags,
  render: { tables: renderBench, plots: renderBenchPlots },
  runsToRender: benchRunsToRender,
};
