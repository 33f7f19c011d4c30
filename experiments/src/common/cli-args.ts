import {
  STORE_FLAG,
  UserError,
  configKeyDocs,
  flattenConfig,
  parseCommandLine,
  readJsonFile,
  resolveUserPath,
  type CommandSpec,
} from '@rred/core';
import type { z } from 'zod';
import { DATASET_FORMATS, type DatasetFormat } from '@rred/text';
import type { DatasetRef } from './dataset';

/** The flags every experiment command takes besides its config overrides (paths resolved, see resolveUserPath). */
export const EXPERIMENT_FLAGS = {
  config: { type: 'string', value: 'FILE', path: true, description: 'JSON config replacing the shipped defaults file' },
  store: STORE_FLAG,
  out: { type: 'string', value: 'DIR', path: true, description: 'where the rendered tables and plots go' },
  resume: {
    type: 'string',
    value: 'RUN',
    description:
      'continue that unfinished run of this experiment (id or unique prefix) with its own config; config flags must agree with it',
  },
  model: {
    type: 'string',
    value: 'URL',
    description:
      'a served model (SGLang, vLLM or `rred serve`) instead of the checkpoint, e.g. http://127.0.0.1:30000; or gguf:FILE, a GGUF run by llama.cpp in-process (a checkpoint exported with `rred export-gguf`)',
  },
  'model-api': {
    type: 'string',
    value: 'API',
    description: "the served model's API: sglang or openai (the vLLM /v1/completions subset)",
    default: 'sglang',
  },
  dataset: {
    type: 'string',
    value: 'FILE',
    path: true,
    description: 'problems from this file instead of the split: JSONL of {id, problem, solution, answer} records, or see --format',
  },
  format: {
    type: 'string',
    value: 'FORMAT',
    description:
      "the --dataset file's records: jsonl (the lab's), gsm8k ({question, answer} ending in #### n) or math ({problem, solution} with \\boxed{}); JSONL or .parquet",
  },
  verifier: {
    type: 'string',
    value: 'MODULE',
    path: true,
    description: 'module exporting verify(completionText, answer, stopped) → {reward, answer}, with --dataset',
  },
} as const;

/**
 * A model named on the command line instead of the checkpoint: a server (`--model URL --model-api API`), or a
 * GGUF file run by llama.cpp (`--model gguf:FILE`; url is then `gguf:` + the absolute path).
 */
export interface ServedModelRef {
  url: string;
  api: 'sglang' | 'openai' | 'gguf';
}

/** What every experiment command accepts besides its own config overrides. */
export interface ExperimentArgs {
  /** `--config FILE`: JSON config replacing the shipped defaults file (absolute). */
  configFile: string | null;
  /** `--store FILE` (absolute; null: RRED_STORE or results/store.sqlite). */
  store: string | null;
  /** `--out DIR` (absolute; null: results/<experiment>). */
  out: string | null;
  /** `--resume RUN`: the run to continue (null: start a new run). */
  resume: string | null;
  /** `--model URL [--model-api API]`: run on a served model; null = the config's checkpoint, in-process. */
  model: ServedModelRef | null;
  /** `--dataset FILE [--verifier MODULE]`: problems from a JSONL file; null = the config's split. */
  dataset: DatasetRef | null;
  /** Dotted config path → value, from `--seed 3`, `--n 10`, `--mc.samplesPerExitPoint=5`, ... */
  overrides: Record<string, unknown>;
  /** Dotted config path → the value as written, for messages. */
  written: Record<string, string>;
}

/**
 * The command-line spec of an experiment: the shared flags, then every dotted path of its schema as
 * `--path value`, documented from the schema's `.describe()`, with the defaults file's values as
 * defaults in `--help`. `aliases` maps short flags to config paths (e.g. n → problems).
 */
export function experimentSpec(
  experiment: string,
  schema: z.ZodTypeAny,
  aliases: Record<string, string>,
  defaultsFile: string,
  help: { summary?: string; usage?: string } = {},
): CommandSpec<typeof EXPERIMENT_FLAGS> {
  const flags = {
    ...EXPERIMENT_FLAGS,
    config: { ...EXPERIMENT_FLAGS.config, default: `experiments/configs/${experiment}.json` },
    out: { ...EXPERIMENT_FLAGS.out, default: `results/${experiment}` },
  };
  return {
    name: experiment,
    usage: help.usage ?? `node --import tsx experiments/src/${experiment}/main.ts`,
    summary: help.summary ?? `experiment ${experiment} (see experiments/src/README.md)`,
    flags,
    config: { keys: configKeyDocs(schema), aliases, defaults: () => helpDefaults(defaultsFile) },
  };
}

function helpDefaults(file: string): Record<string, string> {
  try {
    return flattenConfig(readJsonFile(file));
  } catch {
    return {};
  }
}

/** Parses an experiment's argv (one grammar for every command: see parseCommandLine in @rred/core). */
export function parseExperimentArgs(argv: readonly string[], spec: CommandSpec<typeof EXPERIMENT_FLAGS>): ExperimentArgs {
  const a = parseCommandLine(argv, spec);
  return {
    configFile: a.flags.config ?? null,
    store: a.flags.store ?? null,
    out: a.flags.out ?? null,
    resume: a.flags.resume ?? null,
    model: servedModelOf(a.flags.model, a.flags['model-api'], spec.name),
    dataset: datasetOf(a.flags.dataset, a.flags.verifier, a.flags.format, spec.name),
    overrides: a.overrides,
    written: a.written,
  };
}

function servedModelOf(url: string | undefined, api: string | undefined, command: string): ServedModelRef | null {
  if (url === undefined) {
    if (api !== undefined) throw new UserError(`${command}: --model-api ${api} needs --model URL`);
    return null;
  }
  if (url.startsWith('gguf:')) {
    if (api !== undefined) throw new UserError(`${command}: --model-api ${api}: a gguf: model takes no API`);
    const file = url.slice('gguf:'.length);
    if (!file.endsWith('.gguf')) throw new UserError(`${command}: --model ${url}: expected gguf:FILE with a file name ending in .gguf`);
    return { url: `gguf:${resolveUserPath(file, '--model gguf:')}`, api: 'gguf' }; // relative: to the repository root, as every path flag
  }
  if (!/^https?:\/\/[^/\s]+\/?$/.test(url))
    throw new UserError(`${command}: --model ${url}: expected a server URL such as http://127.0.0.1:30000 or gguf:FILE`);
  if (api !== undefined && api !== 'sglang' && api !== 'openai')
    throw new UserError(`${command}: --model-api ${api}: expected sglang or openai`);
  return { url: url.replace(/\/$/, ''), api: (api ?? 'sglang') as ServedModelRef['api'] };
}

function datasetOf(file: string | undefined, verifier: string | undefined, format: string | undefined, command: string): DatasetRef | null {
  if (file === undefined) {
    if (verifier !== undefined) throw new UserError(`${command}: --verifier ${verifier} needs --dataset FILE`);
    if (format !== undefined) throw new UserError(`${command}: --format ${format} needs --dataset FILE`);
    return null;
  }
  if (format !== undefined && !(DATASET_FORMATS as readonly string[]).includes(format))
    throw new UserError(`${command}: --format ${format}: expected one of ${DATASET_FORMATS.join(', ')}`);
  return { file, verifier: verifier ?? null, format: (format ?? 'jsonl') as DatasetFormat };
}
