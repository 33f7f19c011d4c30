import { UserError, type FlagSpec } from '@rred/core';

/** `--allow-partial` of the export commands: unfinished runs are refused without it. */
export const ALLOW_PARTIAL_FLAG: FlagSpec = {
  type: 'boolean',
  description: 'also export runs that did not finish (RUNNING, KILLED, FAILED): partial traces; the output states their status',
};

/**
 * Refuses runs that did not finish (their traces are partial) unless `allow` (--allow-partial). Returns
 * the note the command prints after writing: '' when every run finished, else which runs are partial.
 */
export function checkFinished(command: string, runs: readonly { id: string; status: string }[], allow: boolean): string {
  const partial = runs.filter((r) => r.status !== 'FINISHED');
  if (partial.length === 0) return '';
  const list = partial.map((r) => `${r.id} (${r.status})`).join(', ');
  if (!allow)
    throw new UserError(
      `${command}: run${partial.length === 1 ? '' : 's'} ${list} did not finish, so ${partial.length === 1 ? 'its' : 'their'} traces are partial; pass --allow-partial to export anyway`,
    );
  return `; PARTIAL (--allow-partial): ${list} did not finish`;
}
