export { Rng } from './rng';
export { UserError, runMain } from './errors';
export { parseConfig, canonicalJson } from './config';
export { ProgressBar, formatSeconds } from './progress';
export { findRepoRoot, gitState, repoRoot, uncommittedPaths } from './repo';
export type { GitState } from './repo';
