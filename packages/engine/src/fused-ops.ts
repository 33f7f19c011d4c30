import * as tf from '@tensorflow/tfjs-core';
import { FUSED } from './kernels/fused';

/**
 * Transformer building blocks as single native kernels (forward and backward) when the native
 * kernels are active, and as the equivalent tfjs op composites otherwise (plain wasm, cpu, or the
 * native kernels switched off), so models can call them unconditionally.
 */

const GELU_C = Math.sqrt(2 / Math.PI);

function fusedActive(kernel: string): boolean {
  return tf.getBackend() === 'wasm' && tf.getKernel(kernel, 'wasm') !== undefined;
}

function run(kernel: string, inputs: tf.NamedTensorMap, attrs: tf.NamedAttrMap = {}): tf.Tensor[] {
  const out = tf.engine().runKernel(kernel, inputs, attrs);
  return Array.isArray(out) ? out : [out];
}

/** GELU, tanh approximation (GPT-2): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
export function geluComposite<T extends tf.Tensor>(x: T): T {
  return tf.tidy(() => {
    const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.square(x), x), 0.044715)), GELU_C);
    return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1)) as T;
  });
}

/** Dense layer x·w + b, then GELU if asked, then + residual if given (tfjs composite). */
export function linearComposite(
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  b: tf.Tensor1D,
  activation: 'none' | 'gelu' = 'none',
  residual?: tf.Tensor2D,
): tf.Tensor2D {
  return tf.tidy(() => {
    const pre = tf.add(tf.matMul(x, w), b) as tf.Tensor2D;
    const y = activation === 'gelu' ? geluComposite(pre) : pre;
    return residual ? (tf.add(residual, y) as tf.Tensor2D) : y;
  });
}

type LinearFn = (...inputs: tf.Tensor[]) => tf.Tensor;
const linearFused = new Map<string, LinearFn>();

/**
 * Dense layer act(x·w + b), plus `residual` if given: x [R, I], w [I, O], b [O] (residual [R, O]) →
 * [R, O]; act is the identity or GELU (tanh form), the residual only with the identity (the
 * transformer's skip connections: residual + (x·w + b), the same float additions as a separate Add).
 * One native kernel each way on wasm+native: the bias, GELU and residual run on each row block of the
 * product while it is in cache, and the backward gives dx = dz·wᵀ, dw = xᵀ·dz and db = Σ_rows dz
 * (dz = dy ⊙ act'(x·w + b)) in one call (the residual's gradient is dy). Elsewhere the composite.
 */
export function linear(
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  b: tf.Tensor1D,
  activation: 'none' | 'gelu' = 'none',
  residual?: tf.Tensor2D,
): tf.Tensor2D {
  const [R, I] = x.shape;
  const [wI, O] = w.shape;
  if (x.rank !== 2 || w.rank !== 2 || b.rank !== 1 || wI !== I || b.shape[0] !== O) {
    throw new Error(`linear: x [${x.shape}], w [${w.shape}], b [${b.shape}] do not fit (x [R, I], w [I, O], b [O])`);
  }
  if (residual && (activation !== 'none' || !sameShape(residual, [R, O]))) {
    throw new Error(
      `linear: a residual [${residual.shape}] needs activation 'none' and shape [${R},${O}] (got activation '${activation}')`,
    );
  }
  const inputs = residual ? [x, w, b, residual] : [x, w, b];
  if (inputs.some((t) => t.dtype !== 'float32') || !fusedActive(FUSED.linear)) return linearComposite(x, w, b, activation, residual);
  const key = `${activation}${residual ? '+residual' : ''}`;
  let fn = linearFused.get(key);
  if (!fn) {
    const gelu = activation === 'gelu';
    fn = tf.customGrad(((...args: unknown[]) => {
      const [input, weight, bias] = args as tf.Tensor[];
      const save = args[args.length - 1] as tf.GradSaveFunc;
      const outs = run(FUSED.linear, { x: input, w: weight, b: bias, ...(residual ? { residual: args[3] as tf.Tensor } : {}) }, { gelu });
      save(gelu ? [input, weight, outs[1]] : [input, weight]);
      return {
        value: outs[0],
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
          const grads = run(FUSED.linearGrad, { dy, x: saved[0], w: saved[1], ...(gelu ? { pre: saved[2] } : {}) }, { gelu });
          return residual ? [...grads, tf.reshape(dy, dy.shape)] : grads; // the residual's gradient: dy (a new handle, as Add gives)
        },
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0]) as LinearFn;
    linearFused.set(key, fn);
  }
  return fn(...inputs) as tf.Tensor2D;
}

/** Layer normalisation over the last axis, then per-channel scale and shift (tfjs composite). */
export function layerNormComposite<T extends tf.Tensor>(x: T, gamma: tf.Tensor1D, beta: tf.Tensor1D, eps = 1e-5): T {
  return tf.tidy(() => {
    const mean = tf.mean(x, -1, true);
    const centred = tf.sub(x, mean);
    const variance = tf.mean(tf.square(centred), -1, true);
    return tf.add(tf.mul(tf.mul(centred, tf.rsqrt(tf.add(variance, eps))), gamma), beta) as T;
  });
}

const layerNormFused = new Map<number, (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor>();

/**
 * LayerNorm over the last axis (ε default 1e-5, as GPT-2): (x − mean)/√(var + ε)·gamma + beta, with
 * gamma and beta of shape [C]. One native kernel forward (saving per-row mean and 1/σ) and one backward
 * on wasm+native.
 */
export function layerNorm<T extends tf.Tensor>(x: T, gamma: tf.Tensor1D, beta: tf.Tensor1D, eps = 1e-5): T {
  const C = x.shape[x.rank - 1];
  if (x.rank < 1 || gamma.rank !== 1 || beta.rank !== 1 || gamma.shape[0] !== C || beta.shape[0] !== C) {
    throw new Error(`layerNorm: x [${x.shape}] needs gamma and beta of shape [${C}], got [${gamma.shape}] and [${beta.shape}]`);
  }
  if (x.dtype !== 'float32' || !fusedActive(FUSED.layerNorm)) return layerNormComposite(x, gamma, beta, eps);
  let fn = layerNormFused.get(eps);
  if (!fn) {
    fn = tf.customGrad(((input: tf.Tensor, g: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
      const [y, mean, rstd] = run(FUSED.layerNorm, { x: input, gamma: g, beta: b }, { eps });
      save([input, g, mean, rstd]);
      return {
        value: y,
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
          run(FUSED.layerNormGrad, { dy, x: saved[0], gamma: saved[1], mean: saved[2], rstd: saved[3] }),
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0]) as (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor;
    layerNormFused.set(eps, fn);
  }
  return fn(x, gamma, beta) as T;
}

const sameShape = (t: tf.Tensor, shape: readonly number[]) => t.shape.join(',') === shape.join(',');

/**
 * Rows B, positions S per row, heads H, width C and head width dh of qkv [B·S, 3C] (S given: of packed
 * qkv [N, 3C] with rows of S slots), or null if they do not fit.
 */
function qkvDims(
  qkv: tf.Tensor2D,
  batch: number,
  heads: number,
  S = qkv.shape[0] / batch,
): { B: number; S: number; H: number; C: number; dh: number } | null {
  const C = qkv.shape[1] / 3;
  if (qkv.rank !== 2 || !Number.isInteger(S) || !Number.isInteger(C) || !Number.isInteger(heads) || heads < 1 || C % heads !== 0)
    return null;
  return { B: batch, S, H: heads, C, dh: C / heads };
}

/** Whether mask is [B or 1, 1, S, keys]. */
const maskFits = (mask: tf.Tensor4D, B: number, S: number, keys: number) =>
  (mask.shape[0] === 1 || mask.shape[0] === B) && sameShape(mask, [mask.shape[0], 1, S, keys]);

/**
 * The heads of qkv [B·S, 3C] (row b·S + s: position s of row b, q ++ k ++ v, each H heads of dh = C/H) as
 * [B, H, S, dh] tensors, from column block `from` on (0: q, k, v; 1: k, v). tfjs ops: the composites use
 * it, and the transformer for the K/V it keeps.
 */
export function splitHeads(qkv: tf.Tensor2D, batch: number, heads: number, from = 0): tf.Tensor4D[] {
  const [rows, width] = qkv.shape;
  const [B, S, C] = [batch, rows / batch, width / 3];
  const dh = C / heads;
  return tf.tidy(() => {
    const cols = tf.slice(tf.reshape(qkv, [B, S, 3, heads, dh]), [0, 0, from, 0, 0], [B, S, 3 - from, heads, dh]);
    return tf.split(tf.transpose(cols, [2, 0, 3, 1, 4]), 3 - from, 0).map((t) => tf.reshape(t, [B, heads, S, dh]) as tf.Tensor4D);
  });
}

/** [B, H, S, dh] → [B·S, H·dh]: heads merged back into rows. */
function mergeHeads(t: tf.Tensor4D): tf.Tensor2D {
  const [B, H, S, dh] = t.shape;
  return tf.reshape(tf.transpose(t, [0, 2, 1, 3]), [B * S, H * dh]) as tf.Tensor2D;
}

/**
 * Attention of S new positions per row over T cached and the S new ones (inference only: it has no
 * gradient on wasm+native), for every row b and head h:
 *   softmax(scale · q·[kPast; kNew]ᵀ + mask) · [vPast; vNew]
 *   qkv [B·S, 3C]: the new positions' q, k, v as the QKV projection gives them (see splitHeads);
 *   kPast, vPast [B or 1, H, T, dh] (1: one prefix for every row); mask additive [B or 1, 1, S, T + S];
 *   returns the heads' outputs merged, [B·S, C].
 * Ragged rows (`rows`, int32 [B, 2]: each row's first token in qkv and its count n_b ≤ S): qkv holds N
 * packed tokens [N, 3C], row b's n_b consecutive from rows[b][0], and the result is [N, C] in the same
 * order. Row b then has n_b new positions: its mask is the first n_b rows of its [S, T + S] block, and
 * the new-key columns T + n_b.. (slots it does not fill) must be hidden (≤ −1e8) from them. No slot of
 * padding is computed (the scorer's pass 2: rows of 12–24 suffix tokens padded to the widest).
 * One native kernel on wasm+native, reading q, k, v in place (no head split or merge, no concatenated
 * keys, no score tensors; keys hidden (mask ≤ −1e8) from every query of a row past its last visible
 * one are skipped, their weight being exactly 0); elsewhere the tfjs composite.
 */
export function attendPast(
  qkv: tf.Tensor2D,
  batch: number,
  heads: number,
  kPast: tf.Tensor4D,
  vPast: tf.Tensor4D,
  mask: tf.Tensor4D,
  scale: number,
  rows?: tf.Tensor2D,
): tf.Tensor2D {
  const S = rows ? mask.shape[2] : qkv.shape[0] / batch;
  const dims = qkvDims(qkv, batch, heads, S);
  const [pastB, pastH, T, pastDh] = kPast.shape;
  if (
    !dims ||
    !(pastB === 1 || pastB === batch) ||
    pastH !== heads ||
    pastDh !== dims.dh ||
    !sameShape(vPast, kPast.shape) ||
    !maskFits(mask, batch, dims.S, T + dims.S) ||
    (rows && (rows.dtype !== 'int32' || !sameShape(rows, [batch, 2])))
  ) {
    throw new Error(
      `attendPast: qkv [${qkv.shape}] with batch ${batch} and ${heads} heads, kPast [${kPast.shape}], vPast [${vPast.shape}], mask [${mask.shape}]` +
        `${rows ? `, rows [${rows.shape}] ${rows.dtype}` : ''} do not fit ` +
        '(qkv [B·S, 3·H·dh] or, with rows, [N, 3·H·dh]; kPast, vPast [B or 1, H, T, dh]; mask [B or 1, 1, S, T + S]; rows int32 [B, 2])',
    );
  }
  if (fusedFor([qkv, kPast, vPast, mask]))
    return run(
      FUSED.attendPast,
      { qkv, kPast, vPast, mask, ...(rows ? { rows } : {}) },
      { batch, heads, scale, pastLength: T, append: false },
    )[0] as tf.Tensor2D;
  if (rows) return raggedComposite(qkv, batch, S, rows, (full) => attendPast(full, batch, heads, kPast, vPast, mask, scale));
  return tf.tidy(() => {
    const [q, kNew, vNew] = splitHeads(qkv, batch, heads);
    return mergeHeads(attendPastComposite(q, kPast, vPast, kNew, vNew, mask, scale));
  });
}

/**
 * `f` of qkv spread to rows of S slots: packed [N, k] → [B·S, k] (a padding slot holds its row's first
 * token, or token 0 for an empty row), then f's [B·S, m] back to the N packed tokens.
 */
function raggedComposite(packed: tf.Tensor2D, B: number, S: number, rows: tf.Tensor2D, f: (full: tf.Tensor2D) => tf.Tensor2D): tf.Tensor2D {
  const spans = rows.dataSync();
  const toRows = new Int32Array(B * S);
  const toPacked = new Int32Array(packed.shape[0]);
  for (let b = 0; b < B; b++) {
    const [first, n] = [spans[2 * b], spans[2 * b + 1]];
    if (first < 0 || n < 0 || n > S || first + n > packed.shape[0])
      throw new Error(`attendPast: rows[${b}] = [${first}, ${n}] is outside the ${packed.shape[0]} packed tokens or wider than S = ${S}`);
    for (let s = 0; s < S; s++) toRows[b * S + s] = s < n ? first + s : n > 0 ? first : 0;
    for (let s = 0; s < n; s++) toPacked[first + s] = b * S + s;
  }
  return tf.tidy(
    () => tf.gather(f(tf.gather(packed, tf.tensor1d(toRows, 'int32')) as tf.Tensor2D), tf.tensor1d(toPacked, 'int32')) as tf.Tensor2D,
  );
}

const fusedFor = (ts: tf.Tensor[]) => ts.every((t) => t.dtype === 'float32') && fusedActive(FUSED.attendPast);

/** attendPast as tfjs ops on split heads: q, kNew, vNew [B, H, S, dh] → [B, H, S, dh]. */
function attendPastComposite(
  q: tf.Tensor4D,
  kPast: tf.Tensor4D,
  vPast: tf.Tensor4D,
  kNew: tf.Tensor4D,
  vNew: tf.Tensor4D,
  mask: tf.Tensor4D,
  scale: number,
): tf.Tensor4D {
  const B = q.shape[0];
  return tf.tidy(() => {
    const expand = (t: tf.Tensor4D) => (t.shape[0] === B ? t : tf.tile(t, [B, 1, 1, 1]));
    const k = tf.concat([expand(kPast), kNew], 2); // [B, H, T+S, dh]
    const v = tf.concat([expand(vPast), vNew], 2);
    const scores = tf.add(tf.matMul(tf.mul(q, scale), k, false, true), mask); // [B, H, S, T+S]
    return tf.matMul(tf.softmax(scores), v) as tf.Tensor4D;
  });
}

/**
 * Causal (or any masked) self-attention of a pass from scratch, straight from the fused QKV projection:
 *   qkv [B·S, 3C] (row b·S + s: that position's q ++ k ++ v, each H heads of dh = C/H), mask additive
 *   [B or 1, 1, S, S]; returns the heads' outputs already merged, [B·S, C]:
 *   out[b·S + s, h·dh + d] = (softmax(scale · Q_bh·K_bhᵀ + mask_b) · V_bh)[s, d]
 * One native kernel each way on wasm+native (no head transposes, no split, no score tensors; the
 * probabilities [B, H, S, S] are kept for the gradient); elsewhere the tfjs composite. The mask gets a
 * zero gradient.
 */
export function selfAttention(qkv: tf.Tensor2D, batch: number, heads: number, mask: tf.Tensor4D, scale: number): tf.Tensor2D {
  const dims = qkvDims(qkv, batch, heads);
  if (!dims || !maskFits(mask, batch, dims.S, dims.S)) {
    throw new Error(
      `selfAttention: qkv [${qkv.shape}] with batch ${batch} and ${heads} heads, mask [${mask.shape}] do not fit (qkv [B·S, 3·H·dh], mask [B or 1, 1, S, S])`,
    );
  }
  if (!(qkv.dtype === 'float32' && mask.dtype === 'float32' && fusedActive(FUSED.selfAttention)))
    return selfAttentionComposite(qkv, batch, heads, mask, scale);
  const attrs = { batch, heads, scale };
  const fn = tf.customGrad(((input: tf.Tensor, m: tf.Tensor, save: tf.GradSaveFunc) => {
    const [out, probs] = run(FUSED.selfAttention, { qkv: input, mask: m }, attrs);
    save([input, probs]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [
        run(FUSED.selfAttentionGrad, { qkv: saved[0], probs: saved[1], dy }, attrs)[0],
        tf.zerosLike(m),
      ],
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as (qkv: tf.Tensor, mask: tf.Tensor) => tf.Tensor;
  return fn(qkv, mask) as tf.Tensor2D;
}

/** `selfAttention` as tfjs ops: heads split by a transpose, scores, mask, softmax, merged back. */
export function selfAttentionComposite(qkv: tf.Tensor2D, batch: number, heads: number, mask: tf.Tensor4D, scale: number): tf.Tensor2D {
  return tf.tidy(() => {
    const [q, k, v] = splitHeads(qkv, batch, heads);
    const scores = tf.add(tf.matMul(tf.mul(q, scale), k, false, true), mask); // [B, H, S, S]
    return mergeHeads(tf.matMul(tf.softmax(scores), v) as tf.Tensor4D);
  });
}

/**
 * `attendPast` over a preallocated cache that grows in place (the sampler's decode steps): `cache.k`,
 * `cache.v` [B, H, slots, dh] hold `length` cached positions; the S new keys/values (of qkv [B·S, 3C])
 * go into slots length..length+S−1 and the new positions attend over all length + S (mask
 * [B or 1, 1, S, length + S]). Returns the attention, heads merged [B·S, C], and the cache holding
 * length + S positions. On wasm+native that cache is the same tensors, written in place by the kernel:
 * the caller must own them and must not have given them to anything else. Elsewhere it is new tensors
 * (the caller disposes the old ones).
 */
export function attendAndAppend(
  cache: { k: tf.Tensor4D; v: tf.Tensor4D },
  length: number,
  qkv: tf.Tensor2D,
  batch: number,
  heads: number,
  mask: tf.Tensor4D,
  scale: number,
): { attended: tf.Tensor2D; cache: { k: tf.Tensor4D; v: tf.Tensor4D } } {
  const dims = qkvDims(qkv, batch, heads);
  const slots = cache.k.shape[2];
  if (
    !dims ||
    !sameShape(cache.k, [batch, heads, slots, dims.dh]) ||
    !sameShape(cache.v, cache.k.shape) ||
    !(Number.isInteger(length) && length >= 0 && length + dims.S <= slots) ||
    !maskFits(mask, batch, dims.S, length + dims.S)
  ) {
    throw new Error(
      `attendAndAppend: cache [${cache.k.shape}] holding ${length}, qkv [${qkv.shape}] with batch ${batch} and ${heads} heads, mask [${mask.shape}] do not fit ` +
        '(cache [B, H, slots ≥ length + S, dh]; qkv [B·S, 3·H·dh]; mask [B or 1, 1, S, length + S])',
    );
  }
  const { S, dh } = dims;
  if (fusedFor([qkv, cache.k, cache.v, mask])) {
    const inputs = { qkv, kPast: cache.k, vPast: cache.v, mask };
    const attended = run(FUSED.attendPast, inputs, { batch, heads, scale, pastLength: length, append: true })[0] as tf.Tensor2D;
    return { attended, cache };
  }
  return tf.tidy(() => {
    const [q, kNew, vNew] = splitHeads(qkv, batch, heads);
    const held = (t: tf.Tensor4D) => tf.slice(t, [0, 0, 0, 0], [batch, heads, length, dh]);
    const grown = (t: tf.Tensor4D, added: tf.Tensor4D) =>
      tf.concat([held(t), added, tf.slice(t, [0, 0, length + S, 0], [batch, heads, slots - length - S, dh])], 2) as tf.Tensor4D;
    return {
      attended: mergeHeads(attendPastComposite(q, held(cache.k), held(cache.v), kNew, vNew, mask, scale)),
      cache: { k: grown(cache.k, kNew), v: grown(cache.v, vNew) },
    };
  });
}

interface AdamWHyper {
  lr: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  /** Decoupled weight decay (0 = plain Adam). */
  weightDecay: number;
  /** 1-based step number, for the bias corrections 1 − β^step. */
  step: number;
  /** Factor the gradient is multiplied by first (the global-norm clip's). Default 1. */
  gradScale?: number;
}

/**
 * One AdamW update of one parameter (Loshchilov & Hutter; Adam of Kingma & Ba with decoupled decay),
 * on g = gradScale·grad:
 *   m' = β1·m + (1−β1)·g,  v' = β2·v + (1−β2)·g²,
 *   p' = p − lr·(m'/(1−β1^t)) / (√(v'/(1−β2^t)) + ε) − lr·wd·p.
 * Returns new tensors (the caller assigns them); one native kernel instead of ~15 ops on wasm+native.
 */
export function adamwStep(
  param: tf.Tensor,
  rawGrad: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  h: AdamWHyper,
): { param: tf.Tensor; m: tf.Tensor; v: tf.Tensor } {
  for (const [name, t] of [
    ['grad', rawGrad],
    ['m', m],
    ['v', v],
  ] as const) {
    if (!sameShape(t, param.shape)) throw new Error(`adamwStep: ${name} has shape [${t.shape}], param has [${param.shape}]`);
  }
  if (!(h.step >= 1)) throw new Error(`adamwStep: step must be >= 1, got ${h.step}`);
  const c1 = 1 - Math.pow(h.beta1, h.step);
  const c2 = 1 - Math.pow(h.beta2, h.step);
  const gradScale = h.gradScale ?? 1;
  if (param.dtype === 'float32' && fusedActive(FUSED.adamw)) {
    const [p2, m2, v2] = run(
      FUSED.adamw,
      { param, grad: rawGrad, m, v },
      { lr: h.lr, beta1: h.beta1, beta2: h.beta2, epsilon: h.epsilon, c1, c2, weightDecay: h.weightDecay, gradScale },
    );
    return { param: p2, m: m2, v: v2 };
  }
  return tf.tidy(() => {
    const grad = gradScale === 1 ? rawGrad : tf.mul(rawGrad, gradScale);
    const m2 = tf.add(tf.mul(m, h.beta1), tf.mul(grad, 1 - h.beta1));
    const v2 = tf.add(tf.mul(v, h.beta2), tf.mul(tf.square(grad), 1 - h.beta2));
    const update = tf.div(tf.div(m2, c1), tf.add(tf.sqrt(tf.div(v2, c2)), h.epsilon));
    const p2 = tf.sub(tf.sub(param, tf.mul(update, h.lr)), tf.mul(param, h.lr * h.weightDecay));
    return { param: p2, m: m2, v: v2 };
  });
}

/**
 * Σ over all `tensors` of Σ x² (the square of a global gradient norm), as a number: one native kernel
 * over every tensor on wasm+native (float64 sums), elsewhere Σ of tfjs Sum(Square) per tensor. NaN or
 * inf anywhere gives NaN or inf. No tensors: 0.
 */
export function sumOfSquares(tensors: tf.Tensor[]): number {
  if (tensors.length === 0) return 0;
  if (tensors.every((t) => t.dtype === 'float32') && fusedActive(FUSED.sumSquares)) {
    const out = run(FUSED.sumSquares, Object.fromEntries(tensors.map((t, i) => [`t${i}`, t])))[0];
    const value = out.dataSync()[0];
    out.dispose();
    return value;
  }
  return tf.tidy(() => tf.addN(tensors.map((t) => tf.sum(tf.square(t)))).dataSync()[0]);
}
