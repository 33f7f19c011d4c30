import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { normwiseError, randomInts, randomNormal, describeNative, requireNativeKernels, runBoth } from './kernel-compare';
import type { NativeKernelSet } from './native-kernels';

/**
 * tfjs gradients are written in terms of ops, so backprop runs through the same native kernels as
 * the forward pass. Each composite is differentiated with the native kernels and with the stock
 * wasm kernels; gradients must agree to 1e-5 (normwise relative).
 */
describeNative('gradients through the native kernels', () => {
  let set: NativeKernelSet;
  const rng = new Rng(77);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  function compareGrads(f: (...xs: tf.Tensor[]) => tf.Scalar, inputs: tf.Tensor[]) {
    const g = tf.grads(f);
    const { native, stock } = runBoth(set, () => g(inputs));
    expect(native.length).toBe(inputs.length);
    native.forEach((r, i) => {
      expect(r.shape).toEqual(inputs[i].shape);
      expect(normwiseError(r.values, stock[i].values)).toBeLessThan(1e-5);
      expect(Array.from(r.values).every(Number.isFinite)).toBe(true);
    });
    tf.dispose(inputs);
  }

  it('matMul → transpose → softmax → weighted sum', () => {
    const w = randomNormal(rng, [3, 6, 5]);
    compareGrads(
      (a, b) => tf.sum(tf.mul(tf.softmax(tf.transpose(tf.matMul(a, b), [0, 2, 1])), w)),
      [randomNormal(rng, [3, 5, 4]), randomNormal(rng, [3, 4, 6])],
    );
  });

  it('transposed batched matmuls (attention scores and values)', () => {
    compareGrads(
      (q, k, v) => {
        const att = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 0.5)); // [2, 3, 7, 7]
        return tf.sum(tf.square(tf.matMul(att, v)));
      },
      [randomNormal(rng, [2, 3, 7, 4]), randomNormal(rng, [2, 3, 7, 4]), randomNormal(rng, [2, 3, 7, 4])],
    );
    // (tfjs-core's own BatchMatMul gradient does not reduce over broadcast batch dims, so batches match here.)
    compareGrads((a, b) => tf.mean(tf.matMul(a, b, true, true)), [randomNormal(rng, [4, 5, 3]), randomNormal(rng, [4, 2, 5])]);
  });

  it('layer norm with broadcasting gain and bias, GELU (pow, tanh), residual', () => {
    compareGrads(
      (x, g, b) => {
        const { mean, variance } = tf.moments(x, -1, true);
        const h = tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
        const inner = tf.mul(tf.add(h, tf.mul(tf.pow(h, 3), 0.044715)), Math.sqrt(2 / Math.PI));
        const gelu = tf.mul(tf.mul(h, 0.5), tf.add(1, tf.tanh(inner)));
        return tf.sum(tf.mul(tf.add(x, gelu), tf.sin(x)));
      },
      [randomNormal(rng, [4, 6, 8]), randomNormal(rng, [8]), randomNormal(rng, [8])],
    );
  });

  it('embedding lookup + position slice/tile + log-softmax cross-entropy', () => {
    const ids = randomInts(rng, [3, 5], 0, 9);
    const targets = tf.oneHot(randomInts(rng, [15], 0, 9), 10);
    compareGrads(
      (emb, pos) => {
        const x = tf.add(tf.reshape(tf.gather(emb, tf.reshape(ids, [-1])), [3, 5, 6]), tf.slice(pos, [0, 0], [5, 6]));
        const logits = tf.matMul(tf.reshape(x, [15, 6]), emb, false, true); // tied output layer [15, 10]
        const logp = tf.sub(logits, tf.logSumExp(logits, -1, true));
        return tf.neg(tf.mean(tf.sum(tf.mul(logp, targets), -1))) as tf.Scalar;
      },
      [randomNormal(rng, [10, 6]), randomNormal(rng, [8, 6])],
    );
    tf.dispose([ids, targets]);
  });

  it('split, concat, tile, max, relu, sigmoid and exp', () => {
    compareGrads(
      (x) => {
        const [a, b, c] = tf.split(x, 3, 1);
        const y = tf.concat([tf.relu(a), tf.sigmoid(b), tf.exp(tf.mul(c, 0.1))], 2);
        return tf.add(tf.sum(tf.tile(y, [1, 2, 1])), tf.sum(tf.max(y, 1)));
      },
      [randomNormal(rng, [2, 6, 4])],
    );
  });
});
