import { backend_util, util, type TensorInfo } from '@tensorflow/tfjs-core';
import { reduceLayout, sizeOf, transposeMeta } from '../shape-math';
import { heapOf, offsetOf } from '../wasm-heap';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/** Sum, Mean, Max, Min over any axes of a float32 tensor (sums accumulate in double). */
export function reduceKernels(ctx: NativeContext) {
  return Object.entries(ctx.addon.reduceOps).map(([name, op]) =>
    wasmKernel(name, (args: KernelArgs) => {
      const x = args.inputs.x as TensorInfo;
      if (x.dtype !== 'float32') return callStock(ctx, name, args);
      const { backend } = args;
      // tfjs names the axis attribute `reductionIndices` for Max and `axis` for the others.
      const axisAttr = (name === 'Max' ? args.attrs.reductionIndices : args.attrs.axis) as number | number[];
      const axes = util.parseAxisParam(axisAttr, x.shape);
      const [reducedShape] = backend_util.computeOutAndReduceShapes(x.shape, axes);
      const outShape = args.attrs.keepDims ? backend_util.expandShapeToKeepDim(reducedShape, axes) : reducedShape;
      const out = backend.makeOutput(outShape, 'float32');
      const layout = reduceLayout(x.shape, axes);
      if (layout.outer === 0) return out;
      if (layout.block) {
        const { outer, red, inner } = layout.block;
        ctx.addon.reduce(heapOf(backend), op, offsetOf(backend, x), offsetOf(backend, out), outer, red, inner);
        return out;
      }
      // Reduced axes interleaved with kept ones: move them last with one native transpose, then reduce rows.
      const permuted = backend.makeOutput(
        layout.perm.map((d) => x.shape[d]),
        'float32',
      );
      try {
        if (sizeOf(x.shape) > 0) {
          ctx.addon.stridedCopy(heapOf(backend), offsetOf(backend, x), offsetOf(backend, permuted), transposeMeta(x.shape, layout.perm));
        }
        ctx.addon.reduce(heapOf(backend), op, offsetOf(backend, permuted), offsetOf(backend, out), layout.outer, layout.red, 1);
      } finally {
        backend.disposeData(permuted.dataId);
      }
      return out;
    }),
  );
}
