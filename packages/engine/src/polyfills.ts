import * as tf from '@tensorflow/tfjs-core';
import { UnsortedSegmentSum, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { sizeOf } from './shape-math';
import { heapOf, offsetOf, type WasmBackendLike } from './wasm-heap';

/**
 * tfjs-backend-wasm has no UnsortedSegmentSum, which is the gradient of gather (embedding lookups),
 * so training any model with embeddings fails on plain wasm. This JS version works on the heap
 * directly; with native kernels it is replaced by the C one.
 */
function unsortedSegmentSum({
  inputs,
  backend,
  attrs,
}: {
  inputs: tf.NamedTensorInfoMap;
  backend: WasmBackendLike;
  attrs: tf.NamedAttrMap;
}): TensorInfo {
  const x = inputs.x as TensorInfo;
  const ids = inputs.segmentIds as TensorInfo;
  const numSegments = attrs.numSegments as number;
  const inner = x.shape.slice(ids.shape.length);
  const out = backend.makeOutput([numSegments, ...inner], x.dtype);
  const rowLen = sizeOf(inner);
  const n = sizeOf(ids.shape);
  const heap = heapOf(backend);
  const View = x.dtype === 'int32' ? Int32Array : Float32Array;
  const xs = new View(heap, offsetOf(backend, x), n * rowLen);
  const idv = new Int32Array(heap, offsetOf(backend, ids), n);
  const ys = new View(heap, offsetOf(backend, out), numSegments * rowLen);
  ys.fill(0);
  for (let i = 0; i < n; i++) {
    const s = idv[i];
    if (s < 0 || s >= numSegments) continue; // dropped, as in TensorFlow
    const o = s * rowLen;
    const src = i * rowLen;
    for (let j = 0; j < rowLen; j++) ys[o + j] += xs[src + j];
  }
  return out;
}

/** Registers the wasm polyfills that are missing (idempotent). */
export function installWasmPolyfills(): void {
  if (!tf.getKernel(UnsortedSegmentSum, 'wasm')) {
    tf.registerKernel({ kernelName: UnsortedSegmentSum, backendName: 'wasm', kernelFunc: unsortedSegmentSum as unknown as KernelFunc });
  }
}
