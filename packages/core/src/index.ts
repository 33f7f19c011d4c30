export { Rng } from './rng';
export { UserError, runMain } from './errors';
export { writeFileAtomic } from './atomic-write';
export { parseConfig, canonicalJson } from './config';
export { ProgressBar, formatSeconds } from './progress';
export { findRepoRoot, gitState, repoRoot, uncommittedPaths } from './repo';
export type { GitState } from './repo';
export {
  sum,
  mean,
  median,
  sampleStandardDeviation,
  sampleVariance,
  standardDeviation,
  quantileSorted,
  pearson,
  spearman,
  meanCi,
  wilsonInterval,
  clusterBootstrap,
  percentileInterval,
  bootstrapMeanInterval,
  bootstrapSdOfMean,
  type MeanCi,
  type Interval,
} from './stats';
export { fmt, toCsv, toMarkdown, withFixedDigits, textTable, type Cell, type Table } from './table';
