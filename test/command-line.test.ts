/**
 * Every command entry point, run as a real process: `--help` prints the usage and exits 0 without
 * creating a store; `--x=v` is read like `--x v`; an unknown flag is a one-line error listing the
 * valid flags; nothing is written for any of these.
 */
import { ROOT, runScriptAsync } from './fixtures/run-script';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

interface Entry {
  name: string;
  script: string;
  /** Words before the flags (a subcommand or positional). */
  lead?: string[];
  /** An `--x=v` argv that the parser must read as flag x with value v, and the error that proves it. */
  inline: [string[], RegExp];
}

const ENTRIES: Entry[] = [
  {
    name: 'rred runs list',
    script: 'packages/cli/bin/rred.js',
    lead: ['runs', 'list'],
    inline: [['--store='], /rred runs list: --store: got '', expected a file path/],
  },
  {
    name: 'rred db check',
    script: 'packages/cli/bin/rred.js',
    lead: ['db', 'check'],
    inline: [['--store='], /rred db check: --store: got '', expected a file path/],
  },
  {
    name: 'mc-variance',
    script: 'experiments/src/mc-variance/main.ts',
    inline: [['--seed=-1'], /seed: got '-1', expected an integer seed in \[0, 2\^32\)/],
  },
  {
    name: 'correlation',
    script: 'experiments/src/correlation/main.ts',
    inline: [['--seed=4294967297'], /seed: got '4294967297', expected an integer seed/],
  },
  {
    name: 'lm-quality',
    script: 'experiments/src/lm-quality/main.ts',
    inline: [['--seed=1.5'], /seed: got '1.5', expected an integer seed/],
  },
  { name: 'finetune', script: 'experiments/src/finetune/main.ts', inline: [['--steps=0'], /steps: got '0', expected a number >= 1/] },
  {
    name: 'sweep',
    script: 'experiments/src/sweep/main.ts',
    inline: [['--grid=/nonexistent/grid.json'], /grid file \/nonexistent\/grid\.json: cannot read \(no such file\)/],
  },
  {
    name: 'sweep-report',
    script: 'experiments/src/sweep/report.ts',
    inline: [['--sweep=abc', '--out='], /sweep-report: --out: got '', expected a directory path/],
  },
  {
    name: 'render',
    script: 'experiments/src/render/main.ts',
    lead: ['tables'],
    inline: [['--out='], /render: --out: got '', expected a directory path/],
  },
  { name: 'bench', script: 'experiments/src/bench/main.ts', inline: [['--only=nope'], /sections.0: got 'nope', expected one of "engine"/] },
  {
    name: 'evaluate',
    script: 'packages/recipes/src/cli/evaluate.ts',
    inline: [['--samplesPerProblem=0'], /samplesPerProblem: got '0', expected a number >= 1/],
  },
  {
    name: 'pretrain',
    script: 'packages/recipes/src/cli/pretrain.ts',
    inline: [['--seed=1e999'], /pretrain: --seed: got 1e999, expected a finite number/],
  },
  {
    name: 'notebooks:build',
    script: 'notebooks/src/build.ts',
    inline: [['--out='], /notebooks:build: --out: got '', expected a directory path/],
  },
  {
    name: 'notebooks:serve',
    script: 'notebooks/src/serve.ts',
    inline: [['--port=x'], /notebooks:serve: --port got 'x', expected an integer/],
  },
  {
    name: 'tasks:datasets',
    script: 'packages/tasks/src/cli/build-datasets.ts',
    inline: [['--seed=-1'], /seed: got '-1', expected an integer seed/],
  },
];

describe('every entry point uses the one parser', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-cli-'));
  const store = path.join(dir, 'store.sqlite');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (e: Entry, argv: string[]) => runScriptAsync(e.script, [...(e.lead ?? []), ...argv], { env: { RRED_STORE: store } });

  it.each(ENTRIES.map((e) => [e.name, e] as const))('%s: --help, --x=v, an unknown flag', async (_name, e) => {
    // the three processes run at once (each is mostly node + tsx startup)
    const [help, inline, unknown] = await Promise.all([run(e, ['--help']), run(e, e.inline[0]), run(e, ['--bogus=1'])]);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: .*\[flags\]\n\n.+\n/);
    expect(help.stdout).toMatch(/--help, -h +print this help and exit/);

    expect(inline.code).toBe(2);
    expect(inline.stderr).toMatch(e.inline[1]);
    expect(inline.stderr.trimEnd().split('\n')).toHaveLength(1);

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: .*unknown flag --bogus \(valid: --.*--help.*\)\n$/);

    // nothing was written: no store, no output directory
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
