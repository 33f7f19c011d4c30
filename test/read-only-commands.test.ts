/**
 * The commands that only read the store (`experiments:tables` / `plots`, `experiments:sweep-report`)
 * never create one: a mistyped `--store` is a one-line error with a non-zero exit, and no file appears
 * (no empty store is left behind).
 */
import { ROOT, runScript } from './fixtures/run-script';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const COMMANDS: [string, string[]][] = [
  ['render tables', ['experiments/src/render/main.ts', 'tables']],
  ['render plots', ['experiments/src/render/main.ts', 'plots']],
  ['sweep-report', ['experiments/src/sweep/report.ts', '--sweep', 'abc123']],
];

describe('read-only commands create no store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-readonly-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each(COMMANDS)('%s with a store path that does not exist', (_name, [script, ...args]) => {
    const missing = path.join(dir, 'typo.sqlite');
    const out = path.join(dir, 'out');
    const r = runScript(script, [...args, '--store', missing, '--out', out]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(`no results store at ${missing}`)]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
