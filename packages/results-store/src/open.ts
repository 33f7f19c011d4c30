import Database from 'better-sqlite3';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { UserError } from '@rred/core';
import { MigrationError, SchemaTooNewError } from './errors';
import { LATEST_VERSION, migrate, schemaVersion } from './migrations';
import { pgStoreError } from './pg/open-pg';
import { PgError } from './pg/sync-client';
import { schemaProblem } from './schema-check';
import { hasSqliteHeader } from './sqlite-file';

// `file:` URIs (for `immutable=1` below) must be enabled before better-sqlite3 loads its addon, which
// it does at the first `new Database`; this module is what constructs databases in this project.
process.env.SQLITE_USE_URI ??= '1';

/**
 * Turns what SQLite or the file system says about an unusable store file into a UserError that
 * names the file and the problem. Errors that are not about the file pass through unchanged.
 */
export function storeFileError(file: string, err: unknown): unknown {
  if (err instanceof UserError) return err;
  if (err instanceof PgError) return pgStoreError(file, err);
  if (err instanceof SchemaTooNewError) return new UserError(err.message);
  if (err instanceof MigrationError)
    return new UserError(`results store ${file} cannot be upgraded, so it was left as it was: ${err.message}`);
  const code = (err as { code?: string }).code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_NOTADB')
    return new UserError(`results store ${file} is not a SQLite database (${message}); move it away or point RRED_STORE elsewhere`);
  if (code.startsWith('SQLITE_CORRUPT'))
    return new UserError(`results store ${file} is corrupt (${message}); run 'rred db check' or restore it from a backup`);
  if (
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_PERM') ||
    code === 'SQLITE_IOERR'
  ) {
    return new UserError(`results store ${file} cannot be written (${message}); check the path and its permissions`);
  }
  if (code === 'SQLITE_FULL') return new UserError(`results store ${file}: disk is full`);
  return err;
}

/**
 * Checks the path before SQLite touches it, so a bad path or a foreign file leaves nothing behind:
 * an existing file must start with the SQLite header; a new file needs a writable directory. Returns
 * whether the file exists.
 */
function checkPath(file: string): boolean {
  let stat: fs.Stats | null = null;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new UserError(`results store ${file} cannot be created: a parent of it is a file, not a directory`);
    }
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UserError(`results store ${file} cannot be read: ${(err as Error).message}`);
  }
  if (stat) {
    if (!stat.isFile()) throw new UserError(`results store ${file} is not a regular file`);
    if (stat.size > 0 && !hasSqliteHeader(file)) {
      throw new UserError(
        `results store ${file} is not a SQLite database (its first bytes are not the SQLite header); move it away or point RRED_STORE elsewhere`,
      );
    }
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch {
      throw new UserError(`results store ${file} cannot be written: permission denied`);
    }
    return true;
  }
  const dir = path.dirname(file);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'a parent of it is a file, not a directory' : (err as Error).message;
    throw new UserError(`results store ${file} cannot be created: ${why}`);
  }
  return false;
}

interface ConnectionOptions {
  busyTimeoutMs: number;
  /** Migrate to this version instead of the latest (tests of the upgrade path use it). */
  targetVersion?: number;
  /** Open for reading only: nothing is created, migrated or written (see openReadOnly). */
  readOnly?: boolean;
}

/**
 * Stores up to this size get a full `PRAGMA quick_check` (every page read, ~3 ms per MB) each time they
 * are opened for writing; larger ones only the cheap check that the file holds every page its header
 * counts (a truncated file). A damaged page is then found before any run is started, not after its compute.
 */
const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Refuses a file whose tables are not what its schema version says (a foreign or damaged database),
 * and, with `check`, one SQLite finds damaged. The version and the tables are read in one read
 * transaction, so a store another process creates meanwhile is seen whole or not at all.
 */
function checkSchema(db: Database.Database, file: string, check = false): number {
  return db.transaction(() => {
    // Reading the schema first makes a damaged file fail here, before anything writes.
    db.pragma('schema_version');
    const version = schemaVersion(db);
    const problem = schemaProblem(db, version);
    if (problem) throw new UserError(`results store ${file} ${problem}; the file was not changed`);
    if (check) checkPages(db, file);
    return version;
  })();
}

/** quick_check (or, for a large store, its page count against its size); a problem is a UserError, nothing written. */
function checkPages(db: Database.Database, file: string): void {
  const size = fs.statSync(file).size;
  let problems: string[];
  if (size <= QUICK_CHECK_MAX_BYTES) {
    try {
      problems = (db.pragma('quick_check', { simple: false }) as object[]).map((r) => String(Object.values(r)[0]));
    } catch (err) {
      if (!String((err as { code?: string }).code).startsWith('SQLITE_CORRUPT')) throw err;
      problems = [(err as Error).message];
    }
  } else {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    problems = size < pages * pageSize ? [`the file has ${size} bytes, its header counts ${pages} pages of ${pageSize}`] : ['ok'];
  }
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new UserError(
      `results store ${file} is corrupt (${problems[0]}${problems.length > 1 ? `, and ${problems.length - 1} more` : ''}); the file was not changed; run 'rred db check' or restore it from a backup`,
    );
  }
}

/**
 * journal_mode = WAL, once per file (WAL persists). Switching needs the file to itself, and SQLite
 * answers SQLITE_BUSY at once instead of waiting out busy_timeout when another connection is opening the
 * new file at the same moment (seen with 3 writers on a loaded machine): retried every 20 ms up to the
 * busy timeout. A file already in WAL mode needs no switch.
 */
function useWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + Math.max(0, busyTimeoutMs);
  for (;;) {
    try {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // a synchronous 20 ms pause
    }
  }
}

/**
 * Creates a new store atomically: the schema is written to a temporary file beside `file` (in rollback
 * mode, so every page is in the main file when it closes, then switched to WAL), which is then hard-linked
 * to `file`. A link never replaces a file, so when another process created the store first (EEXIST) its
 * store is used and ours is dropped; a reader never sees a half-created store; a failure (a full disk)
 * leaves no file behind, not even an empty one.
 */
function createStore(file: string, opts: ConnectionOptions): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.new-${process.pid}-${randomBytes(4).toString('hex')}`);
  let db: Database.Database | null = null;
  try {
    db = new Database(tmp, { timeout: opts.busyTimeoutMs });
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, file, opts.targetVersion);
    db.pragma('journal_mode = WAL');
    db.close();
    db = null;
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return; // another process created it first: that store is used
      // a file system without hard links: rename, which could only replace a store created in the last instant
      if ((code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') && !fs.existsSync(file)) fs.renameSync(tmp, file);
      else throw err;
    }
  } catch (err) {
    throw storeFileError(file, err);
  } finally {
    db?.close();
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${tmp}${suffix}`, { force: true });
  }
}

/** Opens (creating if needed) and migrates the SQLite file; any failure is a UserError naming it. */
export function openConnection(file: string, opts: ConnectionOptions): Database.Database {
  if (opts.readOnly) return openReadOnly(file, opts.busyTimeoutMs);
  if (!checkPath(file)) createStore(file, opts);
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { timeout: opts.busyTimeoutMs, fileMustExist: true });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
    checkSchema(db, file, true); // before the first write: journal_mode = WAL, migrations and reaping change the file
    useWal(db, opts.busyTimeoutMs);
    // WAL + NORMAL: a killed process never corrupts the file or loses a committed transaction.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, file, opts.targetVersion);
    return db;
  } catch (err) {
    db?.close();
    throw storeFileError(file, err);
  }
}

/** Checks that an existing store file can be read: a regular, readable SQLite file. */
function checkReadable(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UserError(`no results store at ${file}`);
    throw new UserError(`results store ${file} cannot be read: ${(err as Error).message}`);
  }
  if (!stat.isFile()) throw new UserError(`results store ${file} is not a regular file${stat.isDirectory() ? ' (it is a directory)' : ''}`);
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    throw new UserError(`results store ${file} cannot be read: permission denied`);
  }
  if (!hasSqliteHeader(file))
    throw new UserError(`results store ${file} is not a SQLite database (its first bytes are not the SQLite header)`);
}

/**
 * A read-only connection that creates nothing. A WAL database normally needs its -shm file even to
 * be read, and SQLite creates -wal/-shm beside it (or fails in a read-only directory). When no -wal
 * file exists every committed row is in the main file, so it is opened `immutable`: no side files, no
 * locks. (That is only safe while nobody writes the file, which is why only stores this process may
 * not write are opened this way.) With a -wal present (a writer is active, or died) it is read
 * through the normal read-only path, which uses the existing side files.
 */
export function rawReadOnlyConnection(file: string, busyTimeoutMs = 10000): Database.Database {
  checkReadable(file);
  if (!fs.existsSync(`${file}-wal`)) {
    const uri = `file:${path.resolve(file).split('/').map(encodeURIComponent).join('/')}?immutable=1`;
    try {
      return new Database(uri, { readonly: true, fileMustExist: true });
    } catch {
      // URIs not enabled in this process (another module loaded SQLite first): the normal way below
    }
  }
  return new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
}

/**
 * Opens an existing store for reading only: no reaping, no migration, nothing created. A store older
 * than this code cannot be upgraded this way and is refused with the way out.
 */
function openReadOnly(file: string, busyTimeoutMs: number): Database.Database {
  let db: Database.Database | null = null;
  try {
    db = rawReadOnlyConnection(file, busyTimeoutMs);
    const version = checkSchema(db, file);
    if (version > LATEST_VERSION)
      throw new UserError(`${file}: schema version ${version} is newer than this code understands (${LATEST_VERSION}); update the project`);
    if (version < LATEST_VERSION) {
      throw new UserError(
        `results store ${file} is at schema version ${version}, older than this code (${LATEST_VERSION}), and can only be read here, so it cannot be upgraded; run any rred command once with write access to it`,
      );
    }
    return db;
  } catch (err) {
    db?.close();
    throw storeFileError(file, err);
  }
}
