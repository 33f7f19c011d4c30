import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { UserError } from '@rred/core';
import { configHash, openStore } from './store';
import { withRun } from './with-run';
import { FIXED_CONTEXT, sampleBundle, tempDir } from '../testing';
import { rawSql } from './testing-helpers';

const backend = { backend: 'cpu', openblasThreads: null };

function fresh(label: string, opts = {}) {
  const file = path.join(tempDir(label), 'store.sqlite');
  return { file, store: openStore(file, opts) };
}

function count(store: ReturnType<typeof openStore>, table: string): number {
  return store.tableCounts()[table];
}

/** A pid that certainly belongs to no live process: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid as number;
}

describe('results store', () => {
  it('records a run with params, metrics, tags and context, and reads it back', () => {
    const { store } = fresh('basic');
    const config = { seed: 7, seg: { k: 8, strategy: 'hybrid' }, lr: 1e-3 };
    const run = store.startRun({ experiment: 'mc-variance', config, backend, tags: { stage: 'dev' }, context: FIXED_CONTEXT });
    run.logMetrics({ acc: 0.25, loss: 2 }, 0);
    run.logMetrics({ acc: 0.5, loss: 1 }, 1);
    run.finish();
    const got = store.getRun(run.id);
    expect(got.status).toBe('FINISHED');
    expect(got.seed).toBe(7);
    expect(got.params).toEqual({ seed: '7', 'seg.k': '8', 'seg.strategy': 'hybrid', lr: '0.001' });
    expect(got.metrics).toEqual({ acc: 0.5, loss: 1 });
    expect(got.tags).toEqual({ stage: 'dev' });
    expect(got.config).toEqual(config);
    expect(got.configHash).toBe(configHash({ lr: 1e-3, seg: { strategy: 'hybrid', k: 8 }, seed: 7 }));
    expect(got.context.backend).toBe('cpu');
    expect(store.metricHistory(run.id.slice(0, 5), 'acc').map((p) => p.value)).toEqual([0.25, 0.5]);
    expect(store.listRuns({ experiment: 'mc-variance', where: 'metrics.acc >= 0.5' }).map((r) => r.id)).toEqual([run.id]);
    expect(store.listRuns({ where: 'metrics.acc > 0.5' })).toEqual([]);
    store.close();
  });

  it('round-trips NaN, ±Infinity and -0 in metrics, rewards and estimates, and 5 MB of text', () => {
    const { file, store } = fresh('floats');
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    const specials = [NaN, Infinity, -Infinity, -0, 0, 1e-308];
    specials.forEach((v, step) => run.logMetric('m', v, step));
    const bundle = sampleBundle('t0', specials.length);
    bundle.trace.reward = -0;
    bundle.trace.text = 'x'.repeat(5 * 1024 * 1024 - 3) + 'end';
    bundle.trace.logprobs = bundle.trace.completion.map((_, i) => (i === 0 ? -Infinity : i === 1 ? NaN : -0));
    bundle.estimates = specials.map((v, i) => ({ exitPoint: i + 1, method: 'rredcot', value: v, credit: -v, sigma: i % 2 ? null : v }));
    run.writeTraceBundle(bundle);
    run.finish();
    store.close();

    const again = openStore(file);
    const history = again.metricHistory(run.id, 'm').map((p) => p.value);
    specials.forEach((v, i) => expect(Object.is(history[i], v)).toBe(true));
    const [t] = again.traces(run.id);
    expect(Object.is(t.trace.reward, -0)).toBe(true);
    expect(t.trace.text.length).toBe(5 * 1024 * 1024);
    expect(t.trace.text.endsWith('end')).toBe(true);
    expect(Object.is(t.trace.logprobs?.[0], -Infinity)).toBe(true);
    expect(Number.isNaN(t.trace.logprobs?.[1])).toBe(true);
    expect(Object.is(t.trace.logprobs?.[2], -0)).toBe(true);
    specials.forEach((v, i) => {
      const e = t.estimates[i];
      expect(Object.is(e.value, v)).toBe(true);
      expect(Object.is(e.credit, -v)).toBe(true);
      expect(e.sigma === null ? i % 2 === 1 : Object.is(e.sigma, v)).toBe(true);
    });
    again.close();
  });

  it('round-trips MC continuations in (exit point, sample) order and replaces them with their trace', () => {
    const { file, store } = fresh('continuations');
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    const bundle = sampleBundle('t', 2);
    bundle.continuations = [
      { exitPoint: 2, sample: 0, offset: 4, limit: -1, length: 0, truncated: true, utility: 0 },
      { exitPoint: 0, sample: 1, offset: 0, limit: 3, length: 3, truncated: true, utility: -0 },
      { exitPoint: 0, sample: 0, offset: 0, limit: 3, length: 2, truncated: false, utility: 1 },
    ];
    run.writeTraceBundle(bundle);
    run.fail('interrupted');
    store.close();
    const again = openStore(file);
    const [t] = again.traces(run.id);
    expect(t.continuations).toEqual([bundle.continuations[2], bundle.continuations[1], bundle.continuations[0]]);
    expect(Object.is(t.continuations[1].utility, -0)).toBe(true);
    const r2 = again.resumeRun(run.id);
    r2.writeTraceBundle({ ...bundle, continuations: [bundle.continuations[2]] });
    expect(again.traces(run.id)[0].continuations).toEqual([bundle.continuations[2]]);
    expect(count(again, 'continuations')).toBe(1);
    again.close();
  });

  it('overwrites a re-written (run, key, step) metric and a re-written trace key instead of duplicating', () => {
    const { store } = fresh('upsert');
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    run.logMetric('loss', 3, 5);
    run.logMetric('loss', 2, 5);
    run.writeTraceBundle(sampleBundle('t', 3));
    run.writeTraceBundle(sampleBundle('t', 2, 'mc'));
    expect(store.metricHistory(run.id, 'loss')).toEqual([expect.objectContaining({ step: 5, value: 2 })]);
    const traces = store.traces(run.id);
    expect(traces).toHaveLength(1);
    expect(traces[0].segments).toHaveLength(2);
    expect(traces[0].estimates.map((e) => e.method)).toEqual(['mc', 'mc']);
    expect(count(store, 'segments')).toBe(2);
    expect(count(store, 'estimates')).toBe(2);
    expect(count(store, 'estimator_costs')).toBe(1);
    expect(run.traceKeys()).toEqual(new Set(['t']));
    run.writeTraceBundle({
      ...sampleBundle('u', 2, 'rredcot'),
      estimates: [
        { exitPoint: 0, method: 'rredcot', value: 0.25 },
        { exitPoint: 2, method: 'rredcot', value: 0.5, credit: 0.25, sigma: 1 },
      ],
    });
    expect(store.estimateRows(run.id, 'rredcot')).toEqual([
      {
        traceKey: 'u',
        problemId: 'p-u',
        reward: 1,
        exitPoint: 0,
        start: null,
        end: null,
        method: 'rredcot',
        value: 0.25,
        credit: null,
        sigma: null,
      },
      { traceKey: 'u', problemId: 'p-u', reward: 1, exitPoint: 2, start: 2, end: 4, method: 'rredcot', value: 0.5, credit: 0.25, sigma: 1 },
    ]);
    expect(store.estimateRows(run.id).map((r) => r.method)).toEqual(['mc', 'mc', 'rredcot', 'rredcot']);
    expect(store.costRows(run.id).map((c) => [c.traceKey, c.method])).toEqual([
      ['t', 'mc'],
      ['u', 'rredcot'],
    ]);
    expect(run.lastStep('loss')).toBe(5);
    store.close();
  });

  it('writes nothing of a bundle that is malformed or fails half-way', () => {
    const { store } = fresh('atomic');
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    const gap = sampleBundle('gap');
    gap.segments[1].start += 1;
    expect(() => run.writeTraceBundle(gap)).toThrow(/segment 1 .* contiguously/);
    const badCost = sampleBundle('cost');
    badCost.costs = [{ method: 'x', tokensForwarded: 1, tokensGenerated: 0, forwardPasses: 1, wallMs: NaN }];
    expect(() => run.writeTraceBundle(badCost)).toThrow(/wallMs/);
    const badTokens = sampleBundle('tokens');
    badTokens.trace.completion[0] = 0.5;
    expect(() => run.writeTraceBundle(badTokens)).toThrow(/completion must be an array of integer/);
    const pastK = sampleBundle('pastK', 2);
    pastK.estimates = [{ exitPoint: 3, method: 'rredcot', value: 1 }];
    expect(() => run.writeTraceBundle(pastK)).toThrow(/exit point 3, expected 0\.\.2/);
    pastK.estimates = [{ exitPoint: -1, method: 'rredcot', value: 1 }];
    expect(() => run.writeTraceBundle(pastK)).toThrow(/exit point -1, expected 0\.\.2/);
    const offBy = sampleBundle('offset', 2);
    offBy.continuations = [{ exitPoint: 1, sample: 0, offset: 3, limit: 5, length: 1, truncated: false, utility: 1 }];
    expect(() => run.writeTraceBundle(offBy)).toThrow(/offset 3, but the segments put exit point 1 at 2/);
    offBy.continuations = [0, 0].map(() => ({ exitPoint: 1, sample: 0, offset: 2, limit: 5, length: 1, truncated: false, utility: 1 }));
    expect(() => run.writeTraceBundle(offBy)).toThrow(/\(exit point 1, sample 0\) given twice/);
    // Passes validation, then fails half-way through the transaction (after bundle 'ok' and the 'late'
    // trace row are written): a segment whose second read throws, standing in for an I/O error.
    const late = sampleBundle('late');
    const exploding = {
      start: 4,
      get end(): number {
        throw new Error('disk on fire');
      },
    };
    let reads = 0;
    Object.defineProperty(late.segments, 2, { get: () => (reads++ < 1 ? { start: 4, end: 6 } : exploding) });
    expect(() => run.writeTraceBundles([sampleBundle('ok'), late])).toThrow('disk on fire');
    for (const t of ['traces', 'segments', 'estimates', 'continuations', 'estimator_costs']) expect(count(store, t)).toBe(0);
    store.close();
  });

  it('marks FAILED a stale RUNNING run whose process is dead, and resumes it', () => {
    const { file, store } = fresh('stale');
    const run = store.startRun({ experiment: 'e', config: { a: 1 }, backend, context: FIXED_CONTEXT });
    run.writeTraceBundle(sampleBundle('t1'));
    run.detach(); // simulate the process vanishing: status stays RUNNING
    // A heartbeat 2 s old: no heartbeat has gone stale, yet the dead pid is reaped at once.
    rawSql(file, 'UPDATE runs SET pid = ?, heartbeat_time = heartbeat_time - 2000 WHERE id = ?', deadPid(), run.id);
    const lastBeat = store.getRun(run.id).heartbeatTime;
    const live = store.startRun({ experiment: 'e', config: { a: 2 }, backend, context: FIXED_CONTEXT });
    rawSql(file, 'UPDATE runs SET heartbeat_time = heartbeat_time - 120000 WHERE id = ?', live.id); // stale but alive (our pid)
    store.close();

    const again = openStore(file);
    expect(again.reaped).toEqual([run.id]);
    expect(again.getRun(run.id).status).toBe('FAILED');
    expect(again.getRun(run.id).failure).toMatch(/died/);
    expect(again.getRun(run.id).endTime).toBe(lastBeat); // ended when it was last seen alive, not when it was found
    expect(again.getRun(live.id).status).toBe('RUNNING');

    const resumed = again.resumeRun(run.id);
    expect(again.getRun(run.id)).toEqual(expect.objectContaining({ status: 'RUNNING', attempts: 2, endTime: null, pid: process.pid }));
    expect(() => again.resumeRun(run.id)).toThrow(/still RUNNING/);
    resumed.writeTraceBundle(sampleBundle('t1'));
    resumed.writeTraceBundle(sampleBundle('t2'));
    resumed.finish();
    expect(again.traces(run.id).map((t) => t.key)).toEqual(['t1', 't2']);
    expect(() => again.resumeRun(run.id)).toThrow(/already FINISHED/);
    again.close();
  });

  it('finds a FINISHED run by config hash so sweeps skip done configs', () => {
    const { store } = fresh('sweep');
    const parent = store.startRun({ experiment: 'sweep', config: { grid: 'g' }, backend, context: FIXED_CONTEXT });
    const done = store.startRun({ experiment: 'e', config: { k: 4 }, backend, parentRunId: parent.id, context: FIXED_CONTEXT });
    done.finish();
    const failed = store.startRun({ experiment: 'e', config: { k: 8 }, backend, parentRunId: parent.id, context: FIXED_CONTEXT });
    failed.fail(new Error('boom'));
    expect(store.findFinishedRunByConfigHash('e', configHash({ k: 4 }))?.id).toBe(done.id);
    expect(store.findFinishedRunByConfigHash('e', configHash({ k: 8 }))).toBeNull();
    expect(store.findFinishedRunByConfigHash('other', configHash({ k: 4 }))).toBeNull();
    expect(store.listRuns({ parentRunId: parent.id }).map((r) => r.id)).toEqual([done.id, failed.id]);
    expect(store.getRun(failed.id).failure).toBe('boom');
    store.close();
  });

  it('claims a run by tag: one holder at a time; a dead holder is released, FAILED and KILLED hold nothing', () => {
    const { file, store } = fresh('claim');
    const claim = { key: 'runIdentity', value: 'id-1' };
    const start = { experiment: 'e', config: { k: 1 }, backend, context: FIXED_CONTEXT };
    const first = store.claimRun(start, claim);
    if (!('run' in first)) throw new Error('expected the first claim to start a run');
    expect(store.getRun(first.run.id).tags.runIdentity).toBe('id-1');
    // Held by a live RUNNING run (this process, fresh heartbeat); another experiment or value is free.
    expect(store.claimRun(start, claim)).toEqual({ running: expect.objectContaining({ id: first.run.id }) });
    const other = store.claimRun({ ...start, experiment: 'f' }, claim);
    expect('run' in other).toBe(true);
    // Its process dies: the next claim marks it FAILED and takes the claim.
    first.run.detach();
    rawSql(file, 'UPDATE runs SET pid = ? WHERE id = ?', deadPid(), first.run.id);
    const second = store.claimRun(start, claim);
    if (!('run' in second)) throw new Error('expected the claim of a dead holder to be released');
    expect(store.getRun(first.run.id)).toEqual(
      expect.objectContaining({ status: 'FAILED', failure: expect.stringMatching(/claim released/) }),
    );
    second.run.kill();
    const third = store.claimRun(start, claim);
    if (!('run' in third)) throw new Error('expected a KILLED holder to hold nothing');
    third.run.finish();
    expect(store.claimRun(start, claim)).toEqual({ finished: expect.objectContaining({ id: third.run.id, status: 'FINISHED' }) });
    expect(store.listRuns({ experiment: 'e' }).map((r) => r.status)).toEqual(['FAILED', 'KILLED', 'FINISHED']);
    store.close();
  });

  it('refuses to change a param and validates the config before writing when given a schema', () => {
    const { store } = fresh('params');
    const schema = z.object({ k: z.number().int().min(1) }).strict();
    expect(() => store.startRun({ experiment: 'e', config: { k: 0 }, schema, backend, context: FIXED_CONTEXT })).toThrow(UserError);
    expect(count(store, 'runs')).toBe(0);
    expect(count(store, 'experiments')).toBe(0);
    const run = store.startRun({ experiment: 'e', config: { k: 3 }, schema, backend, context: FIXED_CONTEXT });
    run.logParam('k', 3);
    expect(() => run.logParam('k', 4)).toThrow(/param 'k' is already '3'/);
    store.close();
  });

  it('resolves id prefixes and reports unknown or ambiguous ids as UserErrors', () => {
    const { store } = fresh('ids');
    const ids = Array.from({ length: 20 }, () => store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT }).id);
    expect(store.resolveRunId(ids[3])).toBe(ids[3]);
    expect(() => store.resolveRunId('zz')).toThrow(/not a run id/);
    expect(() => store.resolveRunId('ffffffffffffff')).toThrow(/no run with id/);
    const sorted = [...ids].sort();
    const commonFirst = sorted.find((id, i) => i > 0 && sorted[i - 1][0] === id[0]);
    if (commonFirst) expect(() => store.resolveRunId(commonFirst[0])).toThrow(/ambiguous/);
    store.close();
  });

  it('records artifacts relative to the repository root with their hash and size', () => {
    const { store } = fresh('artifact');
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    const rec = run.logArtifact(path.join(__dirname, 'floats.ts'));
    expect(rec.path).toBe('packages/results-store/src/floats.ts');
    expect(rec.bytes).toBe(fs.statSync(path.join(__dirname, 'floats.ts')).size);
    expect(store.getRun(run.id).artifacts).toEqual([expect.objectContaining({ path: rec.path, sha256: rec.sha256 })]);
    store.close();
  });

  it('refreshes the heartbeat on a timer while the run is open, and stops when it ends', async () => {
    const { store } = fresh('heartbeat', { heartbeatMs: 20 });
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    const first = store.getRun(run.id).heartbeatTime;
    await new Promise((r) => setTimeout(r, 150));
    const later = store.getRun(run.id).heartbeatTime;
    expect(later).toBeGreaterThan(first);
    run.finish();
    const ended = store.getRun(run.id).heartbeatTime;
    await new Promise((r) => setTimeout(r, 100));
    expect(store.getRun(run.id).heartbeatTime).toBe(ended);
    store.close();
  });

  it('withRun finishes the run on success and fails it with the message on error', async () => {
    const { store } = fresh('withrun');
    const listenersBefore = process.listenerCount('SIGTERM');
    let okId = '';
    await expect(
      withRun(store, { experiment: 'e', config: { a: 1 }, backend, context: FIXED_CONTEXT }, (run) => {
        okId = run.id;
        run.logMetric('x', 1);
        return 5;
      }),
    ).resolves.toBe(5);
    expect(store.getRun(okId).status).toBe('FINISHED');
    let badId = '';
    await expect(
      withRun(store, { experiment: 'e', config: { a: 2 }, backend, context: FIXED_CONTEXT }, async (run) => {
        badId = run.id;
        throw new Error('out of memory');
      }),
    ).rejects.toThrow('out of memory');
    expect(store.getRun(badId)).toEqual(expect.objectContaining({ status: 'FAILED', failure: 'out of memory' }));
    await withRun(store, { resume: badId }, (run) => run.logMetric('x', 2));
    expect(store.getRun(badId)).toEqual(expect.objectContaining({ status: 'FINISHED', attempts: 2, failure: null }));
    expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
    store.close();
  });
});
