import { UserError } from '@rred/core';
import type { SampleResult } from '@rred/lm';
import { z } from 'zod';
import type { Adapter, SampleCall, SampleCallOutput, ScoreInput, ScoreOutput } from './adapter';
import { entropyFromTopK } from './entropy';
import { requestJson, requestOptional, type HttpOptions } from './http';
import { finishSample } from './sglang';
import { checkTokens, expectResponse, tokenizeResponse } from './validate';

/** vLLM's prompt_logprobs entry: {token_id: {logprob, rank, decoded_token}} (null for the first prompt token). */
const promptLogprobEntry = z.record(z.object({ logprob: z.number() }).passthrough()).nullable();

const usage = z
  .object({
    prompt_tokens: z.number().int().min(0),
    completion_tokens: z.number().int().min(0).default(0),
    prompt_tokens_details: z
      .object({ cached_tokens: z.number().int().min(0).nullable().optional() })
      .passthrough()
      .nullable()
      .optional(),
  })
  .passthrough();

const choice = z
  .object({
    index: z.number().int().min(0),
    finish_reason: z.string().nullable().optional(),
    prompt_logprobs: z.array(promptLogprobEntry).nullable().optional(),
    logprobs: z
      .object({
        tokens: z.array(z.string()),
        token_logprobs: z.array(z.number().nullable()),
        top_logprobs: z.array(z.record(z.number()).nullable()).nullable().optional(),
        /** rred serve's extension: exact entropies (nats) of the sampled positions' temperature-1 distributions. */
        entropies: z.array(z.number()).optional(),
      })
      .passthrough()
      .nullable()
      .optional(),
  })
  .passthrough();

const completionResponse = z.object({ choices: z.array(choice), usage }).passthrough();

/** `token_id:123` (vLLM's return_tokens_as_token_ids) → 123. */
function tokenIdOf(token: string, where: string): number {
  const m = /^token_id:(\d+)$/.exec(token);
  if (!m)
    throw new UserError(`${where}: malformed response: token ${JSON.stringify(token)} is not 'token_id:N' (return_tokens_as_token_ids)`);
  return Number(m[1]);
}

/**
 * Consecutive runs of one prompt, all of the same length r, become (distinct prompts, n = r): vLLM then
 * prefills each distinct prompt once. The choices come back prompt-major (index = prompt·n + sample),
 * the order of the expanded list, so nothing is reordered. Otherwise n = 1.
 */
function groupRuns(prompts: number[][]): { distinct: number[][]; n: number } {
  const same = (a: number[], b: number[]) => a.length === b.length && a.every((t, i) => t === b[i]);
  let run = 1;
  while (run < prompts.length && same(prompts[run], prompts[0])) run++;
  if (run === 1 || prompts.length % run !== 0) return { distinct: prompts, n: 1 };
  const distinct: number[][] = [];
  for (let i = 0; i < prompts.length; i += run) {
    for (let j = 1; j < run; j++) if (!same(prompts[i + j], prompts[i])) return { distinct: prompts, n: 1 };
    distinct.push(prompts[i]);
  }
  return { distinct, n: run };
}

/**
 * The vLLM /v1/completions subset: prompts as token-id lists, `prompt_logprobs: 0` (an extra
 * parameter) for scoring, `n` and `seed` for sampling, token ids back through return_tokens_as_token_ids.
 * vLLM computes prompt log-probs outside its prefix cache, so every scored sequence costs a full prefill.
 */
export class OpenAiAdapter implements Adapter {
  readonly api = 'openai' as const;
  readonly fields;

  constructor(
    private readonly baseUrl: string,
    private readonly model: string,
    private readonly http: HttpOptions,
  ) {
    this.fields = {
      endpoint: `POST ${baseUrl}/v1/completions`,
      scored: 'choices[].prompt_logprobs',
      sampledIds: 'choices[].logprobs.tokens',
      sampled: 'choices[].logprobs.token_logprobs',
      entropies: 'choices[].logprobs.entropies (or the entropy of top_logprobs)',
    };
  }

  private async complete(body: Record<string, unknown>, choices: number): Promise<z.infer<typeof completionResponse>> {
    const url = `${this.baseUrl}/v1/completions`;
    const raw = await requestJson('POST', url, { model: this.model, ...body }, this.http);
    const out = expectResponse(completionResponse, raw, `POST ${url}`);
    if (out.choices.length !== choices)
      throw new UserError(`POST ${url}: malformed response: ${choices} choices expected, ${out.choices.length} returned`);
    out.choices.sort((a, b) => a.index - b.index);
    return out;
  }

  /** Forwarded positions of a whole request, from its usage block. */
  private static forwardedOf(u: z.infer<typeof usage>): number {
    return u.prompt_tokens - (u.prompt_tokens_details?.cached_tokens ?? 0) + u.completion_tokens;
  }

  async score(all: ScoreInput[]): Promise<ScoreOutput[]> {
    // no shared cache for prompt log-probs: a prefill would only cost a full extra prefill
    const inputs = all.filter((i) => !i.prefill);
    const scored = await this.scorePrompts(inputs);
    let k = 0;
    return all.map((i) => (i.prefill ? { logprobs: [], forwarded: 0 } : scored[k++]));
  }

  private async scorePrompts(inputs: ScoreInput[]): Promise<ScoreOutput[]> {
    if (inputs.length === 0) return [];
    const where = `POST ${this.baseUrl}/v1/completions`;
    // max_tokens 1 (greedy): the request is for the prompt log-probs; the one generated token is counted in usage.
    const out = await this.complete(
      { prompt: inputs.map((i) => i.ids), max_tokens: 1, temperature: 0, prompt_logprobs: 0, n: 1 },
      inputs.length,
    );
    // usage covers the whole request: it is spread over the inputs in proportion to their lengths.
    const total = OpenAiAdapter.forwardedOf(out.usage);
    const lengths = inputs.map((i) => i.ids.length);
    const sumLengths = lengths.reduce((a, b) => a + b, 0);
    let given = 0;
    return out.choices.map((c, k) => {
      const { ids, start } = inputs[k];
      const entries = c.prompt_logprobs;
      if (!entries || entries.length !== ids.length) {
        throw new UserError(
          `${where}: malformed response: choice ${k} has ${entries ? entries.length : 'no'} prompt_logprobs entries for a prompt of ${ids.length} tokens`,
        );
      }
      const returned: number[] = [];
      const logprobs: number[] = [];
      for (let t = start; t < ids.length; t++) {
        const entry = entries[t];
        if (!entry) throw new UserError(`${where}: malformed response: choice ${k} has no prompt log-prob at position ${t}`);
        const hit = entry[String(ids[t])];
        returned.push(hit ? ids[t] : Number(Object.keys(entry)[0] ?? -1));
        logprobs.push(hit ? hit.logprob : NaN);
      }
      checkTokens(ids.slice(start), returned, `${where} (prompt ${k})`);
      const forwarded = k === inputs.length - 1 ? total - given : Math.round((total * lengths[k]) / sumLengths);
      given += forwarded;
      return { logprobs, forwarded };
    });
  }

  async sample(call: SampleCall): Promise<SampleCallOutput> {
    const { prompts, options, seed, entropyTopK } = call;
    const where = `POST ${this.baseUrl}/v1/completions`;
    const { distinct, n } = groupRuns(prompts);
    const out = await this.complete(
      {
        prompt: distinct,
        n,
        seed,
        max_tokens: options.maxNewTokens,
        temperature: options.temperature,
        top_p: options.topP,
        logprobs: entropyTopK,
        stop_token_ids: [options.stopToken],
        skip_special_tokens: false,
        return_tokens_as_token_ids: true,
      },
      prompts.length,
    );
    const results = out.choices.map((c, k): SampleResult => {
      const lp = c.logprobs;
      if (!lp) throw new UserError(`${where}: malformed response: choice ${k} has no logprobs`);
      const tokens = lp.tokens.map((t) => tokenIdOf(t, where));
      const logprobs = lp.token_logprobs.map((v, j) => {
        if (v === null) throw new UserError(`${where}: malformed response: choice ${k} has no log-prob at position ${j}`);
        return v;
      });
      const entropies = lp.entropies ?? tokens.map((_, j) => entropyFromTopK(Object.values(lp.top_logprobs?.[j] ?? {})));
      if (logprobs.length !== tokens.length || entropies.length !== tokens.length)
        throw new UserError(
          `${where}: malformed response: choice ${k} has ${tokens.length} tokens, ${logprobs.length} log-probs, ${entropies.length} entropies`,
        );
      return finishSample(tokens, logprobs, entropies, c.finish_reason ?? null, options.stopToken, `${where} (choice ${k})`);
    });
    return { results, forwarded: OpenAiAdapter.forwardedOf(out.usage) };
  }

  async tokenize(text: string): Promise<number[] | null> {
    const url = `${this.baseUrl}/tokenize`;
    const raw = await requestOptional('POST', url, { model: this.model, prompt: text, add_special_tokens: false }, this.http);
    return raw === null ? null : expectResponse(tokenizeResponse, raw, `POST ${url}`).tokens;
  }
}
