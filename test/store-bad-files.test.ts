/**
 * Reliability regressions of the results store against bad files and bad paths, through the real `rred` bin: each case must give a one-line error and a
 * non-zero exit, or the correct result, and leave every file it was pointed at as it was.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openStore } from '@rred/results-store';
import { FIXED_CONTEXT } from '@rred/results-store/testing';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'rred.js');
const backend = { backend: 'cpu', openblasThreads: null };

interface Result {
  stdout: string;
  stderr: string;
  status: number | null;
}

function rred(args: string[], env: NodeJS.ProcessEnv = {}): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, RRED_STORE: '', ...env }, encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** A non-zero exit with exactly one line on stderr, `error: ...` matching `pattern` (never a stack trace). */
function expectOneLineError(r: Result, pattern: RegExp): void {
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(/^error: [^\n]*\n$/);
  expect(r.stderr).toMatch(pattern);
}

function tmp(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `rred-badfile-${label}-`));
}

/** A closed store with one finished run (all of it checkpointed into the main file: no -wal left). */
function storeWithRun(dir: string): { file: string; id: string } {
  const file = path.join(dir, 'store.sqlite');
  const store = openStore(file);
  const run = store.startRun({ experiment: 'mc-variance', config: { seed: 3, n: 2 }, backend, context: FIXED_CONTEXT });
  run.logMetrics({ acc: 0.5 }, 1);
  run.finish();
  store.close();
  return { file, id: run.id };
}

/** Every file in `dir` with its bytes: a case that must change nothing compares these before and after. */
function snapshot(dir: string): Record<string, string> {
  const digest = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.statSync(path.join(dir, f)).isFile() ? digest(path.join(dir, f)) : 'dir']),
  );
}

describe('the store against bad files and paths', () => {
  it('#1: runs export --out never overwrites the store, its side files or any SQLite file; writes atomically', () => {
    const dir = tmp('export');
    const { file, id } = storeWithRun(dir);
    const other = path.join(dir, 'other.sqlite');
    new Database(other).close();
    fs.writeFileSync(path.join(dir, 'other.sqlite'), fs.readFileSync(file)); // another SQLite file
    fs.symlinkSync(file, path.join(dir, 'link.csv'));
    fs.linkSync(file, path.join(dir, 'hard.csv'));
    const before = snapshot(dir);
    const cases: [string, RegExp][] = [
      [file, /--out .*store\.sqlite is the results store/],
      [path.relative(ROOT, file), /is the results store/],
      [`${file}-wal`, /is the results store's -wal file/],
      [`${file}-shm`, /is the results store's -shm file/],
      [path.join(dir, 'link.csv'), /is the results store/],
      [path.join(dir, 'hard.csv'), /is the results store/],
      [other, /other\.sqlite is a SQLite database; refusing to overwrite it/],
      [`${other}-wal`, /is the -wal file of the SQLite database/],
      ['', /--out: got '', expected a file path/],
      [dir, /is a directory, expected a file name/],
    ];
    for (const [out, pattern] of cases) {
      expectOneLineError(rred(['runs', 'export', id, '--format', 'csv', '--out', out, '--store', file]), pattern);
      expect(snapshot(dir)).toEqual(before);
    }
    // the default store (RRED_STORE) is protected the same way
    expectOneLineError(rred(['runs', 'export', id, '--format', 'csv', '--out', file], { RRED_STORE: file }), /is the results store/);
    expect(snapshot(dir)).toEqual(before);

    const csv = path.join(dir, 'runs.csv');
    fs.writeFileSync(csv, 'stale content that is longer than the new export will be, by quite a lot of characters '.repeat(40));
    const ok = rred(['runs', 'export', id, '--format', 'csv', '--out', csv, '--store', file]);
    expect(ok.status).toBe(0);
    expect(fs.readFileSync(csv, 'utf8')).toMatch(new RegExp(`^id,experiment.*\\n${id},mc-variance,`));
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(openStore(file).getRun(id).status).toBe('FINISHED');
  });

  it('#11: a foreign SQLite database passed as --store is refused and left unmodified', () => {
    const dir = tmp('foreign');
    const notes = path.join(dir, 'notes.db');
    const db = new Database(notes);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me');");
    db.close();
    const withRuns = path.join(dir, 'runs.db');
    const db2 = new Database(withRuns);
    db2.exec('CREATE TABLE runs (x TEXT); CREATE TABLE laps (y REAL);');
    db2.close();
    const before = snapshot(dir);
    for (const f of [notes, withRuns]) {
      expectOneLineError(
        rred(['runs', 'list', '--store', f]),
        /is a SQLite database but not a results store \(tables .*\); refusing to touch it; the file was not changed/,
      );
      expect(() => openStore(f)).toThrow(/not a results store/);
    }
    expect(snapshot(dir)).toEqual(before); // no rred tables, no -wal/-shm, journal mode unchanged
    const check = new Database(notes, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    check.close();
    // db check says what it is instead of "integrity ok"
    expectOneLineError(rred(['db', 'check', '--store', notes]), /not a results store/);
  });

  it('#12: a healthy store this process may not write: db check, runs list and show work and create nothing', () => {
    const dir = tmp('readonly');
    const { file, id } = storeWithRun(dir);
    const before = snapshot(dir);
    makeReadOnly(dir, file);
    try {
      const check = rred(['db', 'check', '--store', file]);
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
      expect(check.stdout).toMatch(/integrity +ok/);
      const list = rred(['runs', 'list', '--store', file]);
      expect(list.stderr).toBe('');
      expect(list.stdout).toContain(id);
      const show = rred(['runs', 'show', id, '--store', file]);
      expect(show.status).toBe(0);
      expect(show.stdout).toMatch(/acc +0\.5/);
      // a write is refused with a one-line message
      const store = openStore(file, { readOnly: true });
      expect(() => store.startRun({ experiment: 'x', config: {}, backend, context: FIXED_CONTEXT })).toThrow(/cannot be written/);
      store.close();
      expect(snapshot(dir)).toEqual(before);
    } finally {
      undoReadOnly(dir, file);
    }
  });

  it('#17: a store damaged inside a page gives a one-line error, not an internal error', () => {
    const dir = tmp('malformed');
    const { file } = storeWithRun(dir);
    const db = new Database(file); // read-write: closing it removes the -wal/-shm it creates
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const root = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").pluck().get() as number;
    db.close();
    const bytes = fs.readFileSync(file);
    bytes.fill(0xee, (root - 1) * pageSize, root * pageSize);
    fs.writeFileSync(file, bytes);
    const before = snapshot(dir);
    for (const args of [
      ['runs', 'list'],
      ['runs', 'show', 'abc'],
    ]) {
      const r = rred([...args, '--store', file]);
      expectOneLineError(r, /results store .*store\.sqlite is corrupt \(database disk image is malformed\)/);
      expect(r.stderr).not.toMatch(/internal error|SqliteError/);
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it('#18: a user_version that disagrees with the tables is refused (open and db check), the file unchanged', () => {
    const dir = tmp('version');
    const { file } = storeWithRun(dir);
    const tamper = (sql: string) => {
      const db = new Database(file);
      db.exec(sql);
      db.close();
    };
    tamper('PRAGMA user_version = 1');
    let before = snapshot(dir);
    expectOneLineError(
      rred(['runs', 'list', '--store', file]),
      /says schema version 1 \(PRAGMA user_version\) but its tables disagree \(tables of a later version traces, segments, estimates, estimator_costs, continuations\)/,
    );
    expect(() => openStore(file)).toThrow(/says schema version 1/);
    const check = rred(['db', 'check', '--store', file]);
    expectOneLineError(check, /says schema version 1/);
    expect(check.stdout).toMatch(/integrity +ok/); // the pages are fine; the schema is not
    expect(snapshot(dir)).toEqual(before);

    tamper('PRAGMA user_version = 3; DROP TABLE continuations; DROP TABLE tags;');
    before = snapshot(dir);
    expectOneLineError(rred(['runs', 'list', '--store', file]), /says schema version 3 .*missing tables tags, continuations/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('#19: --store naming a directory is a one-line error for db check and the run commands', () => {
    const dir = tmp('dir');
    for (const args of [
      ['db', 'check'],
      ['runs', 'list'],
    ]) {
      expectOneLineError(rred([...args, '--store', dir]), /results store .* is not a regular file/);
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

/**
 * Makes the store and its directory unwritable for this process. As root, permission bits do not
 * bind, so the immutable attribute is used (chattr, which root may set on ext2/3/4, xfs, btrfs).
 */
function makeReadOnly(dir: string, file: string): void {
  if (process.getuid?.() === 0) {
    const r = spawnSync('chattr', ['+i', file, dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cannot make ${dir} read-only for root (chattr +i: ${r.stderr.trim()})`);
  } else {
    fs.chmodSync(file, 0o444);
    fs.chmodSync(dir, 0o555);
  }
  expect(() => fs.accessSync(file, fs.constants.W_OK)).toThrow();
}

function undoReadOnly(dir: string, file: string): void {
  if (process.getuid?.() === 0) spawnSync('chattr', ['-i', file, dir]);
  else {
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(file, 0o644);
  }
}
