import { mean, median, parseConfig, ProgressBar, type Rng, sum, textTable, seedSchema } from '@rred/core';
import {
  buildReferenceSet,
  gradientAttribution,
  leaveOneOut,
  referencesFit,
  rredcot,
  truncatedMc,
  type EstimatorInputs,
  type EstimatorResult,
  estimatorMethods,
} from '@rred/estimators';
import { buildTrace, EMBEDDED_CHECKPOINT, type Trace, type TransformerLM } from '@rred/lm';
import { segment, segmentationConfig, type Segment } from '@rred/segmentation';
import { DEFAULT_EVAL_SPLIT, promptTokens, referenceTokens, type TaskRecord, verify } from '@rred/tasks';
import { z } from 'zod';
import { benchDocument, benchRng, heldOutRecords, loadBenchModel, timed } from './bench-data';
import { round } from './timing';

const METHODS = estimatorMethods;
/** Also timed: RREDCoT with one scoring call per exit point (no prefix sharing), to show what sharing saves. */
const MEASURED = [...METHODS, 'rredcotPerExitPoint'] as const;
type Method = (typeof MEASURED)[number];

export const EstimatorsBenchConfigSchema = z
  .object({
    checkpoint: z.string().min(1).default(EMBEDDED_CHECKPOINT).describe(`Model checkpoint, relative to the repo root.`),
    seed: seedSchema.default(0).describe('Seed of every draw (traces, MC continuations).'),
    traces: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe(`Traces measured, sampled one by one from the first problems of ${DEFAULT_EVAL_SPLIT}.`),
    maxNewTokens: z.number().int().min(1).default(120).describe('Generation limit of the traces (cut to fit the context).'),
    maxSegments: z.number().int().min(1).default(20).describe('K of the hybrid segmentation (Sec. 3.1), as in the experiments.'),
    reps: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe(
        'Timed runs per trace of rredcot, rredcotPerExitPoint, loo, gradient and of sampling the trace (median reported; the machine is shared). ' +
          'MC (~2 s a trace) runs once.',
      ),
    references: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('Dataset references per problem (canonical order + count − 1 other valid orders; Eq. 9).'),
    mc: z
      .object({
        samplesPerExitPoint: z
          .number()
          .int()
          .min(1)
          .default(20)
          .describe('n: continuations per exit point (App. 10.1), as in the experiments.'),
        maxNewTokens: z
          .number()
          .int()
          .min(1)
          .default(120)
          .describe('M; with horizon completion it bounds the whole completion (as the experiments).'),
        batchSize: z
          .number()
          .int()
          .min(1)
          .default(64)
          .describe(
            'Continuations per sample call. Measured on this machine, 16–64 run at the same speed and ' +
              'one call holding all (K+1)·n ≈ 140 continuations of a trace is ~1.4× slower, so 64 is MC batched as well as it can be.',
          ),
      })
      .strict()
      .default({})
      .describe('Truncated MC baseline, horizon completion, temperature 1.'),
  })
  .strict();

type EstimatorsBenchConfig = z.infer<typeof EstimatorsBenchConfigSchema>;

interface MethodSummary {
  tokensForwardedPerTrace: number;
  tokensGeneratedPerTrace: number;
  forwardPassesPerTrace: number;
  tokensBackpropagatedPerTrace: number;
  wallMsPerTrace: number;
  wallMsMedian: number;
}

interface Item {
  trace: Trace;
  record: TaskRecord;
  segments: Segment[];
  inputs: EstimatorInputs;
  /** Wall time of sampling this trace (its own batch-1 `sample` call). */
  sampleMs: number;
}

/**
 * The RREDCoT reading this section has always measured (the defaults before the gold benchmark): I+V
 * with the full reference path, log space. Its bill is the formula below; the gold default (V only,
 * remaining suffix) scores shorter suffixes, so it would cost less, not more.
 */
// sharedPrefix: this section checks the T + Σ suffix bill exactly (sharedContinuation, the default, can only forward fewer)
const RREDCOT_CONFIG = { terms: 'immediatePlusValue', valueSuffix: 'full', space: 'log', scoring: 'sharedPrefix' } as const;

/** RREDCoT's token bill for one trace: T (sequence up to the last exit point) + (K+1) · Σ |suffix|. */
function expectedRredcotTokens(
  item: Item,
  tokens: { endThink: number; eos: number },
  maxReferences: number,
): { T: number; suffixTokens: number } {
  const refs = buildReferenceSet(item.inputs.references ?? {}, 'dataset', tokens, maxReferences);
  const answers = [...new Map(refs.map((r) => [r.answer.join(','), r.answer])).values()];
  const perExit = sum(answers.map((y) => y.length + 2)) + sum(refs.map((r) => r.solution.length + r.answer.length + 2));
  const K = item.segments.length;
  return { T: item.trace.prompt.length + item.segments[K - 1].end, suffixTokens: (K + 1) * perExit };
}

/**
 * Traces sampled one at a time (each its own timed batch-1 `sample` call, so "the time taken to sample
 * that trace" is measured directly), kept when the thinking is non-empty and every reference fits
 * after it.
 */
async function sampleItems(
  lm: TransformerLM,
  config: EstimatorsBenchConfig,
  rng: Rng,
  bar: ProgressBar,
): Promise<{ items: Item[]; sampled: number }> {
  const tok = lm.tokenizer;
  const tokens = { endThink: tok.endThink, eos: tok.eos };
  const records = heldOutRecords(config.traces * 6);
  const items: Item[] = [];
  let sampled = 0;
  for (const record of records) {
    if (items.length === config.traces) break;
    const prompt = promptTokens(tok, record.problem);
    const options = {
      temperature: 1,
      topP: 1,
      maxNewTokens: Math.min(config.maxNewTokens, lm.maxLength - prompt.length),
      stopToken: tok.eos,
    };
    const draw = () => lm.sample([prompt], options, rng.fork(`trace-${record.id}`));
    const [{ results }, firstMs] = await timed(draw);
    sampled++;
    const v = verify(tok.decode(results[0].tokens), record.answer, !results[0].truncated);
    const trace = buildTrace(tok, { problemId: record.id, prompt, sample: results[0], answer: v.answer, reward: v.reward });
    const refs = referenceTokens(record, tok, config.references);
    if (trace.thinkEnd === 0 || !referencesFit(trace, refs, lm.maxLength)) continue;
    // Re-time the identical call (same rng stream → the same trace).
    const sampleRuns = [firstMs];
    for (let rep = 1; rep < config.reps; rep++) {
      const [again, ms] = await timed(draw);
      if (again.results[0].tokens.join(',') !== results[0].tokens.join(','))
        throw new Error(`bench estimators: re-sampling ${record.id} with the same rng gave a different trace`);
      sampleRuns.push(ms);
    }
    const sampleMs = median(sampleRuns);
    const segments = segment(trace, segmentationConfig({ strategy: 'hybrid', maxSegments: config.maxSegments }), (id) => tok.tokenText(id));
    const inputs: EstimatorInputs = {
      tokens,
      references: { dataset: refs },
      reward: (continuation, stopped) => verify(tok.decode(continuation), record.answer, stopped).reward,
    };
    items.push({ trace, record, segments, inputs, sampleMs });
    bar.tick(1, `trace ${items.length}: T=${trace.completion.length}, K=${segments.length}`);
  }
  if (items.length < config.traces)
    throw new Error(`bench estimators: only ${items.length} of ${sampled} sampled traces have thinking and fit their references`);
  return { items, sampled };
}

type McConfig = EstimatorsBenchConfig['mc'] & { horizon: 'completion'; temperature: number };
type Runner = (method: Method, item: Item, index: number) => Promise<EstimatorResult<unknown>>;

/** Untimed warm-up of every method (first calls grow the wasm heap and set up kernels). */
async function warmUp(lm: TransformerLM, w: Item, mcConfig: McConfig, rng: Rng): Promise<void> {
  await rredcot(lm, w.trace, w.segments, w.inputs, RREDCOT_CONFIG);
  await rredcot(lm, w.trace, w.segments, w.inputs, { ...RREDCOT_CONFIG, scoring: 'perExitPoint' });
  await leaveOneOut(lm, w.trace, w.segments, w.inputs);
  await gradientAttribution(lm, w.trace, w.segments, w.inputs);
  await truncatedMc(lm, w.trace, w.segments, w.inputs, { ...mcConfig, samplesPerExitPoint: 2 }, rng.fork('warm-up'));
}

/** One measured method on one trace (MC draws from its own fork per trace). */
function methodRunner(lm: TransformerLM, mcConfig: McConfig, rng: Rng): Runner {
  return (method, item, index) => {
    switch (method) {
      case 'rredcot':
        return rredcot(lm, item.trace, item.segments, item.inputs, RREDCOT_CONFIG);
      case 'rredcotPerExitPoint':
        return rredcot(lm, item.trace, item.segments, item.inputs, { ...RREDCOT_CONFIG, scoring: 'perExitPoint' });
      case 'mc':
        return truncatedMc(lm, item.trace, item.segments, item.inputs, mcConfig, rng.fork(`mc-${index}`));
      case 'loo':
        return leaveOneOut(lm, item.trace, item.segments, item.inputs);
      case 'gradient':
        return gradientAttribution(lm, item.trace, item.segments, item.inputs);
    }
  };
}

/**
 * One trace's row: every method's cost (median wall over reps; MC once), methods interleaved per rep so
 * machine load drifts hit all of them alike; checks that rredcot forwarded exactly T + (K+1)·Σ|suffix|.
 */
async function benchTrace(
  run: Runner,
  item: Item,
  index: number,
  config: EstimatorsBenchConfig,
  tokens: { endThink: number; eos: number },
  bar: ProgressBar,
): Promise<Record<string, unknown>> {
  const row: Record<string, unknown> = {
    problemId: item.trace.problemId,
    completionTokens: item.trace.completion.length,
    K: item.segments.length,
    reward: item.trace.reward,
    sampleMs: round(item.sampleMs, 2),
  };
  const runs: Partial<Record<Method, { result: EstimatorResult<unknown>; ms: number[] }>> = {};
  for (let rep = 0; rep < config.reps; rep++) {
    for (const method of MEASURED) {
      if (method === 'mc' && rep > 0) continue;
      const [result, ms] = await timed(() => run(method, item, index));
      (runs[method] ??= { result, ms: [] }).ms.push(ms);
    }
  }
  for (const method of MEASURED) {
    const { result, ms } = runs[method]!;
    const wallMs = median(ms);
    const c = result.cost;
    row[method] = {
      tokensForwarded: c.tokensForwarded,
      tokensGenerated: c.tokensGenerated,
      forwardPasses: c.forwardPasses,
      tokensBackpropagated: c.tokensBackpropagated ?? 0,
      wallMs: round(wallMs, 2),
      runs: ms.length,
    };
    if (method === 'rredcot') {
      const { T, suffixTokens } = expectedRredcotTokens(item, tokens, 16);
      if (c.tokensForwarded !== T + suffixTokens) {
        throw new Error(
          `bench estimators: rredcot forwarded ${c.tokensForwarded} tokens on trace ${item.trace.problemId}, expected T + Σ suffix = ${T} + ${suffixTokens}`,
        );
      }
      Object.assign(row, {
        rredcotT: T,
        rredcotSuffixTokens: suffixTokens,
        rredcotTokensMatch: true,
        rredcotWithinSampleTime: wallMs <= item.sampleMs,
      });
    }
    bar.tick(1, `trace ${index} ${method}`);
  }
  return row;
}

/** Per-method means over the traces, and wall / token ratios to rredcot. */
function methodSummaries(perTrace: Record<string, unknown>[]) {
  const field = (method: Method, key: string) => perTrace.map((r) => (r[method] as Record<string, number>)[key]);
  const perMethod = {} as Record<Method, MethodSummary>;
  for (const m of MEASURED) {
    perMethod[m] = {
      tokensForwardedPerTrace: round(mean(field(m, 'tokensForwarded'))),
      tokensGeneratedPerTrace: round(mean(field(m, 'tokensGenerated'))),
      forwardPassesPerTrace: round(mean(field(m, 'forwardPasses')), 2),
      tokensBackpropagatedPerTrace: round(mean(field(m, 'tokensBackpropagated'))),
      wallMsPerTrace: round(mean(field(m, 'wallMs')), 2),
      wallMsMedian: round(median(field(m, 'wallMs')), 2),
    };
  }
  const wallRatio = (m: Method) => round(sum(field(m, 'wallMs')) / sum(field('rredcot', 'wallMs')), 2);
  const tokenRatio = (m: Method) => round(sum(field(m, 'tokensForwarded')) / sum(field('rredcot', 'tokensForwarded')), 2);
  return { perMethod, wallRatio, tokenRatio };
}

/** For comparison: the same prompts sampled together in one batched call (different draws); its wall time. */
async function batchedSampleMs(lm: TransformerLM, items: readonly Item[], config: EstimatorsBenchConfig, rng: Rng): Promise<number> {
  const prompts = items.map((i) => i.trace.prompt);
  const maxNewTokens = Math.min(config.maxNewTokens, lm.maxLength - Math.max(...prompts.map((p) => p.length)));
  const [, ms] = await timed(() =>
    lm.sample(prompts, { temperature: 1, topP: 1, maxNewTokens, stopToken: lm.tokenizer.eos }, rng.fork('batched-sampling')),
  );
  return ms;
}

function printEstimatorsBench(out: EstimatorsBenchResult, config: EstimatorsBenchConfig): void {
  const { perMethod } = out;
  const rows = MEASURED.map((m) => {
    const p = perMethod[m];
    return [
      m,
      p.tokensForwardedPerTrace.toFixed(0),
      p.tokensGeneratedPerTrace.toFixed(0),
      p.forwardPassesPerTrace.toFixed(1),
      p.wallMsPerTrace.toFixed(1),
      (p.wallMsPerTrace / perMethod.rredcot.wallMsPerTrace).toFixed(1),
    ];
  });
  const n = out.traces;
  process.stdout.write(
    `\n${textTable({ columns: ['per trace', 'tokens fwd', 'tokens gen', 'passes', 'wall ms', '× rredcot'], rows }, 'numbers')}\n` +
      `${n} traces (${out.meanCompletionTokens} completion tokens, K = ${out.meanK} on average), MC n = ${config.mc.samplesPerExitPoint}, M = ${config.mc.maxNewTokens}\n` +
      `costRatioMcOverRredcot ${out.costRatioMcOverRredcot} (bar ≥ 20: ${out.meetsMcBar ? 'met' : 'MISSED'}), costRatioLooOverRredcot ${out.costRatioLooOverRredcot}; ` +
      `rredcot tokens = T + Σ suffix on every trace: ${out.rredcotTokensMatchEveryTrace}\n` +
      `rredcot ${out.rredcotWallVsSampling.rredcotMsPerTrace} ms/trace vs sampling ${out.rredcotWallVsSampling.sampleMsPerTrace} ms/trace alone ` +
      `(${out.rredcotWallVsSampling.batchedSampleMsPerTrace} ms/trace amortised in one batch of ${n}) ` +
      `(${out.rredcotWallVsSampling.tracesWithinSampleTime}/${n} traces within their sampling time)\n`,
  );
}

type EstimatorsBenchResult = Awaited<ReturnType<typeof measure>>;

/** Samples the traces, times every method on each, and assembles the section's document. */
async function measure(lm: TransformerLM, config: EstimatorsBenchConfig) {
  const rng = benchRng(config.seed, 'estimators');
  const mcConfig: McConfig = { ...config.mc, horizon: 'completion' as const, temperature: 1 };
  const bar = new ProgressBar('bench estimators', config.traces * (1 + MEASURED.length), 5000);
  const { items, sampled } = await sampleItems(lm, config, rng.fork('traces'), bar);
  await warmUp(lm, items[0], mcConfig, rng);
  const run = methodRunner(lm, mcConfig, rng);
  const tokens = { endThink: lm.tokenizer.endThink, eos: lm.tokenizer.eos };
  const perTrace: Record<string, unknown>[] = [];
  for (const [index, item] of items.entries()) perTrace.push(await benchTrace(run, item, index, config, tokens, bar));
  const { perMethod, wallRatio, tokenRatio } = methodSummaries(perTrace);
  const sampleMsPerTrace = round(mean(items.map((i) => i.sampleMs)), 2);
  const batchedMs = await batchedSampleMs(lm, items, config, rng);
  return {
    perMethod,
    costRatioMcOverRredcot: wallRatio('mc'),
    costRatioLooOverRredcot: wallRatio('loo'),
    costRatioGradientOverRredcot: wallRatio('gradient'),
    tokenRatioMcOverRredcot: tokenRatio('mc'),
    tokenRatioLooOverRredcot: tokenRatio('loo'),
    prefixSharingSpeedup: { wall: wallRatio('rredcotPerExitPoint'), tokens: tokenRatio('rredcotPerExitPoint') },
    mcBar: 20,
    meetsMcBar: wallRatio('mc') >= 20,
    rredcotTokensMatchEveryTrace: perTrace.every((r) => r.rredcotTokensMatch === true),
    rredcotWallVsSampling: {
      rredcotMsPerTrace: perMethod.rredcot.wallMsPerTrace,
      sampleMsPerTrace,
      tracesWithinSampleTime: perTrace.filter((r) => r.rredcotWithinSampleTime).length,
      traces: perTrace.length,
      batchedSampleMsPerTrace: round(batchedMs / items.length, 2),
      note:
        'sampleMsPerTrace = wall of the batch-1 KV-cache sample call that produced each trace (median of reps re-running the identical call; the bar); batchedSampleMsPerTrace = ' +
        'one call sampling all these prompts together, divided by the trace count (amortised cost in a batched rollout)',
    },
    traces: items.length,
    tracesSampled: sampled,
    meanK: round(mean(items.map((i) => i.segments.length)), 2),
    meanCompletionTokens: round(mean(items.map((i) => i.trace.completion.length)), 1),
    perTrace,
  };
}

export async function runEstimatorsBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(EstimatorsBenchConfigSchema, rawConfig, 'estimators bench config');
  const model = await loadBenchModel(config.checkpoint);
  try {
    const measured = await measure(model.lm, config);
    printEstimatorsBench(measured, config);
    return benchDocument(model, config, measured);
  } finally {
    model.lm.dispose();
  }
}
