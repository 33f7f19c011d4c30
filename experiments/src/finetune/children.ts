/**
 * Runs the planned children of a finetune parent run. Resumable: a child whose config hash already has
 * a FINISHED finetune run is reused (recorded on the parent, not trained again). The parent records
 * every child's run id as tag `child.<method>.seed<k>`, so the renderer finds reused children too.
 * A failing child is marked FAILED and fails the parent (a table with a missing run would mislead);
 * a rerun reuses what finished. Claimed: a child run starts only through `store.claimRun` on its config
 * hash (one transaction), so two invocations of the same config (e.g. one per core) never train a child
 * twice: each goes on with the others and then waits for the ones the other holds, reusing them when
 * they finish and training one itself if its holder dies or ends FAILED/KILLED (as a sweep does).
 * SIGINT/SIGTERM marks the running child KILLED before the parent's handler (withRun) marks the parent
 * and exits.
 */
import { formatSeconds, yieldToEventLoop } from '@rred/core';
import type { BackendInfo, Run, RunContext, Store } from '@rred/results-store';
import type { ChildConfig } from './child-config';
import type { ChildPlan } from './plan';

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
  /** How long to wait (ms) before looking again at children another process is training. Default 10 000. */
  pollMs?: number;
}

export interface ChildrenOutcome {
  /** Child run id per plan key, in plan order. */
  children: Record<string, string>;
  ran: string[];
  reused: string[];
}

export const CHILD_TAG_PREFIX = 'child.';

/** Tag on every child run: its config hash, the value it is claimed by (`store.claimRun`). */
export const CHILD_CLAIM_TAG = 'childConfigHash';

type ChildClaim = { child: Run } | { finished: string } | { running: { id: string; pid: number; hostname: string } };

/**
 * The child run this process trains, the FINISHED run to reuse (found by config hash, so children
 * from before claims existed are reused too), or the live RUNNING run of another process to wait for.
 */
function claimChild(opts: ChildrenOptions, plan: ChildPlan): ChildClaim {
  const { store, parent } = opts;
  const done = store.findFinishedRunByConfigHash(FINETUNE_EXPERIMENT, plan.configHash);
  if (done && done.parentRunId !== null) return { finished: done.id };
  const claim = store.claimRun(
    {
      experiment: FINETUNE_EXPERIMENT,
      name: `finetune-${plan.key}`,
      config: plan.config as unknown as Record<string, unknown>,
      seed: plan.config.seed,
      backend: opts.backend,
      parentRunId: parent.id,
      context: opts.context,
      tags: { ...(opts.tags ?? {}), method: plan.config.method, childKey: plan.key },
    },
    { key: CHILD_CLAIM_TAG, value: plan.configHash },
  );
  if ('run' in claim) return { child: claim.run };
  if ('finished' in claim) return { finished: claim.finished.id };
  return { running: claim.running };
}

export async function runChildren(opts: ChildrenOptions): Promise<ChildrenOutcome> {
  const { parent, plans } = opts;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pollMs = opts.pollMs ?? 10_000;
  const ids = new Map<string, string>();
  const outcome: ChildrenOutcome = { children: {}, ran: [], reused: [] };
  let current: Run | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (current?.isOpen) current.kill(`received ${signal}`);
  };
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  const started = Date.now();
  let trained = 0;
  const record = (plan: ChildPlan, id: string) => {
    ids.set(plan.key, id);
    parent.setTags({ [`${CHILD_TAG_PREFIX}${plan.key}`]: id });
  };
  try {
    // Children another process is training (a second invocation of the same config) wait in `pending`.
    let pending = plans.map((plan, i) => ({ plan, i }));
    const waitingOn = new Map<string, string>();
    while (pending.length > 0) {
      const later: typeof pending = [];
      for (const { plan, i } of pending) {
        const claim = claimChild(opts, plan);
        if ('finished' in claim) {
          record(plan, claim.finished);
          outcome.reused.push(claim.finished);
          log(`finetune ${parent.id}: ${plan.key} already FINISHED as run ${claim.finished} (same config hash); reused`);
          continue;
        }
        if ('running' in claim) {
          later.push({ plan, i });
          if (waitingOn.get(plan.key) !== claim.running.id)
            log(
              `finetune ${parent.id}: ${plan.key} is being trained by run ${claim.running.id} (pid ${claim.running.pid} on ${claim.running.hostname}); left for later`,
            );
          waitingOn.set(plan.key, claim.running.id);
          continue;
        }
        const eta = trained > 0 ? formatSeconds(((Date.now() - started) / 1000 / trained) * (plans.length - i)) : '?';
        log(`finetune ${parent.id}: child ${i + 1}/${plans.length} (${plan.key}), ETA for the rest ${eta}`);
        const child = claim.child;
        current = child;
        record(plan, child.id);
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
        await yieldToEventLoop(); // a pending SIGINT is handled here
      }
      pending = later;
      if (pending.length > 0) await new Promise<void>((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  for (const plan of plans) outcome.children[plan.key] = ids.get(plan.key)!;
  parent.logMetrics({ children: plans.length, ran: outcome.ran.length, reused: outcome.reused.length });
  return outcome;
}
