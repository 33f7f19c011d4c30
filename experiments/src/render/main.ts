/**
 * experiments:tables / experiments:plots: re-render results/<experiment>/ for every registered
 * experiment, and results/sweeps/<grid>/ for the newest FINISHED sweep of each grid file, from the store alone. Usage: render/main.ts tables|plots [--store FILE] [--out DIR]
 * [--experiment NAME] [--run ID] (the run defaults to the newest FINISHED top-level run).
 */
import * as path from 'path';
import { repoRoot, runMain, UserError } from '@rred/core';
import { openStore, type Store } from '@rred/results-store';
import { experimentByName, experimentNames } from '../registry';
import { renderSweep } from '../sweep/render';
import { SWEEP_EXPERIMENT } from '../sweep/run-sweep';
import { renderExperiment, runsToRender } from './registry';

runMain(async () => {
  const [what, ...rest] = process.argv.slice(2);
  if (what !== 'tables' && what !== 'plots') throw new UserError(`render: first argument must be 'tables' or 'plots', got '${what ?? ''}'`);
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const name = rest[i].replace(/^--/, '');
    if (!rest[i].startsWith('--') || !['store', 'out', 'experiment', 'run'].includes(name)) {
      throw new UserError(`render: unknown argument '${rest[i]}'; expected --store FILE, --out DIR, --experiment NAME, --run ID`);
    }
    if (rest[i + 1] === undefined) throw new UserError(`render: flag --${name} needs a value`);
    flags[name] = rest[i + 1];
  }
  if (flags.experiment) experimentByName(flags.experiment, 'experiment (render --experiment)');
  if (flags.run && !flags.experiment) throw new UserError('render: --run needs --experiment');
  const store = openStore(flags.store);
  try {
    const outRoot = flags.out ?? path.join(repoRoot(), 'results');
    await renderExperiments(store, flags.experiment ? [flags.experiment] : experimentNames(), outRoot, what, flags.run);
    if (!flags.experiment) await renderSweeps(store, outRoot, what);
  } finally {
    store.close();
  }
});

const relative = (files: string[]) => files.map((f) => path.relative(process.cwd(), f)).join(', ');

/** results/<experiment>/ of each experiment, from the run(s) it shows. */
async function renderExperiments(store: Store, experiments: string[], outRoot: string, what: 'tables' | 'plots', pinned?: string): Promise<void> {
  for (const experiment of experiments) {
    const runIds = runsToRender(store, experiment, pinned);
    if (runIds.length === 0) process.stderr.write(`${experiment}: no FINISHED run in the store; skipped\n`);
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
    const files = await renderSweep(store, id, experimentByName(experiment).sweep?.reportMetrics ?? [], path.join(outRoot, 'sweeps', name), what);
    process.stderr.write(`sweep ${name} (run ${id}): ${relative(files)}\n`);
  }
}
