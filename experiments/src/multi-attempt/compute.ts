/**
 * The parent run: plans one child per (arm, seed) plus the start evaluation, trains or reuses each (a child
 * whose config hash has a FINISHED run is reused, so an interrupted comparison resumes where it stopped; a
 * child is started through `store.claimRun`, so two invocations never train one twice), records every child's
 * id as tag `child.<key>`, then the per-arm summary.
 */
import { formatSeconds, mean, yieldToEventLoop } from '@rred/core';
import { buildDatasets, type TaskRecord } from '@rred/tasks';
import { configHash, type BackendInfo, type Run, type Store } from '@rred/results-store';
import { loadSplit } from '../common/rollouts';
import type { ChildConfig, ChildInputs } from './child';
import { runChild } from './child';
import type { MultiAttemptExperimentConfig } from './config';

export const MULTI_ATTEMPT_EXPERIMENT = 'multi-attempt';
export const CHILD_TAG_PREFIX = 'child.';
const CLAIM_TAG = 'childConfigHash';
const POLL_MS = 10_000;

interface ChildPlan {
  key: string;
  config: ChildConfig;
  hash: string;
}

function planChildren(config: MultiAttemptExperimentConfig, checkpointHash: string): ChildPlan[] {
  const base = { checkpointHash, train: config.train, data: config.data, evaluation: config.evaluation };
  const plans: ChildPlan[] = [];
  const add = (key: string, c: ChildConfig) => plans.push({ key, config: c, hash: configHash(c) });
  add('start', { ...base, kind: 'start', arm: null, seed: config.seeds[0], segmentation: null, rredcot: null });
  for (const arm of config.arms)
    for (const seed of config.seeds) {
      const rredcot = arm === 'cal-rredcot';
      add(`${arm}.seed${seed}`, {
        ...base,
        kind: 'train',
        arm,
        seed,
        segmentation: rredcot ? config.segmentation : null,
        rredcot: rredcot ? config.rredcot : null,
      });
    }
  return plans;
}

/** Train prompts: train-split problems with ≤ maxSteps steps (the held-out splits are never drawn from). */
export function trainRecords(config: MultiAttemptExperimentConfig): TaskRecord[] {
  const train = buildDatasets(config.data.datasetSeed, { train: config.data.trainProblems }).train;
  return train.filter((r) => Number(r.meta.steps) <= config.data.maxSteps);
}

export async function computeMultiAttempt(opts: {
  store: Store;
  run: Run;
  config: MultiAttemptExperimentConfig;
  checkpointHash: string;
  backend: BackendInfo;
}): Promise<void> {
  const { store, run, config } = opts;
  const plans = planChildren(config, opts.checkpointHash);
  const inputs: ChildInputs = {
    checkpoint: config.checkpoint,
    train: trainRecords(config),
    heldOut: loadSplit(config.evaluation.split, config.evaluation.problems),
  };
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(
    `multi-attempt ${run.id}: ${plans.length} children (${inputs.train.length} train prompts, ${inputs.heldOut.length} held-out problems)`,
  );
  const started = Date.now();
  let trained = 0;
  let pending = plans;
  let current: Run | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (current?.isOpen) current.kill(`received ${signal}`);
  };
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  try {
    while (pending.length > 0) {
      const later: ChildPlan[] = [];
      for (const plan of pending) {
        const claim = claimChild(store, run, plan, opts.backend);
        if ('finished' in claim) {
          run.setTags({ [`${CHILD_TAG_PREFIX}${plan.key}`]: claim.finished.id });
          log(`multi-attempt ${run.id}: ${plan.key} already FINISHED as run ${claim.finished.id} (same config); reused`);
          continue;
        }
        if ('running' in claim) {
          later.push(plan);
          log(`multi-attempt ${run.id}: ${plan.key} is being trained by run ${claim.running.id}; left for later`);
          continue;
        }
        const left = pending.length - pending.indexOf(plan);
        const eta = trained > 0 ? formatSeconds(((Date.now() - started) / 1000 / trained) * left) : '?';
        log(`multi-attempt ${run.id}: ${plan.key} (${left} left, ETA ${eta})`);
        current = claim.run;
        run.setTags({ [`${CHILD_TAG_PREFIX}${plan.key}`]: claim.run.id });
        try {
          await runChild(claim.run, plan.config, inputs, plan.key);
        } catch (err) {
          if (claim.run.isOpen) claim.run.fail(err);
          throw err;
        }
        if (claim.run.isOpen) claim.run.finish();
        current = null;
        trained += 1;
        await yieldToEventLoop();
      }
      pending = later;
      if (pending.length > 0) await new Promise<void>((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  logArmMeans(store, run, config);
}

/** Claims a child's run by its config hash: a finished one is reused, a running one is left for later. */
function claimChild(store: Store, run: Run, plan: ChildPlan, backend: BackendInfo) {
  return store.claimRun(
    {
      experiment: MULTI_ATTEMPT_EXPERIMENT,
      name: `multi-attempt-${plan.key}`,
      config: plan.config as unknown as Record<string, unknown>,
      seed: plan.config.seed,
      backend,
      parentRunId: run.id,
      context: store.getRun(run.id).context,
      tags: { childKey: plan.key, arm: plan.config.arm ?? 'start' },
    },
    { key: CLAIM_TAG, value: plan.hash },
  );
}

/** The parent run's metric per arm: the mean over seeds of the children's held-out Verification@K. */
function logArmMeans(store: Store, run: Run, config: MultiAttemptExperimentConfig): void {
  const tags = store.getRun(run.id).tags;
  for (const arm of config.arms) {
    const values = config.seeds.map(
      (s) => store.getRun(tags[`${CHILD_TAG_PREFIX}${arm}.seed${s}`]).metrics['heldOut.verificationAtK'] ?? NaN,
    );
    run.logMetrics({ [`heldOut.verificationAtK.${arm}`]: mean(values) });
  }
}
