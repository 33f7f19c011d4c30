import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { z } from 'zod';
import { canonicalJson, findRepoRoot, parseConfig, UserError } from '@rred/core';
import { checkCopy } from './copy-store';
import { BundleWriter, readCostRows, readEstimateRows, readTraces, type EstimateRow, type ReadTracesOptions } from './bundles';
import { captureRunContext, sha256, type BackendInfo, type RunContext } from './context';
import { decodeFloat } from './floats';
import { flatten } from './flatten';
import { hostName, isRunProcessAlive } from './liveness';
import { schemaVersion } from './migrations';
import { openConnection, storeFileError } from './open';
import { openPgConnection } from './pg/open-pg';
import type { SqlDb, SqlStatement } from './sql-db';
import { isPostgresUrl, redactUrl } from './store-url';
import { resolveStorePath } from './paths';
import { Run, type RunHost } from './run';
import { startSentinel, stopSentinel, type Sentinel } from './sentinel';
import { exportRunRows, importRunRows, type RunRowsExport } from './run-rows';
import { evaluateFilter, parseFilter, type Filter } from './filter';
import { RUN_STATUSES, type MetricPoint, type RunDetail, type RunStatus, type RunSummary, type StoredTrace } from './types';

interface OpenStoreOptions {
  /**
   * Another host's RUNNING run whose heartbeat is older than this (ms) counts as gone when a sweep claims
   * its point (`claimRun`); a pid means nothing off its host. Runs of this host are judged by their pid.
   * Default 60000.
   */
  staleAfterMs?: number;
  /**
   * Start a sentinel process at open (sentinel.ts; ignored read-only): it marks this process's RUNNING
   * runs KILLED the moment a signal reaches the process group, and FAILED the moment this process dies
   * without ending them. For commands (an experiment, a sweep, pretrain); it needs ~0.1 s to be ready,
   * so open the store before the slow set-up (engine, model) rather than just before the run. Default false.
   */
  sentinel?: boolean;
  /** Heartbeat period (ms) of runs this process has open. Default 10000. */
  heartbeatMs?: number;
  /** How long a write waits for another process's transaction (ms). Default 10000. */
  busyTimeoutMs?: number;
  /** Schema version to migrate to (default latest); only tests of the upgrade path need this. */
  targetVersion?: number;
  /**
   * Read only: nothing is created, migrated, reaped or written (writes fail with a UserError). For a
   * store this process may not write; `openStoreForReading` picks it by itself.
   */
  readOnly?: boolean;
}

export interface StartRunOptions {
  experiment: string;
  /** Human-readable run name (default: `<experiment>-<first 8 of config hash>`). */
  name?: string;
  /**
   * The full resolved config, ALREADY VALIDATED (parseConfig from @rred/core, then openStore, then
   * startRun: a bad config must fail before the store is opened, so nothing is written for it). If
   * `schema` is given as well, the config is checked against it again before any write.
   */
  config: Record<string, unknown>;
  schema?: z.ZodTypeAny;
  /** Seed of the run's Rng (default: config.seed when it is a number). */
  seed?: number | null;
  backend: BackendInfo;
  /** The sweep run this run belongs to. */
  parentRunId?: string | null;
  tags?: Record<string, string>;
  /** Params beyond the flattened config. */
  params?: Record<string, unknown>;
  argv?: string[];
  /** A context captured earlier (a sweep captures once for all its child runs). */
  context?: RunContext;
}

/** What `claimRun` found: the run it started, or the run that already holds the claim. */
type ClaimOutcome = { run: Run } | { finished: RunSummary } | { running: RunSummary };

interface ListRunsOptions {
  experiment?: string;
  status?: RunStatus;
  parentRunId?: string;
  /** Filter text (see filter.ts), e.g. "params.lr > 1e-4 and metrics.acc >= 0.5", or a parsed Filter. */
  where?: string | Filter;
}

/** sha256 of the canonical JSON of a config: equal configs hash equal whatever their key order. */
export function configHash(config: unknown): string {
  return sha256(canonicalJson(config));
}

interface RunRow {
  id: string;
  experiment: string;
  name: string;
  status: RunStatus;
  start_time: number;
  end_time: number | null;
  heartbeat_time: number;
  parent_run_id: string | null;
  config_json: string;
  config_hash: string;
  seed: number | null;
  context_json: string;
  pid: number;
  hostname: string;
  attempts: number;
  failure: string | null;
}

const RUN_SELECT = 'SELECT runs.*, experiments.name AS experiment FROM runs JOIN experiments ON experiments.id = runs.experiment_id';

/**
 * The results store: one SQLite file (WAL mode) shared safely by concurrent processes.
 * Open it with `openStore()`; close it when done (open runs stop their heartbeat, status unchanged).
 */
export class Store {
  readonly repoRoot: string | null;
  /** Ids of runs this open marked FAILED because their process had died. */
  readonly reaped: string[];
  private writer: BundleWriter | null = null;
  private readonly statements = new Map<string, SqlStatement>();
  private readonly openRuns = new Set<Run>();
  private readonly sentinel: Sentinel | null;
  /** What the runs opened here may use: the connection itself never leaves the package. */
  private readonly host: RunHost;

  /** Use `openStore`: it opens, checks and migrates the file first. */
  constructor(
    private readonly db: SqlDb,
    readonly file: string,
    private readonly opts: Required<Omit<OpenStoreOptions, 'targetVersion'>>,
    /** Where the sentinel connects: the file, or the PostgreSQL URL with its password (`file` shows it without). */
    location: string = file,
  ) {
    this.repoRoot = findRepoRoot();
    this.host = {
      file,
      repoRoot: this.repoRoot,
      heartbeatMs: opts.heartbeatMs,
      bundleWriter: () => (this.writer ??= new BundleWriter(this.db)),
      stmt: (sql) => this.stmt(sql),
      write: (fn) => this.write(fn),
      forget: (run) => this.openRuns.delete(run),
    };
    this.reaped = opts.readOnly ? [] : this.reapDeadRuns();
    this.sentinel = opts.sentinel && !opts.readOnly ? startSentinel(location, hostName()) : null;
  }

  /**
   * Resolves once this store's sentinel (OpenStoreOptions.sentinel) has its signal handlers in place, so
   * that a run started afterwards is ended KILLED by a signal from its first moment. Await it before
   * starting a run; immediate without a sentinel.
   */
  sentinelReady(): Promise<void> {
    return this.sentinel?.ready ?? Promise.resolve();
  }

  private stmt(sql: string): SqlStatement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Runs a read; what SQLite says about a damaged or unreadable file becomes a UserError naming it. */
  private read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw storeFileError(this.file, err);
    }
  }

  private write<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (err) {
      throw storeFileError(this.file, err);
    }
  }

  get schemaVersion(): number {
    return this.read(() => {
      return schemaVersion(this.db);
    });
  }

  /**
   * Marks FAILED every RUNNING run on this host whose process is gone (its pid dead, a zombie, or reused
   * by a process that started after the run's last heartbeat), at once: no heartbeat has to go stale
   * first. Its end time is its last heartbeat, the last moment it was known alive. Runs on other hosts
   * are left alone: their pid means nothing here.
   */
  private reapDeadRuns(): string[] {
    const host = hostName();
    return this.write(() => {
      const candidates = this.db
        .prepare("SELECT id, pid, heartbeat_time FROM runs WHERE status = 'RUNNING' AND hostname = ?")
        .all(host) as { id: string; pid: number; heartbeat_time: number }[];
      const dead = candidates.filter((r) => r.pid !== process.pid && !isRunProcessAlive(r.pid, r.heartbeat_time));
      const mark = this.db.prepare("UPDATE runs SET status = 'FAILED', end_time = ?, failure = ? WHERE id = ? AND status = 'RUNNING'");
      for (const r of dead)
        mark.run(r.heartbeat_time, `process ${r.pid} died without ending the run (found by the next open of the store)`, r.id);
      return dead.map((r) => r.id);
    });
  }

  /** Starts a RUNNING run, recording config, params, tags and the run context, in one transaction. */
  startRun(opts: StartRunOptions): Run {
    if (!opts.experiment) throw new Error('startRun: experiment name must be non-empty');
    const config = opts.schema
      ? (parseConfig(opts.schema, opts.config, `config of experiment '${opts.experiment}'`) as Record<string, unknown>)
      : opts.config;
    const hash = configHash(config);
    const seed = opts.seed !== undefined ? opts.seed : typeof config.seed === 'number' ? config.seed : null;
    const context = opts.context ?? captureRunContext({ backend: opts.backend, argv: opts.argv });
    // Run ids are identities, not experimental randomness, so they come from the OS and not from an Rng:
    // two processes started with the same seed must still get different ids.
    const id = randomBytes(6).toString('hex');
    const now = Date.now();
    const params = flatten({ ...config, ...(opts.params ?? {}) });
    this.write(() => {
      if (opts.parentRunId) this.requireRun(opts.parentRunId);
      this.db.prepare('INSERT INTO experiments (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(opts.experiment, now);
      const expId = this.db.prepare('SELECT id FROM experiments WHERE name = ?').pluck().get(opts.experiment) as number;
      this.db
        .prepare(
          `INSERT INTO runs (id, experiment_id, name, status, start_time, heartbeat_time, parent_run_id, config_json,
          config_hash, seed, context_json, pid, hostname) VALUES (?, ?, ?, 'RUNNING', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          expId,
          opts.name ?? `${opts.experiment}-${hash.slice(0, 8)}`,
          now,
          now,
          opts.parentRunId ?? null,
          canonicalJson(config),
          hash,
          seed,
          JSON.stringify(context),
          process.pid,
          hostName(),
        );
      const putParam = this.db.prepare('INSERT INTO params (run_id, key, value) VALUES (?, ?, ?)');
      for (const [k, v] of Object.entries(params)) putParam.run(id, k, v);
      const putTag = this.db.prepare('INSERT INTO tags (run_id, key, value) VALUES (?, ?, ?)');
      for (const [k, v] of Object.entries(opts.tags ?? {})) putTag.run(id, k, v);
    });
    return this.track(new Run(this.host, id, opts.experiment));
  }

  /**
   * Re-opens a run that did not finish (FAILED, KILLED, or RUNNING with a dead process): status goes
   * back to RUNNING, attempts +1. Its stored traces, metrics and params stay; writing them again
   * overwrites rather than duplicates. Refused: a FINISHED run, and a run whose process is still alive
   * (RUNNING, or just marked KILLED by its sentinel while that process finishes its current step).
   */
  resumeRun(idOrPrefix: string): Run {
    const id = this.resolveRunId(idOrPrefix);
    const host = hostName();
    const row = this.write(() => {
      const r = this.db.prepare(`${RUN_SELECT} WHERE runs.id = ?`).get(id) as RunRow;
      if (r.status === 'FINISHED') throw new UserError(`run ${id} is already FINISHED; nothing to resume`);
      if (r.status === 'RUNNING' && (r.hostname !== host || r.pid === process.pid || isRunProcessAlive(r.pid, r.heartbeat_time))) {
        throw new UserError(`run ${id} is still RUNNING (pid ${r.pid} on ${r.hostname}); it cannot be resumed twice`);
      }
      const recent = Date.now() - r.heartbeat_time < 60000;
      if (r.hostname === host && r.pid !== process.pid && recent && isRunProcessAlive(r.pid, r.heartbeat_time)) {
        throw new UserError(`run ${id} is ${r.status} but its process ${r.pid} is still exiting; resume it when that process is gone`);
      }
      const now = Date.now();
      this.db
        .prepare(
          "UPDATE runs SET status = 'RUNNING', end_time = NULL, failure = NULL, heartbeat_time = ?, pid = ?, hostname = ?, attempts = attempts + 1 WHERE id = ?",
        )
        .run(now, process.pid, host, id);
      return r;
    });
    return this.track(new Run(this.host, id, row.experiment));
  }

  /** The FINISHED run of `experiment` with this config hash, if any: a sweep skips such configs. */
  findFinishedRunByConfigHash(experiment: string, hash: string): RunSummary | null {
    return this.read(() => {
      const id = this.db
        .prepare(
          `SELECT runs.id FROM runs JOIN experiments ON experiments.id = runs.experiment_id
          WHERE experiments.name = ? AND runs.config_hash = ? AND runs.status = 'FINISHED' ORDER BY runs.end_time DESC LIMIT 1`,
        )
        .pluck()
        .get(experiment, hash) as string | undefined;
      return id === undefined ? null : this.summaries([id])[0];
    });
  }

  /**
   * Starts a run of `opts.experiment` tagged `claim.key = claim.value` unless one already holds that
   * claim: a FINISHED run (returned as `finished`, the newest) or a RUNNING run whose process is alive
   * (`running`). All in one IMMEDIATE transaction, so of two processes claiming the same value at once
   * exactly one starts a run. A RUNNING holder whose process is gone — a dead pid on this host, or a
   * heartbeat older than `staleAfterMs` on another host — is marked FAILED here and the claim is taken.
   * FAILED and KILLED runs hold nothing. A sweep claims each point by its identity this way.
   */
  claimRun(opts: StartRunOptions, claim: { key: string; value: string }): ClaimOutcome {
    const now = Date.now();
    const host = hostName();
    return this.write(() => {
      const holders = this.db
        .prepare(
          `SELECT runs.id, runs.status, runs.pid, runs.hostname, runs.heartbeat_time FROM runs
          JOIN experiments ON experiments.id = runs.experiment_id
          JOIN tags ON tags.run_id = runs.id AND tags.key = ? AND tags.value = ?
          WHERE experiments.name = ? AND runs.status IN ('FINISHED', 'RUNNING') ORDER BY runs.end_time DESC`,
        )
        .all(claim.key, claim.value, opts.experiment) as Pick<RunRow, 'id' | 'status' | 'pid' | 'hostname' | 'heartbeat_time'>[];
      const finished = holders.find((h) => h.status === 'FINISHED');
      if (finished) return { finished: this.summaries([finished.id])[0] };
      // A pid means something only on its own host, and not for this process's own runs (one of them may
      // have been left open by an earlier error): those are judged by their heartbeat.
      const gone = (h: (typeof holders)[number]) =>
        h.hostname === host && h.pid !== process.pid
          ? !isRunProcessAlive(h.pid, h.heartbeat_time)
          : h.heartbeat_time <= now - this.opts.staleAfterMs;
      const alive = holders.find((h) => !gone(h));
      if (alive) return { running: this.summaries([alive.id])[0] };
      const release = this.db.prepare("UPDATE runs SET status = 'FAILED', end_time = ?, failure = ? WHERE id = ? AND status = 'RUNNING'");
      for (const h of holders)
        release.run(now, `process ${h.pid} on ${h.hostname} died holding ${claim.key} ${claim.value}; claim released`, h.id);
      return { run: this.startRun({ ...opts, tags: { ...opts.tags, [claim.key]: claim.value } }) };
    });
  }

  /** Full id from a full id or a unique prefix (like git); a UserError otherwise. */
  resolveRunId(idOrPrefix: string): string {
    return this.read(() => {
      if (!/^[0-9a-f]{1,64}$/i.test(idOrPrefix))
        throw new UserError(`'${idOrPrefix}' is not a run id (run ids are hexadecimal, e.g. 3f9a1c2b7d01)`);
      const ids = this.db
        .prepare('SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT 2')
        .pluck()
        .all(idOrPrefix.toLowerCase(), `${idOrPrefix.toLowerCase()}g`) as string[];
      if (ids.length === 0) throw new UserError(`no run with id '${idOrPrefix}' in ${this.file}`);
      if (ids.length > 1 && ids[0] !== idOrPrefix)
        throw new UserError(`run id prefix '${idOrPrefix}' is ambiguous (${ids.join(', ')}, ...); give more characters`);
      return ids[0];
    });
  }

  /**
   * The rows of these runs as portable JSON (run-rows.ts): every run's own rows, and for `withTraces` also
   * its traces with their segments, estimates, costs and continuations.
   */
  exportRuns(ids: readonly string[], withTraces: readonly string[] = []): RunRowsExport {
    return this.read(() => {
      const full = ids.map((id) => this.resolveRunId(id));
      return exportRunRows(this.db, full, new Set(withTraces.map((id) => this.resolveRunId(id))), schemaVersion(this.db));
    });
  }

  /**
   * Adds the exported runs this store does not hold yet, in one transaction (`source` names each export in
   * errors). Runs exported with their traces go first: another export may name the same run without them.
   */
  importRuns(exports: readonly { data: RunRowsExport; source: string }[]): { added: string[]; present: string[] } {
    if (this.opts.readOnly) throw new UserError(`${this.file}: opened read-only; cannot import runs`);
    return this.write(() => {
      const done = { added: [] as string[], present: [] as string[] };
      for (const whole of [true, false]) {
        for (const { data, source } of exports) {
          const runs = data.runs.filter((r) => (r.tables.traces !== undefined) === whole);
          const r = importRunRows(this.db, { ...data, runs }, schemaVersion(this.db), source);
          done.added.push(...r.added);
          done.present.push(...r.present.filter((id) => !done.added.includes(id)));
        }
      }
      return done;
    });
  }

  /**
   * Copies every run of `source` (with its traces, segments, estimates, costs and continuations) that this
   * store does not hold yet, then reads all of `source`'s runs back from this store and compares them row for
   * row (trace ids aside: they are renumbered); all in one transaction, so a copy that does not match, or
   * fails half-way, leaves this store as it was. The two stores may be of either back end.
   */
  copyRunsFrom(source: Store): { added: string[]; present: string[]; verified: number } {
    if (this.opts.readOnly) throw new UserError(`${this.file}: opened read-only; cannot copy runs into it`);
    const ids = source.listRuns().map((r) => r.id);
    const data = source.exportRuns(ids, ids);
    return this.write(() => {
      const r = this.importRuns([{ data, source: source.file }]);
      checkCopy(data, exportRunRows(this.db, ids, new Set(ids), schemaVersion(this.db)), this.file);
      return { ...r, verified: ids.length };
    });
  }

  experiments(): { name: string; runs: number }[] {
    return this.read(() => {
      return this.db
        .prepare(
          'SELECT experiments.name AS name, COUNT(runs.id) AS runs FROM experiments LEFT JOIN runs ON runs.experiment_id = experiments.id GROUP BY experiments.id ORDER BY experiments.name',
        )
        .all() as { name: string; runs: number }[];
    });
  }

  listRuns(opts: ListRunsOptions = {}): RunSummary[] {
    return this.read(() => {
      if (opts.status !== undefined && !RUN_STATUSES.includes(opts.status)) {
        throw new UserError(`status: got '${opts.status}', expected one of ${RUN_STATUSES.join(', ')}`);
      }
      const clauses: string[] = [];
      const args: unknown[] = [];
      if (opts.experiment !== undefined) {
        clauses.push('experiments.name = ?');
        args.push(opts.experiment);
      }
      if (opts.status !== undefined) {
        clauses.push('runs.status = ?');
        args.push(opts.status);
      }
      if (opts.parentRunId !== undefined) {
        clauses.push('runs.parent_run_id = ?');
        args.push(opts.parentRunId);
      }
      const where = clauses.length ? ` WHERE ${clauses.join(' AND ')}` : '';
      const ids = this.db
        .prepare(
          `SELECT runs.id FROM runs JOIN experiments ON experiments.id = runs.experiment_id${where} ORDER BY runs.start_time, runs.rowid`,
        )
        .pluck()
        .all(...args) as string[];
      const runs = this.summaries(ids);
      if (opts.where === undefined) return runs;
      const filter = typeof opts.where === 'string' ? parseFilter(opts.where) : opts.where;
      return runs.filter((r) => evaluateFilter(filter, r));
    });
  }

  getRun(idOrPrefix: string): RunDetail {
    return this.read(() => {
      const id = this.resolveRunId(idOrPrefix);
      const [summary] = this.summaries([id]);
      const row = this.db.prepare('SELECT config_json, context_json FROM runs WHERE id = ?').get(id) as {
        config_json: string;
        context_json: string;
      };
      const artifacts = (
        this.db.prepare('SELECT path, sha256, bytes, created_at FROM artifacts WHERE run_id = ? ORDER BY path').all(id) as {
          path: string;
          sha256: string;
          bytes: number;
          created_at: number;
        }[]
      ).map((a) => ({ path: a.path, sha256: a.sha256, bytes: a.bytes, createdAt: a.created_at }));
      return { ...summary, config: JSON.parse(row.config_json), context: JSON.parse(row.context_json) as RunContext, artifacts };
    });
  }

  metricHistory(idOrPrefix: string, key: string): MetricPoint[] {
    return this.read(() => {
      const id = this.resolveRunId(idOrPrefix);
      return (
        this.db
          .prepare('SELECT step, value, value_special, wall_time FROM metrics WHERE run_id = ? AND key = ? ORDER BY step')
          .all(id, key) as { step: number; value: number | null; value_special: string | null; wall_time: number }[]
      ).map((m) => ({
        step: m.step,
        value: decodeFloat(m.value, m.value_special),
        wallTime: m.wall_time,
      }));
    });
  }

  metricKeys(idOrPrefix: string): string[] {
    return this.read(() => {
      return this.db
        .prepare('SELECT DISTINCT key FROM metrics WHERE run_id = ? ORDER BY key')
        .pluck()
        .all(this.resolveRunId(idOrPrefix)) as string[];
    });
  }

  /** The run's traces with segments, estimates and costs, in the order they were first written. */
  traces(idOrPrefix: string, opts?: ReadTracesOptions): StoredTrace[] {
    return this.read(() => {
      return readTraces(this.db, this.resolveRunId(idOrPrefix), opts);
    });
  }

  /** Number of traces stored for the run. */
  traceCount(idOrPrefix: string): number {
    return this.read(() => {
      return this.stmt('SELECT COUNT(*) FROM traces WHERE run_id = ?').pluck().get(this.resolveRunId(idOrPrefix)) as number;
    });
  }

  /** Every estimate of the run joined with its trace and segment (optionally one method only). */
  estimateRows(idOrPrefix: string, method?: string): EstimateRow[] {
    return this.read(() => {
      return readEstimateRows(this.db, this.resolveRunId(idOrPrefix), method);
    });
  }

  /** Every estimator cost record of the run, with its trace key. */
  costRows(idOrPrefix: string): ReturnType<typeof readCostRows> {
    return this.read(() => {
      return readCostRows(this.db, this.resolveRunId(idOrPrefix));
    });
  }

  /** `PRAGMA integrity_check` lines: ['ok'] for a healthy file. */
  integrityCheck(): string[] {
    try {
      return (this.db.pragma('integrity_check', { simple: false }) as object[]).map((r) => String(Object.values(r as object)[0]));
    } catch (err) {
      throw storeFileError(this.file, err);
    }
  }

  tableCounts(): Record<string, number> {
    return this.read(() => {
      const tables = this.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck()
        .all() as string[];
      // Table names come from sqlite_master, never from user input.
      return Object.fromEntries(tables.map((t) => [t, this.db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number]));
    });
  }

  /** Stops the heartbeats of runs still open here (their status is left as is) and closes the file. */
  close(): void {
    for (const run of [...this.openRuns]) run.detach();
    if (this.db.open) this.db.close();
    stopSentinel(this.sentinel);
  }

  private track(run: Run): Run {
    this.openRuns.add(run);
    return run;
  }

  private requireRun(id: string): void {
    if (this.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(id) === undefined)
      throw new UserError(`no run with id '${id}' in ${this.file}`);
  }

  private summaries(ids: string[]): RunSummary[] {
    if (ids.length === 0) return [];
    const byId = new Map<string, RunSummary>();
    const runStmt = this.db.prepare(`${RUN_SELECT} WHERE runs.id = ?`);
    const paramStmt = this.db.prepare('SELECT key, value FROM params WHERE run_id = ? ORDER BY key');
    const tagStmt = this.db.prepare('SELECT key, value FROM tags WHERE run_id = ? ORDER BY key');
    const metricStmt = this.db.prepare(`SELECT m.key, m.value, m.value_special FROM metrics m
      JOIN (SELECT key, MAX(step) AS step FROM metrics WHERE run_id = @run GROUP BY key) last ON last.key = m.key AND last.step = m.step
      WHERE m.run_id = @run ORDER BY m.key`);
    const read = this.db.transaction(() => {
      for (const id of ids) {
        const r = runStmt.get(id) as RunRow;
        const params = Object.fromEntries((paramStmt.all(id) as { key: string; value: string }[]).map((p) => [p.key, p.value]));
        const tags = Object.fromEntries((tagStmt.all(id) as { key: string; value: string }[]).map((t) => [t.key, t.value]));
        const metrics = Object.fromEntries(
          (metricStmt.all({ run: id }) as { key: string; value: number | null; value_special: string | null }[]).map((m) => [
            m.key,
            decodeFloat(m.value, m.value_special),
          ]),
        );
        byId.set(id, {
          id: r.id,
          experiment: r.experiment,
          name: r.name,
          status: r.status,
          startTime: r.start_time,
          endTime: r.end_time,
          heartbeatTime: r.heartbeat_time,
          parentRunId: r.parent_run_id,
          configHash: r.config_hash,
          seed: r.seed,
          pid: r.pid,
          hostname: r.hostname,
          attempts: r.attempts,
          failure: r.failure,
          params,
          metrics,
          tags,
        });
      }
    });
    read(); // one read transaction: a consistent snapshot even while other processes write
    return ids.map((id) => byId.get(id) as RunSummary);
  }
}

/**
 * Opens the results store at `file` (default: `RRED_STORE`, else results/store.sqlite at the repo
 * root), creating and migrating it as needed, and marks FAILED the runs whose process died. A
 * `postgresql://` URL opens the store in that PostgreSQL database instead (pg/open-pg.ts), with the
 * same schema, statements and guarantees as far as the server gives them (see the README).
 * Unwritable paths and damaged files raise a UserError naming the file; nothing is written then.
 */
export function openStore(file?: string | null, opts: OpenStoreOptions = {}): Store {
  const resolved = resolveStorePath(file);
  const full = {
    staleAfterMs: opts.staleAfterMs ?? 60000,
    sentinel: opts.sentinel ?? false,
    heartbeatMs: opts.heartbeatMs ?? 10000,
    busyTimeoutMs: opts.busyTimeoutMs ?? 10000,
    readOnly: opts.readOnly ?? false,
  };
  const pg = isPostgresUrl(resolved);
  const shown = redactUrl(resolved);
  const connect = pg ? openPgConnection : openConnection;
  const db = connect(resolved, { busyTimeoutMs: full.busyTimeoutMs, targetVersion: opts.targetVersion, readOnly: full.readOnly });
  try {
    return new Store(db, shown, full, resolved);
  } catch (err) {
    db.close();
    throw storeFileError(shown, err);
  }
}

/** Whether this process may write the store file and create its -wal/-shm files beside it. */
function canWrite(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens an EXISTING store for a command that only reads (`rred runs list`, `show`, ...): a missing
 * file is a UserError (no empty store is created). A store this process may write is opened as
 * usual (dead runs reaped, an older schema upgraded in place); one it may not write is opened
 * read-only, creating nothing.
 */
export function openStoreForReading(file?: string | null, opts: Omit<OpenStoreOptions, 'readOnly' | 'targetVersion'> = {}): Store {
  const resolved = resolveStorePath(file);
  if (isPostgresUrl(resolved)) return openStore(resolved, opts);
  if (!fs.existsSync(resolved))
    throw new UserError(
      `no results store at ${resolved} (pass --store PATH or set RRED_STORE, or run an experiment first, e.g. npx nx run experiments:mc-variance)`,
    );
  return openStore(resolved, { ...opts, readOnly: !canWrite(resolved) });
}
