import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { embeddingGradientNorms, sequenceLogprobFromEmbeddings } from './gradients';
import { tokenLogprobs } from './logprobs';
import { createTransformer, type Transformer } from './transformer';

const base = { vocabSize: 7, contextLength: 10, dModel: 4, nLayers: 2, nHeads: 2, dFF: 8 };

describe.each(['gelu', 'relu'] as const)('embeddingGradientNorms (%s MLP)', (activation) => {
  const config = { ...base, activation };
  let model: Transformer;
  const sequence = [1, 4, 2, 6, 3, 3, 5, 0];
  beforeAll(async () => {
    await initEngine({ quiet: true });
    model = createTransformer(config, new Rng(3));
    for (const [name, v] of model.params) if (!name.includes('ln')) v.assign(tf.tidy(() => tf.mul(v, 20)));
  });
  afterAll(() => model.dispose());

  it('its objective is the summed token log-probabilities from targetFrom on', () => {
    const targetFrom = 3;
    const [objective, perToken] = tf.tidy(() => {
      const f = sequenceLogprobFromEmbeddings(
        model,
        model.embedFromStart(tf.tensor2d([sequence], undefined, 'int32')),
        sequence,
        targetFrom,
      ).dataSync()[0];
      const lp = tokenLogprobs(
        model,
        tf.tensor2d([sequence.slice(0, -1)], undefined, 'int32'),
        tf.tensor2d([sequence.slice(1)], undefined, 'int32'),
      ).arraySync()[0];
      return [f, lp];
    }) as unknown as [number, number[]];
    expect(objective).toBeCloseTo(
      perToken.slice(targetFrom - 1).reduce((a, b) => a + b, 0),
      4,
    );
  });

  it('matches central finite differences of the objective (|Δ| ≤ 1e-3 + 1% per position; measured ≤ 0.2%)', async () => {
    const targetFrom = 2;
    const { norms, cost } = await embeddingGradientNorms(model, sequence, targetFrom);
    expect(cost).toEqual({ tokensForwarded: 8, tokensGenerated: 0, forwardPasses: 1, tokensBackpropagated: 8 });
    const T = sequence.length;
    const C = config.dModel;
    const base = tf.tidy(() => model.embedFromStart(tf.tensor2d([sequence], undefined, 'int32')).arraySync()[0]);
    // float32 forward: h = 1e-2 balances rounding error (~1e-6/h) against truncation error (~h²).
    const h = 1e-2;
    const f = (e: number[][]) => tf.tidy(() => sequenceLogprobFromEmbeddings(model, tf.tensor3d([e]), sequence, targetFrom).dataSync()[0]);
    const fdNorms = base.map((row, t) => {
      let sum = 0;
      for (let c = 0; c < C; c++) {
        const plus = base.map((r) => [...r]);
        const minus = base.map((r) => [...r]);
        plus[t][c] += h;
        minus[t][c] -= h;
        sum += Math.abs((f(plus) - f(minus)) / (2 * h));
      }
      return sum;
    });
    expect(norms).toHaveLength(T);
    expect(norms[T - 1]).toBe(0); // the last input predicts nothing in the objective
    expect(Math.max(...norms)).toBeGreaterThan(0.1); // a non-trivial check
    norms.forEach((n, t) => expect(Math.abs(n - fdNorms[t])).toBeLessThanOrEqual(1e-3 + 0.01 * fdNorms[t]));
  });

  it('does not leak tensors and validates targetFrom', async () => {
    await embeddingGradientNorms(model, sequence, 1);
    const before = tf.memory().numTensors;
    await embeddingGradientNorms(model, sequence, 4);
    expect(tf.memory().numTensors).toBe(before);
    await expect(embeddingGradientNorms(model, sequence, 0)).rejects.toThrow(/targetFrom 0 must be an integer in 1\.\.8/);
    const lastOnly = await embeddingGradientNorms(model, sequence, 7); // only the last token is a target
    expect(lastOnly.norms.slice(0, 7).every((x) => x > 0)).toBe(true);
    const none = await embeddingGradientNorms(model, sequence, 8); // no targets: an empty sum
    expect(none.norms).toEqual(new Array(8).fill(0));
  });
});
