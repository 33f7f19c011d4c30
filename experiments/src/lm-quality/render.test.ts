import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openStore } from '@rred/results-store';
import { runsToRender } from '../render/registry';
import { lmQualityConfigSchema } from './config';
import { lmQualityReport, renderLmQualityTables } from './render';
import type { TaskRecord } from '@rred/tasks';
import { isEarlyExit, missesLastSubgoal } from './exit-points';

function baseMetrics(): Record<string, number> {
  const m: Record<string, number> = {
    't1.mixedFraction': 0.5,
    't1.entropyRatio': 9,
    't1.entropy.result': 0.1,
    't1.entropy.format': 0.01,
    't1.entropy.other': 0.2,
    't1.accuracy': 0.4,
  };
  for (const s of ['eval-easy', 'eval-medium', 'eval-hard'])
    Object.assign(m, { [`greedy.${s}.accuracy`]: 0.5, [`greedy.${s}.meanLength`]: 40, [`greedy.${s}.maxLength`]: 50 });
  return m;
}

describe('lm-quality report', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-report-'));
  const store = openStore(path.join(dir, 'store.sqlite'));
  const backend = { backend: 'cpu', openblasThreads: 1 };
  const ids: Record<string, string> = {};
  beforeAll(() => {
    for (const [name, checkpoint, extra] of [
      ['old', 'packages/lm/checkpoints/embedded.ckpt', {}],
      ['older', 'packages/lm/checkpoints/embedded.ckpt', {}],
      ['met', 'packages/lm/checkpoints/assumptions-met.ckpt', { compositeSplit: 'eval-medium-composite', calibration: {} }],
    ] as const) {
      const config = lmQualityConfigSchema.parse({ checkpoint, ...extra });
      const run = store.startRun({ experiment: 'lm', config, backend });
      run.logMetrics(baseMetrics());
      if (name === 'met') {
        run.logMetrics({
          't1.earlyExitFraction': 0.002,
          'composite.eval-medium-composite.accuracy': 0.4,
          'composite.eval-medium-composite.partAccuracy': 0.6,
          'composite.eval-medium-composite.problems': 300,
        });
        [
          [0.05, 0.1],
          [0.15, 0.3],
          [0.95, 0.9],
          [1, 1],
        ].forEach(([f, v], i) => run.logMetrics({ 'calibration.forced': f, 'calibration.mc': v, 'calibration.position': i / 3 }, i));
        run.logMetrics({
          'calibration.traces': 1,
          'calibration.points': 4,
          'calibration.meanAbsGap': 0.075,
          'terms.correctTraces': 1,
          'terms.valueStep1.mean': -1.5,
          'terms.immediateGain.mean': 2,
        });
      }
      run.finish();
      ids[name] = run.id;
    }
  });
  afterAll(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders the newest run of each checkpoint, into files named after the checkpoint', () => {
    const runs = runsToRender(store, 'lm');
    expect(runs).toHaveLength(2);
    expect(runs).toContain(ids.met);
    const files = runs.flatMap((id) => renderLmQualityTables(store, id, dir)).map((f) => path.basename(f));
    expect(files.sort()).toEqual(['assumptions-met.json', 'assumptions-met.md', 'embedded.json', 'embedded.md']);
  });

  it('shows the early-exit and exit-point rows only for runs that measured them', () => {
    const old = lmQualityReport(store, ids.older);
    expect(old.earlyExitFraction).toBeUndefined();
    expect(old.missedLastSubgoalFraction).toBeUndefined();
    expect(old.calibration).toBeUndefined();
    const met = lmQualityReport(store, ids.met);
    expect(met.composite).toEqual({ split: 'eval-medium-composite', accuracy: 0.4, partAccuracy: 0.6, problems: 300 });
    // bins [0, 0.1), [0.1, 0.2), [0.9, 1.0] (1 falls into the last bin)
    expect(met.calibration!.bins.map((b) => [b.points, b.meanForced, b.meanMc])).toEqual([
      [1, 0.05, 0.1],
      [1, 0.15, 0.3],
      [2, 0.975, 0.95],
    ]);
    renderLmQualityTables(store, ids.met, dir);
    const md = fs.readFileSync(path.join(dir, 'assumptions-met.md'), 'utf8');
    // a run before early exits proper were measured: its looser count under its old label carries the bar
    expect(md).toMatch(/close their thinking before the last line .*\| 0\.0020 \| ≤ 0\.01 \| yes/);
    expect(md).not.toMatch(/last variable unnamed/);
    expect(md).toContain('mean log V(s_1) − log V(s_0) = -1.50 nats');
  });

  it("counts an early exit only when the thinking closes before the last step's line", () => {
    const record = (text: string): TaskRecord => ({ id: 'x', problem: text, solution: '', answer: '', split: 's', meta: { modulus: 10 } });
    const problem = record('a=1+2;b=a+1;c=b+a;?c');
    expect(isEarlyExit('a=1+2=3\nb=3+1=4\nc=4+3=7</think>7<eos>', problem)).toBe(false);
    expect(isEarlyExit('a=1+2=3\nb=3+1=4\n</think>7<eos>', problem)).toBe(true);
    expect(isEarlyExit('a=1+2=3\nb=3+1=4\nc=4+3=6\nwait c=4+3=7</think>7<eos>', problem)).toBe(false);
    expect(isEarlyExit('a=1+2=3\nc=4+3=7</think>7<eos>', record('a=1+2;b=a+1;c=b+a;?b,c'))).toBe(false); // skipped b: wrong, not early
    expect(isEarlyExit('a=1+2=3\nb=3+1=4', problem)).toBe(false); // never closed: truncated, not an early exit
    // a line for every step, the last one misnamed or garbled: a wrong solution that never names c, not an early exit
    expect(isEarlyExit('a=1+2=3\nb=3+1=4\nd=4+3=7</think>7<eos>', problem)).toBe(false);
    expect(missesLastSubgoal('a=1+2=3\nb=3+1=4\nd=4+3=7</think>7<eos>', problem)).toBe(true);
    expect(isEarlyExit('a=1+2=3\nb=3+1=4\nc=4+</think>7<eos>', problem)).toBe(false);
    // a correction is not a step line: two steps and a correction is still short of three
    expect(isEarlyExit('a=1+2=4\nwait a=1+2=3\nb=3+1=4</think>7<eos>', problem)).toBe(true);
    // a free-form record's lines are read in prose
    const prose = {
      ...problem,
      problem: 'Let a be 1 plus 2. Let b be a plus 1. Let c be b plus a. What is c?',
      meta: { modulus: 10, format: 'prose', notation: problem.problem },
    };
    expect(isEarlyExit('a is 1 plus 2, which is 3.\nAdding 1 to 3 gives b = 4.\n</think>7<eos>', prose)).toBe(true);
    expect(isEarlyExit('a is 1 plus 2, which is 3.\nAdding 1 to 3 gives b = 4.\nNow c: 4 + 3 = 7.</think>7<eos>', prose)).toBe(false);
    // notation lines are not the bed's: c is never named in prose, but three lines were written for three steps
    expect(missesLastSubgoal('a=1+2=3\nb=3+1=4\nc=4+3=7</think>7<eos>', prose)).toBe(true);
    expect(isEarlyExit('a=1+2=3\nb=3+1=4\nc=4+3=7</think>7<eos>', prose)).toBe(false);
    // a restatement is not a step line
    expect(
      isEarlyExit('a is 1 plus 2, which is 3.\nWe still need c, which uses b and a.\nAdding 1 to 3 gives b = 4.</think>7<eos>', prose),
    ).toBe(true);
    expect(isEarlyExit('a is 1 plus 2, which is 3.\nAdding 1 to 3 gives b = 4.\nAdding 3 to 4 gives d = 7.</think>7<eos>', prose)).toBe(
      false,
    );
  });
});

describe('lm-quality report of the free-form bed', () => {
  it('shows the phrasing bars, and the checkpoint taken by name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-report-ff-'));
    const store = openStore(path.join(dir, 'store.sqlite'));
    try {
      const config = lmQualityConfigSchema.parse({ checkpoint: 'freeForm' });
      expect(config.checkpoint).toBe('packages/lm/checkpoints/free-form.ckpt');
      const run = store.startRun({ experiment: 'lm', config, backend: { backend: 'cpu', openblasThreads: 1 } });
      run.logMetrics({
        ...baseMetrics(),
        't1.stoppedShortFraction': 0.004,
        't1.missedLastSubgoalFraction': 0.013,
        'phrasing.samples': 200,
        'phrasing.reorderedShare': 0.25,
        'phrasing.unreadLineShare': 0.01,
        'phrasing.templates.plus': 5,
        'phrasing.templates.restate': 3,
      });
      run.finish();
      expect(lmQualityReport(store, run.id).phrasing).toEqual({
        samples: 200,
        reorderedShare: 0.25,
        unreadLineShare: 0.01,
        templates: { plus: 5, restate: 3 },
      });
      renderLmQualityTables(store, run.id, dir);
      const md = fs.readFileSync(path.join(dir, 'free-form.md'), 'utf8');
      expect(md).toMatch(/close their thinking early: .*the last variable unnamed \(eval-medium\) \| 0\.0040 \| ≤ 0\.01 \| yes/);
      expect(md).toMatch(/with the last variable unnamed \(early exits, misnamed or garbled last lines\) \| 0\.0130 \| — \| — \|/);
      expect(md).toMatch(/templates of 'plus' lines in 200 T = 1 samples \| 5 \| ≥ 4 \| yes/);
      expect(md).toMatch(/templates of 'restate' lines in 200 T = 1 samples \| 3 \| ≥ 4 \| \*\*no\*\*/);
      expect(md).toMatch(/otherwise than the reference \(of 200\) \| 0\.250 \| ≥ 0\.3 \| \*\*no\*\*/);
      // the char beds' entropy bar does not apply to a bed whose wording varies by design
      expect(md).toMatch(/result tokens \/ format tokens \(T = 1\) \| 9\.00 \| — \(wording varies by design\) \| — \|/);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
