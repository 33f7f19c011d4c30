import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { UserError } from './errors';

/**
 * The repository checkout, found and read in one place: its root directory and the state of its git
 * tree. The run context of the store, the pretrain record and the experiments' code-state tags all ask
 * here.
 */

/** The repository root: the nearest directory at or above `start` that holds nx.json (null if none). */
export function findRepoRoot(start = process.cwd()): string | null {
  let dir = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'nx.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The repository root around the current directory, else the checkout this file is in (so commands
 * run from elsewhere still find the project); a UserError when there is neither.
 */
export function repoRoot(): string {
  const root = findRepoRoot(process.cwd()) ?? findRepoRoot(__dirname);
  if (!root) throw new UserError('cannot find the repository root (a directory with nx.json) above the current directory');
  return root;
}

export interface GitState {
  /** HEAD commit, or 'unknown' outside a git checkout. */
  commit: string;
  /** True when tracked files differ from HEAD or untracked files exist; null when unknown. */
  dirty: boolean | null;
  /**
   * sha256 of the whole uncommitted state: `git diff HEAD` (tracked changes), then each untracked,
   * non-ignored file in path order as `\0untracked <path>\0` + its bytes. A clean tree hashes the empty
   * string; two trees that differ only in an untracked file's content hash differently. Null outside git.
   */
  diffSha256: string | null;
  /** Number of untracked, non-ignored files (they are not in the diff but may matter). */
  untrackedFiles: number | null;
}

function git(args: string[], cwd: string): string | null {
  try {
    return execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30, timeout: 30000 }).toString('utf8');
  } catch {
    return null;
  }
}

/** Commit, dirty flag, diff hash and untracked-file count of the checkout at `dir`. */
export function gitState(dir: string): GitState {
  const head = git(['rev-parse', 'HEAD'], dir);
  if (head === null) return { commit: 'unknown', dirty: null, diffSha256: null, untrackedFiles: null };
  const diff = git(['diff', 'HEAD', '--no-color', '--no-ext-diff'], dir) ?? '';
  // -z: NUL-separated, paths unquoted; relative to `dir`, which is where they are read from
  const untracked = (git(['ls-files', '-z', '--others', '--exclude-standard'], dir) ?? '').split('\0').filter((l) => l.length > 0);
  return {
    commit: head.trim(),
    dirty: diff.length > 0 || untracked.length > 0,
    diffSha256: uncommittedHash(dir, diff, untracked),
    untrackedFiles: untracked.length,
  };
}

/** The hash `GitState.diffSha256` documents; an untracked path that cannot be read (a socket, a race) hashes as unreadable. */
function uncommittedHash(dir: string, diff: string, untracked: readonly string[]): string {
  const hash = createHash('sha256').update(diff);
  for (const file of [...untracked].sort()) {
    hash.update(`\0untracked ${file}\0`);
    try {
      hash.update(fs.readFileSync(path.join(dir, file)));
    } catch {
      hash.update('\0unreadable\0');
    }
  }
  return hash.digest('hex');
}

/** Paths under `pathspec` (relative to the root) that `git status` lists as changed or untracked; null outside git. */
export function uncommittedPaths(root: string, pathspec: string): string[] | null {
  const out = git(['status', '--porcelain', '--', pathspec], root);
  if (out === null) return null;
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3));
}

/** Whether git tracks `file` in the checkout at `root` (false outside git, or for an untracked or missing file). */
export function isTracked(root: string, file: string): boolean {
  return git(['ls-files', '--error-unmatch', '--', path.relative(root, path.resolve(root, file))], root) !== null;
}
