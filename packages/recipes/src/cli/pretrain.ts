/**
 * Trains the embedded reasoning model from scratch: SFT on the synthetic task corpus, periodic greedy
 * validation, final accuracy on the default eval split; writes the lm checkpoint and a JSON run record.
 *
 *   node --import tsx packages/recipes/src/cli/pretrain.ts [--config file.json] [--resume]
 *   (npx nx run lm:pretrain)
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  ProgressBar,
  Rng,
  CONFIG_FLAG,
  STORE_FLAG,
  UserError,
  canonicalJson,
  configKeyDocs,
  gitState,
  isTracked,
  loadCommandConfig,
  parseCommandLine,
  repoRoot,
  resolveUserPath,
  runMain,
  type GitState,
  yieldToEventLoop,
} from '@rred/core';
import { initEngine } from '@rred/engine';
import { Tokenizer, TransformerLM, createTransformer, parseModelConfig, saveCheckpoint } from '@rred/lm';
import { DEFAULT_EVAL_SPLIT, tokenizeExample, type TaskRecord } from '@rred/tasks';
import { completerFromModel, evaluateSplit, type AccuracyReport } from '@rred/evaluation';
import { openStore, withRun, type Run } from '@rred/results-store';
import { SftTrainer, initSinusoidalPositions, initTokenEmbeddings, transformerPolicy, type SftStepMetrics } from '@rred/training';
import { pretrainConfigSchema, type PretrainConfig } from '../configs/pretrain';
import { pretrainData } from '../pretrain-data';

interface RunRecord {
  kind: 'pretrain';
  startedAt: string;
  finishedAt: string | null;
  seed: number;
  config: PretrainConfig;
  configHash: string;
  git: GitState;
  engine: unknown;
  model: { paramCount: number; config: unknown };
  /** Step metrics every `logEvery` steps, plus every validation. */
  history: (SftStepMetrics & { stepMs: number })[];
  validations: {
    step: number;
    loss: number;
    greedy: Omit<AccuracyReport, 'examples' | 'metrics'> & { examples: AccuracyReport['examples'] };
    avgAtK: number;
    passAtK: number;
  }[];
  final: { split: string; greedy: AccuracyReport; sampled: AccuracyReport } | null;
  resumedAt: number[];
  /** Step at which validation accuracy reached validation.stopAtGreedyAccuracy (null: ran all steps). */
  stoppedEarlyAt: number | null;
}

const SPEC = {
  name: 'pretrain',
  usage: 'npx nx run lm:pretrain --',
  summary:
    'Trains the embedded model from scratch (SFT on the task corpus), validates, writes the checkpoint, its trainer state and a JSON run record, and records the run in the store.',
  flags: {
    config: CONFIG_FLAG,
    resume: { type: 'boolean', description: 'continue from output.state (same config) to an identical continuation' },
    store: STORE_FLAG,
  },
  config: { keys: configKeyDocs(pretrainConfigSchema) },
} as const;

type Output = { checkpoint: string; state: string; runRecord: string };
type Engine = Awaited<ReturnType<typeof initEngine>>;

/** Everything a pretrain run works with once it is set up. `record` is replaced on --resume. */
interface Session {
  config: PretrainConfig;
  output: Output;
  tokenizer: Tokenizer;
  transformer: ReturnType<typeof createTransformer>;
  /** The seed's stream; every draw forks it by name. */
  root: Rng;
  splits: ReturnType<typeof pretrainData>['splits'];
  validation: TaskRecord[];
  validationExamples: ReturnType<typeof tokenizeExample>[];
  trainer: SftTrainer;
  configHash: string;
  record: RunRecord;
}

async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2), SPEC);
  const { config, source: configSource } = loadCommandConfig(pretrainConfigSchema, args.flags.config, args.overrides, args.written);
  const output = outputPaths(config, configSource);
  const engine = await initEngine();
  const session = setUp(config, configSource, output, engine);
  const storeRunId = args.flags.resume ? resume(session) : null;

  // The run goes to the results store (experiment 'pretrain'); the JSON run record beside the
  // checkpoint keeps the same facts for readers of the checkpoint directory.
  const store = openStore(args.flags.store, { sentinel: true });
  const runOptions = storeRunId
    ? { resume: storeRunId }
    : {
        experiment: 'pretrain',
        config: config as unknown as Record<string, unknown>,
        schema: pretrainConfigSchema,
        seed: config.seed,
        backend: { backend: engine.backend, openblasThreads: engine.openblasThreads, openblasConfig: engine.openblasConfig },
        argv: process.argv.slice(2),
      };
  try {
    await store.sentinelReady();
    await withRun(store, runOptions, (run) => trainAndEvaluate(session, run));
  } finally {
    store.close();
  }
}

/** The one path rule: relative output paths are relative to the repository root (the config keeps them as written). */
function outputPaths(config: PretrainConfig, configSource: string): Output {
  const output = {
    checkpoint: resolveUserPath(config.output.checkpoint),
    state: resolveUserPath(config.output.state),
    runRecord: resolveUserPath(config.output.runRecord),
  };
  for (const [key, file] of Object.entries(output)) {
    if (isTracked(repoRoot(), file))
      process.stderr.write(`pretrain: output.${key} of ${configSource} replaces the committed ${path.relative(repoRoot(), file)}\n`);
  }
  return output;
}

/** The model (seeded init, or warm-started), the corpus and validation data, the trainer and a fresh run record. */
function setUp(config: PretrainConfig, configSource: string, output: Output, engine: Engine): Session {
  const root = new Rng(config.seed);
  // forks do not advance root: the corpus draws from root.fork('corpus') as before
  const { tokenizer, splits, corpus } = pretrainData(config, root.fork('corpus'));
  const { positionInit, embeddingStd, ...shape } = config.model;
  const modelConfig = parseModelConfig({ vocabSize: tokenizer.vocabSize, ...shape }, `${configSource}: model`);
  const transformer = createTransformer(modelConfig, root.fork('model-init'));
  initTokenEmbeddings(transformer, embeddingStd, root.fork('token-embedding-init'));
  // same norm as a token embedding row: a·√(C/2) = std·√C
  if (positionInit === 'sinusoidal') initSinusoidalPositions(transformer, embeddingStd * Math.SQRT2);
  if (config.initCheckpoint) warmStart(transformer, tokenizer, resolveUserPath(config.initCheckpoint));
  process.stderr.write(
    `pretrain: model ${transformer.paramCount} parameters (${canonicalJson(config.model)}), backend ${engine.backend}\n`,
  );

  const validation = splits.validation.slice(0, config.validation.problems);
  const validationExamples = validation.map((r) =>
    tokenizeExample(tokenizer, { prompt: r.problem, thinking: r.solution, answer: r.answer }),
  );

  // before anything is written: an example longer than the context would be trained cut
  checkContextFits(modelConfig.contextLength, [
    ...splits.train.map((r, i) => ({ id: r.id, example: corpus.example(0, i) })),
    ...validation.map((r, i) => ({ id: r.id, example: validationExamples[i] })),
  ]);

  const trainer = new SftTrainer(
    transformerPolicy(transformer),
    corpus,
    {
      seed: config.seed,
      steps: config.steps,
      batchSize: config.batchSize,
      contextLength: modelConfig.contextLength,
      checkpointEvery: config.checkpointEvery,
      optimizer: config.optimizer,
    },
    tokenizer.pad,
  );
  const configHash = canonicalJson(config);
  const record: RunRecord = {
    kind: 'pretrain',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    seed: config.seed,
    config,
    configHash,
    git: gitState(repoRoot()),
    engine,
    model: { paramCount: transformer.paramCount, config: modelConfig },
    history: [],
    validations: [],
    final: null,
    resumedAt: [],
    stoppedEarlyAt: null,
  };
  return { config, output, tokenizer, transformer, root, splits, validation, validationExamples, trainer, configHash, record };
}

/** --resume: the trainer state, run record and store run of output.state (same config only); returns the store run id. */
function resume(s: Session): string | null {
  const info = s.trainer.restore(s.output.state);
  if (info.configHash !== s.configHash)
    throw new UserError(`--resume: ${s.output.state} was written with a different config; rerun without --resume or restore that config`);
  s.record = info.record as RunRecord;
  s.record.resumedAt.push(s.trainer.step);
  process.stderr.write(`pretrain: resumed at step ${s.trainer.step}\n`);
  return typeof info.storeRunId === 'string' ? info.storeRunId : null;
}

/** Checkpoint, trainer state (for --resume) and JSON run record, all at the trainer's current step. */
function writeOutputs(s: Session, run: Run): void {
  fs.mkdirSync(path.dirname(s.output.checkpoint), { recursive: true });
  saveCheckpoint(s.output.checkpoint, {
    tokenizer: s.tokenizer,
    transformer: s.transformer,
    meta: { trainer: 'sft-pretrain', step: s.trainer.step, seed: s.config.seed, configHash: s.configHash, git: s.record.git },
  });
  s.trainer.save(s.output.state, { configHash: s.configHash, record: s.record, storeRunId: run.id });
  fs.writeFileSync(s.output.runRecord, `${JSON.stringify(s.record, null, 2)}\n`);
}

/** The training loop (validating every validation.every steps, stopping early at the accuracy bar), then the final evaluation. */
async function trainAndEvaluate(s: Session, run: Run): Promise<void> {
  const { config, trainer, record } = s;
  // KV-cached sampler over the same (live) transformer weights
  const complete = completerFromModel(new TransformerLM(s.transformer, s.tokenizer), s.tokenizer.eos);
  // counts only the steps of this invocation, so the ETA stays right after --resume
  const bar = new ProgressBar(trainer.step > 0 ? `pretrain (from step ${trainer.step})` : 'pretrain', config.steps - trainer.step);
  let ema: number | null = null;
  while (trainer.step < config.steps) {
    await yieldToEventLoop(); // SIGINT/SIGTERM handlers (store run → KILLED) get to run
    const t0 = Date.now();
    const m = trainer.trainStep();
    const stepMs = Date.now() - t0;
    ema = ema === null ? m.loss : 0.95 * ema + 0.05 * m.loss;
    if (m.step % 10 === 0 || m.step === 1) {
      record.history.push({ ...m, stepMs });
      run.logMetrics(
        { 'train.loss': m.loss, 'train.lr': m.lr, 'train.grad_norm': m.gradNorm, 'train.tokens': m.tokens, 'train.step_ms': stepMs },
        m.step,
      );
    }
    bar.tick(
      1,
      `loss ${m.loss.toFixed(3)} (ema ${ema.toFixed(3)}) lr ${m.lr.toExponential(2)} |g| ${m.gradNorm.toFixed(2)} ${stepMs}ms/step`,
    );
    if (config.validation.every > 0 && m.step % config.validation.every === 0 && m.step < config.steps) {
      const accuracy = await validate(s, run, complete);
      if (accuracy >= config.validation.stopAtGreedyAccuracy) {
        process.stderr.write(
          `pretrain: validation greedy accuracy ${(accuracy * 100).toFixed(1)}% ≥ ${config.validation.stopAtGreedyAccuracy * 100}%: stopping at step ${trainer.step}\n`,
        );
        record.stoppedEarlyAt = trainer.step;
        break;
      }
    }
    if (config.checkpointEvery > 0 && m.step % config.checkpointEvery === 0) writeOutputs(s, run);
  }
  if (record.stoppedEarlyAt === null) await validate(s, run, complete);
  await finalEvaluation(s, run, complete);
}

type Completer = ReturnType<typeof completerFromModel>;

/** Validation loss, greedy accuracy and T = 1 avg@k / pass@k on the validation problems; returns the greedy accuracy. */
async function validate(s: Session, run: Run, complete: Completer): Promise<number> {
  const { config, trainer, tokenizer, validation } = s;
  const t0 = Date.now();
  const loss = trainer.evaluateLoss(s.validationExamples);
  const settings = { maxNewTokens: config.validation.maxNewTokens, batchSize: 64 };
  const greedy = await evaluateSplit(
    complete,
    tokenizer,
    validation,
    { samplesPerProblem: 1, temperature: 0, ...settings },
    s.root.fork(`validation-${trainer.step}`),
  );
  const sampled = await evaluateSplit(
    complete,
    tokenizer,
    validation,
    { samplesPerProblem: config.validation.samplesPerProblem, temperature: 1, ...settings },
    s.root.fork(`validation-sampled-${trainer.step}`),
  );
  const { metrics: _m, ...summary } = greedy;
  s.record.validations.push({
    step: trainer.step,
    loss,
    greedy: summary,
    avgAtK: sampled.metrics.avgAtK.value,
    passAtK: sampled.metrics.passAtK.value,
  });
  run.logMetrics(
    {
      'validation.loss': loss,
      'validation.greedy_accuracy': greedy.accuracy,
      'validation.t1_avg_at_k': sampled.metrics.avgAtK.value,
      'validation.t1_pass_at_k': sampled.metrics.passAtK.value,
    },
    trainer.step,
  );
  process.stderr.write(
    `\nvalidation @${trainer.step}: loss ${loss.toFixed(4)}, greedy accuracy ${(greedy.accuracy * 100).toFixed(1)}%, ` +
      `T=1 avg@${config.validation.samplesPerProblem} ${(sampled.metrics.avgAtK.value * 100).toFixed(1)}% ` +
      `(${validation.length} problems, ${canonicalJson(greedy.reasons)}, ${((Date.now() - t0) / 1000).toFixed(0)}s)\n` +
      `  e.g. ${JSON.stringify(greedy.examples[0]?.completion)} (expected ${greedy.examples[0]?.expected})\n`,
  );
  return greedy.accuracy;
}

/** Greedy accuracy on DEFAULT_EVAL_SPLIT and T = 1 avg@4 on its first 50 problems; writes the outputs and logs them to the run. */
async function finalEvaluation(s: Session, run: Run, complete: Completer): Promise<void> {
  const { config, trainer, record, output } = s;
  const evalRecords: TaskRecord[] = s.splits[DEFAULT_EVAL_SPLIT].slice(0, config.validation.finalProblems);
  const evalRng = s.root.fork('final-eval');
  const settings = { maxNewTokens: config.validation.maxNewTokens, batchSize: 64 };
  const greedy = await evaluateSplit(
    complete,
    s.tokenizer,
    evalRecords,
    { samplesPerProblem: 1, temperature: 0, ...settings },
    evalRng.fork('greedy'),
  );
  const sampledRecords = evalRecords.slice(0, Math.min(50, evalRecords.length));
  const sampled = await evaluateSplit(
    complete,
    s.tokenizer,
    sampledRecords,
    { samplesPerProblem: 4, temperature: 1, ...settings },
    evalRng.fork('sampled'),
  );
  record.final = { split: DEFAULT_EVAL_SPLIT, greedy, sampled };
  record.finishedAt = new Date().toISOString();
  writeOutputs(s, run);
  run.logMetrics(
    {
      'final.greedy_accuracy': greedy.accuracy,
      'final.greedy_accuracy_lower': greedy.metrics.avgAtK.interval.lower,
      'final.greedy_accuracy_upper': greedy.metrics.avgAtK.interval.upper,
      'final.t1_avg_at_4': sampled.metrics.avgAtK.value,
      'final.t1_pass_at_4': sampled.metrics.passAtK.value,
      'final.t1_maj_at_4': sampled.metrics.majAtK.value,
      'final.t1_mixed_fraction': sampled.mixedFraction,
    },
    trainer.step,
  );
  run.setTags({ eval_split: DEFAULT_EVAL_SPLIT });
  run.logArtifact(output.checkpoint);
  run.logArtifact(output.runRecord);
  const size = fs.statSync(output.checkpoint).size;
  process.stderr.write(
    `pretrain: done. ${DEFAULT_EVAL_SPLIT} greedy accuracy ${(greedy.accuracy * 100).toFixed(1)}% ` +
      `[${(greedy.metrics.avgAtK.interval.lower * 100).toFixed(1)}, ${(greedy.metrics.avgAtK.interval.upper * 100).toFixed(1)}] on ${evalRecords.length}; ` +
      `T=1 avg@4 ${(sampled.metrics.avgAtK.value * 100).toFixed(1)}%, pass@4 ${(sampled.metrics.passAtK.value * 100).toFixed(1)}%, ` +
      `mixed problems ${(sampled.mixedFraction * 100).toFixed(0)}%\n` +
      `  checkpoint ${output.checkpoint} (${(size / 1e6).toFixed(2)} MB), run record ${output.runRecord}, store run ${run.id}\n`,
  );
}

/**
 * Every training example (epoch 0's draw of the corpus) and validation example must fit the model's
 * context whole: the SFT batch keeps prompt + completion only up to contextLength + 1 tokens, so a longer
 * one would be trained on a cut completion (or, cut inside the prompt, on nothing at all: loss 0).
 */
function checkContextFits(
  contextLength: number,
  examples: readonly { id: string; example: { prompt: number[]; completion: number[] } }[],
): void {
  let longest = examples[0];
  for (const e of examples) {
    if (e.example.prompt.length + e.example.completion.length > longest.example.prompt.length + longest.example.completion.length)
      longest = e;
  }
  if (!longest) return;
  const { prompt, completion } = longest.example;
  const needed = prompt.length + completion.length - 1;
  if (needed > contextLength) {
    throw new UserError(
      `model.contextLength ${contextLength}: the longest training example (${longest.id}: prompt ${prompt.length} + completion ${completion.length} tokens) needs a context of at least ${needed}`,
    );
  }
}

/**
 * Copies a checkpoint's weights into the freshly built transformer (a second training stage). The
 * checkpoint must have the same tokenizer (alphabet or pieces) and model shape; the seed still draws corpus and data order.
 */
function warmStart(transformer: ReturnType<typeof createTransformer>, tokenizer: Tokenizer, file: string): void {
  const from = TransformerLM.fromCheckpoint(file);
  if (canonicalJson(from.tokenizer.toJSON()) !== canonicalJson(tokenizer.toJSON())) {
    throw new UserError(
      `initCheckpoint ${file}: its tokenizer ${JSON.stringify(from.tokenizer.toJSON()).slice(0, 80)} differs from this run's ${JSON.stringify(tokenizer.toJSON()).slice(0, 80)}`,
    );
  }
  const src = from.transformer.variables();
  const dst = transformer.variables();
  if (src.length !== dst.length || src.some((v, i) => v.shape.join('x') !== dst[i].shape.join('x'))) {
    throw new UserError(`initCheckpoint ${file}: its model shape differs from config.model`);
  }
  dst.forEach((v, i) => v.assign(src[i]));
}

runMain(main);
