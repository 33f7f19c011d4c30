import { backend_util, Concat, slice_util, Slice, SplitV, Tile, Transpose, util, type TensorInfo } from '@tensorflow/tfjs-core';
import { contiguousStrides, packDimsMeta, sizeOf, transposeMeta } from '../shape-math';
import { heapOf, offsetOf, type WasmBackendLike } from '../wasm-heap';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/** The strided copy works on 4-byte elements; bool (1 byte), string and complex go to the stock kernels. */
const is4Byte = (t: TensorInfo) => t.dtype === 'float32' || t.dtype === 'int32';

function meta2d(rows: number, cols: number, srcRowStride: number, dstRowStride: number): Int32Array {
  return Int32Array.of(2, rows, cols, srcRowStride, 1, dstRowStride, 1);
}

/** Copies a [rows, cols] block between row-strided views; offsets are in elements. */
function copyBlock(
  ctx: NativeContext,
  backend: WasmBackendLike,
  src: TensorInfo,
  srcElem: number,
  dst: TensorInfo,
  dstElem: number,
  meta: Int32Array,
) {
  ctx.addon.stridedCopy(heapOf(backend), offsetOf(backend, src) + 4 * srcElem, offsetOf(backend, dst) + 4 * dstElem, meta);
}

const transposeCache = new Map<string, Int32Array>();

export function transposeKernel(ctx: NativeContext) {
  return wasmKernel(Transpose, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    if (!is4Byte(x)) return callStock(ctx, Transpose, args);
    const perm = args.attrs.perm as number[];
    const { backend } = args;
    const out = backend.makeOutput(
      perm.map((p) => x.shape[p]),
      x.dtype,
    );
    if (sizeOf(x.shape) === 0) return out;
    const key = `${x.shape.join(',')}|${perm.join(',')}`;
    let meta = transposeCache.get(key);
    if (!meta) {
      meta = transposeMeta(x.shape, perm);
      transposeCache.set(key, meta);
    }
    ctx.addon.stridedCopy(heapOf(backend), offsetOf(backend, x), offsetOf(backend, out), meta);
    return out;
  });
}

/** Slice of x as a strided view: start offset plus x's own strides. */
function sliceInto(ctx: NativeContext, backend: WasmBackendLike, x: TensorInfo, begin: number[], size: number[]): TensorInfo {
  const out = backend.makeOutput(size, x.dtype);
  if (sizeOf(size) === 0) return out;
  const strides = contiguousStrides(x.shape);
  let start = 0;
  begin.forEach((b, d) => (start += b * strides[d]));
  const meta = packDimsMeta(size, strides, contiguousStrides(size));
  ctx.addon.stridedCopy(heapOf(backend), offsetOf(backend, x) + 4 * start, offsetOf(backend, out), meta);
  return out;
}

export function sliceKernel(ctx: NativeContext) {
  return wasmKernel(Slice, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    if (!is4Byte(x) || x.shape.length > 8) return callStock(ctx, Slice, args);
    const [begin, size] = slice_util.parseSliceParams(x, args.attrs.begin as number | number[], args.attrs.size as number | number[]);
    slice_util.assertParamsValid(x, begin, size);
    return sliceInto(ctx, args.backend, x, begin, size);
  });
}

export function splitVKernel(ctx: NativeContext) {
  return wasmKernel(SplitV, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    if (!is4Byte(x)) return callStock(ctx, SplitV, args);
    const axis = util.parseAxisParam(args.attrs.axis as number, x.shape)[0];
    const sizes = backend_util.prepareSplitSize(x, args.attrs.numOrSizeSplits as number | number[], axis);
    // x viewed as [outer, x.shape[axis] * after]; each part is a column block of it.
    const outer = sizeOf(x.shape.slice(0, axis));
    const after = sizeOf(x.shape.slice(axis + 1));
    const rowLen = x.shape[axis] * after;
    let col = 0;
    return sizes.map((s) => {
      const shape = x.shape.slice();
      shape[axis] = s;
      const out = args.backend.makeOutput(shape, x.dtype);
      if (outer > 0 && s * after > 0) copyBlock(ctx, args.backend, x, col, out, 0, meta2d(outer, s * after, rowLen, s * after));
      col += s * after;
      return out;
    });
  });
}

export function concatKernel(ctx: NativeContext) {
  return wasmKernel(Concat, (args: KernelArgs) => {
    const inputs = Object.values(args.inputs) as TensorInfo[];
    if (!inputs.every(is4Byte)) return callStock(ctx, Concat, args);
    const axis = util.parseAxisParam(args.attrs.axis as number, inputs[0].shape)[0];
    backend_util.assertParamsConsistent(
      inputs.map((t) => t.shape),
      axis,
    );
    const outShape = backend_util.computeOutShape(
      inputs.map((t) => t.shape),
      axis,
    );
    const out = args.backend.makeOutput(outShape, inputs[0].dtype);
    if (sizeOf(outShape) === 0) return out;
    // Each input is a column block of the output viewed as [outer, outShape[axis] * after].
    const outer = sizeOf(outShape.slice(0, axis));
    const outRow = sizeOf(outShape.slice(axis));
    let col = 0;
    for (const t of inputs) {
      const cols = sizeOf(t.shape.slice(axis));
      if (cols > 0) copyBlock(ctx, args.backend, t, 0, out, col, meta2d(outer, cols, cols, outRow));
      col += cols;
    }
    return out;
  });
}

export function tileKernel(ctx: NativeContext) {
  return wasmKernel(Tile, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    const reps = args.attrs.reps as number[];
    if (!is4Byte(x)) return callStock(ctx, Tile, args);
    const outShape = x.shape.map((n, d) => n * reps[d]);
    // Out index along dim d is rep * n_d + j: a (rep, j) pair of dims with source strides (0, stride_d).
    const xs = contiguousStrides(x.shape);
    const os = contiguousStrides(outShape);
    const dims: { n: number; src: number; dst: number }[] = [];
    x.shape.forEach((n, d) => {
      if (reps[d] !== 1) dims.push({ n: reps[d], src: 0, dst: n * os[d] });
      if (n !== 1) dims.push({ n, src: xs[d], dst: os[d] });
    });
    if (dims.length > 8) return callStock(ctx, Tile, args);
    const out = args.backend.makeOutput(outShape, x.dtype);
    if (sizeOf(outShape) === 0) return out;
    const meta = packDimsMeta(
      dims.map((d) => d.n),
      dims.map((d) => d.src),
      dims.map((d) => d.dst),
    );
    ctx.addon.stridedCopy(heapOf(args.backend), offsetOf(args.backend, x), offsetOf(args.backend, out), meta);
    return out;
  });
}
