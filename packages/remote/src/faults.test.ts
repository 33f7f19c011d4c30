import { Rng } from '@rred/core';
import type { TransformerLM } from '@rred/lm';
import { serveTiny, startFaultProxy, tinyModel, type Fault, type FaultProxy } from '../testing';
import { RemoteLM } from './remote-lm';
import type { RunningServer } from './serve/server';

type Triple = [number | null, number, string | null];
type GenerateItem = { meta_info: { input_token_logprobs?: Triple[]; output_token_logprobs?: Triple[] } };

describe('RemoteLM faults (documented: 5xx and timeouts retried with backoff; 4xx, malformed body, token mismatch: one-line error)', () => {
  let lm: TransformerLM;
  let server: RunningServer;
  const proxies: FaultProxy[] = [];
  beforeAll(async () => {
    lm = await tinyModel();
    server = await serveTiny(lm);
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await server.close();
    lm.dispose();
  });

  /** A RemoteLM connected through a proxy that faults the n-th POST of `route` per `decide`. */
  async function through(api: 'sglang' | 'openai', decide: (n: number) => Fault | null, retries = 3): Promise<RemoteLM> {
    const route = api === 'sglang' ? 'POST /generate' : 'POST /v1/completions';
    const proxy = await startFaultProxy(server.url, (r, n) => (r === route ? decide(n) : null));
    proxies.push(proxy);
    return RemoteLM.connect({ url: proxy.url, api, retries, backoffMs: 10 });
  }
  const job = () => {
    const seq = lm.tokenizer.encode('<bos>1+2=<think>1+2=3\n</think>3<eos>');
    return { seq, requests: [{ exitAt: 5, suffix: lm.tokenizer.encode('</think>3<eos>') }] };
  };
  const oneLine = (err: unknown) => {
    expect((err as Error).name).toBe('UserError');
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  };

  it.each(['sglang', 'openai'] as const)(
    '%s: HTTP 500 three times, then the answer: retried, same log-probs as without faults',
    async (api) => {
      const remote = await through(api, (n) => (n <= 3 ? { kind: 'status', status: 500 } : null));
      const { seq, requests } = job();
      const expected = await lm.scoreAfterPrefixes(seq, requests);
      const got = await remote.scoreAfterPrefixes(seq, requests);
      got.logprobs[0].forEach((lp, t) => expect(Math.abs(lp - expected.logprobs[0][t])).toBeLessThan(1e-4));
    },
  );

  it('HTTP 500 three times with retries 2: a one-line error naming the attempts and the last status', async () => {
    const remote = await through('sglang', (n) => (n <= 3 ? { kind: 'status', status: 500 } : null), 2);
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/generate: failed after 3 attempts; last: HTTP 500: /);
  });

  it('an HTTP 400 is not retried: one line with the server message', async () => {
    const remote = await through('sglang', () => null);
    const message = oneLine(
      await remote.sample([[1, 2000]], { temperature: 1, topP: 1, maxNewTokens: 2, stopToken: 2 }, new Rng(1)).catch((e) => e),
    );
    expect(message).toMatch(/HTTP 400: .*input_ids\[0\]\[1\]: token id 2000 is outside 0\.\.\d+/);
  });

  it.each(['sglang', 'openai'] as const)('%s: a truncated JSON body is a one-line malformed-response error, not retried', async (api) => {
    const remote = await through(api, () => ({ kind: 'truncate' }));
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(/malformed response, not JSON/);
  });

  it('sglang: a wrong token id in the scored log-probs is a one-line token mismatch', async () => {
    const remote = await through('sglang', () => ({
      kind: 'rewrite',
      edit: (body) => {
        const item = (body as GenerateItem[])[1]; // [0] is the job's prefill
        item.meta_info.input_token_logprobs![1][1] += 1;
        return body;
      },
    }));
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(/token mismatch at scored position 1: sent token \d+, the server returned \d+/);
  });

  it('openai: a prompt_logprobs entry for another token is a one-line token mismatch', async () => {
    const remote = await through('openai', () => ({
      kind: 'rewrite',
      edit: (body) => {
        const entries = (body as { choices: { prompt_logprobs: Record<string, unknown>[] }[] }).choices[0].prompt_logprobs;
        const last = entries[entries.length - 1];
        const [id] = Object.keys(last);
        entries[entries.length - 1] = { [String(Number(id) + 1)]: last[id] };
        return body;
      },
    }));
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(/token mismatch at scored position \d+/);
  });

  it('a sampled token id outside the vocabulary is a one-line error', async () => {
    const remote = await through('sglang', () => ({
      kind: 'rewrite',
      edit: (body) => {
        (body as GenerateItem[])[0].meta_info.output_token_logprobs![0][1] = 999;
        return body;
      },
    }));
    const message = oneLine(
      await remote
        .sample([lm.tokenizer.encode('<bos>1=<think>')], { temperature: 1, topP: 1, maxNewTokens: 3, stopToken: 2 }, new Rng(1))
        .catch((e) => e),
    );
    expect(message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/generate: impossible meta_info\.output_token_logprobs \(token ids\) for sampled prompt 0 at position 0: token id 999, outside the vocabulary 0\.\.\d+$/,
    );
  });

  it('a server killed mid-request: retried, then a one-line connection error', async () => {
    const remote = await through('sglang', () => ({ kind: 'kill' }), 1);
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(/failed after 2 attempts; last: connection failed \(/);
  });

  it.each([
    ['a scored log-prob of +0.7', 0.7, 'meta_info.input_token_logprobs', 'scored sequence 1 of 2 at position 0: 0.7'],
    ['a scored log-prob of +Infinity', Infinity, 'meta_info.input_token_logprobs', 'scored sequence 1 of 2 at position 0: Infinity'],
  ])('sglang: %s is a one-line error naming the server and the field, and nothing is scored', async (_name, value, field, what) => {
    const remote = await through('sglang', () => ({
      kind: 'rewrite',
      edit: (body) => {
        (body as GenerateItem[])[1].meta_info.input_token_logprobs![0][0] = value; // [0] is the job's prefill
        return body;
      },
    }));
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(
      new RegExp(
        `^POST http://127\\.0\\.0\\.1:\\d+/generate: impossible ${field.replace(/\./g, '\\.')} for ${what.replace(/\+/g, '\\+')}, expected a finite log-probability <= 0$`,
      ),
    );
  });

  it('openai: a prompt log-prob of +0.7 is refused too', async () => {
    const remote = await through('openai', () => ({
      kind: 'rewrite',
      edit: (body) => {
        const entries = (body as { choices: { prompt_logprobs: (Record<string, { logprob: number }> | null)[] }[] }).choices[0]
          .prompt_logprobs;
        const last = entries[entries.length - 1]!;
        last[Object.keys(last)[0]].logprob = 0.7;
        return body;
      },
    }));
    const { seq, requests } = job();
    const message = oneLine(await remote.scoreAfterPrefixes(seq, requests).catch((e) => e));
    expect(message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/completions: impossible choices\[\]\.prompt_logprobs for scored sequence \d+ of \d+ at position \d+: 0\.7, expected a finite log-probability <= 0$/,
    );
  });

  it.each([
    [
      'a sampled log-prob of +3',
      'output_token_logprobs',
      3,
      /impossible meta_info\.output_token_logprobs for sampled prompt 0 at position 0: 3, expected a finite log-probability <= 0$/,
    ],
    [
      'an entropy of -5',
      'output_token_entropies',
      -5,
      /impossible meta_info\.output_token_entropies \(or the entropy of output_top_logprobs\) for sampled prompt 0 at position 0: -5, expected an entropy in \[0, log \d+ = \d\.\d{4}\]$/,
    ],
    ['an entropy above log V', 'output_token_entropies', 99, /at position 0: 99, expected an entropy in \[0, log/],
  ] as const)('sglang: %s is a one-line error, not a stored trace', async (_name, field, value, expected) => {
    const remote = await through('sglang', () => ({
      kind: 'rewrite',
      edit: (body) => {
        const m = (body as { meta_info: Record<string, unknown[]> }[])[0].meta_info;
        if (field === 'output_token_logprobs') (m.output_token_logprobs[0] as unknown[])[0] = value;
        else m.output_token_entropies[0] = value;
        return body;
      },
    }));
    const message = oneLine(
      await remote
        .sample([lm.tokenizer.encode('<bos>1=<think>')], { temperature: 1, topP: 1, maxNewTokens: 3, stopToken: 2 }, new Rng(1))
        .catch((e) => e),
    );
    expect(message).toMatch(expected);
  });
});
