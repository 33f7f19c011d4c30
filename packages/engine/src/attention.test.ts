import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { attendAndAppend, attendPast, selfAttention, selfAttentionComposite } from './fused-ops';
import { describeNative, elementwiseMismatch, normwiseError, randomNormal, requireNativeKernels, runBoth } from './kernel-compare';
import type { NativeKernelSet } from './native-kernels';

const MASKED = -1e9;

/** An additive mask [maskB, 1, S, T + S]: row s sees a random subset of the T cached slots and the new slots ≤ s. */
function randomMask(rng: Rng, maskB: number, S: number, T: number): tf.Tensor4D {
  const W = T + S;
  const v = new Float32Array(maskB * S * W).fill(MASKED);
  for (let b = 0; b < maskB; b++)
    for (let s = 0; s < S; s++) {
      for (let t = 0; t < T; t++) if (rng.next() < 0.7) v[(b * S + s) * W + t] = 0;
      for (let j = 0; j <= s; j++) v[(b * S + s) * W + T + j] = 0;
    }
  return tf.tensor4d(v, [maskB, 1, S, W]);
}

/** qkv [B·S, 3·H·dh] holding q, k, v [B, H, S, dh] as the QKV projection lays them out (the inverse of splitHeads). */
function toQkv(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D): tf.Tensor2D {
  const [B, H, S, dh] = q.shape;
  return tf.tidy(
    () =>
      tf.concat(
        [q, k, v].map((t) => tf.reshape(tf.transpose(t, [0, 2, 1, 3]), [B * S, H * dh])),
        1,
      ) as tf.Tensor2D,
  );
}

describeNative('fused attention (native/src/attention.c)', () => {
  let set: NativeKernelSet;
  const rng = new Rng(17);
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it('equals the tfjs composite (concat, q·kᵀ, mask, softmax, ·v) within 1e-5 normwise, with shared or per-row prefixes and masks', () => {
    // [B, H, S, T, dh, pastB, maskB]: the scorer's pass 2, the sampler's decode step (S = 1, matrix-vector products), a shared prefix, no cached slot
    for (const [B, H, S, T, dh, pastB, maskB] of [
      [6, 4, 9, 37, 32, 6, 6],
      [5, 2, 1, 20, 8, 5, 5],
      [4, 3, 5, 11, 16, 1, 1],
      [3, 2, 4, 0, 8, 3, 3],
      [4, 2, 1, 0, 8, 4, 4],
      [3, 4, 1, 300, 32, 1, 3],
    ]) {
      const q = randomNormal(rng, [B, H, S, dh]) as tf.Tensor4D;
      const kPast = randomNormal(rng, [pastB, H, T, dh]) as tf.Tensor4D;
      const vPast = randomNormal(rng, [pastB, H, T, dh]) as tf.Tensor4D;
      const kNew = randomNormal(rng, [B, H, S, dh]) as tf.Tensor4D;
      const vNew = randomNormal(rng, [B, H, S, dh]) as tf.Tensor4D;
      const mask = randomMask(rng, maskB, S, T);
      const scale = 1 / Math.sqrt(dh);
      const qkv = toQkv(q, kNew, vNew);
      const { native, stock } = runBoth(set, () => attendPast(qkv, B, H, kPast, vPast, mask, scale));
      expect(native[0].shape).toEqual([B * S, H * dh]);
      expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
      expect(elementwiseMismatch(native[0].values, stock[0].values, 1e-3, 1e-5)).toBeNull();
      tf.dispose([q, kPast, vPast, kNew, vNew, mask, qkv]);
    }
  });

  it('ragged rows (packed qkv [N, 3C], rows [B, 2]) give the full-layout result at every real slot, natively and as the composite', () => {
    // [B, H, S, T, dh, pastB]: row lengths include 0 (an empty row) and S (a full one)
    for (const [B, H, S, T, dh, pastB] of [
      [5, 4, 9, 23, 32, 5],
      [4, 2, 6, 0, 8, 4],
      [3, 3, 5, 12, 16, 1],
    ]) {
      const lengths = Array.from({ length: B }, (_, b) => (b === 0 ? S : b === 1 ? 0 : 1 + Math.floor(rng.next() * S)));
      const starts = lengths.map((_, b) => lengths.slice(0, b).reduce((x, y) => x + y, 0));
      const N = lengths.reduce((x, y) => x + y, 0);
      const C = H * dh;
      const full = randomNormal(rng, [B * S, 3 * C]) as tf.Tensor2D; // the rows layout; padding slots hold noise
      const slots = lengths.flatMap((n, b) => Array.from({ length: n }, (_, s) => b * S + s));
      const packed = tf.gather(full, tf.tensor1d(slots, 'int32')) as tf.Tensor2D;
      const rows = tf.tensor2d(
        lengths.flatMap((n, b) => [starts[b], n]),
        [B, 2],
        'int32',
      );
      const kPast = randomNormal(rng, [pastB, H, T, dh]) as tf.Tensor4D;
      const vPast = randomNormal(rng, [pastB, H, T, dh]) as tf.Tensor4D;
      // each real query sees some cached slots and the new slots ≤ itself, never a padding slot
      const mask = randomMask(rng, B, S, T);
      const { native, stock } = runBoth(set, () => attendPast(packed, B, H, kPast, vPast, mask, 0.2, rows));
      const wide = runBoth(set, () => tf.gather(attendPast(full, B, H, kPast, vPast, mask, 0.2), tf.tensor1d(slots, 'int32'))).stock[0];
      expect(native[0].shape).toEqual([N, C]);
      expect(normwiseError(native[0].values, wide.values)).toBeLessThan(1e-5);
      expect(normwiseError(stock[0].values, wide.values)).toBeLessThan(1e-6);
      expect(elementwiseMismatch(native[0].values, wide.values, 1e-3, 1e-5)).toBeNull();
      tf.dispose([full, packed, rows, kPast, vPast, mask]);
    }
  });

  it('leaves out keys hidden from every query of a row: a NaN there does not reach the result', () => {
    // one row, one head, T = 4 cached slots; both queries see slots 0..1 only, slot 3 holds NaN
    const [B, H, S, T, dh] = [1, 1, 2, 4, 2];
    const kv = new Float32Array(T * dh).fill(0.5);
    kv[3 * dh] = NaN;
    const kPast = tf.tensor4d(kv, [B, H, T, dh]);
    const m = new Float32Array(S * (T + S)).fill(MASKED);
    for (let s = 0; s < S; s++) {
      m[s * (T + S)] = m[s * (T + S) + 1] = 0;
      for (let j = 0; j <= s; j++) m[s * (T + S) + T + j] = 0;
    }
    const mask = tf.tensor4d(m, [1, 1, S, T + S]);
    const qkv = tf.ones([S, 3 * dh]) as tf.Tensor2D;
    const { native } = runBoth(set, () => attendPast(qkv, B, H, kPast, kPast, mask, 1));
    expect(Array.from(native[0].values).every(Number.isFinite)).toBe(true);
    tf.dispose([kPast, mask, qkv]);
  });

  it('a NaN in a cached key makes the rows that see it NaN and leaves the others finite', () => {
    const [B, H, S, T, dh] = [2, 1, 2, 3, 4];
    const kv = new Float32Array(B * H * T * dh).fill(0.5);
    kv[0] = NaN; // row 0, cached slot 0
    const kPast = tf.tensor4d(kv, [B, H, T, dh]);
    const ones = tf.ones([B * S, 3 * H * dh]) as tf.Tensor2D;
    const mask = randomMask(new Rng(1), B, S, T);
    const m = mask.dataSync();
    const { native } = runBoth(set, () => attendPast(ones, B, H, kPast, kPast, mask, 1));
    const W = T + S;
    for (let b = 0; b < B; b++)
      for (let s = 0; s < S; s++) {
        const seesNaN = b === 0 && m[(b * S + s) * W] === 0;
        const row = native[0].values.slice((b * S + s) * H * dh, (b * S + s + 1) * H * dh); // H = 1
        expect(Array.from(row).every(Number.isNaN)).toBe(seesNaN);
        if (!seesNaN) expect(Array.from(row).some(Number.isNaN)).toBe(false);
      }
    tf.dispose([kPast, ones, mask]);
  });

  it('attendAndAppend equals attendPast over the held slots and grows the cache by the new K/V (in place on wasm+native)', () => {
    for (const [B, H, S, held, slots, dh] of [
      [5, 2, 1, 7, 12, 8],
      [3, 4, 3, 0, 5, 16],
      [2, 2, 2, 10, 12, 8],
    ]) {
      const q = randomNormal(rng, [B, H, S, dh]) as tf.Tensor4D;
      const kNew = randomNormal(rng, [B, H, S, dh]) as tf.Tensor4D;
      const vNew = randomNormal(rng, [B, H, S, dh]) as tf.Tensor4D;
      const mask = randomMask(rng, B, S, held);
      const start = [randomNormal(rng, [B, H, slots, dh]), randomNormal(rng, [B, H, slots, dh])] as tf.Tensor4D[];
      const qkv = toQkv(q, kNew, vNew);
      const heldPart = (t: tf.Tensor4D) => tf.slice(t, [0, 0, 0, 0], [B, H, held, dh]) as tf.Tensor4D;
      const expected = runBoth(set, () => attendPast(qkv, B, H, heldPart(start[0]), heldPart(start[1]), mask, 0.3)).stock[0];
      const grownK = tf.concat([heldPart(start[0]), kNew, tf.slice(start[0], [0, 0, held + S, 0], [B, H, slots - held - S, dh])], 2);
      const grownV = tf.concat([heldPart(start[1]), vNew, tf.slice(start[1], [0, 0, held + S, 0], [B, H, slots - held - S, dh])], 2);
      for (const native of [true, false]) {
        const cache = { k: start[0].clone(), v: start[1].clone() };
        if (native) set.useNative();
        else set.useStock();
        const out = attendAndAppend(cache, held, qkv, B, H, mask, 0.3);
        expect(out.cache.k === cache.k).toBe(native); // native: the same tensors, written in place
        expect(normwiseError(out.attended.dataSync(), expected.values)).toBeLessThan(1e-5);
        expect(normwiseError(out.cache.k.dataSync(), grownK.dataSync())).toBe(0);
        expect(normwiseError(out.cache.v.dataSync(), grownV.dataSync())).toBe(0);
        tf.dispose([out.attended, out.cache.k, out.cache.v, cache.k, cache.v]);
      }
      set.useNative();
      tf.dispose([q, kNew, vNew, qkv, mask, ...start, grownK, grownV]);
    }
    const c = { k: tf.zeros([1, 1, 4, 2]) as tf.Tensor4D, v: tf.zeros([1, 1, 4, 2]) as tf.Tensor4D };
    const one = tf.zeros([2, 6]) as tf.Tensor2D;
    expect(() => attendAndAppend(c, 3, one, 1, 1, tf.zeros([1, 1, 2, 5]) as tf.Tensor4D, 1)).toThrow(/holding 3/);
    tf.dispose([c.k, c.v, one]);
  });

  it('selfAttention equals the composite, values and the gradient of qkv, with causal, shared and per-row masks', () => {
    for (const [B, H, S, dh, maskB] of [
      [3, 4, 16, 8, 1],
      [2, 2, 9, 16, 2],
      [1, 1, 1, 4, 1],
    ]) {
      const C = H * dh;
      const qkv = randomNormal(rng, [B * S, 3 * C]) as tf.Tensor2D;
      const w = randomNormal(rng, [B * S, C]);
      const mask = randomMask(rng, maskB, S, 0); // each row sees itself and the rows before it (a causal mask when T = 0)
      const { native, stock } = runBoth(set, () => {
        const f = (t: tf.Tensor) => tf.sum(tf.mul(selfAttention(t as tf.Tensor2D, B, H, mask, 0.25), w));
        return [selfAttention(qkv, B, H, mask, 0.25), tf.grad(f)(qkv)];
      });
      const plain = runBoth(set, () => selfAttentionComposite(qkv, B, H, mask, 0.25)).stock[0];
      expect(native[0].shape).toEqual([B * S, C]);
      expect(normwiseError(native[0].values, stock[0].values)).toBeLessThan(1e-5);
      expect(normwiseError(native[0].values, plain.values)).toBeLessThan(1e-5);
      expect(normwiseError(native[1].values, stock[1].values)).toBeLessThan(1e-5);
      tf.dispose([qkv, w, mask]);
    }
    expect(() => selfAttention(tf.zeros([6, 12]) as tf.Tensor2D, 2, 2, tf.zeros([1, 1, 4, 4]) as tf.Tensor4D, 1)).toThrow(
      /mask \[1,1,4,4\]/,
    );
  });

  it('names the shapes when they do not fit', () => {
    const a = tf.zeros([6, 12]) as tf.Tensor2D; // B 2 × S 3 rows, 1 head of dh 4
    const past = tf.zeros([2, 1, 5, 4]) as tf.Tensor4D;
    expect(() => attendPast(a, 2, 1, past, past, tf.zeros([2, 1, 3, 7]) as tf.Tensor4D, 1)).toThrow(/mask \[2,1,3,7\]/);
    expect(() => attendPast(a, 2, 1, tf.zeros([3, 1, 5, 4]) as tf.Tensor4D, past, tf.zeros([2, 1, 3, 8]) as tf.Tensor4D, 1)).toThrow(
      /kPast \[3,1,5,4\]/,
    );
    expect(() => attendPast(a, 4, 1, past, past, tf.zeros([2, 1, 3, 8]) as tf.Tensor4D, 1)).toThrow(/qkv \[6,12\] with batch 4/);
    const mask = tf.zeros([2, 1, 3, 8]) as tf.Tensor4D;
    expect(() => attendPast(a, 2, 1, past, past, mask, 1, tf.zeros([2, 2]) as tf.Tensor2D)).toThrow(/rows \[2,2\] float32/);
    // a row past the packed tokens: named by the composite, refused by the native kernel
    const beyond = tf.tensor2d([0, 3, 4, 3], [2, 2], 'int32');
    for (const native of [true, false]) {
      if (native) set.useNative();
      else set.useStock();
      expect(() => attendPast(a, 2, 1, past, past, mask, 1, beyond)).toThrow(native ? /ragged row is outside/ : /rows\[1\] = \[4, 3\]/);
    }
    set.useNative();
    tf.dispose([a, past, mask, beyond]);
  });
});
