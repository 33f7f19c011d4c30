export { Rng } from './rng';
export { UserError, HelpRequested, runMain } from './errors';
export { parseConfig, canonicalJson, seedSchema } from './config';
export { ProgressBar, formatSeconds } from './progress';
export { findRepoRoot, gitState, isTracked, repoRoot, uncommittedPaths } from './repo';
export type { GitState } from './repo';
export { parseCommandLine, CONFIG_FLAG, STORE_FLAG } from './command-line';
export type { CommandSpec, CommandLine, FlagSpec } from './command-line';
export { applyOverrides, configKeyDocs, flattenConfig, loadCommandConfig } from './config-flags';
export { readJsonFile } from './json-file';
export { resolveUserPath } from './paths';
export { yieldToEventLoop } from './yield';
export { checkOutputDir, checkOutputFile, checkReplaceableDir, replaceOutputDir, writeOutputFile } from './output-path';
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
  medianCi,
  wilsonInterval,
  clusterBootstrap,
  percentileInterval,
  bootstrapMeanInterval,
  bootstrapSdOfMean,
  spearmanBrown,
  reliabilityCeiling,
  splitHalfReliability,
  withinTraceReliability,
  withinTraceSpearman,
  localizationTop1,
  localizationAuc,
  powerLawExponent,
  holm,
  pairedBootstrapDifference,
  type MeanCi,
  type Interval,
  type LocalizedTrace,
} from './stats';
export { fmt, toCsv, toMarkdown, withFixedDigits, textTable, type Cell, type Table } from './table';
