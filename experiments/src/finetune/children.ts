/**
 * Runs the planned children of a finetune parent run. Resumable: a child whose config hash already has
 * a FINISHED finetune run is reused (recorded on the parent, not trained again). The parent records
 * every child's run id as tag `child.<method>.seed<k>`, so the renderer finds reused children too.
 * A failing child is marked FAILED and fails the parent (a table with a missing run would mislead);
 * a rerun reuses what finished. SIGINT/SIGTERM marks the running child KILLED before the parent's handler
 * (withRun) marks the parent and exits.
 */
import { formatSeconds } from '@rred/core';
import type { BackendInfo, Run, RunContext, Store } from '@rred/results-store';
import type { ChildConfig, ChildPlan } from './plan';

export const FINETUNE_EXPERIMENT = 'finetune';

export type ChildTrainer = (run: Run, config: ChildConfig, label: string) => Promise<void>;

interface ChildrenOptions {
  store: Store;
  parent: Run;
  plans: readonly ChildPlan[];
  train: ChildTrainer;
  backend: BackendInfo;
  context: RunContext;
  tags?: Record<string, string>;
  log?: (line: string) => void;
}

export interface ChildrenOutcome {
  /** Child run id per plan key, in plan order. */
  children: Record<string, string>;
  ran: string[];
  reused: string[];
}

export const CHILD_TAG_PREFIX = 'child.';

export async function runChildren(opts: ChildrenOptions): Promise<ChildrenOutcome> {
  const { store, parent, plans } = opts;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const outcome: ChildrenOutcome = { children: {}, ran: [], reused: [] };
  let current: Run | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (current?.isOpen) current.kill(`received ${signal}`);
  };
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  const started = Date.now();
  let trained = 0;
  try {
    for (const [i, plan] of plans.entries()) {
      const done = store.findFinishedRunByConfigHash(FINETUNE_EXPERIMENT, plan.configHash);
      if (done && done.parentRunId !== null) {
        outcome.children[plan.key] = done.id;
        outcome.reused.push(done.id);
        parent.setTags({ [`${CHILD_TAG_PREFIX}${plan.key}`]: done.id });
        log(`finetune ${parent.id}: ${plan.key} already FINISHED as run ${done.id} (same config hash); reused`);
        continue;
      }
      const eta = trained > 0 ? formatSeconds(((Date.now() - started) / 1000 / trained) * (plans.length - i)) : '?';
      log(`finetune ${parent.id}: child ${i + 1}/${plans.length} (${plan.key}), ETA for the rest ${eta}`);
      const child = store.startRun({
        experiment: FINETUNE_EXPERIMENT,
        name: `finetune-${plan.key}`,
        config: plan.config as unknown as Record<string, unknown>,
        seed: plan.config.seed,
        backend: opts.backend,
        parentRunId: parent.id,
        context: opts.context,
        tags: { ...(opts.tags ?? {}), method: plan.config.method, childKey: plan.key },
      });
      current = child;
      parent.setTags({ [`${CHILD_TAG_PREFIX}${plan.key}`]: child.id });
      outcome.children[plan.key] = child.id;
      try {
        await opts.train(child, plan.config, `${plan.key} (${i + 1}/${plans.length})`);
      } catch (err) {
        if (child.isOpen) child.fail(err);
        throw err;
      }
      if (child.isOpen) child.finish();
      outcome.ran.push(child.id);
      current = null;
      trained++;
      await new Promise<void>((resolve) => setImmediate(resolve)); // a pending SIGINT is handled here
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  parent.logMetrics({ children: plans.length, ran: outcome.ran.length, reused: outcome.reused.length });
  return outcome;
}
