import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from '@rred/core';
import { PgDatabase } from './pg/pg-database';
import type { SqlDb } from './sql-db';
import { isPostgresUrl } from './store-url';
import type { RunContext } from './context';
import type { TraceBundle } from './types';

/** A fresh temporary directory for one test's store file. */
export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `rred-store-${label}-`));
}

/** Runs one statement on the file through a connection of its own (tests that tamper with a store). */
export function rawSql(file: string, sql: string, ...args: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(sql).run(...args);
  } finally {
    db.close();
  }
}

/**
 * One query on a store, a file (read-only) or a `postgresql://` URL, through a connection of the test's own
 * (the store keeps its connection private): rows as objects. For tests that look at rows behind the store's back.
 */
export function queryStore(location: string, sql: string, ...args: unknown[]): Record<string, unknown>[] {
  const db: SqlDb = isPostgresUrl(location)
    ? new PgDatabase(location, { lockTimeoutMs: 10000, connectTimeoutMs: 10000 })
    : new Database(location, { readonly: true });
  try {
    return db.prepare(sql).all(...args) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** `fn` throws a one-line UserError matching `pattern` (jest only). */
export function expectUserError(fn: () => unknown, pattern: RegExp): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UserError);
  expect((err as Error).message).toMatch(pattern);
  expect((err as Error).message).not.toContain('\n');
}

/** A fixed context so unit tests do not spend time in git. */
export const FIXED_CONTEXT: RunContext = {
  git: { commit: 'unknown', dirty: null, diffSha256: null, untrackedFiles: null },
  argv: ['node', 'test'],
  cwd: '/tmp',
  node: process.version,
  platform: process.platform,
  arch: process.arch,
  cpus: 1,
  packages: {},
  lockfileSha256: null,
  backend: 'cpu',
  openblasThreads: null,
  threadEnv: { OPENBLAS_NUM_THREADS: null, OMP_NUM_THREADS: null },
};

/** A small well-formed bundle: `k` segments of 2 tokens, one estimate per segment for `method`. */
export function sampleBundle(key: string, k = 3, method = 'rredcot'): TraceBundle {
  const thinkEnd = 2 * k;
  const completion = Array.from({ length: thinkEnd + 2 }, (_, i) => 10 + i);
  return {
    key,
    trace: {
      problemId: `p-${key}`,
      prompt: [1, 2, 3],
      completion,
      thinkEnd,
      logprobs: completion.map((_, i) => -0.1 * (i + 1)),
      entropies: completion.map(() => 0.5),
      answer: '42',
      text: `trace ${key}`,
      reward: 1,
    },
    checkpointHash: 'abc',
    segments: Array.from({ length: k }, (_, i) => ({ start: 2 * i, end: 2 * i + 2 })),
    estimates: Array.from({ length: k }, (_, i) => ({ exitPoint: i + 1, method, value: 0.1 * (i + 1), credit: 0.1, sigma: 1 / k })),
    costs: [{ method, tokensForwarded: 100, tokensGenerated: 0, forwardPasses: 1, wallMs: 1.5 }],
  };
}
