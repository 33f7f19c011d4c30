export type { Segment } from './types';
export {
  CutpointConfigSchema,
  EntropyConfigSchema,
  FixedConfigSchema,
  HybridConfigSchema,
  KeywordConfigSchema,
  SEGMENTATION_STRATEGIES,
  SegmentationConfigSchema,
  segmentationConfig,
} from './config';
export type {
  CutpointConfig,
  EntropyConfig,
  FixedConfig,
  HybridConfig,
  KeywordConfig,
  SegmentationConfig,
  SegmentationStrategy,
} from './config';
export { segment } from './segment';
export { keywordCuts, keywordSegments } from './keyword';
export type { TokenText } from './keyword';
export { entropySegments } from './entropy';
export { cutpointSegments } from './cutpoint';
export { fixedSegments } from './fixed';
export { hybridSegments } from './hybrid';
export { assertExactCover, capCuts, segmentsFromCuts } from './cuts';
