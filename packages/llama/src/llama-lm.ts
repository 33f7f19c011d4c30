import * as fs from 'node:fs';
import { z } from 'zod';
import { parseConfig, UserError, type Rng } from '@rred/core';
import {
  drawToken,
  validateSampleOptions,
  type ComputeCost,
  type LanguageModel,
  type SampleOptions,
  type SampleResult,
  type ScoreJob,
  type ScoreResult,
  type SuffixRequest,
} from '@rred/lm';
import { LlamaWorker, type LoadedModel } from './worker-client';

const llamaConfigSchema = z
  .object({
    modelPath: z.string().min(1).describe('The GGUF file to load. Required.'),
    threads: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        'CPU threads of the llama.cpp context. On the 2-core test machine a single-token decode (sampling, short ' +
          'suffixes) took 0.23 ms at 1 thread and 17 ms at 2; long prefills gain from more (the bench measures both).',
      ),
    kvCache: z
      .enum(['f32', 'f16'])
      .default('f32')
      .describe("KV cache precision ('f16', llama.cpp's own choice, adds ≈ 1e-3 to the log-prob gap)."),
    contextSize: z
      .number()
      .int()
      .min(2)
      .optional()
      .describe("Tokens the context holds. Unset: the model's training context (a lab export: its position table)."),
  })
  .strict();

type LlamaConfig = z.infer<typeof llamaConfigSchema>;

const zeroCost = (): ComputeCost => ({ tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 });

/**
 * A LanguageModel on llama.cpp (node-llama-cpp, CPU), for GGUF files: a real model a user downloads,
 * or a lab checkpoint exported with `rred export-gguf`. One context, one sequence, calls one after another.
 *  - score: per job, the whole sequence once (T positions; its next-token distributions give every
 *    request's first suffix token), then the requests by exitAt descending: the KV cache is cut back to
 *    exitAt and the suffix evaluated after it, so a job costs T + Σ|suffix| positions, as in-process.
 *  - sample: each row's prompt evaluated (or its already-cached prefix kept: rows of one prompt share
 *    one prefill), then one position per generated token; draws by `drawToken` on llama.cpp's
 *    probabilities with the caller's Rng (temperature, top-p, temperature-1 log-probs and entropies).
 *  - gradient attribution is refused: the engine gives no gradients.
 * `tokensEvaluated` counts every position pushed through llama.cpp since load.
 */
export class LlamaLM implements LanguageModel {
  readonly vocabSize: number;
  readonly maxLength: number;
  tokensEvaluated = 0;
  /** Tokens the llama.cpp sequence holds now (its KV cache), to reuse a shared prefix between rows. */
  private held: number[] = [];
  /** The last prompt sampled from and its next-token distribution (rows of one prompt share its prefill). */
  private promptMemo: { prompt: number[]; dist: Float32Array } | null = null;

  private constructor(
    readonly config: LlamaConfig,
    readonly info: LoadedModel,
    private readonly worker: LlamaWorker,
  ) {
    this.vocabSize = info.vocabSize;
    this.maxLength = info.contextSize;
  }

  /** Starts the worker, loads the binding and the model. A binding that cannot load is a one-line UserError. */
  static async load(options: unknown): Promise<LlamaLM> {
    const config = parseConfig(llamaConfigSchema, options, 'llama config');
    if (!fs.existsSync(config.modelPath)) throw new UserError(`llama config.modelPath: ${config.modelPath}: file not found`);
    const worker = new LlamaWorker();
    try {
      const info = await worker.load({
        modelPath: config.modelPath,
        threads: config.threads,
        contextSize: config.contextSize,
        kvCacheType: config.kvCache === 'f32' ? 'F32' : 'F16',
      });
      return new LlamaLM(config, info, worker);
    } catch (err) {
      await worker.dispose().catch(() => undefined);
      throw err;
    }
  }

  /** The worker's tokenizer ops (the GGUF's own vocabulary), for ggufTokenizer. */
  get engine(): Pick<LlamaWorker, 'tokenizeSync' | 'pieces' | 'readInfo'> {
    return this.worker;
  }

  scoreAfterPrefixes(sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult> {
    return this.scoreBatch([{ sequence, requests }]).then((r) => r[0]);
  }

  async scoreBatch(jobs: ScoreJob[]): Promise<ScoreResult[]> {
    const out: ScoreResult[] = [];
    for (const [j, job] of jobs.entries()) out.push(await this.scoreJob(job, j));
    return out;
  }

  private checkTokens(tokens: readonly number[], what: string): void {
    const bad = tokens.find((t) => !(Number.isInteger(t) && t >= 0 && t < this.vocabSize));
    if (bad !== undefined) throw new UserError(`${what}: token id ${bad} is outside the vocabulary 0..${this.vocabSize - 1}`);
    if (tokens.length > this.maxLength)
      throw new UserError(`${what}: ${tokens.length} tokens exceed the llama.cpp context of ${this.maxLength} (${this.config.modelPath})`);
  }

  private async scoreJob(job: ScoreJob, j: number): Promise<ScoreResult> {
    const { sequence, requests } = job;
    const T = sequence.length;
    this.checkTokens(sequence, `score: job ${j}`);
    requests.forEach((r, i) => {
      if (!(Number.isInteger(r.exitAt) && r.exitAt >= 1 && r.exitAt <= T))
        throw new UserError(`score: job ${j} request ${i} has exitAt ${r.exitAt}, outside 1..${T}`);
      this.checkTokens([...sequence.slice(0, r.exitAt), ...r.suffix], `score: job ${j} request ${i}`);
    });
    const logprobs: number[][] = requests.map(() => []);
    const cost = zeroCost();
    const withSuffix = requests.map((r, i) => ({ ...r, i })).filter((r) => r.suffix.length > 0);
    // Pass 1: the whole sequence; the distribution after position exitAt − 1 scores each suffix's first token.
    const first = await this.evaluate(
      0,
      sequence,
      withSuffix.map((r) => r.exitAt - 1),
      withSuffix.map((r) => r.suffix[0]),
      cost,
    );
    withSuffix.forEach((r, k) => logprobs[r.i].push(first.logprobs[k]));
    // Pass 2: suffixes after their prefix, deepest exit first, so cutting the cache back never loses a prefix still needed.
    for (const r of [...withSuffix].sort((a, b) => b.exitAt - a.exitAt)) {
      const n = r.suffix.length;
      const rest = await this.evaluate(
        r.exitAt,
        r.suffix,
        Array.from({ length: n - 1 }, (_, k) => k),
        r.suffix.slice(1),
        cost,
      );
      logprobs[r.i].push(...rest.logprobs);
    }
    for (const [i, lp] of logprobs.entries()) {
      const nan = lp.findIndex((x) => Number.isNaN(x));
      if (nan >= 0) throw new Error(`score: job ${j} request ${i}: llama.cpp returned NaN at suffix position ${nan}`);
    }
    return { logprobs, cost };
  }

  /** Keeps `keep` held positions, evaluates `tokens` after them; log p(targets[k]) after tokens[at[k]]. */
  private async evaluate(keep: number, tokens: number[], at: number[], targets: number[], cost: ComputeCost) {
    const r = await this.worker.evaluate({ keep, tokens, at, targets, full: false });
    this.track(keep, tokens, r.evaluated, cost);
    return r;
  }

  private track(keep: number, tokens: number[], evaluated: number, cost: ComputeCost): void {
    this.held = [...this.held.slice(0, keep), ...tokens];
    this.tokensEvaluated += evaluated;
    cost.tokensForwarded += evaluated;
    if (evaluated > 0) cost.forwardPasses++;
  }

  /** Dense next-token probabilities after keeping `keep` held positions and evaluating `tokens` (≥ 1). */
  private async next(keep: number, tokens: number[], cost: ComputeCost): Promise<Float32Array> {
    const r = await this.worker.evaluate({ keep, tokens, at: [tokens.length - 1], targets: [], full: true });
    this.track(keep, tokens, r.evaluated, cost);
    return r.dists[0];
  }

  async sample(prompts: number[][], options: SampleOptions, rng: Rng): Promise<{ results: SampleResult[]; cost: ComputeCost }> {
    validateSampleOptions(options, this.vocabSize);
    const cost = zeroCost();
    const results: SampleResult[] = [];
    for (const [i, prompt] of prompts.entries()) {
      this.checkTokens(prompt, `sample: prompt ${i}`);
      if (prompt.length === 0) throw new UserError(`sample: prompt ${i} is empty`);
      const budget = Math.min(options.maxNewTokens, this.maxLength - prompt.length);
      const row: SampleResult = { tokens: [], logprobs: [], entropies: [], truncated: budget === 0 };
      results.push(row);
      if (budget === 0) continue;
      let dist = await this.promptDist(prompt, cost);
      for (;;) {
        const logits = Array.from(dist, Math.log); // log-probabilities: drawToken's softmax of them is dist itself
        const d = drawToken(logits, options, rng);
        row.tokens.push(d.token);
        row.logprobs.push(d.logprob);
        row.entropies.push(d.entropy);
        if (d.token === options.stopToken) break;
        if (row.tokens.length >= budget) {
          row.truncated = true;
          break;
        }
        dist = await this.next(this.held.length, [d.token], cost);
      }
    }
    cost.tokensGenerated = results.reduce((n, r) => n + r.tokens.length, 0);
    return { results, cost };
  }

  /** The distribution after `prompt`, evaluating only what the cache does not already hold of it. */
  private async promptDist(prompt: number[], cost: ComputeCost): Promise<Float32Array> {
    let common = 0;
    while (common < prompt.length && common < this.held.length && this.held[common] === prompt[common]) common++;
    const memo = this.promptMemo;
    if (common === prompt.length && memo && memo.prompt.length === prompt.length && memo.prompt.every((t, k) => t === prompt[k])) {
      this.held = this.held.slice(0, prompt.length); // the cache is cut back to the prompt at the next evaluation
      return memo.dist;
    }
    const keep = Math.min(common, prompt.length - 1);
    const dist = await this.next(keep, prompt.slice(keep), cost);
    this.promptMemo = { prompt: [...prompt], dist };
    return dist;
  }

  embeddingGradientNorms(): Promise<{ norms: number[]; cost: ComputeCost }> {
    return Promise.reject(
      new UserError(
        `gradient attribution needs gradients: the llama.cpp model ${this.config.modelPath} gives log-probs only; skip that baseline or run in-process`,
      ),
    );
  }

  dispose(): Promise<void> {
    return this.worker.dispose();
  }
}
