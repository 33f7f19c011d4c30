/**
 * Shared shapes of the estimators: every method maps (model, trace, segments, inputs, config, rng?)
 * to one `EstimatorResult`, so experiments can swap methods by name and compare them row by row.
 */
import type { Rng } from '@rred/core';
import type { ComputeCost, LanguageModel, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';

/** Token ids the estimators need to build suffixes and recognise the end of a continuation. */
export interface SpecialTokens {
  /** Id of `</think>`: ends the thinking span u and starts the answer y. */
  endThink: number;
  /** Id of `<eos>`: ends the answer; including it makes p(y* | s) the probability of exactly y*. */
  eos: number;
  /** Id of the line break that separates reference lines: the value term's start rules ('bestStart', 'softStart') split references at it. */
  newline?: number;
}

/**
 * One reference pair (u*, y*) with utility ζ > 0 (Eq. 9). Tokens only: `solution` is the thinking
 * path without `<think>`/`</think>`, `answer` the answer tokens without `</think>` and `<eos>`.
 */
export interface Reference {
  solution: number[];
  answer: number[];
}

/** Where reference pairs can come from (Sec. 3.2): the dataset's solutions, the model's own correct samples. */
export interface ReferenceInputs {
  dataset?: Reference[];
  own?: Reference[];
}

/**
 * Outcome utility ζ of one sampled continuation (thinking rest, `</think>`, answer, `<eos>`), in [0, 1].
 * `stopped` is false when the continuation hit the token limit; the MC estimator scores those 0 anyway.
 */
export type ContinuationReward = (continuation: number[], stopped: boolean) => number;

/**
 * The task's subgoal alignment (paper Sec. 3.2.0.1): given the thinking tokens of an exit point and a
 * reference solution, the part of the reference whose subgoals the thinking has not reached yet (its
 * tokens; empty when all are reached). The estimator only appends it; the task decides what "reached" is.
 */
export type ReferenceAlignment = (thinkingSoFar: readonly number[], referenceSolution: readonly number[]) => number[];

/** Everything an estimator may need besides the model, trace, segments and its config. */
export interface EstimatorInputs {
  tokens: SpecialTokens;
  /** RREDCoT only: the reference pairs to build R from (`referenceSource` picks which). */
  references?: ReferenceInputs;
  /** RREDCoT with valueSuffix 'remaining' only: the task's alignment of a trace prefix with a reference. */
  alignment?: ReferenceAlignment;
  /** Truncated MC only: the verifier applied to each sampled continuation. */
  reward?: ContinuationReward;
}

/** Why an estimator returned a uniform fallback instead of credits (`EstimatorResult.fallback`). */
export type EstimatorFallback = 'noReferences' | 'overlong';

/** Model compute plus wall-clock time of one estimator call on one trace. */
export interface EstimatorCost extends ComputeCost {
  wallMs: number;
}

export interface EstimatorResult<Extra = Record<string, unknown>> {
  /** Method name as stored ('rredcot', 'mc', 'loo', 'gradient'). */
  method: string;
  /** Credit r_k of segment k, k = 1..K (index k-1). */
  credits: number[];
  /** v(s_k) for exit points k = 0..K (length K+1), in probability units, when the method estimates values. */
  values?: number[];
  /** Segment weights σ_k, k = 1..K, as the method reports them without an advantage (see `reportedSigmaConfig` in sigma.ts), when it produces them. */
  sigma?: number[];
  /**
   * Set when the method could not score the trace and returned NaN credits with uniform σ (Eq. 12) instead
   * of failing: 'noReferences' (RREDCoT: R was empty), 'overlong' (RREDCoT: a reference suffix did not fit the context).
   */
  fallback?: EstimatorFallback;
  /** Method-specific records (log terms, per-continuation MC records, raw norms...). */
  extra: Extra;
  cost: EstimatorCost;
}

export type Estimator<Extra = Record<string, unknown>> = (
  model: LanguageModel,
  trace: Trace,
  segments: Segment[],
  inputs: EstimatorInputs,
  config: unknown,
  rng?: Rng,
) => Promise<EstimatorResult<Extra>>;
