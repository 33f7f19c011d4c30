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

/**
 * A new float32 tensor of `shape` whose values `write` puts into the array it is given, which it must
 * fill completely (on wasm the array is the tensor's fresh, uninitialised heap memory, so nothing is
 * zero-filled or copied twice; elsewhere a JS array uploaded afterwards). `write` must not make tensors.
 * For laying many rows out at once (the scorer stacking cached K/V).
 */
export function float32TensorFrom<R extends tf.Rank>(shape: number[], write: (values: Float32Array) => void): tf.Tensor<R> {
  const size = shape.reduce((a, b) => a * b, 1);
  if (tf.getBackend() !== 'wasm') {
    const values = new Float32Array(size);
    write(values);
    const uploaded: tf.Tensor = tf.tensor(values, shape, 'float32');
    return uploaded as tf.Tensor<R>;
  }
  const backend = tf.backend() as unknown as WasmBackendLike;
  const info = backend.makeOutput(shape, 'float32');
  try {
    write(new Float32Array(heapOf(backend), offsetOf(backend, info), size));
  } catch (err) {
    backend.disposeData(info.dataId, true);
    throw err;
  }
  return tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor<R>;
}
