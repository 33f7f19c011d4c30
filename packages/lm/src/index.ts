export type { Trace, SuffixRequest, ScoreJob, ComputeCost, ScoreResult, SampleOptions, SampleResult, LanguageModel } from './types';
export { Tokenizer } from './tokenizer';
export { parseModelConfig } from './config';
export type { ModelConfig } from './config';
export { Transformer, createTransformer } from './transformer';
export { tokenLogprobs } from './logprobs';
export { saveCheckpoint, readCheckpointHeader } from './checkpoint';
export { TransformerLM } from './transformer-lm';
export { buildTrace } from './trace';
