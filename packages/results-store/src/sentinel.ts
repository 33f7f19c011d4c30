import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';

/**
 * A small plain-Node process that ends this process's RUNNING runs in `file` when this process no
 * longer can (see sentinel-process.cjs): KILLED as soon as a signal reaches the process group, FAILED
 * as soon as this process dies without ending them. Started by the store at the first run it starts or
 * resumes; it exits when the store is closed or this process dies. Neither the child nor its pipe keeps
 * this process alive.
 */
export function startSentinel(file: string, host: string): ChildProcess | null {
  try {
    const child = spawn(
      process.execPath,
      [path.join(__dirname, 'sentinel-process.cjs'), require.resolve('better-sqlite3'), file, String(process.pid), host],
      { stdio: ['pipe', 'ignore', 'inherit'] },
    );
    child.on('error', () => {}); // no sentinel: the next open of the store still reaps a dead run by its pid
    child.stdin!.on('error', () => {});
    child.unref();
    (child.stdin as unknown as { unref(): void }).unref();
    return child;
  } catch {
    return null;
  }
}

/** Lets the sentinel go: it sees EOF, finds this process alive and exits without touching any run. */
export function stopSentinel(child: ChildProcess | null): void {
  if (child && child.exitCode === null && child.signalCode === null) child.stdin?.end();
}
