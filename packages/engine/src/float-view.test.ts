import * as tf from '@tensorflow/tfjs-core';
import { float32TensorFrom, float32View } from './float-view';
import { initEngine } from './init';

describe('float32View', () => {
  beforeAll(async () => {
    await initEngine({ quiet: true });
  });

  it("reads a tensor's values as dataSync does, on whichever backend is active", () => {
    const t = tf.tidy(() => tf.add(tf.reshape(tf.range(0, 24, 1, 'float32'), [2, 3, 4]), 0.5));
    const view = float32View(t);
    expect(view.length).toBe(24);
    expect(Array.from(view)).toEqual(Array.from(t.dataSync()));
    // a second tensor made after it does not change what the first one holds
    const u = tf.mul(t, 2);
    expect(float32View(t)[23]).toBe(23.5);
    expect(float32View(u)[23]).toBe(47);
    tf.dispose([t, u]);
  });

  it('refuses other dtypes and disposed tensors', () => {
    const i = tf.tensor1d([1, 2], 'int32');
    expect(() => float32View(i)).toThrow('dtype int32, expected float32');
    i.dispose();
    const f = tf.tensor1d([1, 2]);
    f.dispose();
    expect(() => float32View(f)).toThrow('disposed');
  });

  it('float32TensorFrom makes a tensor from what the writer puts in, and frees it when the writer throws', () => {
    const before = tf.memory().numTensors;
    const t = float32TensorFrom<tf.Rank.R2>([2, 3], (v) => v.forEach((_, i) => (v[i] = i * 1.5)));
    expect(t.shape).toEqual([2, 3]);
    expect(Array.from(t.dataSync())).toEqual([0, 1.5, 3, 4.5, 6, 7.5]);
    const doubled = tf.mul(t, 2); // an ordinary tensor: ops read it
    expect(doubled.dataSync()[5]).toBe(15);
    tf.dispose([t, doubled]);
    const bytes = tf.memory().numBytes;
    expect(() =>
      float32TensorFrom([4], () => {
        throw new Error('writer failed');
      }),
    ).toThrow('writer failed');
    expect(tf.memory().numTensors).toBe(before);
    expect(tf.memory().numBytes).toBe(bytes);
  });
});
