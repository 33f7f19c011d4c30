import type { KernelConfig, KernelFunc, NamedAttrMap, NamedTensorInfoMap, TensorInfo } from '@tensorflow/tfjs-core';
import type { NativeAddon } from '../native-addon';
import type { WasmBackendLike } from '../wasm-heap';

export interface KernelArgs {
  inputs: NamedTensorInfoMap;
  backend: WasmBackendLike;
  attrs: NamedAttrMap;
}

type NativeKernelFunc = (args: KernelArgs) => TensorInfo | TensorInfo[];

/** What a native kernel family needs: the addon, and the stock wasm kernel for cases it leaves alone (other dtypes). */
export interface NativeContext {
  addon: NativeAddon;
  stock(kernelName: string): KernelFunc;
}

export function wasmKernel(kernelName: string, fn: NativeKernelFunc): KernelConfig {
  return { kernelName, backendName: 'wasm', kernelFunc: fn as unknown as KernelFunc };
}

/** Calls the stock kernel with the same arguments. */
export function callStock(ctx: NativeContext, kernelName: string, args: KernelArgs): TensorInfo | TensorInfo[] {
  return ctx.stock(kernelName)(args as unknown as Parameters<KernelFunc>[0]);
}
