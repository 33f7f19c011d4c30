import { parseArgs } from 'util';
import { HelpRequested, UserError } from './errors';
import { resolveUserPath } from './paths';

/**
 * The one command-line grammar of the project, on Node's `util.parseArgs`:
 *   --name value | --name=value   a flag with a value (a value may start with '-', not with '--')
 *   --name                        a boolean flag (`--name=x` is refused)
 *   --a.b value | --a.b=value     a config override (commands with a config): the value is read as
 *                                 JSON when it parses (5, true, [1,2], {"k":1}), as text otherwise
 *   --help | -h                   prints the command's help and exits 0, before anything else runs
 *   --                            everything after it is positional
 * An unknown flag, a repeated flag, a missing value, an empty flag value (`--resume ''` as
 * `--store ''`) or a stray argument is a one-line UserError that names it and lists what is valid.
 */

export interface FlagSpec {
  /** 'string' flags take a value; 'boolean' flags take none. */
  type: 'string' | 'boolean';
  description: string;
  /** Placeholder in help, e.g. FILE, DIR, ID. */
  value?: string;
  /** Default as shown in help. */
  default?: string;
  /** A file or directory: '' is refused, and the value is resolved by `resolveUserPath`. */
  path?: boolean;
}

/** The `--store` flag of every command that reads or writes the results store (resolveStorePath in @rred/results-store). */
export const STORE_FLAG: FlagSpec = {
  type: 'string',
  value: 'FILE',
  path: true,
  description: 'results store file (or a postgresql:// URL)',
  default: '$RRED_STORE, else results/store.sqlite at the repository root',
};

/** The `--config FILE` flag of a command whose config defaults to its schema's defaults (see loadCommandConfig). */
export const CONFIG_FLAG: FlagSpec = {
  type: 'string',
  value: 'FILE',
  path: true,
  description: 'JSON config object (the config flags below override its fields)',
  default: 'the schema defaults',
};

/** One dotted config path a command accepts as `--path value`, documented from its schema. */
export interface ConfigKeyDoc {
  path: string;
  description?: string;
  /** The effective default as JSON text (from the defaults file or the schema). */
  default?: string;
  /** True for an object path (`--mc '{"samplesPerExitPoint":5}'`): listed, not described. */
  object?: boolean;
}

export interface ConfigFlags {
  keys: readonly ConfigKeyDoc[];
  /** Short flag → config path, e.g. { n: 'problems' }. */
  aliases?: Record<string, string>;
  /** Effective defaults for help (called only for --help), path → JSON text. */
  defaults?: () => Record<string, string>;
}

export interface CommandSpec<F extends Record<string, FlagSpec> = Record<string, FlagSpec>> {
  /** Short name that starts every error message, e.g. `sweep`, `rred runs list`. */
  name: string;
  /** How the command is invoked, for help, e.g. `npx nx run experiments:sweep --`. */
  usage: string;
  summary: string;
  flags: F;
  /** Positional arguments: how help shows them and how many are allowed (none when absent). */
  positionals?: { usage: string; min: number; max: number; description?: string };
  config?: ConfigFlags;
  /** Extra help paragraphs. */
  notes?: string[];
}

export type FlagValues<F extends Record<string, FlagSpec>> = {
  [K in keyof F]: F[K]['type'] extends 'boolean' ? boolean : string | undefined;
};

export interface CommandLine<F extends Record<string, FlagSpec>> {
  flags: FlagValues<F>;
  positionals: string[];
  /** Config path → value (JSON when the text parses as JSON). */
  overrides: Record<string, unknown>;
  /** Config path → the value exactly as written, for error messages. */
  written: Record<string, string>;
}

/**
 * Parses `argv` (without the node and script words) against `spec`. `--help` anywhere before `--`
 * throws HelpRequested with the help text (runMain prints it and exits 0).
 */
/** Edit distance (insertions, deletions, substitutions) between a and b. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length];
}

/** The valid name a mistyped flag most likely meant: the closest within 2 edits (1 for names under 5 letters), else null. */
function nearest(name: string, valid: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const v of valid) {
    const d = editDistance(name.toLowerCase(), v.toLowerCase());
    if (d <= (name.length < 5 ? 1 : 2) && (best === null || d < best.d)) best = { name: v, d };
  }
  return best?.name ?? null;
}

export function parseCommandLine<F extends Record<string, FlagSpec>>(argv: readonly string[], spec: CommandSpec<F>): CommandLine<F> {
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')) throw new HelpRequested(commandHelp(spec));
  const command = spec.name;
  const aliases = spec.config?.aliases ?? {};
  const configPaths = new Set((spec.config?.keys ?? []).map((k) => k.path));
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, f] of Object.entries(spec.flags)) options[name] = { type: f.type };
  for (const name of [...configPaths, ...Object.keys(aliases)]) options[name] ??= { type: 'string' };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });

  const flags: Record<string, string | boolean | undefined> = {};
  for (const [name, f] of Object.entries(spec.flags)) flags[name] = f.type === 'boolean' ? false : undefined;
  const out: CommandLine<F> = { flags: flags as FlagValues<F>, positionals: [], overrides: {}, written: {} };
  const seen = new Map<string, string>();
  for (const token of tokens ?? []) {
    if (token.kind === 'positional') out.positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const valid = () => validFlags(spec);
    if (!token.rawName.startsWith('--')) {
      throw new UserError(`${command}: unknown option '${token.rawName}'; options are spelled --name (valid: ${valid()})`);
    }
    const flag = Object.prototype.hasOwnProperty.call(spec.flags, token.name) ? spec.flags[token.name] : undefined;
    const configPath = flag ? undefined : (aliases[token.name] ?? (configPaths.has(token.name) ? token.name : undefined));
    if (!flag && configPath === undefined) {
      const near = nearest(token.name, [...Object.keys(spec.flags), ...Object.keys(aliases), ...configPaths]);
      throw new UserError(`${command}: unknown flag --${token.name}${near ? `; did you mean --${near}?` : ''} (valid: ${valid()})`);
    }
    const key = configPath ?? token.name;
    const shown = `--${token.name}`;
    const text = token.value;
    const previous = seen.get(key);
    if (previous !== undefined) {
      throw new UserError(`${command}: ${shown} given twice${previous === shown ? '' : ` (also as ${previous})`}; give it once`);
    }
    seen.set(key, shown);
    if (flag?.type === 'boolean') {
      if (token.inlineValue) throw new UserError(`${command}: ${shown} takes no value, got '${text}'`);
      flags[token.name] = true;
      continue;
    }
    if (text === undefined || (!token.inlineValue && text.startsWith('--'))) {
      const placeholder = flag?.value ?? 'VALUE';
      throw new UserError(`${command}: ${shown} needs a value (${shown} ${placeholder} or ${shown}=${placeholder})`);
    }
    if (flag) {
      // An empty value is never "unset": `--resume "$RUN"` with RUN unset must not start a fresh run.
      // (An empty config override goes on to the config schema, which names the field and its type.)
      if (text.trim() === '') {
        const expected = flag.path
          ? `a ${flag.value === 'DIR' ? 'directory' : 'file'} path`
          : `a value (${shown} ${flag.value ?? 'VALUE'})`;
        throw new UserError(`${command}: ${shown}: got '${text}', expected ${expected}`);
      }
      // a URL (the store's postgresql://…) is a location, not a path: kept as written
      flags[token.name] = flag.path && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? resolveUserPath(text) : text;
    } else {
      out.overrides[key] = parseOverrideValue(text, `${command}: ${shown}`);
      out.written[key] = text;
    }
  }
  const p = spec.positionals ?? { usage: '', min: 0, max: 0 };
  const n = out.positionals.length;
  if (n > p.max) {
    const extra = out.positionals
      .slice(p.max)
      .map((a) => `'${a}'`)
      .join(' ');
    throw new UserError(
      `${command}: unexpected argument ${extra}; ${p.max === 0 ? 'this command takes only flags' : `expected ${p.usage}`} (valid flags: ${validFlags(spec)})`,
    );
  }
  if (n < p.min) throw new UserError(`${command}: missing ${p.usage}${p.description ? ` (${p.description})` : ''}`);
  return out;
}

/**
 * An override's value: JSON when the text parses (numbers, booleans, arrays, objects, null), the
 * text itself otherwise. A number that overflows (1e999) is refused: no config takes ±Infinity.
 */
function parseOverrideValue(text: string, flag: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new UserError(`${flag}: got ${text}, expected a finite number`);
  return value;
}

function validFlags(spec: CommandSpec): string {
  const names = [...Object.keys(spec.flags).map((n) => `--${n}`), '--help'];
  const config = spec.config;
  if (config) {
    const aliasOf = new Map(Object.entries(config.aliases ?? {}).map(([a, p]) => [p, a]));
    for (const k of config.keys) names.push(aliasOf.has(k.path) ? `--${k.path} (--${aliasOf.get(k.path)})` : `--${k.path}`);
  }
  return names.join(', ');
}

/** The text `--help` prints: usage, summary, flags with descriptions and defaults, config paths. */
export function commandHelp(spec: CommandSpec): string {
  const flagRows: [string, string][] = Object.entries(spec.flags).map(([name, f]) => [
    `--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`,
    `${f.description}${f.default !== undefined ? ` (default: ${f.default})` : ''}`,
  ]);
  flagRows.push(['--help, -h', 'print this help and exit']);
  const lines = [`usage: ${spec.usage}${spec.positionals ? ` ${spec.positionals.usage}` : ''} [flags]`, '', spec.summary, ''];
  if (spec.positionals?.description) lines.push(`${spec.positionals.usage}: ${spec.positionals.description}`, '');
  lines.push('flags:', ...rows(flagRows));
  const config = spec.config;
  if (config) {
    const defaults = config.defaults?.() ?? {};
    const aliasOf = new Map(Object.entries(config.aliases ?? {}).map(([a, p]) => [p, a]));
    const leaves = config.keys.filter((k) => !k.object);
    const objects = config.keys.filter((k) => k.object).map((k) => `--${k.path}`);
    lines.push(
      '',
      'config (--path value or --path=value; the value is read as JSON when it parses, else as text; [default: X] is what the command uses when the flag is absent):',
      ...rows(
        leaves.map((k) => {
          const def = defaults[k.path] ?? k.default;
          return [
            `--${k.path}${aliasOf.has(k.path) ? `, --${aliasOf.get(k.path)}` : ''}`,
            `${k.description ?? ''}${def !== undefined ? `${k.description ? ' ' : ''}[default: ${def}]` : ''}`,
          ];
        }),
      ),
    );
    if (objects.length) lines.push(`  whole objects take a JSON object: ${objects.join(', ')}`);
  }
  for (const note of spec.notes ?? []) lines.push('', note);
  return `${lines.join('\n')}\n`;
}

function rows(items: [string, string][]): string[] {
  const width = Math.min(34, Math.max(0, ...items.map(([a]) => a.length)));
  return items.map(([a, b]) => (a.length > width ? `  ${a}\n  ${' '.repeat(width)}  ${b}` : `  ${a.padEnd(width)}  ${b}`).trimEnd());
}
