export { Rng } from './rng';
export { UserError, HelpRequested, runMain } from './errors';
export { parseConfig, canonicalJson, formatValue, seedSchema } from './config';
export { ProgressBar, formatSeconds } from './progress';
export { findRepoRoot, gitState, repoRoot, uncommittedPaths } from './repo';
export type { GitState } from './repo';
export { parseCommandLine, parseOverrideValue, commandHelp, CONFIG_FLAG, STORE_FLAG } from './command-line';
export type { CommandSpec, CommandLine, ConfigFlags, ConfigKeyDoc, FlagSpec, FlagValues } from './command-line';
export { applyOverrides, configKeyDocs, flattenConfig, loadCommandConfig, setPath } from './config-flags';
export { readJsonFile, parseJsonText } from './json-file';
export { resolveUserPath } from './paths';
export { writeFileAtomic } from './atomic-write';
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
