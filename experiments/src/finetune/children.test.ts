/**
 * runChildren claims each child by its config hash: two invocations of the same plans on one store
 * (e.g. one per core) train every child exactly once, each waiting for the ones the other holds; a
 * child whose holder ended FAILED is trained by the one still running.
 */
import * as path from 'path';
import { configHash, openStore, type Run, type Store } from '@rred/results-store';
import { FIXED_CONTEXT, tempDir } from '@rred/results-store/testing';
import { CHILD_CLAIM_TAG, FINETUNE_EXPERIMENT, runChildren, type ChildTrainer } from './children';
import type { ChildConfig } from './child-config';
import type { ChildPlan } from './plan';

const backend = { backend: 'cpu', openblasThreads: null };

function plansOf(keys: string[]): ChildPlan[] {
  return keys.map((key, seed) => {
    const config = { method: 'grpo', seed, key } as unknown as ChildConfig; // the trainer below reads only seed
    return { key, config, configHash: configHash(config) };
  });
}

function parentRun(store: Store): Run {
  return store.startRun({ experiment: FINETUNE_EXPERIMENT, config: { parent: true }, backend, context: FIXED_CONTEXT });
}

/** A trainer that records what it trained and takes `ms` per child, so two invocations interleave. */
function slowTrainer(trained: string[], ms: number, failOn?: string): ChildTrainer {
  return async (run, config, label) => {
    trained.push(label.split(' ')[0]);
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (label.startsWith(`${failOn} `)) throw new Error(`fake failure in ${failOn}`);
    run.logMetrics({ seed: config.seed });
  };
}

describe('runChildren claims', () => {
  let store: Store;
  beforeEach(() => {
    store = openStore(path.join(tempDir('children'), 'store.sqlite'));
  });
  afterEach(() => store.close());

  it('two concurrent invocations train each child once and both record every child', async () => {
    const plans = plansOf(['a', 'b', 'c', 'd', 'e']);
    const [p1, p2] = [parentRun(store), parentRun(store)];
    const [t1, t2]: string[][] = [[], []];
    const quiet = () => {};
    const [o1, o2] = await Promise.all([
      runChildren({ store, parent: p1, plans, train: slowTrainer(t1, 30), backend, context: FIXED_CONTEXT, log: quiet, pollMs: 10 }),
      runChildren({ store, parent: p2, plans, train: slowTrainer(t2, 30), backend, context: FIXED_CONTEXT, log: quiet, pollMs: 10 }),
    ]);
    expect([...t1, ...t2].sort()).toEqual(['a', 'b', 'c', 'd', 'e']); // each trained once, by one of them
    expect(t1.length).toBeGreaterThan(0);
    expect(t2.length).toBeGreaterThan(0);
    expect(o1.children).toEqual(o2.children); // both hold the same run per child
    expect(Object.keys(o1.children)).toEqual(['a', 'b', 'c', 'd', 'e']); // in plan order
    expect(o1.ran.length + o2.ran.length).toBe(5);
    const children = store.listRuns({ experiment: FINETUNE_EXPERIMENT }).filter((r) => r.parentRunId !== null);
    expect(children).toHaveLength(5);
    expect(children.every((r) => r.status === 'FINISHED')).toBe(true);
    expect(children.map((r) => store.getRun(r.id).tags[CHILD_CLAIM_TAG]).sort()).toEqual(plans.map((p) => p.configHash).sort());
  });

  it('a child whose holder failed is trained by the other invocation, which waited for it', async () => {
    const plans = plansOf(['a', 'b']);
    const [p1, p2] = [parentRun(store), parentRun(store)];
    const [t1, t2]: string[][] = [[], []];
    const lines: string[] = [];
    const first = runChildren({
      store,
      parent: p1,
      plans,
      train: slowTrainer(t1, 40, 'a'),
      backend,
      context: FIXED_CONTEXT,
      log: () => {},
      pollMs: 10,
    });
    const second = runChildren({
      store,
      parent: p2,
      plans,
      train: slowTrainer(t2, 5),
      backend,
      context: FIXED_CONTEXT,
      log: (l) => lines.push(l),
      pollMs: 10,
    });
    await expect(first).rejects.toThrow('fake failure in a');
    const o2 = await second;
    expect(t1).toEqual(['a']);
    expect(t2).toEqual(['b', 'a']); // b first (a was held), then a once its holder had failed
    expect(lines.some((l) => /a is being trained by run \w+ .*left for later/.test(l))).toBe(true);
    expect(store.getRun(o2.children.a).status).toBe('FINISHED');
  });
});
