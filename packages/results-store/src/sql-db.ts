/**
 * The part of better-sqlite3's API the store uses, which both back ends provide: better-sqlite3 itself
 * (a store file) and PgDatabase (pg/pg-database.ts, a `postgresql://` store). The store's code is written
 * once against this.
 */
export interface SqlStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as the first column's value (better-sqlite3's pluck). */
  pluck(toggle?: boolean): this;
  /** Rows as arrays of values (better-sqlite3's raw). */
  raw(toggle?: boolean): this;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => any;

export interface SqlTransaction<F extends Fn> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (...args: any[]): ReturnType<F>;
  /** Takes the write lock first (SQLite BEGIN IMMEDIATE; PostgreSQL: the store's advisory lock). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  immediate(...args: any[]): ReturnType<F>;
}

export interface SqlDb {
  prepare(sql: string): SqlStatement;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends Fn>(fn: F): SqlTransaction<F>;
  readonly open: boolean;
  close(): unknown;
}
