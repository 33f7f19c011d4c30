import type { SqlDb, SqlStatement, SqlTransaction } from '../sql-db';
import { bind, translate, translateDdl, VERSION_TABLE } from './dialect';
import { SyncPgClient } from './sync-client';

/**
 * The key of the transaction-level advisory lock every write transaction takes first: writers queue on it as
 * they queue on SQLite's write lock (BEGIN IMMEDIATE), so a read-then-write (a claim) sees what the writer
 * before it committed, on any number of hosts. Waiting is bounded by `lock_timeout` (the busy timeout).
 */
const WRITE_LOCK_KEY = 0x72726564; // 'rred'

class PgStatement implements SqlStatement {
  private mode: 'rows' | 'pluck' | 'raw' = 'rows';
  private readonly text: string;
  private readonly names: string[];
  private readonly returnsId: boolean;

  constructor(
    private readonly db: PgDatabase,
    sql: string,
  ) {
    ({ text: this.text, names: this.names, returnsId: this.returnsId } = translate(sql));
  }

  private exec(args: unknown[]) {
    return this.db.client().query(this.text, bind(this.names, args));
  }

  private shape(fields: string[], row: unknown[]): unknown {
    if (this.mode === 'pluck') return row[0];
    if (this.mode === 'raw') return row;
    const o: Record<string, unknown> = {};
    fields.forEach((f, i) => (o[f] = row[i]));
    return o;
  }

  run(...args: unknown[]) {
    const r = this.exec(args);
    const id = this.returnsId && r.rows.length ? Number(r.rows[0][0]) : 0;
    return { changes: r.rowCount, lastInsertRowid: id };
  }

  get(...args: unknown[]): unknown {
    const r = this.exec(args);
    return r.rows.length ? this.shape(r.fields, r.rows[0]) : undefined;
  }

  all(...args: unknown[]): unknown[] {
    const r = this.exec(args);
    return r.rows.map((row) => this.shape(r.fields, row));
  }

  pluck(toggle = true): this {
    this.mode = toggle ? 'pluck' : 'rows';
    return this;
  }

  raw(toggle = true): this {
    this.mode = toggle ? 'raw' : 'rows';
    return this;
  }
}

/**
 * A PostgreSQL database behind better-sqlite3's synchronous API (the subset in sql-db.ts), so the store's
 * code and SQL are the same on both back ends. Transactions: a plain one is REPEATABLE READ (one snapshot
 * for a multi-statement read, as a SQLite read transaction); `.immediate()` is READ COMMITTED after taking
 * the store's write lock (the next writer sees this one's rows, as after SQLite's BEGIN IMMEDIATE). Nested
 * transactions are savepoints, as in better-sqlite3.
 */
export class PgDatabase implements SqlDb {
  private readonly conn: SyncPgClient;
  private depth = 0;
  open = true;

  constructor(url: string, opts: { lockTimeoutMs: number; connectTimeoutMs: number }) {
    this.conn = new SyncPgClient(url, opts);
  }

  client(): SyncPgClient {
    return this.conn;
  }

  prepare(sql: string): SqlStatement {
    return new PgStatement(this, sql);
  }

  exec(sql: string): void {
    this.conn.query(/CREATE TABLE/i.test(sql) ? translateDdl(sql) : sql);
  }

  /** The pragmas the store uses, as PostgreSQL has them. */
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const set = /^\s*user_version\s*=\s*(\d+)\s*$/.exec(source);
    if (set) {
      this.conn.query(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL)`);
      this.conn.query(
        `INSERT INTO ${VERSION_TABLE} (one, version) VALUES (1, $1) ON CONFLICT (one) DO UPDATE SET version = excluded.version`,
        [Number(set[1])],
      );
      return [];
    }
    const name = source.trim();
    if (name === 'user_version') {
      // pg_tables, read under this statement's snapshot; to_regclass would answer from a cache that can still
      // say 'no such table' after another session created it and this one took the write lock
      const exists = this.conn.query(
        `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = '${VERSION_TABLE}')`,
      ).rows[0][0];
      const v = exists ? (this.conn.query(`SELECT version FROM ${VERSION_TABLE}`).rows[0]?.[0] ?? 0) : 0;
      return options.simple ? v : [{ user_version: v }];
    }
    if (name === 'defer_foreign_keys = ON') {
      this.conn.query('SET CONSTRAINTS ALL DEFERRED');
      return [];
    }
    if (name === 'integrity_check' || name === 'quick_check') {
      // PostgreSQL checks its pages itself (checksums, WAL); what is left to check here is that it answers.
      this.conn.query('SELECT 1');
      return options.simple ? 'ok' : [{ [name]: 'ok' }];
    }
    if (/^(foreign_keys|synchronous|busy_timeout|journal_mode)\b|^schema_version$/.test(name)) return options.simple ? null : [];
    throw new Error(`pragma '${source}' has no PostgreSQL counterpart`);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  transaction<F extends (...args: any[]) => any>(fn: F): SqlTransaction<F> {
    const run = (lock: boolean, args: Parameters<F>): ReturnType<F> => this.inTransaction(lock, () => fn(...args));
    const tx = ((...args: Parameters<F>) => run(false, args)) as SqlTransaction<F>;
    tx.immediate = (...args: Parameters<F>) => run(true, args);
    return tx;
  }

  private inTransaction<T>(lock: boolean, fn: () => T): T {
    if (this.depth > 0) {
      const sp = `sp${this.depth}`;
      this.conn.query(`SAVEPOINT ${sp}`);
      this.depth++;
      try {
        const r = fn();
        this.conn.query(`RELEASE SAVEPOINT ${sp}`);
        return r;
      } catch (err) {
        this.quietly(`ROLLBACK TO SAVEPOINT ${sp}`);
        throw err;
      } finally {
        this.depth--;
      }
    }
    this.conn.query(lock ? 'BEGIN ISOLATION LEVEL READ COMMITTED' : 'BEGIN ISOLATION LEVEL REPEATABLE READ');
    this.depth = 1;
    try {
      if (lock) this.conn.query(`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      const r = fn();
      this.conn.query('COMMIT');
      return r;
    } catch (err) {
      this.quietly('ROLLBACK');
      throw err;
    } finally {
      this.depth = 0;
    }
  }

  /** A rollback after an error: the first error is the one to report (the connection may be gone). */
  private quietly(sql: string): void {
    try {
      this.conn.query(sql);
    } catch {
      // the server rolls back an open transaction itself when the session ends
    }
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.conn.close();
  }
}
