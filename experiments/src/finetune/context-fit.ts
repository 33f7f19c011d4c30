/**
 * RREDCoT scores every reference suffix after every exit point, so the last exit point (prompt +
 * thinking) plus the longest suffix must fit the model context (160 tokens here). A rambling rollout can
 * break that. Such a trace keeps plain GRPO weights (σ = 1/|o|, Eq. 12) instead of failing the step; the
 * hook reports how many traces that happened to, and the child run logs it per step.
 */
import { referenceFromTrace, type Reference, type SpecialTokens } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { RedistributionHook } from '@rred/training';

export type ReferenceSourceName = 'dataset' | 'own' | 'both';

/** Tokens of the longest scored suffix: `u* </think> y* <eos>` (value term) or `</think> y* <eos>` (immediate term). */
export function longestSuffix(references: readonly Reference[]): number {
  let longest = 0;
  for (const r of references) longest = Math.max(longest, r.solution.length + r.answer.length + 2);
  return longest;
}

/** The references RREDCoT would use for `trace` (a superset: maxReferences only drops some, never lengthens). */
export function candidateReferences(
  trace: Trace,
  batch: readonly Trace[],
  source: ReferenceSourceName,
  dataset: (problemId: string) => Reference[],
  tokens: SpecialTokens,
): Reference[] {
  const own = () =>
    batch.filter((t) => t.problemId === trace.problemId).map((t) => referenceFromTrace(t, tokens)).filter((r): r is Reference => r !== null);
  if (source === 'dataset') return dataset(trace.problemId);
  if (source === 'own') return own();
  return [...dataset(trace.problemId), ...own()];
}

/** Whether prompt + thinking + the longest reference suffix fits `contextLength`. */
export function fitsContext(trace: Trace, references: readonly Reference[], contextLength: number): boolean {
  return trace.prompt.length + trace.thinkEnd + longestSuffix(references) <= contextLength;
}

export interface FittedHook {
  hook: RedistributionHook;
  /** Traces (with a non-zero advantage) that fell back to uniform σ in the last call, and how many had A ≠ 0. */
  lastCall(): { fallback: number; estimated: number };
}

/**
 * Wraps an estimator hook: traces that cannot be scored within the context get advantage 0 in the
 * context passed to `inner`, which then gives them uniform σ without estimating (their real advantage
 * still scales their loss: the trainer multiplies A_i · σ_t · |o_i|, and uniform σ · |o_i| = 1).
 */
export function contextFittedHook(
  inner: RedistributionHook,
  referencesOf: (trace: Trace, batch: readonly Trace[]) => Reference[],
  contextLength: number,
): FittedHook {
  let last = { fallback: 0, estimated: 0 };
  const hook: RedistributionHook = async (traces, context) => {
    const advantages = context.advantages.map((a, i) => (a !== 0 && !fitsContext(traces[i], referencesOf(traces[i], traces), contextLength) ? 0 : a));
    const fallback = advantages.filter((a, i) => a === 0 && context.advantages[i] !== 0).length;
    last = { fallback, estimated: advantages.filter((a) => a !== 0).length };
    return inner(traces, { ...context, advantages });
  };
  return { hook, lastCall: () => last };
}
