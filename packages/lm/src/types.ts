/**
 * The contracts shared by the model, the segmenters and the estimators. The estimators depend only
 * on `LanguageModel`, so they can be tested against tiny enumerable models as well as the real
 * transformer.
 */
import type { Rng } from '@rred/core';

/**
 * One rollout, carried unchanged through every stage (sample → segment → estimate → train/store).
 * Token positions below are indices into `completion`, the tokens generated after the prompt.
 */
export interface Trace {
  /** Id of the dataset problem this trace answers. */
  problemId: string;
  /** Prompt tokens x, ending with the `<think>` token. */
  prompt: number[];
  /** Generated tokens: thinking u, then `</think>`, the answer y and (when it stopped) `<eos>`. */
  completion: number[];
  /** log p(completion[t] | prompt, completion[<t]) under the sampling policy (at temperature 1 unless noted). */
  logprobs: number[];
  /** Entropy (nats) of the policy's distribution at each completion position. */
  entropies: number[];
  /**
   * Index in `completion` of the `</think>` token; the thinking span is [0, thinkEnd).
   * Equals completion.length when the model never closed its thinking.
   */
  thinkEnd: number;
  /** Decoded answer text after `</think>` (null when absent). */
  answer: string | null;
  /** Verifier outcome ζ ∈ {0, 1}. */
  reward: number;
  /** Full decoded completion text, for reading and for the store. */
  text: string;
}

/** A suffix scored after the first `exitAt` tokens of a shared sequence. */
export interface SuffixRequest {
  /** Number of tokens of the shared sequence that form this suffix's prefix (1..sequence.length). */
  exitAt: number;
  /** Tokens whose log-probabilities are wanted, in order, right after that prefix. */
  suffix: number[];
}

/**
 * The cache handoff (optional on both sides): what a model kept of one sampled row when asked with
 * `SampleOptions.keepCache` — for the transformer, every layer's K/V of the row's fed positions and
 * the next-token logits it sampled from. Opaque: only the model that made it reads it, in `scoreBatch`
 * (`ScoreJob.cache`), which then forwards only the suffixes (cost Σ |suffix|) instead of the sequence
 * again. A model that cannot keep a cache (e.g. a remote one) returns none, and one that cannot use a
 * cache ignores it: results are the same either way (to float32 rounding), only the cost differs.
 */
export interface SequenceCache {
  /** Tokens it covers from position 0: the prompt and every generated token but the last (never fed back). */
  readonly length: number;
  /** Frees its memory; idempotent. Whoever asked for the cache releases it (scoring does not); a released cache is ignored. */
  release(): void;
}

/** Suffixes to score after prefixes of one sequence: one unit of `LanguageModel.scoreBatch`. */
export interface ScoreJob {
  sequence: number[];
  requests: SuffixRequest[];
  /**
   * The sampler's cache of `sequence` (optional). Used when it is this model's, unreleased, its tokens
   * are `sequence`'s first tokens and it covers every request's prefix (sampled positions: exitAt ≥ the
   * prompt length, ≤ cache length); otherwise the job is scored as without it.
   */
  cache?: SequenceCache;
}

/** What a model call cost: the units the bench and the estimator cost records report. */
export interface ComputeCost {
  /**
   * Token positions pushed through the network (prefix and suffix positions both count; for sampling,
   * the fed-back generated tokens too). The total compute in token-forwards: never add tokensGenerated to it.
   */
  tokensForwarded: number;
  /** Tokens sampled autoregressively (a count of outputs, not extra compute: their forwards are in tokensForwarded). */
  tokensGenerated: number;
  /** Separate network invocations (one batched call counts once). */
  forwardPasses: number;
  /** Token positions a backward pass went through (gradient attribution only; ≈ 2× a forward each). */
  tokensBackpropagated?: number;
}

export interface ScoreResult {
  /** logprobs[i][j] = log p(suffix_i[j] | sequence[<exitAt_i], suffix_i[<j]). */
  logprobs: number[][];
  cost: ComputeCost;
}

export interface SampleOptions {
  temperature: number;
  /** Nucleus mass in (0, 1]; 1 disables top-p. */
  topP: number;
  maxNewTokens: number;
  /** Generation stops after this token id (normally `<eos>`). */
  stopToken: number;
  /**
   * Keep each finished row's cache for the caller (`SampleResult.cache`, to hand to `scoreBatch`); the
   * caller must `release()` it. Default false. A model that cannot keep caches ignores it. Never changes the draws.
   */
  keepCache?: boolean;
  /**
   * Stops the sampling when aborted (a server whose client went away): checked before each decode step,
   * after a turn of the event loop so that a closed socket is seen; an aborted sample rejects with the
   * signal's reason. Never changes the draws of a sample that is not aborted.
   */
  signal?: AbortSignal;
}

export interface SampleResult {
  /** Sampled tokens (including the stop token when reached). */
  tokens: number[];
  /** log p of each sampled token under the temperature-1 distribution of the model. */
  logprobs: number[];
  /** Entropy (nats) of the temperature-1 distribution at each sampled position. */
  entropies: number[];
  /** True when generation ended at maxNewTokens without the stop token. */
  truncated: boolean;
  /** The row's cache when sampled with `keepCache` by a model that keeps caches (release it). */
  cache?: SequenceCache;
}

/** The interface every estimator uses. The transformer implements it; tests implement toy versions. */
export interface LanguageModel {
  readonly vocabSize: number;
  /** Longest sequence (prompt + completion) the model accepts. */
  readonly maxLength: number;
  /**
   * Scores many suffixes after many prefixes of one shared sequence in one batch: one forward over
   * `sequence` fills a KV cache, then all suffixes are forwarded together against the cached prefix
   * positions they may see. Cost: sequence.length + Σ |suffix| token-forwards.
   */
  scoreAfterPrefixes(sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult>;
  /**
   * `scoreAfterPrefixes` for several sequences in one batched call (e.g. all traces of a GRPO batch),
   * so the fixed per-call cost is paid once. Results are in job order; each job's cost counts its own
   * tokens, and `forwardPasses` the batched passes it took part in. A job whose `cache` the model uses
   * costs Σ |suffix| (its sequence is not forwarded again).
   */
  scoreBatch(jobs: ScoreJob[]): Promise<ScoreResult[]>;
  /**
   * Samples one continuation per prompt, all prompts batched, with a KV cache. Identical prompts
   * share one prefill (n samples from one exit point forward its prefix once). Draws depend only on
   * the rng, the prompts and their order, never on which prompts are shared. Cost: tokensForwarded =
   * Σ |distinct prompt| + one position per unfinished row per decode step (Σ (generated − 1)), so the
   * generated tokens are already inside it (`tokensGenerated` repeats them, do not add the two).
   */
  sample(prompts: number[][], options: SampleOptions, rng: Rng): Promise<{ results: SampleResult[]; cost: ComputeCost }>;
  /**
   * For each position t of `sequence`, ‖∂ Σ_{t' ≥ targetFrom} log p(sequence[t'] | sequence[<t']) / ∂ e_t‖₁,
   * where e_t is the input embedding at t (token + position).
   */
  embeddingGradientNorms(sequence: number[], targetFrom: number): Promise<{ norms: number[]; cost: ComputeCost }>;
}
