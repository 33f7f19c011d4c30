import { parseArgs } from 'util';
import { UserError } from '@rred/core';

/**
 * The string flags of the notebooks commands (`--name value` or `--name=value`), on Node's
 * util.parseArgs like the rest of the project's commands; an unknown flag, a missing value or a stray
 * argument is one UserError line naming it.
 */
export function parseFlags<K extends string>(argv: string[], names: readonly K[], command: string): Partial<Record<K, string>> {
  try {
    const { values } = parseArgs({ args: argv, options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])), strict: true, allowPositionals: false });
    return values as Partial<Record<K, string>>;
  } catch (err) {
    throw new UserError(`${command}: ${(err as Error).message.split('\n')[0]} (flags: ${names.map((n) => `--${n}`).join(', ')})`);
  }
}
