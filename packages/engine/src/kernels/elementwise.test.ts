import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { elementwiseMismatch, randomNormal, describeNative, requireNativeKernels, runBoth, runNative } from '../kernel-compare';
import { loadNativeAddon } from '../native-addon';
import type { NativeKernelSet } from '../native-kernels';

const UNARY: [string, (x: tf.Tensor) => tf.Tensor, 'any' | 'positive'][] = [
  ['Exp', tf.exp, 'any'],
  ['Log', tf.log, 'positive'],
  ['Tanh', tf.tanh, 'any'],
  ['Sqrt', tf.sqrt, 'positive'],
  ['Rsqrt', tf.rsqrt, 'positive'],
  ['Neg', tf.neg, 'any'],
  ['Square', tf.square, 'any'],
  ['Abs', tf.abs, 'any'],
  ['Sigmoid', tf.sigmoid, 'any'],
  ['Relu', tf.relu, 'any'],
  ['Reciprocal', tf.reciprocal, 'any'],
  ['Erf', tf.erf, 'any'],
];

const BINARY: [string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor][] = [
  ['Add', tf.add],
  ['Sub', tf.sub],
  ['Multiply', tf.mul],
  ['RealDiv', tf.div],
  ['Maximum', tf.maximum],
  ['Minimum', tf.minimum],
  ['SquaredDifference', tf.squaredDifference],
];

/** Random broadcast-compatible pair: each operand drops leading dims or sets dims to 1 at random. */
function broadcastPair(rng: Rng): [number[], number[]] {
  const rank = rng.int(0, 5);
  const out = Array.from({ length: rank }, () => rng.int(1, 6));
  const sub = () => out.slice(rng.int(0, rank)).map((n) => (rng.next() < 0.35 ? 1 : n));
  return [sub(), sub()];
}

describeNative('native elementwise kernels', () => {
  let set: NativeKernelSet;
  const rng = new Rng(99);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it('every unary and binary op of the addon is registered and tested here', () => {
    const load = loadNativeAddon();
    if (!load.ok) throw new Error(load.reason);
    expect(Object.keys(load.addon.unaryOps).sort()).toEqual(UNARY.map((u) => u[0]).sort());
    expect(Object.keys(load.addon.binaryOps).sort()).toEqual([...BINARY.map((b) => b[0]), 'Pow'].sort());
    expect(set.names).toEqual(expect.arrayContaining([...UNARY.map((u) => u[0]), ...BINARY.map((b) => b[0]), 'Pow']));
  });

  it.each(UNARY)('%s matches stock wasm within 1e-5 relative error', (_name, op, domain) => {
    for (const shape of [[1], [7], [3, 1, 5], [64, 33], [2, 3, 4, 5]]) {
      let x = randomNormal(rng, shape, 3);
      if (domain === 'positive') {
        const old = x;
        x = tf.add(tf.abs(x), 1e-3);
        old.dispose();
      }
      const { native, stock } = runBoth(set, () => op(x));
      expect(native[0].shape).toEqual(stock[0].shape);
      expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-5, 1e-7)).toBeNull();
      x.dispose();
    }
  });

  it('Exp, Tanh and Sigmoid stay accurate at the extremes and keep NaN', () => {
    const special = tf.tensor([
      0,
      -0,
      1e-8,
      -1e-8,
      1e-3,
      0.6,
      0.65,
      5,
      -5,
      9,
      20,
      -20,
      80,
      88,
      88.8,
      100,
      -87,
      -100,
      -104,
      -200,
      Infinity,
      -Infinity,
      NaN,
    ]);
    for (const op of [tf.exp, tf.tanh, tf.sigmoid]) {
      const [out] = runNative(set, () => op(special));
      const expected = Array.from(special.dataSync()).map((v) =>
        op === tf.exp ? Math.exp(v) : op === tf.tanh ? Math.tanh(v) : 1 / (1 + Math.exp(-v)),
      );
      // Against float64 Math: 2e-7 relative plus the smallest normal float as absolute slack (subnormal results).
      expect(elementwiseMismatch(out.values, Float32Array.from(expected), 2e-7, 1.2e-38)).toBeNull();
    }
    special.dispose();
  });

  it('Relu, Abs, Sqrt and Log propagate NaN (never drop it)', () => {
    const x = tf.tensor([NaN, -1, 2]);
    for (const op of [tf.relu, tf.abs, tf.sqrt, tf.log, tf.exp, tf.tanh]) {
      const [out] = runNative(set, () => op(x));
      expect(Number.isNaN(out.values[0])).toBe(true);
    }
    x.dispose();
  });

  it.each(BINARY)('%s with random broadcasting matches stock wasm within 1e-5 relative error', (_name, op) => {
    for (let trial = 0; trial < 40; trial++) {
      const [as, bs] = broadcastPair(rng);
      const a = randomNormal(rng, as, 2);
      const b = op === tf.div ? tf.add(tf.abs(randomNormal(rng, bs)), 0.5) : randomNormal(rng, bs, 2);
      const { native, stock } = runBoth(set, () => op(a, b));
      expect(native[0].shape).toEqual(stock[0].shape);
      expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-5, 1e-7)).toBeNull();
      tf.dispose([a, b]);
    }
  });

  it('large tensors (split across the thread pool) match stock wasm, with every broadcast layout', () => {
    // 200·250 = 50k elements: above two 16k-element chunks, so the pool splits the work.
    const a = randomNormal(rng, [200, 250]);
    for (const bs of [[200, 250], [250], [200, 1], [1, 1], [], [1, 250]]) {
      const b = randomNormal(rng, bs);
      const { native, stock } = runBoth(set, () => [tf.mul(a, b), tf.sub(b, a), tf.tanh(a), tf.exp(a)]);
      native.forEach((r, i) => expect(elementwiseMismatch(r.values, stock[i].values, 1e-5, 1e-7)).toBeNull());
      b.dispose();
    }
    const c = randomNormal(rng, [7, 1, 3000]);
    const d = randomNormal(rng, [3, 1]);
    const { native, stock } = runBoth(set, () => tf.add(c, d)); // [7, 3, 3000]: chunks end mid-row
    expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-5, 1e-7)).toBeNull();
    tf.dispose([a, c, d]);
  });

  it('Pow: scalar fast paths (2, 3, 0.5, -1, 1) and general exponents match stock wasm', () => {
    const base = tf.add(tf.abs(randomNormal(rng, [5, 7])), 0.1);
    const signed = randomNormal(rng, [5, 7]);
    for (const e of [2, 3, 0.5, -1, 1, 1.7, 0]) {
      const { native, stock } = runBoth(set, () => [tf.pow(base, e), tf.pow(signed, Math.round(e))]);
      expect(elementwiseMismatch(native[0].values, stock[0].values)).toBeNull();
      expect(elementwiseMismatch(native[1].values, stock[1].values)).toBeNull();
    }
    const exps = randomNormal(rng, [7]);
    const { native, stock } = runBoth(set, () => tf.pow(base, exps));
    expect(elementwiseMismatch(native[0].values, stock[0].values)).toBeNull();
    tf.dispose([base, signed, exps]);
  });

  it('Maximum and Minimum propagate NaN from either side', () => {
    const a = tf.tensor([NaN, 1, 2]);
    const b = tf.tensor([0, NaN, 1]);
    const [mx, mn] = runNative(set, () => [tf.maximum(a, b), tf.minimum(a, b)]);
    expect(Array.from(mx.values).map(Number.isNaN)).toEqual([true, true, false]);
    expect(Array.from(mn.values).map(Number.isNaN)).toEqual([true, true, false]);
    expect(mx.values[2]).toBe(2);
    expect(mn.values[2]).toBe(1);
    tf.dispose([a, b]);
  });

  it('empty tensors give empty results; int32 inputs go to the stock kernels', () => {
    const e = tf.zeros([0, 3]);
    const [sum, ex] = runNative(set, () => [tf.add(e, tf.ones([3])), tf.exp(e)]);
    expect(sum.shape).toEqual([0, 3]);
    expect(ex.shape).toEqual([0, 3]);
    const ia = tf.tensor([1, 2, 3], [3], 'int32');
    const { native, stock } = runBoth(set, () => [tf.add(ia, ia), tf.mul(ia, ia), tf.neg(ia)]);
    native.forEach((r, i) => {
      expect(r.dtype).toBe('int32');
      expect(Array.from(r.values)).toEqual(Array.from(stock[i].values));
    });
    tf.dispose([e, ia]);
  });
});
