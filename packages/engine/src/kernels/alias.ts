import { Cast, Identity, type TensorInfo } from '@tensorflow/tfjs-core';
import { callStock, type KernelArgs, type NativeContext, wasmKernel } from './context';

/**
 * Identity and same-dtype Cast share the input's buffer (refcounted) instead of copying it, as
 * the wasm backend's own Reshape does. Safe because tfjs tensors are immutable: nothing writes
 * into an existing buffer (Variable.assign swaps buffers).
 */
function share(args: KernelArgs): TensorInfo {
  const x = args.inputs.x as TensorInfo;
  args.backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

export function identityKernel(ctx: NativeContext) {
  return wasmKernel(Identity, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    return x.dtype === 'string' ? callStock(ctx, Identity, args) : share(args);
  });
}

export function castKernel(ctx: NativeContext) {
  return wasmKernel(Cast, (args: KernelArgs) => {
    const x = args.inputs.x as TensorInfo;
    return x.dtype === args.attrs.dtype && x.dtype !== 'string' ? share(args) : callStock(ctx, Cast, args);
  });
}
