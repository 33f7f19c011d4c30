import { UserError } from '@rred/core';
import type { SampleResult } from '@rred/lm';
import { z } from 'zod';
import type { Adapter, SampleCall, SampleCallOutput, ScoreInput, ScoreOutput } from './adapter';
import { entropyFromTopK } from './entropy';
import { requestJson, requestOptional, type HttpOptions } from './http';
import { checkTokens, expectResponse, tokenizeResponse } from './validate';

/** SGLang's [logprob, token_id, text] triple (logprob null for a sequence's first token). */
const triple = z.tuple([z.number().nullable(), z.number().int(), z.string().nullable()]);

const metaInfo = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0).default(0),
  cached_tokens: z.number().int().min(0).default(0),
  input_token_logprobs: z.array(triple).nullable().optional(),
  output_token_logprobs: z.array(triple).nullable().optional(),
  output_top_logprobs: z.array(z.array(triple).nullable()).nullable().optional(),
  /** rred serve's extension: the exact entropy (nats) of each sampled position's temperature-1 distribution. */
  output_token_entropies: z.array(z.number()).optional(),
  finish_reason: z
    .object({ type: z.string(), matched: z.union([z.number(), z.string()]).nullable().optional() })
    .passthrough()
    .nullable(),
});

const generateResponse = z.array(z.object({ meta_info: metaInfo }).passthrough());

/** Token positions the server forwarded for one input: its prompt minus what the radix cache served, plus its generated tokens. */
function forwardedOf(m: z.infer<typeof metaInfo>): number {
  return m.prompt_tokens - m.cached_tokens + m.completion_tokens;
}

/**
 * SGLang's native API: POST /generate with batched `input_ids`. Scoring sends a job's whole sequence
 * first with return_logprob false (it fills the radix cache), then each prefix + suffix asking for
 * `input_token_logprobs` from `logprob_start_len` on, all with max_new_tokens 0; the cache serves the
 * shared prefix, which the response reports as `cached_tokens`. Sampling passes
 * `sampling_seed`, keeps the stop token (no_stop_trim) and reads `output_token_logprobs`.
 */
export class SglangAdapter implements Adapter {
  readonly api = 'sglang' as const;
  readonly fields;

  constructor(
    private readonly baseUrl: string,
    private readonly http: HttpOptions,
  ) {
    this.fields = {
      endpoint: `POST ${baseUrl}/generate`,
      scored: 'meta_info.input_token_logprobs',
      sampledIds: 'meta_info.output_token_logprobs (token ids)',
      sampled: 'meta_info.output_token_logprobs',
      entropies: 'meta_info.output_token_entropies (or the entropy of output_top_logprobs)',
    };
  }

  private async generate(body: Record<string, unknown>, count: number): Promise<z.infer<typeof generateResponse>> {
    const url = `${this.baseUrl}/generate`;
    const raw = await requestJson('POST', url, body, this.http);
    const out = expectResponse(generateResponse, raw, `POST ${url}`);
    if (out.length !== count) throw new UserError(`POST ${url}: malformed response: ${count} inputs sent, ${out.length} results returned`);
    return out;
  }

  async score(inputs: ScoreInput[]): Promise<ScoreOutput[]> {
    const where = `POST ${this.baseUrl}/generate`;
    const out = await this.generate(
      {
        input_ids: inputs.map((i) => i.ids),
        sampling_params: { max_new_tokens: 0, temperature: 0 },
        return_logprob: inputs.map((i) => !i.prefill),
        logprob_start_len: inputs.map((i) => (i.prefill ? -1 : i.start)),
      },
      inputs.length,
    );
    return out.map(({ meta_info: m }, k) => {
      const { ids, start, prefill } = inputs[k];
      if (prefill) return { logprobs: [], forwarded: forwardedOf(m) };
      const triples = m.input_token_logprobs;
      if (!triples) throw new UserError(`${where}: malformed response: field '${k}.meta_info.input_token_logprobs' is missing`);
      checkTokens(
        ids.slice(start),
        triples.map((t) => t[1]),
        `${where} (input ${k})`,
      );
      const logprobs = triples.map((t, j) => {
        if (t[0] === null) throw new UserError(`${where}: malformed response: input ${k} has no log-prob at position ${start + j}`);
        return t[0];
      });
      return { logprobs, forwarded: forwardedOf(m) };
    });
  }

  async sample(call: SampleCall): Promise<SampleCallOutput> {
    const { prompts, options, seed, entropyTopK } = call;
    const where = `POST ${this.baseUrl}/generate`;
    const out = await this.generate(
      {
        input_ids: prompts,
        sampling_params: {
          temperature: options.temperature,
          top_p: options.topP,
          max_new_tokens: options.maxNewTokens,
          stop_token_ids: [options.stopToken],
          sampling_seed: seed,
          no_stop_trim: true,
          skip_special_tokens: false,
        },
        return_logprob: true,
        top_logprobs_num: entropyTopK,
      },
      prompts.length,
    );
    let forwarded = 0;
    const results = out.map(({ meta_info: m }, k): SampleResult => {
      forwarded += forwardedOf(m);
      const triples = m.output_token_logprobs ?? [];
      const tokens = triples.map((t) => t[1]);
      const logprobs = triples.map((t, j) => {
        if (t[0] === null) throw new UserError(`${where}: malformed response: sample ${k} has no log-prob at position ${j}`);
        return t[0];
      });
      let entropies: number[];
      if (m.output_token_entropies) entropies = m.output_token_entropies;
      else {
        const top = m.output_top_logprobs ?? [];
        entropies = tokens.map((_, j) => entropyFromTopK((top[j] ?? []).map((t) => t[0] ?? -Infinity)));
      }
      if (entropies.length !== tokens.length)
        throw new UserError(`${where}: malformed response: sample ${k} has ${tokens.length} tokens but ${entropies.length} entropies`);
      return finishSample(tokens, logprobs, entropies, m.finish_reason?.type ?? null, options.stopToken, `${where} (sample ${k})`);
    });
    return { results, forwarded };
  }

  async tokenize(text: string): Promise<number[] | null> {
    const url = `${this.baseUrl}/tokenize`;
    const raw = await requestOptional('POST', url, { text, add_special_tokens: false }, this.http);
    return raw === null ? null : expectResponse(tokenizeResponse, raw, `POST ${url}`).tokens;
  }
}

/**
 * A sampled continuation as the LanguageModel reports it: it ends with the stop token when it stopped,
 * and is `truncated` when it hit the token limit. A server that stopped on some other token (its own
 * end-of-sequence id) would silently change what "stopped" means, so that is an error.
 */
export function finishSample(
  tokens: number[],
  logprobs: number[],
  entropies: number[],
  finish: string | null,
  stopToken: number,
  where: string,
): SampleResult {
  const stopped = tokens.length > 0 && tokens[tokens.length - 1] === stopToken;
  if (finish === 'stop' && !stopped) {
    throw new UserError(
      `${where}: the server stopped at token ${tokens[tokens.length - 1] ?? '(none)'}, not at the stop token ${stopToken} (a stop string, or the model's own end-of-sequence id?)`,
    );
  }
  if (tokens.indexOf(stopToken) >= 0 && tokens.indexOf(stopToken) < tokens.length - 1)
    throw new UserError(`${where}: the server kept sampling after the stop token ${stopToken}`);
  return { tokens, logprobs, entropies, truncated: !stopped };
}
