import type { Trace } from '@rred/lm';
import type { SegmentationConfig } from './config';
import { cutpointSegments } from './cutpoint';
import { entropySegments } from './entropy';
import { fixedSegments } from './fixed';
import { hybridSegments } from './hybrid';
import { keywordSegments, type TokenText } from './keyword';
import type { Segment } from './types';

/**
 * Splits a trace's thinking span [0, thinkEnd) into segments with the configured strategy. The
 * result is contiguous, non-overlapping, covers the span exactly and has at most
 * `config.maxSegments` segments; an empty span gives no segments. `tokenText` is read by the
 * keyword-based strategies only.
 */
export function segment(trace: Trace, config: SegmentationConfig, tokenText: TokenText): Segment[] {
  switch (config.strategy) {
    case 'keyword':
      return keywordSegments(trace, config, tokenText);
    case 'entropy':
      return entropySegments(trace, config);
    case 'cutpoint':
      return cutpointSegments(trace, config);
    case 'fixed':
      return fixedSegments(trace, config);
    case 'hybrid':
      return hybridSegments(trace, config, tokenText);
  }
}
