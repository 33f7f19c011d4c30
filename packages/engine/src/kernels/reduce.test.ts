import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { normwiseError, randomNormal, describeNative, requireNativeKernels, runBoth, runNative } from '../kernel-compare';
import type { NativeKernelSet } from '../native-kernels';

const REDUCE: [string, (x: tf.Tensor, axis?: number[], keepDims?: boolean) => tf.Tensor][] = [
  ['Sum', tf.sum],
  ['Mean', tf.mean],
  ['Max', tf.max],
  ['Min', tf.min],
];

describeNative('native reductions (Sum, Mean, Max, Min)', () => {
  let set: NativeKernelSet;
  const rng = new Rng(5);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it.each(REDUCE)('%s over random axis sets (adjacent or interleaved), keepDims both ways', (_name, op) => {
    for (let trial = 0; trial < 60; trial++) {
      const rank = rng.int(1, 4);
      const shape = Array.from({ length: rank }, () => rng.int(1, 7));
      const axes = [...shape.keys()].filter(() => rng.next() < 0.5);
      const x = randomNormal(rng, shape, 3);
      const keep = rng.next() < 0.5;
      const { native, stock } = runBoth(set, () => op(x, axes.length ? axes : undefined, keep));
      expect(native[0].shape).toEqual(stock[0].shape);
      // Sums of many terms: normwise relative error (an element near 0 by cancellation has no per-element relative error).
      expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
      x.dispose();
    }
  });

  it('Sum over long axes (bias gradients: 2048 rows) stays within 1e-5 of a float64 reference', () => {
    const x = randomNormal(rng, [2048, 24]);
    const [cols, rows, all] = runNative(set, () => [tf.sum(x, 0), tf.sum(x, 1), tf.sum(x)]);
    const v = x.dataSync();
    const refCols = new Float64Array(24);
    const refRows = new Float64Array(2048);
    for (let i = 0; i < 2048; i++) for (let j = 0; j < 24; j++) ((refCols[j] += v[i * 24 + j]), (refRows[i] += v[i * 24 + j]));
    expect(normwiseError(cols.values, refCols)).toBeLessThan(1e-6);
    expect(normwiseError(rows.values, refRows)).toBeLessThan(1e-6);
    expect(Math.abs(all.values[0] - refCols.reduce((a, b) => a + b, 0))).toBeLessThan(1e-6 * 2048);
    x.dispose();
  });

  it('large reductions (rows, column ranges and outer blocks split across the pool) match stock', () => {
    const x = randomNormal(rng, [600, 200]);
    const y = randomNormal(rng, [4, 300, 100]);
    for (const op of [tf.sum, tf.mean, tf.max, tf.min]) {
      const { native, stock } = runBoth(set, () => [op(x, 0), op(x, 1), op(y, 1), op(y, [0, 2])]);
      native.forEach((r, i) => {
        expect(r.shape).toEqual(stock[i].shape);
        expect(normwiseError(r.values, stock[i].values)).toBeLessThan(1e-5);
      });
    }
    tf.dispose([x, y]);
  });

  it('Max and Min propagate NaN; Mean of a NaN row is NaN', () => {
    const x = tf.tensor([
      [1, NaN, 3],
      [4, 5, 6],
    ]);
    const [mx, mn, mean, mx0] = runNative(set, () => [tf.max(x, 1), tf.min(x, 1), tf.mean(x, 1), tf.max(x, 0)]);
    expect(Number.isNaN(mx.values[0]) && Number.isNaN(mn.values[0]) && Number.isNaN(mean.values[0])).toBe(true);
    expect([mx.values[1], mn.values[1], mean.values[1]]).toEqual([6, 4, 5]);
    expect([mx0.values[0], mx0.values[2]]).toEqual([4, 6]);
    expect(Number.isNaN(mx0.values[1])).toBe(true);
    x.dispose();
  });

  it('empty reductions: Sum of nothing is 0, outputs of empty tensors are empty', () => {
    const e = tf.zeros([0, 4]);
    const [s0, s1] = runNative(set, () => [tf.sum(e, 0), tf.sum(e, 1)]);
    expect(s0.shape).toEqual([4]);
    expect(Array.from(s0.values)).toEqual([0, 0, 0, 0]);
    expect(s1.shape).toEqual([0]);
    e.dispose();
  });
});
