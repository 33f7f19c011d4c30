/**
 * Migration 3: one exit-point convention, and MC continuations as rows of their own.
 *
 * Up to version 2 the estimates table keyed a row by `segment_idx` = exit point − 1 (−1 = exit
 * point 0), and experiments kept MC continuation j of exit point k as three fake estimate methods at
 * segment k − 1, each in the `value` column (experiments' old `common/mc-records.ts`):
 *   `mc.sample.<jj>`    ζ_j (0 for a truncated continuation)
 *   `mc.length.<jj>`    tokens generated (incl. `<eos>`)
 *   `mc.truncated.<jj>` 1 when cut by its limit, else 0
 * Their offset and limit were not stored: the offset follows from the trace's segments, the limit
 * from the run config's `mc.horizon` and `mc.maxNewTokens` (as truncatedMc computes it).
 *
 * This step rebuilds `estimates` keyed by `exit_point` = 0..K (the estimators' convention) and moves
 * the fake rows into `continuations`, with offset and limit filled in. This file is the only code
 * that knows the old encoding. Anything it cannot move exactly is a MigrationError: the whole
 * migration rolls back and the file stays at version 2.
 */
import type { SqlDb } from './sql-db';
import { MigrationError } from './errors';
import { decodeFloat, encodeFloat } from './floats';

export const CONTINUATIONS_V3_SQL = `
  CREATE TABLE estimates_v3 (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    exit_point INTEGER NOT NULL CHECK (exit_point >= 0),
    method TEXT NOT NULL,
    value REAL,
    value_special TEXT,
    credit REAL,
    credit_special TEXT,
    sigma REAL,
    sigma_special TEXT,
    PRIMARY KEY (trace_id, method, exit_point)
  );
  CREATE TABLE continuations (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    exit_point INTEGER NOT NULL CHECK (exit_point >= 0),
    sample_idx INTEGER NOT NULL CHECK (sample_idx >= 0),
    token_offset INTEGER NOT NULL CHECK (token_offset >= 0),
    token_limit INTEGER NOT NULL,
    length INTEGER NOT NULL CHECK (length >= 0),
    truncated INTEGER NOT NULL CHECK (truncated IN (0, 1)),
    utility REAL,
    utility_special TEXT,
    PRIMARY KEY (trace_id, exit_point, sample_idx)
  );
`;

/** The old fake-method names of continuation fields (exactly what the version-2 reader decoded). */
const LEGACY_METHOD = /^mc\.(sample|length|truncated)\.(\d+)$/;
const LEGACY_FIELDS = ['sample', 'length', 'truncated'] as const;
type LegacyField = (typeof LEGACY_FIELDS)[number];

interface V2Estimate {
  segment_idx: number;
  method: string;
  value: number | null;
  value_special: string | null;
  credit: number | null;
  credit_special: string | null;
  sigma: number | null;
  sigma_special: string | null;
}

interface McLimits {
  horizon: 'continuation' | 'completion';
  maxNewTokens: number;
}

function runLimits(configJson: string, runId: string): McLimits {
  const mc = (JSON.parse(configJson) as { mc?: { horizon?: unknown; maxNewTokens?: unknown } }).mc;
  if (!mc || (mc.horizon !== 'continuation' && mc.horizon !== 'completion') || !Number.isInteger(mc.maxNewTokens)) {
    throw new MigrationError(
      `run ${runId} stores MC continuations but its config has no mc.horizon ('continuation' | 'completion') and integer mc.maxNewTokens to derive their limits from`,
    );
  }
  return { horizon: mc.horizon, maxNewTokens: mc.maxNewTokens as number };
}

export function moveRowsToV3(db: SqlDb): void {
  const traces = db
    .prepare('SELECT t.id, t.trace_key, t.run_id, r.config_json FROM traces t JOIN runs r ON r.id = t.run_id ORDER BY t.id')
    .all() as { id: number; trace_key: string; run_id: string; config_json: string }[];
  const estimatesOf = db.prepare('SELECT * FROM estimates WHERE trace_id = ? ORDER BY method, segment_idx');
  const endsOf = db.prepare('SELECT end_pos FROM segments WHERE trace_id = ? ORDER BY idx').pluck();
  const putEstimate = db.prepare(`INSERT INTO estimates_v3 (trace_id, exit_point, method, value, value_special, credit, credit_special,
    sigma, sigma_special) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const putContinuation = db.prepare(`INSERT INTO continuations (trace_id, exit_point, sample_idx, token_offset, token_limit, length,
    truncated, utility, utility_special) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const limitsByRun = new Map<string, McLimits>();
  for (const t of traces) {
    const legacy = new Map<string, Partial<Record<LegacyField, number>>>();
    for (const e of estimatesOf.all(t.id) as V2Estimate[]) {
      const m = LEGACY_METHOD.exec(e.method);
      if (!m) {
        putEstimate.run(t.id, e.segment_idx + 1, e.method, e.value, e.value_special, e.credit, e.credit_special, e.sigma, e.sigma_special);
        continue;
      }
      const key = `${e.segment_idx + 1}:${Number(m[2])}`;
      const entry = legacy.get(key) ?? {};
      entry[m[1] as LegacyField] = decodeFloat(e.value, e.value_special) ?? NaN;
      legacy.set(key, entry);
    }
    if (legacy.size === 0) continue;
    const where = `run ${t.run_id} trace '${t.trace_key}'`;
    let limits = limitsByRun.get(t.run_id);
    if (!limits) {
      limits = runLimits(t.config_json, t.run_id);
      limitsByRun.set(t.run_id, limits);
    }
    const offsets = [0, ...(endsOf.all(t.id) as number[])];
    for (const [key, entry] of legacy) {
      const [exitPoint, sample] = key.split(':').map(Number);
      const what = `${where}: MC continuation (exit point ${exitPoint}, sample ${sample})`;
      for (const f of LEGACY_FIELDS) {
        if (entry[f] === undefined) throw new MigrationError(`${what} has no 'mc.${f}' row`);
      }
      if (exitPoint >= offsets.length) throw new MigrationError(`${what} is past the trace's ${offsets.length - 1} segments`);
      if (!Number.isInteger(entry.length) || (entry.length as number) < 0)
        throw new MigrationError(`${what} has length ${entry.length}, expected a non-negative integer`);
      const offset = offsets[exitPoint];
      const limit = limits.horizon === 'continuation' ? limits.maxNewTokens : limits.maxNewTokens - offset;
      const utility = encodeFloat(entry.sample);
      putContinuation.run(
        t.id,
        exitPoint,
        sample,
        offset,
        limit,
        entry.length,
        entry.truncated === 1 ? 1 : 0,
        utility.value,
        utility.special,
      );
    }
  }
  // every old row went somewhere: kept as an estimate, or as one field of a continuation
  const before = db.prepare('SELECT COUNT(*) FROM estimates').pluck().get() as number;
  const after =
    (db.prepare('SELECT COUNT(*) FROM estimates_v3').pluck().get() as number) +
    3 * (db.prepare('SELECT COUNT(*) FROM continuations').pluck().get() as number);
  if (before !== after)
    throw new MigrationError(
      `${before} estimate rows of version 2 became ${after} rows of version 3 (estimates + 3 × continuations); refusing to lose any`,
    );
  db.exec('DROP TABLE estimates; ALTER TABLE estimates_v3 RENAME TO estimates;');
}
