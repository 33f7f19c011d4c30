/**
 * GRPO fine-tuning of a checkpoint on the synthetic task, optionally with RREDCoT / MC / LOO /
 * gradient token redistribution (Eq. 11); periodic avg@k on validation; results-store run
 * (experiment 'grpo'); trainer-state checkpoints with identical --resume.
 *
 *   npx tsx packages/training/src/cli/grpo.ts [--config file.json] [--resume]
 */
import * as fs from 'fs';
import * as path from 'path';
import { Rng, UserError, canonicalJson, parseConfig, runMain } from '@rred/core';
import { initEngine } from '@rred/engine';
import { TransformerLM, saveCheckpoint } from '@rred/lm';
import { buildDatasets, verify } from '@rred/tasks';
import { completerFromModel, evaluateSplit } from '@rred/evaluation';
import { openStore, withRun } from '@rred/results-store';
import { grpoRunConfigSchema } from '../configs/grpo-run';
import { grpoCrossFieldIssues } from '../configs/grpo';
import { parseCliArgs } from './args';
import { GrpoTrainer } from '../grpo';
import { runGrpo } from '../grpo-loop';
import { taskGrpoSetup } from '../task-grpo';
import { estimatorRedistribution } from '../estimator-hook';
import { taskReferences } from '../task-references';

async function main(): Promise<void> {
  const args = parseCliArgs(process.argv.slice(2), ['resume']);
  const config = parseConfig(grpoRunConfigSchema, args.config, args.configSource);
  const issues = grpoCrossFieldIssues(config.grpo);
  if (issues.length) throw new UserError(`invalid config (${args.configSource}):\n  ${issues.map((i) => `grpo.${i}`).join('\n  ')}`);
  const engine = await initEngine();

  const model = TransformerLM.fromCheckpoint(config.checkpoint);
  const reference = config.grpo.beta > 0 ? TransformerLM.fromCheckpoint(config.checkpoint) : undefined;
  const tokenizer = model.tokenizer;
  const splits = buildDatasets(config.data.datasetSeed, { train: config.data.trainProblems });
  const byId = new Map(splits.train.map((r) => [r.id, r]));
  const tokens = { endThink: tokenizer.endThink, eos: tokenizer.eos };
  const redistribute =
    config.grpo.redistribution === 'none'
      ? undefined
      : estimatorRedistribution({
          method: config.grpo.redistribution,
          model,
          segmentation: config.redistributionOptions.segmentation,
          tokenText: (id) => tokenizer.tokenText(id),
          estimatorConfig: config.redistributionOptions.estimator,
          tokens,
          normalization: config.redistributionOptions.normalization,
          tau: config.redistributionOptions.tau,
          datasetReferences: taskReferences(splits.train, tokenizer),
          continuationReward: (id) => (continuation, stopped) => verify(tokenizer.decode(continuation), byId.get(id)!.answer, stopped).reward,
        });
  const trainer = new GrpoTrainer(taskGrpoSetup({ model, records: splits.train, reference, redistribute }), config.grpo);
  const configHash = canonicalJson(config);
  let storeRunId: string | null = null;
  if (args.flags.has('resume')) {
    const info = trainer.restore(config.output.state);
    if (info.configHash !== configHash) throw new UserError(`--resume: ${config.output.state} was written with a different config`);
    storeRunId = typeof info.storeRunId === 'string' ? info.storeRunId : null;
  }
  const validation = splits.validation.slice(0, config.evaluation.problems);
  const complete = completerFromModel(model, tokenizer.eos);
  const rng = new Rng(config.grpo.seed).fork('evaluation');

  const store = openStore();
  try {
    await withRun(
      store,
      storeRunId
        ? { resume: storeRunId }
        : {
            experiment: 'grpo',
            config: config as unknown as Record<string, unknown>,
            schema: grpoRunConfigSchema,
            seed: config.grpo.seed,
            backend: { backend: engine.backend, openblasThreads: engine.openblasThreads },
            tags: { redistribution: config.grpo.redistribution, lossType: config.grpo.lossType },
            argv: process.argv.slice(2),
          },
      async (run) => {
        const evaluate = async (step: number) => {
          const report = await evaluateSplit(complete, tokenizer, validation, {
            samplesPerProblem: config.evaluation.samplesPerProblem,
            temperature: 1,
            maxNewTokens: config.grpo.maxNewTokens,
            batchSize: 64,
          }, rng.fork(`step-${step}`));
          run.logMetrics({ 'validation.avg_at_k': report.metrics.avgAtK.value, 'validation.pass_at_k': report.metrics.passAtK.value }, step);
          process.stderr.write(`\nvalidation @${step}: avg@${config.evaluation.samplesPerProblem} ${(report.metrics.avgAtK.value * 100).toFixed(1)}%, pass@${config.evaluation.samplesPerProblem} ${(report.metrics.passAtK.value * 100).toFixed(1)}%\n`);
        };
        if (trainer.step === 0) await evaluate(0);
        const saveModel = () => {
          fs.mkdirSync(path.dirname(config.output.checkpoint), { recursive: true });
          saveCheckpoint(config.output.checkpoint, { tokenizer, transformer: model.transformer, meta: { trainer: 'grpo', step: trainer.step, configHash } });
        };
        await runGrpo(trainer, {
          statePath: config.output.state,
          stateInfo: () => {
            saveModel();
            return { configHash, storeRunId: run.id };
          },
          sink: run,
          onStep: async (m) => {
            if (config.evaluation.every > 0 && m.step % config.evaluation.every === 0 && m.step < config.grpo.steps) await evaluate(m.step);
          },
        });
        await evaluate(trainer.step);
        run.logArtifact(config.output.checkpoint);
      },
    );
  } finally {
    store.close();
  }
}

runMain(main);
