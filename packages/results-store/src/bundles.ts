import type { SqlDb, SqlStatement } from './sql-db';
import { blobToFloats, decodeFloat, encodeFloat, floatsToBlob } from './floats';
import type { ContinuationRow, CostRecord, StoredTrace, TraceBundle } from './types';

/**
 * Checks a bundle before anything is written: segments contiguous from 0 and ending at thinkEnd
 * (the Segment contract), estimates and continuations at existing exit points 0..K, no duplicate
 * (method, exit point) or (exit point, sample), continuation offsets matching the segments.
 */
export function validateBundle(b: TraceBundle): void {
  const where = `trace bundle '${b.key}'`;
  if (typeof b.key !== 'string' || b.key.length === 0) throw new Error('trace bundle: key must be a non-empty string');
  const t = b.trace;
  if (typeof t.problemId !== 'string') throw new Error(`${where}: trace.problemId must be a string`);
  for (const field of ['prompt', 'completion'] as const) {
    if (!Array.isArray(t[field]) || !t[field].every((x) => Number.isInteger(x)))
      throw new Error(`${where}: trace.${field} must be an array of integer token ids`);
  }
  for (const field of ['logprobs', 'entropies'] as const) {
    const xs = t[field];
    if (xs !== undefined && xs.length !== t.completion.length)
      throw new Error(`${where}: trace.${field} has ${xs.length} values for ${t.completion.length} completion tokens`);
  }
  if (typeof t.reward !== 'number') throw new Error(`${where}: trace.reward must be a number`);
  if (typeof t.text !== 'string') throw new Error(`${where}: trace.text must be a string`);
  if (!Number.isInteger(t.thinkEnd) || t.thinkEnd < 0 || t.thinkEnd > t.completion.length) {
    throw new Error(`${where}: thinkEnd ${t.thinkEnd} is outside [0, ${t.completion.length}]`);
  }
  let pos = 0;
  b.segments.forEach((s, i) => {
    if (!Number.isInteger(s.start) || !Number.isInteger(s.end) || s.start !== pos || s.end <= s.start) {
      throw new Error(`${where}: segment ${i} [${s.start}, ${s.end}) does not continue contiguously from ${pos}`);
    }
    pos = s.end;
  });
  if (b.segments.length > 0 && pos !== t.thinkEnd) throw new Error(`${where}: segments end at ${pos}, thinkEnd is ${t.thinkEnd}`);
  const K = b.segments.length;
  const seen = new Set<string>();
  for (const e of b.estimates ?? []) {
    if (!Number.isInteger(e.exitPoint) || e.exitPoint < 0 || e.exitPoint > K) {
      throw new Error(`${where}: estimate '${e.method}' is at exit point ${e.exitPoint}, expected 0..${K} (the trace has ${K} segments)`);
    }
    const id = `${e.method}\u0000${e.exitPoint}`;
    if (seen.has(id)) throw new Error(`${where}: estimate '${e.method}' at exit point ${e.exitPoint} given twice`);
    seen.add(id);
  }
  validateContinuations(where, b.continuations ?? [], [0, ...b.segments.map((s) => s.end)]);
  const methods = new Set<string>();
  for (const c of b.costs ?? []) {
    if (methods.has(c.method)) throw new Error(`${where}: cost for method '${c.method}' given twice`);
    for (const field of ['tokensForwarded', 'tokensGenerated', 'forwardPasses'] as const) {
      if (!Number.isInteger(c[field]) || c[field] < 0)
        throw new Error(`${where}: cost '${c.method}'.${field} must be a non-negative integer, got ${c[field]}`);
    }
    if (!Number.isFinite(c.wallMs) || c.wallMs < 0)
      throw new Error(`${where}: cost '${c.method}'.wallMs must be a finite number >= 0, got ${c.wallMs}`);
    methods.add(c.method);
  }
}

function validateContinuations(where: string, rows: readonly ContinuationRow[], offsets: readonly number[]): void {
  const seen = new Set<string>();
  for (const c of rows) {
    const what = `${where}: continuation (exit point ${c.exitPoint}, sample ${c.sample})`;
    if (!Number.isInteger(c.exitPoint) || c.exitPoint < 0 || c.exitPoint >= offsets.length)
      throw new Error(`${what}: exit point must be an integer in 0..${offsets.length - 1}`);
    if (!Number.isInteger(c.sample) || c.sample < 0) throw new Error(`${what}: sample must be a non-negative integer`);
    const id = `${c.exitPoint}:${c.sample}`;
    if (seen.has(id)) throw new Error(`${what} given twice`);
    seen.add(id);
    if (c.offset !== offsets[c.exitPoint])
      throw new Error(`${what}: offset ${c.offset}, but the segments put exit point ${c.exitPoint} at ${offsets[c.exitPoint]}`);
    if (!Number.isInteger(c.limit)) throw new Error(`${what}: limit must be an integer, got ${c.limit}`);
    if (!Number.isInteger(c.length) || c.length < 0) throw new Error(`${what}: length must be a non-negative integer, got ${c.length}`);
    if (typeof c.truncated !== 'boolean') throw new Error(`${what}: truncated must be a boolean`);
    if (typeof c.utility !== 'number') throw new Error(`${what}: utility must be a number`);
  }
}

/** Prepared statements for bundle writes, built once per connection. */
export class BundleWriter {
  private readonly upsertTrace: SqlStatement;
  private readonly clearSegments: SqlStatement;
  private readonly clearEstimates: SqlStatement;
  private readonly clearCosts: SqlStatement;
  private readonly clearContinuations: SqlStatement;
  private readonly insertContinuation: SqlStatement;
  private readonly insertSegment: SqlStatement;
  private readonly insertEstimate: SqlStatement;
  private readonly insertCost: SqlStatement;

  constructor(db: SqlDb) {
    // UPSERT keeps the trace row id stable when a resumed run re-writes the same key.
    this.upsertTrace = db.prepare(`
      INSERT INTO traces (run_id, trace_key, problem_id, prompt_tokens, completion_tokens, think_end, logprobs,
        entropies, answer, text, reward, reward_special, checkpoint_hash, written_at)
      VALUES (@runId, @key, @problemId, @prompt, @completion, @thinkEnd, @logprobs, @entropies, @answer, @text,
        @reward, @rewardSpecial, @checkpointHash, @now)
      ON CONFLICT (run_id, trace_key) DO UPDATE SET problem_id = excluded.problem_id,
        prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
        think_end = excluded.think_end, logprobs = excluded.logprobs, entropies = excluded.entropies,
        answer = excluded.answer, text = excluded.text, reward = excluded.reward,
        reward_special = excluded.reward_special, checkpoint_hash = excluded.checkpoint_hash,
        written_at = excluded.written_at
      RETURNING id`);
    this.clearSegments = db.prepare('DELETE FROM segments WHERE trace_id = ?');
    this.clearEstimates = db.prepare('DELETE FROM estimates WHERE trace_id = ?');
    this.clearCosts = db.prepare('DELETE FROM estimator_costs WHERE trace_id = ?');
    this.clearContinuations = db.prepare('DELETE FROM continuations WHERE trace_id = ?');
    this.insertSegment = db.prepare('INSERT INTO segments (trace_id, idx, start_pos, end_pos) VALUES (?, ?, ?, ?)');
    this.insertContinuation = db.prepare(`INSERT INTO continuations (trace_id, exit_point, sample_idx, token_offset, token_limit,
      length, truncated, utility, utility_special) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insertEstimate = db.prepare(`INSERT INTO estimates (trace_id, exit_point, method, value, value_special,
      credit, credit_special, sigma, sigma_special) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insertCost = db.prepare(`INSERT INTO estimator_costs (trace_id, method, tokens_forwarded, tokens_generated,
      forward_passes, wall_ms) VALUES (?, ?, ?, ?, ?, ?)`);
  }

  /** Writes one bundle; the caller wraps it in a transaction. Returns the trace row id. */
  write(runId: string, b: TraceBundle, now: number): number {
    const t = b.trace;
    const reward = encodeFloat(t.reward);
    const { id } = this.upsertTrace.get({
      runId,
      key: b.key,
      problemId: t.problemId,
      prompt: JSON.stringify(t.prompt),
      completion: JSON.stringify(t.completion),
      thinkEnd: t.thinkEnd,
      logprobs: t.logprobs ? floatsToBlob(t.logprobs) : null,
      entropies: t.entropies ? floatsToBlob(t.entropies) : null,
      answer: t.answer,
      text: t.text,
      reward: reward.value,
      rewardSpecial: reward.special,
      checkpointHash: b.checkpointHash ?? null,
      now,
    }) as { id: number };
    this.clearSegments.run(id);
    this.clearEstimates.run(id);
    this.clearCosts.run(id);
    this.clearContinuations.run(id);
    b.segments.forEach((s, i) => this.insertSegment.run(id, i, s.start, s.end));
    for (const e of b.estimates ?? []) {
      const v = encodeFloat(e.value);
      const c = encodeFloat(e.credit);
      const s = encodeFloat(e.sigma);
      this.insertEstimate.run(id, e.exitPoint, e.method, v.value, v.special, c.value, c.special, s.value, s.special);
    }
    for (const c of b.continuations ?? []) {
      const u = encodeFloat(c.utility);
      this.insertContinuation.run(id, c.exitPoint, c.sample, c.offset, c.limit, c.length, c.truncated ? 1 : 0, u.value, u.special);
    }
    for (const c of b.costs ?? []) {
      this.insertCost.run(id, c.method, c.tokensForwarded, c.tokensGenerated, c.forwardPasses, c.wallMs);
    }
    return id;
  }
}

interface TraceRow {
  id: number;
  trace_key: string;
  problem_id: string;
  prompt_tokens: string;
  completion_tokens: string;
  think_end: number;
  logprobs: Buffer | null;
  entropies: Buffer | null;
  answer: string | null;
  text: string;
  reward: number | null;
  reward_special: string | null;
  checkpoint_hash: string | null;
}

export interface ReadTracesOptions {
  /** Only these trace keys. */
  keys?: string[];
  /** Only traces of this problem. */
  problemId?: string;
}

/** Reads a run's traces with their segments, estimates and costs, in write order. */
export function readTraces(db: SqlDb, runId: string, opts: ReadTracesOptions = {}): StoredTrace[] {
  const clauses = ['run_id = ?'];
  const args: unknown[] = [runId];
  if (opts.problemId !== undefined) {
    clauses.push('problem_id = ?');
    args.push(opts.problemId);
  }
  let rows = db.prepare(`SELECT * FROM traces WHERE ${clauses.join(' AND ')} ORDER BY id`).all(...args) as TraceRow[];
  if (opts.keys) {
    const wanted = new Set(opts.keys);
    rows = rows.filter((r) => wanted.has(r.trace_key));
  }
  const segStmt = db.prepare('SELECT idx, start_pos, end_pos FROM segments WHERE trace_id = ? ORDER BY idx');
  const estStmt = db.prepare('SELECT * FROM estimates WHERE trace_id = ? ORDER BY method, exit_point');
  const contStmt = db.prepare('SELECT * FROM continuations WHERE trace_id = ? ORDER BY exit_point, sample_idx');
  const costStmt = db.prepare('SELECT * FROM estimator_costs WHERE trace_id = ? ORDER BY method');
  return rows.map((r) => ({
    key: r.trace_key,
    trace: {
      problemId: r.problem_id,
      prompt: JSON.parse(r.prompt_tokens) as number[],
      completion: JSON.parse(r.completion_tokens) as number[],
      thinkEnd: r.think_end,
      logprobs: blobToFloats(r.logprobs),
      entropies: blobToFloats(r.entropies),
      answer: r.answer,
      text: r.text,
      reward: decodeFloat(r.reward, r.reward_special) as number,
    },
    checkpointHash: r.checkpoint_hash,
    segments: (segStmt.all(r.id) as { start_pos: number; end_pos: number }[]).map((s) => ({ start: s.start_pos, end: s.end_pos })),
    estimates: (estStmt.all(r.id) as Record<string, number | string | null>[]).map((e) => ({
      exitPoint: e.exit_point as number,
      method: e.method as string,
      value: decodeFloat(e.value as number | null, e.value_special as string | null),
      credit: decodeFloat(e.credit as number | null, e.credit_special as string | null),
      sigma: decodeFloat(e.sigma as number | null, e.sigma_special as string | null),
    })),
    continuations: (contStmt.all(r.id) as Record<string, number | string | null>[]).map((c) => ({
      exitPoint: c.exit_point as number,
      sample: c.sample_idx as number,
      offset: c.token_offset as number,
      limit: c.token_limit as number,
      length: c.length as number,
      truncated: c.truncated === 1,
      utility: decodeFloat(c.utility as number | null, c.utility_special as string | null) as number,
    })),
    costs: (costStmt.all(r.id) as Record<string, number | string>[]).map((c) => ({
      method: c.method as string,
      tokensForwarded: c.tokens_forwarded as number,
      tokensGenerated: c.tokens_generated as number,
      forwardPasses: c.forward_passes as number,
      wallMs: c.wall_ms as number,
    })),
  }));
}

/** One estimate with its trace and segment, flat: the shape tables and correlation plots consume. */
export interface EstimateRow {
  traceKey: string;
  problemId: string;
  reward: number;
  /** 0..K (see EstimateRecord). */
  exitPoint: number;
  /** Span in completion positions of segment k, the one ending at exit point k (null for exit point 0). */
  start: number | null;
  end: number | null;
  method: string;
  value: number | null;
  credit: number | null;
  sigma: number | null;
}

/** All estimates of a run (optionally of one method), ordered by trace write order, method, exit point. */
export function readEstimateRows(db: SqlDb, runId: string, method?: string): EstimateRow[] {
  const rows = db
    .prepare(
      `SELECT t.trace_key, t.problem_id, t.reward, t.reward_special, e.exit_point, s.start_pos, s.end_pos, e.method,
        e.value, e.value_special, e.credit, e.credit_special, e.sigma, e.sigma_special
      FROM estimates e JOIN traces t ON t.id = e.trace_id
      LEFT JOIN segments s ON s.trace_id = e.trace_id AND s.idx = e.exit_point - 1
      WHERE t.run_id = ? AND (CAST(? AS TEXT) IS NULL OR e.method = ?)
      ORDER BY t.id, e.method, e.exit_point`,
    )
    .all(runId, method ?? null, method ?? null) as Record<string, number | string | null>[];
  return rows.map((r) => ({
    traceKey: r.trace_key as string,
    problemId: r.problem_id as string,
    reward: decodeFloat(r.reward as number | null, r.reward_special as string | null) as number,
    exitPoint: r.exit_point as number,
    start: r.start_pos as number | null,
    end: r.end_pos as number | null,
    method: r.method as string,
    value: decodeFloat(r.value as number | null, r.value_special as string | null),
    credit: decodeFloat(r.credit as number | null, r.credit_special as string | null),
    sigma: decodeFloat(r.sigma as number | null, r.sigma_special as string | null),
  }));
}

/** Estimator costs of a run with their trace key, for cost tables. */
export function readCostRows(db: SqlDb, runId: string): (CostRecord & { traceKey: string })[] {
  return (
    db
      .prepare(
        `SELECT t.trace_key, c.* FROM estimator_costs c JOIN traces t ON t.id = c.trace_id WHERE t.run_id = ? ORDER BY t.id, c.method`,
      )
      .all(runId) as Record<string, number | string>[]
  ).map((c) => ({
    traceKey: c.trace_key as string,
    method: c.method as string,
    tokensForwarded: c.tokens_forwarded as number,
    tokensGenerated: c.tokens_generated as number,
    forwardPasses: c.forward_passes as number,
    wallMs: c.wall_ms as number,
  }));
}
