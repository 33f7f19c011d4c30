import { median, parseConfig, ProgressBar, sum, textTable, seedSchema, type Rng } from '@rred/core';
import { tf } from '@rred/engine';
import { EMBEDDED_CHECKPOINT, tokenLogprobs, type SuffixRequest, type Trace, type TransformerLM } from '@rred/lm';
import { DEFAULT_EVAL_SPLIT, promptTokens, type TaskRecord } from '@rred/tasks';
import { z } from 'zod';
import { benchDocument, benchRng, heldOutRecords, loadBenchModel, sampleTraces, timed } from './bench-data';
import { round } from './timing';

export const LmBenchConfigSchema = z
  .object({
    checkpoint: z.string().min(1).default(EMBEDDED_CHECKPOINT).describe(`Model checkpoint, relative to the repo root.`),
    seed: seedSchema.default(0).describe('Seed of every draw (sampling of both samplers, trace sampling).'),
    samplingPrompts: z
      .number()
      .int()
      .min(1)
      .default(16)
      .describe(`Prompts B of the sampling throughput test: the first B problems of ${DEFAULT_EVAL_SPLIT}.`),
    maxNewTokens: z.number().int().min(1).default(120).describe('Generation limit of every sample call (cut to fit the context).'),
    samplingReps: z.number().int().min(1).default(1).describe('Timed runs of each sampler (median reported).'),
    scoringTraces: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe('Traces (sampled from the held-out split) whose immediate-term suffixes are scored.'),
    exitPoints: z
      .number()
      .int()
      .min(2)
      .default(20)
      .describe('Exit points per trace, evenly spaced from the prompt (s_0) to the end of the thinking (s_K).'),
    scoringReps: z.number().int().min(1).default(3).describe('Timed runs of each scorer per trace (median per trace, summed over traces).'),
  })
  .strict();

type LmBenchConfig = z.infer<typeof LmBenchConfigSchema>;

/** Exit points 0..E−1 from the prompt end to the end of the thinking, rounded, strictly increasing. */
export function evenExitPoints(promptLength: number, thinkEnd: number, count: number): number[] {
  if (thinkEnd < count - 1)
    throw new Error(`evenExitPoints: a thinking span of ${thinkEnd} tokens cannot hold ${count} distinct exit points`);
  return Array.from({ length: count }, (_, k) => promptLength + Math.round((k * thinkEnd) / (count - 1)));
}

/**
 * The "naive but batched" baseline: every request's prefix ++ suffix as its own row, right-padded into
 * one batch, one forward (no prefix sharing). Rows are causal, so padding after a row never changes it.
 */
export async function naiveBatchedScore(
  lm: TransformerLM,
  sequence: number[],
  requests: SuffixRequest[],
): Promise<{ logprobs: number[][]; positions: number; realTokens: number }> {
  const rows = requests.map((r) => [...sequence.slice(0, r.exitAt), ...r.suffix]);
  const L = Math.max(...rows.map((r) => r.length));
  const pad = lm.tokenizer.pad;
  const padded = rows.map((r) => [...r, ...new Array<number>(L - r.length).fill(pad)]);
  const logp = tf.tidy(() =>
    tokenLogprobs(
      lm.transformer,
      tf.tensor2d(
        padded.map((r) => r.slice(0, L - 1)),
        undefined,
        'int32',
      ),
      tf.tensor2d(
        padded.map((r) => r.slice(1)),
        undefined,
        'int32',
      ),
    ),
  ); // [R, L − 1]
  const data = (await logp.data()) as Float32Array;
  logp.dispose();
  const logprobs = requests.map((r, i) => r.suffix.map((_, j) => data[i * (L - 1) + r.exitAt - 1 + j]));
  return { logprobs, positions: rows.length * (L - 1), realTokens: sum(rows.map((r) => r.length)) };
}

function maxAbsDiff(a: number[][], b: number[][]): number {
  let worst = 0;
  a.forEach((row, i) => row.forEach((x, j) => (worst = Math.max(worst, Math.abs(x - b[i][j])))));
  return Number.isNaN(worst) ? Infinity : worst;
}

type Bar = ProgressBar;
type SamplingResult = Awaited<ReturnType<TransformerLM['sample']>>;

/** (1) Sampling throughput with and without the KV cache: same prompts, same seed, reps interleaved. */
async function benchSampling(lm: TransformerLM, records: readonly TaskRecord[], config: LmBenchConfig, bar: Bar) {
  const tok = lm.tokenizer;
  const prompts = records.slice(0, config.samplingPrompts).map((r) => promptTokens(tok, r.problem));
  const maxNewTokens = Math.min(config.maxNewTokens, lm.maxLength - Math.max(...prompts.map((p) => p.length)));
  const options = { temperature: 1, topP: 1, maxNewTokens, stopToken: tok.eos };
  const sampleRng = () => benchRng(config.seed, 'lm').fork('sampling');
  await lm.sample(prompts.slice(0, 2), { ...options, maxNewTokens: 4 }, sampleRng()); // warm-up (kernels, heap growth)
  const cachedMs: number[] = [];
  const plainMs: number[] = [];
  let cached: SamplingResult = await lm.sample(prompts, options, sampleRng());
  let plain = cached;
  for (let rep = 0; rep < config.samplingReps; rep++) {
    let ms: number;
    [cached, ms] = await timed(() => lm.sample(prompts, options, sampleRng()));
    cachedMs.push(ms);
    bar.tick(1, 'sample (KV cache)');
    [plain, ms] = await timed(() => lm.sampleNoCache(prompts, options, sampleRng()));
    plainMs.push(ms);
    bar.tick(1, 'sample (no cache)');
  }
  const generated = sum(cached.results.map((r) => r.tokens.length));
  const generatedPlain = sum(plain.results.map((r) => r.tokens.length));
  return {
    prompts: prompts.length,
    maxNewTokens,
    tokensGenerated: generated,
    identicalSamples: cached.results.every((r, i) => r.tokens.join(',') === plain.results[i].tokens.join(',')),
    kvCache: {
      wallMs: round(median(cachedMs)),
      tokensPerSecond: round(generated / (median(cachedMs) / 1000)),
      tokensForwarded: cached.cost.tokensForwarded,
      forwardPasses: cached.cost.forwardPasses,
    },
    noCache: {
      wallMs: round(median(plainMs)),
      tokensPerSecond: round(generatedPlain / (median(plainMs) / 1000)),
      tokensForwarded: plain.cost.tokensForwarded,
      forwardPasses: plain.cost.forwardPasses,
    },
    speedup: round(median(plainMs) / median(cachedMs), 2),
  };
}

interface ScoringItem {
  trace: Trace;
  /** prompt ++ thinking: the sequence whose exit points are scored. */
  sequence: number[];
  /** `</think>` answer `<eos>`: the immediate-term suffix. */
  suffix: number[];
}

/**
 * Traces sampled from the held-out split (one batched call with `rng`), keeping the first `traces` whose
 * thinking holds `exitPoints` exit points and whose immediate-term suffix fits after the whole thinking.
 * The lm and remote sections score these.
 */
export async function scoringItems(
  lm: TransformerLM,
  records: readonly TaskRecord[],
  opts: { maxNewTokens: number; exitPoints: number; traces: number; section: string },
  rng: Rng,
): Promise<ScoringItem[]> {
  const tok = lm.tokenizer;
  const pool = await sampleTraces(lm, [...records], opts.maxNewTokens, rng);
  const answerOf = new Map(records.map((r) => [r.id, r.answer]));
  const work = pool.traces
    .map((trace) => {
      const sequence = [...trace.prompt, ...trace.completion.slice(0, trace.thinkEnd)];
      const suffix = [tok.endThink, ...tok.encode(answerOf.get(trace.problemId)!), tok.eos];
      return { trace, sequence, suffix };
    })
    .filter(({ trace, sequence, suffix }) => trace.thinkEnd >= opts.exitPoints - 1 && sequence.length + suffix.length <= lm.maxLength)
    .slice(0, opts.traces);
  if (work.length === 0)
    throw new Error(`bench ${opts.section}: none of ${pool.traces.length} sampled traces has ${opts.exitPoints - 1}+ thinking tokens`);
  return work;
}

/** (2) One trace: the three scorers' results checked against each other (untimed), then timed reps. */
async function benchScoringTrace(
  lm: TransformerLM,
  { trace, sequence, suffix }: ScoringItem,
  index: number,
  config: LmBenchConfig,
  bar: Bar,
): Promise<Record<string, number | boolean>> {
  const requests = evenExitPoints(trace.prompt.length, trace.thinkEnd, config.exitPoints).map((exitAt) => ({ exitAt, suffix }));
  const T = sequence.length;
  const suffixTokens = sum(requests.map((r) => r.suffix.length));
  // untimed first run of each: results for the checks, and warm kernels for the timed runs
  const shared = await lm.scoreAfterPrefixes(sequence, requests);
  const naive = await lm.naiveScore(sequence, requests);
  const batched = await naiveBatchedScore(lm, sequence, requests);
  bar.tick(1, `trace ${index} checks`);
  if (shared.cost.tokensForwarded !== T + suffixTokens) {
    throw new Error(
      `bench lm: prefix-sharing scorer forwarded ${shared.cost.tokensForwarded} tokens, expected T + Σ|suffix| = ${T} + ${suffixTokens} = ${T + suffixTokens}`,
    );
  }
  const diffNaive = maxAbsDiff(shared.logprobs, naive.logprobs);
  const diffBatched = maxAbsDiff(shared.logprobs, batched.logprobs);
  if (!(diffNaive < 1e-3 && diffBatched < 1e-3))
    throw new Error(`bench lm: scorers disagree on trace ${trace.problemId} (max |Δ log p| ${diffNaive}, ${diffBatched})`);
  const ms = { shared: [] as number[], naive: [] as number[], batched: [] as number[] };
  for (let rep = 0; rep < config.scoringReps; rep++) {
    ms.shared.push((await timed(() => lm.scoreAfterPrefixes(sequence, requests)))[1]);
    ms.naive.push((await timed(() => lm.naiveScore(sequence, requests)))[1]);
    ms.batched.push((await timed(() => naiveBatchedScore(lm, sequence, requests)))[1]);
    bar.tick(1, `trace ${index}`);
  }
  return {
    T,
    suffixTokens,
    sharedTokensForwarded: shared.cost.tokensForwarded,
    tokensMatch: shared.cost.tokensForwarded === T + suffixTokens,
    naiveTokensForwarded: naive.cost.tokensForwarded,
    naiveBatchedPositions: batched.positions,
    sharedMs: round(median(ms.shared), 2),
    naiveMs: round(median(ms.naive), 2),
    naiveBatchedMs: round(median(ms.batched), 2),
    maxAbsLogprobDiff: Math.max(diffNaive, diffBatched),
  };
}

/** (2) Totals over the traces: tokens forwarded, wall time, speedups and the bar (≥ 3× vs naive). */
function scoringSummary(perTrace: Record<string, number | boolean>[], config: LmBenchConfig) {
  const total = (key: string) => sum(perTrace.map((r) => r[key] as number));
  return {
    traces: perTrace.length,
    exitPoints: config.exitPoints,
    suffix: '</think> + dataset answer + <eos> (immediate term, one distinct answer)',
    tokensForwarded: {
      sharedPrefix: total('sharedTokensForwarded'),
      expectedTPlusSuffixes: total('T') + total('suffixTokens'),
      naive: total('naiveTokensForwarded'),
      naiveBatchedPositions: total('naiveBatchedPositions'),
    },
    tokensMatchExactly: perTrace.every((r) => r.tokensMatch),
    wallMs: { sharedPrefix: round(total('sharedMs')), naive: round(total('naiveMs')), naiveBatched: round(total('naiveBatchedMs')) },
    speedup: round(total('naiveMs') / total('sharedMs'), 2),
    speedupVsNaiveBatched: round(total('naiveBatchedMs') / total('sharedMs'), 2),
    speedupBar: 3,
    meetsBar: total('naiveMs') / total('sharedMs') >= 3,
    maxAbsLogprobDiff: Math.max(...perTrace.map((r) => r.maxAbsLogprobDiff as number)),
    perTrace,
  };
}

function printLmBench(sampling: Awaited<ReturnType<typeof benchSampling>>, scoring: ReturnType<typeof scoringSummary>): void {
  process.stdout.write(
    `\n${textTable(
      {
        columns: ['sampling', 'wall ms', 'tokens/s', 'tokens forwarded', 'passes'],
        rows: [
          [
            'KV cache',
            sampling.kvCache.wallMs.toFixed(0),
            sampling.kvCache.tokensPerSecond.toFixed(0),
            sampling.kvCache.tokensForwarded,
            sampling.kvCache.forwardPasses,
          ],
          [
            'no cache',
            sampling.noCache.wallMs.toFixed(0),
            sampling.noCache.tokensPerSecond.toFixed(0),
            sampling.noCache.tokensForwarded,
            sampling.noCache.forwardPasses,
          ],
        ],
      },
      'numbers',
    )}\n` +
      `${sampling.prompts} prompts, ${sampling.tokensGenerated} tokens generated, identical samples: ${sampling.identicalSamples}; KV-cache speedup ${sampling.speedup}×\n\n` +
      `${textTable(
        {
          columns: ['scoring (' + scoring.traces + ' traces × ' + scoring.exitPoints + ' exit points)', 'wall ms', 'tokens forwarded'],
          rows: [
            ['prefix-sharing (batched)', scoring.wallMs.sharedPrefix.toFixed(1), scoring.tokensForwarded.sharedPrefix],
            ['naive (one pass per suffix)', scoring.wallMs.naive.toFixed(1), scoring.tokensForwarded.naive],
            ['naive batched (padded rows)', scoring.wallMs.naiveBatched.toFixed(1), scoring.tokensForwarded.naiveBatchedPositions],
          ],
        },
        'numbers',
      )}\n` +
      `prefix-sharing forwarded ${scoring.tokensForwarded.sharedPrefix} tokens = T + Σ|suffix| = ${scoring.tokensForwarded.expectedTPlusSuffixes} (exact: ${scoring.tokensMatchExactly}); ` +
      `speedup vs naive ${scoring.speedup}× (bar ≥ 3: ${scoring.meetsBar ? 'met' : 'MISSED'}), vs naive batched ${scoring.speedupVsNaiveBatched}×\n`,
  );
}

export async function runLmBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(LmBenchConfigSchema, rawConfig, 'lm bench config');
  const model = await loadBenchModel(config.checkpoint);
  const { lm } = model;
  try {
    const records = heldOutRecords(Math.max(config.samplingPrompts, config.scoringTraces * 4));
    const bar = new ProgressBar('bench lm', 2 * config.samplingReps + config.scoringTraces * (1 + config.scoringReps), 5000);
    const sampling = await benchSampling(lm, records, config, bar);
    const perTrace: Record<string, number | boolean>[] = [];
    const items = await scoringItems(
      lm,
      records,
      { maxNewTokens: config.maxNewTokens, exitPoints: config.exitPoints, traces: config.scoringTraces, section: 'lm' },
      benchRng(config.seed, 'lm').fork('traces'),
    );
    for (const [index, item] of items.entries()) perTrace.push(await benchScoringTrace(lm, item, index, config, bar));
    const scoring = scoringSummary(perTrace, config);
    printLmBench(sampling, scoring);
    return benchDocument(model, config, { sampling, scoring });
  } finally {
    lm.dispose();
  }
}
