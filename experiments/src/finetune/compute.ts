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
import { captureRunContext, type BackendInfo, type Run, type Store } from '@rred/results-store';
import { codeStateTags } from '../common/code-state';
import { CHECKPOINT_HASH_COVERS } from '../common/model';
import { budgetLines, budgetRows } from './budget';
import { evalSettings, trainChild, type ChildData } from './child';
import { loadChildData } from './child-data';
import { evaluateSplits, type SplitResults } from './evaluate';
import { CHILD_TAG_PREFIX, runChildren, type ChildrenOutcome, type ChildTrainer } from './children';
import { finetuneCodeHash } from './code-identity';
import type { FinetuneConfig, Method } from './config';
import { baseKey, summaryKey } from './keys';
import { loadFinetuneRun, validationCurve } from './load';
import { childSizes, planChildren, planSearch, testBeds, type ChildPlan, type Choices } from './plan';
import { chooseSettings } from './search';
import { summarize } from './summary';

/** The eval settings every child of a config shares (the parent's start evaluation uses them). */
const sharedEvalSettings = (config: FinetuneConfig) =>
  evalSettings({ ...childSizes(config), grpo: config.grpo } as Parameters<typeof evalSettings>[0]);

/** avg@k of the starting model of a test bed on each eval split, by seed, with the same draws a child's eval uses for that seed. */
async function evaluateBase(run: Run, config: FinetuneConfig, data: ChildData, testBed: string | null): Promise<Map<number, SplitResults>> {
  const settings = sharedEvalSettings(config);
  const model = data.loadModel();
  const out = new Map<number, SplitResults>();
  try {
    for (const [i, seed] of config.seeds.entries()) {
      const results = await evaluateSplits(model, data.evalSplits, settings, seed);
      for (const [split, r] of Object.entries(results)) run.logMetrics({ [baseKey(split, testBed)]: r.avg }, i);
      out.set(seed, results);
      process.stderr.write(`finetune: base model${testBed === null ? '' : ` of ${testBed}`} evaluated for seed ${seed}\n`);
    }
  } finally {
    model.dispose();
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
      const start = await evaluateBase(o.run, o.config, data, bed.primary ? null : bed.name);
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
