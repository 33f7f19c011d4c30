import type { SampleResult } from '@rred/lm';
import { RequestError } from './http-io';
import type { ServedModel } from './model';
import { checkKeys, isInt, numberField, optionalInt, samplingOf, tokenLists } from './validate-request';

const BODY_KEYS = new Set([
  'model',
  'prompt',
  'max_tokens',
  'temperature',
  'top_p',
  'n',
  'seed',
  'echo',
  'logprobs',
  'prompt_logprobs',
  'stop_token_ids',
  'stop',
  'stream',
  'skip_special_tokens',
  'return_tokens_as_token_ids',
  'include_stop_str_in_output',
  'user',
]);

/**
 * The vLLM /v1/completions subset over the served checkpoint: `prompt` as token-id lists (text is
 * tokenized), `n` samples per prompt, `seed`, `logprobs` (the sampled token's log-prob; top-k beyond it
 * is not computed), `echo` (the prompt's tokens and log-probs first), `prompt_logprobs` (the prompt
 * token's log-prob per position, first entry null; rank is not computed). The n samples of prompt i are
 * choices i·n .. i·n + n − 1, drawn in one batched sample of the expanded prompt list with `new Rng(seed)`.
 * `logprobs.entropies` (exact, nats) is an rred extension; usage counts each prompt once, cached_tokens
 * the prefix shared by the scored prompts.
 */
export async function handleCompletions(model: ServedModel, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
  checkKeys(body, BODY_KEYS, 'POST /v1/completions');
  if (body.stream) throw new RequestError(400, 'stream: rred serve does not stream; send stream: false');
  if (body.stop !== undefined && body.stop !== null && !(Array.isArray(body.stop) && body.stop.length === 0))
    throw new RequestError(400, 'stop: stop strings are not supported; use stop_token_ids');
  if (body.model !== undefined && body.model !== model.name)
    throw new RequestError(404, `model '${String(body.model)}' does not exist; this server serves '${model.name}'`);
  const tok = model.lm.tokenizer;
  const { lists } = tokenLists(body.prompt, 'prompt', model.limits, tok);
  const n = numberField(body, 'n', 1, isInt(1, 4096), 'an integer >= 1');
  const { options, seed } = samplingOf(body, { maxNew: 'max_tokens', maxNewDefault: 16, seed: 'seed' }, tok.eos, model.limits);
  const maxTokens = options.maxNewTokens;
  const logprobs = optionalInt(body, 'logprobs', 0);
  const promptLogprobs = optionalInt(body, 'prompt_logprobs', 0);
  const echo = body.echo === true;
  const asIds = body.return_tokens_as_token_ids === true;
  const tokenName = (t: number) => (asIds ? `token_id:${t}` : tok.tokenText(t));

  const needPrompt = promptLogprobs !== null || (echo && logprobs !== null);
  const scoredAll = needPrompt
    ? await model.score(
        lists.map((ids) => ({ ids, start: 0 })),
        signal,
      )
    : [];
  const expanded = lists.flatMap((p) => Array.from({ length: n }, () => p));
  const samples: SampleResult[] = maxTokens > 0 ? await model.sample(expanded, options, seed, signal) : expanded.map(() => emptySample());

  const choices = samples.map((s, index) => {
    const p = Math.floor(index / n);
    const ids = lists[p];
    const stopped = !s.truncated && s.tokens.length > 0;
    const choice: Record<string, unknown> = {
      index,
      text: (echo ? tok.decode(ids) : '') + tok.decode(s.tokens),
      finish_reason: stopped ? 'stop' : 'length',
      stop_reason: stopped ? options.stopToken : null,
      logprobs: null,
    };
    if (logprobs !== null) {
      choice.logprobs = choiceLogprobs(
        [...(echo ? ids : []), ...s.tokens],
        [...(echo ? scoredAll[p].logprobs : []), ...s.logprobs],
        s,
        tok,
        tokenName,
      );
    }
    if (promptLogprobs !== null) {
      choice.prompt_logprobs = scoredAll[p].logprobs.map((lp, t) =>
        lp === null ? null : { [String(ids[t])]: { logprob: lp, rank: null, decoded_token: tok.tokenText(ids[t]) } },
      );
    }
    return choice;
  });
  const promptTokens = lists.reduce((a, l) => a + l.length, 0);
  const completionTokens = samples.reduce((a, s) => a + s.tokens.length, 0);
  const cached = scoredAll.reduce((a, s, i) => a + lists[i].length - s.forwarded, 0);
  return {
    id: 'cmpl-rred',
    object: 'text_completion',
    created: 0,
    model: model.name,
    choices,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cached },
    },
  };
}

/** A choice's `logprobs` object: tokens (the echoed prompt's, then the sample's), their log-probs and text offsets. */
function choiceLogprobs(
  all: number[],
  lps: (number | null)[],
  s: SampleResult,
  tok: ServedModel['lm']['tokenizer'],
  tokenName: (t: number) => string,
): Record<string, unknown> {
  let offset = 0;
  const textOffset = all.map((t) => {
    const at = offset;
    offset += tok.tokenText(t).length;
    return at;
  });
  return {
    tokens: all.map(tokenName),
    token_logprobs: lps,
    top_logprobs: all.map((t, j) => (lps[j] === null ? null : { [tokenName(t)]: lps[j] })),
    text_offset: textOffset,
    entropies: s.entropies, // of the sampled tokens only (an rred extension)
  };
}

function emptySample(): SampleResult {
  return { tokens: [], logprobs: [], entropies: [], truncated: true };
}
