/**
 * Oracle credit (an upper bound for credit assignment on this task). A failed trace (A < 0)
 * whose first uncorrected wrong line the task's step oracle locates gets credit −1 on the segment
 * holding that line's first token and 0 on every other segment; every other trace with A ≠ 0 gets all
 * credits 0. The credits then go through the same `segmentSigma` as RREDCoT's, so the comparison
 * isolates the credit source: under aligned sign handling with the length prior, all-zero credits
 * give plain GRPO and the blamed segment takes the largest share of the (negative) coefficient.
 */
import { parseConfig, type Rng } from '@rred/core';
import { sigmaConfigSchema, type SigmaConfigInput } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import { segment, type SegmentationConfig } from '@rred/segmentation';
import { sigmaRows, tracesWithSignal, type EstimatorHook, type RedistributionCallStats, type TraceCredits } from './estimator-hook';

interface OracleHookOptions {
  segmentation: SegmentationConfig;
  tokenText: (id: number) => string;
  /** Completion index of the first token of the trace's first uncorrected wrong line, or null (no error located). */
  firstError: (trace: Trace) => number | null;
  sigma?: SigmaConfigInput;
}

/** `lastCall().fallback` counts the failed traces whose error the oracle did not locate (they keep GRPO's σ). */
export function oracleRedistribution(o: OracleHookOptions): EstimatorHook {
  const sigma = parseConfig(sigmaConfigSchema, o.sigma ?? {}, 'oracle sigma config');
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook = async (traces: Trace[], context: { rng: Rng; advantages: number[] }): Promise<number[][]> => {
    const credits = new Map<number, TraceCredits>();
    let unlocated = 0;
    for (const i of tracesWithSignal(traces, context.advantages)) {
      const segments = segment(traces[i], o.segmentation, o.tokenText);
      const values = segments.map(() => 0);
      if (context.advantages[i] < 0) {
        const at = o.firstError(traces[i]);
        const k = at === null ? -1 : segments.findIndex((s) => s.start <= at && at < s.end);
        if (k >= 0) values[k] = -1;
        else unlocated++;
      }
      credits.set(i, { segments, credits: values });
    }
    const { rows, stats } = sigmaRows(traces, credits, context.advantages, sigma);
    last = { estimated: stats.estimated - unlocated, fallback: unlocated };
    return rows;
  };
  return Object.assign(hook, { lastCall: () => last });
}
