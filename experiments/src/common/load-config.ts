import * as fs from 'fs';
import * as path from 'path';
import { parseConfig, repoRoot, UserError } from '@rred/core';
import type { z } from 'zod';
import { configKeys } from './config-keys';
import { parseExperimentArgs, setPath, type ExperimentArgs } from './cli-args';

export function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${what} ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`${what} ${file}: not valid JSON (${(err as Error).message})`);
  }
}

interface ResolvedConfig<C> {
  config: C;
  args: ExperimentArgs;
  /** Where the config came from, for messages: the file plus any overrides. */
  source: string;
}

/**
 * Defaults file (experiments/configs/<experiment>.json, or --config FILE) + command-line overrides,
 * validated by the experiment's strict zod schema. Throws a UserError before anything is opened.
 */
export function resolveConfig<S extends z.ZodTypeAny>(
  schema: S,
  experiment: string,
  argv: readonly string[],
  aliases: Record<string, string>,
): ResolvedConfig<z.infer<S>> {
  const args = parseExperimentArgs(argv, experiment, aliases, configKeys(schema));
  const file = args.configFile ?? path.join(repoRoot(), 'experiments', 'configs', `${experiment}.json`);
  const raw = readJsonFile(file, 'config file');
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new UserError(`config file ${file}: expected a JSON object`);
  const merged = applyOverrides(raw as Record<string, unknown>, args.overrides);
  const overrides = Object.keys(args.overrides);
  const source = `${path.relative(process.cwd(), file) || file}${overrides.length ? ` + --${overrides.join(', --')}` : ''}`;
  return { config: parseConfig(schema, merged, source), args, source };
}

export function applyOverrides(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  let out = base;
  for (const [key, value] of Object.entries(overrides)) out = setPath(out, key, value);
  return out;
}
