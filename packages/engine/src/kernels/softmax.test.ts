import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { elementwiseMismatch, randomNormal, describeNative, requireNativeKernels, runBoth, runNative } from '../kernel-compare';
import type { NativeKernelSet } from '../native-kernels';

describeNative('native Softmax', () => {
  let set: NativeKernelSet;
  const rng = new Rng(6);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it('Softmax matches stock wasm within 1e-5 relative error (row lengths 1-70, large logits)', () => {
    for (const shape of [[1], [5, 1], [3, 70], [2, 4, 64], [8, 17], [2, 3, 5, 9]]) {
      for (const scale of [1, 30]) {
        const x = randomNormal(rng, shape, scale);
        const { native, stock } = runBoth(set, () => tf.softmax(x));
        expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-5, 1e-9)).toBeNull();
        x.dispose();
      }
    }
  });

  it('Softmax: a row with a NaN logit is all NaN, other rows unaffected; -inf logits get 0', () => {
    const x = tf.tensor([
      [0, NaN, 1],
      [0, -Infinity, 0],
    ]);
    const [out] = runNative(set, () => tf.softmax(x));
    expect(Array.from(out.values.slice(0, 3)).every(Number.isNaN)).toBe(true);
    expect(Array.from(out.values.slice(3))).toEqual([0.5, 0, 0.5]);
    x.dispose();
  });

  it('Softmax of a large batch of rows (split across the thread pool) matches stock', () => {
    const x = randomNormal(rng, [8, 4, 32, 64], 4);
    const { native, stock } = runBoth(set, () => tf.softmax(x));
    expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-5, 1e-9)).toBeNull();
    x.dispose();
  });
});
