/**
 * Sweep resume / skip / failure / SIGINT logic with a cheap fake experiment on a temporary store
 * (no model): every point's compute is counted, so we can assert exactly what ran on a restart.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from '@rred/core';
import { openStore, type Store } from '@rred/results-store';
import { z } from 'zod';
import type { ExperimentDefinition } from '../experiments/src/common/experiment';
import { expandGrid, gridSpecSchema } from '../experiments/src/sweep/grid';
import { runSweep } from '../experiments/src/sweep/run-sweep';
import { renderSweep } from '../experiments/src/sweep/render';
import { fakeExperiment } from './fixtures/fake-experiment';

const schema = z
  .object({
    seed: z.number().int().default(1),
    a: z.number().int().default(0),
    b: z.enum(['x', 'y']).default('x'),
  })
  .strict();
type Fake = z.infer<typeof schema>;

interface Behaviour {
  calls: string[];
  failOn: string | null;
  interruptOn: string | null;
}

function fakeExperimentOf(behaviour: Behaviour): ExperimentDefinition<typeof schema> {
  return fakeExperiment('fake', schema, async ({ run, config, rng }) => {
    const key = `${config.a}-${config.b}`;
    behaviour.calls.push(key);
    if (key === behaviour.failOn) throw new Error(`fake failure at ${key}`);
    if (key === behaviour.interruptOn) process.emit('SIGINT', 'SIGINT');
    run.logMetrics({ score: config.a * 10 + (config.b === 'y' ? 1 : 0), draw: rng.next() });
  });
}

const spec = gridSpecSchema.parse({ experiment: 'fake', base: { seed: 3 }, grid: { a: [1, 2], b: ['x', 'y'] } });

describe('sweep', () => {
  let dir: string;
  let store: Store;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-sweep-'));
    store = openStore(path.join(dir, 'store.sqlite'));
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const run = (behaviour: Behaviour, exit = jest.fn()) => {
    const def = fakeExperimentOf(behaviour) as unknown as ExperimentDefinition;
    const points = expandGrid(def, spec, {}, 'grid.json');
    return {
      exit,
      promise: runSweep({ store, def, spec, points, backend: { backend: 'cpu', openblasThreads: null }, exit, log: () => undefined }),
    };
  };

  it('rejects a bad grid point before anything is written', () => {
    const def = fakeExperimentOf({ calls: [], failOn: null, interruptOn: null }) as unknown as ExperimentDefinition;
    const bad = gridSpecSchema.parse({ experiment: 'fake', grid: { a: [1], b: ['x', 'z'] } });
    expect(() => expandGrid(def, bad, {}, 'bad.json')).toThrow(UserError);
    expect(() => expandGrid(def, bad, {}, 'bad.json')).toThrow(/point 1 \(a=1, b=z\)/);
    const unknownKey = gridSpecSchema.parse({ experiment: 'fake', grid: { c: [1] } });
    expect(() => expandGrid(def, unknownKey, {}, 'bad.json')).toThrow(/unknown key 'c'/);
    expect(store.listRuns()).toHaveLength(0);
  });

  it('records a failed point and goes on; a restart runs only the failed point', async () => {
    const first: Behaviour = { calls: [], failOn: '1-y', interruptOn: null };
    const out1 = await run(first).promise;
    expect(first.calls).toEqual(['1-x', '1-y', '2-x', '2-y']);
    expect(out1.failed).toHaveLength(1);
    expect(out1.ran).toHaveLength(3);
    expect(store.getRun(out1.failed[0]).status).toBe('FAILED');
    expect(store.getRun(out1.failed[0]).failure).toMatch(/fake failure at 1-y/);
    const parent1 = store.getRun(out1.parentId);
    expect(parent1.status).toBe('FAILED');
    expect(parent1.failure).toBe(`1 of 4 points failed: runs ${out1.failed[0]}`);
    expect(parent1.metrics.failed).toBe(1);
    expect(store.listRuns({ parentRunId: out1.parentId })).toHaveLength(4);

    const second: Behaviour = { calls: [], failOn: null, interruptOn: null };
    const out2 = await run(second).promise;
    expect(second.calls).toEqual(['1-y']);
    expect(out2.reused.sort()).toEqual([...out1.ran].sort());
    expect(out2.ran).toHaveLength(1);
    expect(store.getRun(out2.parentId).status).toBe('FINISHED');

    // the report finds every point's FINISHED run whichever sweep attempt produced it
    const files = await renderSweep(store, out2.parentId, ['score'], path.join(dir, 'report'));
    const csv = fs
      .readFileSync(files[1], 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(csv[0]).toBe('a,b,run,score');
    expect(csv.slice(1).map((l) => l.split(',').pop())).toEqual(['10', '11', '20', '21']);
  });

  it('SIGINT marks the current child and the parent KILLED and stops; a restart finishes only the missing points', async () => {
    const first: Behaviour = { calls: [], failOn: null, interruptOn: '2-x' };
    const { exit, promise } = run(first);
    const out1 = await promise;
    expect(exit).toHaveBeenCalledWith(130);
    expect(out1.killed).toBe(true);
    expect(first.calls).toEqual(['1-x', '1-y', '2-x']);
    expect(store.getRun(out1.parentId).status).toBe('KILLED');
    const children = store.listRuns({ parentRunId: out1.parentId });
    expect(children.map((c) => c.status).sort()).toEqual(['FINISHED', 'FINISHED', 'KILLED']);

    const second: Behaviour = { calls: [], failOn: null, interruptOn: null };
    const out2 = await run(second).promise;
    expect(second.calls).toEqual(['2-x', '2-y']);
    expect(out2.reused).toHaveLength(2);
    expect(store.getRun(out2.parentId).status).toBe('FINISHED');
  });

  it("a KILLED sweep's report shows only the runs that sweep recorded, and later sweeps never change it", async () => {
    const first: Behaviour = { calls: [], failOn: null, interruptOn: '1-y' };
    const out1 = await run(first).promise;
    expect(out1.killed).toBe(true);
    const report = async (sweepId: string, sub: string) => {
      const files = await renderSweep(store, sweepId, ['score'], path.join(dir, sub));
      return files.filter((f) => !f.endsWith('.png')).map((f) => fs.readFileSync(f, 'utf8'));
    };
    const before = await report(out1.parentId, 'before');
    expect(before[0]).toMatch(/1 of 4 points have a FINISHED run/);
    const rows = (csv: string) =>
      csv
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .slice(1);
    const killed = store.listRuns({ parentRunId: out1.parentId }).find((r) => r.status === 'KILLED')!;
    expect(rows(before[1])).toEqual([`1,x,${out1.ran[0]},10`, `1,y,missing (KILLED ${killed.id}),`, '2,x,missing,', '2,y,missing,']);
    // A later, unrelated sweep of the same grid finishes every point (same config hashes).
    const second = await run({ calls: [], failOn: null, interruptOn: null }).promise;
    expect(second.ran).toHaveLength(3);
    expect(await report(out1.parentId, 'after')).toEqual(before);
    // The later sweep's own report credits it with what it ran and what it reused, by id.
    expect((await report(second.parentId, 'second'))[0]).toMatch(/4 of 4 points have a FINISHED run/);
  });
});
