export { avgAtK, passAtK, majAtK } from './estimators';
export { wilsonInterval, bootstrapMeanInterval, normalQuantile, quantileSorted } from './intervals';
export type { Interval } from './intervals';
export { aggregate } from './aggregate';
export type { ProblemSamples, MetricValue, SplitMetrics, AggregateOptions } from './aggregate';
