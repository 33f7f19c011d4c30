/**
 * TEST FIXTURE (not exported): writes a store exactly as the version-2 code did, so the upgrade to
 * version 3 can be tested against the old code path's rows. It uses the version-1 and -2 migrations
 * as they shipped (migrations are never edited) and the old row encoding, kept verbatim here:
 *   - estimates keyed by `segment_idx` = exit point − 1 (−1 = exit point 0), as the old
 *     experiments/src/mc-variance/compute.ts `estimateRecords` wrote them;
 *   - MC continuation j of exit point k as three fake methods at segment k − 1, as the old
 *     experiments/src/common/mc-records.ts `encodeContinuations` wrote them.
 * Inputs use the current convention (exit points 0..K), so a test can compare what it put in with
 * what the migrated store gives back.
 */
import Database from 'better-sqlite3';
import { encodeFloat, floatsToBlob } from './floats';
import { MIGRATIONS } from './migrations';
import type { ContinuationRow, CostRecord, EstimateRecord, SegmentRecord, TraceData } from './types';

/** An MC continuation as truncatedMc reports it (its order within an exit point is its sample index). */
export type V2Continuation = Omit<ContinuationRow, 'sample'>;

export interface V2Trace {
  key: string;
  trace: TraceData;
  segments: SegmentRecord[];
  estimates: EstimateRecord[];
  continuations: V2Continuation[];
  costs: CostRecord[];
}

export interface V2Run {
  id: string;
  experiment: string;
  config: Record<string, unknown>;
  params: Record<string, string>;
  tags: Record<string, string>;
  metrics: { key: string; step: number; value: number }[];
  traces: V2Trace[];
}

interface V2EstimateRow {
  segment: number;
  method: string;
  value?: number | null;
  credit?: number | null;
  sigma?: number | null;
}

function pad(j: number): string {
  return String(j).padStart(2, '0');
}

/** The old encodeContinuations, verbatim but for the types. */
function encodeContinuationsV2(records: readonly V2Continuation[]): V2EstimateRow[] {
  const seen = new Map<number, number>();
  const rows: V2EstimateRow[] = [];
  for (const r of records) {
    const j = seen.get(r.exitPoint) ?? 0;
    seen.set(r.exitPoint, j + 1);
    const segment = r.exitPoint - 1;
    rows.push({ segment, method: `mc.sample.${pad(j)}`, value: r.utility });
    rows.push({ segment, method: `mc.length.${pad(j)}`, value: r.length });
    rows.push({ segment, method: `mc.truncated.${pad(j)}`, value: r.truncated ? 1 : 0 });
  }
  return rows;
}

/** The old estimateRecords: toStoreRows' exit point k became store segment k − 1. */
function estimateRowsV2(estimates: readonly EstimateRecord[]): V2EstimateRow[] {
  return estimates.map((e) => ({ segment: e.exitPoint - 1, method: e.method, value: e.value, credit: e.credit, sigma: e.sigma }));
}

/** Creates `file` at schema version 2 holding `runs` (all FINISHED), written with the old encoding. */
export function writeV2Store(file: string, runs: readonly V2Run[]): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      for (const m of MIGRATIONS.filter((x) => x.version <= 2)) db.exec(m.sql);
      db.pragma('user_version = 2');
      const now = 1_700_000_000_000;
      for (const run of runs) {
        db.prepare('INSERT INTO experiments (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(run.experiment, now);
        const expId = db.prepare('SELECT id FROM experiments WHERE name = ?').pluck().get(run.experiment) as number;
        db.prepare(
          `INSERT INTO runs (id, experiment_id, name, status, start_time, end_time, heartbeat_time, parent_run_id, config_json,
            config_hash, seed, context_json, pid, hostname) VALUES (?, ?, ?, 'FINISHED', ?, ?, ?, NULL, ?, ?, NULL, '{}', 1, 'fixture')`,
        ).run(run.id, expId, `${run.experiment}-${run.id}`, now, now + 1000, now + 1000, JSON.stringify(run.config), `hash-${run.id}`);
        for (const [k, v] of Object.entries(run.params))
          db.prepare('INSERT INTO params (run_id, key, value) VALUES (?, ?, ?)').run(run.id, k, v);
        for (const [k, v] of Object.entries(run.tags))
          db.prepare('INSERT INTO tags (run_id, key, value) VALUES (?, ?, ?)').run(run.id, k, v);
        for (const m of run.metrics) {
          const enc = encodeFloat(m.value);
          db.prepare('INSERT INTO metrics (run_id, key, step, value, value_special, wall_time) VALUES (?, ?, ?, ?, ?, ?)').run(
            run.id,
            m.key,
            m.step,
            enc.value,
            enc.special,
            now,
          );
        }
        for (const t of run.traces) {
          const reward = encodeFloat(t.trace.reward);
          const { id } = db
            .prepare(
              `INSERT INTO traces (run_id, trace_key, problem_id, prompt_tokens, completion_tokens, think_end, logprobs, entropies,
                answer, text, reward, reward_special, checkpoint_hash, written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ckpt', ?) RETURNING id`,
            )
            .get(
              run.id,
              t.key,
              t.trace.problemId,
              JSON.stringify(t.trace.prompt),
              JSON.stringify(t.trace.completion),
              t.trace.thinkEnd,
              t.trace.logprobs ? floatsToBlob(t.trace.logprobs) : null,
              t.trace.entropies ? floatsToBlob(t.trace.entropies) : null,
              t.trace.answer,
              t.trace.text,
              reward.value,
              reward.special,
              now,
            ) as { id: number };
          t.segments.forEach((s, i) =>
            db.prepare('INSERT INTO segments (trace_id, idx, start_pos, end_pos) VALUES (?, ?, ?, ?)').run(id, i, s.start, s.end),
          );
          for (const e of [...estimateRowsV2(t.estimates), ...encodeContinuationsV2(t.continuations)]) {
            const [v, c, s] = [encodeFloat(e.value), encodeFloat(e.credit), encodeFloat(e.sigma)];
            db.prepare(
              `INSERT INTO estimates (trace_id, segment_idx, method, value, value_special, credit, credit_special, sigma, sigma_special)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            ).run(id, e.segment, e.method, v.value, v.special, c.value, c.special, s.value, s.special);
          }
          for (const c of t.costs) {
            db.prepare(
              'INSERT INTO estimator_costs (trace_id, method, tokens_forwarded, tokens_generated, forward_passes, wall_ms) VALUES (?, ?, ?, ?, ?, ?)',
            ).run(id, c.method, c.tokensForwarded, c.tokensGenerated, c.forwardPasses, c.wallMs);
          }
        }
      }
    })();
  } finally {
    db.close();
  }
}
