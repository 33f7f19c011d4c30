/**
 * A sweep over finetune, end to end with the real trainer, evaluation and store on a tiny random
 * model (cpu backend, seconds): the grid varies one method's learning rate, so the other method's
 * child is trained once and reused by the second point; the sweep report reads each point's summary
 * metrics from the store.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { initEngine } from '@rred/engine';
import { openStore, type Store } from '@rred/results-store';
import type { ExperimentDefinition } from '../experiments/src/common/experiment';
import { readJsonFile, repoRoot } from '@rred/core';
import { finetuneExperimentWith } from '../experiments/src/finetune/definition';
import { tinyChildData } from '../experiments/src/finetune/tiny-data';
import { expandGrid, gridSpecSchema } from '../experiments/src/sweep/grid';
import { renderSweep } from '../experiments/src/sweep/render';
import { runSweep } from '../experiments/src/sweep/run-sweep';

const backend = { backend: 'cpu', openblasThreads: null };

describe('sweep over finetune (tiny model, real trainer)', () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    await initEngine({ backend: 'cpu', quiet: true });
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-ft-sweep-'));
    store = openStore(path.join(dir, 'store.sqlite'));
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs every point, reuses the unchanged child, and reports the summary metrics', async () => {
    const def = finetuneExperimentWith({
      data: tinyChildData(),
      backend,
      checkpointHash: 'f'.repeat(64),
    }) as unknown as ExperimentDefinition;
    const spec = gridSpecSchema.parse({
      experiment: 'finetune',
      base: {
        methods: ['grpo', 'rredcot'],
        seeds: [4],
        steps: 2,
        grpo: { promptsPerStep: 2, groupSize: 2, maxNewTokens: 12 },
        validation: { every: 1, problems: 2, samplesPerProblem: 2 },
        evaluation: { splits: ['eval-easy', 'eval-hard'], problems: 2, samplesPerProblem: 2, batchSize: 8 },
      },
      grid: { 'learningRates.rredcot': [1e-4, 2e-4] },
    });
    const defaults = readJsonFile(path.join(repoRoot(), 'experiments', 'configs', 'finetune.json'), 'config file') as Record<
      string,
      unknown
    >;
    const points = expandGrid(def, spec, defaults, 'finetune-grid.json');
    points.forEach((p) => def.precheck?.(p.config));
    const lines: string[] = [];
    const out = await runSweep({ store, def, spec, points, backend, exit: jest.fn(), log: (l) => lines.push(l) });

    expect(out.failed).toEqual([]);
    expect(out.ran).toHaveLength(2);
    expect(store.getRun(out.parentId).status).toBe('FINISHED');
    // each point is a finetune run; its children hang below it. grpo's child has the same config in
    // both points (only rredcot's lr changed), so point 1 reuses point 0's grpo child.
    const childrenOf = (id: string) =>
      Object.entries(store.getRun(id).tags)
        .filter(([k]) => k.startsWith('child.'))
        .sort();
    const [c0, c1] = out.ran.map(childrenOf);
    expect(c0.map(([k]) => k)).toEqual(['child.grpo.seed4', 'child.rredcot.seed4']);
    expect(c1[0]).toEqual(c0[0]);
    expect(c1[1][1]).not.toBe(c0[1][1]);
    expect(store.getRun(out.ran[1]).metrics).toMatchObject({ children: 2, ran: 1, reused: 1 });
    expect(store.getRun(c1[1][1]).config).toMatchObject({ method: 'rredcot', lr: 2e-4, steps: 2 });

    const files = await renderSweep(store, out.parentId, def.sweep!.reportMetrics, path.join(dir, 'report'), 'tables');
    const rows = fs
      .readFileSync(files[1], 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(','));
    const header = rows[0];
    expect(header.slice(0, 2)).toEqual(['learningRates.rredcot', 'run']);
    expect(rows.slice(1).map((r) => r[1])).toEqual(out.ran);
    for (const key of ['summary.final.grpo.mean_avg_at_k', 'summary.best.rredcot.mean_avg_at_k']) {
      const col = header.indexOf(key);
      // a random model never answers right: every avg@k is 0, and the reused grpo child gives point 1 the same number
      expect(rows.slice(1).map((r) => r[col])).toEqual(['0', '0']);
    }
    expect(header).toContain('summary.final.rredcot-own.mean_avg_at_k'); // not in the grid's methods: an empty cell
    expect(rows[1][header.indexOf('summary.final.rredcot-own.mean_avg_at_k')]).toBe('');
  }, 60_000);
});
