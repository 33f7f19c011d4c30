export type {
  Trace,
  SuffixRequest,
  ScoreJob,
  ComputeCost,
  ScoreResult,
  SampleOptions,
  SampleResult,
  LanguageModel,
  SequenceCache,
} from './types';
export { Tokenizer } from './tokenizer';
export { checkModelShape, modelShapeFields, parseModelConfig } from './config';
export type { ModelConfig } from './config';
export { Transformer, createTransformer } from './transformer';
export { tokenLogprobs } from './logprobs';
export { drawToken, validateSampleOptions } from './draw';
export { saveCheckpoint, readCheckpointHeader, checkpointHash } from './checkpoint';
export { TransformerLM } from './transformer-lm';
export { buildTrace } from './trace';
export type { TraceTokenizer } from './trace';
export { EMBEDDED_CHECKPOINT, EMBEDDED_CHECKPOINTS, bedOfCheckpoint, resolveCheckpoint } from './embedded';
export { verifyCheckpoint } from './checkpoint';
