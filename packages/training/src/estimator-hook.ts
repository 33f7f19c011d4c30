import type { Rng } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import { segment, type SegmentationConfig } from '@rred/segmentation';
import {
  getEstimator,
  normalizeCredits,
  ownReferences,
  tokenWeights,
  type ContinuationReward,
  type EstimatorMethod,
  type Normalization,
  type Reference,
  type SpecialTokens,
} from '@rred/estimators';
import type { RedistributionHook } from './grpo';

export interface EstimatorHookOptions {
  method: EstimatorMethod;
  /** The policy being trained, as a LanguageModel (scores / samples with the current weights). */
  model: LanguageModel;
  segmentation: SegmentationConfig;
  /** Token id → text, for keyword segmentation. */
  tokenText: (id: number) => string;
  /** The estimator's own config (validated by the estimator). */
  estimatorConfig: unknown;
  tokens: SpecialTokens;
  /** Dataset reference pairs (u*, y*) of a problem, for rredcot with dataset references. */
  datasetReferences?: (problemId: string) => Reference[];
  /** Verifier for MC continuations of a problem. */
  continuationReward?: (problemId: string) => ContinuationReward;
  /** How credits become σ_k when the estimator does not normalize itself (mc, loo, gradient). Default 'L1'. */
  normalization?: Normalization;
  /** Softmax temperature for normalization 'softmax'. Default 1. */
  tau?: number;
}

/**
 * Eq. 11 token weights from a credit estimator: segment each trace, estimate segment credits, turn
 * them into σ_k (the estimator's own σ when it has one, else `normalization`), spread them over the
 * tokens with `tokenWeights` (answer tokens keep their GRPO share). Own references are the correct,
 * finished traces of the same problem in the batch. Traces with advantage 0 get uniform σ without
 * being estimated: their loss coefficient is 0 whatever σ is.
 */
export function estimatorRedistribution(o: EstimatorHookOptions): RedistributionHook {
  const estimate = getEstimator(o.method);
  return async (traces: Trace[], context: { rng: Rng; advantages: number[] }) => {
    const byProblem = new Map<string, Trace[]>();
    for (const t of traces) byProblem.set(t.problemId, [...(byProblem.get(t.problemId) ?? []), t]);
    const out: number[][] = [];
    for (const [i, trace] of traces.entries()) {
      const uniform = trace.completion.map(() => 1 / Math.max(1, trace.completion.length));
      if (context.advantages[i] === 0 || trace.completion.length === 0) {
        out.push(uniform);
        continue;
      }
      const segments = segment(trace, o.segmentation, o.tokenText);
      const result = await estimate(
        o.model,
        trace,
        segments,
        {
          tokens: o.tokens,
          references: {
            dataset: o.datasetReferences?.(trace.problemId),
            own: ownReferences(byProblem.get(trace.problemId) ?? [], o.tokens),
          },
          reward: o.continuationReward?.(trace.problemId),
        },
        o.estimatorConfig,
        context.rng.fork(`trace-${i}`),
      );
      const sigmaK =
        result.sigma ??
        normalizeCredits(result.credits, o.normalization ?? 'L1', { tau: o.tau ?? 1, segmentLengths: segments.map((s) => s.end - s.start) });
      out.push(tokenWeights(trace, segments, sigmaK));
    }
    return out;
  };
}
