import { UserError } from '@rred/core';

/** What every experiment command accepts besides its own config overrides. */
export interface ExperimentArgs {
  /** `--config FILE`: JSON config replacing the shipped defaults file. */
  configFile: string | null;
  /** `--store FILE`: results store (default: RRED_STORE or results/store.sqlite). */
  store: string | null;
  /** `--out DIR`: where rendered tables and plots go (default results/<experiment>). */
  out: string | null;
  /** Dotted config path → value, from `--seed 3`, `--n 10`, `--mc.samplesPerExitPoint 5`, ... */
  overrides: Record<string, unknown>;
}

/**
 * Parses `--flag value` pairs. `aliases` maps short flags to config paths (e.g. n → problems);
 * `configKeys` lists the dotted paths an override may name (the leaves and objects of the schema),
 * so a typo fails here with the list of valid flags instead of deep inside zod.
 * Values are read as JSON when they parse (numbers, booleans, arrays), as text otherwise.
 */
export function parseExperimentArgs(
  argv: readonly string[],
  command: string,
  aliases: Record<string, string>,
  configKeys: readonly string[],
): ExperimentArgs {
  const out: ExperimentArgs = { configFile: null, store: null, out: null, overrides: {} };
  const known = new Set(configKeys);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--') || arg.length < 3) {
      throw new UserError(`${command}: unexpected argument '${arg}'; expected --flag value pairs (${usage(aliases, configKeys)})`);
    }
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    } else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UserError(`${command}: flag --${name} needs a value`);
      i++;
    }
    if (name === 'config') out.configFile = value;
    else if (name === 'store') out.store = value;
    else if (name === 'out') out.out = value;
    else {
      const key = aliases[name] ?? name;
      if (!known.has(key)) throw new UserError(`${command}: unknown flag --${name} (${usage(aliases, configKeys)})`);
      if (key in out.overrides) throw new UserError(`${command}: flag --${name} given twice`);
      out.overrides[key] = parseValue(value);
    }
  }
  return out;
}

function usage(aliases: Record<string, string>, configKeys: readonly string[]): string {
  const short = Object.entries(aliases).map(([a, k]) => `--${a} (= ${k})`);
  return `valid flags: --config FILE, --store FILE, --out DIR, ${[...short, ...configKeys.map((k) => `--${k}`)].join(', ')}`;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sets `path` (dotted) in a copy of `target`, creating objects on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(target);
  const keys = path.split('.');
  let cur: Record<string, unknown> = copy;
  keys.slice(0, -1).forEach((k) => {
    const next = cur[k];
    if (next === undefined) cur[k] = {};
    else if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      throw new UserError(`override ${path}: '${k}' is not an object in the config`);
    }
    cur = cur[k] as Record<string, unknown>;
  });
  cur[keys[keys.length - 1]] = value;
  return copy;
}
