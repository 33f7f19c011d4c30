import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { sampleWithCache } from './sampler';
import { scoreBatch } from './scorer';
import { pooledKeptBytes, TransformerSequenceCache } from './sequence-cache';
import { createTransformer, type Transformer } from './transformer';
import type { SampleOptions, SampleResult, ScoreJob } from './types';

/** The cache handoff: the sampler keeps each finished row's cache, scoreBatch starts from it. */
const config = { vocabSize: 13, contextLength: 40, dModel: 16, nLayers: 2, nHeads: 4, dFF: 32 };
const options: SampleOptions = { temperature: 1, topP: 1, maxNewTokens: 14, stopToken: 12 };

function maxDiff(a: number[][], b: number[][]): number {
  expect(a.map((r) => r.length)).toEqual(b.map((r) => r.length));
  return Math.max(0, ...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));
}

/** Exit points at every sampled position of the row (prompt length .. cache length), 1-4 token suffixes. */
function jobOf(prompt: number[], result: SampleResult, rng: Rng): ScoreJob {
  const sequence = [...prompt, ...result.tokens.slice(0, -1)];
  const requests = Array.from({ length: sequence.length - prompt.length + 1 }, (_, t) => ({
    exitAt: prompt.length + t,
    suffix: Array.from({ length: rng.int(1, 4) }, () => rng.int(0, config.vocabSize - 1)),
  }));
  return { sequence, requests, cache: result.cache };
}

describe('sampler cache handoff', () => {
  let model: Transformer;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    model = createTransformer(config, new Rng(3));
  });
  afterAll(() => model.dispose());

  // Prompts of different lengths (left padding), two identical ones (a shared prefill).
  const prompts = [[1, 2, 3], [4, 5], [1, 2, 3], [6, 7, 8, 9, 10], [11]];

  it('does not change the draws; every finished row has a cache of prompt + generated − 1 tokens', async () => {
    const plain = await sampleWithCache(model, prompts, options, new Rng(9));
    const tensors = tf.memory().numTensors;
    const kept = await sampleWithCache(model, prompts, { ...options, keepCache: true }, new Rng(9));
    expect(tf.memory().numTensors).toBe(tensors); // the kept caches are JS memory, not tensors
    expect(kept.results.map((r) => r.tokens)).toEqual(plain.results.map((r) => r.tokens));
    expect(kept.results.map((r) => r.logprobs)).toEqual(plain.results.map((r) => r.logprobs));
    expect(kept.cost).toEqual(plain.cost);
    expect(plain.results.every((r) => r.cache === undefined)).toBe(true);
    kept.results.forEach((r, i) => expect(r.cache?.length).toBe(prompts[i].length + r.tokens.length - 1));
    // Rows 0 and 2 share a prompt: its K/V are kept once, for both; every other row has a prompt part of its own.
    const kv = kept.results.map((r) => (r.cache as TransformerSequenceCache).kv());
    kv[0].forEach((layer, l) => expect(layer.prompt).toBe(kv[2][l].prompt));
    expect(new Set(kv.map((layers) => layers[0].prompt)).size).toBe(4);
    kv.forEach((layers, i) =>
      layers.forEach((layer) => expect(layer.own.length + layer.prompt.length).toBe(kept.results[i].cache!.length)),
    );
    kept.results.forEach((r) => r.cache!.release());
  });

  it('scoring from the caches equals scoring without them (1e-4) and forwards only the suffixes', async () => {
    const rng = new Rng(5);
    const { results } = await sampleWithCache(model, prompts, { ...options, keepCache: true }, new Rng(11));
    const jobs = results.map((r, i) => jobOf(prompts[i], r, rng));
    const before = tf.memory().numTensors;
    const withCache = await scoreBatch(model, jobs);
    expect(tf.memory().numTensors).toBe(before); // scoring frees what it made and keeps the caches
    const without = await scoreBatch(
      model,
      jobs.map(({ sequence, requests }) => ({ sequence, requests })),
    );
    jobs.forEach((job, j) => {
      expect(maxDiff(withCache[j].logprobs, without[j].logprobs)).toBeLessThan(1e-4);
      const suffixTokens = job.requests.reduce((n, r) => n + r.suffix.length, 0);
      expect(withCache[j].cost.tokensForwarded).toBe(suffixTokens);
      expect(without[j].cost.tokensForwarded).toBe(job.sequence.length + suffixTokens);
    });
    // All cached, packed other ways: several suffix rows per job, out of job order, and one row per chunk
    // (each chunk stacks its own rows' caches); one job alone over several rows.
    for (const packing of [{ rowTokens: 2 }, { rowTokens: 1, maxChunkElements: 1 }]) {
      const repacked = await scoreBatch(model, jobs, packing);
      jobs.forEach((_, j) => expect(maxDiff(repacked[j].logprobs, without[j].logprobs)).toBeLessThan(1e-4));
    }
    const alone = await scoreBatch(model, [jobs[1]], { rowTokens: 2 });
    expect(maxDiff(alone[0].logprobs, without[1].logprobs)).toBeLessThan(1e-4);
    expect(tf.memory().numTensors).toBe(before);
    // Mixed: some jobs with their cache, one without, one whose cache is not its sequence's (ignored).
    const mixed: ScoreJob[] = [
      jobs[0],
      { sequence: jobs[1].sequence, requests: jobs[1].requests },
      { ...jobs[2], cache: jobs[3].cache },
      jobs[4],
    ];
    const out = await scoreBatch(model, mixed);
    const expectedTokens = [0, jobs[1].sequence.length, jobs[2].sequence.length, 0];
    mixed.forEach((job, j) => {
      expect(maxDiff(out[j].logprobs, without[[0, 1, 2, 4][j]].logprobs)).toBeLessThan(1e-4);
      expect(out[j].cost.tokensForwarded).toBe(expectedTokens[j] + job.requests.reduce((n, r) => n + r.suffix.length, 0));
    });
    // A cache longer than its job's sequence (the trainer scores up to the last exit point; the answer follows):
    // the positions past the sequence are never visible, so cutting the sequence changes nothing it scores.
    const cut = jobs.map((job) => {
      const keep = Math.max(prompts[0].length, job.sequence.length - 2);
      return { ...job, sequence: job.sequence.slice(0, keep), requests: job.requests.filter((r) => r.exitAt <= keep) };
    });
    const cutOut = await scoreBatch(model, cut);
    cut.forEach((job, j) => {
      const kept = job.requests.length;
      expect(maxDiff(cutOut[j].logprobs, without[j].logprobs.slice(0, kept))).toBeLessThan(1e-4);
      expect(cutOut[j].cost.tokensForwarded).toBe(job.requests.reduce((n, r) => n + r.suffix.length, 0));
    });
    for (const r of results) r.cache!.release();
    expect(tf.memory().numTensors).toBe(before);
    expect(results.every((r) => (r.cache as TransformerSequenceCache).released)).toBe(true); // release drops every K/V
    // A released cache is ignored: the job is scored from its sequence.
    const again = await scoreBatch(model, [jobs[0]]);
    expect(maxDiff(again[0].logprobs, without[0].logprobs)).toBeLessThan(1e-4);
    expect(again[0].cost.tokensForwarded).toBe(jobs[0].sequence.length + jobs[0].requests.reduce((n, r) => n + r.suffix.length, 0));
  });

  it('a request before the sampled positions (exitAt inside the prompt) is scored without the cache', async () => {
    const { results } = await sampleWithCache(model, [prompts[3]], { ...options, keepCache: true }, new Rng(2));
    const sequence = [...prompts[3], ...results[0].tokens.slice(0, -1)];
    const requests = [
      { exitAt: 2, suffix: [3, 4] },
      { exitAt: sequence.length, suffix: [5] },
    ];
    const [cached] = await scoreBatch(model, [{ sequence, requests, cache: results[0].cache }]);
    const [plain] = await scoreBatch(model, [{ sequence, requests }]);
    expect(maxDiff(cached.logprobs, plain.logprobs)).toBeLessThan(1e-4);
    expect(cached.cost.tokensForwarded).toBe(sequence.length + 3);
    results[0].cache!.release();
  });

  it("recycles released caches' buffers: a shared prompt only once its last row releases it, then the next sample reuses them with the same scores", async () => {
    const score = async (results: SampleResult[]) =>
      (
        await scoreBatch(
          model,
          results.map((r, i) => jobOf(prompts[i], r, new Rng(i))),
        )
      ).map((r) => r.logprobs);
    const first = await sampleWithCache(model, prompts, { ...options, keepCache: true }, new Rng(4));
    const expected = await score(first.results);
    const kv = first.results.map((r) => (r.cache as TransformerSequenceCache).kv());
    const before = pooledKeptBytes();
    first.results[0].cache!.release(); // row 2 still holds the prompt it shares with row 0
    first.results[0].cache!.release(); // idempotent: no second return
    const ownOnly = pooledKeptBytes() - before;
    expect(ownOnly).toBeGreaterThan(0);
    expect(kv[2][0].prompt.k.every(Number.isFinite)).toBe(true);
    for (const r of first.results.slice(1)) r.cache!.release();
    expect(pooledKeptBytes()).toBeGreaterThan(before + ownOnly);
    const pooled = pooledKeptBytes();
    const second = await sampleWithCache(model, prompts, { ...options, keepCache: true }, new Rng(4)); // the same draws, kept in reused buffers
    expect(pooledKeptBytes()).toBeLessThan(pooled);
    const got = await score(second.results);
    got.forEach((lp, j) => expect(maxDiff(lp, expected[j])).toBe(0));
    for (const r of second.results) r.cache!.release();
  });
});
