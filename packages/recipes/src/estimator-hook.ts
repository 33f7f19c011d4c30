import type { Rng } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import { segment, type Segment, type SegmentationConfig } from '@rred/segmentation';
import {
  getEstimator,
  normalizeCredits,
  ownReferences,
  rredcotBatch,
  tokenWeights,
  type ContinuationReward,
  type EstimatorInputs,
  type EstimatorMethod,
  type EstimatorResult,
  type Normalization,
  type Reference,
  type RredcotConfigInput,
  type SpecialTokens,
} from '@rred/estimators';
import type { RedistributionHook } from '@rred/training';

interface EstimatorHookOptions {
  method: EstimatorMethod;
  /** The policy being trained, as a LanguageModel (scores / samples with the current weights). */
  model: LanguageModel;
  segmentation: SegmentationConfig;
  /** Token id → text, for keyword segmentation. */
  tokenText: (id: number) => string;
  /** The estimator's own config (validated by the estimator; for rredcot, `overlong` is set by the option below). */
  estimatorConfig: unknown;
  /**
   * rredcot only: a trace whose prompt + thinking + longest reference suffix exceeds the context.
   * 'uniform' (default) gives it plain GRPO weights 1/|o| (Eq. 12) and counts it in `lastCall().fallback`,
   * so one rambling rollout does not stop a run; 'error' fails the step. Overrides the estimator
   * config's own `overlong` (whose default, 'error', suits analyses, not training).
   */
  overlong?: 'uniform' | 'error';
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

/** What the last call of an estimator hook did with the traces that have a non-zero advantage. */
export interface RedistributionCallStats {
  /** Traces whose σ came from the estimator. */
  estimated: number;
  /** Traces that kept uniform σ (Eq. 12) because the estimator fell back (rredcot: no references, or a suffix overflowing the context). */
  fallback: number;
}

export type EstimatorHook = RedistributionHook & { lastCall(): RedistributionCallStats };

/**
 * Eq. 11 token weights from a credit estimator: segment each trace, estimate segment credits, turn
 * them into σ_k (the estimator's own σ when it has one, else `normalization`), spread them over the
 * tokens with `tokenWeights` (answer tokens keep their GRPO share). Own references are the correct,
 * finished traces of the same problem in the batch. Traces with advantage 0 get uniform σ without
 * being estimated: their loss coefficient is 0 whatever σ is.
 *
 * RREDCoT scores every trace of the batch in one batched model call (`rredcotBatch`), so its fixed
 * per-call cost is paid once per GRPO step; the other estimators run trace by trace.
 */
export function estimatorRedistribution(o: EstimatorHookOptions): EstimatorHook {
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook = async (traces: Trace[], context: { rng: Rng; advantages: number[] }): Promise<number[][]> => {
    const byProblem = new Map<string, Trace[]>();
    for (const t of traces) byProblem.set(t.problemId, [...(byProblem.get(t.problemId) ?? []), t]);
    const chosen = traces.flatMap((trace, i) => (context.advantages[i] !== 0 && trace.completion.length > 0 ? [i] : []));
    const segments = new Map<number, Segment[]>(chosen.map((i) => [i, segment(traces[i], o.segmentation, o.tokenText)]));
    const inputsOf = (trace: Trace): EstimatorInputs => ({
      tokens: o.tokens,
      references: { dataset: o.datasetReferences?.(trace.problemId), own: ownReferences(byProblem.get(trace.problemId) ?? [], o.tokens) },
      reward: o.continuationReward?.(trace.problemId),
    });

    let results: EstimatorResult<unknown>[];
    if (o.method === 'rredcot') {
      const config: RredcotConfigInput = { ...(o.estimatorConfig as RredcotConfigInput | undefined), overlong: o.overlong ?? 'uniform' };
      const items = chosen.map((i) => ({ trace: traces[i], segments: segments.get(i)!, inputs: inputsOf(traces[i]) }));
      results = await rredcotBatch(o.model, items, config);
    } else {
      const estimate = getEstimator(o.method);
      results = [];
      for (const i of chosen) {
        results.push(
          await estimate(o.model, traces[i], segments.get(i)!, inputsOf(traces[i]), o.estimatorConfig, context.rng.fork(`trace-${i}`)),
        );
      }
    }

    const out = traces.map((trace) => trace.completion.map(() => 1 / Math.max(1, trace.completion.length)));
    let fallback = 0;
    chosen.forEach((i, n) => {
      const result = results[n];
      const segs = segments.get(i)!;
      const extra = result.extra as { noReferences?: boolean; overlong?: boolean };
      if (extra.noReferences === true || extra.overlong === true) {
        fallback++; // keeps the exact 1/|o| row (tokenWeights of uniform σ_k equals it up to rounding)
        return;
      }
      const sigmaK =
        result.sigma ??
        normalizeCredits(result.credits, o.normalization ?? 'L1', { tau: o.tau ?? 1, segmentLengths: segs.map((s) => s.end - s.start) });
      out[i] = tokenWeights(traces[i], segs, sigmaK);
    });
    last = { estimated: chosen.length - fallback, fallback };
    return out;
  };
  return Object.assign(hook, { lastCall: () => last });
}
