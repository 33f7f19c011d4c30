import { UserError } from '@rred/core';

export interface FlagSpec {
  /** 'string' flags take a value (`--x v` or `--x=v`); 'boolean' flags take none. */
  type: 'string' | 'boolean';
  help: string;
  /** Placeholder shown in help, e.g. PATH. */
  value?: string;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

/**
 * Parses argv against the flags a command declares. Unknown flags and missing values are
 * UserErrors naming the flag, so a typo never silently changes what a command does.
 */
export function parseArgs(argv: string[], specs: Record<string, FlagSpec>, command: string): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | boolean | undefined> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) throw new UserError(`${command}: unknown option '${arg}' (options are spelled --name; see rred ${command} --help)`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    const spec = specs[name];
    if (!spec) {
      const known = Object.keys(specs).map((k) => `--${k}`).join(', ');
      throw new UserError(`${command}: unknown option '--${name}' (known: ${known})`);
    }
    if (flags[name] !== undefined) throw new UserError(`${command}: option --${name} given twice`);
    if (spec.type === 'boolean') {
      if (eq > 0) throw new UserError(`${command}: option --${name} takes no value`);
      flags[name] = true;
    } else if (eq > 0) {
      flags[name] = arg.slice(eq + 1);
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UserError(`${command}: option --${name} needs a value${spec.value ? ` (${spec.value})` : ''}`);
      flags[name] = value;
      i++;
    }
  }
  return { positionals, flags };
}
