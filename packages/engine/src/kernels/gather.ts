import { GatherV2, UnsortedSegmentSum, util, type TensorInfo } from '@tensorflow/tfjs-core';
import { sizeOf } from '../shape-math';
import { heapOf, offsetOf } from '../wasm-heap';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/** Embedding lookup: gather along axis 0 (other axes / batchDims go to the stock kernel). */
export function gatherKernel(ctx: NativeContext) {
  return wasmKernel(GatherV2, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    const indices = args.inputs.indices as TensorInfo;
    const axis = util.parseAxisParam(args.attrs.axis as number, x.shape)[0];
    const batchDims = (args.attrs.batchDims as number | undefined) ?? 0;
    if (axis !== 0 || batchDims !== 0 || indices.dtype !== 'int32' || (x.dtype !== 'float32' && x.dtype !== 'int32')) {
      return callStock(ctx, GatherV2, args);
    }
    const { backend } = args;
    const rowLen = sizeOf(x.shape.slice(1));
    const nIdx = sizeOf(indices.shape);
    const out = backend.makeOutput([...indices.shape, ...x.shape.slice(1)], x.dtype);
    if (nIdx === 0) return out;
    const bad = ctx.addon.gatherRows(
      heapOf(backend),
      offsetOf(backend, x),
      offsetOf(backend, indices),
      offsetOf(backend, out),
      x.shape[0],
      rowLen,
      nIdx,
    );
    if (bad >= 0) {
      const value = new Int32Array(heapOf(backend), offsetOf(backend, indices) + 4 * bad, 1)[0];
      backend.disposeData(out.dataId);
      throw new Error(`GatherV2: the index value ${value} is not in [0, ${x.shape[0] - 1}]`);
    }
    return out;
  });
}

/** Gradient of gather (tfjs-backend-wasm has no UnsortedSegmentSum at all). */
export function segmentSumKernel(ctx: NativeContext) {
  return wasmKernel(UnsortedSegmentSum, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    const ids = args.inputs.segmentIds as TensorInfo;
    const numSegments = args.attrs.numSegments as number;
    if (x.dtype !== 'float32' || ids.dtype !== 'int32') return callStock(ctx, UnsortedSegmentSum, args);
    const { backend } = args;
    const inner = x.shape.slice(ids.shape.length);
    const out = backend.makeOutput([numSegments, ...inner], 'float32');
    const n = sizeOf(ids.shape);
    const rowLen = sizeOf(inner);
    if (numSegments * rowLen === 0) return out;
    ctx.addon.segmentSum(heapOf(backend), offsetOf(backend, x), offsetOf(backend, ids), offsetOf(backend, out), n, rowLen, numSegments);
    return out;
  });
}
