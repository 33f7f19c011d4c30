/**
 * avg@k, pass@k and maj@k of a checkpoint over a dataset split, with confidence intervals; the run
 * and its metrics go to the results store (experiment 'evaluate').
 *
 *   node --import tsx packages/recipes/src/cli/evaluate.ts [--config file.json] [--store FILE] [--key value ...]
 * Every config field can also be given as a flag, e.g. --split eval-hard --samplesPerProblem=8
 * (`--help` lists them). Relative paths (checkpoint, dataFile, --config, --store) are relative to
 * the repository root.
 */
import * as path from 'path';
import {
  Rng,
  CONFIG_FLAG,
  STORE_FLAG,
  UserError,
  configKeyDocs,
  loadCommandConfig,
  parseCommandLine,
  resolveUserPath,
  runMain,
} from '@rred/core';
import { initEngine } from '@rred/engine';
import { TransformerLM } from '@rred/lm';
import { DEFAULT_EVAL_SPLIT, SPLITS, readJsonl } from '@rred/tasks';
import { openStore, withRun } from '@rred/results-store';
import { evaluateConfigSchema } from '../configs/evaluate';
import { checkRecordsFit, completerFromModel, evaluateSplit } from '@rred/evaluation';

const SPEC = {
  name: 'evaluate',
  usage: 'npx nx run evaluation:evaluate --',
  summary:
    "avg@k, pass@k and maj@k of a checkpoint over a dataset split, with confidence intervals; the run goes to the results store (experiment 'evaluate').",
  flags: {
    config: CONFIG_FLAG,
    store: STORE_FLAG,
  },
  config: { keys: configKeyDocs(evaluateConfigSchema) },
} as const;

async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2), SPEC);
  const { config, source } = loadCommandConfig(evaluateConfigSchema, args.flags.config, args.overrides, args.written);
  const k = config.k ?? config.samplesPerProblem;
  if (k > config.samplesPerProblem)
    throw new UserError(`invalid config (${source}): k (${k}) must be ≤ samplesPerProblem (${config.samplesPerProblem})`);
  if (config.split && config.dataFile)
    throw new UserError(`invalid config (${source}): give split (${config.split}) or dataFile (${config.dataFile}), not both`);
  const split = config.split ?? DEFAULT_EVAL_SPLIT;
  if (!config.dataFile && !(SPLITS as readonly string[]).includes(split))
    throw new UserError(`invalid config (${source}): split: got "${split}", expected one of ${SPLITS.join(', ')}`);
  const file = resolveUserPath(config.dataFile ?? path.join('packages', 'tasks', 'data', `${split}.jsonl`), 'dataFile');
  const records = readJsonl(file).slice(0, config.problems);
  if (records.length === 0) throw new UserError(`${file}: no problems to evaluate`);
  // the experiments' dataset precheck, before the store is opened: the checkpoint's alphabet, and every prompt + maxNewTokens within its context
  checkRecordsFit(file, records, resolveUserPath(config.checkpoint, 'checkpoint'), [
    { field: 'maxNewTokens', tokens: config.maxNewTokens },
  ]);

  const engine = await initEngine();
  const model = TransformerLM.fromCheckpoint(resolveUserPath(config.checkpoint, 'checkpoint'));
  const store = openStore(args.flags.store, { sentinel: true });
  try {
    await store.sentinelReady();
    await withRun(
      store,
      {
        experiment: 'evaluate',
        config: config as unknown as Record<string, unknown>,
        schema: evaluateConfigSchema,
        seed: config.seed,
        backend: { backend: engine.backend, openblasThreads: engine.openblasThreads, openblasConfig: engine.openblasConfig },
        tags: { split: config.dataFile ? path.basename(file) : split },
        argv: process.argv.slice(2),
      },
      async (run) => {
        const t0 = Date.now();
        const report = await evaluateSplit(
          completerFromModel(model, model.tokenizer.eos, config.topP),
          model.tokenizer,
          records,
          {
            samplesPerProblem: config.samplesPerProblem,
            temperature: config.temperature,
            maxNewTokens: config.maxNewTokens,
            batchSize: config.batchSize,
            k,
            interval: config.interval,
            level: config.level,
            resamples: config.resamples,
          },
          new Rng(config.seed),
        );
        const m = report.metrics;
        run.logMetrics(metricsOf(report));
        const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
        const line = (name: string, v: typeof m.avgAtK) =>
          `  ${name}@${k}  ${pct(v.value)}  [${pct(v.interval.lower)}, ${pct(v.interval.upper)}]`;
        process.stdout.write(
          `${config.checkpoint} on ${config.dataFile ?? split}: ${records.length} problems × ${config.samplesPerProblem} samples, ` +
            `T=${config.temperature}, ${(config.level * 100).toFixed(0)}% ${config.interval} intervals (${((Date.now() - t0) / 1000).toFixed(0)}s)\n` +
            `${line('avg', m.avgAtK)}\n${line('pass', m.passAtK)}\n${line('maj', m.majAtK)}\n` +
            `  verifier: ${JSON.stringify(report.reasons)}; problems with mixed outcomes ${pct(report.mixedFraction)}\n` +
            `  store run ${run.id}\n`,
        );
      },
    );
  } finally {
    store.close();
  }
}

/** The run's metrics: accuracy, mixed fraction, problems, avg/pass/maj@k with their interval bounds, and the verifier's reasons. */
function metricsOf(report: Awaited<ReturnType<typeof evaluateSplit>>): Record<string, number> {
  const m = report.metrics;
  const metrics: Record<string, number> = {
    accuracy: report.accuracy,
    mixed_fraction: report.mixedFraction,
    problems: report.problems,
  };
  for (const [name, v] of [
    ['avg_at_k', m.avgAtK],
    ['pass_at_k', m.passAtK],
    ['maj_at_k', m.majAtK],
  ] as const) {
    metrics[name] = v.value;
    metrics[`${name}_lower`] = v.interval.lower;
    metrics[`${name}_upper`] = v.interval.upper;
  }
  for (const [reason, count] of Object.entries(report.reasons)) metrics[`reason.${reason}`] = count;
  return metrics;
}

runMain(main);
