import { Rng } from '@rred/core';
import { engineInfo, initEngine, setNativeKernelsEnabled, tf } from '@rred/engine';
import { layerNorm, linear } from './layers';
import { tokenLogprobs } from './logprobs';
import { createTransformer } from './transformer';

/**
 * layers.ts delegates GELU (inside the dense layer, as the MLP runs it) and LayerNorm to the engine's
 * fused ops. These tests pin the function they compute to the tf-op composites the layer held before
 * (written out again here as the reference), so every checkpoint trained with the composites behaves
 * identically.
 */

/** The previous layer: GELU, tanh form, as tf ops. */
function geluBefore(x: tf.Tensor): tf.Tensor {
  const cubic = tf.mul(tf.mul(tf.square(x), x), 0.044715);
  const inner = tf.mul(tf.add(x, cubic), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

/** The previous layer: LayerNorm over the last axis with ε = 1e-5, as tf ops. */
function layerNormBefore(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const centred = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centred), -1, true);
  return tf.add(tf.mul(tf.mul(centred, tf.rsqrt(tf.add(variance, 1e-5))), gamma), beta);
}

/** GELU as the model computes it: the MLP's `linear(x, w, b, 'gelu')`, here with w = I and b = 0 (exact in float32). */
function gelu(x: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const C = x.shape[x.rank - 1] ?? 1;
    const rows = tf.reshape(x, [-1, C]) as tf.Tensor2D;
    return tf.reshape(linear(rows, tf.eye(C) as tf.Tensor2D, tf.zeros([C]) as tf.Tensor1D, 'gelu'), x.shape);
  });
}

function normal(rng: Rng, shape: number[], scale = 1): tf.Tensor {
  const n = shape.reduce((a, b) => a * b, 1);
  return tf.tensor(
    Float32Array.from({ length: n }, () => scale * rng.normal()),
    shape,
    'float32',
  );
}

/** Largest |a − b| over max(|b|, floor): relative error with an absolute floor for values near 0. */
function maxRelError(a: tf.Tensor, b: tf.Tensor, floor: number): number {
  const av = a.dataSync();
  const bv = b.dataSync();
  expect(a.shape).toEqual(b.shape);
  let worst = 0;
  for (let i = 0; i < av.length; i++) {
    if (!Number.isFinite(av[i]) || !Number.isFinite(bv[i])) return Infinity;
    worst = Math.max(worst, Math.abs(av[i] - bv[i]) / Math.max(Math.abs(bv[i]), floor));
  }
  return worst;
}

describe('layers: fused GELU and LayerNorm compute the previous composites', () => {
  beforeAll(async () => {
    await initEngine({ quiet: true });
  });

  it('runs on the fused path when the native kernels are present (so the comparison means something)', () => {
    // On plain wasm/cpu the engine falls back to the same composites and the tests below hold trivially.
    if (engineInfo().backend === 'wasm+native')
      expect(engineInfo().nativeKernels).toEqual(
        expect.arrayContaining([expect.stringMatching(/linear/i), expect.stringMatching(/layernorm/i)]),
      );
  });

  it('gelu equals the tanh-form composite within 1e-5, value and gradient', () => {
    const rng = new Rng(11);
    for (const shape of [[5], [64, 512], [3, 7, 9]]) {
      const x = normal(rng, shape, 3);
      const w = normal(rng, shape);
      const loss = (f: (t: tf.Tensor) => tf.Tensor) => (t: tf.Tensor) => tf.sum(tf.mul(f(t), w)) as tf.Scalar;
      const [yNew, gNew] = tf.tidy(() => [gelu(x), tf.grad(loss(gelu))(x)]);
      const [yOld, gOld] = tf.tidy(() => [geluBefore(x), tf.grad(loss(geluBefore))(x)]);
      // Absolute below |y| = 1, relative above: the composite's 1 + tanh(u) cancels for x ≪ 0, so its
      // small outputs are only accurate to float32 rounding of 1 (~4e-7 absolute, measured against float64).
      expect(maxRelError(yNew, yOld, 1)).toBeLessThan(1e-5);
      expect(maxRelError(gNew, gOld, 1)).toBeLessThan(1e-5);
      tf.dispose([x, w, yNew, gNew, yOld, gOld]);
    }
  });

  it('gelu is the tanh form, not the erf form (they differ by ~4.7e-4 at x = −2.7)', () => {
    const x = -2.7;
    const y = tf.tidy(() => gelu(tf.scalar(x)).dataSync()[0]);
    const tanhForm = 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
    const erfForm = 0.5 * x * (1 + erf(x / Math.SQRT2));
    expect(Math.abs(y - tanhForm)).toBeLessThan(1e-6);
    expect(Math.abs(y - erfForm)).toBeGreaterThan(3e-4);
  });

  it('layerNorm equals the ε = 1e-5 composite within 1e-5, value and all three gradients', () => {
    const rng = new Rng(12);
    for (const shape of [
      [6, 128],
      [2, 5, 16],
      [1, 3],
    ]) {
      const C = shape[shape.length - 1];
      const x = tf.add(normal(rng, shape, 2), 0.7);
      const g = normal(rng, [C]);
      const b = normal(rng, [C]);
      const w = normal(rng, shape);
      const loss = (f: (x: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => tf.Tensor) => (xx: tf.Tensor, gg: tf.Tensor, bb: tf.Tensor) =>
        tf.sum(tf.mul(f(xx, gg, bb), w)) as tf.Scalar;
      const fresh = (xx: tf.Tensor, gg: tf.Tensor, bb: tf.Tensor) => layerNorm(xx, gg as tf.Tensor1D, bb as tf.Tensor1D);
      const outNew = tf.tidy(() => [fresh(x, g, b), ...tf.grads(loss(fresh))([x, g, b])]);
      const outOld = tf.tidy(() => [layerNormBefore(x, g, b), ...tf.grads(loss(layerNormBefore))([x, g, b])]);
      for (let i = 0; i < 4; i++) expect(maxRelError(outNew[i], outOld[i], 1)).toBeLessThan(1e-5);
      tf.dispose([x, g, b, w, ...outNew, ...outOld]);
    }
  });

  it('a default-width transformer gives the same token log-probs with the fused ops on and off', () => {
    // Switching the native kernels off routes gelu/layerNorm through the composites (and matmuls through
    // stock wasm); the log-probs must agree to float32 rounding.
    const rng = new Rng(13);
    const model = createTransformer({ vocabSize: 40, contextLength: 48, nLayers: 2 }, rng.fork('init'));
    const rows = Array.from({ length: 3 }, () => Array.from({ length: 33 }, () => rng.int(0, 39)));
    const inputs = tf.tensor2d(
      rows.map((r) => r.slice(0, 32)),
      undefined,
      'int32',
    );
    const targets = tf.tensor2d(
      rows.map((r) => r.slice(1)),
      undefined,
      'int32',
    );
    const fused = tf.tidy(() => tokenLogprobs(model, inputs, targets));
    const switched = setNativeKernelsEnabled(false);
    try {
      const plain = tf.tidy(() => tokenLogprobs(model, inputs, targets));
      expect(maxRelError(fused, plain, 1)).toBeLessThan(1e-5);
      plain.dispose();
    } finally {
      if (switched) setNativeKernelsEnabled(true);
    }
    tf.dispose([fused, inputs, targets]);
    model.dispose();
  });
});

/** erf by Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7), only to show the erf GELU is a different function. */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}
