export type { SpecialTokens, Reference, ReferenceInputs, ContinuationReward, EstimatorInputs, EstimatorCost, EstimatorResult, Estimator } from './types';
export { rredcot, rredcotBatch, type RredcotExtra, type RredcotItem } from './rredcot';
export { rredcotConfigSchema, rredcotPresets, parseRredcotConfig, type RredcotConfig, type RredcotConfigInput } from './rredcot-config';
export { truncatedMc, mcConfigSchema, type McConfig, type McConfigInput, type McExtra, type ContinuationRecord } from './mc';
export { truncationLoss, type TruncationLoss } from './truncation';
export { leaveOneOut, looConfigSchema, type LooConfig, type LooConfigInput, type LooExtra } from './loo';
export { gradientAttribution, gradientConfigSchema, type GradientConfig, type GradientConfigInput, type GradientExtra } from './gradient';
export { normalizeCredits, type Normalization } from './normalize';
export { tokenWeights, type TokenWeightOptions } from './token-weights';
export { buildReferenceSet, referenceFromTrace, ownReferences, type ReferenceSource } from './references';
export { toStoreRows, type CreditRow } from './store-rows';
export { getEstimator, estimatorMethods, type EstimatorMethod } from './registry';
export { logSumExp, logAddExp } from './logspace';
// Test doubles: an exactly enumerable LanguageModel and its ground-truth values, for tests in other packages.
export { EnumerableLM, type EnumerableLMOptions } from './testing/enumerable-lm';
export { exactValue, exactAnswerReward } from './testing/enumerate';
// OPTIONAL, flagged: a value-head baseline (logistic head on frozen policy hidden states); not the paper's method.
export { transformerHiddenStates, type HiddenStateModel } from './value-head/hidden-states';
export { fitValueHead, predictValue, exitPointFeatures, valueHeadEstimate, valueHeadConfigSchema, type ValueHead, type ValueHeadConfigInput } from './value-head/value-head';
