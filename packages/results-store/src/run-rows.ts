/**
 * Runs as portable rows: what a committed result was rendered from, written as JSON beside it so that a
 * clone without the store can re-render it (and link its run ids), and imported into any store.
 *
 * Every table is read generically: the row of `runs` (its experiment by name), every table with a
 * `run_id` column (params, metrics, tags, artifacts, traces) and every table with a `trace_id` column
 * (segments, estimates, costs, continuations) — the latter only for runs exported with their traces.
 * Rows are columnar (`columns` once, then `rows` of values) in key order, BLOBs as base64, so an export
 * is a deterministic function of the rows.
 */
import type { SqlDb } from './sql-db';
import { UserError } from '@rred/core';

const RUN_ROWS_FORMAT = 'rred-run-rows';
const FORMAT_VERSION = 1;

interface TableRows {
  columns: string[];
  rows: unknown[][];
}

interface ExportedRun {
  id: string;
  experiment: string;
  /** The `runs` row without experiment_id (the experiment is named instead). */
  run: Record<string, unknown>;
  tables: Record<string, TableRows>;
}

export interface RunRowsExport {
  format: typeof RUN_ROWS_FORMAT;
  version: number;
  /** Schema version of the store the rows come from; an import needs the same. */
  schemaVersion: number;
  runs: ExportedRun[];
}

interface TableInfo {
  name: string;
  columns: string[];
  blobs: Set<string>;
  order: string;
}

function tablesWith(db: SqlDb, column: 'run_id' | 'trace_id'): TableInfo[] {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  return names.flatMap((name) => {
    const info = db.prepare(`PRAGMA table_info(${name})`).all() as { name: string; type: string; pk: number }[];
    if (name === 'runs' || !info.some((c) => c.name === column)) return [];
    const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    return [
      {
        name,
        columns: info.map((c) => c.name),
        blobs: new Set(info.filter((c) => c.type.toUpperCase() === 'BLOB').map((c) => c.name)),
        order: pk.length ? pk.map((c) => c.name).join(', ') : 'rowid',
      },
    ];
  });
}

const encode = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v);

function rowsOf(db: SqlDb, t: TableInfo, where: string, arg: unknown): TableRows {
  const rows = db
    .prepare(`SELECT ${t.columns.join(', ')} FROM ${t.name} WHERE ${where} ORDER BY ${t.order}`)
    .raw()
    .all(arg) as unknown[][];
  return { columns: t.columns, rows: rows.map((r) => r.map((v, i) => (t.blobs.has(t.columns[i]) ? encode(v) : v))) };
}

/** The rows of `ids` (full ids); `withTraces`: the runs whose traces, segments, estimates, costs and continuations go too. */
export function exportRunRows(db: SqlDb, ids: readonly string[], withTraces: ReadonlySet<string>, schemaVersion: number): RunRowsExport {
  const byRun = tablesWith(db, 'run_id');
  const byTrace = tablesWith(db, 'trace_id');
  const runs = ids.map((id): ExportedRun => {
    const row = db
      .prepare(
        'SELECT runs.*, experiments.name AS experiment FROM runs JOIN experiments ON experiments.id = runs.experiment_id WHERE runs.id = ?',
      )
      .get(id) as Record<string, unknown> | undefined;
    if (!row) throw new UserError(`no run with id '${id}' to export`);
    // rowid: the insertion order a PostgreSQL store keeps in a column (SQLite's is implicit); it is the store's own
    const { experiment_id: _e, rowid: _r, experiment, ...run } = row;
    const tables: Record<string, TableRows> = {};
    for (const t of byRun) if (t.name !== 'traces' || withTraces.has(id)) tables[t.name] = rowsOf(db, t, 'run_id = ?', id);
    if (withTraces.has(id)) {
      for (const t of byTrace) tables[t.name] = rowsOf(db, t, 'trace_id IN (SELECT id FROM traces WHERE run_id = ?)', id);
    }
    return { id, experiment: experiment as string, run, tables };
  });
  return { format: RUN_ROWS_FORMAT, version: FORMAT_VERSION, schemaVersion, runs };
}

/** Checks the shape of a parsed export; `source` names it in errors. */
export function checkRunRows(data: unknown, source: string): RunRowsExport {
  const d = data as Partial<RunRowsExport> | null;
  if (!d || d.format !== RUN_ROWS_FORMAT || !Array.isArray(d.runs))
    throw new UserError(`${source}: not a run export (expected a JSON object with format '${RUN_ROWS_FORMAT}' and runs)`);
  if (d.version !== FORMAT_VERSION) throw new UserError(`${source}: run export version ${d.version}, this code reads ${FORMAT_VERSION}`);
  return d as RunRowsExport;
}

/**
 * Inserts the exported runs that `db` does not hold yet (a run already there is left as it is: run ids are
 * random, so the same id is the same run). Trace ids are renumbered. Returns the ids added and skipped.
 */
export function importRunRows(
  db: SqlDb,
  data: RunRowsExport,
  schemaVersion: number,
  source: string,
): { added: string[]; present: string[] } {
  if (data.schemaVersion !== schemaVersion)
    throw new UserError(
      `${source}: rows of schema version ${data.schemaVersion}, this store has ${schemaVersion}; migrate one of them first`,
    );
  // a child run may come before its parent (whole runs first): keys are checked when the transaction commits
  db.pragma('defer_foreign_keys = ON');
  const blobsOf = new Map([...tablesWith(db, 'run_id'), ...tablesWith(db, 'trace_id')].map((t) => [t.name, t.blobs]));
  const added: string[] = [];
  const present: string[] = [];
  for (const r of data.runs) {
    if (db.prepare('SELECT 1 FROM runs WHERE id = ?').get(r.id)) {
      present.push(r.id);
      continue;
    }
    db.prepare('INSERT OR IGNORE INTO experiments (name, created_at) VALUES (?, ?)').run(r.experiment, r.run.start_time ?? 0);
    const experimentId = db.prepare('SELECT id FROM experiments WHERE name = ?').pluck().get(r.experiment);
    const cols = Object.keys(r.run);
    db.prepare(`INSERT INTO runs (experiment_id, ${cols.join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})`).run(
      experimentId,
      ...cols.map((c) => r.run[c]),
    );
    const traceIds = new Map<number, number>();
    const insert = (name: string, t: TableRows) => {
      const blobs = blobsOf.get(name) ?? new Set<string>();
      const keep = t.columns.map((c, i) => ({ c, i })).filter(({ c }) => !(name === 'traces' && c === 'id'));
      const stmt = db.prepare(`INSERT INTO ${name} (${keep.map((k) => k.c).join(', ')}) VALUES (${keep.map(() => '?').join(', ')})`);
      const traceCol = t.columns.indexOf('trace_id');
      const idCol = name === 'traces' ? t.columns.indexOf('id') : -1;
      for (const row of t.rows) {
        const values = keep.map(({ c, i }) => {
          if (i === traceCol) return traceIds.get(row[i] as number);
          const v = row[i];
          return blobs.has(c) && typeof v === 'string' ? Buffer.from(v, 'base64') : v;
        });
        const info = stmt.run(...values);
        if (idCol >= 0) traceIds.set(row[idCol] as number, Number(info.lastInsertRowid));
      }
    };
    if (r.tables.traces) insert('traces', r.tables.traces);
    for (const [name, t] of Object.entries(r.tables)) if (name !== 'traces') insert(name, t);
    added.push(r.id);
  }
  return { added, present };
}
