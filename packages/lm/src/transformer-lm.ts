import type { Rng } from '@rred/core';
import { UserError } from '@rred/core';
import { loadCheckpoint } from './checkpoint';
import { embeddingGradientNorms } from './gradients';
import { sampleNoCache, sampleWithCache, type SampleOutput } from './sampler';
import { naiveScore, scoreAfterPrefixes, scoreBatch, type ScoreOptions } from './scorer';
import type { Tokenizer } from './tokenizer';
import type { Transformer } from './transformer';
import type { ComputeCost, LanguageModel, SampleOptions, ScoreJob, ScoreResult, SuffixRequest } from './types';

/**
 * The transformer and its tokenizer behind the `LanguageModel` interface the estimators, trainers
 * and evaluators use. It reads the transformer's variables at call time, so it always reflects the
 * current weights during training.
 */
export class TransformerLM implements LanguageModel {
  readonly vocabSize: number;
  readonly maxLength: number;

  constructor(
    readonly transformer: Transformer,
    readonly tokenizer: Tokenizer,
    private readonly scoreOptions: ScoreOptions = {},
  ) {
    if (tokenizer.vocabSize !== transformer.config.vocabSize) {
      throw new UserError(
        `TransformerLM: tokenizer has ${tokenizer.vocabSize} tokens but the model's vocabSize is ${transformer.config.vocabSize}`,
      );
    }
    this.vocabSize = transformer.config.vocabSize;
    this.maxLength = transformer.config.contextLength;
  }

  /** Loads a checkpoint file (see saveCheckpoint) as a ready model. */
  static fromCheckpoint(file: string, scoreOptions: ScoreOptions = {}): TransformerLM {
    const { transformer, tokenizer } = loadCheckpoint(file);
    return new TransformerLM(transformer, tokenizer, scoreOptions);
  }

  /** Batched sampling with a KV cache (see sampleWithCache). */
  sample(prompts: number[][], options: SampleOptions, rng: Rng): Promise<SampleOutput> {
    return sampleWithCache(this.transformer, prompts, options, rng);
  }

  /** Same draws as `sample`, recomputing the full forward each step (tests, cost bench). */
  sampleNoCache(prompts: number[][], options: SampleOptions, rng: Rng): Promise<SampleOutput> {
    return sampleNoCache(this.transformer, prompts, options, rng);
  }

  scoreAfterPrefixes(sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult> {
    return scoreAfterPrefixes(this.transformer, sequence, requests, this.scoreOptions);
  }

  scoreBatch(jobs: ScoreJob[]): Promise<ScoreResult[]> {
    return scoreBatch(this.transformer, jobs, this.scoreOptions);
  }

  /** Every request forwarded from scratch (tests, cost bench). */
  naiveScore(sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult> {
    return naiveScore(this.transformer, sequence, requests);
  }

  embeddingGradientNorms(sequence: number[], targetFrom: number): Promise<{ norms: number[]; cost: ComputeCost }> {
    return embeddingGradientNorms(this.transformer, sequence, targetFrom);
  }

  dispose(): void {
    this.transformer.dispose();
  }
}
