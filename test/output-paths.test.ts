/**
 * Output paths end to end: `notebooks:build --out` never deletes a directory it did not write, a
 * mistyped `--results` is an error, and a full file system is refused by the output precheck (a real
 * 64 KiB tmpfs when this process may mount one, as root in CI; the unit tests of @rred/core inject a
 * full statfs everywhere else).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkOutputDir, UserError } from '@rred/core';
import { openStore } from '@rred/results-store';
import { FIXED_CONTEXT } from '@rred/results-store/testing';
import { runScript } from './fixtures/run-script';
import { mountTinyTmpfs } from './fixtures/tmpfs';

const BUILD = 'notebooks/src/build.ts';

describe('output paths', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-outputs-'));
  const store = path.join(dir, 'store', 'store.sqlite');
  const results = path.join(dir, 'results');
  beforeAll(() => {
    const s = openStore(store);
    const run = s.startRun({ experiment: 'exp', config: {}, backend: { backend: 'cpu', openblasThreads: null }, context: FIXED_CONTEXT });
    run.finish();
    s.close();
    fs.mkdirSync(path.join(results, 'exp'), { recursive: true });
    fs.writeFileSync(path.join(results, 'exp', 'table.md'), '# T\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const build = (out: string, res = results) => runScript(BUILD, ['--store', store, '--results', res, '--out', out]);
  const oneLine = (r: { code: number | null; stderr: string }) => {
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0];
  };

  it('notebooks:build --out never deletes a directory it did not write: unrelated files, a git work tree, the store it reads, results/', () => {
    const mine = path.join(dir, 'mine');
    fs.mkdirSync(path.join(mine, '.git'), { recursive: true });
    fs.writeFileSync(path.join(mine, 'keep'), 'x');
    for (const out of [mine, path.dirname(store), results]) {
      const before = fs.readdirSync(out).sort();
      expect(oneLine(build(out))).toBe(
        `error: notebooks:build: --out: ${out} is not empty and holds no .rred-site (it was not written by this command); refusing to replace it: give a new or empty directory`,
      );
      expect(fs.readdirSync(out).sort()).toEqual(before);
    }
    expect(fs.readFileSync(path.join(mine, 'keep'), 'utf8')).toBe('x');
  });

  it('notebooks:build writes a new directory, then replaces its own site (marked) on the next build', () => {
    const out = path.join(dir, 'site');
    expect(build(out).code).toBe(0);
    fs.writeFileSync(path.join(out, 'stale.html'), 'old');
    const r = build(out);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(out, 'stale.html'))).toBe(false);
    expect(fs.existsSync(path.join(out, '.rred-site'))).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('a mistyped --results is an error, not an empty site', () => {
    const out = path.join(dir, 'site2');
    expect(oneLine(build(out, path.join(dir, 'reslts')))).toBe(
      `error: notebooks:build: --results ${path.join(dir, 'reslts')}: no such directory (expected the committed results/ folder)`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('a full file system is refused by the output precheck (real tmpfs), and an export there leaves nothing', () => {
    const mnt = path.join(dir, 'full');
    if (!mountTinyTmpfs(mnt)) return; // not root: covered by the injected statfs of packages/core's output-path tests
    try {
      let err: unknown;
      try {
        checkOutputDir(path.join(mnt, 'out'));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toMatch(
        new RegExp(`^--out: only 0\\.\\d MiB free on the file system of ${mnt}; the output needs about 4\\.0 MiB$`),
      );
      const r = runScript('packages/cli/src/main.ts', [
        'runs',
        'export',
        '--experiment',
        'exp',
        '--format',
        'json',
        '--store',
        store,
        '--out',
        path.join(mnt, 'x.json'),
      ]);
      expect(oneLine(r)).toMatch(/^error: runs export: --out: only 0\.\d MiB free on the file system of /);
      expect(fs.readdirSync(mnt)).toEqual([]);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});
