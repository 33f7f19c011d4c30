import type { KernelConfig, NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import { sizeOf } from '../shape-math';
import { heapOf, offsetOf } from '../wasm-heap';
import { type KernelArgs, type NativeContext, wasmKernel } from './context';

/** Kernel names of the fused ops (no stock wasm equivalent: without them the ops use tfjs composites). */
export const FUSED = {
  layerNorm: 'RredLayerNorm',
  layerNormGrad: 'RredLayerNormGrad',
  adamw: 'RredAdamW',
  linear: 'RredLinear',
  linearGrad: 'RredLinearGrad',
  attendPast: 'RredAttendPast',
  sumSquares: 'RredSumSquares',
  selfAttention: 'RredSelfAttention',
  selfAttentionGrad: 'RredSelfAttentionGrad',
} as const;

/** Rows B, heads H, positions S per row and width C of selfAttention's qkv [B·S, 3C]. */
function selfAttentionDims(qkv: TensorInfo, attrs: NamedAttrMap): { B: number; H: number; S: number; C: number } {
  const B = attrs.batch as number;
  return { B, H: attrs.heads as number, S: qkv.shape[0] / B, C: qkv.shape[1] / 3 };
}

/** One kernel config per FUSED name, registered on the wasm backend by native-kernels.ts. */
export function fusedKernels(ctx: NativeContext): KernelConfig[] {
  return [
    layerNormKernel,
    layerNormGradKernel,
    linearKernel,
    linearGradKernel,
    adamwKernel,
    selfAttentionKernel,
    selfAttentionGradKernel,
    attendPastKernel,
    sumSquaresKernel,
  ].map((kernel) => kernel(ctx));
}

/** x [rows, C], gamma, beta [C] → y [rows, C] and the row mean, 1/std [rows] (saved for the gradient). */
function layerNormKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.layerNorm, ({ inputs, backend, attrs }: KernelArgs) => {
    const x = inputs.x as TensorInfo;
    const cols = x.shape[x.shape.length - 1];
    const rowShape = x.shape.slice(0, -1);
    const y = backend.makeOutput(x.shape, 'float32');
    const mean = backend.makeOutput(rowShape, 'float32'); // [rows]: saved for the gradient
    const rstd = backend.makeOutput(rowShape, 'float32');
    ctx.addon.layerNorm(
      heapOf(backend),
      offsetOf(backend, x),
      offsetOf(backend, inputs.gamma as TensorInfo),
      offsetOf(backend, inputs.beta as TensorInfo),
      offsetOf(backend, y),
      offsetOf(backend, mean),
      offsetOf(backend, rstd),
      sizeOf(rowShape),
      cols,
      attrs.eps as number,
    );
    return [y, mean, rstd];
  });
}

/** dy, x [rows, C], gamma [C], mean, rstd [rows] → dx [rows, C], dgamma, dbeta [C]. */
function layerNormGradKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.layerNormGrad, ({ inputs, backend }: KernelArgs) => {
    const x = inputs.x as TensorInfo;
    const cols = x.shape[x.shape.length - 1];
    const dx = backend.makeOutput(x.shape, 'float32');
    const dgamma = backend.makeOutput([cols], 'float32');
    const dbeta = backend.makeOutput([cols], 'float32');
    ctx.addon.layerNormGrad(
      heapOf(backend),
      offsetOf(backend, inputs.dy as TensorInfo),
      offsetOf(backend, x),
      offsetOf(backend, inputs.gamma as TensorInfo),
      offsetOf(backend, inputs.mean as TensorInfo),
      offsetOf(backend, inputs.rstd as TensorInfo),
      offsetOf(backend, dx),
      offsetOf(backend, dgamma),
      offsetOf(backend, dbeta),
      sizeOf(x.shape) / cols,
      cols,
    );
    return [dx, dgamma, dbeta];
  });
}

/** x [R, I], w [I, O], b [O] (, residual [R, O]) → pre [R, O] (= x·w + b (+ residual)), and y = gelu(pre) [R, O] with attrs.gelu. */
function linearKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.linear, ({ inputs, backend, attrs }: KernelArgs) => {
    // x [R, I], w [I, O], b [O] (, residual [R, O]) → pre [R, O] (= x·w + b (+ residual)), and y = gelu(pre) [R, O] with attrs.gelu
    const x = inputs.x as TensorInfo;
    const [R, I] = x.shape;
    const O = (inputs.w as TensorInfo).shape[1];
    const act = attrs.gelu ? 1 : 0;
    const pre = backend.makeOutput([R, O], 'float32');
    const y = act ? backend.makeOutput([R, O], 'float32') : pre;
    const off = (t: TensorInfo) => offsetOf(backend, t);
    const res = inputs.residual as TensorInfo | undefined;
    ctx.addon.linear(
      heapOf(backend),
      off(x),
      off(inputs.w as TensorInfo),
      off(inputs.b as TensorInfo),
      off(pre),
      off(y),
      R,
      I,
      O,
      act,
      res ? off(res) : -1,
    );
    return act ? [y, pre] : [pre];
  });
}

/** dy [R, O] (pre [R, O] with attrs.gelu) → dx [R, I], dw [I, O], db [O]. */
function linearGradKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.linearGrad, ({ inputs, backend, attrs }: KernelArgs) => {
    // dy [R, O] (pre [R, O] with attrs.gelu) → dx [R, I], dw [I, O], db [O]
    const x = inputs.x as TensorInfo;
    const w = inputs.w as TensorInfo;
    const [R, I] = x.shape;
    const O = w.shape[1];
    const act = attrs.gelu ? 1 : 0;
    const outs = [backend.makeOutput([R, I], 'float32'), backend.makeOutput([I, O], 'float32'), backend.makeOutput([O], 'float32')];
    const off = (t: TensorInfo) => offsetOf(backend, t);
    const dy = inputs.dy as TensorInfo;
    ctx.addon.linearGrad(
      heapOf(backend),
      off(x),
      off(w),
      off(dy),
      act ? off(inputs.pre as TensorInfo) : off(dy),
      off(outs[0]),
      off(outs[1]),
      off(outs[2]),
      R,
      I,
      O,
      act,
    );
    return outs;
  });
}

/** param, grad, m, v (same shape) → param′, m′, v′ (one AdamW step, attrs: lr, β1, β2, ε, bias corrections c1 c2, weightDecay, gradScale). */
function adamwKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.adamw, ({ inputs, backend, attrs }: KernelArgs) => {
    const p = inputs.param as TensorInfo;
    const n = sizeOf(p.shape);
    const outs = [backend.makeOutput(p.shape, 'float32'), backend.makeOutput(p.shape, 'float32'), backend.makeOutput(p.shape, 'float32')];
    const off = (t: TensorInfo) => offsetOf(backend, t);
    ctx.addon.adamw(
      heapOf(backend),
      off(p),
      off(inputs.grad as TensorInfo),
      off(inputs.m as TensorInfo),
      off(inputs.v as TensorInfo),
      off(outs[0]),
      off(outs[1]),
      off(outs[2]),
      n,
      attrs.lr as number,
      attrs.beta1 as number,
      attrs.beta2 as number,
      attrs.epsilon as number,
      attrs.c1 as number,
      attrs.c2 as number,
      attrs.weightDecay as number,
      attrs.gradScale as number,
    );
    return outs;
  });
}

/** qkv [B·S, 3C], mask [maskB, 1, S, S] → out [B·S, C], probs [B, H, S, S] (saved for the gradient). */
function selfAttentionKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.selfAttention, ({ inputs, backend, attrs }: KernelArgs) => {
    // qkv [B·S, 3C], mask [maskB, 1, S, S] → out [B·S, C], probs [B, H, S, S] (saved for the gradient)
    const qkv = inputs.qkv as TensorInfo;
    const mask = inputs.mask as TensorInfo;
    const { B, H, S, C } = selfAttentionDims(qkv, attrs);
    const out = backend.makeOutput([B * S, C], 'float32');
    const probs = backend.makeOutput([B, H, S, S], 'float32');
    const off = (t: TensorInfo) => offsetOf(backend, t);
    ctx.addon.selfAttention(
      heapOf(backend),
      off(qkv),
      off(mask),
      off(out),
      off(probs),
      B,
      H,
      S,
      C / H,
      mask.shape[0],
      attrs.scale as number,
    );
    return [out, probs];
  });
}

/** qkv [B·S, 3C], probs [B, H, S, S], dy [B·S, C] → dqkv [B·S, 3C]. */
function selfAttentionGradKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.selfAttentionGrad, ({ inputs, backend, attrs }: KernelArgs) => {
    const qkv = inputs.qkv as TensorInfo;
    const { B, H, S, C } = selfAttentionDims(qkv, attrs);
    const dqkv = backend.makeOutput(qkv.shape, 'float32');
    const off = (name: string) => offsetOf(backend, inputs[name] as TensorInfo);
    ctx.addon.selfAttentionGrad(
      heapOf(backend),
      off('qkv'),
      off('probs'),
      off('dy'),
      offsetOf(backend, dqkv),
      B,
      H,
      S,
      C / H,
      attrs.scale as number,
    );
    return dqkv;
  });
}

/** qkv of the new positions, attending over cached K/V [pastB, H, slots, dh] and themselves → [N, C] (see the shapes below). */
function attendPastKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.attendPast, ({ inputs, backend, attrs }: KernelArgs) => {
    // qkv [B·S, 3C] (the new positions); kPast, vPast [pastB, H, slots, dh], the first T = attrs.pastLength cached;
    // mask [maskB, 1, S, T + S] → [B·S, C]. attrs.append: also write the new k/v into slots T.. in place.
    // With rows (int32 [B, 2], ragged rows): qkv [N, 3C] packed tokens, row b's the rows[b][1] from rows[b][0] on → [N, C].
    const qkv = inputs.qkv as TensorInfo;
    const kPast = inputs.kPast as TensorInfo;
    const mask = inputs.mask as TensorInfo;
    const rows = inputs.rows as TensorInfo | undefined;
    const B = attrs.batch as number;
    const H = attrs.heads as number;
    const C = qkv.shape[1] / 3;
    const N = qkv.shape[0];
    const S = rows ? mask.shape[2] : N / B;
    const out = backend.makeOutput([N, C], 'float32');
    const off = (name: string) => offsetOf(backend, inputs[name] as TensorInfo);
    ctx.addon.attendPast(
      heapOf(backend),
      off('qkv'),
      off('kPast'),
      off('vPast'),
      off('mask'),
      offsetOf(backend, out),
      B,
      H,
      S,
      attrs.pastLength as number,
      C / H,
      kPast.shape[0],
      mask.shape[0],
      attrs.scale as number,
      kPast.shape[2],
      attrs.append ? 1 : 0,
      rows ? offsetOf(backend, rows) : -1,
      N,
    );
    return out;
  });
}

/** inputs t0, t1, … (float32, any shapes) → scalar Σ x² over all of them (float64 sums). */
function sumSquaresKernel(ctx: NativeContext): KernelConfig {
  return wasmKernel(FUSED.sumSquares, ({ inputs, backend }: KernelArgs) => {
    // inputs t0, t1, … (float32, any shapes) → scalar Σ x² over all of them (float64 sums)
    const tensors = Object.values(inputs) as TensorInfo[];
    const spans = new Float64Array(2 * tensors.length);
    tensors.forEach((t, i) => {
      spans[2 * i] = offsetOf(backend, t);
      spans[2 * i + 1] = sizeOf(t.shape);
    });
    const total = ctx.addon.sumSquares(heapOf(backend), spans);
    const out = backend.makeOutput([], 'float32');
    new Float32Array(heapOf(backend), offsetOf(backend, out), 1)[0] = total;
    return out;
  });
}
