import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { randomInts, randomNormal, describeNative, requireNativeKernels, runBoth } from '../kernel-compare';
import type { NativeKernelSet } from '../native-kernels';

/** Copies are exact: native and stock must agree bit for bit, shapes and dtypes included. */
function expectSame(both: ReturnType<typeof runBoth>) {
  expect(both.native.length).toBe(both.stock.length);
  both.native.forEach((r, i) => {
    expect(r.shape).toEqual(both.stock[i].shape);
    expect(r.dtype).toBe(both.stock[i].dtype);
    expect(Array.from(r.values)).toEqual(Array.from(both.stock[i].values));
  });
}

/** Index of the first differing element, or -1 (fast for large arrays, unlike toEqual). */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return i;
  return -1;
}

function randomShape(rng: Rng, rank: number, lo = 1, hi = 5): number[] {
  return Array.from({ length: rank }, () => rng.int(lo, hi));
}

describeNative('native copy kernels (Transpose, Slice, Concat, SplitV, Tile)', () => {
  let set: NativeKernelSet;
  const rng = new Rng(7);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it('Transpose: any permutation of rank 1-6, float32 and int32, size-1 dims', () => {
    for (let trial = 0; trial < 120; trial++) {
      const rank = rng.int(1, 6);
      const shape = randomShape(rng, rank, 1, rank > 4 ? 3 : 6);
      const perm = rng.shuffle([...shape.keys()]);
      const x = trial % 3 === 0 ? randomInts(rng, shape, -100, 100) : randomNormal(rng, shape);
      expectSame(runBoth(set, () => tf.transpose(x, perm)));
      x.dispose();
    }
  });

  it('Transpose: large 2-d blocks (tiled path) and the attention head layout', () => {
    for (const [shape, perm] of [
      [
        [67, 45],
        [1, 0],
      ],
      [
        [3, 33, 17],
        [0, 2, 1],
      ],
      [
        [4, 16, 4, 8],
        [0, 2, 1, 3],
      ],
      [
        [2, 5, 7, 3],
        [3, 2, 1, 0],
      ],
    ] as [number[], number[]][]) {
      const x = randomNormal(rng, shape);
      expectSame(runBoth(set, () => tf.transpose(x, perm)));
      x.dispose();
    }
  });

  it('large copies (split across the thread pool): head transposes, 2-d transpose, slices, concat', () => {
    const q = randomNormal(rng, [16, 24, 4, 32]); // 49k elements: the pool splits the work
    const m = randomNormal(rng, [257, 150]);
    const { native, stock } = runBoth(set, () => [
      tf.transpose(q, [0, 2, 1, 3]),
      tf.transpose(q, [2, 0, 1, 3]),
      tf.transpose(m),
      tf.slice(m, [5, 17], [250, 120]),
      tf.concat([m, m], 1),
      ...tf.split(q, 4, 2),
    ]);
    native.forEach((r, i) => {
      expect(r.shape).toEqual(stock[i].shape);
      expect(firstDifference(r.values, stock[i].values)).toBe(-1);
    });
    tf.dispose([q, m]);
  });

  it('Transpose of an empty tensor keeps the permuted shape', () => {
    const x = tf.zeros([2, 0, 3]);
    const both = runBoth(set, () => tf.transpose(x, [2, 0, 1]));
    expect(both.native[0].shape).toEqual([3, 2, 0]);
    expectSame(both);
  });

  it('Slice: random begins and sizes (including -1 = to the end) up to rank 5', () => {
    for (let trial = 0; trial < 100; trial++) {
      const rank = rng.int(1, 5);
      const shape = randomShape(rng, rank, 1, 6);
      const begin = shape.map((n) => rng.int(0, n - 1));
      const size = shape.map((n, d) => (rng.next() < 0.2 ? -1 : rng.int(0, n - begin[d])));
      const x = trial % 4 === 0 ? randomInts(rng, shape, 0, 9) : randomNormal(rng, shape);
      expectSame(runBoth(set, () => tf.slice(x, begin, size)));
      x.dispose();
    }
  });

  it('Concat: 1-4 inputs along any axis, some of them empty along the axis', () => {
    for (let trial = 0; trial < 80; trial++) {
      const rank = rng.int(1, 4);
      const base = randomShape(rng, rank);
      const axis = rng.int(0, rank - 1);
      const xs = Array.from({ length: rng.int(1, 4) }, () => {
        const s = base.slice();
        s[axis] = rng.int(0, 4);
        return randomNormal(rng, s);
      });
      if (xs.every((t) => t.size === 0)) {
        tf.dispose(xs);
        continue;
      }
      expectSame(runBoth(set, () => tf.concat(xs, axis)));
      tf.dispose(xs);
    }
  });

  it('SplitV: equal splits and explicit sizes along any axis', () => {
    for (let trial = 0; trial < 60; trial++) {
      const rank = rng.int(1, 4);
      const shape = randomShape(rng, rank, 1, 4);
      const axis = rng.int(0, rank - 1);
      shape[axis] = rng.int(1, 3) * 3;
      const x = randomNormal(rng, shape);
      const explicit = [1, shape[axis] - 2, 1].filter((s) => s >= 0);
      const spec = trial % 2 === 0 ? 3 : explicit.reduce((a, b) => a + b, 0) === shape[axis] ? explicit : 3;
      expectSame(runBoth(set, () => tf.split(x, spec, axis)));
      x.dispose();
    }
  });

  it('Tile: random reps up to rank 4 (rank-1..4 as tfjs-core supports)', () => {
    for (let trial = 0; trial < 60; trial++) {
      const rank = rng.int(1, 4);
      const shape = randomShape(rng, rank, 1, 4);
      const reps = shape.map(() => rng.int(1, 3));
      const x = trial % 3 === 0 ? randomInts(rng, shape, 0, 50) : randomNormal(rng, shape);
      expectSame(runBoth(set, () => tf.tile(x, reps)));
      x.dispose();
    }
  });

  it('leaves bool tensors to the stock kernels (still correct)', () => {
    const x = tf.tensor([true, false, true, true, false, false], [2, 3], 'bool');
    expectSame(runBoth(set, () => [tf.transpose(x), tf.slice(x, [0, 1], [2, 2]), tf.concat([x, x], 1)]));
    x.dispose();
  });
});
