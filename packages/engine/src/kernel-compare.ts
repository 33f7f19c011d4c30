/**
 * Test support (not exported from the package): run the same tfjs code with the native kernels and
 * with the stock wasm kernels, and compare the results with stated tolerances.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Rng } from '@rred/core';
import { initEngine } from './init';
import { loadNativeAddon } from './native-addon';
import { nativeKernelSet, type NativeKernelSet } from './native-kernels';

/**
 * Whether suites that exercise the native addon run. On a machine without OpenBLAS or a compiler,
 * `npm ci` falls back to plain wasm and these suites are skipped (jest counts them as skipped). Where
 * the addon must exist (`.ci/run` installs OpenBLAS and sets RRED_REQUIRE_NATIVE=1), a missing addon
 * fails them instead, so a broken build cannot hide behind a skip.
 */
const nativeTestsEnabled: boolean = process.env.RRED_REQUIRE_NATIVE === '1' || loadNativeAddon().ok;
export const describeNative: jest.Describe = nativeTestsEnabled ? describe : describe.skip;
export const itNative: jest.It = nativeTestsEnabled ? it : it.skip;

/** Initialises wasm+native or fails with the reason the addon is unusable. */
export async function requireNativeKernels(): Promise<NativeKernelSet> {
  const load = loadNativeAddon();
  if (!load.ok) throw new Error(`native addon unavailable (${load.reason}); build it with \`node packages/engine/native/build.js\``);
  const info = await initEngine({ backend: 'wasm+native', quiet: true });
  const set = nativeKernelSet();
  if (info.backend !== 'wasm+native' || !set) throw new Error(`engine chose ${info.backend}: ${JSON.stringify(info.reasonsSkipped)}`);
  return set;
}

interface Result {
  shape: number[];
  dtype: string;
  values: Float32Array | Int32Array | Uint8Array;
}

function collect(fn: () => tf.Tensor | tf.Tensor[]): Result[] {
  const outs = tf.tidy(() => {
    const r = fn();
    return Array.isArray(r) ? r : [r];
  });
  const results = outs.map((t) => ({ shape: t.shape.slice(), dtype: t.dtype, values: t.dataSync() as Result['values'] }));
  tf.dispose(outs);
  return results;
}

/** Runs `fn` with the native kernels, then with the stock wasm ones (native stays active afterwards). */
export function runBoth(set: NativeKernelSet, fn: () => tf.Tensor | tf.Tensor[]): { native: Result[]; stock: Result[] } {
  set.useNative();
  const native = collect(fn);
  set.useStock();
  try {
    return { native, stock: collect(fn) };
  } finally {
    set.useNative();
  }
}

/** Runs `fn` with the native kernels only. */
export function runNative(set: NativeKernelSet, fn: () => tf.Tensor | tf.Tensor[]): Result[] {
  set.useNative();
  return collect(fn);
}

/**
 * Per-element relative error: |a - e| <= rtol * |e| + atol, with NaN required exactly where the
 * reference has NaN and infinities required to match. Returns a description of the first failure.
 */
export function elementwiseMismatch(actual: ArrayLike<number>, expected: ArrayLike<number>, rtol = 1e-5, atol = 1e-7): string | null {
  if (actual.length !== expected.length) return `length ${actual.length} != ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (Number.isNaN(e) || Number.isNaN(a)) {
      if (Number.isNaN(e) !== Number.isNaN(a)) return `[${i}]: ${a} vs ${e}`;
      continue;
    }
    if (!Number.isFinite(e) || !Number.isFinite(a)) {
      if (a !== e) return `[${i}]: ${a} vs ${e}`;
      continue;
    }
    if (Math.abs(a - e) > rtol * Math.abs(e) + atol)
      return `[${i}]: ${a} vs ${e} (rel err ${(Math.abs(a - e) / Math.abs(e)).toExponential(2)})`;
  }
  return null;
}

/**
 * Normwise relative error max|a - e| / max|e| (for sums of many terms, where an element near zero
 * by cancellation has no meaningful per-element relative error). NaN must match exactly.
 */
export function normwiseError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  if (actual.length !== expected.length) return Infinity;
  let maxErr = 0;
  let maxRef = 0;
  for (let i = 0; i < expected.length; i++) {
    if (Number.isNaN(expected[i]) !== Number.isNaN(actual[i])) return Infinity;
    if (Number.isNaN(expected[i])) continue;
    maxErr = Math.max(maxErr, Math.abs(actual[i] - expected[i]));
    maxRef = Math.max(maxRef, Math.abs(expected[i]));
  }
  return maxRef === 0 ? maxErr : maxErr / maxRef;
}

export function randomNormal(rng: Rng, shape: number[], scale = 1): tf.Tensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = new Float32Array(n);
  for (let i = 0; i < n; i++) v[i] = rng.normal() * scale;
  return tf.tensor(v, shape, 'float32');
}

export function randomInts(rng: Rng, shape: number[], lo: number, hi: number): tf.Tensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = new Int32Array(n);
  for (let i = 0; i < n; i++) v[i] = rng.int(lo, hi);
  return tf.tensor(v, shape, 'int32');
}
