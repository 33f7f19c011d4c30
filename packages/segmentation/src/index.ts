export type { Segment } from './types';
