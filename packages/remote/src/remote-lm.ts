import { UserError, type Rng } from '@rred/core';
import type { ComputeCost, LanguageModel, SampleOptions, SampleResult, ScoreJob, ScoreResult, SuffixRequest, Tokenizer } from '@rred/lm';
import type { Adapter, ScoreInput } from './adapter';
import { parseRemoteConfig, type ChatConfig, type RemoteConfig } from './config';
import type { HttpOptions } from './http';
import { OpenAiAdapter } from './openai';
import { mapConcurrent } from './pool';
import { advancePastSampling, requestSeed } from './seed';
import { readServerInfo, readTokenizer, type ServerInfo } from './server-info';
import { SglangAdapter } from './sglang';
import { checkEntropies, checkLogprobs, checkTokenIds } from './validate';

/** Ids of the configured special tokens. */
interface SpecialIds {
  eos: number;
  think: number;
  endThink: number;
}

/** One sequence sent for a job: its prefill (request −1) or one of its non-empty suffix requests. */
interface Slot {
  job: number;
  request: number;
  input: ScoreInput;
}

const zeroCost = (): ComputeCost => ({ tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 });

/** The id a special token's text encodes to; it must be exactly one token, on the client and (when it can tell) on the server. */
async function specialId(tokenizer: Tokenizer, adapter: Adapter, name: string, text: string): Promise<number> {
  const ids = tokenizer.encode(text);
  if (ids.length !== 1)
    throw new UserError(`chat.${name}: ${JSON.stringify(text)} encodes to ${ids.length} tokens [${ids.join(', ')}], expected one`);
  const served = await adapter.tokenize(text);
  if (served !== null && (served.length !== 1 || served[0] !== ids[0])) {
    throw new UserError(
      `chat.${name}: the tokenizer maps ${JSON.stringify(text)} to [${ids[0]}], the server's /tokenize to [${served.join(', ')}]`,
    );
  }
  return ids[0];
}

/**
 * A LanguageModel served over HTTP by SGLang, vLLM or `rred serve`. Everything is token ids: the prompt
 * comes from the chat template, scoring asks for the log-probs of the tokens sent (and checks the server
 * returned exactly those ids), sampling uses the server's sampler with a seed. Costs are the token
 * positions the server reports it forwarded (prompt − cached + generated) and the HTTP requests made.
 */
export class RemoteLM implements LanguageModel {
  readonly vocabSize: number;
  readonly maxLength: number;

  private constructor(
    readonly config: RemoteConfig,
    readonly info: ServerInfo,
    readonly tokenizer: Tokenizer,
    readonly chat: ChatConfig,
    readonly special: SpecialIds,
    private readonly adapter: Adapter,
  ) {
    this.vocabSize = tokenizer.vocabSize;
    this.maxLength = info.maxLength;
  }

  /** Reads the server's model info and tokenizer, checks the special tokens, and returns the ready model. */
  static async connect(options: unknown): Promise<RemoteLM> {
    const config = parseRemoteConfig(options);
    const base = config.url.replace(/\/+$/, '');
    const cfg = { ...config, url: base };
    const http: HttpOptions = { timeoutMs: cfg.timeoutMs, retries: cfg.retries, backoffMs: cfg.backoffMs };
    const info = await readServerInfo(cfg, http);
    const adapter: Adapter = cfg.api === 'sglang' ? new SglangAdapter(base, http) : new OpenAiAdapter(base, info.modelName, http);
    const { tokenizer, chat } = await readTokenizer(cfg, http);
    const special: SpecialIds = {
      eos: await specialId(tokenizer, adapter, 'eos', chat.eos),
      think: await specialId(tokenizer, adapter, 'think', chat.think),
      endThink: await specialId(tokenizer, adapter, 'endThink', chat.endThink),
    };
    if (!chat.template.includes(chat.think))
      throw new UserError(`chat.template: it must contain the think token ${JSON.stringify(chat.think)}`);
    return new RemoteLM(cfg, info, tokenizer, chat, special, adapter);
  }

  /** The prompt ids of a problem: the chat template with the problem in place, tokenized once. */
  promptIds(problem: string): number[] {
    return this.tokenizer.encode(this.chat.template.replace('{problem}', problem));
  }

  scoreAfterPrefixes(sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult> {
    return this.scoreBatch([{ sequence, requests }]).then((r) => r[0]);
  }

  /**
   * Each job goes out as its whole sequence (a prefill: SGLang's radix cache then holds it, as the
   * in-process scorer's first pass does) followed by its suffix requests in order; whole jobs are packed
   * into HTTP requests of at most scoreBatchSize sequences (a larger job is split), so a job's shared
   * prefix reaches the server in one request; requests run `concurrency` at a time.
   */
  async scoreBatch(jobs: ScoreJob[]): Promise<ScoreResult[]> {
    const results: ScoreResult[] = jobs.map((job) => ({ logprobs: job.requests.map(() => []), cost: zeroCost() }));
    const slots: Slot[] = [];
    jobs.forEach((job, j) =>
      job.requests.forEach((r, i) => {
        if (!(Number.isInteger(r.exitAt) && r.exitAt >= 1 && r.exitAt <= job.sequence.length)) {
          throw new UserError(`score: job ${j} request ${i} has exitAt ${r.exitAt}, outside 1..${job.sequence.length}`);
        }
        if (i === 0) slots.push({ job: j, request: -1, input: { ids: job.sequence, start: job.sequence.length, prefill: true } });
        if (r.suffix.length > 0)
          slots.push({ job: j, request: i, input: { ids: [...job.sequence.slice(0, r.exitAt), ...r.suffix], start: r.exitAt } });
      }),
    );
    const chunks = packJobs(slots, this.config.scoreBatchSize);
    await mapConcurrent(chunks, this.config.concurrency, async (chunk) => {
      const out = await this.adapter.score(chunk.map((s) => s.input));
      const f = this.adapter.fields;
      out.forEach((o, k) => checkLogprobs(o.logprobs, f.endpoint, f.scored, `scored sequence ${k} of ${chunk.length}`));
      const touched = new Set<number>();
      chunk.forEach((s, k) => {
        if (s.request >= 0) results[s.job].logprobs[s.request] = out[k].logprobs;
        results[s.job].cost.tokensForwarded += out[k].forwarded;
        touched.add(s.job);
      });
      for (const j of touched) results[j].cost.forwardPasses++;
    });
    return results;
  }

  /** See seed.ts for how `rng` maps to the request seed; sampleBatchSize 0 sends every prompt in one request. */
  async sample(prompts: number[][], options: SampleOptions, rng: Rng): Promise<{ results: SampleResult[]; cost: ComputeCost }> {
    const cost = zeroCost();
    if (prompts.length === 0) return { results: [], cost };
    const size = this.config.sampleBatchSize;
    const calls: { prompts: number[][]; seed: number }[] = [];
    let mirror = false;
    if (size === 0 || size >= prompts.length) {
      const s = requestSeed(rng);
      mirror = s.mirrorsInProcess;
      calls.push({ prompts, seed: s.seed });
    } else {
      for (let i = 0; i < prompts.length; i += size) calls.push({ prompts: prompts.slice(i, i + size), seed: rng.nextUint32() });
    }
    const outs = await mapConcurrent(calls, this.config.concurrency, (c) =>
      this.adapter.sample({ prompts: c.prompts, options, seed: c.seed, entropyTopK: this.config.entropyTopK }),
    );
    const results = outs.flatMap((o) => o.results);
    const f = this.adapter.fields;
    results.forEach((r, i) => {
      checkTokenIds(r.tokens, this.vocabSize, f.endpoint, f.sampledIds, `sampled prompt ${i}`);
      checkLogprobs(r.logprobs, f.endpoint, f.sampled, `sampled prompt ${i}`);
      checkEntropies(r.entropies, this.vocabSize, f.endpoint, f.entropies, `sampled prompt ${i}`);
    });
    for (const o of outs) cost.tokensForwarded += o.forwarded;
    cost.tokensGenerated = results.reduce((n, r) => n + r.tokens.length, 0);
    cost.forwardPasses = outs.length;
    if (mirror) advancePastSampling(rng, cost.tokensGenerated, options.temperature);
    return { results, cost };
  }

  embeddingGradientNorms(): Promise<{ norms: number[]; cost: ComputeCost }> {
    return Promise.reject(
      new UserError(
        `gradient attribution needs the model's weights: the remote model at ${this.info.url} (${this.info.api}) serves log-probs only; skip that baseline or run in-process`,
      ),
    );
  }
}

/** Consecutive slots packed into chunks of at most `size`, a job never split unless it alone exceeds `size`. */
function packJobs(slots: Slot[], size: number): Slot[][] {
  const chunks: Slot[][] = [];
  let current: Slot[] = [];
  let i = 0;
  while (i < slots.length) {
    let end = i;
    while (end < slots.length && slots[end].job === slots[i].job) end++;
    const job = slots.slice(i, end);
    if (current.length > 0 && current.length + job.length > size) {
      chunks.push(current);
      current = [];
    }
    for (const s of job) {
      if (current.length === size) {
        chunks.push(current);
        current = [];
      }
      current.push(s);
    }
    i = end;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
