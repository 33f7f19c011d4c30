import { UserError, type CommandLine, type FlagSpec } from '@rred/core';
import { openStoreForReading, resolveStorePath, type Store } from '@rred/results-store';

/** A command's parsed argv (the project's one parser, parseCommandLine in @rred/core). */
export type ParsedArgs = Pick<CommandLine<Record<string, FlagSpec>>, 'positionals' | 'flags'>;

/** Where a command writes and what environment it sees (tests pass their own). */
export interface CliContext {
  out: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

/**
 * One `rred` subcommand. Adding a command = adding an entry to COMMANDS (commands/index.ts);
 * `name` is the words that select it (`runs list`), `flags` are the only options it accepts.
 */
export interface Command {
  name: string;
  summary: string;
  /** Positional arguments as shown in help, e.g. '<id> <id> [...]'. */
  args?: string;
  flags: Record<string, FlagSpec>;
  run(args: ParsedArgs, ctx: CliContext): Promise<void> | void;
}

/** Opens an existing store for a command (read-only when it may not be written); a missing file is an error rather than a new empty store. */
function openExistingStore(args: ParsedArgs, ctx: CliContext): Store {
  return openStoreForReading(resolveStorePath(args.flags.store as string | undefined, ctx.env));
}

/** Runs `fn` with an open store and always closes it. */
export async function withStore<T>(args: ParsedArgs, ctx: CliContext, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const store = openExistingStore(args, ctx);
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

export function expectPositionals(args: ParsedArgs, command: string, min: number, max: number, what: string): string[] {
  const n = args.positionals.length;
  if (n < min || n > max) {
    const wanted = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    throw new UserError(
      `${command}: expected ${wanted} argument${max === 1 ? '' : 's'} (${what}), got ${n}${n ? `: ${args.positionals.join(' ')}` : ''}`,
    );
  }
  return args.positionals;
}
