/**
 * The fused kernels of fused.ts against the tfjs composites they replace: every FUSED name is registered
 * once, and each kernel (forward, and the gradient kernels through tf.grads of their op) gives the
 * composite's numbers within a stated tolerance while the profile shows the fused kernel ran (and, with
 * the stock kernels, did not).
 */
import * as tf from '@tensorflow/tfjs-core';
import { Rng } from '@rred/core';
import { adamwStep, attendPast, layerNorm, linear, selfAttention, sumOfSquares } from '../fused-ops';
import { describeNative, normwiseError, randomNormal, requireNativeKernels, runBoth } from '../kernel-compare';
import type { NativeAddon } from '../native-addon';
import type { NativeKernelSet } from '../native-kernels';
import { FUSED, fusedKernels } from './fused';

type FusedKey = keyof typeof FUSED;

describe('fusedKernels', () => {
  it('registers one wasm kernel per FUSED name', () => {
    const ctx = {
      addon: {} as NativeAddon,
      stock: () => {
        throw new Error('not called when the configs are made');
      },
    };
    const kernels = fusedKernels(ctx);
    expect(kernels.map((k) => k.kernelName).sort()).toEqual(Object.values(FUSED).sort());
    expect(new Set(kernels.map((k) => k.backendName))).toEqual(new Set(['wasm']));
  });
});

/** An additive causal mask [1, 1, S, S] (0 on and below the diagonal, −1e9 above). */
function causal(S: number): tf.Tensor4D {
  return tf.tidy(() => tf.reshape(tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([S, S]), -1, 0)), -1e9), [1, 1, S, S]) as tf.Tensor4D);
}

/**
 * One case per fused kernel (the Record makes a new FUSED name without a case a type error): the tensors
 * to compare, made by the public op, and the largest normwise error accepted against the composite.
 */
function cases(rng: Rng): Record<FusedKey, { run: () => tf.Tensor[]; tolerance: number }> {
  const [R, I, O] = [37, 24, 40];
  const x = randomNormal(rng, [R, I]) as tf.Tensor2D;
  const w = randomNormal(rng, [I, O], 0.2) as tf.Tensor2D;
  const b = randomNormal(rng, [O]) as tf.Tensor1D;
  const residual = randomNormal(rng, [R, O]) as tf.Tensor2D;
  const dyLinear = randomNormal(rng, [R, O]);
  const gamma = randomNormal(rng, [I]) as tf.Tensor1D;
  const beta = randomNormal(rng, [I]) as tf.Tensor1D;
  const [B, H, S, dh] = [2, 2, 7, 8];
  const C = H * dh;
  const qkv = randomNormal(rng, [B * S, 3 * C]) as tf.Tensor2D;
  const dyAttention = randomNormal(rng, [B * S, C]);
  const mask = causal(S);
  const T = 5;
  const kPast = randomNormal(rng, [B, H, T, dh]) as tf.Tensor4D;
  const vPast = randomNormal(rng, [B, H, T, dh]) as tf.Tensor4D;
  const pastMask = tf.concat([tf.zeros([1, 1, S, T]), mask], 3) as tf.Tensor4D;
  const p = randomNormal(rng, [50, 30]);
  const g = randomNormal(rng, [50, 30], 0.1);
  const m = randomNormal(rng, [50, 30], 0.01);
  const v = tf.abs(randomNormal(rng, [50, 30], 0.001));
  const linearLoss = (a: tf.Tensor, c: tf.Tensor, d: tf.Tensor) =>
    tf.sum(tf.mul(linear(a as tf.Tensor2D, c as tf.Tensor2D, d as tf.Tensor1D, 'gelu'), dyLinear));
  const normLoss = (a: tf.Tensor, c: tf.Tensor, d: tf.Tensor) => tf.sum(tf.mul(layerNorm(a, c as tf.Tensor1D, d as tf.Tensor1D), x));
  const attentionLoss = (a: tf.Tensor) => tf.sum(tf.mul(selfAttention(a as tf.Tensor2D, B, H, mask, 1 / Math.sqrt(dh)), dyAttention));
  return {
    layerNorm: { run: () => [layerNorm(x, gamma, beta)], tolerance: 1e-5 },
    layerNormGrad: { run: () => tf.grads(normLoss)([x, gamma, beta]), tolerance: 1e-5 },
    linear: { run: () => [linear(x, w, b, 'none', residual), linear(x, w, b, 'gelu')], tolerance: 1e-5 },
    linearGrad: { run: () => tf.grads(linearLoss)([x, w, b]), tolerance: 1e-5 },
    adamw: {
      run: () => {
        const r = adamwStep(p, g, m, v, { lr: 3e-3, beta1: 0.9, beta2: 0.95, epsilon: 1e-8, weightDecay: 0.1, step: 3, gradScale: 0.5 });
        return [r.param, r.m, r.v];
      },
      tolerance: 1e-6,
    },
    selfAttention: { run: () => [selfAttention(qkv, B, H, mask, 1 / Math.sqrt(dh))], tolerance: 1e-5 },
    selfAttentionGrad: { run: () => [tf.grad(attentionLoss)(qkv)], tolerance: 1e-5 },
    attendPast: { run: () => [attendPast(qkv, B, H, kPast, vPast, pastMask, 1 / Math.sqrt(dh))], tolerance: 1e-5 },
    sumSquares: { run: () => [tf.scalar(sumOfSquares([x, w, b]))], tolerance: 1e-6 },
  };
}

describeNative('fused kernels against the composites', () => {
  let set: NativeKernelSet;
  const table = () => cases(new Rng(29));
  beforeAll(async () => {
    set = await requireNativeKernels();
  });

  it.each(Object.keys(FUSED) as FusedKey[])('%s: the fused kernel runs and equals the composite within its tolerance', async (key) => {
    const { run, tolerance } = table()[key];
    const { native, stock } = runBoth(set, run);
    expect(native.map((r) => r.shape)).toEqual(stock.map((r) => r.shape));
    native.forEach((r, i) => expect(normwiseError(r.values, stock[i].values)).toBeLessThan(tolerance));
    // the comparison is between two paths: the fused kernel ran natively and not with the stock kernels
    const kernelsOf = async () => {
      const profile = await tf.profile(() => {
        tf.dispose(run());
      });
      return profile.kernelNames;
    };
    set.useNative();
    expect(await kernelsOf()).toContain(FUSED[key]);
    set.useStock();
    try {
      expect(await kernelsOf()).not.toContain(FUSED[key]);
    } finally {
      set.useNative();
    }
  });

  it('a perturbed input is told apart (the tolerance is not vacuous)', () => {
    const rng = new Rng(3);
    const x = randomNormal(rng, [20, 16]) as tf.Tensor2D;
    const w = randomNormal(rng, [16, 8]) as tf.Tensor2D;
    const b = tf.zeros([8]) as tf.Tensor1D;
    const a = runBoth(set, () => linear(x, w, b, 'gelu')).native[0];
    const shifted = tf.add(x, tf.mul(tf.reshape(tf.oneHot(tf.tensor1d([3], 'int32'), 20), [20, 1]), 1e-3)) as tf.Tensor2D;
    const c = runBoth(set, () => linear(shifted, w, b, 'gelu')).stock[0];
    expect(normwiseError(a.values, c.values)).toBeGreaterThan(1e-5);
    tf.dispose([x, w, b, shifted]);
  });
});
