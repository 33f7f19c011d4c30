/** The numbers the finetune tables show, computed from the loaded runs (pure; tested on synthetic data). */
import { meanCurve, reachInterval, sampleEfficiency, type CurvePoint, type EfficiencyRow, type ReachInterval } from './curves';
import type { FinetuneRunData, TestBedData } from './load';
import { mean, meanCi, Rng, type MeanCi } from '@rred/core';
import { compareArms, type Comparison } from './comparisons';

export interface EvalRow {
  method: string;
  /** 'start' (the untrained model), 'final' or 'best'. */
  checkpoint: 'start' | 'final' | 'best';
  lr: number | null;
  /** Per split, then 'mean' (mean over splits per seed, then over seeds). */
  cells: Record<string, MeanCi>;
  /** Mean (over seeds) step of the best checkpoint (best rows only). */
  meanBestStep: number | null;
}

export interface MethodCurve {
  method: string;
  mean: CurvePoint[];
  seeds: { seed: number; runId: string; curve: CurvePoint[] }[];
}

/** Paired difference of a method against GRPO over the seeds both ran (final checkpoint, mean over splits). */
export interface PairedDiff {
  method: string;
  /** Seeds both the method and GRPO ran, in config order. */
  seeds: number[];
  diff: MeanCi;
}

export interface FinetuneSummary {
  /** Test bed name and whether it is the primary one (its method labels carry no prefix). */
  testBed: string;
  primary: boolean;
  splits: string[];
  evalRows: EvalRow[];
  curves: MethodCurve[];
  /** Target: the midpoint between GRPO's start and its best seed-mean validation point. */
  efficiency: EfficiencyRow[];
  /** Bootstrap intervals over seeds of each method's steps and seconds to the midpoint target. */
  efficiencyCi: Record<string, ReachInterval>;
  /** The same against GRPO's best (max) seed-mean validation point. */
  efficiencyAtMax: EfficiencyRow[];
  /** One row per (method, seed): final and best-validation avg@k (mean over splits) and the validation curve's summary. */
  perSeed: PerSeedRow[];
  /** Per method: mean s/step, mean fallback fraction, mean training seconds. */
  cost: { method: string; stepSeconds: number; trainSeconds: number; fallbackFraction: number }[];
  /** Every method but grpo against grpo (empty without grpo). */
  paired: PairedDiff[];
}

export interface PerSeedRow {
  method: string;
  seed: number;
  lr: number;
  referenceSft: number;
  /** avg@k on the eval splits, mean over splits, at the final and at the best-validation checkpoint. */
  final: number;
  best: number;
  bestStep: number;
  /** Validation avg@k at the last step and its maximum over the curve. */
  validationFinal: number;
  validationBest: number;
}

/** One summary per test bed, in config order. */
export function summarize(data: FinetuneRunData): FinetuneSummary[] {
  return data.beds.map((bed) => summarizeBed(data, bed));
}

/** Every comparison of the table (comparisons.ts), one Holm family over all beds: final avg@k, mean over splits, paired by seed. */
export function compareAll(data: FinetuneRunData): Comparison[] {
  const splits = data.config.evaluation.splits;
  const of = (bed: string, method: string) => data.children.filter((c) => c.testBed === bed && c.method === method);
  return compareArms(
    data.beds.map((b) => ({ name: b.name, methods: b.methods })),
    (bed, method) => of(bed, method).map((c) => c.seed),
    (bed, method, seed) => {
      const c = of(bed, method).find((x) => x.seed === seed);
      return c ? finalMean(c, splits) : undefined;
    },
    data.config.confidence,
  );
}

/** Mean over splits of a child's final avg@k (the per-seed value of the "mean over splits" column). */
const finalMean = (r: { final: Record<string, number> }, splits: readonly string[]) => mean(splits.map((s) => r.final[s]));

function summarizeBed(data: FinetuneRunData, bed: TestBedData): FinetuneSummary {
  const { config } = data;
  const splits = config.evaluation.splits;
  const level = config.confidence;
  const cellsOf = (perSeed: Record<string, number>[]): Record<string, MeanCi> => {
    const cells: Record<string, MeanCi> = {};
    for (const s of splits)
      cells[s] = meanCi(
        perSeed.map((r) => r[s]),
        level,
      );
    cells.mean = meanCi(
      perSeed.map((r) => mean(splits.map((s) => r[s]))),
      level,
    );
    return cells;
  };
  const evalRows: EvalRow[] = [];
  const baseSeeds = config.seeds.map((_, i) => Object.fromEntries(splits.map((s) => [s, bed.base[s]?.[i] ?? NaN])));
  if (baseSeeds.some((r) => splits.some((s) => !Number.isNaN(r[s])))) {
    evalRows.push({ method: 'start', checkpoint: 'start', lr: null, cells: cellsOf(baseSeeds), meanBestStep: null });
  }
  const curves: MethodCurve[] = [];
  const cost: FinetuneSummary['cost'] = [];
  for (const method of bed.methods) {
    const runs = data.children.filter((c) => c.testBed === bed.name && c.method === method);
    // the lr the children ran (chosen by the search, or configured)
    const lr = runs[0]?.config.lr ?? config.learningRates[method as keyof typeof config.learningRates];
    evalRows.push({ method, checkpoint: 'final', lr, cells: cellsOf(runs.map((r) => r.final)), meanBestStep: null });
    evalRows.push({
      method,
      checkpoint: 'best',
      lr,
      cells: cellsOf(runs.map((r) => r.best)),
      meanBestStep: mean(runs.map((r) => r.bestStep)),
    });
    curves.push({
      method,
      mean: meanCurve(runs.map((r) => r.curve)),
      seeds: runs.map((r) => ({ seed: r.seed, runId: r.runId, curve: r.curve })),
    });
    cost.push({
      method,
      stepSeconds: mean(runs.map((r) => r.stepMs / 1000)),
      trainSeconds: mean(runs.map((r) => r.trainSeconds)),
      fallbackFraction: method === 'grpo' ? NaN : mean(runs.map((r) => r.fallbackFraction)),
    });
  }
  return {
    testBed: bed.name,
    primary: bed.primary,
    splits,
    evalRows,
    curves,
    ...efficiencyOf(curves, bed, config.seeds[0], level),
    perSeed: perSeedRows(data, bed, splits),
    cost,
    paired: bed.methods.includes('grpo') ? pairedVsGrpo(data, bed, splits, level) : [],
  };
}

/** Steps to GRPO's midpoint and maximum per method (from the seed-mean curves), with bootstrap intervals over seeds for the midpoint. */
function efficiencyOf(
  curves: readonly MethodCurve[],
  bed: TestBedData,
  seed: number,
  level: number,
): Pick<FinetuneSummary, 'efficiency' | 'efficiencyCi' | 'efficiencyAtMax'> {
  if (!bed.methods.includes('grpo')) return { efficiency: [], efficiencyCi: {}, efficiencyAtMax: [] };
  const means = Object.fromEntries(curves.map((c) => [c.method, c.mean]));
  const efficiency = sampleEfficiency(means, 'grpo', 'midpoint');
  const efficiencyCi: Record<string, ReachInterval> = {};
  const rng = new Rng(seed).fork(`efficiency-${bed.name}`);
  for (const e of efficiency) {
    const curvesOf = curves.find((c) => c.method === e.method)!.seeds.map((x) => x.curve);
    efficiencyCi[e.method] = reachInterval(curvesOf, e.target, rng.fork(e.method), level);
  }
  return { efficiency, efficiencyCi, efficiencyAtMax: sampleEfficiency(means, 'grpo', 'max') };
}

/** Final and best-validation avg@k of every child of the bed. */
function perSeedRows(data: FinetuneRunData, bed: TestBedData, splits: readonly string[]): PerSeedRow[] {
  return data.children
    .filter((c) => c.testBed === bed.name)
    .map((c) => ({
      method: c.method,
      seed: c.seed,
      lr: c.config.lr,
      referenceSft: c.config.referenceSft ?? 0,
      final: finalMean(c, splits),
      best: mean(splits.map((x) => c.best[x])),
      bestStep: c.bestStep,
      validationFinal: c.curve.length ? c.curve[c.curve.length - 1].avg : NaN,
      validationBest: c.curve.length ? Math.max(...c.curve.map((p) => p.avg)) : NaN,
    }));
}

/** Each method's final mean avg@k minus GRPO's, paired by seed. */
function pairedVsGrpo(data: FinetuneRunData, bed: TestBedData, splits: readonly string[], level: number): PairedDiff[] {
  const ofBed = data.children.filter((c) => c.testBed === bed.name);
  const grpo = new Map(ofBed.filter((c) => c.method === 'grpo').map((c) => [c.seed, finalMean(c, splits)]));
  return bed.methods
    .filter((m) => m !== 'grpo')
    .map((method) => {
      const runs = ofBed.filter((c) => c.method === method && grpo.has(c.seed));
      return {
        method,
        seeds: runs.map((r) => r.seed),
        diff: meanCi(
          runs.map((r) => finalMean(r, splits) - grpo.get(r.seed)!),
          level,
        ),
      };
    });
}
