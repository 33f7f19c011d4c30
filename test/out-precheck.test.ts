/**
 * An experiment's `--out` is checked before anything is computed or opened: a file, a
 * path below a file, or a place nothing can be written to is a one-line error with a non-zero exit, and
 * no store is created. It used to surface as a stack trace after a FINISHED run, or spin on /proc.
 */
import { execFileSync } from 'child_process';
import { ROOT, runScript } from './fixtures/run-script';
import { mountTinyTmpfs } from './fixtures/tmpfs';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

describe('--out is checked before the compute', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-out-'));
  const file = path.join(dir, 'not-a-dir.md');
  fs.writeFileSync(file, 'keep me\n');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cases: [string, string, RegExp][] = [
    ['an existing file', file, /--out: .*not-a-dir\.md is a file, expected a directory for the output files/],
    ['a path below a file', path.join(file, 'sub'), /--out: .*not-a-dir\.md \(a parent of .*\) is a file/],
    ...(fs.existsSync('/proc/self') ? [['/proc', '/proc/x', /--out: cannot write into \/proc/] as [string, string, RegExp]] : []),
  ];

  it.each(cases)('mc-variance --out <%s>', (_name, out, message) => {
    const store = path.join(dir, 'store.sqlite');
    const r = runScript('experiments/src/mc-variance/main.ts', ['--store', store, '--out', out], { timeoutMs: 60000 });
    expect(r.code).not.toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(fs.readdirSync(dir)).toEqual(['not-a-dir.md']);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('mc-variance --out <a full file system>: refused by the precheck, before any compute or store (a real 64 KiB tmpfs)', () => {
    const mnt = path.join(dir, 'full');
    if (!mountTinyTmpfs(mnt)) return; // not root: packages/core's output-path tests inject a full statfs instead
    try {
      const store = path.join(dir, 'store.sqlite');
      const r = runScript('experiments/src/mc-variance/main.ts', ['--store', store, '--out', path.join(mnt, 'out')], { timeoutMs: 60000 });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(`^error: --out: only 0\\.\\d MiB free on the file system of ${mnt}; the output needs about 4\\.0 MiB$`),
        ),
      ]);
      expect(fs.readdirSync(mnt)).toEqual([]);
      expect(fs.readdirSync(dir).sort()).toEqual(['full', 'not-a-dir.md']);
    } finally {
      execFileSync('umount', [mnt]);
      fs.rmdirSync(mnt);
    }
  });
});
