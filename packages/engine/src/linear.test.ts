import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { linear, linearComposite } from './fused-ops';
import { describeNative, normwiseError, randomNormal, requireNativeKernels, runBoth, runNative } from './kernel-compare';
import type { NativeKernelSet } from './native-kernels';

describeNative('fused linear (dense layer, bias and GELU in the epilogue)', () => {
  let set: NativeKernelSet;
  const rng = new Rng(11);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  // Shapes [R, I, O]: below the pool split (one thread), at the train step's (2048 rows, split by rows
  // across the pool into 16-row blocks with a remainder), a row count that is not a multiple of 16, one row.
  const shapes: [number, number, number][] = [
    [5, 7, 3],
    [2048, 128, 512],
    [1003, 96, 160],
    [1, 16, 8],
  ];

  for (const activation of ['none', 'gelu'] as const) {
    it(`${activation}: value and the three gradients equal the tfjs composite (1e-5 normwise)`, () => {
      for (const [R, I, O] of shapes) {
        const x = randomNormal(rng, [R, I], 1.5);
        const w = randomNormal(rng, [I, O], 0.2);
        const b = randomNormal(rng, [O], 0.5);
        const probe = randomNormal(rng, [R, O]);
        const loss = (f: typeof linear) => (xx: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor) =>
          tf.sum(tf.mul(f(xx as tf.Tensor2D, ww as tf.Tensor2D, bb as tf.Tensor1D, activation), probe)) as tf.Scalar;
        const fused = runNative(set, () => [
          linear(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D, activation),
          ...tf.grads(loss(linear))([x, w, b]),
        ]);
        const comp = runNative(set, () => [
          linearComposite(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D, activation),
          ...tf.grads(loss(linearComposite))([x, w, b]),
        ]);
        expect(fused.map((r) => r.shape)).toEqual([[R, O], [R, I], [I, O], [O]]);
        fused.forEach((r, i) => expect(normwiseError(r.values, comp[i].values)).toBeLessThan(1e-5));
        tf.dispose([x, w, b, probe]);
      }
    });
  }

  it('with a residual: the same bits as residual + linear, and the four gradients equal the composite (1e-5 normwise)', () => {
    for (const [R, I, O] of shapes) {
      const x = randomNormal(rng, [R, I], 1.5) as tf.Tensor2D;
      const w = randomNormal(rng, [I, O], 0.2) as tf.Tensor2D;
      const b = randomNormal(rng, [O], 0.5) as tf.Tensor1D;
      const r = randomNormal(rng, [R, O]) as tf.Tensor2D;
      const probe = randomNormal(rng, [R, O]);
      const [fused, separate] = runNative(set, () => [linear(x, w, b, 'none', r), tf.add(r, linear(x, w, b))]);
      expect(Array.from(fused.values)).toEqual(Array.from(separate.values));
      const loss = (f: typeof linear) => (xx: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor, rr: tf.Tensor) =>
        tf.sum(tf.mul(f(xx as tf.Tensor2D, ww as tf.Tensor2D, bb as tf.Tensor1D, 'none', rr as tf.Tensor2D), probe)) as tf.Scalar;
      const grads = runNative(set, () => tf.grads(loss(linear))([x, w, b, r]));
      const comp = runNative(set, () => tf.grads(loss(linearComposite))([x, w, b, r]));
      grads.forEach((g, i) => expect(normwiseError(g.values, comp[i].values)).toBeLessThan(1e-5));
      expect(Array.from(grads[3].values)).toEqual(Array.from(probe.dataSync())); // ∂/∂residual = dy
      tf.dispose([x, w, b, r, probe]);
    }
    const x = tf.zeros([2, 3]) as tf.Tensor2D;
    const w = tf.zeros([3, 4]) as tf.Tensor2D;
    const b = tf.zeros([4]) as tf.Tensor1D;
    expect(() => linear(x, w, b, 'gelu', tf.zeros([2, 4]) as tf.Tensor2D)).toThrow(/residual \[2,4\] needs activation 'none'/);
    expect(() => linear(x, w, b, 'none', tf.zeros([2, 3]) as tf.Tensor2D)).toThrow(/shape \[2,4\]/);
    tf.dispose([x, w, b]);
  });

  it('leaks no tensor across a forward and backward', () => {
    const x = randomNormal(rng, [64, 32]) as tf.Tensor2D;
    const w = randomNormal(rng, [32, 48]) as tf.Tensor2D;
    const b = randomNormal(rng, [48]) as tf.Tensor1D;
    runNative(set, () => linear(x, w, b, 'gelu')); // warm: kernels registered, customGrad built
    const before = tf.memory().numTensors;
    runNative(set, () => tf.grads((xx: tf.Tensor) => tf.sum(linear(xx as tf.Tensor2D, w, b, 'gelu')))([x]));
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x, w, b]);
  });

  it('without native kernels the same call runs the composite (same numbers)', () => {
    const x = randomNormal(rng, [9, 12]) as tf.Tensor2D;
    const w = randomNormal(rng, [12, 5]) as tf.Tensor2D;
    const b = randomNormal(rng, [5]) as tf.Tensor1D;
    const { native, stock } = runBoth(set, () => [linear(x, w, b), linear(x, w, b, 'gelu')]);
    native.forEach((r, i) => expect(normwiseError(r.values, stock[i].values)).toBeLessThan(1e-5));
    tf.dispose([x, w, b]);
  });

  it('propagates NaN to its row only, and rejects shapes that do not fit', () => {
    const x = tf.tensor2d([
      [NaN, 1],
      [0, 1],
    ]);
    const [y] = runNative(set, () => linear(x, tf.ones([2, 3]) as tf.Tensor2D, tf.zeros([3]) as tf.Tensor1D, 'gelu'));
    expect(Array.from(y.values.slice(0, 3)).every(Number.isNaN)).toBe(true);
    expect(Array.from(y.values.slice(3)).some(Number.isNaN)).toBe(false);
    expect(() => linear(x, tf.ones([3, 3]) as tf.Tensor2D, tf.zeros([3]) as tf.Tensor1D)).toThrow(
      'linear: x [2,2], w [3,3], b [3] do not fit (x [R, I], w [I, O], b [O])',
    );
    x.dispose();
  });
});
