export type { Problem } from './problem';
export { COMPOSITE_TASK_ALPHABET, TASK_ALPHABET } from './solution';
export { THINK_CLOSE, verify } from './verify';
export { SftConfigSchema, sftExamples } from './sft';
export type { SftConfig } from './sft';
export { remainingAlignment } from './alignment';
export { readJsonl, writeJsonl } from './dataset';
export type { TaskRecord } from './dataset';
export {
  COMPOSITE_SPLITS,
  DEFAULT_DATASET_SEED,
  DEFAULT_EVAL_SPLIT,
  EVAL_SPLITS,
  SPLITS,
  buildDatasets,
  compositeSplit,
  problemFromRecord,
} from './build';
export type { CompositeSplitName } from './build';
export { promptTokens, tokenizeExample } from './prompt';
export type { SequenceTokenizer } from './prompt';
export { referencesById, referenceTokens } from './references';
export { firstUncorrectedError, tokenSpanOfChars } from './step-oracle';
export { REFERENCE_REWRITES, rewriteReference } from './rewrite';
export type { ReferenceRewrite } from './rewrite';
export { ProseMixSchema, proseSftExamples } from './prose/sft';
export type { ProseMix } from './prose/sft';
export { prosePieces } from './prose/render';
export { FREE_FORM_SPLITS, buildProseDatasets } from './prose/build';
export { recordAlignment, recordFirstError, recordReachedSubgoals, recordStepLines } from './record-oracle';
export { PHRASING_BARS, phrasingVariety } from './prose/variety';
export { attemptReward, feedbackTokens } from './multi-attempt/format';
export { MultiAttemptMixSchema, multiAttemptSftExamples } from './multi-attempt/sft';
export type { MultiAttemptMix } from './multi-attempt/sft';
