import { broadcast_util, type TensorInfo } from '@tensorflow/tfjs-core';
import { broadcastMeta, sizeOf } from '../shape-math';
import { heapOf, offsetOf } from '../wasm-heap';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/** float32 unary kernels (names as in tfjs and in the addon's unaryOps table). Other dtypes go to stock. */
export function unaryKernels(ctx: NativeContext) {
  return Object.entries(ctx.addon.unaryOps).map(([name, op]) =>
    wasmKernel(name, (args: KernelArgs) => {
      const x = args.inputs.x as TensorInfo;
      if (x.dtype !== 'float32') return callStock(ctx, name, args);
      const { backend } = args;
      const out = backend.makeOutput(x.shape, 'float32');
      const n = sizeOf(x.shape);
      if (n > 0) ctx.addon.unary(heapOf(backend), op, offsetOf(backend, x), offsetOf(backend, out), n);
      return out;
    }),
  );
}

/** Broadcast plans per (aShape, bShape); a training run sees a handful of distinct pairs. */
const planCache = new Map<string, { outShape: number[]; meta: Int32Array }>();

function broadcastPlan(aShape: number[], bShape: number[]) {
  const key = `${aShape.join(',')}|${bShape.join(',')}`;
  let plan = planCache.get(key);
  if (!plan) {
    const outShape = broadcast_util.assertAndGetBroadcastShape(aShape, bShape);
    plan = { outShape, meta: broadcastMeta(aShape, bShape, outShape) };
    planCache.set(key, plan);
  }
  return plan;
}

/** float32 broadcasting binary kernels (Add, Sub, Multiply, RealDiv, Maximum, Minimum, SquaredDifference, Pow). */
export function binaryKernels(ctx: NativeContext) {
  return Object.entries(ctx.addon.binaryOps).map(([name, op]) =>
    wasmKernel(name, (args: KernelArgs) => {
      const a = args.inputs.a as TensorInfo;
      const b = args.inputs.b as TensorInfo;
      if (a.dtype !== 'float32' || b.dtype !== 'float32') return callStock(ctx, name, args);
      const { backend } = args;
      const { outShape, meta } = broadcastPlan(a.shape, b.shape);
      const out = backend.makeOutput(outShape.slice(), 'float32');
      if (sizeOf(outShape) === 0) return out;
      ctx.addon.binary(heapOf(backend), op, offsetOf(backend, a), offsetOf(backend, b), offsetOf(backend, out), meta);
      return out;
    }),
  );
}
