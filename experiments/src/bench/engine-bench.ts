import { parseConfig, ProgressBar, Rng, textTable, seedSchema } from '@rred/core';
import { engineInfo, initEngine, setNativeKernelsEnabled, sgemmGflops, tf } from '@rred/engine';
import { createTransformer, parseModelConfig, tokenLogprobs, type ModelConfig } from '@rred/lm';
import { z } from 'zod';
import { benchTransposeB, TransposeBConfigSchema } from './matmul-bench';
import { profileStep, type StepProfile } from './step-profile';
import { randomBatch } from './random-batch';
import { lmTrainStep } from './train-step';
import { round, timeRuns, type Timing } from './timing';

const BENCH_BACKENDS = ['wasm+native', 'wasm', 'cpu'] as const;
type BenchBackend = (typeof BENCH_BACKENDS)[number];

const repsSchema = (def: Record<BenchBackend, number>, what: string) =>
  z
    .object({ 'wasm+native': z.number().int().min(0), wasm: z.number().int().min(0), cpu: z.number().int().min(0) })
    .strict()
    .default(def)
    .describe(`${what} per backend (cpu takes ~30 s per step, so fewer).`);

export const EngineBenchConfigSchema = z
  .object({
    batch: z.number().int().min(1).default(32).describe('Sequences per step B (with seqLen, the batch of the MFU measurement).'),
    seqLen: z.number().int().min(2).default(64).describe('Tokens per sequence T.'),
    vocabSize: z.number().int().min(2).default(64).describe('Vocabulary V of the benchmark model.'),
    nLayers: z
      .number()
      .int()
      .min(1)
      .default(4)
      .describe("Transformer blocks (4: ≈0.82 M parameters with the embedded model's other sizes)."),
    backends: z
      .array(z.enum(BENCH_BACKENDS))
      .min(1)
      .default([...BENCH_BACKENDS])
      .describe(`Backends to time, in this order: any of ${BENCH_BACKENDS.join(', ')}; wasm+native is skipped if unavailable.`),
    warmup: repsSchema({ 'wasm+native': 2, wasm: 1, cpu: 0 }, 'Untimed warm-up runs'),
    reps: repsSchema({ 'wasm+native': 7, wasm: 2, cpu: 1 }, 'Timed runs (median reported)'),
    sgemmN: z.number().int().min(16).default(1024).describe('Size n of the n×n×n OpenBLAS sgemm that defines peak FLOP/s.'),
    seed: seedSchema.default(0).describe('Seed for weights and tokens.'),
    transposeB: TransposeBConfigSchema.default({}).describe(
      'BatchMatMul a·bᵀ vs a·b at the attention shapes, wasm+native only (matmul-bench.ts): `transposeBSlowdown` (bar ≤ 1.3).',
    ),
    profileTop: z
      .number()
      .int()
      .min(0)
      .default(12)
      .describe('Rows kept of the per-kernel profile of one wasm+native train step (tf.profile; 0 = no profile).'),
  })
  .strict();

type EngineBenchConfig = z.infer<typeof EngineBenchConfigSchema>;

/**
 * Model FLOPs of one step of the lm Transformer (forward = 1/3 of a training step):
 *   dense:     6 · P · B·T, P = L·(3d² + d² + 2·d·F) + V·d — QKV, attention output, MLP in/out and the
 *              tied LM head. Biases, LayerNorm and the position table do no matmul work; the input
 *              embedding counts as a lookup (lm implements it as a one-hot matmul, which we do not credit).
 *   attention: 12 · L · B · T² · d — QKᵀ and A·V are 2·B·T²·d each per layer forward, ×3 for training;
 *              no discount for the causal mask.
 */
function trainStepFlops(cfg: ModelConfig, batch: number, seqLen: number): number {
  const { dModel: d, dFF: F, nLayers: L, vocabSize: V } = cfg;
  const denseParams = L * (4 * d * d + 2 * d * F) + V * d;
  return 6 * denseParams * batch * seqLen + 12 * L * batch * seqLen * seqLen * d;
}

interface BackendResult {
  trainStep: Timing;
  forward: Timing;
  tensorsLeakedPerStep: number;
  /** One profiled train step by kernel (wasm+native, profileTop > 0). */
  profile?: StepProfile;
}

/** Train and forward steps of the benchmark model on one backend (fresh weights and batch from the seed), and the tensors a step leaks. */
async function benchBackend(
  backend: BenchBackend,
  config: EngineBenchConfig,
  modelConfig: ModelConfig,
  tick: () => void,
): Promise<{ result: BackendResult; paramCount: number }> {
  const rng = new Rng(config.seed);
  const model = createTransformer(modelConfig, rng.fork('init'));
  const { inputs, targets } = randomBatch(rng.fork('data'), config.batch, config.seqLen, config.vocabSize);
  const { step: train, optimizer } = lmTrainStep(model, inputs, targets, `bench ${backend}`); // the project's update: grads, clip, AdamW
  const loss = () => tf.neg(tf.mean(tokenLogprobs(model, inputs, targets))) as tf.Scalar;
  const forward = () => {
    const l = tf.tidy(loss);
    l.dataSync();
    l.dispose();
  };
  forward(); // creates nothing persistent; makes the leak count below exact
  const before = tf.memory().numTensors;
  const trainStep = timeRuns(train, config.warmup[backend], config.reps[backend], tick);
  const trainRuns = config.warmup[backend] + config.reps[backend];
  // AdamW creates its moment variables on the first step only.
  const leaked = trainRuns > 1 ? (tf.memory().numTensors - before - 2 * model.variables().length) / trainRuns : 0;
  const fwd = timeRuns(forward, config.warmup[backend], config.reps[backend], tick);
  const profile = backend === 'wasm+native' && config.profileTop > 0 ? await profileStep(train, config.profileTop) : undefined;
  const result = { trainStep, forward: fwd, tensorsLeakedPerStep: round(Math.max(0, leaked), 2), ...(profile ? { profile } : {}) };
  const paramCount = model.paramCount;
  optimizer.dispose();
  model.dispose();
  tf.dispose([inputs, targets]);
  return { result, paramCount };
}

/** Medians per backend, speedup over plain wasm, achieved FLOP/s and MFU against the sgemm peak. */
function engineDocument(
  results: Partial<Record<BenchBackend, BackendResult>>,
  sgemm: number | null,
  modelConfig: ModelConfig,
  paramCount: number,
  config: EngineBenchConfig,
  info: ReturnType<typeof engineInfo>,
) {
  const ms = (key: 'trainStep' | 'forward') => Object.fromEntries(Object.entries(results).map(([b, r]) => [b, r ? r[key].medianMs : null]));
  const trainStepMs = ms('trainStep');
  const forwardMs = ms('forward');
  const flops = trainStepFlops(modelConfig, config.batch, config.seqLen);
  const nativeMs = trainStepMs['wasm+native'];
  const speedupVsWasm = nativeMs && trainStepMs.wasm ? round(trainStepMs.wasm / nativeMs, 2) : null;
  const achievedGflops = nativeMs ? flops / (nativeMs / 1000) / 1e9 : null;
  const mfu = achievedGflops && sgemm ? round(achievedGflops / sgemm, 3) : null;
  return {
    sgemmGflops: sgemm === null ? null : round(sgemm, 1),
    trainStepMs,
    forwardMs,
    speedupVsWasm,
    mfu,
    achievedTrainGflops: achievedGflops === null ? null : round(achievedGflops, 1),
    trainStepModelGflop: round(flops / 1e9, 3),
    flopFormula: '6·P·B·T + 12·L·B·T²·d with P = L·(4d² + 2dF) + V·d (forward = 1/3)',
    model: { ...modelConfig, params: paramCount },
    batch: config.batch,
    seqLen: config.seqLen,
    details: results,
    engine: {
      backend: info.backend,
      openblasThreads: info.openblasThreads,
      openblasConfig: info.openblasConfig,
      nativeKernels: info.nativeKernels.length,
    },
  };
}

function printEngineBench(
  out: ReturnType<typeof engineDocument>,
  results: Partial<Record<BenchBackend, BackendResult>>,
  config: EngineBenchConfig,
  info: ReturnType<typeof engineInfo>,
): void {
  const wasmMs = out.trainStepMs.wasm;
  const rows = BENCH_BACKENDS.filter((b) => results[b]).map((b) => [
    b,
    results[b]!.trainStep.medianMs.toFixed(1),
    results[b]!.forward.medianMs.toFixed(1),
    wasmMs && results[b] ? (wasmMs / results[b]!.trainStep.medianMs).toFixed(2) : '-',
  ]);
  process.stdout.write(`\n${textTable({ columns: ['backend', 'train step ms', 'forward ms', 'speedup vs wasm'], rows }, 'numbers')}\n`);
  process.stdout.write(
    `sgemm ${out.sgemmGflops ?? '-'} GFLOP/s (n=${config.sgemmN}, OpenBLAS ${info.openblasThreads ?? '-'} thread(s)); ` +
      `model ${out.model.params} params, ${out.trainStepModelGflop} GFLOP/step; achieved ${out.achievedTrainGflops ?? '-'} GFLOP/s; ` +
      `speedupVsWasm ${out.speedupVsWasm ?? '-'}; mfu ${out.mfu ?? '-'}\n`,
  );
}

export async function runEngineBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(EngineBenchConfigSchema, rawConfig, 'engine bench config');
  await initEngine();
  const info = engineInfo();
  const nativeAvailable = info.backend === 'wasm+native';
  const backends = config.backends.filter((b) => b !== 'wasm+native' || nativeAvailable);
  const sgemm = nativeAvailable ? sgemmGflops(config.sgemmN, 10) : null;
  // The project's model with lm's defaults (width, heads, MLP, activation); only V, T and L set here.
  const modelConfig: ModelConfig = parseModelConfig(
    { vocabSize: config.vocabSize, contextLength: config.seqLen, nLayers: config.nLayers },
    'engine bench model',
  );
  const totalRuns =
    backends.reduce((n, b) => n + 2 * (config.warmup[b] + config.reps[b]), 0) +
    (nativeAvailable ? config.transposeB.shapes.length * config.transposeB.reps : 0);
  const bar = new ProgressBar('bench engine', totalRuns, 5000);
  const results: Partial<Record<BenchBackend, BackendResult>> = {};
  let paramCount = 0;
  let transposeB: ReturnType<typeof benchTransposeB> | null = null;
  try {
    for (const backend of backends) {
      await selectBackend(backend);
      const measured = await benchBackend(backend, config, modelConfig, () => bar.tick(1, backend));
      results[backend] = measured.result;
      paramCount = measured.paramCount;
    }
    if (nativeAvailable) {
      await selectBackend('wasm+native');
      transposeB = benchTransposeB(config.transposeB, () => bar.tick(1, 'transposeB'));
    }
  } finally {
    await selectBackend(nativeAvailable ? 'wasm+native' : info.backend === 'cpu' ? 'cpu' : 'wasm'); // leave the engine as initialised for later sections
  }
  const out = {
    ...engineDocument(results, sgemm, modelConfig, paramCount, config, info),
    transposeBSlowdown: transposeB?.transposeBSlowdown ?? null,
    transposeB,
  };
  printEngineBench(out, results, config, info);
  if (transposeB) {
    const rows = transposeB.shapes.map((r) => [
      r.name,
      `${r.batch}×${r.m}×${r.k}×${r.n}`,
      r.plainMs.toFixed(3),
      r.transposeBMs.toFixed(3),
      r.slowdown.toFixed(2),
    ]);
    process.stdout.write(`${textTable({ columns: ['product', 'batch×M×K×N', 'a·b ms', 'a·bᵀ ms', 'slowdown'], rows }, 'numbers')}\n`);
  }
  const profile = results['wasm+native']?.profile;
  if (profile) {
    const rows = profile.byKernel.map((k) => [k.kernel, k.ms.toFixed(1), String(k.calls), k.share.toFixed(3)]);
    process.stdout.write(
      `one train step profiled: ${profile.profiledStepMs} ms, ${profile.kernelMs} ms in kernels\n${textTable({ columns: ['kernel', 'ms', 'calls', 'share'], rows }, 'numbers')}\n`,
    );
  }
  return { ...out, config, measuredAt: new Date().toISOString() };
}

async function selectBackend(backend: BenchBackend): Promise<void> {
  const name = backend === 'cpu' ? 'cpu' : 'wasm';
  if (tf.getBackend() !== name && !(await tf.setBackend(name))) throw new Error(`bench: backend ${name} did not initialise`);
  if (name === 'wasm') setNativeKernelsEnabled(backend === 'wasm+native');
}
