import { loadNativeAddon } from './native-addon';
import { nativeKernelSet } from './native-kernels';

/**
 * OpenBLAS sgemm throughput on an n×n×n product (private buffers, best of `reps` after a warm-up),
 * in GFLOP/s; null when the addon is unavailable. The bench uses it as the machine's peak.
 */
export function sgemmGflops(n = 1024, reps = 5): number | null {
  const load = loadNativeAddon();
  if (!load.ok) return null;
  const seconds = load.addon.sgemmBench(n, reps);
  return (2 * n ** 3) / seconds / 1e9;
}

/**
 * Swaps the native kernels out (plain wasm) or back in, within one process. For benchmarks and
 * comparisons only; returns false when wasm+native was never initialised.
 */
export function setNativeKernelsEnabled(enabled: boolean): boolean {
  const set = nativeKernelSet();
  if (!set) return false;
  if (enabled) set.useNative();
  else set.useStock();
  return true;
}
