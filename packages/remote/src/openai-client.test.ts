import { Rng } from '@rred/core';
import type { TransformerLM } from '@rred/lm';
import OpenAI from 'openai';
import { serveTiny, tinyModel } from '../testing';
import type { RunningServer } from './serve/server';

/** The official `openai` npm client as a second real client of rred serve's /v1/completions. */
describe('rred serve through the official openai client', () => {
  let lm: TransformerLM;
  let server: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    lm = await tinyModel();
    server = await serveTiny(lm);
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(async () => {
    await server.close();
    lm.dispose();
  });

  it('lists the model and answers a completions request with prompt_logprobs (the vLLM extra parameter)', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['tiny']);
    const prompt = lm.tokenizer.encode('<bos>2+2=<think>2+2=4\n');
    const params = { model: 'tiny', prompt, max_tokens: 3, temperature: 1, seed: 9, logprobs: 1, prompt_logprobs: 0 };
    const res = await client.completions.create(params as OpenAI.CompletionCreateParamsNonStreaming);
    expect(res.choices).toHaveLength(1);
    const entries = (res.choices[0] as unknown as { prompt_logprobs: (Record<string, { logprob: number }> | null)[] }).prompt_logprobs;
    expect(entries).toHaveLength(prompt.length);
    expect(entries[0]).toBeNull();
    const local = await lm.scoreAfterPrefixes(prompt, [{ exitAt: 1, suffix: prompt.slice(1) }]);
    entries.slice(1).forEach((e, t) => {
      expect(Object.keys(e!)).toEqual([String(prompt[t + 1])]);
      expect(Math.abs(e![String(prompt[t + 1])].logprob - local.logprobs[0][t])).toBeLessThan(1e-4);
    });
    // the sampled text is what the in-process sampler draws with new Rng(seed)
    const sampled = await lm.sample([prompt], { temperature: 1, topP: 1, maxNewTokens: 3, stopToken: lm.tokenizer.eos }, new Rng(9));
    expect(res.choices[0].text).toBe(lm.tokenizer.decode(sampled.results[0].tokens));
    expect(res.choices[0].logprobs!.token_logprobs).toEqual(sampled.results[0].logprobs);
    expect(res.usage!.prompt_tokens).toBe(prompt.length);
  });

  it('a bad request comes back as the client library error with the one-line message', async () => {
    await expect(client.completions.create({ model: 'tiny', prompt: [[1, 99999]], max_tokens: 1 })).rejects.toThrow(
      /token id 99999 is outside/,
    );
  });
});
