import * as path from 'path';
import { findRepoRoot } from '@rred/core';

/**
 * Where the store lives: an explicit path wins, then the `RRED_STORE` environment variable, then
 * `results/store.sqlite` under the repository root: the one around the current directory, else the
 * one this package is installed in (so `rred` run from elsewhere still finds the project's store).
 * Relative paths are resolved against the current directory.
 */
export function resolveStorePath(explicit?: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return path.resolve(explicit);
  if (env.RRED_STORE) return path.resolve(env.RRED_STORE);
  const root = findRepoRoot() ?? findRepoRoot(__dirname) ?? process.cwd();
  return path.join(root, 'results', 'store.sqlite');
}
