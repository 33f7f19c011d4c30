import type { Trace } from '@rred/lm';
import { checkTrace, segmentsFromCuts } from './cuts';
import type { HybridConfig } from './config';
import { keywordCuts, type TokenText } from './keyword';
import type { Segment } from './types';

/**
 * Hybrid keyword-entropy segmentation (paper Sec. 3.1): split on keywords (all keyword cuts, no
 * cap), then repeatedly merge the adjacent pair of segments with the lowest combined entropy until
 * at most K segments remain. Combined entropy of segments A, B (adjacent, A first):
 *   'pair-sum':  Σ_{t ∈ A ∪ B} H_t — the summed policy entropy (nats) of all their tokens, so short,
 *                predictable pieces merge first and segments even out;
 *   'boundary':  H_{start(B)} — the entropy of the token right after the exit point the merge removes,
 *                so the exit points that survive are the highest-plurality ones.
 * Ties merge the leftmost pair. Deterministic.
 */
export function hybridSegments(trace: Trace, config: HybridConfig, tokenText: TokenText): Segment[] {
  checkTrace(trace, ['entropies']);
  const segments = segmentsFromCuts(keywordCuts(trace, config, tokenText), trace.thinkEnd);
  const entropySum = (s: Segment): number => {
    let total = 0;
    for (let t = s.start; t < s.end; t++) total += trace.entropies[t];
    return total;
  };
  const sums = segments.map(entropySum);
  while (segments.length > config.maxSegments) {
    let best = 0;
    let bestScore = Infinity;
    for (let i = 0; i + 1 < segments.length; i++) {
      const score = config.mergeBy === 'pair-sum' ? sums[i] + sums[i + 1] : trace.entropies[segments[i + 1].start];
      if (score < bestScore) {
        bestScore = score;
        best = i;
      }
    }
    segments.splice(best, 2, { start: segments[best].start, end: segments[best + 1].end });
    sums.splice(best, 2, sums[best] + sums[best + 1]);
  }
  return segments;
}
