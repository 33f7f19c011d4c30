import * as os from 'os';

/**
 * Whether a process id is alive on this host. Signal 0 checks existence without delivering
 * anything; EPERM means the process exists but belongs to someone else.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function hostName(): string {
  return os.hostname();
}
