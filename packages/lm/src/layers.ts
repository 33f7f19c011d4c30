import { layerNorm as fusedLayerNorm, tf } from '@rred/engine';

/**
 * The few building blocks of the transformer, written with ops that have kernels and gradients on
 * the wasm backend (no gather-gradient, no LogSoftmax kernel needed). Activations are kept as 2-D
 * [N, C] matrices (N = B·T) between blocks so every dense layer is a single matMul.
 */

/** Additive mask value for positions a query may not see: exp(−1e9 − max) is exactly 0 in float32. */
export const MASKED = -1e9;

/**
 * act(x·W + b) for x [N, in], W [in, out], b [out] → [N, out]; act the identity (default) or GELU, tanh
 * approximation (GPT-2): 0.5·z·(1 + tanh(√(2/π)·(z + 0.044715·z³))), the form every checkpoint was trained
 * with (not the erf form); with `residual` [N, out] (identity only), residual + (x·W + b). The engine's
 * fused dense layer itself (one native kernel each way on wasm+native), re-exported so the model's layers
 * come from one module.
 */
export { linear } from '@rred/engine';

/**
 * Layer normalisation over the last axis (ε = 1e-5), then per-channel scale and shift. Delegates to the
 * engine's fused op (one native kernel each way on wasm+native; the same composite elsewhere), which
 * computes exactly what the composite (x − mean)/√(var + ε)·γ + β computes.
 */
export function layerNorm<T extends tf.Tensor>(x: T, gamma: tf.Tensor1D, beta: tf.Tensor1D): T {
  return fusedLayerNorm(x, gamma, beta, 1e-5);
}

/**
 * Additive causal mask [1, 1, T, T]: query i sees keys j ≤ i.
 */
export function causalMask(length: number): tf.Tensor4D {
  const data = new Float32Array(length * length);
  for (let i = 0; i < length; i++) for (let j = i + 1; j < length; j++) data[i * length + j] = MASKED;
  return tf.tensor4d(data, [1, 1, length, length]);
}

/**
 * Float one-hot rows. The wasm OneHot kernel (tfjs 4.22) writes int32 data whatever dtype is asked
 * for, so a float32 oneHot reads back as denormal garbage; build int32 and cast instead.
 */
export function oneHotFloat(ids: tf.Tensor, depth: number): tf.Tensor {
  return tf.cast(tf.oneHot(ids as tf.Tensor1D, depth), 'float32');
}

/** Embedding rows for integer ids without tf.gather (whose gradient has no wasm kernel): oneHot·E. */
export function embedRows(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  // [N, V] × [V, C] → [N, C]
  return tf.matMul(oneHotFloat(ids, table.shape[0]) as tf.Tensor2D, table);
}
