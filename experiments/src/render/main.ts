/**
 * experiments:tables / experiments:plots: re-render results/<experiment>/ for every registered experiment
 * and results/sweeps/<grid>/ without model compute. By default from the committed runs (results/runs/*.json,
 * report/run-export.ts): a fresh clone re-renders every committed result byte for byte without any store.
 * With --store FILE: from that store, the newest FINISHED top-level run of a committed config (or --run)
 * of each experiment and the newest FINISHED sweep of each grid file; a render whose numbers equal the
 * files there leaves them untouched (report/publish.ts), one that differs rewrites them and their
 * results/runs/ export. Usage: render/main.ts tables|plots [--store FILE] [--out DIR] [--experiment NAME] [--run ID].
 */
import * as fs from 'fs';
import * as path from 'path';
import { checkOutputDir, STORE_FLAG, parseCommandLine, repoRoot, runMain, UserError } from '@rred/core';
import { openStoreForReading, openStoreOfExports, type Store } from '@rred/results-store';
import { experimentByName, experimentNames } from '../registry';
import { describeOutcome, displayPath, publishRender } from '../report/publish';
import { readCommittedRuns, writeCommittedRuns, type Rendered } from '../report/run-export';
import { renderSweep } from '../sweep/render';
import { SWEEP_EXPERIMENT } from '../sweep/run-sweep';
import { renderExperiment, runsToRender } from './registry';

const SPEC = {
  name: 'render',
  usage: 'node --import tsx experiments/src/render/main.ts',
  summary:
    'Re-renders results/<experiment>/ of every registered experiment and results/sweeps/<grid>/, without model compute: from the committed runs in results/runs/ (no store needed), or from --store. experiments:tables and experiments:plots pass the first argument.',
  positionals: { usage: 'tables|plots', min: 1, max: 1, description: 'tables: markdown, CSV and JSON; plots: .vl.json, .svg, .png' },
  flags: {
    store: {
      ...STORE_FLAG,
      description: 'render the newest runs of this store instead of the committed runs',
      default: 'the committed runs, results/runs/',
    },
    out: { type: 'string', value: 'DIR', path: true, description: 'output root', default: 'results' },
    experiment: {
      type: 'string',
      value: 'NAME',
      description: 'render only this experiment',
      default: 'every registered experiment and the sweeps',
    },
    run: {
      type: 'string',
      value: 'ID',
      description: 'render this run (needs --experiment and --store)',
      default: 'the newest FINISHED top-level run',
    },
  },
} as const;

type What = 'tables' | 'plots';

runMain(async () => {
  const args = parseCommandLine(process.argv.slice(2), SPEC);
  const what = args.positionals[0];
  if (what !== 'tables' && what !== 'plots') throw new UserError(`render: first argument must be 'tables' or 'plots', got '${what}'`);
  const flags = args.flags;
  if (flags.experiment) experimentByName(flags.experiment, 'experiment (render --experiment)');
  if (flags.run && !flags.experiment) throw new UserError('render: --run needs --experiment');
  if (flags.run && !flags.store) throw new UserError('render: --run needs --store (the committed runs render as committed)');
  const outRoot = flags.out ?? path.join(repoRoot(), 'results');
  checkOutputDir(outRoot);
  if (flags.store) {
    const store = openStoreForReading(flags.store);
    try {
      await renderFromStore(store, flags.experiment ? [flags.experiment] : experimentNames(), outRoot, what, flags.run, !flags.experiment);
    } finally {
      store.close();
    }
  } else {
    await renderCommitted(outRoot, what, flags.experiment);
  }
});

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Renders what one results directory shows into it, through the reproduction check; returns the final files. */
async function renderDir(
  store: Store,
  outRoot: string,
  dir: string,
  rendered: Rendered,
  what: What,
  force: string | null = null,
): Promise<{ files: string[]; written: boolean }> {
  const outDir = path.join(outRoot, dir);
  const outcome = await publishRender(
    outDir,
    async (staging) => {
      if (rendered.kind === 'sweep') {
        const experiment = (store.getRun(rendered.run).config as { experiment: string }).experiment;
        return renderSweep(store, rendered.run, experimentByName(experiment).sweep?.reportMetrics ?? [], staging, what);
      }
      const files: string[] = [];
      for (const id of rendered.runs) files.push(...(await renderExperiment(rendered.experiment, store, id, staging, what)));
      return files;
    },
    force,
  );
  const label =
    rendered.kind === 'sweep' ? `sweep ${rendered.run}` : `run${rendered.runs.length > 1 ? 's' : ''} ${rendered.runs.join(', ')}`;
  say(`${dir} (${label}): ${describeOutcome(outcome, displayPath(outDir), null)}`);
  return { files: outcome.files, written: outcome.kind === 'written' };
}

/** From a store: the runs each experiment's results directory shows now, and the newest sweep of each grid. */
async function renderFromStore(
  store: Store,
  experiments: string[],
  outRoot: string,
  what: What,
  pinned: string | undefined,
  sweeps: boolean,
): Promise<void> {
  const dirs: { dir: string; rendered: Rendered }[] = [];
  for (const experiment of experiments) {
    const runs = runsToRender(store, experiment, pinned);
    if (runs.length === 0) say(`${experiment}: no FINISHED run of a committed config in the store; skipped`);
    else dirs.push({ dir: experiment, rendered: { kind: 'experiment', experiment, runs } });
  }
  if (sweeps) dirs.push(...newestSweeps(store));
  for (const { dir, rendered } of dirs) {
    // the committed runs follow the committed files: rewritten with them, or written (with the files) when missing
    const exportFile = path.join(outRoot, 'runs', `${dir.replace(/\//g, '-')}.json`);
    const missing = fs.existsSync(exportFile)
      ? null
      : `${displayPath(exportFile)} did not exist: the files now name the runs exported with them`;
    const { files, written } = await renderDir(store, outRoot, dir, rendered, what, missing);
    if (written) {
      const file = writeCommittedRuns(store, outRoot, dir, rendered);
      if (file) say(`${dir}: wrote ${displayPath(file)} (the runs it was rendered from)`);
    }
  }
}

/** results/sweeps/<grid name>/ from the newest FINISHED sweep of each grid file. */
function newestSweeps(store: Store): { dir: string; rendered: Rendered }[] {
  const newest = new Map<string, string>();
  const sweeps = store.listRuns({ experiment: SWEEP_EXPERIMENT, status: 'FINISHED' }).sort((a, b) => (a.endTime ?? 0) - (b.endTime ?? 0));
  for (const s of sweeps) {
    const gridFile = (store.getRun(s.id).config as { gridFile?: string | null }).gridFile;
    if (gridFile) newest.set(path.basename(gridFile, '.json'), s.id);
  }
  return [...newest.entries()].sort().map(([name, run]) => ({ dir: `sweeps/${name}`, rendered: { kind: 'sweep', run } }));
}

/** From the committed runs (results/runs/): every results directory they cover, as committed. */
async function renderCommitted(outRoot: string, what: What, only: string | undefined): Promise<void> {
  const all = readCommittedRuns(path.join(repoRoot(), 'results'));
  const exports = all.map((e) => e.data).filter((e) => !only || (e.rendered.kind === 'experiment' && e.rendered.experiment === only));
  if (exports.length === 0)
    throw new UserError(
      `render: no committed runs in results/runs/${only ? ` for ${only}` : ''} (pass --store FILE to render from a store)`,
    );
  // every export goes in: one may name a run (a correlation's MC source) that another holds whole
  const committed = openStoreOfExports(all.map((e) => e.file));
  try {
    for (const e of exports) await renderDir(committed.store, outRoot, e.dir, e.rendered, what);
  } finally {
    committed.close();
  }
  const covered = new Set(exports.map((e) => e.dir));
  const missing = [...experimentNames(), ...listSweepDirs(outRoot)].filter((d) => !covered.has(d) && fs.existsSync(path.join(outRoot, d)));
  if (missing.length)
    say(
      `not covered by results/runs/ (their runs are in no committed export; left as they are): ${missing.map((d) => `results/${d}/`).join(', ')}`,
    );
}

const listSweepDirs = (outRoot: string) =>
  fs.existsSync(path.join(outRoot, 'sweeps')) ? fs.readdirSync(path.join(outRoot, 'sweeps')).map((d) => `sweeps/${d}`) : [];
