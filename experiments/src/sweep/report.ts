/** experiments:sweep-report -- --sweep ID [--store FILE] [--out DIR]: table + plot of one sweep. */
import * as path from 'path';
import { checkOutputDir, STORE_FLAG, parseCommandLine, repoRoot, runMain, UserError } from '@rred/core';
import { openStoreForReading } from '@rred/results-store';
import { EXPERIMENTS } from '../registry';
import { describeOutcome, displayPath, publishRender } from '../report/publish';
import { hasCommittedRuns, writeCommittedRuns } from '../report/run-export';
import { renderSweep } from './render';

const SPEC = {
  name: 'sweep-report',
  usage: 'npx nx run experiments:sweep-report --',
  summary: 'Table and plot of one sweep, from the store alone.',
  flags: {
    sweep: {
      type: 'string',
      value: 'ID',
      description: 'the sweep run id (required; printed by experiments:sweep, or `npx rred runs list --experiment sweep`)',
    },
    store: STORE_FLAG,
    out: { type: 'string', value: 'DIR', path: true, description: 'output directory', default: 'results/sweeps/<grid name>' },
  },
} as const;

runMain(async () => {
  const f = parseCommandLine(process.argv.slice(2), SPEC).flags;
  if (!f.sweep)
    throw new UserError('sweep-report: --sweep ID is required (printed by experiments:sweep; or `npx rred runs list --experiment sweep`)');
  const store = openStoreForReading(f.store);
  try {
    const run = store.getRun(f.sweep);
    const config = run.config as { experiment: string; gridFile: string | null };
    const metrics = EXPERIMENTS.find((e) => e.name === config.experiment)?.sweep?.reportMetrics ?? Object.keys(run.metrics);
    const name = config.gridFile ? path.basename(config.gridFile, '.json') : run.id;
    const out = f.out ?? path.join(repoRoot(), 'results', 'sweeps', name);
    checkOutputDir(out);
    // results/sweeps/<grid>/ carries its runs in results/runs/sweeps-<grid>.json; a render that reproduces
    // the files there leaves them untouched (report/publish.ts)
    const committed = f.out === undefined && config.gridFile !== null;
    const dir = `sweeps/${name}`;
    const outcome = await publishRender(
      out,
      (staging) => renderSweep(store, run.id, metrics, staging),
      committed && !hasCommittedRuns(dir) ? `results/runs/sweeps-${name}.json did not exist: the files now name this sweep's runs` : null,
    );
    process.stderr.write(`sweep ${run.id}: ${describeOutcome(outcome, displayPath(out), null)}\n`);
    if (committed && outcome.kind === 'written') {
      const file = writeCommittedRuns(store, path.join(repoRoot(), 'results'), dir, { kind: 'sweep', run: run.id });
      if (file) process.stderr.write(`  and ${displayPath(file)} (the runs it was rendered from)\n`);
    }
  } finally {
    store.close();
  }
});
