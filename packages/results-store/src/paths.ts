import * as path from 'path';
import { repoRoot, resolveUserPath } from '@rred/core';
import { isPostgresUrl } from './store-url';

/**
 * Where the store lives: an explicit path wins, then the `RRED_STORE` environment variable (empty
 * means unset), then `results/store.sqlite` under the repository root. Relative paths follow the
 * project's one path rule (`resolveUserPath`): relative to the repository root. An explicit empty
 * path is an error, never the default store. A `postgresql://` URL is returned as it is.
 */
export function resolveStorePath(explicit?: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined && explicit !== null) return isPostgresUrl(explicit) ? explicit : resolveUserPath(explicit, '--store');
  if (env.RRED_STORE) return isPostgresUrl(env.RRED_STORE) ? env.RRED_STORE : resolveUserPath(env.RRED_STORE, 'RRED_STORE');
  return path.join(repoRoot(), 'results', 'store.sqlite');
}
