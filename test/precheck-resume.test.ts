/**
 * Reliability suite, bad input: one precheck runs before anything is
 * written. Every case below must be a one-line UserError naming what is wrong, and must leave the store
 * as it was: no store file created where there was none, no run row added where there was one.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { UserError } from '@rred/core';
import { openStore } from '@rred/results-store';
import type { ExperimentDefinition } from '../experiments/src/common/experiment';
import { runExperiment } from '../experiments/src/common/run-command';
import { experimentByName } from '../experiments/src/registry';
import { ROOT, runScript } from './fixtures/run-script';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-precheck-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const backend = { backend: 'cpu', openblasThreads: null };

/** The one-line UserError `runExperiment` throws for these flags (it must throw one). */
async function refusal(experiment: string, argv: string[]): Promise<string> {
  const def = experimentByName(experiment) as ExperimentDefinition;
  const err = await runExperiment(def, [...argv, '--out', path.join(dir, 'out')]).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  return message;
}

/** A checkpoint with one flipped bit in its weights. */
function flippedCheckpoint(): string {
  const bytes = fs.readFileSync(path.join(ROOT, 'packages', 'lm', 'checkpoints', 'embedded.ckpt'));
  bytes[bytes.length - 3] ^= 0x10;
  const file = path.join(dir, 'flipped.ckpt');
  fs.writeFileSync(file, bytes);
  return file;
}

describe('before anything is written: no store is created for bad input', () => {
  const missing = path.join(dir, 'never-created.sqlite');
  afterEach(() => expect(fs.existsSync(missing)).toBe(false));

  it.each<[string, string, string[], RegExp]>([
    ['--mcRun not hexadecimal', 'correlation', ['--mcRun', 'zz'], /^source\.mcRun zz: /],
    ['--mcRun naming no run', 'correlation', ['--mcRun', 'abc123'], /^source\.mcRun abc123: there is no results store yet/],
    [
      'onMissing error without an MC run',
      'correlation',
      ['--source.onMissing', 'error'],
      /no FINISHED mc-variance run .*source\.onMissing 'error'/,
    ],
    ['a checkpoint with a flipped bit', 'mc-variance', ['--checkpoint', '<flipped>'], /weights checksum mismatch .* the file is corrupt$/],
    [
      'dataset text outside the alphabet',
      'lm',
      ['--compositeSplit', 'eval-medium-composite'],
      /^packages\/tasks\/data\/eval-medium-composite\.jsonl:1 \(record eval-medium-composite-00000\): tokenizer: character "," .* not in the alphabet of checkpoint/,
    ],
    ['a split too small', 'mc-variance', ['--n', '100000'], /^split eval-medium has \d+ problems, 100000 were asked for$/],
    [
      'a context too short',
      'mc-variance',
      ['--rollout.maxNewTokens', '150'],
      /^rollout\.maxNewTokens 150: with the \d+-token prompt of .*eval-medium\.jsonl:\d+ \(record eval-medium-\d+\) it exceeds the context of 160; expected at most \d+$/,
    ],
    ['--resume without a store', 'mc-variance', ['--resume', 'abc123'], /^--resume abc123: there is no results store at /],
  ])('%s', async (_name, experiment, argv, expected) => {
    const args = argv.map((a) => (a === '<flipped>' ? flippedCheckpoint() : a));
    expect(await refusal(experiment, [...args, '--store', missing])).toMatch(expected);
  });
});

describe('before anything is written: an existing store gains no run', () => {
  const file = path.join(dir, 'existing.sqlite');
  const ids: Record<string, string> = {};
  beforeAll(() => {
    const store = openStore(file);
    const mc = (status: 'FINISHED' | 'KILLED', problems: number) => {
      const config = { ...JSON.parse(fs.readFileSync(path.join(ROOT, 'experiments', 'configs', 'mc-variance.json'), 'utf8')), problems };
      const run = store.startRun({ experiment: 'mc-variance', config, backend, tags: { checkpointHash: 'not-this-checkpoint' } });
      if (status === 'FINISHED') run.finish();
      else run.kill('received SIGINT');
      return run.id;
    };
    ids.finished = mc('FINISHED', 3);
    ids.killed = mc('KILLED', 3);
    const other = store.startRun({ experiment: 'bench', config: {}, backend });
    other.kill('received SIGINT');
    ids.other = other.id;
    store.close();
  });
  const runCount = () => {
    const store = openStore(file);
    try {
      return store.listRuns().length;
    } finally {
      store.close();
    }
  };

  it.each<[string, string, string[], RegExp]>([
    ['--mcRun naming no run', 'correlation', ['--mcRun', 'abc123'], /^source\.mcRun: no run with id 'abc123' in /],
    [
      '--mcRun naming a run of another checkpoint',
      'correlation',
      ['--mcRun', '<finished>'],
      /its traces come from checkpoint not-this-che/,
    ],
    [
      '--mcRun naming a KILLED run',
      'correlation',
      ['--mcRun', '<killed>'],
      /is a KILLED mc-variance run; expected a FINISHED mc-variance run$/,
    ],
    ['--resume an unknown run', 'mc-variance', ['--resume', 'abc123'], /^--resume abc123: no run with id 'abc123' in /],
    ['--resume a FINISHED run', 'mc-variance', ['--resume', '<finished>'], /is already FINISHED; nothing to resume$/],
    ['--resume a run of another experiment', 'mc-variance', ['--resume', '<other>'], /is a bench run, not mc-variance$/],
    [
      '--resume with a config that differs',
      'mc-variance',
      ['--resume', '<killed>', '--n', '5'],
      /: problems is 3 in run \w+ but 5 here; a resumed run keeps its config/,
    ],
  ])('%s', async (_name, experiment, argv, expected) => {
    const before = runCount();
    const args = argv.map((a) => (a.startsWith('<') ? ids[a.slice(1, -1)] : a));
    expect(await refusal(experiment, [...args, '--store', file])).toMatch(expected);
    expect(runCount()).toBe(before);
  });
});

describe('pretrain refuses a context shorter than its examples', () => {
  it('one line naming contextLength and the longest example; nothing written', () => {
    const out = path.join(dir, 'pretrain');
    const store = path.join(out, 'store.sqlite');
    const r = runScript(
      'packages/recipes/src/cli/pretrain.ts',
      [
        '--model.contextLength=16',
        '--store',
        store,
        '--output.checkpoint',
        path.join(out, 'x.ckpt'),
        '--output.state',
        path.join(out, 'x.state'),
        '--output.runRecord',
        path.join(out, 'x.json'),
      ],
      { timeoutMs: 120000 },
    );
    expect(r.code).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^error: model\.contextLength 16: the longest training example \(train-\d+: prompt \d+ \+ completion \d+ tokens\) needs a context of at least \d+$/,
    );
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('--where nested 5000 deep', () => {
  it('is a one-line error with exit code 2, not a stack overflow', () => {
    const file = path.join(dir, 'where.sqlite');
    openStore(file).close();
    const where = `${'('.repeat(5000)}id = 'a'${')'.repeat(5000)}`;
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'packages', 'cli', 'bin', 'rred.js'), 'runs', 'list', '--store', file, '--where', where],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/parentheses nest more than 100 deep/);
  });
});
