import * as path from 'path';
import { checkOutputDir, Rng, runMain } from '@rred/core';
import { openStore, withRun, type BackendInfo, type Run, type Store } from '@rred/results-store';
import { codeStateTags } from './code-state';
import type { ExperimentDefinition } from './experiment';
import { checkInputsUsed, identityTags, resolveIdentity } from './identity';
import { resolveConfig } from './load-config';
import { COMMITTED_CONFIG_TAG, planOutput } from './out-dir';

/** The run's seed: `config.seed` when the config has one, else null (recorded as such on the run). */
function runSeed(config: Record<string, unknown>): number | null {
  return typeof config.seed === 'number' ? config.seed : null;
}

/** Runs an experiment's compute step into an open run (the command and the sweep both go through here). */
export async function computeInto(
  def: ExperimentDefinition,
  store: Store,
  run: Run,
  config: Record<string, unknown>,
  backend: BackendInfo,
): Promise<void> {
  const seed = runSeed(config);
  await def.compute({ store, run, config, rng: seed === null ? null : new Rng(seed), backend });
}

/** The tags every run of `def` starts with: the code state and the experiment's own (e.g. checkpoint hash). */
export function runTags(def: ExperimentDefinition, config: Record<string, unknown>): Record<string, string> {
  return { ...codeStateTags(), ...(def.tags?.(config) ?? {}) };
}

/**
 * An experiment command: config (validated before anything is opened) → compute inside a run of the
 * store → the experiment's renderer, which reads the store only, so that `experiments:tables` later
 * writes the very same files. Returns the run id and the files written.
 */
export async function runExperiment(def: ExperimentDefinition, argv: readonly string[]): Promise<{ runId: string; files: string[] }> {
  const { config, args, file } = resolveConfig(def.schema, def.name, argv, def.aliases, {
    summary: def.summary,
    usage: `npx nx run ${def.command.project}:${def.command.target} --`,
  });
  def.precheck?.(config);
  const { outDir, committed, note } = planOutput(def, config, file, args.out);
  checkOutputDir(outDir); // before the compute: a bad --out used to fail only after a FINISHED run
  if (note) process.stderr.write(`${note}\n`);
  const backend = await def.backend();
  const store = openStore(args.store);
  try {
    const identity = resolveIdentity(def, config, store); // recorded, so that a sweep can reuse this run
    const runId = await withRun(
      store,
      {
        experiment: def.name,
        config,
        backend,
        tags: { ...runTags(def, config), ...identityTags(identity), [COMMITTED_CONFIG_TAG]: committed ? 'yes' : 'no' },
        argv: process.argv,
      },
      async (run) => {
        await computeInto(def, store, run, config, backend);
        checkInputsUsed(store, run.id, identity);
        return run.id;
      },
    );
    const files = [...(await def.render.tables(store, runId, outDir)), ...(await def.render.plots(store, runId, outDir))];
    return { runId, files };
  } finally {
    store.close();
  }
}

/** The main of an experiment's main.ts: runExperiment on the process's argv, one line of outcome. */
export function experimentMain(def: ExperimentDefinition, argv: readonly string[] = process.argv.slice(2)): void {
  runMain(async () => {
    const { runId, files } = await runExperiment(def, argv);
    process.stderr.write(`run ${runId} FINISHED; wrote ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}\n`);
  });
}
