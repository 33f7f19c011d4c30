import * as tf from '@tensorflow/tfjs-core';
import { float32View } from './float-view';
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
});
