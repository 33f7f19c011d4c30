import type { Trace } from '@rred/lm';
import { checkTrace, segmentsFromCuts } from './cuts';
import type { EntropyConfig } from './config';
import type { Segment } from './types';

/**
 * Top-entropy cut points: the K-1 positions t in [1, thinkEnd) with the highest policy entropy each
 * start a segment, so every exit point sits just before a high-plurality token (Sec. 3.1). Ties go
 * to the earlier position. Position 0 cannot be a cut (it would leave an empty first segment).
 */
export function entropySegments(trace: Trace, config: EntropyConfig): Segment[] {
  checkTrace(trace, ['entropies']);
  const n = trace.thinkEnd;
  const positions = Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1);
  positions.sort((a, b) => trace.entropies[b] - trace.entropies[a] || a - b);
  return segmentsFromCuts(positions.slice(0, config.maxSegments - 1), n);
}
