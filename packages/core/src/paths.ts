import * as path from 'path';
import { UserError } from './errors';
import { repoRoot } from './repo';

/**
 * The project's one rule for paths a user writes, on the command line (--store, --out, --config,
 * --grid, ...), in RRED_STORE or inside a config file (checkpoint, dataFile, output.*): an absolute
 * path is used as written; a relative path is relative to the repository root, which is also the
 * directory every nx target runs in. So a config means the same files whatever the current
 * directory is. An empty path is refused.
 */
export function resolveUserPath(file: string, what = 'path'): string {
  if (file.trim() === '') throw new UserError(`${what}: got '${file}', expected a file or directory path`);
  return path.isAbsolute(file) ? path.normalize(file) : path.resolve(repoRoot(), file);
}
