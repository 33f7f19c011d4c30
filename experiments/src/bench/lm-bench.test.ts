import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { createTransformer, Tokenizer, TransformerLM } from '@rred/lm';
import { evenExitPoints, naiveBatchedScore } from './lm-bench';

describe('lm bench helpers', () => {
  beforeAll(async () => {
    await initEngine({ quiet: true });
  });

  it('evenExitPoints: distinct, from the prompt end to the end of the thinking', () => {
    expect(evenExitPoints(10, 19, 20)).toEqual(Array.from({ length: 20 }, (_, k) => 10 + k));
    const points = evenExitPoints(7, 53, 20);
    expect(points[0]).toBe(7);
    expect(points[19]).toBe(60);
    for (let k = 1; k < points.length; k++) expect(points[k]).toBeGreaterThan(points[k - 1]);
    expect(() => evenExitPoints(5, 10, 20)).toThrow(/cannot hold 20/);
  });

  it('the padded naive-batched baseline scores exactly what the prefix-sharing scorer does', async () => {
    const rng = new Rng(5);
    const tokenizer = Tokenizer.fromAlphabet('0123456789+-=;?abc\n');
    const lm = new TransformerLM(
      createTransformer({ vocabSize: tokenizer.vocabSize, contextLength: 48, nLayers: 2, dModel: 32, dFF: 64 }, rng.fork('init')),
      tokenizer,
    );
    const sequence = Array.from({ length: 30 }, () => rng.int(5, tokenizer.vocabSize - 1));
    // suffixes of different lengths, so rows are padded differently
    const requests = evenExitPoints(4, 26, 6).map((exitAt, k) => ({
      exitAt,
      suffix: Array.from({ length: 2 + (k % 3) }, () => rng.int(0, tokenizer.vocabSize - 1)),
    }));
    const shared = await lm.scoreAfterPrefixes(sequence, requests);
    const batched = await naiveBatchedScore(lm, sequence, requests);
    expect(batched.logprobs.map((r) => r.length)).toEqual(requests.map((r) => r.suffix.length));
    batched.logprobs.forEach((row, i) => row.forEach((x, j) => expect(Math.abs(x - shared.logprobs[i][j])).toBeLessThan(1e-4)));
    const longest = Math.max(...requests.map((r) => r.exitAt + r.suffix.length));
    expect(batched.positions).toBe(requests.length * (longest - 1));
    expect(batched.realTokens).toBe(requests.reduce((n, r) => n + r.exitAt + r.suffix.length, 0));
    lm.dispose();
  });
});
