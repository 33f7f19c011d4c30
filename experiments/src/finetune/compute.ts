/**
 * The finetune target: base-model avg@k on the eval splits (once per seed, on the parent run), then one
 * child run per (method, seed) — trained here or reused when an identical child already FINISHED.
 */
import * as path from 'path';
import { repoRoot } from '@rred/core';
import { TransformerLM } from '@rred/lm';
import { captureRunContext, type BackendInfo, type Run, type Store } from '@rred/results-store';
import { buildDatasets, type TaskRecord } from '@rred/tasks';
import { codeStateTags } from '../common/code-state';
import { CHECKPOINT_HASH_COVERS } from '../common/model';
import { loadSplit } from '../common/rollouts';
import { evalSettings, trainChild, type ChildData } from './child';
import { evaluateSplits, type SplitResults } from './evaluate';
import { runChildren, type ChildrenOutcome, type ChildTrainer } from './children';
import type { FinetuneConfig, Method } from './config';
import { baseKey, summaryKey } from './keys';
import { loadFinetuneRun } from './load';
import { planChildren, testBeds } from './plan';
import { summarize } from './summary';

/** Problems of every split the target touches, read once (sizes after scale, identical for all children). */
function loadChildData(config: FinetuneConfig, checkpointFile: string): ChildData {
  const plan = planChildren(config, '', '')[0].config;
  const evalSplits: Record<string, readonly TaskRecord[]> = {};
  for (const split of plan.evaluation.splits) evalSplits[split] = loadSplit(split, plan.evaluation.problems);
  return {
    loadModel: () => TransformerLM.fromCheckpoint(checkpointFile),
    train: buildDatasets(config.data.datasetSeed, { train: config.data.trainProblems }).train,
    validation: loadSplit('validation', plan.validation.problems),
    evalSplits,
  };
}

/** avg@k of the starting model of a test bed on each eval split, by seed, with the same draws a child's eval uses for that seed. */
async function evaluateBase(run: Run, config: FinetuneConfig, data: ChildData, testBed: string | null): Promise<Map<number, SplitResults>> {
  const settings = evalSettings(planChildren(config, '', '')[0].config);
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
}

export async function computeFinetune(o: FinetuneComputeOptions): Promise<ChildrenOutcome> {
  const plans = planChildren(o.config, o.checkpointHash);
  let train = o.train;
  if (!train) {
    const byCheckpoint = new Map<string, ChildData>();
    for (const bed of testBeds(o.config)) {
      const data = o.data ?? loadChildData(o.config, path.resolve(repoRoot(), bed.checkpoint));
      const start = await evaluateBase(o.run, o.config, data, bed.primary ? null : bed.name);
      byCheckpoint.set(bed.checkpoint, { ...data, start });
    }
    train = (run, config, label) => trainChild(run, config, byCheckpoint.get(config.checkpoint)!, label);
  }
  const outcome = await runChildren({
    store: o.store,
    parent: o.run,
    plans,
    train,
    backend: o.backend,
    context: captureRunContext({ backend: o.backend, argv: process.argv }),
    tags: { ...codeStateTags(), checkpointHash: o.checkpointHash(o.config.checkpoint), checkpointHashCovers: CHECKPOINT_HASH_COVERS },
  });
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
