import { median, sum, parseConfig, powerLawExponent, ProgressBar, Rng, seedSchema, textTable, UserError } from '@rred/core';
import { tf } from '@rred/engine';
import { checkModelShape, createTransformer, modelShapeFields, TransformerLM, Tokenizer, type SampleResult, type ScoreJob } from '@rred/lm';
import { z } from 'zod';
import { randomBatch } from './random-batch';
import { lmTrainStep } from './train-step';
import { pointFlops, pointTokens, predictedExponent, type PointFlops, type PointWork } from './scaling-cost-model';
import { round } from './timing';

export const ScalingBenchConfigSchema = z
  .object({
    model: z
      .object({
        vocabSize: modelShapeFields.vocabSize.default(64),
        contextLength: modelShapeFields.contextLength.default(2064),
        dModel: modelShapeFields.dModel.default(64),
        nLayers: modelShapeFields.nLayers.default(2),
        nHeads: modelShapeFields.nHeads.default(2),
        dFF: modelShapeFields.dFF.default(128),
      })
      .strict()
      .superRefine(checkModelShape)
      .default({})
      .describe(
        'The tiny random model (lm transformer; fields and limits of @rred/lm modelShapeFields): V 64, context 2064 (an MC continuation from the last exit point of a 1024-token trace ' +
          'runs another 1020 tokens), d 64, 2 layers, 2 heads, F 128.',
      ),
    lengths: z
      .array(z.number().int().min(8))
      .min(2)
      .default([64, 128, 256, 512, 1024])
      .describe('T: trace lengths (prompt + thinking tokens) at fixed K.'),
    segments: z.array(z.number().int().min(1)).min(2).default([4, 8, 16, 32]).describe('K: segments (K + 1 exit points) at fixed T.'),
    fixedK: z.number().int().min(1).default(8).describe('K of the T sweep.'),
    fixedT: z.number().int().min(8).default(256).describe('T of the K sweep.'),
    suffixTokens: z
      .number()
      .int()
      .min(1)
      .default(16)
      .describe('|suffix| scored at every exit point (a value-term-sized `u* </think> y* <eos>`).'),
    scoredTraces: z
      .number()
      .int()
      .min(1)
      .default(32)
      .describe(
        "RREDCoT measures: one scoreBatch call over this many copies of the point's trace (each its own job, from its own copy of " +
          'the cache), the batch a GRPO step scores; one trace alone is a few ms, mostly fixed per-call cost (8 copies still left ≈ 6 ms of it at K = 4).',
      ),
    mcTraces: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe(
        "MC measure: one sample call over this many copies of the point's trace (every copy's n continuations per exit point; the " +
          'identical prefixes are prefilled once). A decode step carries ≈ 0.6 ms of fixed op-dispatch cost whatever its rows, so one ' +
          "trace's 20–132 rows measured that cost more than MC's work; a GRPO batch has 32 traces, but 32 copies at T = 1024 would hold " +
          '≈ 2 GB of K/V.',
      ),
    mcSamples: z
      .number()
      .int()
      .min(1)
      .default(4)
      .describe('MC: n continuations per exit point, all from one shared prefill (MC at its best).'),
    mcHorizon: z
      .union([z.literal('trace'), z.number().int().min(1)])
      .default('trace')
      .describe(
        "MC: tokens per continuation. 'trace': the experiments' completion horizon, M = the trace's own thinking length T − 4, " +
          'so a continuation from s_k may end where the trace did; as `truncatedMc` does, one sample call runs every continuation to the ' +
          'largest limit (the stop token is never drawn), so MC decodes n·(K+1)·(T − 4) tokens. A number M: every continuation runs M tokens.',
      ),
    trainRows: z.number().int().min(1).default(4).describe('Training step: rows of T tokens (one group of G = 4).'),
    reps: z
      .number()
      .int()
      .min(1)
      .default(5)
      .describe(
        'Timed repetitions per point (median), interleaved over the measures and over the points of a sweep (each rep visits every point). ' +
          "With 3, cached scoring's K exponent read 0.77–0.91 in four runs of the same code (a single call varies by ±30 % on the shared machine).",
      ),
    innerCalls: z
      .number()
      .int()
      .min(1)
      .default(5)
      .describe(
        'RREDCoT and training measures: timed calls per rep (MC: one), each recorded; the median is over reps × innerCalls. ' +
          'A cached call takes 20–200 ms and medians of 3 varied up to 2× between runs on this machine.',
      ),
    seed: seedSchema.default(0).describe('Seed of the weights, the traces and the draws.'),
  })
  .strict();
type ScalingBenchConfig = z.infer<typeof ScalingBenchConfigSchema>;

const STOP = 0; // the random model's stop token: made undrawable (below), so every trace runs its full length
const PROMPT = 4;

/**
 * A random transformer whose stop token is never drawn: with the final LayerNorm's β = 1 and the stop
 * token's (tied) embedding row −1, its logit is h·e = −Σ LN(x)ᵢγᵢ·1 − C = −C (LN output sums to 0 when
 * γ = 1), i.e. e^−64 against O(1) logits. The stop token never appears in an input.
 */
function scalingModel(config: ScalingBenchConfig, rng: Rng): TransformerLM {
  const transformer = createTransformer(config.model, rng);
  const C = config.model.dModel;
  transformer.params.get('lnFinal.beta')!.assign(tf.ones([C]));
  const emb = transformer.params.get('tokenEmbedding')!;
  const rows = emb.arraySync() as number[][];
  rows[STOP] = rows[STOP].map(() => -1);
  emb.assign(tf.tensor2d(rows));
  const specials = Tokenizer.fromAlphabet('a').vocabSize - 1; // a tokenizer of the model's size (its texts are never read)
  if (config.model.vocabSize <= specials)
    throw new UserError(
      `bench scaling: model.vocabSize ${config.model.vocabSize}: the bench's tokenizer needs more than its ${specials} special tokens`,
    );
  const tokenizer = Tokenizer.fromAlphabet(
    Array.from({ length: config.model.vocabSize - specials }, (_, i) => String.fromCharCode(0x4e00 + i)).join(''),
  );
  if (tokenizer.vocabSize !== config.model.vocabSize)
    throw new Error(`bench scaling: tokenizer has ${tokenizer.vocabSize} tokens, model ${config.model.vocabSize}`);
  return new TransformerLM(transformer, tokenizer);
}

export interface ScalingPoint {
  T: number;
  K: number;
  /** RREDCoT scoring of K + 1 exit points × one suffix: from the sampler's cache (Σ |suffix| tokens) and from scratch (T + Σ |suffix|). */
  rredcotCachedMs: number;
  rredcotCachedTokens: number;
  rredcotScratchMs: number;
  rredcotScratchTokens: number;
  /** Truncated MC at its best: n continuations of M tokens from each of the K + 1 exit points, one sample call. */
  mcMs: number;
  mcTokens: number;
  /** One training step (forward + backward + clip + AdamW, lmTrainStep) on trainRows × T tokens. */
  trainMs: number;
  trainTokens: number;
  /** What the cost model (scaling-cost-model.ts) predicts each measure costs at this point, in FLOPs. */
  flops: PointFlops;
}

/** Decoded tokens per MC continuation at trace length T (see `mcHorizon`). */
const mcHorizonAt = (config: ScalingBenchConfig, T: number) => (config.mcHorizon === 'trace' ? T - PROMPT : config.mcHorizon);

/** Samples one trace of exactly T tokens (prompt PROMPT + thinking) with its cache, and the scoring job of K + 1 evenly spaced exit points. */
async function traceAndJob(
  lm: TransformerLM,
  T: number,
  K: number,
  config: ScalingBenchConfig,
  rng: Rng,
): Promise<{ row: SampleResult; job: ScoreJob }> {
  const V = config.model.vocabSize;
  const prompt = Array.from({ length: PROMPT }, () => rng.int(1, V - 1));
  const { results } = await lm.sample(
    [prompt],
    { temperature: 1, topP: 1, maxNewTokens: T - PROMPT + 1, stopToken: STOP, keepCache: true },
    rng.fork('draw'),
  );
  const row = results[0];
  const sequence = [...prompt, ...row.tokens.slice(0, -1)]; // T tokens, all in the cache
  if (sequence.length !== T || row.cache?.length !== T)
    throw new Error(`bench scaling: sampled ${sequence.length} tokens, expected ${T} (the stop token was drawn)`);
  const exitAt = Array.from({ length: K + 1 }, (_, k) => PROMPT + Math.round((k * (T - PROMPT)) / K));
  const requests = exitAt.map((at) => ({ exitAt: at, suffix: Array.from({ length: config.suffixTokens }, () => rng.int(1, V - 1)) }));
  return { row, job: { sequence, requests, cache: row.cache } };
}

/** What a point's calls do, for the cost model (scaling-cost-model.ts). */
function pointWork(job: ScoreJob, T: number, config: ScalingBenchConfig): PointWork {
  return {
    exitAt: job.requests.map((r) => r.exitAt),
    T,
    suffix: config.suffixTokens,
    mcSamples: config.mcSamples,
    // a row's budget is the horizon, or less when the context fills first (the sampler's rule); it forwards budget − 1 tokens after its prefill
    mcDecode: (k) => Math.min(mcHorizonAt(config, T), config.model.contextLength - job.requests[k].exitAt) - 1,
    trainRows: config.trainRows,
    scoredTraces: config.scoredTraces,
    mcTraces: config.mcTraces,
  };
}

/** The cost model's token accounting must be what the calls forwarded, exactly. */
function checkTokens(work: PointWork, measured: Record<'rredcotCached' | 'rredcotScratch' | 'mc', number>, T: number, K: number): void {
  const expected = pointTokens(work);
  for (const [m, n] of Object.entries(measured) as [keyof typeof measured, number][])
    if (n !== expected[m])
      throw new Error(`bench scaling: ${m} forwarded ${n} tokens at T = ${T}, K = ${K}; the cost model counts ${expected[m]}`);
}

/** Wall ms of each of `n` consecutive calls of f. */
async function timeCalls(n: number, f: () => Promise<void> | void): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return out;
}

/** One point of a sweep, set up once and measured one rep at a time (the reps of a sweep's points interleave). */
interface PointRun {
  /** One rep of every measure (rep −1: warm-up, not recorded). */
  measureRep(rep: number): Promise<void>;
  /** Releases what the point holds, checks its token counts against the cost model, and gives its medians. */
  finish(): ScalingPoint;
}

async function preparePoint(lm: TransformerLM, T: number, K: number, config: ScalingBenchConfig, rng: Rng): Promise<PointRun> {
  const { row, job } = await traceAndJob(lm, T, K, config, rng.fork(`trace-${T}-${K}`));
  const V = config.model.vocabSize;
  const { inputs, targets } = randomBatch(rng.fork('train'), config.trainRows, T, V);
  const { step: trainOnce, optimizer } = lmTrainStep(lm.transformer, inputs, targets, 'bench scaling'); // grads, clip, AdamW
  const copies = (j: ScoreJob) => Array.from({ length: config.scoredTraces }, () => j);
  const mcPrompts = Array.from({ length: config.mcTraces }, () =>
    job.requests.flatMap((r) => Array.from({ length: config.mcSamples }, () => job.sequence.slice(0, r.exitAt))),
  ).flat();
  const ms: Record<'cached' | 'scratch' | 'mc' | 'train', number[]> = { cached: [], scratch: [], mc: [], train: [] };
  const tokens = { cached: 0, scratch: 0, mc: 0 };
  const calls = (f: () => Promise<void> | void) => timeCalls(config.innerCalls, f);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    row.cache?.release();
    optimizer.dispose();
    tf.dispose([inputs, targets]);
  };
  return {
    async measureRep(rep: number) {
      try {
        // the measures alternate so each rep shares the machine's state
        const cached = await calls(async () => {
          const rs = await lm.scoreBatch(copies(job));
          tokens.cached = sum(rs.map((r) => r.cost.tokensForwarded));
        });
        const scratch = await calls(async () => {
          const rs = await lm.scoreBatch(copies({ sequence: job.sequence, requests: job.requests }));
          tokens.scratch = sum(rs.map((r) => r.cost.tokensForwarded));
        });
        const [mc] = await timeCalls(1, async () => {
          const out = await lm.sample(
            mcPrompts,
            { temperature: 1, topP: 1, maxNewTokens: mcHorizonAt(config, T), stopToken: STOP },
            rng.fork(`mc-${rep}`),
          );
          tokens.mc = out.cost.tokensForwarded;
        });
        const train = await calls(trainOnce);
        if (rep >= 0) {
          ms.cached.push(...cached);
          ms.scratch.push(...scratch);
          ms.mc.push(mc);
          ms.train.push(...train);
        }
      } catch (err) {
        release();
        throw err;
      }
    },
    finish() {
      release();
      const work = pointWork(job, T, config);
      checkTokens(work, { rredcotCached: tokens.cached, rredcotScratch: tokens.scratch, mc: tokens.mc }, T, K);
      return {
        T,
        K,
        rredcotCachedMs: round(median(ms.cached), 2),
        rredcotCachedTokens: tokens.cached,
        rredcotScratchMs: round(median(ms.scratch), 2),
        rredcotScratchTokens: tokens.scratch,
        mcMs: round(median(ms.mc), 2),
        mcTokens: tokens.mc,
        trainMs: round(median(ms.train), 2),
        trainTokens: config.trainRows * T,
        flops: pointFlops(config.model, work),
      };
    },
  };
}

/**
 * A sweep's points, measured rep by rep across all of them (rep −1 warms up; each rep visits the
 * points in an order rotated by one), so a slow phase of the shared machine lands on every point
 * rather than on the ones measured during it: the exponents compare points of one sweep.
 */
async function measureSweep(
  lm: TransformerLM,
  points: { T: number; K: number; label: string }[],
  config: ScalingBenchConfig,
  rng: Rng,
  tick: (label: string) => void,
): Promise<ScalingPoint[]> {
  const runs: PointRun[] = [];
  try {
    for (const p of points) runs.push(await preparePoint(lm, p.T, p.K, config, rng.fork(p.label)));
    for (let rep = -1; rep < config.reps; rep++) {
      const shift = (rep + 1) % points.length;
      for (let i = 0; i < points.length; i++) {
        const at = (i + shift) % points.length;
        await runs[at].measureRep(rep);
        tick(points[at].label);
      }
    }
    return runs.map((r) => r.finish());
  } catch (err) {
    for (const r of runs) {
      try {
        r.finish();
      } catch {
        // releasing is what matters here; the first error is rethrown
      }
    }
    throw err;
  }
}

type Measure = keyof PointFlops;

/** The cost model "predicts linear growth" for a fit when its own exponent is within this of 1. */
const PREDICTS_LINEAR = 0.1;

/** Each fitted exponent: which sweep's points, against which x, of which measure. */
function fits(config: ScalingBenchConfig) {
  const KSuffix = (p: ScalingPoint) => (p.K + 1) * config.suffixTokens;
  const T = (p: ScalingPoint) => p.T;
  const NKT = (p: ScalingPoint) => config.mcSamples * (p.K + 1) * p.T;
  const K1 = (p: ScalingPoint) => p.K + 1;
  const fit = (sweep: 'T' | 'K' | 'both', x: (p: ScalingPoint) => number, measure: Measure) => ({ sweep, x, measure });
  return {
    rredcotCachedVsKSuffix: fit('K', KSuffix, 'rredcotCached'),
    rredcotCachedVsT: fit('T', T, 'rredcotCached'),
    rredcotScratchVsT: fit('T', T, 'rredcotScratch'),
    rredcotScratchVsKSuffix: fit('K', KSuffix, 'rredcotScratch'),
    mcVsNKT: fit('both', NKT, 'mc'),
    mcVsT: fit('T', T, 'mc'),
    mcVsK: fit('K', K1, 'mc'),
    trainVsT: fit('T', T, 'train'),
  };
}

/**
 * Fitted exponents b of wall ≈ a·x^b (least squares on log-log) for each measure against its natural
 * variable; the exponents the cost model predicts for the same fits; and the token-count exponents.
 */
function exponents(vsT: ScalingPoint[], vsK: ScalingPoint[], config: ScalingBenchConfig) {
  const pointsOf = (sweep: 'T' | 'K' | 'both') => (sweep === 'T' ? vsT : sweep === 'K' ? vsK : [...vsT, ...vsK]);
  const wall: Record<string, number> = {};
  const predicted: Record<string, number> = {};
  for (const [key, f] of Object.entries(fits(config))) {
    const points = pointsOf(f.sweep);
    wall[key] = round(
      powerLawExponent(
        points.map(f.x),
        points.map((p) => p[`${f.measure}Ms`]),
      ),
      3,
    );
    predicted[key] = round(
      predictedExponent(points, f.x, (p) => p.flops[f.measure]),
      3,
    );
  }
  const tokens = {
    rredcotCachedTokensVsKSuffix: round(
      powerLawExponent(
        vsK.map((p) => (p.K + 1) * config.suffixTokens),
        vsK.map((p) => p.rredcotCachedTokens),
      ),
      3,
    ),
    mcTokensVsNKT: round(
      powerLawExponent(
        [...vsT, ...vsK].map((p) => config.mcSamples * (p.K + 1) * p.T),
        [...vsT, ...vsK].map((p) => p.mcTokens),
      ),
      3,
    ),
  };
  return { wall, predicted, tokens };
}

/**
 * How cost grows: RREDCoT scoring (from the sampler's cache and from scratch), truncated MC
 * at its best and one training step, against T at fixed K and against K at fixed T, on a tiny random
 * model with a 1200-token context; tokens forwarded and wall time per point, and the fitted exponents.
 */
export async function runScalingBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(ScalingBenchConfigSchema, rawConfig, 'scaling bench config');
  const longest = Math.max(...config.lengths, config.fixedT);
  const mcLongest = longest + mcHorizonAt(config, longest); // a continuation from the last exit point (at T)
  if (longest + config.suffixTokens > config.model.contextLength || mcLongest > config.model.contextLength) {
    throw new UserError(
      `bench scaling: model.contextLength ${config.model.contextLength} is too short: T = ${longest} needs ${Math.max(longest + config.suffixTokens, mcLongest)} ` +
        `(T + |suffix| ${config.suffixTokens}, T + MC horizon ${mcHorizonAt(config, longest)})`,
    );
  }
  const rng = new Rng(config.seed);
  const lm = scalingModel(config, rng.fork('init'));
  const bar = new ProgressBar('bench scaling', (config.lengths.length + config.segments.length) * (config.reps + 1), 5000);
  const vsT: ScalingPoint[] = [];
  const vsK: ScalingPoint[] = [];
  try {
    const tick = (label: string) => bar.tick(1, label);
    vsT.push(
      ...(await measureSweep(
        lm,
        config.lengths.map((T) => ({ T, K: config.fixedK, label: `T${T}` })),
        config,
        rng,
        tick,
      )),
    );
    vsK.push(
      ...(await measureSweep(
        lm,
        config.segments.map((K) => ({ T: config.fixedT, K, label: `K${K}` })),
        config,
        rng,
        tick,
      )),
    );
  } finally {
    lm.dispose();
  }
  const fitted = exponents(vsT, vsK, config);
  const rows = [...vsT.map((p) => ['T', p] as const), ...vsK.map((p) => ['K', p] as const)].map(([sweep, p]) => [
    sweep,
    String(p.T),
    String(p.K),
    `${p.rredcotCachedMs.toFixed(1)} (${p.rredcotCachedTokens})`,
    `${p.rredcotScratchMs.toFixed(1)} (${p.rredcotScratchTokens})`,
    `${p.mcMs.toFixed(1)} (${p.mcTokens})`,
    `${p.trainMs.toFixed(1)} (${p.trainTokens})`,
  ]);
  process.stdout.write(
    `\n${textTable({ columns: ['sweep', 'T', 'K', 'rredcot cached ms (tokens)', 'rredcot scratch ms (tokens)', 'MC ms (tokens)', 'train step ms (tokens)'], rows }, 'numbers')}\n` +
      `fitted exponents: ${JSON.stringify(fitted.wall)}\npredicted by the cost model: ${JSON.stringify(fitted.predicted)}\n`,
  );
  const keys = Object.keys(fitted.wall);
  const linear = keys.filter((k) => Math.abs(fitted.predicted[k] - 1) <= PREDICTS_LINEAR);
  return {
    exponents: { ...fitted.wall, ...fitted.tokens },
    predictedExponents: fitted.predicted,
    // within 0.2 of 1 where the cost model predicts linear growth (its own exponent within 0.1 of 1)
    linearWithin02: Object.fromEntries(linear.map((k) => [k, Math.abs(fitted.wall[k] - 1) <= 0.2])),
    withinPrediction02: Object.fromEntries(keys.map((k) => [k, Math.abs(fitted.wall[k] - fitted.predicted[k]) <= 0.2])),
    exponentDefinition:
      'b of wall ≈ a·x^b, least squares on log-log over the points of one sweep; x: (K+1)·|suffix| (KSuffix), T, or n·(K+1)·T (NKT, both sweeps); ' +
      `predictedExponents: the same fit of the cost model's FLOPs (scaling-cost-model.ts); "predicts linear" = predicted within ${PREDICTS_LINEAR} of 1`,
    costModel: {
      token: 'f(t) = L·(2·(4C² + 2CF) + 4·t·C) + 2CV FLOPs for one forward token attending to t keys; a training token 3·f',
      rredcotCached: '(K+1)·|suffix| tokens forwarded, each attending to its exit prefix',
      rredcotScratch: 'T + (K+1)·|suffix| tokens forwarded',
      mc: `the K+1 distinct prefixes once (≈ (K+1)·T/2 tokens) + mcTraces·n·(K+1)·M decode tokens, one sample call; M = ${config.mcHorizon === 'trace' ? 'T − 4 (the trace horizon)' : config.mcHorizon}`,
      train: 'trainRows·T tokens forward + backward',
    },
    vsT,
    vsK,
  };
}
