import { Rng } from '@rred/core';
import type { SampleOptions, SampleResult, TransformerLM } from '@rred/lm';
import type { ChatConfig } from '../config';
import { scoreGrouped, type ScoreAnswer, type ScoreTask } from './score-groups';

/**
 * The served checkpoint behind both APIs. Model calls run one at a time, in arrival order (the model is
 * single-threaded anyway; this keeps memory bounded and every request's draws its own).
 */
export class ServedModel {
  private queue: Promise<unknown> = Promise.resolve();
  /** Draws the seed of a sampling request that sent none (so a seedless run is still a function of the server's --seed). */
  private readonly seedless: Rng;
  /** Token positions forwarded since the server started (scoring and sampling). */
  forwardedTotal = 0;

  constructor(
    readonly lm: TransformerLM,
    readonly name: string,
    readonly checkpointHash: string,
    readonly chat: ChatConfig,
    serverSeed: number,
  ) {
    this.seedless = new Rng(serverSeed);
  }

  get limits() {
    return { vocabSize: this.lm.vocabSize, contextLength: this.lm.maxLength };
  }

  /** Runs `fn` after the calls before it; a call whose client went away (`signal` aborted) meanwhile is skipped. */
  private serial<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const guarded = () => {
      signal?.throwIfAborted();
      return fn();
    };
    const run = this.queue.then(guarded, guarded);
    this.queue = run.catch(() => undefined);
    return run;
  }

  score(tasks: ScoreTask[], signal?: AbortSignal): Promise<ScoreAnswer[]> {
    return this.serial(async () => {
      const answers = await scoreGrouped(this.lm, tasks);
      this.forwardedTotal += answers.reduce((n, a) => n + a.forwarded, 0);
      return answers;
    }, signal);
  }

  /**
   * One batched in-process sample of all prompts with `new Rng(seed)`: a request with seed s returns
   * exactly what `lm.sample(prompts, options, new Rng(s))` returns in-process. An aborted `signal` (the
   * client went away) stops it between decode steps.
   */
  sample(prompts: number[][], options: SampleOptions, seed: number | null, signal?: AbortSignal): Promise<SampleResult[]> {
    return this.serial(async () => {
      const s = seed ?? this.seedless.nextUint32();
      const { results, cost } = await this.lm.sample(prompts, { ...options, signal }, new Rng(s));
      this.forwardedTotal += cost.tokensForwarded;
      return results;
    }, signal);
  }
}
