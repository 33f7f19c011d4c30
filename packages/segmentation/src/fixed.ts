import type { Trace } from '@rred/lm';
import { checkTrace, segmentsFromCuts } from './cuts';
import type { FixedConfig } from './config';
import type { Segment } from './types';

/** Segments of `segmentLength` tokens (the last may be shorter); the length grows to ceil(T/K) when needed to keep ≤ K. */
export function fixedSegments(trace: Trace, config: FixedConfig): Segment[] {
  checkTrace(trace);
  const n = trace.thinkEnd;
  const length = Math.max(config.segmentLength, Math.ceil(n / config.maxSegments));
  const cuts: number[] = [];
  for (let c = length; c < n; c += length) cuts.push(c);
  return segmentsFromCuts(cuts, n);
}
