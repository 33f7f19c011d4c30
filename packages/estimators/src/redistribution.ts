/**
 * Per-token redistribution weights σ_t for a batch of traces (Eq. 11), ready for a GRPO trainer's
 * redistribution hook `(traces, { step, rng }) => Promise<number[][]>`. For every trace: segment it,
 * run the chosen estimator, turn its credits into segment weights σ_k (RREDCoT has its own; MC, LOO and
 * gradient credits are normalized here) and spread them over the tokens (token-weights.ts).
 */
import type { Rng } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { exitPoints } from './exit-points';
import { normalizeCredits, type Normalization } from './normalize';
import { getEstimator, type EstimatorMethod } from './registry';
import { tokenWeights } from './token-weights';
import type { EstimatorInputs, EstimatorResult } from './types';

export interface TokenRedistributionSetup {
  model: LanguageModel;
  method: EstimatorMethod;
  /** The estimator's own config (validated by it). For 'rredcot' its `normalization` gives σ. */
  estimatorConfig?: unknown;
  /** σ_k from credits for methods without their own weights (mc, loo, gradient). Default 'L1' (Sec. 4). */
  normalization?: Normalization;
  /** Softmax temperature when normalization = 'softmax'. Default 1. */
  tau?: number;
  /** Segments of a trace's thinking span (e.g. `(t) => segment(t, config, tokenText)`). */
  segment: (trace: Trace) => Segment[];
  /**
   * Estimator inputs of one trace; gets the whole batch so "own" references can come from the trace's
   * group, e.g. `references: { own: ownReferences(batch.filter((t) => t.problemId === trace.problemId), tokens) }`.
   */
  inputs: (trace: Trace, batch: readonly Trace[]) => EstimatorInputs;
  /** Called with every estimate (to store rows or log σ statistics). */
  onResult?: (trace: Trace, segments: Segment[], result: EstimatorResult<unknown>) => void;
}

export function tokenRedistribution(setup: TokenRedistributionSetup): (traces: Trace[], context: { step: number; rng: Rng }) => Promise<number[][]> {
  const estimate = getEstimator(setup.method);
  return async (traces, { step, rng }) => {
    const out: number[][] = [];
    for (const [i, trace] of traces.entries()) {
      const segments = setup.segment(trace);
      const inputs = setup.inputs(trace, traces);
      const result = await estimate(setup.model, trace, segments, inputs, setup.estimatorConfig ?? {}, rng.fork(`redistribute-${step}-${i}`));
      setup.onResult?.(trace, segments, result);
      const sigma =
        result.sigma ??
        normalizeCredits(result.credits, setup.normalization ?? 'L1', {
          tau: setup.tau ?? 1,
          segmentLengths: exitPoints(trace, segments, inputs.tokens).segmentLengths,
        });
      out.push(tokenWeights(trace, segments, sigma));
    }
    return out;
  };
}
