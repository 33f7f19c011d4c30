import * as fs from 'fs';
import * as path from 'path';
import { checkOutputDir, flattenConfig, parseConfig, repoRoot, Rng, runMain, UserError } from '@rred/core';
import { verifyCheckpoint } from '@rred/lm';
import {
  isPostgresUrl,
  openStore,
  openStoreForReading,
  resolveStorePath,
  withRun,
  type BackendInfo,
  type Run,
  type Store,
} from '@rred/results-store';
import type { ServedModelRef } from './cli-args';
import { codeStateTags } from './code-state';
import type { DatasetRef } from './dataset';
import type { ExperimentDefinition } from './experiment';
import { blasSummary } from '@rred/engine';
import { describeOutcome, displayPath, publishRender } from '../report/publish';
import { hasCommittedRuns, writeCommittedRuns } from '../report/run-export';
import { checkInputsUsed, identityTags, resolveIdentity, type RunIdentity } from './identity';
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
  served: ServedModelRef | null = null,
  dataset: DatasetRef | null = null,
): Promise<void> {
  const seed = runSeed(config);
  await def.compute({ store, run, config, rng: seed === null ? null : new Rng(seed), backend, served, dataset });
}

/** The tags every run of `def` starts with: the code state and the experiment's own (e.g. checkpoint hash). */
export function runTags(def: ExperimentDefinition, config: Record<string, unknown>): Record<string, string> {
  return { ...codeStateTags(), ...(def.tags?.(config) ?? {}) };
}

/**
 * Everything that can be checked before a file is written, in one place: the config
 * (already parsed by resolveConfig), the run to resume, the experiment's own checks (data, context
 * fit), the checkpoint's checksum, --out, the store file (valid, not foreign) and what the run will
 * read from it. A store that does not exist yet is not created here. Returns the config to run with
 * (a resumed run's own).
 */
function precheck(
  def: ExperimentDefinition,
  resolved: ReturnType<typeof resolveConfig>,
): { config: Record<string, unknown>; plan: ReturnType<typeof planOutput> } {
  const { args } = resolved;
  const storeFile = resolveStorePath(args.store);
  // An existing store is opened as the command would open it a moment later (a store this process may
  // not write, read-only); a missing one is not created here.
  const existing = isPostgresUrl(storeFile) || fs.existsSync(storeFile) ? openStoreForReading(storeFile) : null;
  try {
    const config = args.resume ? resumedConfig(def, resolved, existing, storeFile) : resolved.config;
    def.precheck?.(config);
    if (args.model) {
      if (!def.checkServed) throw new UserError(`${def.name}: --model: this experiment runs in-process only (it needs the weights)`);
      def.checkServed(config);
    }
    if (args.dataset && !def.takesDataset) throw new UserError(`${def.name}: --dataset: this experiment reads its own problems`);
    for (const checkpoint of checkpointsOf(config)) verifyCheckpoint(path.resolve(repoRoot(), checkpoint));
    const setAside = [
      ...(args.model ? [`it runs on the served model at ${args.model.url}`] : []),
      ...(args.dataset ? [`it reads its problems from --dataset ${args.dataset.file}`] : []),
    ];
    const plan = planOutput(def, config, resolved.file, args.out, setAside);
    checkOutputDir(plan.outDir); // a bad --out fails here, before the run computes anything
    def.precheckStore?.(config, existing);
    if (args.resume && existing) checkResumedInputs(existing, args.resume, resolveIdentity(def, config, existing, overridesOf(args)));
    return { config, plan };
  } finally {
    existing?.close();
  }
}

/** What the command line puts in place of the config's checkpoint or split (`--model`, `--dataset`). */
function overridesOf(args: { model: ServedModelRef | null; dataset: DatasetRef | null }) {
  return { served: args.model, dataset: args.dataset };
}

/** The checkpoints a config names (`checkpoint`, or gold's `checkpoints`). */
function checkpointsOf(config: Record<string, unknown>): string[] {
  const named = [config.checkpoint, ...(Array.isArray(config.checkpoints) ? config.checkpoints : [])];
  return named.filter((c): c is string => typeof c === 'string');
}

/**
 * `--resume RUN`: the run must be an unfinished run of this experiment in the store; it continues
 * with its own recorded config, which config flags or --config may repeat but not change.
 */
function resumedConfig(
  def: ExperimentDefinition,
  resolved: ReturnType<typeof resolveConfig>,
  store: Store | null,
  storeFile: string,
): Record<string, unknown> {
  const id = resolved.args.resume!;
  if (!store) throw new UserError(`--resume ${id}: there is no results store at ${storeFile} (pass the --store the run was written to)`);
  let run: ReturnType<Store['getRun']>;
  try {
    run = store.getRun(id);
  } catch (err) {
    throw err instanceof UserError ? new UserError(`--resume ${id}: ${err.message}`) : err;
  }
  if (run.experiment !== def.name) throw new UserError(`--resume ${id}: run ${run.id} is a ${run.experiment} run, not ${def.name}`);
  if (run.status === 'FINISHED') throw new UserError(`--resume ${id}: run ${run.id} is already FINISHED; nothing to resume`);
  const config = parseConfig(def.schema, run.config, `--resume ${id}: the config of run ${run.id}`) as Record<string, unknown>;
  const { args } = resolved;
  // --config FILE must match the run's config entirely; a config flag, on the path it names
  const written = Object.keys(args.overrides);
  const checked = (k: string) => args.configFile !== null || written.some((w) => k === w || k.startsWith(`${w}.`));
  if (args.configFile !== null || written.length > 0) {
    const ours = flattenConfig(resolved.config);
    const theirs = flattenConfig(config);
    const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].sort();
    const key = keys.find((k) => checked(k) && ours[k] !== theirs[k]);
    if (key !== undefined) {
      throw new UserError(
        `--resume ${id}: ${key} is ${theirs[key] ?? '(unset)'} in run ${run.id} but ${ours[key] ?? '(unset)'} here; a resumed run keeps its config (drop the flag, or start a new run)`,
      );
    }
  }
  return config;
}

/**
 * A resumed run continues only on the inputs it started with (the same checkpoint, source run and
 * dataset files): otherwise its traces would mix two models or two sources.
 */
function checkResumedInputs(store: Store, id: string, identity: RunIdentity): void {
  const run = store.getRun(id);
  for (const [key, now] of Object.entries(identity.inputs)) {
    if (run.tags[key] !== undefined && run.tags[key] !== now) {
      throw new UserError(
        `--resume ${id}: input ${key} was ${run.tags[key].slice(0, 16)} when run ${run.id} started and is ${now.slice(0, 16)} now (e.g. a replaced checkpoint or a newer source run); start a new run`,
      );
    }
  }
}

/**
 * An experiment command: config and every other precheck (before anything is written) → compute
 * inside a run of the store (a new one, or the `--resume`d one) → the experiment's renderer, which
 * reads the store only, so that `experiments:tables` later writes the very same files. Returns the run
 * id and the files written.
 */
export async function runExperiment(
  def: ExperimentDefinition,
  argv: readonly string[],
): Promise<{ runId: string; files: string[]; outcome: string }> {
  const resolved = resolveConfig(def.schema, def.name, argv, def.aliases, {
    summary: def.summary,
    usage: `npx nx run ${def.command.project}:${def.command.target} --`,
  });
  const { args } = resolved;
  const { config, plan } = precheck(def, resolved);
  if (plan.note) process.stderr.write(`${plan.note}\n`);
  const store = openStore(args.store, { sentinel: true }); // before the engine: the sentinel is ready when the run starts
  try {
    const backend = await def.backend();
    await store.sentinelReady();
    const identity = resolveIdentity(def, config, store, overridesOf(args)); // recorded, so that a sweep can reuse this run
    const start = args.resume
      ? { resume: args.resume }
      : {
          experiment: def.name,
          config,
          backend,
          tags: { ...runTags(def, config), ...identityTags(identity), [COMMITTED_CONFIG_TAG]: plan.committed ? 'yes' : 'no' },
          argv: process.argv,
        };
    const runId = await withRun(store, start, async (run) => {
      await computeInto(def, store, run, config, backend, args.model, args.dataset);
      checkInputsUsed(store, run.id, identity);
      return run.id;
    });
    // a render that reproduces the files already in outDir leaves them untouched (report/publish.ts); the
    // committed results/<name>/ carries its runs in results/runs/<name>.json, written with the files
    const committedDir = plan.committed && args.out === null && !def.runsToRender;
    const exported = committedDir && hasCommittedRuns(def.name);
    const outcome = await publishRender(
      plan.outDir,
      async (dir) => [...(await def.render.tables(store, runId, dir)), ...(await def.render.plots(store, runId, dir))],
      committedDir && !exported ? `results/runs/${def.name}.json did not exist: the files now name run ${runId}, exported with them` : null,
    );
    const blas = blasSummary(backend.openblasConfig, backend.openblasThreads);
    let said = describeOutcome(outcome, displayPath(plan.outDir), blas);
    if (committedDir && outcome.kind === 'written') {
      const file = writeCommittedRuns(store, path.join(repoRoot(), 'results'), def.name, {
        kind: 'experiment',
        experiment: def.name,
        runs: [runId],
      });
      if (file) said += `\n  and ${displayPath(file)} (the runs it was rendered from)`;
    }
    return { runId, files: outcome.files, outcome: said };
  } finally {
    store.close();
  }
}

/** The main of an experiment's main.ts: runExperiment on the process's argv, one line of outcome. */
export function experimentMain(def: ExperimentDefinition, argv: readonly string[] = process.argv.slice(2)): void {
  runMain(async () => {
    const { runId, outcome } = await runExperiment(def, argv);
    process.stderr.write(`run ${runId} FINISHED; ${outcome}\n`);
  });
}
