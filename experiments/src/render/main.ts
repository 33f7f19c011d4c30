/**
 * experiments:tables / experiments:plots: re-render results/<experiment>/ for every registered
 * experiment, and results/sweeps/<grid>/ for the newest FINISHED sweep of each grid file, from the store alone. Usage: render/main.ts tables|plots [--store FILE] [--out DIR]
 * [--experiment NAME] [--run ID] (the run defaults to the newest FINISHED top-level run).
 */
import * as path from 'path';
import { checkOutputDir, STORE_FLAG, parseCommandLine, repoRoot, runMain, UserError } from '@rred/core';
import { openStoreForReading, type Store } from '@rred/results-store';
import { experimentByName, experimentNames } from '../registry';
import { renderSweep } from '../sweep/render';
import { SWEEP_EXPERIMENT } from '../sweep/run-sweep';
import { renderExperiment, runsToRender } from './registry';

const SPEC = {
  name: 'render',
  usage: 'node --import tsx experiments/src/render/main.ts',
  summary:
    'Re-renders results/<experiment>/ of every registered experiment and results/sweeps/<grid>/ of the newest FINISHED sweep of each grid, from the store alone (no model compute). experiments:tables and experiments:plots pass the first argument.',
  positionals: { usage: 'tables|plots', min: 1, max: 1, description: 'tables: markdown, CSV and JSON; plots: .vl.json, .svg, .png' },
  flags: {
    store: STORE_FLAG,
    out: { type: 'string', value: 'DIR', path: true, description: 'output root', default: 'results' },
    experiment: {
      type: 'string',
      value: 'NAME',
      description: 'render only this experiment',
      default: 'every registered experiment and the sweeps',
    },
    run: { type: 'string', value: 'ID', description: 'render this run (needs --experiment)', default: 'the newest FINISHED top-level run' },
  },
} as const;

runMain(async () => {
  const args = parseCommandLine(process.argv.slice(2), SPEC);
  const what = args.positionals[0];
  if (what !== 'tables' && what !== 'plots') throw new UserError(`render: first argument must be 'tables' or 'plots', got '${what}'`);
  const flags = args.flags;
  if (flags.experiment) experimentByName(flags.experiment, 'experiment (render --experiment)');
  if (flags.run && !flags.experiment) throw new UserError('render: --run needs --experiment');
  const outRoot = flags.out ?? path.join(repoRoot(), 'results');
  checkOutputDir(outRoot);
  const store = openStoreForReading(flags.store);
  try {
    await renderExperiments(store, flags.experiment ? [flags.experiment] : experimentNames(), outRoot, what, flags.run);
    if (!flags.experiment) await renderSweeps(store, outRoot, what);
  } finally {
    store.close();
  }
});

const relative = (files: string[]) => files.map((f) => path.relative(process.cwd(), f)).join(', ');

/** results/<experiment>/ of each experiment, from the run(s) it shows. */
async function renderExperiments(
  store: Store,
  experiments: string[],
  outRoot: string,
  what: 'tables' | 'plots',
  pinned?: string,
): Promise<void> {
  for (const experiment of experiments) {
    const runIds = runsToRender(store, experiment, pinned);
    if (runIds.length === 0) process.stderr.write(`${experiment}: no FINISHED run of a committed config in the store; skipped\n`);
    for (const runId of runIds) {
      const files = await renderExperiment(experiment, store, runId, path.join(outRoot, experiment), what);
      process.stderr.write(`${experiment} (run ${runId}): ${relative(files)}\n`);
    }
  }
}

/** results/sweeps/<grid name>/ from the newest FINISHED sweep of each grid file. */
async function renderSweeps(store: Store, outRoot: string, what: 'tables' | 'plots'): Promise<void> {
  const newest = new Map<string, string>();
  const sweeps = store.listRuns({ experiment: SWEEP_EXPERIMENT, status: 'FINISHED' }).sort((a, b) => (a.endTime ?? 0) - (b.endTime ?? 0));
  for (const s of sweeps) {
    const gridFile = (store.getRun(s.id).config as { gridFile?: string | null }).gridFile;
    if (gridFile) newest.set(path.basename(gridFile, '.json'), s.id);
  }
  for (const [name, id] of [...newest.entries()].sort()) {
    const experiment = (store.getRun(id).config as { experiment: string }).experiment;
    const files = await renderSweep(
      store,
      id,
      experimentByName(experiment).sweep?.reportMetrics ?? [],
      path.join(outRoot, 'sweeps', name),
      what,
    );
    process.stderr.write(`sweep ${name} (run ${id}): ${relative(files)}\n`);
  }
}
