/** A finetune parent run and its children, read from the store alone (no model). */
import * as aq from 'arquero';
import type { RunDetail, Store } from '@rred/results-store';
import { canonicalJson, mean, sum, UserError } from '@rred/core';
import { CHILD_TAG_PREFIX } from './children';
import { finetuneConfigSchema, type FinetuneConfig } from './config';
import type { CurvePoint } from './curves';
import { baseKey, KEYS } from './keys';
import type { ChildConfig } from './child-config';
import { childKey, planSearch, seedsOf, testBeds, type Choices } from './plan';
import { chooseSettings, type ScoredCandidate } from './search';

export interface ChildResult {
  key: string;
  /** Test bed name (checkpointName of its checkpoint). */
  testBed: string;
  method: string;
  seed: number;
  runId: string;
  config: ChildConfig;
  curve: CurvePoint[];
  /** avg@k per eval split at the final and at the best checkpoint. */
  final: Record<string, number>;
  best: Record<string, number>;
  bestStep: number;
  trainSeconds: number;
  /** Mean per-step wall time (ms) of sampling, redistribution and update. */
  stepMs: number;
  /** Share of traces with A ≠ 0 that kept uniform σ because the references did not fit the context (NaN for grpo). */
  fallbackFraction: number;
  /** The trainer's per-step diagnostics over the run (NaN when a run did not log one). */
  diagnostics: Diagnostics;
}

/**
 * Per-step trainer metrics (`grpo.<name>`) summarized over a run's steps: the mean of each, except
 * sigmaSumMin / sigmaSumMax, the extremes over all steps. Σσ_t is over the completions with A ≠ 0
 * (1 for every completion under return equivalence), σ entropy the mean entropy of |σ|/Σ|σ| (log|o| for uniform σ).
 */
export interface Diagnostics {
  rewardMean: number;
  sigmaSumMean: number;
  sigmaSumMin: number;
  sigmaSumMax: number;
  sigmaEntropy: number;
  gradNorm: number;
  clippedFraction: number;
}

const finite = (xs: number[]) => xs.filter((x) => Number.isFinite(x));

function diagnosticsOf(store: Store, runId: string): Diagnostics {
  const steps = (name: string) => [...history(store, runId, `grpo.${name}`).values()];
  const meanOf = (name: string) => {
    const xs = steps(name);
    return xs.length ? mean(xs) : NaN; // a NaN step makes the summary NaN
  };
  // Σσ is NaN at a step where every A_i = 0 (no completion to sum over): those steps are left out, and only those
  const sigmaSteps = (name: string) => finite(steps(name));
  const sigmaSum = (name: string, pick: (xs: number[]) => number) => {
    const xs = sigmaSteps(name);
    return xs.length ? pick(xs) : NaN;
  };
  return {
    rewardMean: meanOf('rewardMean'),
    sigmaSumMean: sigmaSum('sigmaSumMean', mean),
    sigmaSumMin: sigmaSum('sigmaSumMin', (xs) => Math.min(...xs)),
    sigmaSumMax: sigmaSum('sigmaSumMax', (xs) => Math.max(...xs)),
    sigmaEntropy: meanOf('sigmaEntropy'),
    gradNorm: meanOf('gradNorm'),
    clippedFraction: meanOf('clippedFraction'),
  };
}

export interface TestBedData {
  name: string;
  checkpoint: string;
  /** The bed of `checkpoint` (its children keep the keys of the runs before test beds existed). */
  primary: boolean;
  methods: string[];
  /** Starting model's avg@k per split, one value per seed (config.seeds order). */
  base: Record<string, number[]>;
}

export interface FinetuneRunData {
  parent: RunDetail;
  config: FinetuneConfig;
  children: ChildResult[];
  beds: TestBedData[];
  /** The search's candidates with their validation scores and the choice (empty without a search). */
  search: ScoredCandidate[];
  choices: Choices;
}

/**
 * The search as it ran: the same planning and choice as the compute (search.ts), on the validation
 * curves of the children the parent recorded.
 */
function loadSearch(store: Store, parent: RunDetail, config: FinetuneConfig): { search: ScoredCandidate[]; choices: Choices } {
  const curveOf = (key: string) => {
    const id = parent.tags[`${CHILD_TAG_PREFIX}${key}`];
    return id && store.getRun(id).status === 'FINISHED' ? validationCurve(store, id) : null;
  };
  let choices: Choices = {};
  for (;;) {
    const { choices: next, scored } = chooseSettings(planSearch(config, '', '', choices), curveOf, config.search.lastPoints);
    if (canonicalJson(next) === canonicalJson(choices)) return { search: scored, choices };
    choices = next;
  }
}

/**
 * A parent config stored before a field existed is read with the behaviour it ran, not today's default:
 * before `sigma`, σ came from the estimator config's own normalization and τ with 'literal' sign
 * handling (raw credits, no length prior); before the estimator's `exit`, `valueSuffix` and `combine` (now `referencePooling`),
 * RREDCoT ran 'joint', 'full' and 'literal'.
 */
function withStoredDefaults(stored: Record<string, unknown>): Record<string, unknown> {
  const estimator = (e: unknown) => {
    if (e === undefined) return e;
    const { combine, ...rest } = e as { combine?: unknown };
    return { exit: 'joint', valueSuffix: 'full', referencePooling: combine ?? 'literal', ...rest };
  };
  const out = { ...stored, rredcot: estimator(stored.rredcot), rredcotOwn: estimator(stored.rredcotOwn) };
  if ('sigma' in stored) return out;
  const legacy = (e: unknown) => {
    const { normalization, tau } = (e ?? {}) as { normalization?: string; tau?: number };
    return { signHandling: 'literal', normalization: normalization ?? 'L1', credits: 'raw', tau: tau ?? 1, lengthPrior: false };
  };
  return { ...out, sigma: { rredcot: legacy(stored.rredcot), 'rredcot-own': legacy(stored.rredcotOwn) } };
}

function history(store: Store, runId: string, key: string): Map<number, number> {
  return new Map(store.metricHistory(runId, key).map((p) => [p.step, p.value ?? NaN]));
}

function lastMetric(run: RunDetail, key: string): number {
  const v = run.metrics[key];
  if (v === undefined) throw new UserError(`finetune run ${run.id}: metric '${key}' is missing from the store`);
  return v ?? NaN;
}

/** Validation avg@k by step, left-joined with the training seconds logged at that step (NaN where none was). */
export function validationCurve(store: Store, runId: string): CurvePoint[] {
  const avg = [...history(store, runId, KEYS.validationAvg)].map(([step, value]) => ({ step, avg: value }));
  const seconds = [...history(store, runId, KEYS.validationSeconds)].map(([step, value]) => ({ step, trainSeconds: value }));
  if (avg.length === 0) return [];
  const frame = seconds.length ? aq.from(avg).join_left(aq.from(seconds), 'step') : aq.from(avg);
  return frame
    .orderby('step')
    .objects()
    .map((row) => row as Record<string, unknown>)
    .map((o) => ({
      step: o.step as number,
      avg: o.avg as number,
      trainSeconds: typeof o.trainSeconds === 'number' ? o.trainSeconds : NaN,
    }));
}

export function loadFinetuneRun(store: Store, parentId: string): FinetuneRunData {
  const parent = store.getRun(parentId);
  const config = finetuneConfigSchema.parse(withStoredDefaults(parent.config as Record<string, unknown>));
  const children: ChildResult[] = [];
  const beds: TestBedData[] = [];
  for (const bed of testBeds(config)) {
    const base: Record<string, number[]> = {};
    for (const split of config.evaluation.splits) {
      const h = history(store, parent.id, baseKey(split, bed.primary ? null : bed.name));
      base[split] = config.seeds.map((_, i) => h.get(i) ?? NaN);
    }
    beds.push({ name: bed.name, checkpoint: bed.checkpoint, primary: bed.primary, methods: bed.methods, base });
    for (const method of bed.methods) {
      for (const seed of seedsOf(config, method)) {
        children.push(loadChild(store, parent, bed.name, childKey(method, seed, bed.primary ? null : bed.name), method, seed));
      }
    }
  }
  return { parent, config, children, beds, ...loadSearch(store, parent, config) };
}

function loadChild(store: Store, parent: RunDetail, testBed: string, key: string, method: string, seed: number): ChildResult {
  const id = parent.tags[`${CHILD_TAG_PREFIX}${key}`];
  if (!id) throw new UserError(`finetune run ${parent.id}: no child run recorded for ${key}`);
  const run = store.getRun(id);
  const curve = validationCurve(store, id);
  const childConfig = run.config as ChildConfig;
  const stepMs = [...history(store, id, 'grpo.stepMs').values()];
  const fallback = sum([...history(store, id, KEYS.fallback).values()]);
  const estimated = sum([...history(store, id, KEYS.estimated).values()]);
  return {
    key,
    testBed,
    method,
    seed,
    runId: id,
    config: childConfig,
    curve,
    final: Object.fromEntries(childConfig.evaluation.splits.map((s) => [s, lastMetric(run, KEYS.evalAvg('final', s))])),
    best: Object.fromEntries(childConfig.evaluation.splits.map((s) => [s, lastMetric(run, KEYS.evalAvg('best', s))])),
    bestStep: lastMetric(run, KEYS.bestStep),
    trainSeconds: lastMetric(run, KEYS.trainSeconds),
    stepMs: mean(stepMs),
    fallbackFraction: fallback + estimated > 0 ? fallback / (fallback + estimated) : NaN,
    diagnostics: diagnosticsOf(store, id),
  };
}
