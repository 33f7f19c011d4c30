export type { SpecialTokens, Reference, ContinuationReward, EstimatorInputs, EstimatorResult } from './types';
export { rredcot, rredcotBatch } from './rredcot';
export {
  rredcotConfigSchema,
  rredcotPresets,
  parseRredcotConfig,
  termsLabel,
  type RredcotConfig,
  type RredcotConfigInput,
} from './rredcot-config';
export { truncatedMc, mcConfigSchema, type McConfig, type McExtra, type ContinuationRecord } from './mc';
export { truncationLoss } from './truncation';
export { leaveOneOut, looConfigSchema } from './loo';
export { gradientAttribution, gradientConfigSchema } from './gradient';
export {
  sigmaConfigSchema,
  returnEquivalent,
  segmentSigma,
  tokenWeights,
  traceSigma,
  type SigmaConfig,
  type SigmaConfigInput,
} from './sigma';
export { signedPositionCredits } from './position-credit';
export { buildReferenceSet, ownReferences, referencesFit } from './references';
export { toStoreRows } from './store-rows';
export { estimatorEntry, estimatorMethods, getEstimator, type EstimatorMethod } from './registry';
