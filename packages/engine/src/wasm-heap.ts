import type { TensorInfo } from '@tensorflow/tfjs-core';

/** The parts of tfjs-backend-wasm's BackendWasm the native kernels use (its class is not exported as a type we can rely on). */
export interface WasmBackendLike {
  wasm: { HEAPU8: Uint8Array };
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: TensorInfo['dtype']): TensorInfo;
  disposeData(dataId: object, force?: boolean): boolean;
  incRef(dataId: object): void;
}

/** Byte offset of a tensor's data in the wasm heap. */
export function offsetOf(backend: WasmBackendLike, t: TensorInfo): number {
  const data = backend.dataIdMap.get(t.dataId);
  if (!data) throw new Error('engine: tensor data not found on the wasm backend (was it disposed?)');
  return data.memoryOffset;
}

/**
 * The heap's current ArrayBuffer. Fetch it after every makeOutput: wasm memory growth replaces it.
 */
export function heapOf(backend: WasmBackendLike): ArrayBuffer {
  return backend.wasm.HEAPU8.buffer as ArrayBuffer;
}
