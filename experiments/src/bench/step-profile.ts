import { tf } from '@rred/engine';
import { round } from './timing';

/** What tf.profile names a kernel-function invocation without a kernel name: a custom gradient's forward. */
const CUSTOM_GRAD_SCOPE = 'unnamed scope';

/** Kernel time of one profiled call of `run`, grouped by kernel (BatchMatMul also by shapes). */
export interface StepProfile {
  profiledStepMs: number;
  kernelMs: number;
  byKernel: { kernel: string; ms: number; calls: number; share: number }[];
  batchMatMulByShape: { shapes: string; ms: number; calls: number; gflops: number }[];
}

/**
 * tf.profile times every kernel of one call (the wasm backend's timer is wall clock around each
 * kernel, so the sum is below the step: the rest is JS between kernels, autograd bookkeeping and GC).
 * `top` rows of each table are kept.
 */
export async function profileStep(run: () => void, top = 12): Promise<StepProfile> {
  const t0 = performance.now();
  const info = await tf.profile(run);
  const profiledStepMs = performance.now() - t0;
  const byKernel = new Map<string, { ms: number; calls: number }>();
  const byShape = new Map<string, { ms: number; calls: number; flops: number }>();
  let total = 0;
  for (const k of info.kernels) {
    // A custom-gradient op's forward (the engine's fused ops) is profiled as a scope ('unnamed scope')
    // around the registered kernel it runs, which is profiled too: counting both double-counted it.
    if (k.name === CUSTOM_GRAD_SCOPE) continue;
    const ms = Number(await k.kernelTimeMs) || 0;
    total += ms;
    const e = byKernel.get(k.name) ?? { ms: 0, calls: 0 };
    byKernel.set(k.name, { ms: e.ms + ms, calls: e.calls + 1 });
    if (k.name === 'BatchMatMul') {
      const key = `${k.inputShapes.map((s) => `[${s}]`).join('·')} → [${k.outputShapes[0]}]`;
      const s = byShape.get(key) ?? { ms: 0, calls: 0, flops: 0 };
      byShape.set(key, { ms: s.ms + ms, calls: s.calls + 1, flops: s.flops + matMulFlops(k.inputShapes, k.outputShapes[0]) });
    }
  }
  return {
    profiledStepMs: round(profiledStepMs),
    kernelMs: round(total),
    byKernel: [...byKernel]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, top)
      .map(([kernel, e]) => ({ kernel, ms: round(e.ms), calls: e.calls, share: round(e.ms / total, 3) })),
    batchMatMulByShape: [...byShape]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, top)
      .map(([shapes, e]) => ({ shapes, ms: round(e.ms), calls: e.calls, gflops: round(e.flops / Math.max(e.ms, 1e-6) / 1e6, 1) })),
  };
}

/** 2·M·N·K·batch of a product whose output is [..., M, N]; K = the input dim shared with neither output dim. */
function matMulFlops(inputs: number[][], out: number[]): number {
  const a = inputs[0];
  const size = out.reduce((x, y) => x * y, 1);
  const [m, n] = out.slice(-2);
  const last2 = a.slice(-2);
  // a is [.., M, K] or [.., K, M]: K is the one of its last two dims that is not M (M when both are).
  const k = last2[0] === m ? last2[1] : last2[0];
  return n === undefined ? 0 : 2 * size * k;
}
