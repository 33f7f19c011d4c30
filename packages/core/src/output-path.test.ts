import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from './errors';
import { checkOutputDir, checkOutputFile, checkReplaceableDir, replaceOutputDir, writeOutputFile, type StatFs } from './output-path';

const messageOf = (fn: () => void): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
};

/** A file system with `free` bytes left (statfs injected). */
const full =
  (free: number): StatFs =>
  () => ({ bavail: free / 4096, bsize: 4096 });

/**
 * A character device to aim --out at: as root (who could replace the system's /dev/null if the check ever
 * regressed), a private node made with mknod in `dir`; otherwise /dev/null, which a non-root process cannot replace.
 */
function characterDevice(dir: string): string {
  if (process.getuid?.() !== 0) return '/dev/null';
  execFileSync('mknod', ['-m', '666', path.join(dir, 'null'), 'c', '1', '3']);
  return path.join(dir, 'null');
}

describe('checkOutputDir', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-outdir-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

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

  it('refuses a place nothing can be written to, such as /proc', () => {
    if (!fs.existsSync('/proc/self')) return; // Linux only; elsewhere the other cases cover the check
    expect(messageOf(() => checkOutputDir('/proc/x'))).toMatch(
      /^--out: cannot write into \/proc \(E[A-Z]+\), so \/proc\/x cannot hold the output files$/,
    );
  });

  it('refuses a full file system before anything is computed (making a directory needs no free blocks)', () => {
    expect(messageOf(() => checkOutputDir(path.join(dir, 'out'), '--out', { statfs: full(8192) }))).toBe(
      `--out: only 0.0 MiB free on the file system of ${dir}; the output needs about 4.0 MiB`,
    );
    checkOutputDir(path.join(dir, 'out'), '--out', { statfs: full(64 * 1024 * 1024) });
  });
});

describe('checkOutputFile and writeOutputFile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-outfile-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replaces a regular file as a whole and leaves no temporary file behind', () => {
    const file = path.join(dir, 'out.csv');
    fs.writeFileSync(file, 'old content');
    expect(checkOutputFile(file)).toBe(file);
    writeOutputFile(file, 'new');
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.readdirSync(dir)).toEqual(['out.csv']);
    fs.rmSync(file);
  });

  it('never turns a FIFO, a character device or a symlink into a regular file', () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const link = path.join(dir, 'link');
    fs.writeFileSync(path.join(dir, 'real'), 'keep');
    fs.symlinkSync(path.join(dir, 'real'), link);
    const device = characterDevice(dir);
    for (const [target, kind] of [
      [fifo, 'a FIFO'],
      [device, 'a character device'],
      [link, 'a symlink'],
    ]) {
      expect(messageOf(() => checkOutputFile(target))).toBe(
        `--out ${target} is ${kind}; only a regular file (or a new name) is written, choose another file`,
      );
      expect(messageOf(() => writeOutputFile(target, 'x'))).toBe(
        `--out ${target} is ${kind}; only a regular file (or a new name) is written`,
      );
    }
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
    expect(fs.statSync(device).isCharacterDevice()).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'real'), 'utf8')).toBe('keep');
    expect(
      fs
        .readdirSync(dir)
        .filter((f) => f !== 'null')
        .sort(),
    ).toEqual(['fifo', 'link', 'real']);
    for (const f of ['fifo', 'link', 'real']) fs.rmSync(path.join(dir, f));
  });

  it('refuses a directory that does not exist (e.g. under /proc) and a directory as the file, in one line', () => {
    expect(messageOf(() => checkOutputFile('/proc/nope/x'))).toBe('--out /proc/nope/x: its directory /proc/nope does not exist');
    expect(messageOf(() => checkOutputFile(dir))).toBe(`--out ${dir} is a directory, expected a file name`);
    expect(messageOf(() => checkOutputFile(''))).toBe('--out: got an empty path, expected a file name');
  });

  it('a failed write keeps the old file and names the file', () => {
    const sub = path.join(dir, 'ro');
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, 'f'), 'old');
    expect(messageOf(() => writeOutputFile(path.join(sub, 'missing', 'f'), 'new'))).toBe(
      `--out: cannot write ${path.join(sub, 'missing', 'f')} (ENOENT)`,
    );
    expect(fs.readdirSync(sub)).toEqual(['f']);
    fs.rmSync(sub, { recursive: true });
  });
});

describe('replaceOutputDir', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-replace-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const MARK = '.marker';
  const built = (name: string) => {
    const tmp = fs.mkdtempSync(path.join(dir, `.${name}-`));
    fs.writeFileSync(path.join(tmp, MARK), '');
    fs.writeFileSync(path.join(tmp, 'index.html'), 'new');
    return tmp;
  };

  it('replaces a missing, an empty or a marked directory', () => {
    const out = path.join(dir, 'site');
    replaceOutputDir(built('a'), out, MARK);
    fs.writeFileSync(path.join(out, 'stale'), 'x');
    replaceOutputDir(built('b'), out, MARK);
    expect(fs.readdirSync(out).sort()).toEqual([MARK, 'index.html']);
    fs.rmSync(out, { recursive: true });
    fs.mkdirSync(out);
    replaceOutputDir(built('c'), out, MARK);
    expect(fs.readdirSync(out).sort()).toEqual([MARK, 'index.html']);
    expect(fs.readdirSync(dir)).toEqual(['site']);
    fs.rmSync(out, { recursive: true });
  });

  it('never deletes a directory it did not write (unrelated files, a git work tree), nor follows a symlink', () => {
    const out = path.join(dir, 'mine');
    fs.mkdirSync(path.join(out, '.git'), { recursive: true });
    fs.writeFileSync(path.join(out, 'keep'), 'x');
    const expected = `--out: ${out} is not empty and holds no ${MARK} (it was not written by this command); refusing to replace it: give a new or empty directory`;
    expect(messageOf(() => checkReplaceableDir(out, MARK))).toBe(expected);
    expect(messageOf(() => replaceOutputDir(built('d'), out, MARK))).toBe(expected);
    expect(fs.readdirSync(out).sort()).toEqual(['.git', 'keep']);
    const link = path.join(dir, 'link');
    fs.symlinkSync(out, link);
    expect(messageOf(() => replaceOutputDir(built('e'), link, MARK))).toBe(`--out: ${link} is a symlink, expected a directory`);
    expect(fs.readdirSync(dir).sort()).toEqual(['link', 'mine']);
  });
});
