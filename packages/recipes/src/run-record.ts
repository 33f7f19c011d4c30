import { execFileSync } from 'child_process';

/** Git commit and whether the working tree differs from it; null outside a repository. */
export function gitState(cwd = process.cwd()): { commit: string; dirty: boolean } | null {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return null;
  }
}
