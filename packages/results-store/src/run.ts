import * as fs from 'fs';
import * as path from 'path';
import type { SqlStatement } from './sql-db';
import { validateBundle, type BundleWriter } from './bundles';
import { sha256 } from './context';
import { encodeFloat } from './floats';
import { flatten, paramText } from './flatten';
import type { RunStatus, TraceBundle } from './types';

/** What a Run needs from the Store that opened it. */
export interface RunHost {
  readonly file: string;
  readonly repoRoot: string | null;
  readonly heartbeatMs: number;
  bundleWriter(): BundleWriter;
  /** A prepared statement, cached per connection (hot paths: metrics, heartbeats). */
  stmt(sql: string): SqlStatement;
  /** Runs `fn` in one IMMEDIATE transaction (concurrent writers queue on the busy timeout). */
  write<T>(fn: () => T): T;
  forget(run: Run): void;
}

/**
 * A RUNNING run owned by this process. Every write is its own transaction unless batched
 * (`logMetrics`, `logParams`, `writeTraceBundles`), and every write also refreshes the heartbeat.
 * A timer (unref'd: it never keeps the process alive) refreshes the heartbeat while the run is open,
 * so a run whose heartbeat goes stale belongs to a process that died.
 */
export class Run {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly host: RunHost,
    readonly id: string,
    readonly experiment: string,
  ) {
    this.timer = setInterval(() => this.beatQuietly(), host.heartbeatMs);
    this.timer.unref();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  heartbeat(): void {
    this.ensureOpen();
    this.host.stmt("UPDATE runs SET heartbeat_time = ? WHERE id = ? AND status = 'RUNNING'").run(Date.now(), this.id);
  }

  private beatQuietly(): void {
    try {
      if (!this.closed) this.heartbeat();
    } catch (err) {
      // A heartbeat that misses one beat (database busy for longer than the busy timeout) is harmless;
      // the next beat or write refreshes it. Crashing the experiment over it would not be.
      process.stderr.write(`results-store: heartbeat for run ${this.id} skipped: ${(err as Error).message}\n`);
    }
  }

  /** Params are write-once: re-logging the same value is a no-op, a different value is an error. */
  logParams(params: Record<string, unknown>): void {
    this.ensureOpen();
    const flat = flatten(params);
    const get = this.host.stmt('SELECT value FROM params WHERE run_id = ? AND key = ?');
    const put = this.host.stmt('INSERT INTO params (run_id, key, value) VALUES (?, ?, ?)');
    this.host.write(() => {
      for (const [key, value] of Object.entries(flat)) {
        const old = get.get(this.id, key) as { value: string } | undefined;
        if (old === undefined) put.run(this.id, key, value);
        else if (old.value !== value)
          throw new Error(`run ${this.id}: param '${key}' is already '${old.value}', refusing to change it to '${value}'`);
      }
      this.touch();
    });
  }

  logParam(key: string, value: unknown): void {
    this.logParams({ [key]: value });
  }

  /**
   * Records metric values at `step`. Writing the same (key, step) again overwrites the earlier
   * value, so a resumed run that repeats steps leaves one row per step. NaN, ±Infinity and -0 are
   * stored faithfully.
   */
  logMetrics(values: Record<string, number>, step = 0): void {
    this.ensureOpen();
    if (!Number.isSafeInteger(step)) throw new Error(`run ${this.id}: metric step must be an integer, got ${step}`);
    const stmt = this.host.stmt(`INSERT INTO metrics (run_id, key, step, value, value_special, wall_time)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, key, step) DO UPDATE SET value = excluded.value,
      value_special = excluded.value_special, wall_time = excluded.wall_time`);
    const now = Date.now();
    this.host.write(() => {
      for (const [key, value] of Object.entries(values)) {
        if (!key) throw new Error(`run ${this.id}: metric key must be non-empty`);
        if (typeof value !== 'number') throw new Error(`run ${this.id}: metric '${key}' must be a number, got ${typeof value}`);
        const enc = encodeFloat(value);
        stmt.run(this.id, key, step, enc.value, enc.special, now);
      }
      this.touch();
    });
  }

  logMetric(key: string, value: number, step = 0): void {
    this.logMetrics({ [key]: value }, step);
  }

  setTags(tags: Record<string, string>): void {
    this.ensureOpen();
    const stmt = this.host.stmt(
      'INSERT INTO tags (run_id, key, value) VALUES (?, ?, ?) ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value',
    );
    this.host.write(() => {
      for (const [k, v] of Object.entries(tags)) stmt.run(this.id, k, paramText(v));
      this.touch();
    });
  }

  setTag(key: string, value: string): void {
    this.setTags({ [key]: value });
  }

  /**
   * Records a file this run produced: its path relative to the repository root (or absolute when
   * outside it), sha256 and size. The file itself stays where it is.
   */
  logArtifact(file: string): { path: string; sha256: string; bytes: number } {
    this.ensureOpen();
    const abs = path.resolve(file);
    let data: Buffer;
    try {
      data = fs.readFileSync(abs);
    } catch (err) {
      throw new Error(`run ${this.id}: cannot read artifact ${abs}: ${(err as Error).message}`);
    }
    const rel = this.host.repoRoot ? path.relative(this.host.repoRoot, abs) : abs;
    const stored = rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
    const record = { path: stored, sha256: sha256(data), bytes: data.length };
    this.host.write(() => {
      this.host
        .stmt(
          `INSERT INTO artifacts (run_id, path, sha256, bytes, created_at) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (run_id, path) DO UPDATE SET sha256 = excluded.sha256, bytes = excluded.bytes, created_at = excluded.created_at`,
        )
        .run(this.id, record.path, record.sha256, record.bytes, Date.now());
      this.touch();
    });
    return record;
  }

  /** A trace with its segments, estimates and costs: all of it commits, or none of it. */
  writeTraceBundle(bundle: TraceBundle): void {
    this.writeTraceBundles([bundle]);
  }

  /** Several bundles in one transaction (faster; still all-or-nothing as a batch). */
  writeTraceBundles(bundles: TraceBundle[]): void {
    this.ensureOpen();
    bundles.forEach(validateBundle);
    const writer = this.host.bundleWriter();
    const now = Date.now();
    this.host.write(() => {
      for (const b of bundles) writer.write(this.id, b, now);
      this.touch();
    });
  }

  /** Trace keys already stored for this run: a resumed run skips them. */
  traceKeys(): Set<string> {
    const rows = this.host.stmt('SELECT trace_key FROM traces WHERE run_id = ?').pluck().all(this.id) as string[];
    return new Set(rows);
  }

  /** Last stored step of a metric (null if none): a resumed training loop continues after it. */
  lastStep(key: string): number | null {
    const v = this.host.stmt('SELECT MAX(step) FROM metrics WHERE run_id = ? AND key = ?').pluck().get(this.id, key) as number | null;
    return v ?? null;
  }

  finish(): void {
    this.end('FINISHED', null);
  }

  fail(reason: unknown): void {
    this.end('FAILED', reason instanceof Error ? reason.message : String(reason));
  }

  kill(reason = 'killed'): void {
    this.end('KILLED', reason);
  }

  /** Stops the heartbeat without changing the status (the process is handing the run over). */
  detach(): void {
    this.stopTimer();
    this.closed = true;
    this.host.forget(this);
  }

  /**
   * Ends the run if it is still RUNNING. When the sentinel (sentinel.ts) already ended it at a signal, its
   * KILLED and end time stay, even if the compute got to finish meanwhile: the first end wins, and
   * `--resume` completes such a run at once.
   */
  private end(status: RunStatus, failure: string | null): void {
    this.ensureOpen();
    this.host.write(() => {
      this.host
        .stmt("UPDATE runs SET status = ?, end_time = ?, heartbeat_time = ?, failure = ? WHERE id = ? AND status = 'RUNNING'")
        .run(status, Date.now(), Date.now(), failure, this.id);
    });
    this.detach();
  }

  private touch(): void {
    this.host.stmt('UPDATE runs SET heartbeat_time = ? WHERE id = ?').run(Date.now(), this.id);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error(`run ${this.id} is closed (finished, failed, killed or detached)`);
  }
}
