import { UserError } from '@rred/core';
import { LATEST_VERSION, migrate, schemaVersion } from '../migrations';
import { schemaProblem } from '../schema-check';
import { redactUrl } from '../store-url';
import { PgDatabase } from './pg-database';
import { PgError } from './sync-client';

/** SQLSTATE / errno codes of a server that cannot be reached or that went away. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOENT', 'TIMEOUT']);

/**
 * What the server or the driver says about an unusable PostgreSQL store, as a one-line UserError naming the
 * store (its URL without the password). Errors that are not about the connection pass through unchanged.
 */
export function pgStoreError(store: string, err: PgError): unknown {
  const where = `results store ${redactUrl(store)}`;
  const why = err.message.replace(/\s+/g, ' ').trim();
  if (err.code === '28P01' || err.code === '28000')
    return new UserError(`${where}: the server refused the credentials (${why}); check the user and password in the URL`);
  if (err.code === '3D000') return new UserError(`${where}: no such database on the server (${why}); create it first (createdb)`);
  if (err.code.startsWith('08') || err.code.startsWith('57P') || /terminat|ECONNRESET|EPIPE|closed/i.test(`${err.code} ${why}`))
    return new UserError(`${where}: the connection to the server was lost (${why}); nothing of the interrupted write was kept`);
  if (UNREACHABLE.has(err.code) || (/timeout expired|connect/i.test(why) && err.code === ''))
    return new UserError(`${where}: cannot reach the PostgreSQL server (${why}); is it running and is the URL right?`);
  if (err.code === '55P03') return new UserError(`${where}: another writer held the store's write lock past the busy timeout (${why})`);
  if (err.code === '42501')
    return new UserError(`${where}: permission denied (${why}); the user needs CREATE and write rights on the database`);
  return err;
}

interface PgOpenOptions {
  busyTimeoutMs: number;
  targetVersion?: number;
  /** Refuse an older schema instead of upgrading it (a read-only opening). */
  readOnly?: boolean;
}

/**
 * Connects to a PostgreSQL store and brings its schema up to date, as openConnection does for a file: a
 * database with tables but no rred schema version (someone else's) is refused untouched, as is a version
 * newer than this code or one whose tables disagree with it. Migrations run under the write lock, so of
 * several workers opening a new database at once one creates the schema and the others find it.
 */
export function openPgConnection(url: string, opts: PgOpenOptions): PgDatabase {
  const shown = redactUrl(url);
  const db = new PgDatabase(url, { lockTimeoutMs: Math.max(1, opts.busyTimeoutMs), connectTimeoutMs: 10000 });
  try {
    const version = db.transaction(() => {
      const v = schemaVersion(db);
      const problem = schemaProblem(db, v);
      if (problem) throw new UserError(`results store ${shown} ${problem.replace('a SQLite database', 'a database')}; nothing was changed`);
      return v;
    })();
    if (version > LATEST_VERSION)
      throw new UserError(
        `${shown}: schema version ${version} is newer than this code understands (${LATEST_VERSION}); update the project`,
      );
    if (opts.readOnly && version < LATEST_VERSION)
      throw new UserError(
        `results store ${shown} is at schema version ${version}, older than this code (${LATEST_VERSION}); open it once for writing to upgrade it`,
      );
    if (!opts.readOnly) migrate(db, shown, opts.targetVersion);
    return db;
  } catch (err) {
    db.close();
    throw err instanceof PgError ? pgStoreError(url, err) : err;
  }
}
