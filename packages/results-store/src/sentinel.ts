import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import { isPostgresUrl } from './store-url';

/**
 * A small plain-Node process that ends this process's RUNNING runs in `file` when this process no
 * longer can (see sentinel-process.cjs): KILLED as soon as a signal reaches the process group, FAILED
 * as soon as this process dies without ending them. Started by the store at the first run it starts or
 * resumes; it exits when the store is closed or this process dies. Neither the child nor its pipe keeps
 * this process alive.
 */
export interface Sentinel {
  child: ChildProcess;
  /** Resolves once its signal handlers are in place (or it failed to start, or after 10 s): never rejects. */
  ready: Promise<void>;
}

export function startSentinel(file: string, host: string): Sentinel | null {
  const pg = isPostgresUrl(file);
  try {
    const child = spawn(
      process.execPath,
      // A PostgreSQL URL (it may hold a password) goes through the environment, never argv.
      pg
        ? [path.join(__dirname, 'sentinel-process.cjs'), require.resolve('pg'), '-', String(process.pid), host]
        : [path.join(__dirname, 'sentinel-process.cjs'), require.resolve('better-sqlite3'), file, String(process.pid), host],
      { stdio: ['pipe', 'pipe', 'inherit'], env: pg ? { ...process.env, RRED_SENTINEL_STORE: file } : process.env },
    );
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10000); // ref'd: it keeps this process alive while it waits
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.once('data', done);
      child.once('error', done); // no sentinel: the next open of the store still reaps a dead run by its pid
      child.once('exit', done);
    });
    child.stdin!.on('error', () => {});
    child.unref();
    for (const pipe of [child.stdin, child.stdout]) (pipe as unknown as { unref(): void }).unref();
    return { child, ready };
  } catch {
    return null;
  }
}

/** Lets the sentinel go: it sees EOF, finds this process alive and exits without touching any run. */
export function stopSentinel(sentinel: Sentinel | null): void {
  const child = sentinel?.child;
  if (child && child.exitCode === null && child.signalCode === null) child.stdin?.end();
}
