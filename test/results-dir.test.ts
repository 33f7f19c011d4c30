/**
 * A run at non-default sizes (`--n 3`) never renders into the committed results/<name>/. The rule (experiments/src/common/out-dir.ts): only a committed config — the shipped
 * defaults file or a git-tracked --config file, unchanged but for selectors — renders into results/<name>/;
 * any other writes results/scratch/<name>-<config hash>/ (git-ignored), says so first, and is tagged
 * committedConfig=no so that `experiments:tables` never renders it into results/.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseConfig, readJsonFile, Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { createTransformer, saveCheckpoint, Tokenizer } from '@rred/lm';
import { openStoreForReading } from '@rred/results-store';
import { TASK_ALPHABET } from '@rred/tasks';
import type { ExperimentDefinition } from '../experiments/src/common/experiment';
import { planOutput } from '../experiments/src/common/out-dir';
import { experimentByName } from '../experiments/src/registry';
import { ROOT, runScript } from './fixtures/run-script';

const configs = (name: string) => path.join(ROOT, 'experiments', 'configs', `${name}.json`);

describe('which runs render into the committed results/', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'results-dir-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const resolved = (def: ExperimentDefinition, file: string, overrides: Record<string, unknown> = {}) =>
    parseConfig(def.schema, { ...(readJsonFile(file) as object), ...overrides }, file) as Record<string, unknown>;

  it('keeps results/<name>/ for committed configs only', () => {
    const mc = experimentByName('mc-variance');
    const committed = path.join(ROOT, 'results', 'mc-variance');
    expect(planOutput(mc, resolved(mc, configs('mc-variance')), configs('mc-variance'), null)).toEqual({
      outDir: committed,
      committed: true,
      note: null,
    });
    // a flag equal to the file's value changes nothing
    expect(planOutput(mc, resolved(mc, configs('mc-variance'), { problems: 150 }), configs('mc-variance'), null).committed).toBe(true);
    const small = planOutput(mc, resolved(mc, configs('mc-variance'), { problems: 3 }), configs('mc-variance'), null);
    expect(small.committed).toBe(false);
    expect(small.outDir).toMatch(/results\/scratch\/mc-variance-[0-9a-f]{12}$/);
    expect(small.note).toMatch(/not a committed config \(it sets problems on top of experiments\/configs\/mc-variance\.json\)/);
    // --out is the user's choice either way; the run is still not a committed config's
    expect(planOutput(mc, resolved(mc, configs('mc-variance'), { problems: 3 }), configs('mc-variance'), '/tmp/x')).toEqual({
      outDir: '/tmp/x',
      committed: false,
      note: null,
    });
    // an untracked --config file, even one equal to the defaults
    const copy = path.join(dir, 'mine.json');
    fs.copyFileSync(configs('mc-variance'), copy);
    expect(planOutput(mc, resolved(mc, copy), copy, null).note).toMatch(/git does not track/);
    // a tracked --config file (the "assumptions met" report) and the bench's section selector keep results/
    const lm = experimentByName('lm');
    const evaluate = path.join(ROOT, 'packages', 'lm', 'checkpoints', 'assumptions-met.evaluate.json');
    expect(planOutput(lm, resolved(lm, evaluate), evaluate, null).committed).toBe(true);
    const bench = experimentByName('bench');
    expect(planOutput(bench, resolved(bench, configs('bench'), { sections: ['lm'] }), configs('bench'), null).committed).toBe(true);
  });

  it('`mc-variance --n 2` says where it writes, leaves results/mc-variance/ alone, and `tables` does not render it', async () => {
    await initEngine({ backend: 'cpu', quiet: true });
    const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
    const model = createTransformer(
      { vocabSize: tokenizer.vocabSize, contextLength: 160, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 },
      new Rng(5),
    );
    const ckpt = path.join(dir, 'tiny.ckpt');
    saveCheckpoint(ckpt, { tokenizer, transformer: model });
    model.dispose();
    const committed = path.join(ROOT, 'results', 'mc-variance', 'table.md');
    const before = fs.readFileSync(committed);
    const store = path.join(dir, 'store.sqlite');
    // before the run, which makes it
    const scratchRoot = path.join(ROOT, 'results', 'scratch');
    const hadScratch = fs.existsSync(scratchRoot);
    const r = runScript('experiments/src/mc-variance/main.ts', [
      ...['--n', '2', '--samples', '2', '--checkpoint', ckpt, '--rollout.maxNewTokens', '12', '--mc.maxNewTokens', '12'],
      ...['--analysis.bootstrapResamples', '10', '--store', store],
    ]);
    const scratch = /go to (results\/scratch\/mc-variance-[0-9a-f]{12})\//.exec(r.stderr)?.[1];
    try {
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/mc-variance: not a committed config \(it sets .*checkpoint, .*problems/);
      expect(scratch).toBeDefined();
      expect(fs.existsSync(path.join(ROOT, scratch!, 'table.md'))).toBe(true);
      expect(fs.readFileSync(committed)).toEqual(before);
      const s = openStoreForReading(store);
      expect(s.listRuns({ experiment: 'mc-variance' }).map((run) => run.tags.committedConfig)).toEqual(['no']);
      s.close();
      const tables = runScript('experiments/src/render/main.ts', ['tables', '--store', store, '--out', path.join(dir, 'rendered')]);
      expect(tables.stderr).toMatch(/mc-variance: no FINISHED run of a committed config in the store; skipped/);
      expect(fs.existsSync(path.join(dir, 'rendered', 'mc-variance'))).toBe(false);
    } finally {
      if (scratch) fs.rmSync(path.join(ROOT, scratch), { recursive: true, force: true });
      // nothing left in the tree: results/scratch/ goes too when this test made it
      if (!hadScratch && fs.existsSync(scratchRoot) && fs.readdirSync(scratchRoot).length === 0) fs.rmdirSync(scratchRoot);
    }
  }, 120000);
});
