import * as tf from '@tensorflow/tfjs-core';
import type { KernelConfig, KernelFunc } from '@tensorflow/tfjs-core';
import type { NativeAddon } from './native-addon';
import { castKernel, identityKernel } from './kernels/alias';
import { batchMatMulKernel } from './kernels/batch-matmul';
import type { NativeContext } from './kernels/context';
import { concatKernel, sliceKernel, splitVKernel, tileKernel, transposeKernel } from './kernels/copy-kernels';
import { binaryKernels, unaryKernels } from './kernels/elementwise';
import { fusedKernels } from './kernels/fused';
import { gatherKernel, segmentSumKernel } from './kernels/gather';
import { reduceKernels } from './kernels/reduce';
import { softmaxKernel } from './kernels/softmax';

/**
 * The native kernels, registered over the wasm backend's. The stock kernels are kept so a kernel
 * can defer to them (other dtypes) and so tests can switch the whole set back and compare.
 */
export interface NativeKernelSet {
  names: string[];
  /** Register the native kernels (the default after install). */
  useNative(): void;
  /** Put the stock wasm kernels back (tests compare the two). */
  useStock(): void;
  active(): 'native' | 'stock';
}

let installed: NativeKernelSet | null = null;

export function installNativeKernels(addon: NativeAddon): NativeKernelSet {
  if (installed) return installed;
  const stock = new Map<string, KernelConfig | undefined>();
  const ctx: NativeContext = {
    addon,
    stock(name: string): KernelFunc {
      const cfg = stock.get(name);
      if (!cfg) throw new Error(`engine: no stock wasm kernel for ${name}`);
      return cfg.kernelFunc;
    },
  };
  const configs: KernelConfig[] = [
    batchMatMulKernel(ctx),
    transposeKernel(ctx),
    sliceKernel(ctx),
    concatKernel(ctx),
    splitVKernel(ctx),
    tileKernel(ctx),
    ...unaryKernels(ctx),
    ...binaryKernels(ctx),
    ...reduceKernels(ctx),
    softmaxKernel(ctx),
    gatherKernel(ctx),
    segmentSumKernel(ctx),
    identityKernel(ctx),
    castKernel(ctx),
    ...fusedKernels(ctx),
  ];
  for (const cfg of configs) stock.set(cfg.kernelName, tf.getKernel(cfg.kernelName, 'wasm'));
  let mode: 'native' | 'stock' = 'stock';
  const swapTo = (pick: (cfg: KernelConfig) => KernelConfig | undefined) => {
    for (const cfg of configs) {
      if (tf.getKernel(cfg.kernelName, 'wasm')) tf.unregisterKernel(cfg.kernelName, 'wasm');
      const next = pick(cfg);
      if (next) tf.registerKernel(next);
    }
  };
  installed = {
    names: configs.map((c) => c.kernelName).sort(),
    useNative() {
      swapTo((cfg) => cfg);
      mode = 'native';
    },
    useStock() {
      swapTo((cfg) => stock.get(cfg.kernelName));
      mode = 'stock';
    },
    active: () => mode,
  };
  installed.useNative();
  return installed;
}

export function nativeKernelSet(): NativeKernelSet | null {
  return installed;
}
