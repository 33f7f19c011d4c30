import { parseConfig, type Rng } from '@rred/core';
import type { LanguageModel, SequenceCache, Trace } from '@rred/lm';
import { segment, type Segment, type SegmentationConfig } from '@rred/segmentation';
import {
  estimatorEntry,
  ownReferences,
  sigmaConfigSchema,
  traceSigma,
  type ContinuationReward,
  type EstimatorInputs,
  type EstimatorMethod,
  type Reference,
  type SigmaConfig,
  type SigmaConfigInput,
  type SpecialTokens,
} from '@rred/estimators';
import type { RedistributionHook } from '@rred/training';

export interface EstimatorHookOptions {
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
  /** The task's subgoal alignment, for rredcot with valueSuffix 'remaining'. */
  alignment?: EstimatorInputs['alignment'];
  /**
   * How credits r_k and the advantage A_i become σ_k (`sigmaConfigSchema`: sign handling, normalization,
   * standardization, τ). Used for every estimator; the estimator config's own `normalization` only shapes
   * the σ the estimator reports to analyses. Default: aligned, softmax over standardized credits, τ = 1, length prior.
   */
  sigma?: SigmaConfigInput;
  /**
   * rredcot only: score from the sampler's caches (the cache handoff, `RedistributionHook.usesSamplerCache`):
   * the trainer keeps each row's K/V until this hook returns and RREDCoT forwards only its suffixes
   * (Σ |suffix| per trace instead of T + Σ |suffix|; same credits to float32 rounding). Default true.
   */
  samplerCache?: boolean;
}

/** What the last call of an estimator hook did with the traces that have a non-zero advantage. */
export interface RedistributionCallStats {
  /** Traces whose σ came from the estimator. */
  estimated: number;
  /** Traces that kept uniform σ (Eq. 12) because the estimator fell back (rredcot: no references, or a suffix overflowing the context). */
  fallback: number;
  /** Token positions the estimator forwarded for the estimated traces (rredcot with the sampler's caches: Σ |suffix|); hooks that do not count leave it out. */
  tokensForwarded?: number;
}

export type EstimatorHook = RedistributionHook & { lastCall(): RedistributionCallStats };

/** Segments and credits r_1..r_K of one trace, or null when the estimator could not score it (uniform σ). */
export type TraceCredits = { segments: Segment[]; credits: number[]; /** the estimator's cost */ tokensForwarded?: number } | null;

/**
 * Segment credits of the traces `chosen` (indices into `traces`): segment each, then estimate through
 * the registry's `estimateMany` (RREDCoT scores every chosen trace in one batched model call, so its
 * fixed per-call cost is paid once per GRPO step; the others run trace by trace, trace i with the stream
 * `trace-<i>`). Own references are the correct, finished traces of the same problem in the batch. A
 * trace the estimator cannot score (RREDCoT: no references, or a suffix over the context with `overlong`
 * 'uniform') is null. `caches[i]`: trace i's sampler cache (the cache handoff), for an estimator that reads it.
 */
export async function estimateCredits(
  o: EstimatorHookOptions,
  traces: Trace[],
  chosen: number[],
  rng: Rng,
  caches?: (SequenceCache | undefined)[],
): Promise<Map<number, TraceCredits>> {
  const byProblem = new Map<string, Trace[]>();
  for (const t of traces) byProblem.set(t.problemId, [...(byProblem.get(t.problemId) ?? []), t]);
  const segments = new Map<number, Segment[]>(chosen.map((i) => [i, segment(traces[i], o.segmentation, o.tokenText)]));
  const inputsOf = (trace: Trace): EstimatorInputs => ({
    tokens: o.tokens,
    references: { dataset: o.datasetReferences?.(trace.problemId), own: ownReferences(byProblem.get(trace.problemId) ?? [], o.tokens) },
    reward: o.continuationReward?.(trace.problemId),
    alignment: o.alignment,
  });
  const entry = estimatorEntry(o.method);
  const items = chosen.map((i) => {
    const cache = entry.readsSamplerCache ? caches?.[i] : undefined;
    return {
      trace: traces[i],
      segments: segments.get(i)!,
      inputs: inputsOf(traces[i]),
      rng: rng.fork(`trace-${i}`),
      ...(cache ? { cache } : {}),
    };
  });
  const results = await entry.estimateMany(o.model, items, o.estimatorConfig, { overlong: o.overlong ?? 'uniform' });
  // a trace the estimator fell back on (EstimatorResult.fallback) has no credits: it keeps uniform σ
  return new Map(
    chosen.map((i, n) => {
      const r = results[n];
      return [i, r.fallback ? null : { segments: segments.get(i)!, credits: r.credits, tokensForwarded: r.cost.tokensForwarded }];
    }),
  );
}

/**
 * σ rows of a batch from per-trace credits: uniform 1/|o| for every trace without credits (A = 0, or
 * the credit source fell back), else `traceSigma` of its credits and advantage (estimators/src/sigma.ts).
 * Shared by every credit-based hook.
 */
export function sigmaRows(
  traces: Trace[],
  credits: Map<number, TraceCredits>,
  advantages: number[],
  sigma: SigmaConfig,
): { rows: number[][]; stats: RedistributionCallStats } {
  const rows = traces.map((trace) => trace.completion.map(() => 1 / Math.max(1, trace.completion.length)));
  let fallback = 0;
  let tokensForwarded = 0;
  for (const [i, c] of credits) {
    if (!c) {
      fallback++; // keeps the exact 1/|o| row (tokenWeights of uniform σ_k equals it up to rounding)
      continue;
    }
    rows[i] = traceSigma(traces[i], c.segments, c.credits, advantages[i], sigma);
    tokensForwarded += c.tokensForwarded ?? 0;
  }
  return { rows, stats: { estimated: credits.size - fallback, fallback, tokensForwarded } };
}

/** The traces whose σ matters: A ≠ 0 and a non-empty completion (A = 0 gets no gradient whatever σ is). */
export function tracesWithSignal(traces: Trace[], advantages: number[]): number[] {
  return traces.flatMap((trace, i) => (advantages[i] !== 0 && trace.completion.length > 0 ? [i] : []));
}

/**
 * Token weights σ from a credit estimator, composed: segment each trace with A ≠ 0, estimate segment
 * credits (`estimateCredits`), then σ per token from them and the trace's advantage (`sigmaRows`; σ
 * itself: see estimators/src/sigma.ts).
 */
export function estimatorRedistribution(o: EstimatorHookOptions): EstimatorHook {
  const sigmaConfig = parseConfig(sigmaConfigSchema, o.sigma ?? {}, 'redistribution sigma config');
  let last: RedistributionCallStats = { estimated: 0, fallback: 0, tokensForwarded: 0 };
  const hook = async (
    traces: Trace[],
    context: { rng: Rng; advantages: number[]; caches?: (SequenceCache | undefined)[] },
  ): Promise<number[][]> => {
    const credits = await estimateCredits(o, traces, tracesWithSignal(traces, context.advantages), context.rng, context.caches);
    const { rows, stats } = sigmaRows(traces, credits, context.advantages, sigmaConfig);
    last = stats;
    return rows;
  };
  return Object.assign(hook, {
    lastCall: () => last,
    usesSamplerCache: estimatorEntry(o.method).readsSamplerCache && o.samplerCache !== false,
  });
}
