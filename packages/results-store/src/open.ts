import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as path from 'path';
import { UserError } from '@rred/core';
import { MigrationError, SchemaTooNewError } from './errors';
import { migrate } from './migrations';

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Turns what SQLite or the file system says about an unusable store file into a UserError that
 * names the file and the problem. Errors that are not about the file pass through unchanged.
 */
export function storeFileError(file: string, err: unknown): unknown {
  if (err instanceof UserError) return err;
  if (err instanceof SchemaTooNewError) return new UserError(err.message);
  if (err instanceof MigrationError) return new UserError(`results store ${file} cannot be upgraded, so it was left as it was: ${err.message}`);
  const code = (err as { code?: string }).code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_NOTADB') return new UserError(`results store ${file} is not a SQLite database (${message}); move it away or point RRED_STORE elsewhere`);
  if (code.startsWith('SQLITE_CORRUPT')) return new UserError(`results store ${file} is corrupt (${message}); run 'rred db check' or restore it from a backup`);
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code === 'SQLITE_IOERR') {
    return new UserError(`results store ${file} cannot be written (${message}); check the path and its permissions`);
  }
  if (code === 'SQLITE_FULL') return new UserError(`results store ${file}: disk is full`);
  return err;
}

/**
 * Checks the path before SQLite touches it, so a bad path or a foreign file leaves nothing behind:
 * an existing file must start with the SQLite header; a new file needs a writable directory.
 */
function checkPath(file: string): void {
  let stat: fs.Stats | null = null;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new UserError(`results store ${file} cannot be created: a parent of it is a file, not a directory`);
    }
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UserError(`results store ${file} cannot be read: ${(err as Error).message}`);
  }
  if (stat) {
    if (!stat.isFile()) throw new UserError(`results store ${file} is not a regular file`);
    if (stat.size > 0) {
      const fd = fs.openSync(file, 'r');
      const head = Buffer.alloc(SQLITE_HEADER.length);
      try {
        fs.readSync(fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(fd);
      }
      if (!head.equals(SQLITE_HEADER)) {
        throw new UserError(`results store ${file} is not a SQLite database (its first bytes are not the SQLite header); move it away or point RRED_STORE elsewhere`);
      }
    }
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch {
      throw new UserError(`results store ${file} cannot be written: permission denied`);
    }
    return;
  }
  const dir = path.dirname(file);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'a parent of it is a file, not a directory' : (err as Error).message;
    throw new UserError(`results store ${file} cannot be created: ${why}`);
  }
}

export interface ConnectionOptions {
  busyTimeoutMs: number;
  /** Migrate to this version instead of the latest (tests of the upgrade path use it). */
  targetVersion?: number;
}

/** Opens (creating if needed) and migrates the SQLite file; any failure is a UserError naming it. */
export function openConnection(file: string, opts: ConnectionOptions): Database.Database {
  checkPath(file);
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { timeout: opts.busyTimeoutMs });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
    // Reading the schema first makes a damaged file fail here, before the pragmas below write.
    db.pragma('schema_version');
    db.pragma('journal_mode = WAL');
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
