import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { tokenLogprobs } from './logprobs';
import { sampleNoCache, sampleWithCache } from './sampler';
import { createTransformer, type Transformer } from './transformer';
import type { SampleOptions } from './types';

const config = { vocabSize: 11, contextLength: 24, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 };
const STOP = 2;

/** Fresh weights give near-uniform predictions; scaling them up makes distributions (and lengths) vary. */
function sharpModel(seed: number): Transformer {
  const model = createTransformer(config, new Rng(seed));
  for (const [name, v] of model.params) {
    if (!name.includes('ln')) v.assign(tf.tidy(() => tf.mul(v, name.includes('Embedding') ? 6 : 3)));
  }
  return model;
}

describe('sampling', () => {
  let model: Transformer;
  const prompts = [
    [1, 5, 6, 7, 3],
    [1, 9],
    [1, 4, 4, 8, 9, 10, 3, 5],
    [1, 3, 3],
  ];
  const options: SampleOptions = { temperature: 0.9, topP: 0.95, maxNewTokens: 10, stopToken: STOP };

  beforeAll(async () => {
    await initEngine({ quiet: true });
    model = sharpModel(1);
  });
  afterAll(() => model.dispose());

  it('gives the same tokens with and without the KV cache; logprobs and entropies within 1e-4', async () => {
    const cached = await sampleWithCache(model, prompts, options, new Rng(7));
    const plain = await sampleNoCache(model, prompts, options, new Rng(7));
    const lengths = cached.results.map((r) => r.tokens.length);
    expect(new Set(lengths).size).toBeGreaterThan(1); // rows really finish at different steps
    cached.results.forEach((r, i) => {
      const p = plain.results[i];
      expect(r.tokens).toEqual(p.tokens);
      expect(r.truncated).toBe(p.truncated);
      r.logprobs.forEach((lp, t) => expect(Math.abs(lp - p.logprobs[t])).toBeLessThan(1e-4));
      r.entropies.forEach((h, t) => expect(Math.abs(h - p.entropies[t])).toBeLessThan(1e-4));
      expect(r.truncated).toBe(r.tokens[r.tokens.length - 1] !== STOP);
      if (!r.truncated) expect(r.tokens.indexOf(STOP)).toBe(r.tokens.length - 1);
    });
    // Costs: the cache forwards each real token once (the last sampled token never needs forwarding).
    const promptTokens = prompts.reduce((n, p) => n + p.length, 0);
    const generated = lengths.reduce((a, b) => a + b, 0);
    expect(cached.cost).toEqual({
      tokensGenerated: generated,
      tokensForwarded: promptTokens + generated - prompts.length,
      forwardPasses: Math.max(...lengths),
    });
    expect(plain.cost.tokensGenerated).toBe(generated);
    expect(plain.cost.tokensForwarded).toBeGreaterThan(cached.cost.tokensForwarded);
  });

  it('identical prompts share one prefill: same draws as unshared sampling, prompt tokens counted once', async () => {
    // rows 0, 2, 3 and 5 ask for the same prompt, rows 1 and 4 for another; row order and rng stream as given
    const a = prompts[0];
    const b = prompts[2];
    const repeated = [a, b, a.slice(), a, b.slice(), a];
    const shared = await sampleWithCache(model, repeated, options, new Rng(21));
    const plain = await sampleNoCache(model, repeated, options, new Rng(21));
    const lengths = shared.results.map((r) => r.tokens.length);
    expect(new Set(shared.results.map((r) => r.tokens.join(','))).size).toBeGreaterThan(2); // the copies really diverge
    shared.results.forEach((r, i) => {
      expect(r.tokens).toEqual(plain.results[i].tokens);
      expect(r.truncated).toBe(plain.results[i].truncated);
      r.logprobs.forEach((lp, t) => expect(Math.abs(lp - plain.results[i].logprobs[t])).toBeLessThan(1e-4));
    });
    // the distinct prompts once, then one position per live row per decode step
    const generated = lengths.reduce((x, y) => x + y, 0);
    expect(shared.cost).toEqual({
      tokensGenerated: generated,
      tokensForwarded: a.length + b.length + generated - repeated.length,
      forwardPasses: Math.max(...lengths),
    });
  });

  it('reports each row the logprobs a full unpadded forward of that row gives', async () => {
    const { results } = await sampleWithCache(model, prompts, { ...options, temperature: 1, topP: 1 }, new Rng(3));
    results.forEach((r, i) => {
      const seq = [...prompts[i], ...r.tokens];
      const lp = tf.tidy(() => {
        const x = tf.tensor2d([seq.slice(0, -1)], undefined, 'int32');
        const y = tf.tensor2d([seq.slice(1)], undefined, 'int32');
        return tokenLogprobs(model, x, y).arraySync()[0];
      });
      const expected = lp.slice(prompts[i].length - 1);
      expect(expected).toHaveLength(r.logprobs.length);
      r.logprobs.forEach((v, t) => expect(Math.abs(v - expected[t])).toBeLessThan(1e-4));
    });
  });

  it('is a pure function of the seed and does not leak tensors', async () => {
    const withCopies = [...prompts, prompts[1], prompts[0]]; // shared prefills must not leak either
    await sampleWithCache(model, withCopies, options, new Rng(11)); // warm-up (kernel setup)
    const before = tf.memory().numTensors;
    const a = await sampleWithCache(model, withCopies, options, new Rng(11));
    const b = await sampleWithCache(model, withCopies, options, new Rng(11));
    await sampleNoCache(model, withCopies, options, new Rng(11));
    expect(tf.memory().numTensors).toBe(before);
    expect(b.results).toEqual(a.results);
    const c = await sampleWithCache(model, withCopies, options, new Rng(12));
    expect(c.results.map((r) => r.tokens)).not.toEqual(a.results.map((r) => r.tokens));
  });

  it('greedy (temperature 0) equals a tiny nucleus, and draws no random numbers', async () => {
    const rng = new Rng(5);
    const greedy = await sampleWithCache(model, prompts, { ...options, temperature: 0 }, rng);
    expect(rng.nextUint32()).toBe(new Rng(5).nextUint32());
    const nucleus = await sampleWithCache(model, prompts, { ...options, temperature: 1, topP: 1e-6 }, new Rng(99));
    expect(nucleus.results.map((r) => r.tokens)).toEqual(greedy.results.map((r) => r.tokens));
  });

  it('stops at maxNewTokens and at the end of the context, marking rows truncated', async () => {
    const never = { ...options, stopToken: 0 }; // pad id: the sharpened model never samples it here
    const { results } = await sampleWithCache(
      model,
      [[1, 5], Array.from({ length: 21 }, () => 7)],
      { ...never, maxNewTokens: 6 },
      new Rng(1),
    );
    expect(results[0].tokens).toHaveLength(6);
    expect(results[0].truncated).toBe(true);
    expect(results[1].tokens).toHaveLength(3); // 21 + 3 = contextLength 24
    expect(results[1].truncated).toBe(true);
    const zero = await sampleWithCache(model, [[1]], { ...options, maxNewTokens: 0 }, new Rng(1));
    expect(zero.results[0]).toEqual({ tokens: [], logprobs: [], entropies: [], truncated: true });
    expect(zero.cost.forwardPasses).toBe(0);
  });

  it('rejects bad options and prompts with the offending value', async () => {
    await expect(sampleWithCache(model, [[1]], { ...options, topP: 0 }, new Rng(1))).rejects.toThrow(/topP must be in \(0, 1\], got 0/);
    await expect(sampleWithCache(model, [[1, 99]], options, new Rng(1))).rejects.toThrow(/prompt 0 contains token 99/);
    await expect(sampleWithCache(model, [[]], options, new Rng(1))).rejects.toThrow(/prompt 0 is empty/);
    await expect(sampleWithCache(model, [Array(25).fill(1)], options, new Rng(1))).rejects.toThrow(
      /more than the model's contextLength 24/,
    );
  });
});
