export type { Trace, SuffixRequest, ComputeCost, ScoreResult, SampleOptions, SampleResult, LanguageModel } from './types';
