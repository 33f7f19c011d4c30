import * as path from 'path';
import { loadCommandConfig, repoRoot } from '@rred/core';
import type { z } from 'zod';
import { experimentSpec, parseExperimentArgs, type ExperimentArgs } from './cli-args';

interface ResolvedConfig<C> {
  config: C;
  args: ExperimentArgs;
  /** Where the config came from, for messages: the file plus any overrides. */
  source: string;
  /** The config file the overrides went on top of: --config FILE, else the shipped defaults file. */
  file: string;
}

/** The shipped defaults file of an experiment. */
function defaultsFileOf(experiment: string): string {
  return path.join(repoRoot(), 'experiments', 'configs', `${experiment}.json`);
}

/**
 * Defaults file (experiments/configs/<experiment>.json, or --config FILE) + command-line overrides,
 * validated by the experiment's strict zod schema. `--help` throws HelpRequested here; a bad flag or
 * config throws a one-line UserError; both before anything is opened.
 */
export function resolveConfig<S extends z.ZodTypeAny>(
  schema: S,
  experiment: string,
  argv: readonly string[],
  aliases: Record<string, string>,
  help: { summary?: string; usage?: string } = {},
): ResolvedConfig<z.infer<S>> {
  const shipped = defaultsFileOf(experiment);
  const args = parseExperimentArgs(argv, experimentSpec(experiment, schema, aliases, shipped, help));
  const file = args.configFile ?? shipped;
  const { config, source } = loadCommandConfig(schema, file, args.overrides, args.written);
  return { config, args, source, file };
}
