import * as path from 'path';
import { repoRoot, resolveUserPath } from '@rred/core';

/**
 * Where the store lives: an explicit path wins, then the `RRED_STORE` environment variable (empty
 * means unset), then `results/store.sqlite` under the repository root. Relative paths follow the
 * project's one path rule (`resolveUserPath`): relative to the repository root. An explicit empty
 * path is an error, never the default store.
 */
export function resolveStorePath(explicit?: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined && explicit !== null) return resolveUserPath(explicit, '--store');
  if (env.RRED_STORE) return resolveUserPath(env.RRED_STORE, 'RRED_STORE');
  return path.join(repoRoot(), 'results', 'store.sqlite');
}
