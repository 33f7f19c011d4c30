/**
 * Sweeps over many processes sharing one PostgreSQL store: a sweep command and two `rred worker`
 * processes that join it share one grid; one worker is SIGKILLed (its process group, as a scheduler or a
 * terminal does) while it computes a point; the sweep completes, every point has exactly one FINISHED run,
 * and the rendered tables are byte-identical to the same sweep run by one process on a SQLite store (run
 * ids, random by design, replaced by their order of appearance). Runs on a throwaway cluster; skipped and
 * announced without PostgreSQL, unless RRED_REQUIRE_POSTGRES=1 (.ci/run).
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openStore, openStoreForReading } from '@rred/results-store';
import { FIXED_CONTEXT, postgresTestsEnabled, sampleBundle, startTestPostgres, type TestPostgres } from '@rred/results-store/testing';
import { renderExperiment, runToRender } from '../experiments/src/render/registry';
import { renderSweep } from '../experiments/src/sweep/render';
import { ROOT } from './fixtures/run-script';

const SWEEP = path.join(ROOT, 'test', 'fixtures', 'shared-sweep.ts');
const FINETUNE = path.join(ROOT, 'test', 'fixtures', 'shared-finetune.ts');
const RRED = path.join(ROOT, 'packages', 'cli', 'bin', 'rred.js');
const POINTS = 6;
const describePg = postgresTestsEnabled('sweeps shared over a PostgreSQL store') ? describe : describe.skip;

interface Proc {
  child: ChildProcess;
  out: () => string;
  /** Resolves at the first `claimed <a> <run>` line: the run id. */
  claimed: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>;
}

const running = new Set<ChildProcess>();

/** A process in a group of its own (it, its sentinel and, for a worker, the sweep it joined). */
function start(args: string[], msPerChild = 3000): Proc {
  const env = { ...process.env, RRED_TEST_MS_PER_CHILD: String(msPerChild) }; // the fine-tuning fixture's child time
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
  running.add(child);
  let out = '';
  let err = '';
  let onClaim: (id: string) => void = () => undefined;
  const claimed = new Promise<string>((resolve) => (onClaim = resolve));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /^claimed \S+ ([0-9a-f]+)$/m.exec(out);
    if (m) onClaim(m[1]);
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal, err });
    }),
  );
  return { child, out: () => out, claimed, exit };
}

const sweep = (store: string, ms: number) =>
  start(['-r', 'tsx/cjs', SWEEP, '--store', store, '--points', String(POINTS), '--ms', String(ms)]);
const finetune = (store: string, config: string, ms = 3000) => start(['-r', 'tsx/cjs', FINETUNE, '--config', config, '--store', store], ms);

/**
 * The worker that first starts computing something (the one to kill), or an error when the origin ends first
 * (the workers came too late to get any work: a machine much slower than the point times allow for).
 */
function firstClaim(origin: Proc, workers: Proc[]): Promise<{ i: number; id: string }> {
  return Promise.race([
    ...workers.map((w, i) => w.claimed.then((id) => ({ i, id }))),
    origin.exit.then(() => {
      throw new Error('the origin finished before any worker claimed work; the workers got nothing to do');
    }),
  ]);
}
const worker = (store: string) => start([RRED, 'worker', '--store', store]);

/** Run ids (12 hex digits) replaced by their order of first appearance: the one thing two runs of a sweep never share. */
function withRunOrdinals(text: string): string {
  const seen = new Map<string, string>();
  return text.replace(/\b[0-9a-f]{12}\b/g, (id) => {
    if (!seen.has(id)) seen.set(id, `run#${seen.size + 1}`);
    return seen.get(id)!;
  });
}

async function renderOf(store: string, runId: string, outDir: string): Promise<Record<string, string>> {
  const s = openStoreForReading(store);
  try {
    const files =
      s.getRun(runId).experiment === 'finetune'
        ? await renderExperiment('finetune', s, runId, outDir, 'tables')
        : await renderSweep(s, runId, ['a', 'draw'], outDir, 'tables');
    return Object.fromEntries(files.map((f) => [path.basename(f), withRunOrdinals(fs.readFileSync(f, 'utf8'))]));
  } finally {
    s.close();
  }
}

/** `rred ...` as a user runs it: exit code, stdout, stderr. */
function rred(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [RRED, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describePg('a sweep shared by workers over PostgreSQL', () => {
  let pg: TestPostgres;
  let dir: string;
  beforeAll(() => {
    pg = startTestPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-workers-'));
  });
  afterAll(() => {
    for (const child of running)
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rred db copy / db check / runs list / worker on a postgresql:// store; bad input is one line, the password hidden', () => {
    const file = path.join(dir, 'copy.sqlite');
    const s = openStore(file);
    const run = s.startRun({
      experiment: 'e',
      config: { seed: 1 },
      backend: { backend: 'cpu', openblasThreads: null },
      context: FIXED_CONTEXT,
    });
    run.writeTraceBundle(sampleBundle('k', 3));
    run.finish();
    s.close();
    const url = pg.createDatabase('cli_copy');
    const to = rred('db', 'copy', '--from', file, '--to', url);
    expect(to.stdout).toMatch(
      /^copied 1 run\(s\) from .* to postgresql:.*; all 1 run\(s\) of the source verified row for row in the target$/m,
    );
    expect(to.code).toBe(0);
    const back = rred('db', 'copy', '--from', url, '--to', path.join(dir, 'back.sqlite'));
    expect(back.code).toBe(0);
    expect(rred('runs', 'list', '--store', url).stdout).toContain(run.id);
    const check = rred('db', 'check', '--store', url);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/schema +version 3/);
    expect(check.stdout).toMatch(/traces +1/);
    expect(rred('worker', '--store', url).stdout).toMatch(/nothing left to join/);

    const finished = rred('worker', '--store', url, '--sweep', run.id);
    expect([finished.code, finished.stderr.trim()]).toEqual([2, expect.stringMatching(/^[^\n]*is FINISHED; nothing to join$/)]);
    const dead = rred('runs', 'list', '--store', url.replace('rred@', 'rred:hunter2@').replace(/:\d+\//, ':1/'));
    expect(dead.code).toBe(2);
    expect(dead.stderr.trim()).toMatch(/^[^\n]*rred:\*\*\*@127\.0\.0\.1:1\/cli_copy: cannot reach the PostgreSQL server[^\n]*$/);
    expect(dead.stderr).not.toContain('hunter2');
    const same = rred('db', 'copy', '--from', url, '--to', url);
    expect([same.code, same.stderr.trim()]).toEqual([2, expect.stringMatching(/^[^\n]*--from and --to are the same store/)]);
  }, 120000);

  it('experiments render the committed mc-variance run from a PostgreSQL store byte for byte as from SQLite', async () => {
    const url = pg.createDatabase('committed_runs');
    const file = path.join(dir, 'committed.sqlite');
    for (const store of [url, file]) expect(rred('runs', 'import', '--store', store, 'results/runs/mc-variance.json').code).toBe(0);
    const rendered = async (location: string, out: string) => {
      const s = openStoreForReading(location);
      try {
        const id = runToRender(s, 'mc-variance');
        expect(id).not.toBeNull();
        const files = await renderExperiment('mc-variance', s, id!, path.join(dir, out), 'tables');
        return Object.fromEntries(files.map((f) => [path.basename(f), fs.readFileSync(f, 'utf8')]));
      } finally {
        s.close();
      }
    };
    const fromFile = await rendered(file, 'mc-sqlite');
    expect(Object.keys(fromFile).length).toBeGreaterThan(0);
    expect(await rendered(url, 'mc-pg')).toEqual(fromFile);
  }, 120000);

  it('three processes, one SIGKILLed mid-point: every point runs once to completion; tables as from one process on SQLite', async () => {
    // the reference: one process, a SQLite store
    const file = path.join(dir, 'one.sqlite');
    const one = sweep(file, 20);
    expect((await one.exit).code).toBe(0);
    const oneParent = JSON.parse(one.out().trim().split('\n').pop()!).parentId as string;
    const expected = await renderOf(file, oneParent, path.join(dir, 'one'));

    const url = pg.createDatabase('shared_sweep');
    const origin = sweep(url, 3000);
    await origin.claimed; // its sweep run is recorded: the workers find it
    const workers = [worker(url), worker(url)];
    const victim = await firstClaim(origin, workers);
    process.kill(-workers[victim.i].child.pid!, 'SIGKILL'); // mid-point: it computes for 3 s
    const killed = await workers[victim.i].exit;
    expect(killed.signal).toBe('SIGKILL');
    const survivor = workers[1 - victim.i];
    for (const p of [origin, survivor]) {
      const r = await p.exit;
      if (r.code !== 0) throw new Error(`exited ${r.code}: ${r.err.slice(-2000)}`);
    }
    expect(survivor.out()).toMatch(/^worker: joining run [0-9a-f]{12}: node /m);

    const s = openStore(url);
    try {
      const runs = s.listRuns({ experiment: 'fake-shared' });
      const finished = runs.filter((r) => r.status === 'FINISHED');
      // every point once to completion, whoever computed it
      expect(finished.map((r) => r.params.a).sort()).toEqual(Array.from({ length: POINTS }, (_, i) => String(i)));
      expect(s.getRun(victim.id)).toEqual(expect.objectContaining({ status: 'FAILED', failure: expect.stringMatching(/died/) }));
      expect(runs.length).toBe(POINTS + 1);
      // each process accounted for the whole grid in its own sweep run
      const sweeps = s.listRuns({ experiment: 'sweep' });
      expect(sweeps.filter((r) => r.status === 'FINISHED')).toHaveLength(2);
    } finally {
      s.close();
    }
    const originParent = JSON.parse(origin.out().trim().split('\n').pop()!).parentId as string;
    expect(await renderOf(url, originParent, path.join(dir, 'pg'))).toEqual(expected);
  }, 180000);
  it('a fine-tuning comparison shared by three processes, one SIGKILLed mid-child: every child trained once; tables as from one process on SQLite', async () => {
    const config = path.join(dir, 'finetune.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        methods: ['grpo', 'rredcot'],
        steps: 2,
        seeds: [1, 2, 3],
        validation: { every: 1, problems: 2 },
        evaluation: { problems: 2 },
      }),
    );
    const file = path.join(dir, 'finetune.sqlite');
    const one = finetune(file, config, 20);
    const oneExit = await one.exit;
    if (oneExit.code !== 0) throw new Error(`exited ${oneExit.code}: ${oneExit.err.slice(-2000)}`);
    const oneParent = JSON.parse(one.out().trim().split('\n').pop()!).parentId as string;
    const expected = await renderOf(file, oneParent, path.join(dir, 'ft-one'));
    expect(Object.keys(expected).length).toBeGreaterThan(0);

    const url = pg.createDatabase('shared_finetune');
    const origin = finetune(url, config);
    await origin.claimed;
    const workers = [worker(url), worker(url)];
    const victim = await firstClaim(origin, workers);
    process.kill(-workers[victim.i].child.pid!, 'SIGKILL'); // mid-child: it trains for 3 s
    expect((await workers[victim.i].exit).signal).toBe('SIGKILL');
    for (const p of [origin, workers[1 - victim.i]]) {
      const r = await p.exit;
      if (r.code !== 0) throw new Error(`exited ${r.code}: ${r.err.slice(-2000)}`);
    }
    const s = openStore(url);
    try {
      const children = s.listRuns({ experiment: 'finetune' }).filter((r) => r.parentRunId !== null);
      const finished = children.filter((r) => r.status === 'FINISHED').map((r) => r.tags.childKey);
      expect(finished.sort()).toEqual(['grpo.seed1', 'grpo.seed2', 'grpo.seed3', 'rredcot.seed1', 'rredcot.seed2', 'rredcot.seed3']);
      expect(s.getRun(victim.id)).toEqual(expect.objectContaining({ status: 'FAILED', failure: expect.stringMatching(/died/) }));
      expect(children).toHaveLength(7);
    } finally {
      s.close();
    }
    const originParent = JSON.parse(origin.out().trim().split('\n').pop()!).parentId as string;
    expect(await renderOf(url, originParent, path.join(dir, 'ft-pg'))).toEqual(expected);
  }, 240000);
});
