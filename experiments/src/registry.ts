/**
 * Every experiment, once. The commands (`<experiment>/main.ts`, which import only their own
 * definition), `experiments:tables` / `experiments:plots` (render/main.ts), the sweep (which experiments
 * a grid may name) and the sweep report (which metrics it shows) all derive from this list. Adding an
 * experiment = its definition here, its nx target in project.json, its defaults in
 * experiments/configs/<name>.json; registry.test.ts fails when the three disagree.
 */
import { UserError } from '@rred/core';
import { benchExperiment } from './bench/definition';
import type { ExperimentDefinition } from './common/experiment';
import { correlationExperiment } from './correlation/definition';
import { finetuneExperiment } from './finetune/definition';
import { goldExperiment } from './gold/definition';
import { lmQualityExperiment } from './lm-quality/definition';
import { mcVarianceExperiment } from './mc-variance/definition';
import { multiAttemptExperiment } from './multi-attempt/definition';

/** In render order (correlation reads mc-variance's traces; the order only matters for log lines). */
export const EXPERIMENTS: readonly ExperimentDefinition[] = [
  mcVarianceExperiment as unknown as ExperimentDefinition,
  correlationExperiment as unknown as ExperimentDefinition,
  goldExperiment as unknown as ExperimentDefinition,
  finetuneExperiment as unknown as ExperimentDefinition,
  multiAttemptExperiment as unknown as ExperimentDefinition,
  lmQualityExperiment as unknown as ExperimentDefinition,
  benchExperiment as unknown as ExperimentDefinition,
];

export function experimentNames(): string[] {
  return EXPERIMENTS.map((e) => e.name);
}

/** The registered experiment called `name`; a UserError listing the names otherwise. */
export function experimentByName(name: string, what = 'experiment'): ExperimentDefinition {
  const def = EXPERIMENTS.find((e) => e.name === name);
  if (!def) throw new UserError(`unknown ${what} '${name}'; expected one of ${experimentNames().join(', ')}`);
  return def;
}

/** The experiments a sweep grid may name (those with a `sweep` entry). */
export function sweepableExperiments(): ExperimentDefinition[] {
  return EXPERIMENTS.filter((e) => e.sweep !== undefined);
}
