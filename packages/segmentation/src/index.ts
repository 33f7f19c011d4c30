export type { Segment } from './types';
export { SegmentationConfigSchema, segmentationConfig } from './config';
export type { SegmentationConfig } from './config';
export { segment } from './segment';
