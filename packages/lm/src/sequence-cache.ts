import { float32TensorFrom, float32View, tf } from '@rred/engine';
import type { Transformer } from './transformer';
import type { SequenceCache, SuffixRequest } from './types';

/** One layer's keys and values of `length` consecutive positions, in JS memory: each [H, length, dh], row-major. */
export interface KVPart {
  k: Float32Array;
  v: Float32Array;
  length: number;
}

/**
 * One layer of one kept row: the K/V of its prompt's positions, then of its own (generated) ones. Rows
 * sampled from the same prompt share one `prompt` part (its K/V are the same numbers: one prefill).
 */
export interface RowKV {
  prompt: KVPart;
  own: KVPart;
}

/**
 * The buffer behind the parts of one `copyCacheRows` call (every layer's K and V), and how many caches
 * hold it (a prompt's is shared by the rows sampled from it): the last to release it returns it to
 * the pool.
 */
export interface KeptBlock {
  buffer: ArrayBuffer;
  holders: number;
}

/**
 * Recycled buffers for kept K/V. Every GRPO step with the cache handoff copies each finished row's K/V
 * into JS memory (~8 MB for 32 rows); in fresh buffers every step that costs page faults on first
 * touch and V8 GCs for the external memory. A released cache's buffers come back here and the next
 * step's copies reuse them (best fit, sizes rounded up to 64 KiB); at most MAX_POOLED_BYTES wait, the
 * rest are left to GC. Buffers are not zero-filled (Node's Buffer.allocUnsafeSlow): every element is
 * written before it is read.
 */
const POOL_GRAIN = 65536;
const MAX_POOLED_BYTES = 64 * 2 ** 20;
const pool: ArrayBuffer[] = [];
let pooledBytes = 0;

function takeBuffer(floats: number): ArrayBuffer {
  const bytes = floats * 4;
  let best = -1;
  for (let i = 0; i < pool.length; i++)
    if (pool[i].byteLength >= bytes && (best < 0 || pool[i].byteLength < pool[best].byteLength)) best = i;
  if (best >= 0) {
    const [buffer] = pool.splice(best, 1);
    pooledBytes -= buffer.byteLength;
    return buffer;
  }
  const size = Math.max(POOL_GRAIN, Math.ceil(bytes / POOL_GRAIN) * POOL_GRAIN);
  return typeof Buffer === 'undefined' ? new ArrayBuffer(size) : (Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer);
}

function giveBuffer(buffer: ArrayBuffer): void {
  if (pooledBytes + buffer.byteLength > MAX_POOLED_BYTES) return;
  pool.push(buffer);
  pooledBytes += buffer.byteLength;
}

/** Bytes waiting in the pool (tests). */
export function pooledKeptBytes(): number {
  return pooledBytes;
}

/**
 * The transformer's `SequenceCache` (the cache handoff, types.ts): what the sampler computed for one
 * finished row, kept so that `scoreBatch` scores suffixes against it without forwarding the sequence.
 *   kv:     per layer K and V of positions 0..length−1: the prompt's part (shared with the other rows
 *           sampled from the same prompt) and the row's own, each [H, positions, dh] (JS memory, not
 *           tensors: the scorer writes many rows in place into one tensor per layer, stackRows, instead of
 *           one pad/slice op per row and layer)
 *   logits: [generated, V] flat: row t = the next-token logits after the first `promptLength + t` tokens,
 *           as the sampler drew token t from them (t = 0..generated−1), filled in place as it drew
 *           (one array per row, not one per token)
 * Memory per row: 2·L·(generated − 1)·C + generated·V floats, plus 2·L·|prompt|·C per distinct prompt,
 * all JS; released by whoever asked for it (or by GC).
 */
export class TransformerSequenceCache implements SequenceCache {
  private kvLayers: RowKV[] | null;

  constructor(
    /** The model that made it; any other model ignores it. */
    readonly owner: Transformer,
    /** The tokens it covers: prompt ++ generated[< generated − 1]. */
    readonly tokens: readonly number[],
    readonly promptLength: number,
    kv: RowKV[],
    /** [steps, V] flat (see above); rows past `steps` are ignored. */
    private readonly logits: Float32Array,
    private readonly vocabSize: number,
    /** Logits rows held: the tokens drawn. */
    private readonly steps: number,
    /** The buffers its K/V live in (its prompt's, shared, and its own); each counts this cache as a holder. */
    private readonly blocks: readonly KeptBlock[] = [],
  ) {
    if (logits.length < steps * vocabSize)
      throw new Error(`sequence cache: ${logits.length} logits for ${steps} steps of vocabulary ${vocabSize}`);
    this.kvLayers = kv;
  }

  get length(): number {
    return this.tokens.length;
  }

  get released(): boolean {
    return this.kvLayers === null;
  }

  /** Per-layer K/V [H, length, dh]; throws once released. The arrays are valid until release(): their memory is then reused. */
  kv(): RowKV[] {
    if (!this.kvLayers) throw new Error('sequence cache: used after release()');
    return this.kvLayers;
  }

  /** log p(token | first `exitAt` tokens), exitAt in promptLength..length (the sampled positions), in float64 from the kept logits. */
  logprob(exitAt: number, token: number): number {
    const V = this.vocabSize;
    const at = (exitAt - this.promptLength) * V;
    const row = this.logits;
    let max = -Infinity;
    for (let v = at; v < at + V; v++) if (row[v] > max) max = row[v];
    let sum = 0;
    for (let v = at; v < at + V; v++) sum += Math.exp(row[v] - max);
    return row[at + token] - max - Math.log(sum);
  }

  /** Whether scoring `sequence` with `requests` can start from this cache (see ScoreJob.cache). */
  serves(model: Transformer, sequence: readonly number[], requests: readonly SuffixRequest[]): boolean {
    if (this.owner !== model || this.released || sequence.length > this.length) return false;
    for (let i = 0; i < sequence.length; i++) if (sequence[i] !== this.tokens[i]) return false;
    return requests.every((r) => r.suffix.length === 0 || (r.exitAt >= this.promptLength && r.exitAt - this.promptLength < this.steps));
  }

  release(): void {
    if (!this.kvLayers) return;
    this.kvLayers = null;
    for (const block of this.blocks) if (--block.holders === 0) giveBuffer(block.buffer);
  }
}

/**
 * Row b's positions from..from+length−1 of every layer's batch K and V [B, H, keys, dh], copied to JS as
 * one part per layer (K and V each [H, length, dh]; one contiguous run per head; no kernel runs). All of
 * them share one pooled buffer (`block`, no holder yet: each cache that keeps the parts adds one).
 */
export function copyCacheRows(
  kv: readonly { k: tf.Tensor4D; v: tf.Tensor4D }[],
  b: number,
  from: number,
  length: number,
): { parts: KVPart[]; block: KeptBlock } {
  const [, H, keys, dh] = kv[0].k.shape;
  const n = H * length * dh;
  const block: KeptBlock = { buffer: takeBuffer(2 * kv.length * n), holders: 0 };
  const all = new Float32Array(block.buffer, 0, 2 * kv.length * n); // every element is written below
  const copy = (t: tf.Tensor4D, at: number): Float32Array => {
    const data = float32View(t);
    const out = all.subarray(at, at + n);
    for (let h = 0; h < H; h++) {
      const src = ((b * H + h) * keys + from) * dh;
      out.set(data.subarray(src, src + length * dh), h * length * dh);
    }
    return out;
  };
  return { parts: kv.map(({ k, v }, l) => ({ k: copy(k, 2 * l * n), v: copy(v, (2 * l + 1) * n), length })), block };
}

/**
 * Lays cached rows out for the scorer's pass 2: row i of the result is `rows[i]`'s first min(length, T)
 * positions, zero past them; per layer K and V tensors [rows.length, H, T, dh], each written in place
 * (float32TensorFrom: no JS buffer, no second copy).
 */
export function stackRows(rows: readonly RowKV[][], H: number, dh: number, T: number): { k: tf.Tensor4D; v: tf.Tensor4D }[] {
  const R = rows.length;
  const layer = (l: number, which: 'k' | 'v'): tf.Tensor4D =>
    float32TensorFrom<tf.Rank.R4>([R, H, T, dh], (out) =>
      rows.forEach((row, i) => {
        const { prompt, own } = row[l];
        const n1 = Math.min(prompt.length, T);
        const n2 = Math.min(own.length, T - n1);
        for (let h = 0; h < H; h++) {
          const at = (i * H + h) * T * dh;
          out.set(prompt[which].subarray(h * prompt.length * dh, (h * prompt.length + n1) * dh), at);
          out.set(own[which].subarray(h * own.length * dh, (h * own.length + n2) * dh), at + n1 * dh);
          out.fill(0, at + (n1 + n2) * dh, at + T * dh); // slots past the row's sequence: never visible, but finite
        }
      }),
    );
  return rows[0].map((_, l) => ({ k: layer(l, 'k'), v: layer(l, 'v') }));
}
