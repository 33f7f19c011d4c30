/**
 * Two concurrent sweeps of one grid compute each point once. Each point is claimed in the
 * store (store.claimRun on its identity) before it is computed; the other sweep goes on with the rest,
 * then waits for the claimed points and reuses them. A claim whose process was SIGKILLed is released by
 * the next sweep (dead pid on this host). Real processes (test/fixtures/sweep-worker.ts, a fake experiment
 * whose points take 400 ms each). Before the fix both sweeps computed all 6 points: 12 child runs.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openStoreForReading } from '@rred/results-store';
import { ROOT } from './fixtures/run-script';

const WORKER = path.join(__dirname, 'fixtures', 'sweep-worker.ts');
const POINTS = 6;

interface Outcome {
  parentId: string;
  ran: string[];
  reused: string[];
  failed: string[];
}

/** Starts a worker; `claimed` resolves at its first "claimed" line, `done` with its outcome (null if it was killed). */
function worker(store: string, msPerPoint: number, goFile?: string) {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', WORKER, store, String(POINTS), String(msPerPoint), ...(goFile ? [goFile] : [])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onClaim: (line: string) => void = () => undefined;
  let onReady: () => void = () => undefined;
  const claimed = new Promise<string>((resolve) => (onClaim = resolve));
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /^claimed .*$/m.exec(out);
    if (m) onClaim(m[0]);
    if (/^ready$/m.test(out)) onReady();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<Outcome | null>((resolve, reject) =>
    child.on('exit', (code, signal) => {
      if (signal) return resolve(null);
      if (code !== 0) return reject(new Error(`worker exited ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as Outcome);
    }),
  );
  return { child, claimed, ready, done };
}

describe('concurrent sweeps of one grid', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-concurrent-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compute every point once between them, and both report the whole grid', async () => {
    const store = path.join(dir, 'store.sqlite');
    const go = path.join(dir, 'go');
    const [a, b] = [worker(store, 400, go), worker(store, 400, go)];
    await Promise.all([a.ready, b.ready]);
    fs.writeFileSync(go, '');
    const [outA, outB] = (await Promise.all([a.done, b.done])) as Outcome[];
    // Between them every point ran exactly once; each sweep accounts for every point (ran or reused).
    expect([...outA.ran, ...outB.ran].sort()).toHaveLength(POINTS);
    expect(new Set([...outA.ran, ...outB.ran]).size).toBe(POINTS);
    for (const out of [outA, outB]) {
      expect(out.ran.length + out.reused.length).toBe(POINTS);
      expect(out.failed).toEqual([]);
      expect([...out.ran, ...out.reused].sort()).toEqual([...outA.ran, ...outB.ran].sort());
    }
    // Both did real work (claims interleave), and what one reused is what the other ran.
    expect(outA.ran.length).toBeGreaterThan(0);
    expect(outB.ran.length).toBeGreaterThan(0);
    expect([...outA.reused].sort()).toEqual([...outB.ran].sort());
    const s = openStoreForReading(store);
    try {
      expect(s.listRuns({ experiment: 'fake-concurrent' }).map((r) => r.status)).toEqual(Array(POINTS).fill('FINISHED'));
      expect(s.listRuns({ experiment: 'sweep' }).map((r) => r.status)).toEqual(['FINISHED', 'FINISHED']);
    } finally {
      s.close();
    }
  }, 120000);

  it('release the claim of a SIGKILLed sweep at once: the next sweep computes its point', async () => {
    const store = path.join(dir, 'store.sqlite');
    const slow = worker(store, 60000);
    const line = await slow.claimed;
    const heldBy = line.split(' ')[2];
    slow.child.kill('SIGKILL');
    expect(await slow.done).toBeNull();
    const started = Date.now();
    const next = worker(store, 50);
    const out = (await next.done)!;
    expect(Date.now() - started).toBeLessThan(60000); // not after a heartbeat timeout
    expect(out.ran).toHaveLength(POINTS);
    expect(out.ran).not.toContain(heldBy);
    const s = openStoreForReading(store);
    try {
      expect(s.getRun(heldBy)).toEqual(expect.objectContaining({ status: 'FAILED', failure: expect.stringMatching(/died/) }));
    } finally {
      s.close();
    }
  }, 120000);
});
