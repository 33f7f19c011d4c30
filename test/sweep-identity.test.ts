/**
 * A sweep point's identity is its config hash plus what decides its result — the
 * checkpoint hash, the source run `mcRun: "latest"` resolves to, the dataset file hashes — so a rerun
 * after the checkpoint was replaced, or after a newer mc-variance run finished, computes the points
 * again. Before the fix the sweep reused by config hash alone and both reruns said "0 ran, 2 reused".
 * Real `experiments:sweep` processes on a tiny random checkpoint (a few seconds per command).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { checkpointHash, createTransformer, saveCheckpoint, Tokenizer } from '@rred/lm';
import { openStoreForReading } from '@rred/results-store';
import { TASK_ALPHABET } from '@rred/tasks';
import { runScript } from './fixtures/run-script';

const SWEEP = 'experiments/src/sweep/main.ts';

describe('sweep point identity', () => {
  let dir: string;
  let ckpt: string;
  let store: string;
  const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);

  /** A random tiny model at `ckpt`; another seed is another model (the way lm:pretrain replaces a checkpoint). */
  const writeCheckpoint = (seed: number) => {
    const model = createTransformer(
      { vocabSize: tokenizer.vocabSize, contextLength: 160, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 },
      new Rng(seed),
    );
    saveCheckpoint(ckpt, { tokenizer, transformer: model });
    model.dispose();
  };
  const small = { 'mc.samplesPerExitPoint': 2, 'mc.maxNewTokens': 12, 'analysis.bootstrapResamples': 10 };
  const grid = (name: string, spec: object) => {
    const file = path.join(dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(spec));
    return file;
  };
  /** Runs a sweep; returns its summary line's counts, e.g. "2 ran, 0 reused". */
  const sweep = (file: string): string => {
    const r = runScript(SWEEP, ['--grid', file, '--store', store]);
    const m = /: (\d+ ran, \d+ reused), (\d+) failed of/.exec(r.stderr);
    if (r.code !== 0 || !m) throw new Error(`sweep exited ${r.code}:\n${r.stderr.slice(-2000)}`);
    return m[1];
  };

  beforeAll(async () => {
    await initEngine({ backend: 'cpu', quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-identity-'));
    ckpt = path.join(dir, 'tiny.ckpt');
    store = path.join(dir, 'store.sqlite');
    writeCheckpoint(1);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  let mcGrid: string;
  it('a replaced checkpoint is another identity: the rerun computes every point again', () => {
    mcGrid = grid('mc', {
      experiment: 'mc-variance',
      base: { checkpoint: ckpt, problems: 2, 'rollout.maxNewTokens': 12, ...small },
      grid: { seed: [1, 2] },
    });
    expect(sweep(mcGrid)).toBe('2 ran, 0 reused');
    expect(sweep(mcGrid)).toBe('0 ran, 2 reused');
    const before = checkpointHash(ckpt);
    writeCheckpoint(2);
    expect(checkpointHash(ckpt)).not.toBe(before);
    expect(sweep(mcGrid)).toBe('2 ran, 0 reused');
    expect(sweep(mcGrid)).toBe('0 ran, 2 reused');
  }, 240000);

  it('a newer mc-variance run is another source for mcRun "latest": the correlation rerun computes again', () => {
    const corrGrid = grid('corr', {
      experiment: 'correlation',
      base: { checkpoint: ckpt, 'source.onMissing': 'error', baselines: 'skip', maxTraces: 2, ...small },
      grid: { 'segmentation.maxSegments': [2, 4] },
    });
    expect(sweep(corrGrid)).toBe('2 ran, 0 reused');
    expect(sweep(corrGrid)).toBe('0 ran, 2 reused');
    // A newer FINISHED mc-variance run of the same checkpoint (another seed: one more grid value).
    const more = grid('mc-more', {
      experiment: 'mc-variance',
      base: { checkpoint: ckpt, problems: 2, 'rollout.maxNewTokens': 12, ...small },
      grid: { seed: [3] },
    });
    expect(sweep(more)).toBe('1 ran, 0 reused');
    expect(sweep(corrGrid)).toBe('2 ran, 0 reused');
    const s = openStoreForReading(store);
    try {
      const newest = s.listRuns({ experiment: 'mc-variance', status: 'FINISHED' }).pop()!;
      const corr = s.listRuns({ experiment: 'correlation', status: 'FINISHED' });
      expect(corr).toHaveLength(4);
      // every run records what its identity was made of; the last two read the newest mc-variance run
      expect(corr.slice(2).map((r) => r.tags.sourceRun)).toEqual([newest.id, newest.id]);
      expect(corr.slice(0, 2).every((r) => r.tags.sourceRun !== newest.id)).toBe(true);
      for (const r of corr) {
        expect(r.tags.checkpointHash).toBe(checkpointHash(ckpt));
        expect(r.tags['datasetSha256.eval-medium']).toMatch(/^[0-9a-f]{64}$/);
        expect(r.tags.runIdentity).toMatch(/^[0-9a-f]{64}$/);
      }
    } finally {
      s.close();
    }
  }, 240000);
});
