import { repoRoot, uncommittedPaths } from '@rred/core';

/**
 * Whether the code an experiment ran is committed: uncommitted changes under experiments/ and under
 * packages/, counted separately (the run context's `dirty` flag covers the whole repository, which
 * other work in progress also makes dirty). Recorded as run tags and printed in table headers.
 */
export function codeStateTags(): Record<string, string> {
  const count = (dir: string): string => {
    const paths = uncommittedPaths(repoRoot(), dir);
    if (paths === null) return 'unknown';
    if (paths.length === 0) return 'clean';
    const shown = paths.slice(0, 3).join(' ') + (paths.length > 3 ? ' …' : '');
    return `${paths.length} uncommitted (${shown})`;
  };
  return { 'code.experiments': count('experiments'), 'code.packages': count('packages') };
}
