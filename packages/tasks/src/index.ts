export type { Problem } from './problem';
export { TASK_ALPHABET } from './solution';
export { verify } from './verify';
export { sftConfig, sftExamples } from './sft';
export { readJsonl, writeJsonl } from './dataset';
export type { TaskRecord } from './dataset';
export {
  DEFAULT_DATASET_SEED,
  DEFAULT_EVAL_SPLIT,
  EVAL_SPLITS,
  SPLITS,
  buildDatasets,
  problemFromRecord,
} from './build';
export { promptTokens, tokenizeExample } from './prompt';
export type { SequenceTokenizer } from './prompt';
export { referencesById, referenceTokens } from './references';
