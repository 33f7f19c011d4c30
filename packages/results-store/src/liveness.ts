import * as fs from 'fs';
import * as os from 'os';

/** Linux: the fields of /proc/<pid>/stat after the command name, or null (no /proc, no such process). */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Whether a process id is alive on this host. Signal 0 checks existence without delivering
 * anything; EPERM means the process exists but belongs to someone else. A zombie (exited, not yet
 * reaped by its parent) is not alive.
 */
function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procStat(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

/** When process `pid` started (epoch ms; Linux: field 22 of /proc/<pid>/stat after boot time), or null where unknown. */
function processStartMs(pid: number): number | null {
  const fields = procStat(pid);
  if (!fields) return null;
  try {
    const btime = /^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'));
    const ticks = Number(fields[19]); // field 22 overall; fields[0] is field 3 (state). USER_HZ is 100 on Linux.
    return btime && Number.isFinite(ticks) ? Number(btime[1]) * 1000 + ticks * 10 : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that last wrote a run (its recorded pid, on this host) is still that process:
 * alive, and not a newer process that reused the pid after the run's last sign of life (`lastSeenMs`).
 */
export function isRunProcessAlive(pid: number, lastSeenMs: number): boolean {
  if (!isPidAlive(pid)) return false;
  const started = processStartMs(pid);
  return started === null || started <= lastSeenMs + 2000; // 2 s: btime has 1 s resolution
}

export function hostName(): string {
  return os.hostname();
}
