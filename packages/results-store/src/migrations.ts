import type { SqlDb } from './sql-db';
import { SchemaTooNewError } from './errors';
import { CONTINUATIONS_V3_SQL, moveRowsToV3 } from './migrate-v3';

/**
 * Numbered schema migrations. The database's `PRAGMA user_version` is the number of migrations
 * applied. Opening a store applies the missing ones in order, inside one IMMEDIATE transaction, so
 * two processes opening an old file at once upgrade it exactly once. Never edit a migration that
 * has shipped: append a new one.
 *
 * Times are epoch milliseconds (INTEGER). Float columns come in pairs `<col>` REAL +
 * `<col>_special` TEXT (see floats.ts) so NaN, ±Infinity and -0 survive.
 */
interface Migration {
  version: number;
  description: string;
  sql: string;
  /**
   * The tables this migration creates or rebuilds, each with columns that tell its version apart.
   * Opening checks a file's tables against the shapes of its `user_version` (schema-check.ts), and
   * a test checks these against what `sql` really creates.
   */
  shape: Record<string, readonly string[]>;
  /** Data step run after `sql`, in the same transaction (moves rows stored the old way). */
  data?: (db: SqlDb) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'tracking schema: experiments, runs, params, metrics, tags, artifacts',
    shape: {
      experiments: ['id', 'name'],
      runs: ['id', 'experiment_id', 'status', 'config_hash'],
      params: ['run_id', 'key', 'value'],
      metrics: ['run_id', 'key', 'step', 'value_special'],
      tags: ['run_id', 'key', 'value'],
      artifacts: ['run_id', 'path', 'sha256'],
    },
    sql: `
      CREATE TABLE experiments (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments(id),
        name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('RUNNING', 'FINISHED', 'FAILED', 'KILLED')),
        start_time INTEGER NOT NULL,
        end_time INTEGER,
        heartbeat_time INTEGER NOT NULL,
        parent_run_id TEXT REFERENCES runs(id),
        config_json TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        seed INTEGER,
        context_json TEXT NOT NULL,
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 1,
        failure TEXT
      );
      CREATE INDEX runs_by_experiment ON runs(experiment_id, status);
      CREATE INDEX runs_by_config ON runs(experiment_id, config_hash, status);
      CREATE INDEX runs_by_parent ON runs(parent_run_id);
      CREATE TABLE params (
        run_id TEXT NOT NULL REFERENCES runs(id),
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
      );
      CREATE TABLE metrics (
        run_id TEXT NOT NULL REFERENCES runs(id),
        key TEXT NOT NULL,
        step INTEGER NOT NULL,
        value REAL,
        value_special TEXT,
        wall_time INTEGER NOT NULL,
        PRIMARY KEY (run_id, key, step)
      );
      CREATE TABLE tags (
        run_id TEXT NOT NULL REFERENCES runs(id),
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
      );
      CREATE TABLE artifacts (
        run_id TEXT NOT NULL REFERENCES runs(id),
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, path)
      );
    `,
  },
  {
    version: 2,
    description: 'domain tables: traces, segments, estimates, estimator_costs',
    shape: {
      traces: ['id', 'run_id', 'trace_key'],
      segments: ['trace_id', 'idx', 'start_pos', 'end_pos'],
      estimates: ['trace_id', 'segment_idx', 'method'],
      estimator_costs: ['trace_id', 'method', 'wall_ms'],
    },
    sql: `
      CREATE TABLE traces (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id),
        trace_key TEXT NOT NULL,
        problem_id TEXT NOT NULL,
        prompt_tokens TEXT NOT NULL,
        completion_tokens TEXT NOT NULL,
        think_end INTEGER NOT NULL,
        logprobs BLOB,
        entropies BLOB,
        answer TEXT,
        text TEXT NOT NULL,
        reward REAL,
        reward_special TEXT,
        checkpoint_hash TEXT,
        written_at INTEGER NOT NULL,
        UNIQUE (run_id, trace_key)
      );
      CREATE INDEX traces_by_problem ON traces(run_id, problem_id);
      CREATE TABLE segments (
        trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        start_pos INTEGER NOT NULL,
        end_pos INTEGER NOT NULL,
        PRIMARY KEY (trace_id, idx)
      );
      CREATE TABLE estimates (
        trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        segment_idx INTEGER NOT NULL,
        method TEXT NOT NULL,
        value REAL,
        value_special TEXT,
        credit REAL,
        credit_special TEXT,
        sigma REAL,
        sigma_special TEXT,
        PRIMARY KEY (trace_id, method, segment_idx)
      );
      CREATE TABLE estimator_costs (
        trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        method TEXT NOT NULL,
        tokens_forwarded INTEGER NOT NULL,
        tokens_generated INTEGER NOT NULL,
        forward_passes INTEGER NOT NULL,
        wall_ms REAL NOT NULL,
        PRIMARY KEY (trace_id, method)
      );
    `,
  },
  {
    version: 3,
    description: 'exit points 0..K in estimates (was segment -1..K-1); MC continuations in their own table',
    sql: CONTINUATIONS_V3_SQL,
    shape: {
      estimates: ['trace_id', 'exit_point', 'method'],
      continuations: ['trace_id', 'exit_point', 'sample_idx', 'token_limit', 'utility_special'],
    },
    data: moveRowsToV3,
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export function schemaVersion(db: SqlDb): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the schema up to `target` (default: latest). Returns the version found before migrating.
 * A file newer than this code (version > latest) is refused rather than guessed at.
 */
export function migrate(db: SqlDb, file: string, target = LATEST_VERSION): number {
  let before = 0;
  db.transaction(() => {
    before = schemaVersion(db);
    if (before > LATEST_VERSION) {
      throw new SchemaTooNewError(
        `${file}: schema version ${before} is newer than this code understands (${LATEST_VERSION}); update the project`,
      );
    }
    for (const m of MIGRATIONS) {
      if (m.version <= before || m.version > target) continue;
      db.exec(m.sql);
      m.data?.(db);
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
  return before;
}
