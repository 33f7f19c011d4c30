/**
 * experiments:tables / experiments:plots: re-render results/<experiment>/ for every registered
 * experiment, and results/sweeps/<grid>/ for the newest FINISHED sweep of each grid file, from the store alone. Usage: render/main.ts tables|plots [--store FILE] [--out DIR]
 * [--experiment NAME] [--run ID] (the run defaults to the newest FINISHED top-level run).
 */
import * as path from 'path';
import { runMain, UserError } from '@rred/core';
import { openStore } from '@rred/results-store';
import { repoRoot } from '../common/load-config';
import { REPORT_METRICS } from '../sweep/experiments';
import { renderSweep } from '../sweep/render';
import { SWEEP_EXPERIMENT } from '../sweep/run-sweep';
import { RENDERERS, renderExperiment, runToRender } from './registry';

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
  if (flags.experiment && !RENDERERS[flags.experiment]) {
    throw new UserError(`render: unknown experiment '${flags.experiment}'; expected one of ${Object.keys(RENDERERS).join(', ')}`);
  }
  if (flags.run && !flags.experiment) throw new UserError('render: --run needs --experiment');
  const store = openStore(flags.store);
  try {
    const outRoot = flags.out ?? path.join(repoRoot(), 'results');
    for (const experiment of flags.experiment ? [flags.experiment] : Object.keys(RENDERERS)) {
      const runId = runToRender(store, experiment, flags.run);
      if (!runId) {
        process.stderr.write(`${experiment}: no FINISHED run in the store; skipped\n`);
        continue;
      }
      const files = await renderExperiment(experiment, store, runId, path.join(outRoot, experiment), what);
      process.stderr.write(`${experiment} (run ${runId}): ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}\n`);
    }
    if (!flags.experiment) {
      // sweeps: the newest FINISHED sweep of each grid file → results/sweeps/<grid name>/
      const newest = new Map<string, string>();
      const sweeps = store.listRuns({ experiment: SWEEP_EXPERIMENT, status: 'FINISHED' }).sort((a, b) => (a.endTime ?? 0) - (b.endTime ?? 0));
      for (const s of sweeps) {
        const gridFile = (store.getRun(s.id).config as { gridFile?: string | null }).gridFile;
        if (gridFile) newest.set(path.basename(gridFile, '.json'), s.id);
      }
      for (const [name, id] of [...newest.entries()].sort()) {
        const experiment = (store.getRun(id).config as { experiment: string }).experiment;
        const files = await renderSweep(store, id, REPORT_METRICS[experiment] ?? [], path.join(outRoot, 'sweeps', name), what);
        process.stderr.write(`sweep ${name} (run ${id}): ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}\n`);
      }
    }
  } finally {
    store.close();
  }
});
