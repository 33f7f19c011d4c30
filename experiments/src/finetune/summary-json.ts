/**
 * results/finetune/summary.json: per test bed (checkpoint name) and method, the seeds, the final
 * checkpoint's avg@k (mean over splits per seed) as mean and Student-t interval over seeds, the paired
 * difference against GRPO over the seeds both ran (with its uncorrected interval), the lr and λ it ran,
 * the steps to reach the midpoint between GRPO's start and best seed-mean validation accuracy (with the
 * bootstrap interval over seeds), seconds per step and the σ fallback share; then every comparison of the
 * table with its Holm-corrected interval and verdict (comparisons.ts). NaN, ±∞ and undefined become null;
 * diffVsGrpo is null for grpo itself (the reference) and on a test bed without grpo.
 */
import type { Comparison } from './comparisons';
import type { FinetuneRunData } from './load';
import type { FinetuneSummary } from './summary';

interface Estimate {
  value: number | null;
  lo: number | null;
  hi: number | null;
}

interface ArmSummary {
  seeds: number[];
  evalMean: Estimate;
  diffVsGrpo: Estimate | null;
  lr: number | null;
  referenceSft: number | null;
  stepsToMidpoint: Estimate | null;
  secondsPerStep: number | null;
  sigmaFallbackShare: number | null;
}

interface SummaryJson {
  run: string;
  /** Which checkpoint of each child evalMean describes, and the interval level. */
  evaluatedAt: 'final';
  confidence: number;
  checkpoints: Record<string, { checkpoint: string; arms: Record<string, ArmSummary> }>;
  comparisons: {
    testBed: string;
    a: string;
    b: string;
    seeds: number[];
    diff: number | null;
    p: number | null;
    holmLevel: number;
    lo: number | null;
    hi: number | null;
    holmP: number | null;
    supported: boolean;
  }[];
}

const num = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : x);
const estimate = (c: { mean: number; lo: number; hi: number }): Estimate => ({ value: num(c.mean), lo: num(c.lo), hi: num(c.hi) });

export function summaryJson(data: FinetuneRunData, summaries: readonly FinetuneSummary[], comparisons: readonly Comparison[]): SummaryJson {
  const checkpoints: SummaryJson['checkpoints'] = {};
  for (const s of summaries) {
    const bed = data.beds.find((b) => b.name === s.testBed)!;
    const arms: Record<string, ArmSummary> = {};
    for (const method of bed.methods) {
      const final = s.evalRows.find((r) => r.method === method && r.checkpoint === 'final')!;
      const cost = s.cost.find((c) => c.method === method)!;
      const paired = s.paired.find((p) => p.method === method);
      const efficiency = s.efficiency.find((e) => e.method === method);
      const reach = s.efficiencyCi[method];
      const seedRow = s.perSeed.find((r) => r.method === method);
      arms[method] = {
        seeds: data.children.filter((c) => c.testBed === s.testBed && c.method === method).map((c) => c.seed),
        evalMean: estimate(final.cells.mean),
        diffVsGrpo: paired ? estimate(paired.diff) : null,
        lr: seedRow ? seedRow.lr : null,
        referenceSft: seedRow ? seedRow.referenceSft : null,
        stepsToMidpoint: efficiency
          ? { value: num(efficiency.steps), lo: reach ? num(reach.steps[0]) : null, hi: reach ? num(reach.steps[1]) : null }
          : null,
        secondsPerStep: num(cost.stepSeconds),
        sigmaFallbackShare: num(cost.fallbackFraction),
      };
    }
    checkpoints[s.testBed] = { checkpoint: bed.checkpoint, arms };
  }
  return {
    run: data.parent.id,
    evaluatedAt: 'final',
    confidence: data.config.confidence,
    checkpoints,
    comparisons: comparisons.map((c) => ({
      testBed: c.testBed,
      a: c.a,
      b: c.b,
      seeds: c.seeds,
      diff: num(c.diff),
      p: num(c.p),
      holmLevel: c.level,
      lo: num(c.lo),
      hi: num(c.hi),
      holmP: num(c.adjustedP),
      supported: c.supported,
    })),
  };
}
