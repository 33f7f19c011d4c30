import * as tf from '@tensorflow/tfjs-core';
import { heapOf, offsetOf, type WasmBackendLike } from './wasm-heap';

/**
 * The float32 data of `t` without running a kernel or copying the whole tensor: on the wasm backend a
 * view into the wasm heap, valid only until the next tensor is allocated (heap growth moves it), so
 * copy out what you keep before making another tensor; on other backends `dataSync()`.
 * For reading a few rows of a large tensor (the sampler keeping a finished row's K/V) in JS.
 */
export function float32View(t: tf.Tensor): Float32Array {
  if (t.dtype !== 'float32') throw new Error(`float32View: tensor has dtype ${t.dtype}, expected float32`);
  if (t.isDisposed) throw new Error('float32View: tensor is disposed');
  if (tf.getBackend() !== 'wasm') return t.dataSync() as Float32Array;
  const backend = tf.backend() as unknown as WasmBackendLike;
  return new Float32Array(heapOf(backend), offsetOf(backend, t), t.size);
}
