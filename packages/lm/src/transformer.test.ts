import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { parseModelConfig } from './config';
import { tokenLogprobs } from './logprobs';
import { createTransformer, parameterShapes } from './transformer';

const tiny = { vocabSize: 11, contextLength: 16, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 };

function randomTokens(rng: Rng, B: number, T: number, V: number): number[][] {
  return Array.from({ length: B }, () => Array.from({ length: T }, () => rng.int(0, V - 1)));
}

describe('Transformer', () => {
  beforeAll(async () => {
    await initEngine({ quiet: true });
  });

  it('has the documented default size and counts its parameters', () => {
    const config = parseModelConfig({ vocabSize: 40 });
    expect(config).toMatchObject({ contextLength: 160, dModel: 128, nLayers: 4, nHeads: 4, dFF: 512 });
    const count = parameterShapes(config).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
    expect(count).toBeGreaterThan(700_000);
    expect(count).toBeLessThan(1_200_000);
    const model = createTransformer(tiny, new Rng(1));
    expect(model.paramCount).toBe(parameterShapes(parseModelConfig(tiny)).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0));
    model.dispose();
  });

  it('rejects a bad config naming the field', () => {
    expect(() => parseModelConfig({ vocabSize: 10, dModel: 10, nHeads: 4 })).toThrow(/dModel.*multiple of nHeads/);
    expect(() => parseModelConfig({ vocabSize: 10, layers: 2 })).toThrow(/unknown key 'layers'/);
  });

  it('initialises deterministically from the rng seed', () => {
    const a = createTransformer(tiny, new Rng(5));
    const b = createTransformer(tiny, new Rng(5));
    const c = createTransformer(tiny, new Rng(6));
    const wa = a.params.get('blocks.1.attn.wQkv')!.dataSync();
    expect(Array.from(b.params.get('blocks.1.attn.wQkv')!.dataSync())).toEqual(Array.from(wa));
    expect(Array.from(c.params.get('blocks.1.attn.wQkv')!.dataSync())).not.toEqual(Array.from(wa));
    [a, b, c].forEach((m) => m.dispose());
  });

  it('tokenLogprobs equals a log-softmax of the logits computed by hand', () => {
    const rng = new Rng(2);
    const model = createTransformer(tiny, rng.fork('init'));
    const tokens = randomTokens(rng, 3, 9, tiny.vocabSize);
    const inputs = tf.tensor2d(
      tokens.map((r) => r.slice(0, 8)),
      undefined,
      'int32',
    );
    const targets = tf.tensor2d(
      tokens.map((r) => r.slice(1)),
      undefined,
      'int32',
    );
    const lp = tokenLogprobs(model, inputs, targets).arraySync();
    const logits = model.logits(inputs).arraySync();
    for (let b = 0; b < 3; b++) {
      for (let t = 0; t < 8; t++) {
        const row = logits[b][t];
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
        expect(lp[b][t]).toBeCloseTo(row[tokens[b][t + 1]] - lse, 5);
      }
    }
    tf.dispose([inputs, targets]);
    model.dispose();
  });

  it('is causal: later tokens (and right padding) do not change earlier logits', () => {
    const rng = new Rng(3);
    const model = createTransformer(tiny, rng.fork('init'));
    const base = randomTokens(rng, 1, 12, tiny.vocabSize)[0];
    const changed = [...base.slice(0, 7), ...base.slice(7).map((t) => (t + 1) % tiny.vocabSize)];
    const x = tf.tensor2d([base, changed], undefined, 'int32');
    const logits = model.logits(x).arraySync();
    for (let t = 0; t < 7; t++) for (let v = 0; v < tiny.vocabSize; v++) expect(logits[1][t][v]).toBeCloseTo(logits[0][t][v], 5);
    expect(Math.abs(logits[1][8][0] - logits[0][8][0])).toBeGreaterThan(1e-6);
    x.dispose();
    model.dispose();
  });

  it('has finite, non-zero gradients for every parameter on this backend', () => {
    const rng = new Rng(4);
    const model = createTransformer(tiny, rng.fork('init'));
    const tokens = randomTokens(rng, 2, 10, tiny.vocabSize);
    const inputs = tf.tensor2d(
      tokens.map((r) => r.slice(0, 9)),
      undefined,
      'int32',
    );
    const targets = tf.tensor2d(
      tokens.map((r) => r.slice(1)),
      undefined,
      'int32',
    );
    const before = tf.memory().numTensors;
    const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogprobs(model, inputs, targets))) as tf.Scalar, model.variables());
    expect(Number.isFinite(value.dataSync()[0])).toBe(true);
    expect(Object.keys(grads)).toHaveLength(model.params.size);
    for (const [name, g] of Object.entries(grads)) {
      const data = g.dataSync();
      expect(data.every(Number.isFinite)).toBe(true);
      if (!name.includes('positionEmbedding')) expect(data.some((d) => d !== 0)).toBe(true);
    }
    tf.dispose([value, ...Object.values(grads)]);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([inputs, targets]);
    model.dispose();
  });

  it('weight gradients match a central finite difference along a random direction (within 1%)', () => {
    const rng = new Rng(6);
    const model = createTransformer({ ...tiny, activation: 'gelu' }, rng.fork('init'));
    for (const [name, v] of model.params) if (!name.includes('ln')) v.assign(tf.tidy(() => tf.mul(v, 5)));
    const tokens = randomTokens(rng, 2, 8, tiny.vocabSize);
    const inputs = tf.tensor2d(
      tokens.map((r) => r.slice(0, 7)),
      undefined,
      'int32',
    );
    const targets = tf.tensor2d(
      tokens.map((r) => r.slice(1)),
      undefined,
      'int32',
    );
    const loss = () => tf.sum(tokenLogprobs(model, inputs, targets)) as tf.Scalar;
    for (const name of ['tokenEmbedding', 'blocks.0.attn.wQkv', 'blocks.1.mlp.wIn', 'lnFinal.gamma']) {
      const variable = model.params.get(name)!;
      const { grads } = tf.variableGrads(loss, [variable]);
      const g = grads[variable.name];
      const raw = Array.from({ length: variable.size }, () => rng.normal());
      const norm = Math.hypot(...raw);
      const direction = tf.tensor(
        raw.map((x) => x / norm),
        variable.shape,
      ); // unit norm: h is the step length
      const analytic = tf.sum(tf.mul(g, direction)).dataSync()[0];
      const original = variable.clone();
      const h = 1e-2;
      const at = (sign: number) => {
        variable.assign(tf.tidy(() => tf.add(original, tf.mul(direction, sign * h))));
        return tf.tidy(() => loss().dataSync()[0]);
      };
      const numeric = (at(1) - at(-1)) / (2 * h);
      variable.assign(original);
      expect(Math.abs(analytic - numeric)).toBeLessThanOrEqual(1e-3 + 0.01 * Math.abs(numeric));
      expect(Math.abs(numeric)).toBeGreaterThan(1e-2); // the direction really moves the loss
      tf.dispose([g, direction, original]);
    }
    tf.dispose([inputs, targets]);
    model.dispose();
  });

  it('clones into independent variables and copies weights back', () => {
    const a = createTransformer(tiny, new Rng(8));
    const b = a.clone();
    const name = 'blocks.0.mlp.wIn';
    const original = Array.from(a.params.get(name)!.dataSync());
    expect(Array.from(b.params.get(name)!.dataSync())).toEqual(original);
    tf.tidy(() => a.params.get(name)!.assign(tf.zerosLike(a.params.get(name)!)));
    expect(Array.from(b.params.get(name)!.dataSync())).toEqual(original); // b is not a view of a
    a.copyWeightsFrom(b);
    expect(Array.from(a.params.get(name)!.dataSync())).toEqual(original);
    a.dispose();
    b.dispose();
  });
});
