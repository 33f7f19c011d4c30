import type { SampleOptions, SampleResult } from '@rred/lm';

/**
 * One sequence to score: log p(ids[t] | ids[<t]) is wanted for every t ≥ start (1 ≤ start < ids.length).
 * A `prefill` input wants nothing back: it is a job's whole sequence, sent first so that a prefix cache
 * holds it (SGLang) and the job's suffixes cost only themselves; an adapter without a shared cache drops it.
 */
export interface ScoreInput {
  ids: number[];
  start: number;
  prefill?: boolean;
}

export interface ScoreOutput {
  /** [ids.length − start]: log p(ids[t] | ids[<t]) for t = start.. */
  logprobs: number[];
  /** Token positions the server reports it forwarded for this sequence (prompt − cached + generated). */
  forwarded: number;
}

export interface SampleCall {
  prompts: number[][];
  options: SampleOptions;
  /** The request's seed (see seed.ts for how it relates to the caller's Rng). */
  seed: number;
  /** Top-k log-probs to ask for when the server reports no exact entropies. */
  entropyTopK: number;
}

export interface SampleCallOutput {
  results: SampleResult[];
  /** Token positions the server reports it forwarded (prompt − cached + generated), summed over the prompts. */
  forwarded: number;
}

/**
 * One server API (SGLang's native /generate or the vLLM /v1/completions subset). Each method is one
 * HTTP request (with the client's retries); batching and concurrency are the RemoteLM's business.
 */
export interface Adapter {
  readonly api: 'sglang' | 'openai';
  /** The endpoint and the response fields that carry what is checked, for messages (e.g. POST URL/generate, meta_info.input_token_logprobs). */
  readonly fields: { endpoint: string; scored: string; sampledIds: string; sampled: string; entropies: string };
  score(inputs: ScoreInput[]): Promise<ScoreOutput[]>;
  sample(call: SampleCall): Promise<SampleCallOutput>;
  /** The server's tokenization of `text` without added special tokens; null when it has no tokenize endpoint. */
  tokenize(text: string): Promise<number[] | null>;
}
