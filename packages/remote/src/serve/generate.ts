import type { SampleResult } from '@rred/lm';
import { showValue } from '../json';
import { RequestError } from './http-io';
import type { ServedModel } from './model';
import { checkKeys, samplingOf, tokenLists } from './validate-request';

type Triple = [number | null, number, string | null];

/** SGLang's sampling_params, the subset rred serve honours (others are refused so nothing is silently ignored). */
const SAMPLING_KEYS = new Set([
  'temperature',
  'top_p',
  'max_new_tokens',
  'stop_token_ids',
  'sampling_seed',
  'no_stop_trim',
  'skip_special_tokens',
]);
const BODY_KEYS = new Set([
  'input_ids',
  'text',
  'sampling_params',
  'return_logprob',
  'logprob_start_len',
  'top_logprobs_num',
  'return_text_in_logprobs',
  'stream',
  'rid',
]);

/**
 * SGLang's POST /generate over the served checkpoint: `input_ids` (one list or a batch), one
 * `sampling_params` object for the whole batch, `return_logprob` with `logprob_start_len` (an int or one
 * per input; −1 or absent: no input log-probs). Input log-probs come from the grouped scorer (the
 * shared prefix of a batch counts once, reported as `cached_tokens`); generation is one batched sample
 * with `new Rng(sampling_seed)`. meta_info adds `output_token_entropies` (exact, nats), an rred extension.
 */
export async function handleGenerate(model: ServedModel, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
  checkKeys(body, BODY_KEYS, 'POST /generate');
  if (body.stream) throw new RequestError(400, 'stream: rred serve does not stream; send stream: false');
  if (body.text !== undefined)
    throw new RequestError(400, 'text: rred serve takes input_ids only (token ids everywhere; POST /tokenize first)');
  const { lists, single } = tokenLists(body.input_ids, 'input_ids', model.limits);
  const params = (body.sampling_params ?? {}) as Record<string, unknown>;
  if (typeof params !== 'object' || Array.isArray(params))
    throw new RequestError(400, 'sampling_params: rred serve takes one object for the whole batch');
  checkKeys(params, SAMPLING_KEYS, 'sampling_params');
  const tok = model.lm.tokenizer;
  const { options, seed } = samplingOf(
    params,
    { maxNew: 'max_new_tokens', maxNewDefault: 128, seed: 'sampling_seed' },
    tok.eos,
    model.limits,
  );
  const maxNew = options.maxNewTokens;

  const returnLogprob = perInput(body.return_logprob, lists.length, 'return_logprob');
  const starts = startsOf(body.logprob_start_len, lists);
  // scored: log-probs from logprob_start_len; prefill only: no log-probs and nothing to generate (it fills the "cache")
  const scoreIdx = lists.flatMap((_, i) => (returnLogprob[i] && starts[i] >= 0 ? [i] : !returnLogprob[i] && maxNew === 0 ? [i] : []));
  const answers = await model.score(
    scoreIdx.map((i) => ({ ids: lists[i], start: returnLogprob[i] ? starts[i] : lists[i].length })),
    signal,
  );
  const samples: (SampleResult | null)[] = maxNew > 0 ? await model.sample(lists, options, seed, signal) : lists.map(() => null);

  const out = lists.map((ids, i) => {
    const s = samples[i];
    const k = scoreIdx.indexOf(i);
    const answer = k >= 0 ? answers[k] : null;
    const tokens = s?.tokens ?? [];
    const stopped = s !== null && !s.truncated;
    const meta: Record<string, unknown> = {
      id: `rred-${i}`,
      finish_reason: stopped ? { type: 'stop', matched: options.stopToken } : { type: 'length', length: tokens.length },
      prompt_tokens: ids.length,
      completion_tokens: tokens.length,
      // scored: the prefix shared within the batch; sampled: a repeat of an earlier prompt shares its prefill (as a radix cache would)
      cached_tokens: answer ? ids.length - answer.forwarded : s !== null && repeatsEarlier(lists, i) ? ids.length : 0,
    };
    if (returnLogprob[i]) {
      meta.input_token_logprobs = answer
        ? answer.logprobs.map((lp, j): Triple => [lp, ids[starts[i] + j], tok.tokenText(ids[starts[i] + j])])
        : [];
      meta.output_token_logprobs = tokens.map((t, j): Triple => [s!.logprobs[j], t, tok.tokenText(t)]);
      meta.output_top_logprobs = null;
      meta.output_token_entropies = s?.entropies ?? [];
    }
    return { text: tok.decode(tokens), output_ids: tokens, meta_info: meta };
  });
  return single ? out[0] : out;
}

/** logprob_start_len as one start per input: absent → −1 (no input log-probs), an int → the same for all, a list → one each. */
function startsOf(value: unknown, lists: number[][]): number[] {
  const one = (v: unknown, i: number): number => {
    if (v === undefined || v === null) return -1;
    if (!Number.isInteger(v) || (v as number) < -1 || (v as number) >= lists[i].length)
      throw new RequestError(
        400,
        `logprob_start_len${Array.isArray(value) ? `[${i}]` : ''}: expected an integer in -1..${lists[i].length - 1}, got ${showValue(v)}`,
      );
    return v as number;
  };
  if (Array.isArray(value)) {
    if (value.length !== lists.length) throw new RequestError(400, `logprob_start_len: ${value.length} values for ${lists.length} inputs`);
    return value.map(one);
  }
  return lists.map((_, i) => one(value, i));
}

/** Whether input i repeats an earlier input of the batch exactly. */
function repeatsEarlier(lists: number[][], i: number): boolean {
  const key = lists[i].join(',');
  return lists.slice(0, i).some((l) => l.join(',') === key);
}

/** return_logprob as one flag per input: absent → false, a boolean → the same for all, a list → one each. */
function perInput(value: unknown, count: number, field: string): boolean[] {
  if (Array.isArray(value)) {
    if (value.length !== count || value.some((v) => typeof v !== 'boolean'))
      throw new RequestError(400, `${field}: expected ${count} booleans (one per input), got ${showValue(value)}`);
    return value as boolean[];
  }
  if (value !== undefined && value !== null && typeof value !== 'boolean')
    throw new RequestError(400, `${field}: expected a boolean or a list of booleans`);
  return Array.from({ length: count }, () => value === true);
}
