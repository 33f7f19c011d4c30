/**
 * The one statistics module of the repo. Library-backed where a kept library has the statistic
 * (simple-statistics: sums, means, medians, SD, quantiles, Pearson, Spearman; jstat: t and normal
 * quantiles); hand-written only what neither has, and documented as such: the seeded (cluster)
 * bootstrap, the Wilson interval, and the credit-quality statistics (Spearman–Brown, split-half
 * reliability and its ceiling, within-trace Spearman, error localization top-1; the localization AUC
 * takes its rank sum from simple-statistics).
 *
 * One convention for missing data, everywhere:
 * - no values, or fewer than the statistic needs (SD, t interval and correlations need 2) → NaN,
 *   never a silent 0 and never a throw;
 * - a NaN among the inputs → NaN (it propagates; nothing is dropped silently). A caller that must
 *   leave non-finite values out filters them itself and reports how many it left out;
 * - a correlation with a constant side → NaN (undefined), not 0.
 * Arguments that are wrong rather than missing (p outside [0, 1], unequal lengths) throw RangeError.
 */
export { sum, mean, median, sampleStandardDeviation, sampleVariance, standardDeviation, quantileSorted } from './descriptive';
export { pearson, spearman } from './correlation';
export { meanCi, medianCi, wilsonInterval, type MeanCi, type Interval } from './intervals';
export { clusterBootstrap, percentileInterval, bootstrapMeanInterval, bootstrapSdOfMean } from './bootstrap';
export { reliabilityCeiling, spearmanBrown, splitHalfReliability, withinTraceReliability } from './reliability';
export { withinTraceSpearman } from './within-trace';
export { localizationAuc, localizationTop1, type LocalizedTrace } from './localization';
export { powerLawExponent } from './power-law';
export { holm, pairedBootstrapDifference } from './paired';
