import { LATEST_VERSION } from './migrations';
import { rawReadOnlyConnection, storeFileError } from './open';
import { PgDatabase } from './pg/pg-database';
import type { SqlDb } from './sql-db';
import { isPostgresUrl, redactUrl } from './store-url';
import { schemaProblem } from './schema-check';

interface StoreFileReport {
  file: string;
  /** PRAGMA user_version (null when unreadable). */
  schemaVersion: number | null;
  latestVersion: number;
  /** What is wrong with the tables for that version (a foreign database, a hand-edited version), or null. */
  schemaProblem: string | null;
  /** PRAGMA integrity_check lines: ['ok'] when healthy, else the problems (or the error that stopped the check). */
  integrity: string[];
  /** Rows per table (null when the file is too damaged to count). */
  tableCounts: Record<string, number> | null;
}

/**
 * Examines a store file read-only, without migrating or reaping anything and creating nothing, so it
 * also works on a file too damaged for `openStore` (that is when you need it) and on one it may not
 * write (a `postgresql://` URL: its database, through one connection). A missing file, a directory, or
 * a file that is not SQLite at all, or a server that cannot be reached, is a UserError; damage
 * inside a SQLite file is reported, not thrown.
 */
export function inspectStoreFile(location: string): StoreFileReport {
  const file = redactUrl(location);
  let db: SqlDb;
  try {
    // A PostgreSQL store is examined through a plain connection, as a file is: nothing migrated or reaped.
    db = isPostgresUrl(location)
      ? new PgDatabase(location, { lockTimeoutMs: 10000, connectTimeoutMs: 10000 })
      : rawReadOnlyConnection(location);
    if (db instanceof PgDatabase) db.pragma('integrity_check');
  } catch (err) {
    throw storeFileError(file, err);
  }
  try {
    let schemaVersion: number | null = null;
    try {
      schemaVersion = db.pragma('user_version', { simple: true }) as number;
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code === 'SQLITE_NOTADB') throw storeFileError(file, err);
    }
    let integrity: string[];
    try {
      integrity = (db.pragma('integrity_check') as object[]).map((r) => String(Object.values(r)[0]));
    } catch (err) {
      integrity = [`integrity check stopped: ${(err as Error).message}`];
    }
    let problem: string | null = null;
    try {
      problem = schemaVersion === null ? null : schemaProblem(db, schemaVersion);
    } catch (err) {
      problem = `tables unreadable: ${(err as Error).message}`;
    }
    let tableCounts: Record<string, number> | null = null;
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck()
        .all() as string[];
      // Table names come from sqlite_master, never from user input.
      tableCounts = Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number]));
    } catch {
      tableCounts = null;
    }
    return { file, schemaVersion, latestVersion: LATEST_VERSION, schemaProblem: problem, integrity, tableCounts };
  } finally {
    db.close();
  }
}
