import * as path from 'path';
import { Rng, runMain } from '@rred/core';
import { openStore, withRun, type Store } from '@rred/results-store';
import { codeStateTags } from './code-state';
import type { ExperimentDefinition } from './experiment';
import { repoRoot, resolveConfig } from './load-config';

/**
 * The main of an experiment command: config (validated before anything is opened) → compute inside
 * a run of the store → the experiment's render function, which reads the store only, so that
 * `experiments:tables` later writes the very same files.
 */
export function experimentMain(
  def: ExperimentDefinition,
  render: (store: Store, runId: string, outDir: string) => Promise<string[]>,
): void {
  runMain(async () => {
    const { config, args } = resolveConfig(def.schema, def.name, process.argv.slice(2), def.aliases);
    def.precheck?.(config);
    const backend = await def.backend();
    const store = openStore(args.store);
    try {
      const runId = await withRun(store, { experiment: def.name, config, backend, tags: { ...codeStateTags(), ...(def.tags?.(config) ?? {}) }, argv: process.argv }, async (run) => {
        await def.compute({ store, run, config, rng: new Rng(config.seed as number) });
        return run.id;
      });
      const outDir = args.out ?? path.join(repoRoot(), 'results', def.name);
      const files = await render(store, runId, outDir);
      process.stderr.write(`run ${runId} FINISHED; wrote ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}\n`);
    } finally {
      store.close();
    }
  });
}
