import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { normwiseError, randomNormal, describeNative, requireNativeKernels, runBoth, runNative } from '../kernel-compare';
import type { NativeKernelSet } from '../native-kernels';

/** Naive batch matmul with numpy-style broadcasting of the batch dims, in float64. */
function referenceMatMul(a: tf.Tensor, b: tf.Tensor, ta: boolean, tb: boolean): { shape: number[]; values: Float64Array } {
  const av = a.dataSync();
  const bv = b.dataSync();
  const ar = a.rank;
  const br = b.rank;
  const m = ta ? a.shape[ar - 1] : a.shape[ar - 2];
  const k = ta ? a.shape[ar - 2] : a.shape[ar - 1];
  const n = tb ? b.shape[br - 2] : b.shape[br - 1];
  const aOuter = a.shape.slice(0, -2);
  const bOuter = b.shape.slice(0, -2);
  const r = Math.max(aOuter.length, bOuter.length);
  const pa = [...Array(r - aOuter.length).fill(1), ...aOuter];
  const pb = [...Array(r - bOuter.length).fill(1), ...bOuter];
  const outOuter = pa.map((x, i) => Math.max(x, pb[i]));
  const batches = outOuter.reduce((x, y) => x * y, 1);
  const out = new Float64Array(batches * m * n);
  for (let bi = 0; bi < batches; bi++) {
    let rem = bi;
    let ia = 0;
    let ib = 0;
    let sa = 1;
    let sb = 1;
    for (let d = r - 1; d >= 0; d--) {
      const c = rem % outOuter[d];
      rem = Math.floor(rem / outOuter[d]);
      if (pa[d] !== 1) ia += c * sa;
      if (pb[d] !== 1) ib += c * sb;
      sa *= pa[d];
      sb *= pb[d];
    }
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++) {
          const x = av[ia * m * k + (ta ? p * m + i : i * k + p)];
          const y = bv[ib * k * n + (tb ? j * k + p : p * n + j)];
          s += x * y;
        }
        out[bi * m * n + i * n + j] = s;
      }
    }
  }
  return { shape: [...outOuter, m, n], values: out };
}

describeNative('native BatchMatMul', () => {
  let set: NativeKernelSet;
  const rng = new Rng(2024);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  function shapes(aOuter: number[], bOuter: number[], m: number, k: number, n: number, ta: boolean, tb: boolean) {
    return { a: [...aOuter, ...(ta ? [k, m] : [m, k])], b: [...bOuter, ...(tb ? [n, k] : [k, n])] };
  }

  it('matches the stock wasm kernel and a float64 reference for every transpose combination', () => {
    for (let trial = 0; trial < 25; trial++) {
      const [m, k, n] = [rng.int(1, 40), rng.int(1, 40), rng.int(1, 40)];
      const batch = rng.pick([[], [3], [2, 2]]);
      for (const ta of [false, true]) {
        for (const tb of [false, true]) {
          const s = shapes(batch, batch, m, k, n, ta, tb);
          const a = randomNormal(rng, s.a);
          const b = randomNormal(rng, s.b);
          const { native, stock } = runBoth(set, () => tf.matMul(a, b, ta, tb));
          const ref = referenceMatMul(a, b, ta, tb);
          expect(native[0].shape).toEqual(ref.shape);
          expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
          expect(normwiseError(native[0].values, ref.values)).toBeLessThan(1e-5);
          tf.dispose([a, b]);
        }
      }
    }
  });

  it('many small batched products (attention-like, split across the thread pool) match stock and float64', () => {
    for (const [ta, tb] of [
      [false, true],
      [false, false],
      [true, false],
    ]) {
      const s = shapes([16, 8], [16, 8], 24, 16, 24, ta, tb);
      const a = randomNormal(rng, s.a);
      const b = randomNormal(rng, s.b);
      const { native, stock } = runBoth(set, () => tf.matMul(a, b, ta, tb));
      expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
      expect(normwiseError(native[0].values, referenceMatMul(a, b, ta, tb).values)).toBeLessThan(1e-5);
      tf.dispose([a, b]);
    }
  });

  it('matches stock and float64 at the attention shapes of the GRPO step (packed transB, one-row decode, the OpenBLAS-threaded size)', () => {
    // [batch, heads] × M×K×N with K = dh = 32: scoring q·kᵀ (M query rows ≥ 16: B is transposed into a
    // scratch and multiplied NN), the sampler's decode step (M = 1: a matrix-vector product), the
    // attention backward (transA), and one product large enough for OpenBLAS's own threads.
    const both: [boolean, boolean][] = [
      [false, true],
      [false, false],
    ];
    const cases: [number[], number, number, number, [boolean, boolean][]][] = [
      [[29, 4], 64, 32, 150, [[false, true]]],
      [[8, 4], 64, 32, 150, both],
      [
        [29, 4],
        150,
        32,
        64,
        [
          [false, true],
          [true, false],
        ],
      ],
      [[7, 4], 1, 32, 150, both],
      [[7, 4], 17, 150, 32, [...both, [true, false], [true, true]]],
      [
        [2],
        256,
        128,
        160,
        [
          [false, true],
          [true, true],
        ],
      ],
    ];
    for (const [outer, m, k, n, combos] of cases) {
      for (const [ta, tb] of combos) {
        const s = shapes(outer, outer, m, k, n, ta, tb);
        const a = randomNormal(rng, s.a);
        const b = randomNormal(rng, s.b);
        const { native, stock } = runBoth(set, () => tf.matMul(a, b, ta, tb));
        expect(native[0].shape).toEqual([...outer, m, n]);
        expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
        if (outer[0] <= 7) expect(normwiseError(native[0].values, referenceMatMul(a, b, ta, tb).values)).toBeLessThan(1e-5);
        tf.dispose([a, b]);
      }
    }
    // a shared key matrix broadcast over the query batch (cache prefix of batch 1): index maps with transB
    const q = randomNormal(rng, [6, 4, 20, 32]);
    const kShared = randomNormal(rng, [1, 4, 90, 32]);
    const { native, stock } = runBoth(set, () => tf.matMul(q, kShared, false, true));
    expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
    expect(normwiseError(native[0].values, referenceMatMul(q, kShared, false, true).values)).toBeLessThan(1e-5);
    tf.dispose([q, kShared]);
  });

  it('broadcasts batch dims in general (size-1 dims, different ranks) like numpy', () => {
    const cases: [number[], number[]][] = [
      [[1], [4]],
      [[4], [1]],
      [
        [2, 1],
        [1, 3],
      ],
      [[], [2, 3]],
      [[3, 2], []],
      [[5], [2, 5]],
    ];
    for (const [aOuter, bOuter] of cases) {
      for (const ta of [false, true]) {
        for (const tb of [false, true]) {
          const s = shapes(aOuter, bOuter, rng.int(1, 9), rng.int(1, 9), rng.int(1, 9), ta, tb);
          const a = randomNormal(rng, s.a);
          const b = randomNormal(rng, s.b);
          const [out] = runNative(set, () => tf.matMul(a, b, ta, tb));
          const ref = referenceMatMul(a, b, ta, tb);
          expect(out.shape).toEqual(ref.shape);
          expect(normwiseError(out.values, ref.values)).toBeLessThan(1e-5);
          tf.dispose([a, b]);
        }
      }
    }
  });

  it('handles size-1 dims: vectors, outer products and a single element', () => {
    for (const [m, k, n] of [
      [1, 7, 1],
      [7, 1, 5],
      [1, 1, 1],
      [1, 9, 6],
      [6, 9, 1],
    ]) {
      for (const ta of [false, true]) {
        for (const tb of [false, true]) {
          const s = shapes([], [], m, k, n, ta, tb);
          const a = randomNormal(rng, s.a);
          const b = randomNormal(rng, s.b);
          const { native, stock } = runBoth(set, () => tf.matMul(a, b, ta, tb));
          expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
          expect(normwiseError(native[0].values, referenceMatMul(a, b, ta, tb).values)).toBeLessThan(1e-5);
          tf.dispose([a, b]);
        }
      }
    }
  });

  it('returns correctly shaped empty results, and zeros for an empty inner dim', () => {
    const empty = runNative(set, () => tf.matMul(tf.zeros([0, 3]), tf.ones([3, 4])));
    expect(empty[0].shape).toEqual([0, 4]);
    const noBatch = runNative(set, () => tf.matMul(tf.zeros([0, 2, 3]), tf.ones([0, 3, 4])));
    expect(noBatch[0].shape).toEqual([0, 2, 4]);
    const zeroK = runNative(set, () => tf.matMul(tf.ones([2, 0]), tf.ones([0, 3])));
    expect(zeroK[0].shape).toEqual([2, 3]);
    expect(Array.from(zeroK[0].values)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('rejects mismatched inner dims with the stock error text', () => {
    set.useNative();
    expect(() => tf.matMul(tf.ones([2, 3]), tf.ones([4, 2]))).toThrow(/inner shapes/);
  });
});
