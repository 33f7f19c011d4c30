import { Rng } from '@rred/core';
import type { SampleOptions, ScoreJob, TransformerLM } from '@rred/lm';
import { RemoteLM } from './remote-lm';
import type { RunningServer } from './serve/server';
import { serveTiny, tinyModel } from '../testing';

describe('RemoteLM against rred serve (tiny random model, real HTTP on an ephemeral port)', () => {
  let lm: TransformerLM;
  let server: RunningServer;
  const remotes: Record<'sglang' | 'openai', RemoteLM> = {} as never;
  beforeAll(async () => {
    lm = await tinyModel();
    server = await serveTiny(lm);
    remotes.sglang = await RemoteLM.connect({ url: server.url, api: 'sglang' });
    remotes.openai = await RemoteLM.connect({ url: server.url, api: 'openai' });
  });
  afterAll(async () => {
    await server.close();
    lm.dispose();
  });

  const tok = () => lm.tokenizer;
  const jobs = (): ScoreJob[] => {
    const a = tok().encode('<bos>12+34=<think>1+3=4\n2+4=6\n</think>46<eos>');
    const b = tok().encode('<bos>7*8=<think>7*8=56\n</think>56<eos>');
    return [
      { sequence: a, requests: [1, 6, 12, 18, a.length].map((at) => ({ exitAt: at, suffix: tok().encode('</think>46<eos>') })) },
      {
        sequence: b,
        requests: [
          { exitAt: 3, suffix: tok().encode('9=63') },
          { exitAt: b.length, suffix: [] },
        ],
      },
    ];
  };

  it('reads the model facts and the special tokens from the server', () => {
    for (const r of Object.values(remotes)) {
      expect(r.info.modelName).toBe('tiny');
      expect(r.maxLength).toBe(48);
      expect(r.vocabSize).toBe(lm.vocabSize);
      expect(r.special).toEqual({ eos: tok().eos, think: tok().think, endThink: tok().endThink });
      expect(r.promptIds('1+2=')).toEqual(tok().encode('<bos>1+2=<think>'));
    }
  });

  it.each(['sglang', 'openai'] as const)('%s: prompt log-probs equal the in-process scorer to 1e-4', async (api) => {
    const local = await lm.scoreBatch(jobs());
    const remote = await remotes[api].scoreBatch(jobs());
    expect(remote.map((r) => r.logprobs.map((l) => l.length))).toEqual(local.map((r) => r.logprobs.map((l) => l.length)));
    let compared = 0;
    remote.forEach((r, j) =>
      r.logprobs.forEach((row, i) =>
        row.forEach((lp, t) => {
          expect(Math.abs(lp - local[j].logprobs[i][t])).toBeLessThan(1e-4);
          compared++;
        }),
      ),
    );
    expect(compared).toBeGreaterThan(20);
  });

  it('sglang: the server forwards the shared prefix once (T + Σ suffix), as in-process', async () => {
    const [a] = jobs();
    const local = await lm.scoreAfterPrefixes(a.sequence, a.requests);
    const remote = await remotes.sglang.scoreAfterPrefixes(a.sequence, a.requests);
    expect(remote.cost.tokensForwarded).toBe(local.cost.tokensForwarded);
    expect(remote.cost.forwardPasses).toBe(1);
    // the job reaches the server as (prefill of the sequence, its requests in order): the very in-process call, bit for bit
    expect(remote.logprobs).toEqual(local.logprobs);
    const early = await remotes.sglang.scoreAfterPrefixes(a.sequence, a.requests.slice(0, 2)); // longest prefix shorter than the sequence
    expect(early.logprobs).toEqual((await lm.scoreAfterPrefixes(a.sequence, a.requests.slice(0, 2))).logprobs);
    expect(early.cost.tokensForwarded).toBe(a.sequence.length + 2 * a.requests[0].suffix.length);
  });

  it('samples exactly what the in-process sampler draws for the same seed, on both adapters', async () => {
    const prompt = tok().encode('<bos>3+4=<think>');
    const other = tok().encode('<bos>9=<think>');
    const prompts = [prompt, prompt, prompt, other, other, other]; // runs of 3: the openai adapter sends n = 3
    const options: SampleOptions = { temperature: 1, topP: 0.9, maxNewTokens: 20, stopToken: tok().eos };
    const local = await lm.sample(prompts, options, new Rng(11));
    const viaSglang = await remotes.sglang.sample(prompts, options, new Rng(11));
    const viaOpenai = await remotes.openai.sample(prompts, options, new Rng(11));
    expect(viaSglang.results).toEqual(local.results);
    expect(viaOpenai.results).toEqual(local.results);
    const differentSeed = await remotes.sglang.sample(prompts, options, new Rng(12));
    expect(differentSeed.results.map((r) => r.tokens)).not.toEqual(local.results.map((r) => r.tokens));
  });

  it("keeps the caller's Rng in step with in-process sampling (a fresh Rng is advanced by one draw per sampled token)", async () => {
    const prompts = [tok().encode('<bos>5+5=<think>')];
    const options: SampleOptions = { temperature: 1, topP: 1, maxNewTokens: 10, stopToken: tok().eos };
    const inProcess = new Rng(21);
    await lm.sample(prompts, options, inProcess);
    const remote = new Rng(21);
    await remotes.openai.sample(prompts, options, remote);
    expect(remote.draws).toBe(inProcess.draws);
    expect(remote.next()).toBe(inProcess.next());
  });

  it('refuses gradient attribution with a one-line message', async () => {
    await expect(remotes.sglang.embeddingGradientNorms()).rejects.toThrow(/gradient attribution needs the model's weights/);
  });
});
