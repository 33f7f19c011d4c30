/**
 * The bad-input cases that live in the command-line and config layer, run through the
 * same function an experiment's main.ts calls (runExperiment), with the store pointed at a fresh
 * directory: each must be a one-line UserError that shows the value as written, and nothing may be
 * written (no store file, no output directory).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from '@rred/core';
import type { ExperimentDefinition } from '../experiments/src/common/experiment';
import { runExperiment } from '../experiments/src/common/run-command';
import { mcVarianceExperiment } from '../experiments/src/mc-variance/definition';

const def = mcVarianceExperiment as unknown as ExperimentDefinition;

describe('experiment commands refuse bad flags and configs in one line, writing nothing', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-badinput-'));
  const store = path.join(dir, 'store.sqlite');
  const out = path.join(dir, 'out');
  const shipped = fs.readFileSync(path.join(__dirname, '..', 'experiments', 'configs', 'mc-variance.json'), 'utf8');
  const file = (name: string, text: string) => {
    const f = path.join(dir, 'configs', name);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
    return f;
  };
  const saved = process.env.RRED_STORE;
  beforeAll(() => {
    process.env.RRED_STORE = store;
  });
  afterAll(() => {
    process.env.RRED_STORE = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const message = async (argv: string[]): Promise<string> => {
    const err = await runExperiment(def, [...argv, '--out', out]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    const text = (err as Error).message;
    expect(text).not.toMatch(/[\n\r\uFEFF]/);
    expect(fs.existsSync(store)).toBe(false);
    expect(fs.existsSync(out)).toBe(false);
    return text;
  };

  it('#22: non-finite and empty values are shown as written, not as null or 0', async () => {
    expect(await message(['--seed', '1e999'])).toBe('mc-variance: --seed: got 1e999, expected a finite number');
    expect(await message(['--seed='])).toMatch(/seed: got '', expected a number$/);
    expect(await message(['--seed', 'NaN'])).toMatch(/seed: got 'NaN', expected a number$/);
    expect(await message(['--n', '-0'])).toMatch(/problems: got '-0', /);
  });

  it('#8: seeds outside [0, 2^32) are refused instead of aliasing mod 2^32', async () => {
    for (const seed of ['4294967297', '-4294967295', '4294967296', '-1', '1.5']) {
      expect(await message(['--seed', seed])).toMatch(
        new RegExp(`seed: got '${seed.replace('.', '\\.')}', expected an integer seed in \\[0, 2\\^32\\)`),
      );
    }
  });

  it('#25: a repeated --store, --config or --out is an error, even when the first was invalid', async () => {
    expect(await message(['--store', path.join(dir, 'a.sqlite'), '--store', store])).toBe('mc-variance: --store given twice; give it once');
    expect(await message(['--config', file('bad.json', '{"seed": -1}'), '--config', file('good.json', shipped)])).toBe(
      'mc-variance: --config given twice; give it once',
    );
    expect(await message(['--out', path.join(dir, 'other')])).toBe('mc-variance: --out given twice; give it once');
    expect(await message(['--samples', '3', '--mc.samplesPerExitPoint=4'])).toMatch(
      /--mc\.samplesPerExitPoint given twice \(also as --samples\)/,
    );
  });

  it('#6: an empty --store or --out is an error, never the default store or the repo root', async () => {
    expect(await message(['--store', ''])).toBe("mc-variance: --store: got '', expected a file path");
    const err = await runExperiment(def, ['--out', '']).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe("mc-variance: --out: got '', expected a directory path");
  });

  it('#26: zod wording is replaced, one line per config, YAML and BOM files and duplicate keys handled', async () => {
    expect(await message(['--n', '0', '--samples', '0'])).toMatch(
      /^invalid config \(.*mc-variance\.json \+ --problems, --mc\.samplesPerExitPoint\): problems: got '0', expected a number >= 1; mc\.samplesPerExitPoint: got '0', expected a number >= 1$/,
    );
    expect(await message(['--config', file('c.yaml', 'seed: 1\nproblems: 3\n')])).toMatch(
      /c\.yaml: not valid JSON at line 1, column 1: found "s", expected a value/,
    );
    expect(await message(['--config', file('dup.json', '{"seed": 1,\n "seed": 2}')])).toMatch(
      /dup\.json: key 'seed' appears twice \(line 2, column 2\); give each key once$/,
    );
    // a BOM is dropped: the BOM file is read like the plain one (here: both refuse the same bad value)
    expect(await message(['--config', file('bom.json', `\uFEFF${shipped.replace('"seed": 1', '"seed": -2')}`)])).toMatch(
      /bom\.json\): seed: got -2, expected an integer seed/,
    );
  });

  it('#28: a relative --config is relative to the repository root, whatever the cwd', async () => {
    const cwd = process.cwd();
    try {
      process.chdir(os.tmpdir());
      expect(await message(['--config', 'experiments/configs/nope.json'])).toBe(
        `config file ${path.resolve(__dirname, '..', 'experiments', 'configs', 'nope.json')}: cannot read (no such file)`,
      );
    } finally {
      process.chdir(cwd);
    }
  });
});
