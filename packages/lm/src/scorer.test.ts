import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { naiveScore, scoreAfterPrefixes, scoreBatch } from './scorer';
import { createTransformer, type Transformer } from './transformer';
import type { SuffixRequest } from './types';

const config = { vocabSize: 13, contextLength: 24, dModel: 16, nLayers: 2, nHeads: 4, dFF: 32 };

function sharpModel(seed: number): Transformer {
  const model = createTransformer(config, new Rng(seed));
  for (const [name, v] of model.params) {
    if (!name.includes('ln')) v.assign(tf.tidy(() => tf.mul(v, name.includes('Embedding') ? 6 : 3)));
  }
  return model;
}

function randomCase(rng: Rng, T: number): { sequence: number[]; requests: SuffixRequest[] } {
  const sequence = Array.from({ length: T }, () => rng.int(0, config.vocabSize - 1));
  const exits = [1, T, 1, T, ...Array.from({ length: 10 }, () => rng.int(1, T))];
  const requests = exits.map((exitAt) => {
    const len = rng.int(0, Math.min(8, config.contextLength - exitAt));
    return { exitAt, suffix: Array.from({ length: len }, () => rng.int(0, config.vocabSize - 1)) };
  });
  requests.push({ exitAt: Math.min(3, T), suffix: [] }, { exitAt: T, suffix: [5] });
  return { sequence, requests };
}

function maxDiff(a: number[][], b: number[][]): number {
  expect(a.map((r) => r.length)).toEqual(b.map((r) => r.length));
  return Math.max(0, ...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));
}

describe('scoreAfterPrefixes', () => {
  let model: Transformer;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    model = sharpModel(4);
  });
  afterAll(() => model.dispose());

  it('equals forwarding every prefix ++ suffix from scratch (within 1e-4), at cost T + Σ|suffix| in 2 passes', async () => {
    const rng = new Rng(21);
    for (const T of [1, 6, 15]) {
      const { sequence, requests } = randomCase(rng, T);
      const fast = await scoreAfterPrefixes(model, sequence, requests);
      const slow = await naiveScore(model, sequence, requests);
      expect(maxDiff(fast.logprobs, slow.logprobs)).toBeLessThan(1e-4);
      expect(fast.logprobs.flat().every((x) => Number.isFinite(x) && x <= 0)).toBe(true);
      const suffixTokens = requests.reduce((n, r) => n + r.suffix.length, 0);
      expect(fast.cost).toEqual({ tokensForwarded: T + suffixTokens, tokensGenerated: 0, forwardPasses: 2 });
      expect(slow.cost.tokensForwarded).toBe(requests.reduce((n, r) => n + (r.suffix.length ? r.exitAt + r.suffix.length : 0), 0));
    }
  });

  it('gives the same numbers when split into several suffix batches or one request per row, still forwarding the prefix once', async () => {
    const { sequence, requests } = randomCase(new Rng(5), 12);
    const one = await scoreAfterPrefixes(model, sequence, requests);
    const many = await scoreAfterPrefixes(model, sequence, requests, { maxChunkElements: 1, rowTokens: 1 });
    expect(maxDiff(many.logprobs, one.logprobs)).toBeLessThan(1e-5);
    const nonEmpty = requests.filter((r) => r.suffix.length > 0).length;
    expect(many.cost.forwardPasses).toBe(1 + nonEmpty);
    expect(many.cost.tokensForwarded).toBe(one.cost.tokensForwarded);
  });

  it('scoreBatch over sequences of different lengths equals scoring each one alone (within 1e-5), whatever the packing', async () => {
    const rng = new Rng(33);
    const jobs = [15, 1, 9, 4, 12].map((T) => randomCase(rng, T));
    jobs.splice(2, 0, { sequence: [3, 4], requests: [{ exitAt: 1, suffix: [] }] }); // a job with nothing to score
    const alone = await Promise.all(jobs.map((j) => naiveScore(model, j.sequence, j.requests)));
    for (const options of [{}, { rowTokens: 5 }, { rowTokens: 1, maxChunkElements: 1, sequenceRowTokens: 1 }]) {
      const batched = await scoreBatch(model, jobs, options);
      expect(batched).toHaveLength(jobs.length);
      batched.forEach((res, j) => {
        expect(maxDiff(res.logprobs, alone[j].logprobs)).toBeLessThan(1e-4);
        const suffixTokens = jobs[j].requests.reduce((n, r) => n + r.suffix.length, 0);
        expect(res.cost.tokensForwarded).toBe(suffixTokens ? jobs[j].sequence.length + suffixTokens : 0);
      });
      if (!('rowTokens' in options)) expect(batched[0].cost.forwardPasses).toBe(2);
    }
    // No two of these fit in one pass-1 row: one sequence per row, shorter ones padded at the end (the broadcast causal mask)
    const singles = [15, 12, 10].map((T) => randomCase(rng, T));
    const singlesAlone = await Promise.all(singles.map((j) => naiveScore(model, j.sequence, j.requests)));
    (await scoreBatch(model, singles)).forEach((res, j) => expect(maxDiff(res.logprobs, singlesAlone[j].logprobs)).toBeLessThan(1e-4));
  });

  it('scoreBatch names the job and request of a bad input', async () => {
    await expect(
      scoreBatch(model, [
        { sequence: [1, 2], requests: [] },
        { sequence: [1, 2, 3], requests: [{ exitAt: 5, suffix: [1] }] },
      ]),
    ).rejects.toThrow(/scoreBatch: job 1: request 0 has exitAt 5/);
  });

  it('does not leak tensors', async () => {
    const { sequence, requests } = randomCase(new Rng(8), 10);
    await scoreAfterPrefixes(model, sequence, requests);
    const before = tf.memory().numTensors;
    await scoreAfterPrefixes(model, sequence, requests);
    await scoreBatch(model, [{ sequence, requests }, randomCase(new Rng(9), 4)], { rowTokens: 3 });
    await naiveScore(model, sequence, requests);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('handles no requests and only empty suffixes without any forward', async () => {
    expect(await scoreAfterPrefixes(model, [1, 2], [])).toEqual({
      logprobs: [],
      cost: { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 },
    });
    expect((await scoreAfterPrefixes(model, [1, 2], [{ exitAt: 2, suffix: [] }])).logprobs).toEqual([[]]);
  });

  it('rejects out-of-range exit points, tokens and lengths with the offending value', async () => {
    await expect(scoreAfterPrefixes(model, [1, 2, 3], [{ exitAt: 0, suffix: [1] }])).rejects.toThrow(
      /request 0 has exitAt 0, expected an integer in 1\.\.3/,
    );
    await expect(scoreAfterPrefixes(model, [1, 2, 3], [{ exitAt: 4, suffix: [1] }])).rejects.toThrow(/exitAt 4/);
    await expect(scoreAfterPrefixes(model, [1, 2, 3], [{ exitAt: 2, suffix: [13] }])).rejects.toThrow(/suffix token 13 is outside 0\.\.12/);
    await expect(scoreAfterPrefixes(model, [1, 2, 3], [{ exitAt: 3, suffix: Array(22).fill(1) }])).rejects.toThrow(
      /= 25, more than contextLength 24/,
    );
    await expect(scoreAfterPrefixes(model, [], [])).rejects.toThrow(/empty/);
  });
});
