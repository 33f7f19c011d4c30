import { BatchMatMul, broadcast_util, type TensorInfo } from '@tensorflow/tfjs-core';
import { batchIndexMaps, sizeOf } from '../shape-math';
import { heapOf, offsetOf } from '../wasm-heap';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/** Index maps per (aOuter, bOuter) pair; a training run sees a handful of distinct shapes. */
const mapCache = new Map<string, { aIdx: Int32Array; bIdx: Int32Array }>();

/**
 * BatchMatMul on OpenBLAS sgemm: every transposeA/transposeB combination, general broadcasting of the
 * batch dims (tfjs-core only checks they broadcast), size-1 and empty dims.
 */
export function batchMatMulKernel(ctx: NativeContext) {
  return wasmKernel(BatchMatMul, (args: KernelArgs) => {
    const { backend } = args;
    const a = args.inputs.a as TensorInfo;
    const b = args.inputs.b as TensorInfo;
    const transposeA = Boolean(args.attrs.transposeA);
    const transposeB = Boolean(args.attrs.transposeB);
    if (a.dtype !== 'float32' || b.dtype !== 'float32') return callStock(ctx, BatchMatMul, args);
    const ar = a.shape.length;
    const br = b.shape.length;
    const m = transposeA ? a.shape[ar - 1] : a.shape[ar - 2];
    const k = transposeA ? a.shape[ar - 2] : a.shape[ar - 1];
    const kb = transposeB ? b.shape[br - 1] : b.shape[br - 2];
    const n = transposeB ? b.shape[br - 2] : b.shape[br - 1];
    if (k !== kb) {
      throw new Error(
        `Error in matMul: inner shapes (${k}) and (${kb}) of Tensors with shapes ${a.shape} and ${b.shape} and transposeA=${transposeA} and transposeB=${transposeB} must match.`,
      );
    }
    const aOuter = a.shape.slice(0, -2);
    const bOuter = b.shape.slice(0, -2);
    const outOuter = broadcast_util.assertAndGetBroadcastShape(aOuter, bOuter);
    const out = backend.makeOutput([...outOuter, m, n], 'float32');
    if (sizeOf(outOuter) === 0 || m === 0 || n === 0) return out;
    const key = `${aOuter.join(',')}|${bOuter.join(',')}`;
    let maps = mapCache.get(key);
    if (!maps) {
      maps = batchIndexMaps(aOuter, bOuter, outOuter);
      mapCache.set(key, maps);
    }
    ctx.addon.batchMatMul(
      heapOf(backend),
      offsetOf(backend, a),
      offsetOf(backend, b),
      offsetOf(backend, out),
      m,
      n,
      k,
      transposeA ? 1 : 0,
      transposeB ? 1 : 0,
      maps.aIdx,
      maps.bIdx,
      sizeOf(aOuter),
      sizeOf(bOuter),
    );
    return out;
  });
}
