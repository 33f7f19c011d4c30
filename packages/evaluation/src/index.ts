export { avgAtK, passAtK, majAtK } from './estimators';
export { wilsonInterval, bootstrapMeanInterval, normalQuantile, quantileSorted } from './intervals';
export type { Interval } from './intervals';
export { aggregate } from './aggregate';
export type { ProblemSamples, MetricValue, SplitMetrics, AggregateOptions } from './aggregate';
export { evaluateSplit } from './evaluate-split';
export type { Completer, AccuracyReport } from './evaluate-split';
export { completerFromModel } from './completer';
