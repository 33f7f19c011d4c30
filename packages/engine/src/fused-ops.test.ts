import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { adamwStep, geluComposite, layerNorm, layerNormComposite, linear, sumOfSquares } from './fused-ops';
import {
  elementwiseMismatch,
  normwiseError,
  randomNormal,
  describeNative,
  requireNativeKernels,
  runBoth,
  runNative,
} from './kernel-compare';
import type { NativeKernelSet } from './native-kernels';

/** GELU as the fused dense layer computes it: linear(x, I, 0, 'gelu') over the last axis (x·I is exact in float32). */
function gelu(x: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const C = x.shape[x.rank - 1];
    const rows = tf.reshape(x, [-1, C]) as tf.Tensor2D;
    return tf.reshape(linear(rows, tf.eye(C) as tf.Tensor2D, tf.zeros([C]) as tf.Tensor1D, 'gelu'), x.shape);
  });
}

describeNative('fused GELU (the dense layer epilogue) and layerNorm', () => {
  let set: NativeKernelSet;
  const rng = new Rng(3);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  /** GELU and its derivative in float64. */
  function geluRef(v: number): [number, number] {
    const c = Math.sqrt(2 / Math.PI);
    const u = c * (v + 0.044715 * v ** 3);
    const s = 1 / (1 + Math.exp(-2 * u));
    return [v * s, s + 2 * v * s * (1 - s) * c * (1 + 3 * 0.044715 * v * v)];
  }

  it('gelu (linear.c): the fused kernel is within 1e-5 relative of float64 and matches the tfjs composite', () => {
    for (const shape of [[7], [4, 9], [256, 160]]) {
      const x = randomNormal(rng, shape, 2.5);
      const w = randomNormal(rng, shape);
      const [fused, fusedGrad] = runNative(set, () => [gelu(x), tf.grad((t: tf.Tensor) => tf.sum(tf.mul(gelu(t), w)))(x)]);
      const [comp, compGrad] = runNative(set, () => [geluComposite(x), tf.grad((t: tf.Tensor) => tf.sum(tf.mul(geluComposite(t), w)))(x)]);
      const xv = x.dataSync();
      const wv = w.dataSync();
      const ref = Float64Array.from(xv, (v) => geluRef(v)[0]);
      const refGrad = Float64Array.from(xv, (v, i) => geluRef(v)[1] * wv[i]);
      expect(elementwiseMismatch(fused.values, ref, 1e-5, 1e-30)).toBeNull();
      expect(elementwiseMismatch(fusedGrad.values, refGrad, 1e-5, 1e-6)).toBeNull();
      // The composite computes 1 + tanh(u), which cancels for x << 0: compare with an absolute floor.
      expect(elementwiseMismatch(fused.values, comp.values, 1e-5, 1e-6)).toBeNull();
      expect(normwiseError(fusedGrad.values, compGrad.values)).toBeLessThan(1e-5);
      tf.dispose([x, w]);
    }
  });

  it('layerNorm: the fused kernel equals the tfjs composite, values and all three gradients', () => {
    for (const shape of [
      [3, 5, 7],
      [1, 1],
      [300, 128],
      [6, 33],
    ]) {
      const C = shape[shape.length - 1];
      const x = tf.add(randomNormal(rng, shape, 3), 1.5);
      const g = randomNormal(rng, [C]);
      const b = randomNormal(rng, [C]);
      const w = randomNormal(rng, shape);
      const loss = (f: typeof layerNorm) => (xx: tf.Tensor, gg: tf.Tensor, bb: tf.Tensor) =>
        tf.sum(tf.mul(f(xx, gg as tf.Tensor1D, bb as tf.Tensor1D), w)) as tf.Scalar;
      const fused = runNative(set, () => [layerNorm(x, g as tf.Tensor1D, b as tf.Tensor1D), ...tf.grads(loss(layerNorm))([x, g, b])]);
      const comp = runNative(set, () => [
        layerNormComposite(x, g as tf.Tensor1D, b as tf.Tensor1D),
        ...tf.grads(loss(layerNormComposite))([x, g, b]),
      ]);
      expect(fused[0].shape).toEqual(shape);
      expect(normwiseError(fused[0].values, comp[0].values)).toBeLessThan(1e-5);
      for (let i = 1; i < 4; i++) {
        expect(fused[i].shape).toEqual(comp[i].shape);
        expect(normwiseError(fused[i].values, comp[i].values)).toBeLessThan(1e-5);
      }
      tf.dispose([x, g, b, w]);
    }
  });

  it('without native kernels the same calls run the composites (same numbers)', () => {
    const x = randomNormal(rng, [5, 8]);
    const g = randomNormal(rng, [8]) as tf.Tensor1D;
    const b = randomNormal(rng, [8]) as tf.Tensor1D;
    const { native, stock } = runBoth(set, () => [gelu(x), layerNorm(x, g, b)]);
    expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
    expect(normwiseError(native[1].values, stock[1].values)).toBeLessThan(1e-5);
    tf.dispose([x, g, b]);
  });

  it('rejects gamma/beta that do not match the last axis', () => {
    const x = tf.ones([2, 4]);
    expect(() => layerNorm(x, tf.ones([3]) as tf.Tensor1D, tf.zeros([4]) as tf.Tensor1D)).toThrow(
      'layerNorm: x [2,4] needs gamma and beta of shape [4], got [3] and [4]',
    );
    x.dispose();
  });

  it('propagates NaN through both fused kernels', () => {
    const x = tf.tensor2d([
      [NaN, 1, 2],
      [0, 1, 2],
    ]);
    const [gy, ly] = runNative(set, () => [gelu(x), layerNorm(x, tf.ones([3]) as tf.Tensor1D, tf.zeros([3]) as tf.Tensor1D)]);
    expect(Number.isNaN(gy.values[0])).toBe(true);
    expect(Array.from(ly.values.slice(0, 3)).every(Number.isNaN)).toBe(true);
    expect(Array.from(ly.values.slice(3)).some(Number.isNaN)).toBe(false);
    x.dispose();
  });

  it('adamwStep: the fused kernel equals the composite update (1e-6 normwise; FMA rounding differs under cancellation), with and without decay and a gradient scale', () => {
    const shape = [200, 180];
    const p = randomNormal(rng, shape);
    const g = randomNormal(rng, shape, 0.1);
    const m = randomNormal(rng, shape, 0.01);
    const v = tf.abs(randomNormal(rng, shape, 0.001));
    for (const [weightDecay, gradScale] of [
      [0, 1],
      [0.1, 1],
      [0.1, 0.37], // the global-norm clip's factor, applied inside the kernel
    ]) {
      const h = { lr: 3e-3, beta1: 0.9, beta2: 0.95, epsilon: 1e-8, weightDecay, step: 7, gradScale };
      const { native, stock } = runBoth(set, () => {
        const r = adamwStep(p, g, m, v, h);
        return [r.param, r.m, r.v];
      });
      native.forEach((r, i) => expect(normwiseError(r.values, stock[i].values)).toBeLessThan(1e-6));
    }
    expect(() => adamwStep(p, tf.zeros([3]), m, v, { lr: 1, beta1: 0.9, beta2: 0.9, epsilon: 1e-8, weightDecay: 0, step: 1 })).toThrow(
      /grad has shape \[3\]/,
    );
    tf.dispose([p, g, m, v]);
  });

  it('sumOfSquares: one kernel over every tensor equals float64 Σx² (1e-6 relative) and the composite; NaN and inf propagate; none gives 0', () => {
    const tensors = [[3], [40, 17], [128, 512], [1], [2, 3, 5]].map((shape) => randomNormal(rng, shape, 0.3));
    let ref = 0;
    for (const t of tensors) for (const x of t.dataSync()) ref += x * x;
    const values: number[] = [];
    for (const native of [true, false]) {
      if (native) set.useNative();
      else set.useStock();
      const before = tf.memory().numTensors;
      values.push(sumOfSquares(tensors));
      expect(tf.memory().numTensors).toBe(before);
    }
    set.useNative();
    expect(Math.abs(values[0] - ref) / ref).toBeLessThan(1e-6);
    expect(Math.abs(values[1] - ref) / ref).toBeLessThan(1e-4); // the stock Sum adds 65k float32 squares in order
    expect(sumOfSquares([])).toBe(0);
    const bad = [tf.tensor1d([1, NaN]), tf.tensor1d([Infinity])];
    expect(sumOfSquares([tensors[0], bad[0]])).toBeNaN();
    expect(sumOfSquares([tensors[0], bad[1]])).toBe(Infinity);
    tf.dispose([...tensors, ...bad]);
  });
});
