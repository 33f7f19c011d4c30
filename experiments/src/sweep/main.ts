/** experiments:sweep -- --grid FILE [--store FILE]: runs (or resumes) a sweep; see run-sweep.ts. */
import * as path from 'path';
import { STORE_FLAG, parseCommandLine, parseConfig, readJsonFile, repoRoot, runMain, UserError } from '@rred/core';
import { openStore } from '@rred/results-store';
import { resolveIdentity } from '../common/identity';
import { sweepableExperiments } from '../registry';
import { expandGrid, gridSpecSchema } from './grid';
import { runSweep } from './run-sweep';

const SPEC = {
  name: 'sweep',
  usage: 'npx nx run experiments:sweep --',
  summary: 'Runs (or resumes) a sweep: one child run per point of the grid, reusing points that already have a FINISHED run.',
  flags: {
    grid: { type: 'string', value: 'FILE', path: true, description: 'grid file (required), e.g. experiments/sweeps/segments.json' },
    store: STORE_FLAG,
  },
} as const;

runMain(async () => {
  const f = parseCommandLine(process.argv.slice(2), SPEC).flags;
  if (!f.grid) throw new UserError('sweep: --grid FILE is required (e.g. experiments/sweeps/segments.json)');
  const spec = parseConfig(gridSpecSchema, readJsonFile(f.grid, 'grid file'), f.grid);
  const sweepable = sweepableExperiments();
  const def = sweepable.find((e) => e.name === spec.experiment);
  if (!def)
    throw new UserError(
      `grid file ${f.grid}: experiment '${spec.experiment}' cannot be swept; expected one of ${sweepable.map((e) => e.name).join(', ')}`,
    );
  const defaultsFile = path.join(repoRoot(), 'experiments', 'configs', `${def.name}.json`);
  const defaults = readJsonFile(defaultsFile, 'config file') as Record<string, unknown>;
  const points = expandGrid(def, spec, defaults, f.grid);
  points.forEach((p) => def.precheck?.(p.config));
  const backend = await def.backend();
  const store = openStore(f.store, { sentinel: true });
  try {
    await store.sentinelReady();
    // what the points read besides their config, said before anything runs (a source run 'latest' cannot
    // resolve is a one-line error here, with the candidates)
    const sources = [...new Set(points.map((p) => resolveIdentity(def, p.config, store).inputs.sourceRun).filter((s) => s !== undefined))];
    if (sources.length) process.stderr.write(`sweep: source run${sources.length > 1 ? 's' : ''} of the points: ${sources.join(', ')}\n`);
    const out = await runSweep({ store, def, spec, points, backend, gridFile: path.relative(repoRoot(), f.grid), argv: process.argv });
    process.stderr.write(
      `sweep ${out.parentId}: ${out.ran.length} ran, ${out.reused.length} reused, ${out.failed.length} failed of ${points.length} points. ` +
        `Report: npx nx run experiments:sweep-report -- --sweep ${out.parentId}\n`,
    );
    if (out.failed.length) process.exitCode = 1;
  } finally {
    store.close();
  }
});
