/**
 * The results store under process death and concurrency: writers in child processes are SIGKILLed at
 * seeded random moments; the store must stay consistent (every stored trace complete), the run must be
 * marked FAILED by the next opener, and a resume must complete it without duplicate rows. Every test runs
 * on both back ends: a SQLite file, and a database on a throwaway PostgreSQL cluster (skipped and announced
 * without a PostgreSQL server, unless RRED_REQUIRE_POSTGRES=1).
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Rng } from '@rred/core';
import { openStore, type Store } from '@rred/results-store';
import { postgresTestsEnabled, queryStore, startTestPostgres, type TestPostgres } from '@rred/results-store/testing';
import { makeBundle, METHODS, segmentCount } from './fixtures/store-bundles';

const ROOT = path.resolve(__dirname, '..');
const WRITER = path.join(__dirname, 'fixtures', 'store-writer.ts');

/** Writers still running: a failing test must not leave them writing (they run up to a million traces). */
const running = new Set<ChildProcess>();

/** SIGKILL to every writer's process group (it and its sentinel) that has not exited. */
function killRunning(): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
}

function startWriter(
  file: string,
  experiment: string,
  n: number,
  mode = '',
): { child: ChildProcess; runId: Promise<string>; exit: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', WRITER, file, experiment, String(n), mode], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own (with its sentinel), as a terminal's job
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let out = '';
  let err = '';
  const runId = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /started ([0-9a-f]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(`writer exited before starting a run: ${err}`)));
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  // 'exit' fires after node has reaped the child, so its pid is no longer alive (not a zombie).
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) process.stderr.write(`writer stderr: ${err}\n`);
      resolve(code);
    }),
  );
  return { child, runId, exit, stderr: () => err };
}

/** The run's row as another process sees it now (a connection of the test's own; no reaping). */
function readRun(file: string, runId: string): { status: string; failure: string | null; endTime: number | null } {
  const [r] = queryStore(file, 'SELECT status, failure, end_time FROM runs WHERE id = ?', runId) as {
    status: string;
    failure: string | null;
    end_time: number | null;
  }[];
  return { status: r.status, failure: r.failure, endTime: r.end_time };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Every stored trace of the run is complete: all its segments, estimates and costs are there. */
function expectCompleteTraces(store: Store, runId: string): number {
  const traces = store.traces(runId);
  for (const t of traces) {
    const i = Number(t.key.slice(1));
    const expected = makeBundle(i);
    expect(t.segments).toEqual(expected.segments);
    expect(t.estimates).toHaveLength(METHODS.length * segmentCount(i));
    expect(t.costs).toHaveLength(METHODS.length);
    expect(t.trace.completion).toEqual(expected.trace.completion);
  }
  return traces.length;
}

function rowCounts(store: Store, runId: string): { traces: number; segments: number; estimates: number; costs: number; metrics: number } {
  // raw row counts, through a connection of the test's own (the store keeps its connection private)
  const one = (sql: string) => Number(Object.values(queryStore(store.file, sql, runId)[0])[0]);
  const ofRun = 'trace_id IN (SELECT id FROM traces WHERE run_id = ?)';
  return {
    traces: one('SELECT COUNT(*) FROM traces WHERE run_id = ?'),
    segments: one(`SELECT COUNT(*) FROM segments WHERE ${ofRun}`),
    estimates: one(`SELECT COUNT(*) FROM estimates WHERE ${ofRun}`),
    costs: one(`SELECT COUNT(*) FROM estimator_costs WHERE ${ofRun}`),
    metrics: one('SELECT COUNT(*) FROM metrics WHERE run_id = ?'),
  };
}

function expectedCounts(n: number): { traces: number; segments: number; estimates: number; costs: number; metrics: number } {
  let segments = 0;
  for (let i = 0; i < n; i++) segments += segmentCount(i);
  return { traces: n, segments, estimates: METHODS.length * segments, costs: METHODS.length * n, metrics: n };
}

const BACKENDS = ['sqlite', ...(postgresTestsEnabled('results store reliability on PostgreSQL') ? ['postgresql'] : [])];

describe.each(BACKENDS)('results store reliability (%s)', (backend) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-store-reliability-'));
  let pg: TestPostgres | null = null;
  let databases = 0;
  beforeAll(() => {
    if (backend === 'postgresql') pg = startTestPostgres();
  });
  afterAll(() => {
    pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(killRunning);
  /** A new store of this back end: a file in the test's directory, or a new database on the test server. */
  const storeAt = (name: string) => (pg ? pg.createDatabase(`r${++databases}`) : path.join(dir, name));

  it('survives SIGKILL at 24 seeded random points: consistent, marked FAILED, resumable without duplicates', async () => {
    const file = storeAt('killed.sqlite');
    const rng = new Rng(20240607);
    // 8 rounds of 3 concurrent writers, each killed at its own random moment: 24 kill points for the
    // price of 8 process start-ups, and the kills land while other processes are mid-write.
    const rounds = 8;
    const writersPerRound = 3;
    const written: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const writers = Array.from({ length: writersPerRound }, () => startWriter(file, 'kill-test', 1_000_000));
      const runIds = await Promise.all(writers.map((w) => w.runId));
      await Promise.all(
        writers.map(async (w) => {
          await sleep(rng.int(0, 400));
          w.child.kill('SIGKILL');
          expect(await w.exit).toBeNull();
        }),
      );

      // The heartbeats are a few hundred ms old, but the pids are dead: reaped at once (or already FAILED
      // by each writer's sentinel, which saw its process die).
      const store = openStore(file);
      expect(store.integrityCheck()).toEqual(['ok']);
      for (const id of store.reaped) expect(runIds).toContain(id);
      for (const runId of runIds) {
        expect(store.getRun(runId).status).toBe('FAILED');
        const stored = expectCompleteTraces(store, runId);
        written.push(stored);

        // Resume: re-write the last 20 stored bundles (a resume that repeats work must not duplicate it),
        // then 5 new ones.
        const total = stored + 5;
        const run = store.resumeRun(runId);
        for (let i = Math.max(0, stored - 20); i < total; i++) {
          run.writeTraceBundle(makeBundle(i));
          run.logMetric('progress', i, i);
        }
        run.finish();
        expect(store.getRun(runId)).toEqual(expect.objectContaining({ status: 'FINISHED', attempts: 2 }));
        expect(rowCounts(store, runId)).toEqual(expectedCounts(total));
      }
      expect(store.integrityCheck()).toEqual(['ok']);
      store.close();
    }
    expect(written).toHaveLength(rounds * writersPerRound);
    // The kill points really were spread out: some early, some after many traces.
    expect(new Set(written).size).toBeGreaterThan(written.length / 2);
    expect(Math.max(...written)).toBeGreaterThan(Math.min(...written));
  }, 240000);

  it('lets two processes write to one store at once; both finish and every row is there', async () => {
    const file = storeAt('concurrent.sqlite');
    const n = pg ? 200 : 1000; // ~1 s (SQLite) / ~2 s (PostgreSQL: a round trip per statement) of writing each, so the two writers overlap
    const a = startWriter(file, 'concurrent', n);
    const b = startWriter(file, 'concurrent', n);
    const [idA, idB] = await Promise.all([a.runId, b.runId]);
    expect(await Promise.all([a.exit, b.exit])).toEqual([0, 0]);
    const store = openStore(file);
    expect(store.integrityCheck()).toEqual(['ok']);
    for (const id of [idA, idB]) {
      expect(store.getRun(id).status).toBe('FINISHED');
      expect(rowCounts(store, id)).toEqual(expectedCounts(n));
      expect(expectCompleteTraces(store, id)).toBe(n);
    }
    store.close();
  }, 60000);

  // a process busy in synchronous work cannot run its signal handler; its sentinel ends the run
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'marks the run KILLED within 1 s of a %s to the process group while the process never yields',
    async (signal) => {
      const file = storeAt(`busy-${signal}.sqlite`);
      const writer = startWriter(file, 'busy', 1_000_000, 'busy');
      const runId = await writer.runId;
      await sleep(300);
      const sentAt = Date.now();
      process.kill(-writer.child.pid!, signal);
      let run = readRun(file, runId);
      while (run.status === 'RUNNING' && Date.now() - sentAt < 5000) {
        await sleep(20);
        run = readRun(file, runId);
      }
      expect(run).toEqual(expect.objectContaining({ status: 'KILLED', failure: `received ${signal}` }));
      expect(run.endTime! - sentAt).toBeLessThan(1000);
      writer.child.kill('SIGKILL'); // it would have written on until its loop ended
      await writer.exit;
      const store = openStore(file);
      expect(store.getRun(runId).status).toBe('KILLED'); // not reaped as FAILED afterwards
      expect(store.integrityCheck()).toEqual(['ok']);
      expectCompleteTraces(store, runId);
      store.close();
    },
    30000,
  );

  it('marks the run FAILED within 1 s of a SIGKILL of its process, before anyone opens the store', async () => {
    const file = storeAt('sigkill-sentinel.sqlite');
    const writer = startWriter(file, 'sigkill', 1_000_000);
    const runId = await writer.runId;
    await sleep(200);
    const sentAt = Date.now();
    writer.child.kill('SIGKILL');
    let run = readRun(file, runId);
    while (run.status === 'RUNNING' && Date.now() - sentAt < 5000) {
      await sleep(20);
      run = readRun(file, runId);
    }
    expect(run.status).toBe('FAILED');
    expect(run.failure).toMatch(/died without ending the run \(seen at once by its sentinel\)/);
    expect(run.endTime! - sentAt).toBeLessThan(1000);
  }, 30000);

  (backend === 'postgresql' ? it : it.skip)(
    'a connection dropped mid-run: the writer stops with one line, nothing half-written, the run ends FAILED',
    async () => {
      const url = storeAt('dropped');
      const writer = startWriter(url, 'dropped', 1_000_000, 'with-run');
      const runId = await writer.runId;
      await sleep(300);
      // the server ends every session of the writer (as a restart or a network cut would)
      queryStore(
        url,
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      expect(await writer.exit).toBe(2);
      expect(writer.stderr().trim()).toMatch(/^[^\n]*the connection to the server was lost[^\n]*$/);
      const store = openStore(url);
      expect(store.getRun(runId)).toEqual(
        expect.objectContaining({ status: 'FAILED', failure: expect.stringMatching(/connection to the server was lost/) }),
      );
      expect(expectCompleteTraces(store, runId)).toBeGreaterThan(0);
      store.close();
    },
    30000,
  );

  it('marks a run KILLED when its process receives SIGTERM inside withRun', async () => {
    const file = storeAt('sigterm.sqlite');
    const writer = startWriter(file, 'sigterm', 1_000_000, 'with-run');
    const runId = await writer.runId;
    await sleep(100);
    writer.child.kill('SIGTERM');
    expect(await writer.exit).toBe(143);
    const store = openStore(file);
    expect(store.reaped).toEqual([]);
    expect(store.getRun(runId)).toEqual(expect.objectContaining({ status: 'KILLED', failure: 'received SIGTERM' }));
    expect(store.integrityCheck()).toEqual(['ok']);
    expectCompleteTraces(store, runId);
    store.close();
  }, 30000);
});
