import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from './errors';
import { checkOutputDir } from './output-dir';

describe('checkOutputDir', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-outdir-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const messageOf = (fn: () => void): string => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      return (e as Error).message;
    }
    throw new Error('expected a UserError');
  };

  it('accepts an existing directory and a path to be created, leaving nothing behind', () => {
    checkOutputDir(dir);
    checkOutputDir(path.join(dir, 'new', 'deeper'));
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses a file, or a path below a file, naming the flag', () => {
    const file = path.join(dir, 'table.md');
    fs.writeFileSync(file, 'x');
    expect(messageOf(() => checkOutputDir(file))).toBe(`--out: ${file} is a file, expected a directory for the output files`);
    expect(messageOf(() => checkOutputDir(path.join(file, 'sub'), '--dir'))).toBe(
      `--dir: ${file} (a parent of ${path.join(file, 'sub')}) is a file, expected a directory for the output files`,
    );
    fs.rmSync(file);
  });

  it('refuses a place nothing can be written to, such as /proc (issue 15 #16: it used to spin there)', () => {
    if (!fs.existsSync('/proc/self')) return; // Linux only; elsewhere the other cases cover the check
    expect(messageOf(() => checkOutputDir('/proc/x'))).toMatch(
      /^--out: cannot write into \/proc \(E[A-Z]+\), so \/proc\/x cannot hold the output files$/,
    );
  });
});
