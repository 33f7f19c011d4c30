/**
 * The finetune target: base-model avg@k on the eval splits (once per seed, on the parent run); then the
 * search (`search`: every candidate lr, then grpo-ref-sft's λ at its lr, each over the search's seeds),
 * the choices from the validation curves (search.ts), and the comparison: one child per (test bed,
 * method, seed) at the chosen settings. Every child is trained here or reused when an identical child
 * already FINISHED (same config hash: settings, starting weights, the code it runs, the data it reads),
 * so an interrupted plan resumes where it stopped and the comparison reuses the search's children.
 */
import * as path from 'path';
import { canonicalJson, repoRoot } from '@rred/core';
import { captureRunContext, configHash, type BackendInfo, type Run, type Store } from '@rred/results-store';
import { codeStateTags } from '../common/code-state';
import { CHECKPOINT_HASH_COVERS } from '../common/model';
import { budgetLines, budgetRows } from './budget';
import { evalSettings, trainChild, type ChildData } from './child';
import { loadChildData } from './child-data';
import { evaluateSplits, type SplitResults } from './evaluate';
import { CHILD_TAG_PREFIX, FINETUNE_EXPERIMENT, runChildren, type ChildrenOutcome, type ChildTrainer } from './children';
import { finetuneCodeHash } from './code-identity';
import type { FinetuneConfig, Method } from './config';
import { baseKey, KEYS, summaryKey } from './keys';
import { loadFinetuneRun, validationCurve } from './load';
import { childSizes, dataHashOf, planChildren, planSearch, testBeds, type ChildPlan, type Choices } from './plan';
import { chooseSettings } from './search';
import { summarize } from './summary';

/** The eval settings every child of a config shares (the parent's start evaluation uses them). */
const sharedEvalSettings = (config: FinetuneConfig) =>
  evalSettings({ ...childSizes(config), grpo: config.grpo } as Parameters<typeof evalSettings>[0]);

/** What a start evaluation reads: one per (bed, seed); a FINISHED one with the same hash is reused (tag `startConfigHash`). */
interface StartConfig {
  kind: 'start';
  testBed: string;
  checkpointHash: string;
  dataHash: string;
  /** The child code's hash: the evaluation (evaluate.ts) and the model code are among what a child imports. */
  codeHash: string;
  evaluation: ReturnType<typeof sharedEvalSettings>;
  seed: number;
}

const START_CLAIM_TAG = 'startConfigHash';
const startKeys = (split: string) => ({ avg: KEYS.evalAvg('final', split), pass: KEYS.evalPass('final', split) });

/**
 * avg@k of the starting model of a test bed on each eval split, by seed, with the same draws a child's eval uses
 * for that seed; logged on the parent as `base.*`. Each (bed, seed) is a run of its own (`finetune-start-<bed>.seed<k>`,
 * a child of the parent), reused by a later invocation while its config hash (checkpoint, split files, evaluation
 * settings, the child code's hash, seed) is unchanged, so a resumed plan does not evaluate the start models again.
 */
async function evaluateBase(
  o: FinetuneComputeOptions,
  data: ChildData,
  bed: { name: string; checkpoint: string; primary: boolean },
  codeHash: string,
): Promise<Map<number, SplitResults>> {
  const settings = sharedEvalSettings(o.config);
  const testBed = bed.primary ? null : bed.name;
  const out = new Map<number, SplitResults>();
  let model: ReturnType<ChildData['loadModel']> | null = null;
  try {
    for (const [i, seed] of o.config.seeds.entries()) {
      const startConfig: StartConfig = {
        kind: 'start',
        testBed: bed.name,
        checkpointHash: o.checkpointHash(bed.checkpoint),
        dataHash: dataHashOf(bed.checkpoint, o.config.evaluation.splits),
        codeHash,
        evaluation: settings,
        seed,
      };
      const claim = o.store.claimRun(
        {
          experiment: FINETUNE_EXPERIMENT,
          name: `finetune-start-${bed.name}.seed${seed}`,
          config: startConfig as unknown as Record<string, unknown>,
          seed,
          backend: o.backend,
          parentRunId: o.run.id,
          context: captureRunContext({ backend: o.backend, argv: process.argv }),
          tags: { ...codeStateTags(), kind: 'start' },
        },
        { key: START_CLAIM_TAG, value: configHash(startConfig) },
      );
      let results: SplitResults;
      if ('finished' in claim) {
        const metrics = o.store.getRun(claim.finished.id).metrics;
        results = Object.fromEntries(
          settings.splits.map((split) => [
            split,
            { avg: metrics[startKeys(split).avg] ?? NaN, pass: metrics[startKeys(split).pass] ?? NaN },
          ]),
        );
        process.stderr.write(`finetune: base model of ${bed.name}, seed ${seed}: reused run ${claim.finished.id}\n`);
      } else {
        model ??= data.loadModel();
        results = await evaluateSplits(model, data.evalSplits, settings, seed);
        if ('run' in claim) {
          for (const [split, r] of Object.entries(results))
            claim.run.logMetrics({ [startKeys(split).avg]: r.avg, [startKeys(split).pass]: r.pass }, 0);
          claim.run.finish();
        }
        process.stderr.write(`finetune: base model of ${bed.name} evaluated for seed ${seed}\n`);
      }
      o.run.setTags({
        [`start.${bed.name}.seed${seed}`]: 'run' in claim ? claim.run.id : 'finished' in claim ? claim.finished.id : claim.running.id,
      });
      for (const [split, r] of Object.entries(results)) o.run.logMetrics({ [baseKey(split, testBed)]: r.avg }, i);
      out.set(seed, results);
    }
  } finally {
    model?.dispose();
  }
  return out;
}

interface FinetuneComputeOptions {
  store: Store;
  run: Run;
  config: FinetuneConfig;
  /** sha256 of a checkpoint's weights, by its path. */
  checkpointHash: (checkpoint: string) => string;
  backend: BackendInfo;
  /** Injected in tests (a fake trainer); default trains with the real model. */
  train?: ChildTrainer;
  data?: ChildData;
  log?: (line: string) => void;
}

/** A FINISHED child's validation curve by plan key (through the parent's child tags), else null. */
function curveLookup(store: Store, parent: Run): (key: string) => ReturnType<typeof validationCurve> | null {
  return (key) => {
    const id = store.getRun(parent.id).tags[`${CHILD_TAG_PREFIX}${key}`];
    if (!id) return null;
    return store.getRun(id).status === 'FINISHED' ? validationCurve(store, id) : null;
  };
}

/** Runs the search until no new choice can be made; returns the choices (recorded as parent tags `chosen.<bed>.<method>`). */
async function runSearch(
  o: FinetuneComputeOptions,
  run: (plans: ChildPlan[]) => Promise<ChildrenOutcome>,
  codeHash: string,
): Promise<Choices> {
  let choices: Choices = {};
  for (;;) {
    const candidates = planSearch(o.config, o.checkpointHash, codeHash, choices);
    const plans = candidates.flatMap((c) => c.plans);
    if (plans.length > 0) await run(plans);
    const next = chooseSettings(candidates, curveLookup(o.store, o.run), o.config.search.lastPoints).choices;
    if (canonicalJson(next) === canonicalJson(choices)) break;
    choices = next;
  }
  for (const [bed, methods] of Object.entries(choices))
    for (const [method, setting] of Object.entries(methods)) {
      o.run.setTags({ [`chosen.${bed}.${method}`]: JSON.stringify(setting) });
      (o.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(
        `finetune ${o.run.id}: ${bed}.${method} chosen on validation: lr ${setting.lr}${method === 'grpo-ref-sft' ? `, λ ${setting.referenceSft}` : ''}`,
      );
    }
  return choices;
}

export async function computeFinetune(o: FinetuneComputeOptions): Promise<ChildrenOutcome> {
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (const line of budgetLines(budgetRows(o.config, o.store))) log(line);
  const codeHash = finetuneCodeHash();
  let train = o.train;
  if (!train) {
    const byCheckpoint = new Map<string, ChildData>();
    const sizes = childSizes(o.config);
    for (const bed of testBeds(o.config)) {
      const data =
        o.data ??
        loadChildData(bed.checkpoint, path.resolve(repoRoot(), bed.checkpoint), {
          datasetSeed: o.config.data.datasetSeed,
          trainProblems: o.config.data.trainProblems,
          validationProblems: sizes.validation.problems,
          evaluation: sizes.evaluation,
        });
      const start = await evaluateBase(o, data, bed, codeHash);
      byCheckpoint.set(bed.checkpoint, { ...data, start });
    }
    train = (run, config, label) => trainChild(run, config, byCheckpoint.get(config.checkpoint)!, label);
  }
  const trainer = train;
  const run = (plans: ChildPlan[]) =>
    runChildren({
      store: o.store,
      parent: o.run,
      plans,
      train: trainer,
      backend: o.backend,
      context: captureRunContext({ backend: o.backend, argv: process.argv }),
      tags: { ...codeStateTags(), checkpointHash: o.checkpointHash(o.config.checkpoint), checkpointHashCovers: CHECKPOINT_HASH_COVERS },
      log,
    });
  const choices = await runSearch(o, run, codeHash);
  const outcome = await run(planChildren(o.config, o.checkpointHash, codeHash, choices));
  logSummary(o.store, o.run);
  return outcome;
}

/** The table's "mean over splits" per test bed, method and checkpoint, as parent-run metrics (what a sweep report shows). */
function logSummary(store: Store, run: Run): void {
  for (const summary of summarize(loadFinetuneRun(store, run.id))) {
    for (const row of summary.evalRows) {
      if (row.checkpoint === 'start') continue;
      run.logMetrics({ [summaryKey(row.checkpoint, row.method as Method, summary.primary ? null : summary.testBed)]: row.cells.mean.mean });
    }
  }
}
