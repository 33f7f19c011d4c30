import * as tf from '@tensorflow/tfjs-core';
import { FUSED } from './kernels/fused';

/**
 * Transformer building blocks as single native kernels (forward and backward) when the native
 * kernels are active, and as the equivalent tfjs op composites otherwise (plain wasm, cpu, or the
 * native kernels switched off), so models can call them unconditionally.
 */

const GELU_C = Math.sqrt(2 / Math.PI);

function fusedActive(kernel: string): boolean {
  return tf.getBackend() === 'wasm' && tf.getKernel(kernel, 'wasm') !== undefined;
}

function run(kernel: string, inputs: tf.NamedTensorMap, attrs: tf.NamedAttrMap = {}): tf.Tensor[] {
  const out = tf.engine().runKernel(kernel, inputs, attrs);
  return Array.isArray(out) ? out : [out];
}

/** GELU, tanh approximation (GPT-2): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
export function geluComposite<T extends tf.Tensor>(x: T): T {
  return tf.tidy(() => {
    const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.square(x), x), 0.044715)), GELU_C);
    return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1)) as T;
  });
}

let geluFused: ((x: tf.Tensor) => tf.Tensor) | null = null;

/** GELU (tanh form); one native kernel each way on wasm+native. */
export function gelu<T extends tf.Tensor>(x: T): T {
  if (x.dtype !== 'float32' || !fusedActive(FUSED.gelu)) return geluComposite(x);
  geluFused ??= tf.customGrad(((input: tf.Tensor, save: tf.GradSaveFunc) => {
    save([input]);
    return {
      value: run(FUSED.gelu, { x: input })[0],
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => run(FUSED.geluGrad, { x: saved[0], dy })[0],
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as (x: tf.Tensor) => tf.Tensor;
  return geluFused(x) as T;
}

/** Layer normalisation over the last axis, then per-channel scale and shift (tfjs composite). */
export function layerNormComposite<T extends tf.Tensor>(x: T, gamma: tf.Tensor1D, beta: tf.Tensor1D, eps = 1e-5): T {
  return tf.tidy(() => {
    const mean = tf.mean(x, -1, true);
    const centred = tf.sub(x, mean);
    const variance = tf.mean(tf.square(centred), -1, true);
    return tf.add(tf.mul(tf.mul(centred, tf.rsqrt(tf.add(variance, eps))), gamma), beta) as T;
  });
}

const layerNormFused = new Map<number, (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor>();

/**
 * LayerNorm over the last axis (ε default 1e-5, as GPT-2): (x − mean)/√(var + ε)·gamma + beta, with
 * gamma and beta of shape [C]. One native kernel forward (saving per-row mean and 1/σ) and one backward
 * on wasm+native.
 */
export function layerNorm<T extends tf.Tensor>(x: T, gamma: tf.Tensor1D, beta: tf.Tensor1D, eps = 1e-5): T {
  const C = x.shape[x.rank - 1];
  if (x.rank < 1 || gamma.rank !== 1 || beta.rank !== 1 || gamma.shape[0] !== C || beta.shape[0] !== C) {
    throw new Error(`layerNorm: x [${x.shape}] needs gamma and beta of shape [${C}], got [${gamma.shape}] and [${beta.shape}]`);
  }
  if (x.dtype !== 'float32' || !fusedActive(FUSED.layerNorm)) return layerNormComposite(x, gamma, beta, eps);
  let fn = layerNormFused.get(eps);
  if (!fn) {
    fn = tf.customGrad(((input: tf.Tensor, g: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
      const [y, mean, rstd] = run(FUSED.layerNorm, { x: input, gamma: g, beta: b }, { eps });
      save([input, g, mean, rstd]);
      return {
        value: y,
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
          run(FUSED.layerNormGrad, { dy, x: saved[0], gamma: saved[1], mean: saved[2], rstd: saved[3] }),
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0]) as (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor;
    layerNormFused.set(eps, fn);
  }
  return fn(x, gamma, beta) as T;
}
