import type { SqlDb } from './sql-db';
import { LATEST_VERSION, MIGRATIONS } from './migrations';

/** Tables and identifying columns a store at `version` has: the shapes of migrations 1..version, later ones winning. */
export function expectedShape(version: number): Map<string, readonly string[]> {
  const shape = new Map<string, readonly string[]>();
  for (const m of MIGRATIONS) if (m.version <= version) for (const [t, cols] of Object.entries(m.shape)) shape.set(t, cols);
  return shape;
}

function tablesOf(db: SqlDb): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
}

function list(names: string[]): string {
  return names.length > 6 ? `${names.slice(0, 6).join(', ')}, ...` : names.join(', ');
}

/**
 * What is wrong with the file's schema, read-only, before anything writes to it: null when its tables
 * are what its `PRAGMA user_version` promises (or it is an empty database, to be initialized). A
 * SQLite file with tables but no version is someone else's database; a version whose tables are
 * missing or already of a later version is a file that was edited by hand or half restored. Newer
 * versions than this code are left to `migrate` (which refuses them).
 */
export function schemaProblem(db: SqlDb, version: number): string | null {
  const tables = tablesOf(db);
  if (version === 0) {
    return tables.length === 0
      ? null
      : `is a SQLite database but not a results store (tables ${list(tables)}, no rred schema version); refusing to touch it`;
  }
  if (version < 0 || version > LATEST_VERSION) return null;
  const expected = expectedShape(version);
  const present = new Set(tables);
  const missing = [...expected.keys()].filter((t) => !present.has(t));
  const later = [...expectedShape(LATEST_VERSION).keys(), 'estimates_v3'].filter((t) => !expected.has(t) && present.has(t));
  const wrongColumns = [...expected.entries()]
    .filter(([t]) => present.has(t))
    .flatMap(([t, cols]) => {
      const have = new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]);
      const lacking = cols.filter((c) => !have.has(c));
      return lacking.length ? [`${t} lacks ${lacking.join(', ')}`] : [];
    });
  if (missing.length === 0 && later.length === 0 && wrongColumns.length === 0) return null;
  const why = [
    missing.length ? `missing tables ${list(missing)}` : '',
    later.length ? `tables of a later version ${list(later)}` : '',
    wrongColumns.length ? wrongColumns.join('; ') : '',
  ].filter(Boolean);
  return `says schema version ${version} (PRAGMA user_version) but its tables disagree (${why.join('; ')}); restore it from a backup`;
}
