import { spawnSync } from 'child_process';
import * as path from 'path';
import { mean, median, medianCi, parseConfig, ProgressBar, repoRoot, textTable, seedSchema } from '@rred/core';
import { rredcotPresets } from '@rred/estimators';
import { EMBEDDED_CHECKPOINT, type Trace } from '@rred/lm';
import { segmentationConfig } from '@rred/segmentation';
import { buildDatasets, DEFAULT_DATASET_SEED, referencesById, remainingAlignment, type TaskRecord } from '@rred/tasks';
import { captureWeights, GrpoTrainer, parseGrpoConfig, restoreWeights, type RedistributionHook } from '@rred/training';
import { estimatorRedistribution, taskGrpoSetup } from '@rred/recipes';
import { z } from 'zod';
import { loadBenchModel } from './bench-data';
import { round } from './timing';

const TERMS = ['immediate', 'value', 'both'] as const;
type Terms = (typeof TERMS)[number];
/** The estimator's `terms` of each variant name (the variant 'both' is I + V). */
const TERMS_CONFIG = { immediate: 'immediate', value: 'value', both: 'immediatePlusValue' } as const satisfies Record<Terms, string>;
/**
 * GRPO, RREDCoT-GRPO with each set of terms, and (suffix `AllTraces`) the same with every trace of the
 * batch estimated — the hook normally skips traces with advantage 0 (their σ cannot change the loss), so
 * the plain variants depend on how many groups have mixed rewards; the AllTraces ones are the worst case.
 */
const VARIANTS = ['grpo', ...TERMS, ...TERMS.map((t) => `${t}AllTraces` as const)] as const;
type Variant = (typeof VARIANTS)[number];

export const TrainingBenchConfigSchema = z
  .object({
    checkpoint: z.string().min(1).default(EMBEDDED_CHECKPOINT).describe(`Policy checkpoint, relative to the repo root.`),
    seed: seedSchema.default(1).describe('GRPO seed (prompt order and sampling); the same seed gives every variant the same batch.'),
    promptsPerStep: z.number().int().min(1).default(8).describe('Prompts per step.'),
    groupSize: z.number().int().min(2).default(4).describe('G completions per prompt (paper App. 10: 4).'),
    maxSegments: z.number().int().min(1).default(10).describe('K of the hybrid segmentation (Sec. 3.1).'),
    maxSteps: z
      .number()
      .int()
      .min(3)
      .max(8)
      .default(4)
      .describe(
        'Train-split problems with at most this many steps are used, so that every reference suffix fits after a trace in the 160-token ' +
          'context (5–6-step problems often do not). 3..8.',
      ),
    references: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('Dataset references per problem (canonical order + count − 1 other valid orders; Eq. 9).'),
    reps: z
      .number()
      .int()
      .min(1)
      .default(31)
      .describe(
        'Timed steps per variant, interleaved, the order rotated by one variant each rep (so no variant always follows the same one). The headline is the ' +
          "median over reps of each variant's step / GRPO's step of the same rep; fastest and median steps are reported beside it. " +
          'One step varies by ±10–20 % on a shared 2-core machine, independently of its neighbours, so the median of 15 ratios moved by ±0.04 ' +
          'between runs; 31 halves its variance.',
      ),
    samplerCache: z
      .boolean()
      .default(true)
      .describe(
        "RREDCoT scores from the sampler's caches (the cache handoff: Σ |suffix| tokens per trace instead of T + Σ |suffix|). False times the scoring of before.",
      ),
    rssPairs: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe(
        'Peak RSS: pairs of child processes (one GRPO step, one RREDCoT-GRPO step with both terms), each loading the model and running one step; ' +
          "`peakRssRatio` = median of the paired ratios of the children's own peak RSS (VmHWM; child.ts). 0 = not measured.",
      ),
  })
  .strict();

type TrainingBenchConfig = z.infer<typeof TrainingBenchConfigSchema>;

/**
 * The first train-split problems (committed dataset seed) with at most `maxSteps` steps: GRPO's prompts.
 * Their references: `referencesById` of @rred/tasks, as the finetune experiment uses them.
 */
function trainRecords(count: number, maxSteps: number): TaskRecord[] {
  const { train } = buildDatasets(DEFAULT_DATASET_SEED, {
    train: count * 12,
    validation: 0,
    'eval-easy': 0,
    'eval-medium': 0,
    'eval-hard': 0,
  });
  const picked = train.filter((r) => Number(r.meta.steps) <= maxSteps).slice(0, count);
  if (picked.length < count) throw new Error(`bench training: only ${picked.length} train problems have ≤ ${maxSteps} steps`);
  return picked;
}

interface VariantSummary {
  /** Fastest timed step. */
  stepMsMin: number;
  /** Medians over the timed reps. */
  stepMs: number;
  sampleMs: number;
  redistributionMs: number;
  updateMs: number;
  allStepMs: number[];
  /** Traces segmented and scored by RREDCoT (A ≠ 0 and every reference fits). */
  estimatedTraces: number;
  /** Traces with A ≠ 0 given uniform σ because a reference suffix would not fit after their thinking. */
  tracesSkippedReferenceTooLong: number;
  /** Token positions RREDCoT's scoring forwarded in the step (0 for GRPO). */
  rredcotTokensForwarded: number;
}

function fingerprint(traces: Trace[]): string {
  return traces.map((t) => `${t.problemId}:${t.completion.join(',')}`).join('|');
}

/**
 * One GRPO step per variant on the same batch, timed in one process. A step is what `GrpoTrainer.trainStep`
 * does: sample G completions for each prompt + verifier reward + advantages (+ for RREDCoT: segment each
 * trace with A ≠ 0 and score its exit points, then σ) + loss, backward and the AdamW update. The
 * weights are restored before every step, so every step samples the same batch from the same policy.
 */
/** What the RREDCoT hooks report per variant: traces estimated, and traces that kept uniform σ (reference too long). */
interface HookCounts {
  estimated: Record<Variant, number>;
  skipped: Record<Variant, number>;
  /** Token positions RREDCoT forwarded in the variant's step (Σ |suffix| with the sampler's caches). */
  tokensForwarded: Record<Variant, number>;
}

type TrainingBenchModel = Awaited<ReturnType<typeof loadBenchModel>>['lm'];

/** σ of a RREDCoT variant: the estimator hook, recording its counts; the AllTraces variants estimate every trace. */
function hookFor(
  variant: Exclude<Variant, 'grpo'>,
  lm: TrainingBenchModel,
  config: TrainingBenchConfig,
  references: ReturnType<typeof referencesById>,
  counts: HookCounts,
): RedistributionHook {
  const tok = lm.tokenizer;
  const terms = variant.replace(/AllTraces$/, '') as Terms;
  const allTraces = variant.endsWith('AllTraces');
  const inner = estimatorRedistribution({
    method: 'rredcot',
    model: lm,
    segmentation: segmentationConfig({ strategy: 'hybrid', maxSegments: config.maxSegments }),
    tokenText: (id) => tok.tokenText(id),
    // the committed bench measures the oracle-aligned value term ('remaining'); the default start rule scores every line start
    // of the reference, about 4× the value tokens per trace (results/gold, tokens/trace)
    estimatorConfig: { ...rredcotPresets.dataset, valueSuffix: 'remaining', terms: TERMS_CONFIG[terms] },
    tokens: { endThink: tok.endThink, eos: tok.eos },
    datasetReferences: references,
    alignment: remainingAlignment(tok),
    samplerCache: config.samplerCache,
  });
  // The AllTraces variants estimate every trace, as if no advantage were 0. The advantages the hook
  // sees only decide which traces it estimates; the loss uses the trainer's own advantages.
  const hook = async (traces: Trace[], context: Parameters<RedistributionHook>[1]) => {
    const sigma = await inner(traces, allTraces ? { ...context, advantages: context.advantages.map(() => 1) } : context);
    const stats = inner.lastCall();
    counts.estimated[variant] = stats.estimated;
    counts.skipped[variant] = stats.fallback;
    counts.tokensForwarded[variant] = stats.tokensForwarded ?? 0;
    return sigma;
  };
  return Object.assign(hook, { usesSamplerCache: inner.usesSamplerCache });
}

/** The variants in the order of rep `rep`: rotated left by `rep` places. */
function rotated<T>(items: readonly T[], rep: number): T[] {
  const by = rep % items.length;
  return [...items.slice(by), ...items.slice(0, by)];
}

type StepTimes = Record<Variant, { stepMs: number[]; sampleMs: number[]; redistributionMs: number[]; updateMs: number[] }>;

/**
 * reps + 1 rounds (round 0 an untimed warm-up), each running every variant back to back from the same
 * restored weights, in an order rotated by one variant per round; checks that every step sampled the same batch and gave a finite loss.
 */
async function timeSteps(
  lm: TrainingBenchModel,
  config: TrainingBenchConfig,
  trainerFor: (v: Variant) => GrpoTrainer,
): Promise<{ times: StepTimes; batchInfo: Record<string, number> }> {
  const policyVariables = lm.transformer.variables();
  const snapshot = captureWeights(policyVariables);
  const bar = new ProgressBar('bench training', (config.reps + 1) * VARIANTS.length, 5000);
  const times = {} as StepTimes;
  for (const v of VARIANTS) times[v] = { stepMs: [], sampleMs: [], redistributionMs: [], updateMs: [] };
  let batchFingerprint: string | null = null;
  let sameBatch = true;
  let batchInfo: Record<string, number> = {};
  try {
    for (let rep = 0; rep <= config.reps; rep++) {
      for (const variant of rotated(VARIANTS, rep)) {
        restoreWeights(policyVariables, snapshot, 'bench snapshot');
        const trainer = trainerFor(variant);
        const t0 = performance.now();
        const batch = await trainer.generate(); // sample + reward + advantages (+ segmentation and RREDCoT scoring)
        const t1 = performance.now();
        const metrics = trainer.update(batch); // loss, backward, clip, AdamW
        const t2 = performance.now();
        trainer.optimizer.dispose();
        if (!Number.isFinite(metrics.loss)) throw new Error(`bench training: ${variant} step gave loss ${metrics.loss}`);
        const fp = fingerprint(batch.traces);
        if (batchFingerprint === null) {
          batchFingerprint = fp;
          batchInfo = {
            traces: batch.traces.length,
            meanCompletionTokens: round(mean(batch.traces.map((t) => t.completion.length)), 1),
            rewardMean: round(mean(batch.rewards), 3),
            tracesWithNonZeroAdvantage: batch.advantages.filter((a) => a !== 0).length,
          };
        } else if (fp !== batchFingerprint) sameBatch = false;
        if (rep > 0) {
          times[variant].stepMs.push(t2 - t0);
          times[variant].sampleMs.push(batch.sampleMs);
          times[variant].redistributionMs.push(batch.redistributionMs);
          times[variant].updateMs.push(t2 - t1);
        }
        bar.tick(1, `${rep === 0 ? 'warm-up ' : ''}${variant}`);
      }
    }
  } finally {
    restoreWeights(policyVariables, snapshot, 'bench snapshot');
  }
  if (!sameBatch)
    throw new Error('bench training: the variants sampled different batches (same seed and weights should give the same batch)');
  return { times, batchInfo };
}

function variantSummaries(times: StepTimes, counts: HookCounts): Record<Variant, VariantSummary> {
  const summary = {} as Record<Variant, VariantSummary>;
  for (const v of VARIANTS) {
    summary[v] = {
      stepMsMin: round(Math.min(...times[v].stepMs)),
      stepMs: round(median(times[v].stepMs)),
      sampleMs: round(median(times[v].sampleMs)),
      redistributionMs: round(median(times[v].redistributionMs)),
      updateMs: round(median(times[v].updateMs)),
      allStepMs: times[v].stepMs.map((x) => round(x)),
      estimatedTraces: counts.estimated[v],
      tracesSkippedReferenceTooLong: counts.skipped[v],
      rredcotTokensForwarded: counts.tokensForwarded[v],
    };
  }
  return summary;
}

/**
 * One GRPO step per variant on the same batch, timed in one process. A step is what `GrpoTrainer.trainStep`
 * does: sample G completions for each prompt + verifier reward + advantages (+ for RREDCoT: segment each
 * trace with A ≠ 0 and score its exit points, then σ) + loss, backward and the AdamW update. The
 * weights are restored before every step, so every step samples the same batch from the same policy.
 */
export async function runTrainingBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(TrainingBenchConfigSchema, rawConfig, 'training bench config');
  const model = await loadBenchModel(config.checkpoint);
  const { lm } = model;
  const counts = zeroCounts();
  const trainerFor = trainers(lm, config, counts);
  let measured: Awaited<ReturnType<typeof timeSteps>>;
  try {
    measured = await timeSteps(lm, config, trainerFor);
  } finally {
    lm.dispose();
  }
  const peakRss = measurePeakRss(config);
  const measuredDoc = { ...trainingDocument(measured.times, measured.batchInfo, counts), ...peakRss };
  printTrainingBench(measuredDoc, measured.times, config);
  if (peakRss.peakRssRatio !== null)
    process.stdout.write(
      `peakRssRatio (RREDCoT-GRPO both / GRPO, child processes) ${peakRss.peakRssRatio}: ${JSON.stringify(peakRss.peakRssMb)} MB\n`,
    );
  return { ...measuredDoc, checkpoint: model.checkpoint, engine: model.engine, config, measuredAt: new Date().toISOString() };
}

function zeroCounts(): HookCounts {
  const zero = () => Object.fromEntries(VARIANTS.map((v) => [v, 0])) as Record<Variant, number>;
  return { estimated: zero(), skipped: zero(), tokensForwarded: zero() };
}

/** A fresh GrpoTrainer for a variant (same seed, prompts and config), its hook recording into `counts`. */
function trainers(lm: TrainingBenchModel, config: TrainingBenchConfig, counts: HookCounts): (variant: Variant) => GrpoTrainer {
  const records = trainRecords(config.promptsPerStep, config.maxSteps);
  const references = referencesById(records, lm.tokenizer, config.references);
  return (variant: Variant) =>
    new GrpoTrainer(
      taskGrpoSetup({
        model: lm,
        records,
        redistribute: variant === 'grpo' ? undefined : hookFor(variant, lm, config, references, counts),
      }),
      parseGrpoConfig(
        {
          seed: config.seed,
          steps: 1,
          promptsPerStep: config.promptsPerStep,
          groupSize: config.groupSize,
          redistribution: variant === 'grpo' ? 'none' : 'rredcot',
        },
        'training bench grpo config',
      ),
    );
}

/** One step of `variant` (generate + update) in this process: what the peak-RSS child runs (child.ts). */
export async function runOneStep(rawConfig: unknown, variant: string): Promise<void> {
  const config = parseConfig(TrainingBenchConfigSchema, rawConfig, 'training bench config');
  if (!(VARIANTS as readonly string[]).includes(variant))
    throw new Error(`bench training: unknown variant '${variant}' (expected one of ${VARIANTS.join(', ')})`);
  const { lm } = await loadBenchModel(config.checkpoint);
  const trainer = trainers(lm, config, zeroCounts())(variant as Variant);
  const metrics = trainer.update(await trainer.generate());
  if (!Number.isFinite(metrics.loss)) throw new Error(`bench training: ${variant} step gave loss ${metrics.loss}`);
}

/**
 * Peak RSS of one GRPO step vs one RREDCoT-GRPO step (both terms): each in a fresh child process that
 * loads the model and runs the step (child.ts), pairs interleaved; the child's own peak RSS (VmHWM, KiB → MB).
 */
function measurePeakRss(config: TrainingBenchConfig): { peakRssRatio: number | null; peakRssMb: Record<string, number[]> } {
  if (config.rssPairs === 0) return { peakRssRatio: null, peakRssMb: {} };
  const child = path.join(__dirname, 'child.ts');
  const run = (variant: Variant): number => {
    const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', child, variant, JSON.stringify(config)], { cwd: repoRoot(), encoding: 'utf8' });
    const m = /maxRssKb=(\d+)/.exec(r.stdout ?? '');
    if (r.status !== 0 || !m)
      throw new Error(`bench training: peak-RSS child (${variant}) failed: ${(r.stderr || r.stdout || '').trim().split('\n').pop()}`);
    return Number(m[1]) / 1024;
  };
  const grpo: number[] = [];
  const both: number[] = [];
  for (let i = 0; i < config.rssPairs; i++) {
    grpo.push(run('grpo'));
    both.push(run('both'));
  }
  return {
    peakRssRatio: round(median(both.map((b, i) => b / grpo[i])), 3),
    peakRssMb: { grpo: grpo.map((x) => round(x)), both: both.map((x) => round(x)) },
  };
}

/** Median over reps of the paired ratio (variant step / GRPO step of the same rep). */
const pairedRatios = (times: StepTimes, v: Variant) => times[v].stepMs.map((ms, rep) => ms / times.grpo.stepMs[rep]);
const headlineRatio = (times: StepTimes, v: Variant) => round(median(pairedRatios(times, v)), 3);
/** Distribution-free 95 % interval of that median (order statistics, `medianCi`). */
const headlineCi = (times: StepTimes, v: Variant) => {
  const ci = medianCi(pairedRatios(times, v), 0.95);
  return { lo: round(ci.lo, 3), hi: round(ci.hi, 3), coverage: round(ci.coverage, 3) };
};
const fastestRatio = (summary: Record<Variant, VariantSummary>, v: Variant) => round(summary[v].stepMsMin / summary.grpo.stepMsMin, 2);

/** The section's numbers: paired step ratios to GRPO (the headline), the bars, per-variant summaries. */
function trainingDocument(times: StepTimes, batchInfo: Record<string, number>, counts: HookCounts) {
  const summary = variantSummaries(times, counts);
  // Headline: the median over reps of the paired ratio. Each rep runs every variant back to back, so a
  // pair shares the machine's state at that moment; the median discards reps another job disturbed.
  const ratio = (v: Variant) => headlineRatio(times, v);
  const medianRatio = (v: Variant) => round(summary[v].stepMs / summary.grpo.stepMs, 2);
  const byTerms = <T>(f: (v: Variant) => T) => ({ immediate: f('immediate'), value: f('value'), both: f('both') });
  return {
    rredcotStepOverGrpoStep: byTerms(ratio),
    rredcotStepOverGrpoStepCi95: byTerms((v) => headlineCi(times, v)),
    rredcotStepOverGrpoStepPerRep: byTerms((v) => pairedRatios(times, v).map((r) => round(r, 2))),
    rredcotStepOverGrpoStepFastest: byTerms((v) => fastestRatio(summary, v)),
    rredcotStepOverGrpoStepOfMedians: byTerms(medianRatio),
    rredcotStepOverGrpoStepAllTracesEstimated: {
      immediate: ratio('immediateAllTraces'),
      value: ratio('valueAllTraces'),
      both: ratio('bothAllTraces'),
    },
    ratioDefinition:
      'median over the interleaved reps of (RREDCoT-GRPO step / GRPO step of the same rep); Fastest: fastest step / fastest GRPO step; ' +
      'OfMedians: median step / median GRPO step',
    bars: { immediate: 1.1, both: 1.25 }, // target step-cost ratios over GRPO (the bench README's table checks them)
    meetsBars: { immediate: ratio('immediate') <= 1.1, both: ratio('both') <= 1.25 },
    stepDefinition:
      'one GrpoTrainer step = generate (sample G·prompts completions with the KV cache, verifier reward, group advantages; RREDCoT adds ' +
      'hybrid segmentation of every trace with A ≠ 0 and one batched prefix-sharing scoring call for all of them) + update (token log-probs, loss, backward, clip, AdamW); ' +
      'same seed and restored weights, so every variant trains on the same batch',
    sameBatch: true, // timeSteps throws otherwise
    batch: batchInfo,
    perVariant: summary,
  };
}

function printTrainingBench(out: ReturnType<typeof trainingDocument>, times: StepTimes, config: TrainingBenchConfig): void {
  const summary = out.perVariant;
  const batchInfo = out.batch;
  const rows = VARIANTS.map((v) => [
    v === 'grpo' ? 'GRPO' : `RREDCoT-GRPO (${v.replace(/AllTraces$/, ', all traces')})`,
    summary[v].stepMsMin.toFixed(0),
    summary[v].stepMs.toFixed(0),
    summary[v].sampleMs.toFixed(0),
    summary[v].redistributionMs.toFixed(0),
    summary[v].updateMs.toFixed(0),
    headlineRatio(times, v).toFixed(2),
    fastestRatio(summary, v).toFixed(2),
  ]);
  process.stdout.write(
    `\n${textTable({ columns: ['step', 'fastest ms', 'median ms', 'sample ms (med)', 'redistribution ms (med)', 'update ms (med)', '× GRPO (median of paired reps)', '× GRPO (fastest)'], rows }, 'numbers')}\n` +
      `batch: ${batchInfo.traces} traces (${config.promptsPerStep} prompts × G = ${config.groupSize}), ${batchInfo.meanCompletionTokens} completion tokens on average, ` +
      `${batchInfo.tracesWithNonZeroAdvantage} with A ≠ 0, same batch for every variant: ${out.sameBatch}\n` +
      `rredcotStepOverGrpoStep immediate ${out.rredcotStepOverGrpoStep.immediate} (bar ≤ 1.1: ${out.meetsBars.immediate ? 'met' : 'MISSED'}), ` +
      `value ${out.rredcotStepOverGrpoStep.value}, both ${out.rredcotStepOverGrpoStep.both} (bar ≤ 1.25: ${out.meetsBars.both ? 'met' : 'MISSED'}); fastest: ${JSON.stringify(out.rredcotStepOverGrpoStepFastest)}; every trace estimated: ${JSON.stringify(out.rredcotStepOverGrpoStepAllTracesEstimated)}\n`,
  );
}
