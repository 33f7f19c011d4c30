/**
 * experiments:finetune on a temporary store with a fake child trainer (no model): table and curve
 * numbers from a synthetic store, byte-identical re-renders, resume skipping FINISHED children, a
 * failing child, and a bad config writing nothing.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from '@rred/core';
import { openStore, type Run } from '@rred/results-store';
import { KEYS } from '../experiments/src/finetune/keys';
import type { ChildTrainer } from '../experiments/src/finetune/children';
import { runExperiment } from '../experiments/src/common/run-command';
import { finetuneExperimentWith, type FinetuneDeps } from '../experiments/src/finetune/definition';
import type { ChildConfig } from '../experiments/src/finetune/child-config';
import { renderExperiment } from '../experiments/src/render/registry';

/** The finetune command with a fake trainer / backend / checkpoint hash. */
const runFinetuneCommand = (argv: string[], deps: FinetuneDeps) => runExperiment(finetuneExperimentWith(deps), argv);

const METHOD_INDEX: Record<string, number> = { grpo: 0, rredcot: 1, 'rredcot-own': 2 };
const SLOPE: Record<string, number> = { grpo: 0.2, rredcot: 0.5, 'rredcot-own': 0.1 };

/** Validation avg of the fake: start 0.1 + 0.01·seed, rising linearly with the method's slope. */
const fakeAvg = (method: string, seed: number, step: number, steps: number) => 0.1 + 0.01 * seed + (SLOPE[method] * step) / steps;
/** Training seconds of the fake: 1 s per step for grpo, 1.5 s for rredcot, 2 s for rredcot-own. */
const fakeSeconds = (method: string, step: number) => step * (1 + 0.5 * METHOD_INDEX[method]);
/** avg@k of the fake on eval split i at the final checkpoint; best = final − 0.05 (best step 2). */
const fakeEval = (method: string, seed: number, i: number) => 0.2 + 0.1 * METHOD_INDEX[method] + 0.02 * seed + 0.01 * i;

function fakeTrainer(calls: string[], failOn: string | null = null): ChildTrainer {
  return async (run: Run, c: ChildConfig) => {
    const key = `${c.method}.seed${c.seed}`;
    calls.push(key);
    if (key === failOn) throw new Error(`fake failure in ${key}`);
    for (let step = 0; step <= c.steps; step++) {
      if (step > 0) {
        run.logMetrics({ 'grpo.stepMs': 1000 * (1 + 0.5 * METHOD_INDEX[c.method]) }, step);
        // diagnostics: Σσ_t 1 for grpo, 0.5 ± 0.1·step for the others (NaN at step 1: every A = 0 there)
        const sum = c.method === 'grpo' ? 1 : step === 1 ? NaN : 0.5;
        run.logMetrics(
          { 'grpo.sigmaSumMean': sum, 'grpo.sigmaSumMin': sum - 0.1 * step, 'grpo.sigmaSumMax': sum + 0.1 * step, 'grpo.gradNorm': c.seed },
          step,
        );
        if (c.method !== 'grpo') run.logMetrics({ [KEYS.fallback]: 1, [KEYS.estimated]: 3 }, step);
      }
      if (step % c.validation.every === 0 || step === c.steps) {
        run.logMetrics(
          {
            [KEYS.validationAvg]: fakeAvg(c.method, c.seed, step, c.steps),
            [KEYS.validationPass]: 0.5,
            [KEYS.validationSeconds]: fakeSeconds(c.method, step),
          },
          step,
        );
      }
    }
    c.evaluation.splits.forEach((split, i) => {
      run.logMetrics({ [KEYS.evalAvg('final', split)]: fakeEval(c.method, c.seed, i), [KEYS.evalPass('final', split)]: 0.9 }, 0);
      run.logMetrics({ [KEYS.evalAvg('best', split)]: fakeEval(c.method, c.seed, i) - 0.05, [KEYS.evalPass('best', split)]: 0.9 }, 0);
    });
    run.logMetrics({ [KEYS.bestStep]: 2, [KEYS.trainSeconds]: fakeSeconds(c.method, c.steps) }, 0);
  };
}

describe('experiments:finetune with a fake trainer', () => {
  let dir: string;
  let storeFile: string;
  let configFile: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-finetune-'));
    storeFile = path.join(dir, 'store.sqlite');
    configFile = path.join(dir, 'finetune.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({ steps: 4, seeds: [1, 2, 3], validation: { every: 2, problems: 5 }, evaluation: { problems: 5 } }),
    );
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const deps = (train: ChildTrainer) => ({ train, backend: { backend: 'cpu', openblasThreads: null }, checkpointHash: 'f'.repeat(64) });
  const argv = (out: string, extra: string[] = []) => ['--config', configFile, '--store', storeFile, '--out', out, ...extra];

  it('renders the eval table, the sample-efficiency ratio and the curves from the store, byte-identically again', async () => {
    const calls: string[] = [];
    const out = path.join(dir, 'out');
    const { runId, files } = await runFinetuneCommand(argv(out), deps(fakeTrainer(calls)));
    expect(calls).toEqual([
      'grpo.seed1',
      'grpo.seed2',
      'grpo.seed3',
      'rredcot.seed1',
      'rredcot.seed2',
      'rredcot.seed3',
      'rredcot-own.seed1',
      'rredcot-own.seed2',
      'rredcot-own.seed3',
    ]);
    expect(files.map((f) => path.basename(f)).sort()).toEqual(
      [
        'curves.csv',
        'eval.csv',
        'summary.json',
        'table.md',
        ...['curves_by_step', 'curves_by_time', 'paired_vs_grpo'].flatMap((n) => [`${n}.png`, `${n}.svg`, `${n}.vl.json`]),
      ].sort(),
    );
    const md = fs.readFileSync(path.join(out, 'table.md'), 'utf8');
    // diagnostics over steps 1..4 and seeds 1..3: grpo Σσ 1 everywhere; rredcot's NaN step is left out (steps 2..4:
    // min 0.5 − 0.4, max 0.5 + 0.4); grad norm = seed, so the seed mean is 2; reward, entropy, clipping not logged (NaN)
    expect(md).toMatch(/\| grpo \| 3 \| NaN \| 1\.000 \| [0-9.]+ \| [0-9.]+ \| NaN \| 2\.000 \| NaN \|/);
    expect(md).toContain('| rredcot | 3 | NaN | 0.500 | 0.100 | 0.900 | NaN | 2.000 | NaN |');
    // grpo final on eval-easy: seeds give 0.22, 0.24, 0.26 → mean 0.24, half-width t_{0.975,2} · 0.02 / √3
    const half = (4.302653 * 0.02) / Math.sqrt(3);
    expect(md).toContain(
      `| grpo | 1e-4 | final | 0.240 ± ${half.toFixed(3)} | 0.250 ± ${half.toFixed(3)} | 0.260 ± ${half.toFixed(3)} | 0.250 ± ${half.toFixed(3)} |`,
    );
    expect(md).toContain(`| rredcot | 1e-4 | best (mean step 2.0) | 0.290 ± ${half.toFixed(3)} |`);
    // GRPO's seed-mean curve: 0.12, 0.22, 0.32 at steps 0, 2, 4: target = midpoint of start and best = 0.22, first reached at
    // step 2 (2 s); a resample of seed 1 alone is 0.21 at step 2, so the interval reaches step 4. rredcot: 0.37 at step 2 (3 s)
    // in every resample. rredcot-own ends at exactly 0.22 (step 4, 8 s); resamples of its lower seeds never get there.
    expect(md).toContain('| grpo | 0.120 | 0.320 | 0.320 | 0.220 | 2 | [2, 4] | 1.00 | 2.0 | [2.0, 4.0] | 1.00 | 1.00 | 4.0 | — |');
    expect(md).toContain('| rredcot | 0.120 | 0.620 | 0.620 | 0.220 | 2 | [2, 2] | 1.00 | 3.0 | [3.0, 3.0] | 0.67 | 1.50 | 6.0 | 0.250 |');
    expect(md).toContain(
      '| rredcot-own | 0.120 | 0.220 | 0.220 | 0.220 | 4 | [4, not reached] | 0.50 | 8.0 | [8.0, not reached] | 0.25 | 2.00 | 8.0 | 0.250 |',
    );
    // the supplementary table keeps GRPO's best point as the target (0.32, step 4), without intervals
    expect(md).toContain('| grpo | 0.120 | 0.320 | 0.320 | 0.320 | 4 | — | 1.00 | 4.0 | — | 1.00 | 1.00 | 4.0 | — |');
    const csv = fs
      .readFileSync(path.join(out, 'curves.csv'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(csv[0]).toBe('method,seed,run,step,train_seconds,validation_avg_at_k');
    const rredcotMean = csv.filter((l) => l.startsWith('rredcot,mean,')).map((l) => l.split(',').slice(3).map(Number));
    const expected = [
      [0, 0, 0.12],
      [2, 3, 0.37],
      [4, 6, 0.62],
    ]; // step, seconds, mean of 0.1 + 0.01·seed + 0.5·step/4
    expect(rredcotMean).toHaveLength(3);
    rredcotMean.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(expected[i][j], 12)));
    expect(csv).toHaveLength(1 + 9 * 3 + 3 * 3);

    // summary.json: eval means and paired differences by hand. Per seed the mean over the three splits is
    // 0.21 + 0.1·method + 0.02·seed, so rredcot − grpo = 0.1 and rredcot-own − grpo = 0.2 on every seed (no spread)
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const arms = summary.checkpoints.embedded.arms;
    expect(Object.keys(summary.checkpoints)).toEqual(['embedded']);
    expect(arms.grpo.seeds).toEqual([1, 2, 3]);
    expect(arms.grpo.evalMean.value).toBeCloseTo(0.25, 12);
    expect(arms.grpo.evalMean.hi - arms.grpo.evalMean.value).toBeCloseTo(half, 5);
    expect(arms.grpo.diffVsGrpo).toBeNull();
    expect(arms.rredcot.diffVsGrpo.value).toBeCloseTo(0.1, 12);
    expect(arms.rredcot.diffVsGrpo.hi - arms.rredcot.diffVsGrpo.lo).toBeCloseTo(0, 12);
    expect(arms['rredcot-own'].diffVsGrpo.value).toBeCloseTo(0.2, 12);
    expect([arms.grpo.stepsToMidpoint, arms.rredcot.stepsToMidpoint, arms['rredcot-own'].stepsToMidpoint]).toEqual([
      { value: 2, lo: 2, hi: 4 },
      { value: 2, lo: 2, hi: 2 },
      { value: 4, lo: 4, hi: null },
    ]);
    expect(arms.rredcot.lr).toBe(1e-4);
    // the comparisons, Holm over the two: no spread, so p = 0 and both are decided
    expect(summary.comparisons.map((c: { a: string; b: string; supported: boolean }) => [c.a, c.b, c.supported])).toEqual([
      ['rredcot', 'grpo', true],
      ['rredcot-own', 'grpo', true],
    ]);
    expect([arms.grpo.secondsPerStep, arms.rredcot.secondsPerStep, arms['rredcot-own'].secondsPerStep]).toEqual([1, 1.5, 2]);
    expect([arms.grpo.sigmaFallbackShare, arms.rredcot.sigmaFallbackShare]).toEqual([null, 0.25]);
    expect(md).toContain(
      '| embedded | rredcot − grpo | 1, 2, 3 | 0.100 | 0.0000 | 0.9750 | [0.100, 0.100] | 0.0000 | a better (supported) |',
    );
    // the per-seed table: rredcot-own seed 2's eval mean 0.21 + 0.2 + 0.04, best 0.05 lower; its curve ends at 0.12 + 0.1
    expect(md).toContain('| embedded | rredcot-own | 2 | 1e-4 | — | 0.450 | 0.400 | 2 | 0.220 | 0.220 |');

    // tables/plots re-render from the store alone: same bytes
    const again = path.join(dir, 'again');
    const store = openStore(storeFile);
    try {
      // the table's "mean over splits" column, as parent metrics (what a sweep report shows)
      const metrics = store.getRun(runId).metrics;
      expect(metrics['summary.final.grpo.mean_avg_at_k']).toBeCloseTo(0.25, 12);
      expect(metrics['summary.best.rredcot.mean_avg_at_k']).toBeCloseTo(0.3, 12);
      await renderExperiment('finetune', store, runId, path.join(again));
    } finally {
      store.close();
    }
    for (const f of files) expect(fs.readFileSync(path.join(again, path.basename(f)))).toEqual(fs.readFileSync(f));
  });

  it('resume: FINISHED children with the same config hash are reused; a failed child and the rest are trained', async () => {
    const first: string[] = [];
    await expect(runFinetuneCommand(argv(path.join(dir, 'o1')), deps(fakeTrainer(first, 'rredcot.seed2')))).rejects.toThrow(
      /fake failure in rredcot.seed2/,
    );
    expect(first).toEqual(['grpo.seed1', 'grpo.seed2', 'grpo.seed3', 'rredcot.seed1', 'rredcot.seed2']);
    let store = openStore(storeFile);
    const parents1 = store.listRuns({ experiment: 'finetune' }).filter((r) => r.parentRunId === null);
    expect(parents1.map((r) => r.status)).toEqual(['FAILED']);
    expect(store.listRuns({ experiment: 'finetune', status: 'FAILED' })).toHaveLength(2); // the parent and rredcot.seed2
    store.close();

    const second: string[] = [];
    const { runId } = await runFinetuneCommand(argv(path.join(dir, 'o2')), deps(fakeTrainer(second)));
    expect(second).toEqual(['rredcot.seed2', 'rredcot.seed3', 'rredcot-own.seed1', 'rredcot-own.seed2', 'rredcot-own.seed3']);

    const third: string[] = [];
    const { runId: runId3 } = await runFinetuneCommand(argv(path.join(dir, 'o3')), deps(fakeTrainer(third)));
    expect(third).toEqual([]);
    store = openStore(storeFile);
    try {
      const tags = (id: string) =>
        Object.entries(store.getRun(id).tags)
          .filter(([k]) => k.startsWith('child.'))
          .sort();
      expect(tags(runId3)).toEqual(tags(runId));
      expect(tags(runId3)).toHaveLength(9);
      expect(store.getRun(runId3).metrics).toMatchObject({ children: 9, ran: 0, reused: 9 });
    } finally {
      store.close();
    }
    // a changed shared hyperparameter changes every child's hash: nothing is reused
    const fourth: string[] = [];
    await runFinetuneCommand(
      argv(path.join(dir, 'o4'), ['--methods', '["grpo"]', '--seeds', '[1]', '--grpo.epsilon', '0.3']),
      deps(fakeTrainer(fourth)),
    );
    expect(fourth).toEqual(['grpo.seed1']);
  });

  it('trains every (test bed, method, seed) child, fewer seeds where asked, and keeps the beds apart in the table and summary.json', async () => {
    const calls: string[] = [];
    const out = path.join(dir, 'beds');
    const extra = [
      '--checkpoint',
      'packages/lm/checkpoints/assumptions-met.ckpt',
      '--methods',
      '["grpo","rredcot","grail"]',
      '--seedsPerMethod',
      '{"grail":2}',
      '--moreTestBeds',
      '[{"checkpoint":"packages/lm/checkpoints/embedded.ckpt","methods":["grpo","rredcot"]}]',
    ];
    const { runId } = await runFinetuneCommand(argv(out, extra), deps(fakeTrainer(calls)));
    expect(calls).toHaveLength(3 + 3 + 2 + 3 + 3);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    expect(Object.keys(summary.checkpoints)).toEqual(['assumptionsMet', 'embedded']);
    expect(Object.keys(summary.checkpoints.embedded.arms)).toEqual(['grpo', 'rredcot']);
    expect(summary.checkpoints.assumptionsMet.arms.grail.seeds).toEqual([1, 2]);
    const md = fs.readFileSync(path.join(out, 'table.md'), 'utf8');
    expect(md).toContain('— test bed embedded');
    expect(md).toContain('| embedded:rredcot | 1e-4 | final |');
    expect(md).toContain('| assumptionsMet | grail − grpo | 1, 2 |');
    const store = openStore(storeFile);
    try {
      const tags = Object.keys(store.getRun(runId).tags).filter((k) => k.startsWith('child.'));
      expect(tags).toEqual(expect.arrayContaining(['child.grpo.seed1', 'child.grail.seed2', 'child.embedded.rredcot.seed3']));
      expect(tags).not.toContain('child.grail.seed3');
    } finally {
      store.close();
    }
  });

  it('searches the lr on validation, then trains the comparison at the chosen lr, reusing the search children of those seeds', async () => {
    const calls: string[] = [];
    const base = fakeTrainer([]);
    // the fake's validation curve rises 0.05 higher at lr 3e-4 for grpo only; rredcot's candidates tie (the first, 1e-4, wins)
    const train: ChildTrainer = async (run, c, label) => {
      calls.push(`${c.method}@${c.lr}.seed${c.seed}`);
      await base(run, c, label);
      if (c.method === 'grpo' && c.lr === 3e-4) run.logMetrics({ [KEYS.validationAvg]: 0.9 }, c.steps);
    };
    const out = path.join(dir, 'search');
    const extra = [
      '--methods',
      '["grpo","rredcot"]',
      '--search',
      '{"methods":["grpo","rredcot"],"learningRates":[1e-4,3e-4],"seeds":2,"lastPoints":2}',
    ];
    await runFinetuneCommand(argv(out, extra), deps(train));
    expect(calls).toEqual([
      'grpo@0.0001.seed1',
      'grpo@0.0001.seed2',
      'grpo@0.0003.seed1',
      'grpo@0.0003.seed2',
      'rredcot@0.0001.seed1',
      'rredcot@0.0001.seed2',
      'rredcot@0.0003.seed1',
      'rredcot@0.0003.seed2',
      'grpo@0.0003.seed3', // the comparison: only the seed the search did not run
      'rredcot@0.0001.seed3',
    ]);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    expect([summary.checkpoints.embedded.arms.grpo.lr, summary.checkpoints.embedded.arms.rredcot.lr]).toEqual([3e-4, 1e-4]);
    const md = fs.readFileSync(path.join(out, 'table.md'), 'utf8');
    expect(md).toContain('## Search (learning rate per arm');
    expect(md).toMatch(/\| embedded \| grpo \| lr \| 3e-4 \| [0-9., ]+ \| [0-9.]+ \| ✓ \|/);
    expect(md).toMatch(/\| embedded \| rredcot \| lr \| 1e-4 \| [0-9., ]+ \| [0-9.]+ \| ✓ \|/);
    expect(md).toContain('| grpo | 3e-4 | final |');
  });

  it('a bad config is a UserError naming the field, and nothing is written', async () => {
    const out = path.join(dir, 'out');
    const cases: [string[], RegExp][] = [
      [['--steps', '-1'], /steps: got '-1', expected a number >= 1/],
      [['--seeds', '[1, 1]'], /seeds: \[1,1\] has repeats/],
      [['--learningRates.grpo', '0'], /learningRates\.grpo: got '0'/],
      [['--methods', '["ppo"]'], /methods\.0/],
      [['--evaluation.problems', '100000'], /has 500 problems, 100000 were asked for/],
      [['--nope', '1'], /unknown flag --nope/],
      [['--seedsPerMethod', '{"grail":0}'], /seedsPerMethod\.grail: got 0, expected a number >= 1/],
      [['--sigma.rredcot.normalization', 'L1'], /credits 'standardized' needs normalization 'softmax'/],
      [['--moreTestBeds', '[{"checkpoint":"packages/lm/checkpoints/embedded.ckpt","methods":["grpo"]}]'], /repeat a name/],
    ];
    for (const [extra, message] of cases) {
      const p = runFinetuneCommand(argv(out, extra), deps(fakeTrainer([])));
      await expect(p).rejects.toThrow(UserError);
      await expect(runFinetuneCommand(argv(out, extra), deps(fakeTrainer([])))).rejects.toThrow(message);
    }
    fs.writeFileSync(configFile, JSON.stringify({ stpes: 3 }));
    await expect(runFinetuneCommand(argv(out), deps(fakeTrainer([])))).rejects.toThrow(/unknown key 'stpes'/);
    expect(fs.existsSync(storeFile)).toBe(false);
    expect(fs.existsSync(out)).toBe(false);
  });
});
