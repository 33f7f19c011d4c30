import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import {
  elementwiseMismatch,
  normwiseError,
  randomInts,
  randomNormal,
  describeNative,
  requireNativeKernels,
  runBoth,
  runNative,
} from '../kernel-compare';
import type { NativeKernelSet } from '../native-kernels';

describeNative('native GatherV2 and UnsortedSegmentSum (embedding lookup and its gradient)', () => {
  let set: NativeKernelSet;
  const rng = new Rng(31);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it('GatherV2 along axis 0 matches stock for 1-d and 2-d indices, float32 and int32 tables', () => {
    for (const [tableShape, idxShape] of [
      [[10, 4], [6]],
      [
        [64, 16],
        [4, 9],
      ],
      [[5], [3, 2]],
      [[7, 2, 3], [5]],
    ] as [number[], number[]][]) {
      const table = randomNormal(rng, tableShape);
      const itable = randomInts(rng, tableShape, -50, 50);
      const idx = randomInts(rng, idxShape, 0, tableShape[0] - 1);
      const { native, stock } = runBoth(set, () => [tf.gather(table, idx), tf.gather(itable, idx)]);
      native.forEach((r, i) => {
        expect(r.shape).toEqual(stock[i].shape);
        expect(Array.from(r.values)).toEqual(Array.from(stock[i].values));
      });
      tf.dispose([table, itable, idx]);
    }
  });

  it('GatherV2 rejects an out-of-range index with the stock message', () => {
    const table = tf.ones([3, 2]);
    const idx = tf.tensor([0, 3], [2], 'int32');
    set.useNative();
    expect(() => tf.gather(table, idx)).toThrow('GatherV2: the index value 3 is not in [0, 2]');
    tf.dispose([table, idx]);
  });

  it('GatherV2 on another axis still works (stock path)', () => {
    const table = randomNormal(rng, [3, 5]);
    const idx = tf.tensor([4, 0, 4], [3], 'int32');
    const { native, stock } = runBoth(set, () => tf.gather(table, idx, 1));
    expect(Array.from(native[0].values)).toEqual(Array.from(stock[0].values));
    tf.dispose([table, idx]);
  });

  it('UnsortedSegmentSum matches the JS polyfill and a float64 reference, dropping out-of-range ids', () => {
    const x = randomNormal(rng, [50, 8]);
    const ids = randomInts(rng, [50], -1, 12); // -1 is dropped, as in TensorFlow
    const { native, stock } = runBoth(set, () => tf.unsortedSegmentSum(x, ids as tf.Tensor1D, 12));
    expect(native[0].shape).toEqual([12, 8]);
    expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-5, 1e-6)).toBeNull();
    const xv = x.dataSync();
    const iv = ids.dataSync();
    const ref = new Float64Array(12 * 8);
    for (let i = 0; i < 50; i++) if (iv[i] >= 0) for (let j = 0; j < 8; j++) ref[iv[i] * 8 + j] += xv[i * 8 + j];
    expect(normwiseError(native[0].values, ref)).toBeLessThan(1e-6);
    tf.dispose([x, ids]);
  });

  it('the gradient of an embedding lookup flows through the native segment sum', () => {
    const table = randomNormal(rng, [16, 4]);
    const idx = randomInts(rng, [3, 5], 0, 15);
    const w = randomNormal(rng, [3, 5, 4]);
    const grad = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.gather(t, idx), w)));
    const { native, stock } = runBoth(set, () => grad(table));
    expect(native[0].shape).toEqual([16, 4]);
    expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-6);
    const [direct] = runNative(set, () => tf.unsortedSegmentSum(tf.reshape(w, [15, 4]), tf.reshape(idx, [15]) as tf.Tensor1D, 16));
    expect(normwiseError(native[0].values, direct.values)).toBeLessThan(1e-6);
    tf.dispose([table, idx, w]);
  });
});
