import type { Trace } from '@rred/lm';
import { capCuts, checkTrace, segmentsFromCuts } from './cuts';
import type { CutpointConfig } from './config';
import type { Segment } from './types';

/**
 * Probability cut points (Segment Policy Optimization): positions t in [1, thinkEnd) whose sampled
 * token had p = exp(logprob) < τ are candidates, where the policy could have branched; the k-th,
 * 2k-th, ... candidates are kept, each starting a segment; beyond K-1 they are thinned evenly.
 */
export function cutpointSegments(trace: Trace, config: CutpointConfig): Segment[] {
  checkTrace(trace, ['logprobs']);
  const n = trace.thinkEnd;
  const logTau = Math.log(config.tau);
  const candidates: number[] = [];
  for (let t = 1; t < n; t++) if (trace.logprobs[t] < logTau) candidates.push(t);
  const kept = candidates.filter((_, i) => (i + 1) % config.keepEvery === 0);
  return segmentsFromCuts(capCuts(kept, config.maxSegments), n);
}
