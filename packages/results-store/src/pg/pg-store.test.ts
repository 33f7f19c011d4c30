/**
 * The store on PostgreSQL against the same store on SQLite: the same calls give the same rows, and bad
 * input (a server that is not there, wrong credentials, someone else's database, a newer schema, a
 * connection dropped mid-write) is a one-line UserError with nothing half-written. Runs on a throwaway
 * cluster (test-server.ts); skipped and announced without PostgreSQL, unless RRED_REQUIRE_POSTGRES=1.
 */
import * as path from 'path';
import { UserError } from '@rred/core';
import { openStore, type Store } from '../store';
import { FIXED_CONTEXT, postgresTestsEnabled, sampleBundle, startTestPostgres, tempDir, type TestPostgres } from '../../testing';
import { expectUserError } from '../testing-helpers';
import { PgDatabase } from './pg-database';

const backend = { backend: 'cpu', openblasThreads: null };
const describePg = postgresTestsEnabled('results-store on PostgreSQL') ? describe : describe.skip;

/** One SQL statement on a PostgreSQL database through a connection of its own. */
function pgSql(url: string, sql: string): unknown[][] {
  const db = new PgDatabase(url, { lockTimeoutMs: 10000, connectTimeoutMs: 10000 });
  try {
    return db.client().query(sql).rows;
  } finally {
    db.close();
  }
}

/** The same writes on any store: two experiments, metrics with NaN/±Infinity/-0, params, tags, bundles, a failed run. */
function writeSample(store: Store): string[] {
  const a = store.startRun({ experiment: 'mc', config: { seed: 1, k: { n: 3 } }, backend, tags: { t: 'x' }, context: FIXED_CONTEXT });
  [NaN, Infinity, -Infinity, -0, 0.1].forEach((v, step) => a.logMetric('m', v, step));
  a.logMetrics({ acc: 0.5 }, 0);
  const b = sampleBundle('k1', 4);
  b.trace.reward = -Infinity;
  b.trace.logprobs = b.trace.completion.map((_, i) => (i === 0 ? NaN : -0.1 * i));
  b.continuations = [{ exitPoint: 0, sample: 0, utility: 1, length: 3, truncated: false, offset: 0, limit: 8 }];
  a.writeTraceBundles([b, sampleBundle('k0', 2, 'mc')]);
  a.finish();
  const c = store.startRun({ experiment: 'sweep-child', config: { seed: 2 }, backend, parentRunId: a.id, context: FIXED_CONTEXT });
  c.fail(new Error('boom'));
  return [a.id, c.id];
}

/** What a reader sees, with run ids replaced by their position and times dropped (they differ between two writes). */
function view(store: Store, ids: string[]): unknown {
  const name = (id: string | null) => (id === null ? null : `run${ids.indexOf(id)}`);
  const runs = store.listRuns().map((r) => ({
    ...r,
    id: name(r.id),
    parentRunId: name(r.parentRunId),
    startTime: 0,
    endTime: r.endTime === null ? null : 0,
    heartbeatTime: 0,
    pid: 0,
  }));
  const traces = store.traces(ids[0]).map((t) => ({ ...t, writtenAt: 0 }));
  return {
    runs,
    traces,
    history: store.metricHistory(ids[0], 'm').map((p) => p.value),
    estimates: store.estimateRows(ids[0]),
    costs: store.costRows(ids[0]),
    experiments: store.experiments(),
    counts: store.tableCounts(),
    filtered: store.listRuns({ where: 'metrics.acc >= 0.5 and tags.t = "x"' }).length,
  };
}

describePg('results store on PostgreSQL', () => {
  let pg: TestPostgres;
  beforeAll(() => {
    pg = startTestPostgres();
  });
  afterAll(() => pg?.stop());

  it('gives the same rows as the SQLite store for the same calls (NaN, ±Infinity, -0, blobs, filters, export)', () => {
    const file = path.join(tempDir('pg-same'), 'store.sqlite');
    const sqlite = openStore(file);
    const postgres = openStore(pg.createDatabase('same_rows'));
    try {
      const a = writeSample(sqlite);
      const b = writeSample(postgres);
      expect(view(postgres, b)).toEqual(view(sqlite, a));
      expect(Object.is(postgres.metricHistory(b[0], 'm')[3].value, -0)).toBe(true);
      expect(postgres.schemaVersion).toBe(sqlite.schemaVersion);
      expect(postgres.integrityCheck()).toEqual(['ok']);
      expect(postgres.resolveRunId(b[0].slice(0, 6))).toBe(b[0]);
    } finally {
      sqlite.close();
      postgres.close();
    }
  });

  it('copies a store to PostgreSQL and back, row for row; a copy that does not match keeps nothing', () => {
    const dir = tempDir('pg-copy');
    const first = openStore(path.join(dir, 'a.sqlite'));
    const ids = writeSample(first);
    const url = pg.createDatabase('copy_target');
    const server = openStore(url);
    expect(server.copyRunsFrom(first)).toEqual({ added: ids, present: [], verified: 2 });
    expect(server.copyRunsFrom(first)).toEqual({ added: [], present: ids, verified: 2 });
    const back = openStore(path.join(dir, 'b.sqlite'));
    expect(back.copyRunsFrom(server).added).toEqual(ids);
    expect(back.exportRuns(ids, ids)).toEqual(first.exportRuns(ids, ids));
    expect(view(back, ids)).toEqual(view(first, ids));
    // a run of the source that the target holds differently (same id, another status) fails the check
    first.startRun({ experiment: 'late', config: {}, backend, context: FIXED_CONTEXT }).finish();
    pgSql(url, `UPDATE runs SET status = 'KILLED' WHERE id = '${ids[1]}'`);
    const before = server.tableCounts();
    expectUserError(
      () => server.copyRunsFrom(first),
      /does not match its source \(run [0-9a-f]+: its runs row differs\); nothing was written/,
    );
    expect(server.tableCounts()).toEqual(before);
    for (const s of [first, server, back]) s.close();
  });

  it('claims a point once: a second claimer sees the live holder, then the FINISHED run', () => {
    const url = pg.createDatabase('claims');
    const one = openStore(url);
    const two = openStore(url);
    try {
      const opts = { experiment: 'e', config: { seed: 3 }, backend, context: FIXED_CONTEXT };
      const first = one.claimRun(opts, { key: 'runIdentity', value: 'p1' });
      expect('run' in first).toBe(true);
      // the holder is this process, alive, and its heartbeat is fresh
      const second = two.claimRun(opts, { key: 'runIdentity', value: 'p1' });
      expect('running' in second).toBe(true);
      if ('run' in first) first.run.finish();
      const third = two.claimRun(opts, { key: 'runIdentity', value: 'p1' });
      expect('finished' in third && third.finished.status).toBe('FINISHED');
    } finally {
      one.close();
      two.close();
    }
  });

  it('bad input is one line naming the store, without its password, and changes nothing', () => {
    const dead = pg.url('nothing').replace(/:(\d+)\//, ':1/');
    expectUserError(() => openStore(dead.replace('rred@', 'rred:secret@')), /rred:\*\*\*@.*cannot reach the PostgreSQL server/);
    expectUserError(() => openStore(pg.url('postgres').replace('rred@', 'nobody@')), /refused the credentials/);
    expectUserError(() => openStore(pg.url('no_such_db')), /no such database/);

    const foreign = pg.createDatabase('someone_else');
    pgSql(foreign, 'CREATE TABLE customers (id INTEGER PRIMARY KEY)');
    expectUserError(() => openStore(foreign), /not a results store.*customers/);
    expect(pgSql(foreign, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([[1]]);

    const newer = pg.createDatabase('newer');
    openStore(newer).close();
    pgSql(newer, 'UPDATE rred_schema SET version = 99');
    expectUserError(() => openStore(newer), /schema version 99 is newer than this code/);
  });

  it('a connection dropped mid-write is a one-line error, the write is not half-kept, and the run is then marked FAILED', () => {
    const url = pg.createDatabase('dropped');
    const store = openStore(url);
    const run = store.startRun({ experiment: 'e', config: {}, backend, context: FIXED_CONTEXT });
    run.writeTraceBundle(sampleBundle('kept'));
    pgSql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'dropped' AND pid <> pg_backend_pid()");
    let err: unknown;
    try {
      run.writeTraceBundle(sampleBundle('lost'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      /^results store postgresql:\/\/[^\n]*: the connection to the server was lost \([^\n]*\); nothing of the interrupted write was kept$/,
    );
    // as withRun does with an error: the run is ended FAILED with its message, over a new session
    run.fail(err);
    store.close();
    const again = openStore(url);
    try {
      expect(again.traces(run.id).map((t) => t.key)).toEqual(['kept']);
      expect(again.tableCounts().segments).toBe(3);
      expect(again.getRun(run.id)).toEqual(
        expect.objectContaining({ status: 'FAILED', failure: expect.stringMatching(/connection to the server was lost/) }),
      );
    } finally {
      again.close();
    }
  });
});
