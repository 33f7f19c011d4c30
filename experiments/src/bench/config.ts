/**
 * The bench's config: which sections run, whether it is a smoke run, and each section's own config
 * (schemas beside the sections). Defaults: experiments/configs/bench.json. One store run records one
 * bench invocation; results/bench/<section>.json are rendered from it.
 */
import { z } from 'zod';
import { EngineBenchConfigSchema } from './engine-bench';
import { ScalingBenchConfigSchema } from './scaling-bench';
import { EstimatorsBenchConfigSchema } from './estimators-bench';
import { LlamaBenchConfigSchema } from './llama-bench';
import { LmBenchConfigSchema } from './lm-bench';
import { RemoteBenchConfigSchema } from './remote-bench';
import { StoreBenchConfigSchema } from './store-bench';
import { TrainingBenchConfigSchema } from './training-bench';

export const BENCH_SECTIONS = ['engine', 'lm', 'estimators', 'training', 'remote', 'llama', 'scaling', 'store'] as const;
export type BenchSection = (typeof BENCH_SECTIONS)[number];

const sectionList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.array(z.enum(BENCH_SECTIONS)).min(1),
);

export const benchConfigSchema = z
  .object({
    sections: sectionList
      .default([...BENCH_SECTIONS])
      .describe(`Sections to run, in this order (\`--only a,b\`): any of ${BENCH_SECTIONS.join(', ')}.`),
    quick: z
      .boolean()
      .default(false)
      .describe(
        'Smoke run (`--quick`: the QUICK_OVERRIDES below): fewer repetitions, no cpu backend. Its numbers are not the acceptance numbers, so results/bench/ is never rendered from it.',
      ),
    engine: EngineBenchConfigSchema.default({}).describe(
      'Engine section: train / forward step per backend, sgemm peak, MFU (engine-bench.ts).',
    ),
    lm: LmBenchConfigSchema.default({}).describe('lm section: KV-cache sampling, prefix-sharing scorer (lm-bench.ts).'),
    estimators: EstimatorsBenchConfigSchema.default({}).describe(
      'Estimators section: per-trace cost of rredcot / mc / loo / gradient (estimators-bench.ts).',
    ),
    training: TrainingBenchConfigSchema.default({}).describe('Training section: GRPO vs RREDCoT-GRPO step (training-bench.ts).'),
    remote: RemoteBenchConfigSchema.default({}).describe(
      'Remote section: scoring cost through rred serve (sglang adapter, tokens the server reports) vs in-process T + Σ suffix (remote-bench.ts).',
    ),
    llama: LlamaBenchConfigSchema.default({}).describe(
      "llama section: llama.cpp's scoring and sampling tokens/s on the exported checkpoint vs the in-process engine's (llama-bench.ts).",
    ),
    scaling: ScalingBenchConfigSchema.default({}).describe(
      'Scaling section: RREDCoT scoring, MC at its best and a training step vs T and K on a tiny random model (scaling-bench.ts).',
    ),
    store: StoreBenchConfigSchema.default({}).describe(
      'Store section: time to claim and record a sweep point on a SQLite file and on PostgreSQL (store-bench.ts).',
    ),
  })
  .strict();

export type BenchConfig = z.infer<typeof benchConfigSchema>;

/** What `--quick` sets (dotted config paths), on top of the defaults file. */
export const QUICK_OVERRIDES: Record<string, unknown> = {
  quick: true,
  'engine.backends': ['wasm+native', 'wasm'],
  'engine.warmup': { 'wasm+native': 1, wasm: 0, cpu: 0 },
  'engine.reps': { 'wasm+native': 3, wasm: 1, cpu: 1 },
  'engine.transposeB.reps': 3,
  'lm.samplingPrompts': 4,
  'lm.scoringTraces': 2,
  'lm.scoringReps': 1,
  'lm.maxNewTokens': 100,
  'estimators.traces': 2,
  'estimators.mc.samplesPerExitPoint': 4,
  'training.reps': 1,
  'remote.traces': 2,
  'llama.traces': 2,
  'llama.samplingPrompts': 4,
  'training.rssPairs': 1,
  'scaling.lengths': [64, 128, 256],
  'scaling.segments': [4, 8],
  'scaling.fixedT': 128,
  'scaling.reps': 1,
  'scaling.innerCalls': 1,
  'store.points': 20,
};
