import { Softmax, type TensorInfo } from '@tensorflow/tfjs-core';
import { sizeOf } from '../shape-math';
import { heapOf, offsetOf } from '../wasm-heap';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/** Softmax over the last axis (tfjs-core only ever asks for the last axis). */
export function softmaxKernel(ctx: NativeContext) {
  return wasmKernel(Softmax, (args: KernelArgs) => {
    const logits = args.inputs.logits as TensorInfo;
    const dim = args.attrs.dim as number;
    const rank = logits.shape.length;
    if (logits.dtype !== 'float32' || (dim !== -1 && dim !== rank - 1)) return callStock(ctx, Softmax, args);
    const { backend } = args;
    const out = backend.makeOutput(logits.shape, 'float32');
    const size = sizeOf(logits.shape);
    if (size === 0) return out;
    const cols = logits.shape[rank - 1];
    ctx.addon.softmax(heapOf(backend), offsetOf(backend, logits), offsetOf(backend, out), size / cols, cols);
    return out;
  });
}
