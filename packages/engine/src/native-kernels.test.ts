import * as tf from '@tensorflow/tfjs-core';
import { describeNative, requireNativeKernels } from './kernel-compare';

describeNative('native kernel registration', () => {
  it('registers native kernels over the wasm ones and can swap the stock ones back', async () => {
    const set = await requireNativeKernels();
    expect(set.names).toEqual(
      expect.arrayContaining(['BatchMatMul', 'Transpose', 'Softmax', 'Sum', 'Multiply', 'GatherV2', 'UnsortedSegmentSum']),
    );
    const nativeFuncs = set.names.map((n) => tf.getKernel(n, 'wasm')?.kernelFunc);
    set.useStock();
    expect(set.active()).toBe('stock');
    const stockFuncs = set.names.map((n) => tf.getKernel(n, 'wasm')?.kernelFunc);
    // Every native kernel differs from what was there before (UnsortedSegmentSum's "stock" is the JS polyfill).
    set.names.forEach((n, i) => expect([n, stockFuncs[i] !== nativeFuncs[i]]).toEqual([n, true]));
    set.useNative();
    expect(set.active()).toBe('native');
    set.names.forEach((n, i) => expect(tf.getKernel(n, 'wasm')?.kernelFunc).toBe(nativeFuncs[i]));
  });

  it('a native op result equals the stock result for a quick smoke case', async () => {
    await requireNativeKernels();
    const a = tf.tensor2d([
      [1, 2],
      [3, 4],
    ]);
    const out = tf.matMul(a, a, false, true).arraySync();
    expect(out).toEqual([
      [5, 11],
      [11, 25],
    ]);
    a.dispose();
  });

  it('Identity and same-dtype Cast share the buffer; other casts still convert (stock path)', async () => {
    const set = await requireNativeKernels();
    set.useNative();
    const x = tf.tensor([1.5, -2.25, 3], [3], 'float32');
    const same = tf.cast(x, 'float32');
    const copy = tf.clone(x); // Identity
    expect(same.dataId).toBe(x.dataId); // shared, not copied
    expect(copy.dataId).toBe(x.dataId);
    expect(Array.from(copy.dataSync())).toEqual([1.5, -2.25, 3]);
    const asInt = tf.cast(x, 'int32');
    expect(asInt.dtype).toBe('int32');
    expect(Array.from(asInt.dataSync())).toEqual([1, -2, 3]);
    x.dispose();
    expect(Array.from(same.dataSync())).toEqual([1.5, -2.25, 3]); // still alive through its own reference
    tf.dispose([same, copy, asInt]);
  });
});
