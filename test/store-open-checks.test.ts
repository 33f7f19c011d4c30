/**
 * What opening a store for writing checks before anything is written: a store with a damaged page is
 * reported corrupt before a run is started (the file keeps every byte), and a new store on a full
 * file system leaves no file at all (a real 64 KiB tmpfs when this process may mount one).
 */
import { createHash } from 'crypto';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runScript } from './fixtures/run-script';
import { mountTinyTmpfs } from './fixtures/tmpfs';

const WRITER = 'test/fixtures/store-writer.ts';
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('opening a store for writing', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-open-checks-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reports a damaged last page as corrupt before any run is started, and leaves the file as it was', () => {
    const file = path.join(dir, 'damaged.sqlite');
    expect(runScript(WRITER, [file, 'exp', '40']).code).toBe(0);
    const size = fs.statSync(file).size;
    expect(fs.existsSync(`${file}-wal`)).toBe(false); // closed cleanly: every page is in the file
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, size - 4096); // the last page: garbage
    fs.closeSync(fd);
    const before = sha(file);
    const r = runScript(WRITER, [file, 'exp', '1']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(''); // no run was started
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^error: results store ${file} is corrupt \\(.*\\); the file was not changed; run 'rred db check' or restore it from a backup$`,
        ),
      ),
    ]);
    expect(sha(file)).toBe(before);
    expect(fs.statSync(file).size).toBe(size);
  });

  it('a new store on a full file system is one line and leaves no file, not even an empty one', () => {
    const mnt = path.join(dir, 'full');
    if (!mountTinyTmpfs(mnt)) return; // not root: nothing to fill without a mount
    try {
      fs.writeFileSync(path.join(mnt, 'filler'), Buffer.alloc(48 * 1024)); // 16 KiB left: less than a store's schema
      const file = path.join(mnt, 'store.sqlite');
      const r = runScript(WRITER, [file, 'exp', '1']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([`error: results store ${file}: disk is full`]);
      expect(fs.readdirSync(mnt)).toEqual(['filler']);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});
