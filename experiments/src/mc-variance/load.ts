import { mean, Rng } from '@rred/core';
import type { ContinuationRecord } from '@rred/estimators';
import type { Run, Store, StoredTrace } from '@rred/results-store';
import { continuationRecords } from '../common/mc-records';
import { sdBySamples, truncationStudy, utilitiesByExitPoint, type SdRow, type TruncationRow } from './analysis';
import { mcVarianceConfigSchema, type McVarianceConfig } from '../common/mc-variance-config';

interface McRunData {
  config: McVarianceConfig;
  traces: StoredTrace[];
  records: ContinuationRecord[][];
}

/** Everything an mc-variance analysis needs, from the store alone. */
export function loadMcRun(store: Store, runId: string): McRunData {
  const run = store.getRun(runId);
  const config = mcVarianceConfigSchema.parse(run.config);
  const traces = store.traces(runId);
  return { config, traces, records: traces.map((t) => continuationRecords(t.continuations)) };
}

export interface McAnalysis {
  sd: SdRow[];
  truncation: TruncationRow[];
  /** Smallest sample count whose mean SD is ≤ the threshold (null if none). */
  samplesForThreshold: number | null;
  traces: number;
  exitPoints: number;
  meanSegments: number;
  rolloutAccuracy: number;
}

/** Deterministic: the bootstrap Rng is seeded by the run's seed, so every re-render gives the same numbers. */
export function analyzeMcRun(data: McRunData): McAnalysis {
  const { config, traces, records } = data;
  const groups = utilitiesByExitPoint(records);
  const a = config.analysis;
  const sd = sdBySamples(
    groups,
    config.mc.samplesPerExitPoint,
    a.bootstrapResamples,
    a.sdThreshold,
    new Rng(config.seed).fork('sd-bootstrap'),
  );
  const truncation = truncationStudy(records, config.mc.maxNewTokens, config.mc.horizon, a.truncationFractions);
  const hit = sd.find((r) => r.meanSd <= a.sdThreshold);
  return {
    sd,
    truncation,
    samplesForThreshold: hit ? hit.samples : null,
    traces: traces.length,
    exitPoints: groups.length,
    meanSegments: mean(traces.map((t) => t.segments.length)),
    rolloutAccuracy: mean(traces.map((t) => t.trace.reward)),
  };
}

/** Headline numbers as run metrics, so `rred runs compare` and sweeps see them. */
export function logMcSummary(store: Store, run: Run): void {
  const analysis = analyzeMcRun(loadMcRun(store, run.id));
  const metrics: Record<string, number> = {
    traces: analysis.traces,
    exit_points: analysis.exitPoints,
    mean_segments: analysis.meanSegments,
    rollout_accuracy: analysis.rolloutAccuracy,
    samples_for_sd_threshold: analysis.samplesForThreshold ?? NaN,
  };
  for (const r of analysis.sd) run.logMetrics({ mean_sd: r.meanSd }, r.samples);
  for (const t of analysis.truncation) {
    const pct = Math.round(t.fraction * 100);
    metrics[`cut_fraction_${pct}`] = t.cutFraction;
    metrics[`cut_correct_fraction_${pct}`] = t.cutCorrectFraction;
  }
  run.logMetrics(metrics);
}
