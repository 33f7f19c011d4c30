/**
 * The σ of the two credit controls of the fine-tuning comparison, each a GRPO redistribution hook:
 *
 * - `sigma-shuffle`: RREDCoT's σ_1..σ_K of a trace (segmentSigma of its credits and advantage, Eq. 11
 *   steps 1–3) permuted across its thinking segments by a seeded RNG, then spread over the tokens as usual
 *   (tokenWeights; the answer keeps its GRPO share). Each trace keeps the multiset of its σ_k, so the
 *   concentration (how much of the trace's weight a few segments carry) is RREDCoT's; which segment
 *   carries it no longer depends on the credit.
 * - `signed-position`: credits (2ζ − 1)·k (signedPositionCredits, the benchmarks' free baseline) through
 *   the same σ; no model call, no references.
 *
 * A trace without credits (A = 0, or the estimator fell back) keeps uniform σ (Eq. 12), as in every hook.
 */
import { parseConfig, type Rng } from '@rred/core';
import {
  estimatorEntry,
  segmentSigma,
  sigmaConfigSchema,
  signedPositionCredits,
  tokenWeights,
  type SigmaConfigInput,
} from '@rred/estimators';
import type { SequenceCache, Trace } from '@rred/lm';
import {
  estimateCredits,
  tracesWithSignal,
  type EstimatorHook,
  type EstimatorHookOptions,
  type RedistributionCallStats,
} from '@rred/recipes';
import { segment, type SegmentationConfig } from '@rred/segmentation';

const uniformRow = (t: Trace) => t.completion.map(() => 1 / Math.max(1, t.completion.length));

/** A uniformly random permutation of σ_1..σ_K (Fisher–Yates from `rng`): the same multiset, another assignment. */
export function permuteSegmentSigma(sigma: readonly number[], rng: Rng): number[] {
  return rng.shuffle(sigma);
}

/** sigma-shuffle: RREDCoT's credits → σ_k → a seeded permutation per trace (stream `shuffle-<i>` of the step's rng) → tokens. */
export function sigmaShuffleRedistribution(o: EstimatorHookOptions): EstimatorHook {
  const sigma = parseConfig(sigmaConfigSchema, o.sigma ?? {}, 'sigma-shuffle sigma config');
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook = async (
    traces: Trace[],
    context: { rng: Rng; advantages: number[]; caches?: (SequenceCache | undefined)[] },
  ): Promise<number[][]> => {
    const credits = await estimateCredits(o, traces, tracesWithSignal(traces, context.advantages), context.rng, context.caches);
    const rows = traces.map(uniformRow);
    let fallback = 0;
    for (const [i, c] of credits) {
      if (!c) {
        fallback++;
        continue;
      }
      const lengths = c.segments.map((s) => s.end - s.start);
      const sigmaK = segmentSigma(c.credits, lengths, context.advantages[i], sigma);
      rows[i] = tokenWeights(traces[i], c.segments, permuteSegmentSigma(sigmaK, context.rng.fork(`shuffle-${i}`)));
    }
    last = { estimated: credits.size - fallback, fallback };
    return rows;
  };
  return Object.assign(hook, {
    lastCall: () => last,
    usesSamplerCache: estimatorEntry(o.method).readsSamplerCache && o.samplerCache !== false,
  });
}

interface SignedPositionOptions {
  segmentation: SegmentationConfig;
  tokenText: (id: number) => string;
  sigma?: SigmaConfigInput;
}

/** signed-position: σ from credits (2ζ − 1)·k, ζ the trace's verifier reward; never falls back. */
export function signedPositionRedistribution(o: SignedPositionOptions): EstimatorHook {
  const sigma = parseConfig(sigmaConfigSchema, o.sigma ?? {}, 'signed-position sigma config');
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook = async (traces: Trace[], context: { advantages: number[] }): Promise<number[][]> => {
    const rows = traces.map(uniformRow);
    const chosen = tracesWithSignal(traces, context.advantages);
    for (const i of chosen) {
      const segments = segment(traces[i], o.segmentation, o.tokenText);
      const credits = signedPositionCredits(segments.length, traces[i].reward);
      const sigmaK = segmentSigma(
        credits,
        segments.map((s) => s.end - s.start),
        context.advantages[i],
        sigma,
      );
      rows[i] = tokenWeights(traces[i], segments, sigmaK);
    }
    last = { estimated: chosen.length, fallback: 0 };
    return rows;
  };
  return Object.assign(hook, { lastCall: () => last });
}
