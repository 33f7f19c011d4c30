/**
 * Reliability suite, signals: mc-variance is started through its documented
 * launcher, `npx nx run experiments:mc-variance`, at tiny sizes with a private store, and interrupted
 * at seeded random moments of its run: 20 times by SIGINT to the launcher's process group (what Ctrl-C
 * in a terminal does) and 20 times by SIGKILL (10 to the experiment's process, 10 to its whole process
 * group, sentinel included). After every interruption:
 * - the run is KILLED within 1 s of the SIGINT, FAILED within 1 s of a SIGKILL of the process, or, with
 *   the whole group gone, reaped at once by the next open of the store;
 * - every stored trace is complete and identical to the uninterrupted run's (no half-written trace);
 * then `--resume <run>` through the same launcher continues it (and may be interrupted again). Every
 * run ends FINISHED with exactly the uninterrupted run's rows (no duplicate), metrics and CSV tables.
 * Two chains (SIGINT, SIGKILL) run at once: parallelism 2.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import Database from 'better-sqlite3';
import { Rng } from '@rred/core';
import { openStore, type StoredTrace } from '@rred/results-store';
import { isAlive, killLeftoverLaunchers, launchNx, processGroup, readRuns, sleep, waitFor, type RunRow } from './fixtures/launcher';

const SIZES = ['--n', '4', '--samples', '2'];
const KILLS_PER_SIGNAL = 20;
/** A launch that misses its moment (the attempt finished first) starts a new run; this bounds the launches. */
const MAX_LAUNCHES_PER_SIGNAL = 60;

interface Reference {
  traces: Map<string, unknown>;
  metrics: Record<string, number | null>;
  rows: Record<string, number>;
  csv: Record<string, string>;
  /** How long the uninterrupted run was RUNNING (ms): the range of the kill moments. */
  runningMs: number;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-signals-'));
afterAll(() => {
  killLeftoverLaunchers();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A trace as the comparison sees it: everything but the measured wall times. */
function comparable(t: StoredTrace): unknown {
  return { ...t, costs: t.costs.map(({ wallMs: _wall, ...c }) => c) };
}

function rowCounts(file: string, runId: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  const of = 'trace_id IN (SELECT id FROM traces WHERE run_id = ?)';
  const one = (sql: string) => db.prepare(sql).pluck().get(runId) as number;
  try {
    return {
      traces: one('SELECT COUNT(*) FROM traces WHERE run_id = ?'),
      segments: one(`SELECT COUNT(*) FROM segments WHERE ${of}`),
      estimates: one(`SELECT COUNT(*) FROM estimates WHERE ${of}`),
      continuations: one(`SELECT COUNT(*) FROM continuations WHERE ${of}`),
      costs: one(`SELECT COUNT(*) FROM estimator_costs WHERE ${of}`),
      metrics: one('SELECT COUNT(*) FROM metrics WHERE run_id = ?'),
      params: one('SELECT COUNT(*) FROM params WHERE run_id = ?'),
      tags: one('SELECT COUNT(*) FROM tags WHERE run_id = ?'),
    };
  } finally {
    db.close();
  }
}

function csvFiles(out: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(out)
      .filter((f) => f.endsWith('.csv'))
      // without the provenance header line (it names the run id and the git state)
      .map((f) => [f, fs.readFileSync(path.join(out, f), 'utf8').replace(/^# run .*\n/, '')]),
  );
}

function storedTraces(file: string, runId: string): Map<string, unknown> {
  const store = openStore(file);
  try {
    return new Map(store.traces(runId).map((t) => [t.key, comparable(t)]));
  } finally {
    store.close();
  }
}

/** Every trace stored so far is one of the uninterrupted run's, complete and identical. */
function expectNoHalfWrittenTrace(ref: Reference, file: string, runId: string): void {
  const traces = storedTraces(file, runId);
  for (const [key, t] of traces) expect([key, t]).toEqual([key, ref.traces.get(key)]);
  const rows = rowCounts(file, runId);
  for (const k of ['traces', 'segments', 'estimates', 'continuations', 'costs'] as const) expect(rows[k]).toBeLessThanOrEqual(ref.rows[k]);
}

function expectSameAsReference(ref: Reference, file: string, runId: string, out: string | null): void {
  expect(storedTraces(file, runId)).toEqual(ref.traces);
  expect(rowCounts(file, runId)).toEqual(ref.rows);
  const store = openStore(file);
  try {
    expect(store.getRun(runId).metrics).toEqual(ref.metrics);
  } finally {
    store.close();
  }
  if (out) expect(csvFiles(out)).toEqual(ref.csv);
}

function runOf(file: string, id: string): RunRow | undefined {
  return readRuns(file).find((r) => r.id === id);
}

type Interrupt = 'SIGINT' | 'SIGKILL-process' | 'SIGKILL-group';

interface ChainOutcome {
  kills: Record<Interrupt, number>;
  launches: number;
  runs: number;
  /** ms from the signal to the run's status change, per SIGINT / SIGKILL-process. */
  latencies: number[];
}

/**
 * Starts runs and interrupts them at seeded moments until `kills` interruptions have landed inside a
 * RUNNING attempt; resumes each interrupted run through the launcher until it finishes.
 */
/** Set when one chain fails, so that the other stops launching (the test fails either way). */
let stopped = false;

async function chain(ref: Reference, label: string, interrupts: readonly Interrupt[], seed: number): Promise<ChainOutcome> {
  try {
    return await chainUnguarded(ref, label, interrupts, seed);
  } catch (err) {
    stopped = true;
    throw err;
  }
}

async function chainUnguarded(ref: Reference, label: string, interrupts: readonly Interrupt[], seed: number): Promise<ChainOutcome> {
  const rng = new Rng(seed);
  const file = path.join(dir, `${label}.sqlite`);
  const outcome: ChainOutcome = { kills: { SIGINT: 0, 'SIGKILL-process': 0, 'SIGKILL-group': 0 }, launches: 0, runs: 0, latencies: [] };
  let landed = 0;
  let runId: string | null = null;
  let attempts = 0;
  let out = '';
  while (landed < interrupts.length || runId !== null) {
    if (stopped) throw new Error(`${label}: stopped, the other chain failed`);
    expect(outcome.launches).toBeLessThan(MAX_LAUNCHES_PER_SIGNAL);
    if (runId === null) {
      outcome.runs++;
      out = path.join(dir, `${label}-out-${outcome.runs}`);
    }
    const known = new Set(readRuns(file).map((r) => r.id));
    const args = [...(runId ? ['--resume', runId] : SIZES), '--store', file, '--out', out];
    const launcher = launchNx('mc-variance', args);
    outcome.launches++;
    const expectedAttempt = attempts + 1;
    const finalAttempt = landed >= interrupts.length; // nothing left to interrupt: let it finish
    const running = await waitFor(
      () =>
        readRuns(file).find((r) => (runId ? r.id === runId : !known.has(r.id)) && r.status === 'RUNNING' && r.attempts === expectedAttempt),
      180000,
      `${label}: attempt ${expectedAttempt} RUNNING (launcher output: ${launcher.output().slice(-400)})`,
    );
    runId = running.id;
    attempts = expectedAttempt;
    let signalled = false;
    if (!finalAttempt) {
      // a moment within what is left of the run: a resumed attempt skips the traces already stored, and a moment
      // past its end would be a miss (a whole launch that interrupts nothing)
      const left = 1 - rowCounts(file, runId).traces / ref.rows.traces;
      await sleep(rng.int(0, Math.round(ref.runningMs * Math.max(left, 0.25))));
      const interrupt = interrupts[landed];
      const before = runOf(file, runId)!;
      if (before.status === 'RUNNING') {
        const sentAt = Date.now();
        signalled = true;
        if (interrupt === 'SIGINT') process.kill(-launcher.child.pid!, 'SIGINT');
        else if (interrupt === 'SIGKILL-process') process.kill(before.pid, 'SIGKILL');
        else process.kill(-processGroup(before.pid), 'SIGKILL');
        await launcher.exit;
        await waitFor(() => (isAlive(before.pid) ? undefined : true), 30000, `${label}: pid ${before.pid} gone`);
        const after = runOf(file, runId)!;
        // FINISHED: the attempt ended before the signal reached it (nx relays a Ctrl-C to the experiment's
        // process tree a little later); that moment is a miss, and the run is checked like any finished one
        if (after.status !== 'FINISHED') {
          landed++;
          outcome.kills[interrupt]++;
          if (interrupt === 'SIGKILL-group') {
            expect(after.status).toBe('RUNNING'); // nobody was left to end it ...
            const store = openStore(file); // ... until the next open, which reaps it at once
            expect(store.reaped).toContain(runId);
            store.close();
            const reaped = runOf(file, runId)!;
            expect(reaped).toEqual(expect.objectContaining({ status: 'FAILED', end_time: after.heartbeat_time }));
            expect(reaped.failure).toMatch(/died without ending the run/);
          } else {
            expect([interrupt, after.status]).toEqual([interrupt, interrupt === 'SIGINT' ? 'KILLED' : 'FAILED']);
            // the status changed within 1 s of the signal (end_time is when it was written)
            const latency = (after.end_time ?? Infinity) - sentAt;
            outcome.latencies.push(latency);
            expect([interrupt, after.failure, latency < 1000 ? '< 1 s' : latency]).toEqual([interrupt, after.failure, '< 1 s']);
          }
          expectNoHalfWrittenTrace(ref, file, runId);
          process.stderr.write(
            `${label}: ${interrupt} ${landed}/${interrupts.length} at attempt ${attempts} of run ${runId}: ${runOf(file, runId)!.status}\n`,
          );
          continue;
        }
      }
    }
    // not interrupted (finished before its moment, or the last attempt): it must finish as the reference did;
    // a signal that came after the run ended may have cut the rendering, so the tables are compared only
    // when the launcher exited cleanly
    const code = await launcher.exit;
    if (!signalled) expect(code).toBe(0);
    expect(runOf(file, runId)).toEqual(expect.objectContaining({ status: 'FINISHED', attempts }));
    expectSameAsReference(ref, file, runId, code === 0 ? out : null);
    runId = null;
    attempts = 0;
  }
  return outcome;
}

describe('signals through the real launcher (npx nx run experiments:mc-variance)', () => {
  let ref: Reference;

  beforeAll(async () => {
    const file = path.join(dir, 'reference.sqlite');
    const out = path.join(dir, 'reference-out');
    const launcher = launchNx('mc-variance', [...SIZES, '--store', file, '--out', out]);
    const code = await launcher.exit;
    if (code !== 0) throw new Error(`reference run failed (${code}): ${launcher.output()}`);
    const [run] = readRuns(file);
    expect(run.status).toBe('FINISHED');
    const store = openStore(file);
    const detail = store.getRun(run.id);
    store.close();
    ref = {
      traces: storedTraces(file, run.id),
      metrics: detail.metrics,
      rows: rowCounts(file, run.id),
      csv: csvFiles(out),
      runningMs: (detail.endTime ?? 0) - detail.startTime,
    };
    expect(ref.traces.size).toBe(4);
    expect(Object.keys(ref.csv).length).toBeGreaterThan(0);
  }, 240000);

  it(`ends the run KILLED (${KILLS_PER_SIGNAL} SIGINTs) or FAILED / reaped at once (${KILLS_PER_SIGNAL} SIGKILLs), whole traces only, and --resume finishes it to the uninterrupted numbers`, async () => {
    const sigkills: Interrupt[] = Array.from({ length: KILLS_PER_SIGNAL }, (_, i) => (i % 2 === 0 ? 'SIGKILL-process' : 'SIGKILL-group'));
    const settled = await Promise.allSettled([
      chain(ref, 'sigint', Array<Interrupt>(KILLS_PER_SIGNAL).fill('SIGINT'), 15004),
      chain(ref, 'sigkill', sigkills, 15009),
    ]);
    const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    if (failures.length) throw failures.find((e) => !/the other chain failed/.test(String(e?.message))) ?? failures[0];
    const [int, kill] = settled.map((r) => (r as PromiseFulfilledResult<ChainOutcome>).value);
    expect(int.kills.SIGINT).toBe(KILLS_PER_SIGNAL);
    expect(kill.kills['SIGKILL-process'] + kill.kills['SIGKILL-group']).toBe(KILLS_PER_SIGNAL);
    process.stderr.write(
      `signals suite: ${int.kills.SIGINT} SIGINT and ${kill.kills['SIGKILL-process']} + ${kill.kills['SIGKILL-group']} SIGKILL (process + group) ` +
        `interruptions in ${int.launches} + ${kill.launches} launches (${int.runs} + ${kill.runs} runs); ` +
        `signal → status ${Math.max(...int.latencies, ...kill.latencies)} ms at most\n`,
    );
  }, 1200000);
});
