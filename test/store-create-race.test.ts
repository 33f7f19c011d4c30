/**
 * Creating a store is atomic: 16 processes open one new store at the same instant and write into it,
 * 20 times over. Every process succeeds (none sees a half-created store and refuses it as foreign)
 * and every run and row is there. The workers are started once and told when to go (a round costs a
 * store, not 16 process starts), so the test stays short; nothing about durations is asserted.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as readline from 'readline';
import { openStore } from '@rred/results-store';
import { ROOT } from './fixtures/run-script';

const WORKERS = 16;
const ROUNDS = 20;
const BUNDLES = 3;

interface Worker {
  child: ChildProcess;
  next(): Promise<string>;
}

function startWorker(): Worker {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(ROOT, 'test/fixtures/store-creator.ts'), String(BUNDLES)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else lines.push(line);
  });
  return {
    child,
    next: () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

describe('creating a store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-create-race-'));
  const workers: Worker[] = [];
  afterAll(() => {
    for (const w of workers) w.child.stdin!.end();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`${WORKERS} processes create and write one new store at the same instant, ${ROUNDS} times: all succeed, every row is there`, async () => {
    for (let i = 0; i < WORKERS; i++) workers.push(startWorker());
    expect(await Promise.all(workers.map((w) => w.next()))).toEqual(workers.map(() => 'ready'));
    for (let round = 0; round < ROUNDS; round++) {
      const file = path.join(dir, `round-${round}`, 'store.sqlite');
      for (const w of workers) w.child.stdin!.write(`go ${file}\n`);
      const answers = await Promise.all(workers.map((w) => w.next()));
      expect(answers.filter((a) => !a.startsWith('done '))).toEqual([]);
      const ids = answers.map((a) => a.slice('done '.length));
      const store = openStore(file);
      try {
        const runs = store.listRuns({ experiment: 'create-race' });
        expect(runs.map((r) => r.id).sort()).toEqual([...ids].sort());
        for (const id of ids) {
          expect(store.getRun(id).status).toBe('FINISHED');
          expect(store.traces(id)).toHaveLength(BUNDLES);
        }
        expect(store.integrityCheck()).toEqual(['ok']);
      } finally {
        store.close();
      }
      // no temporary store file is left beside it
      expect(fs.readdirSync(path.dirname(file)).filter((f) => !/^store\.sqlite(-wal|-shm)?$/.test(f))).toEqual([]);
    }
  }, 240000);
});
