import { tf } from '@rred/engine';
import type { LayerKV, Transformer } from './transformer';
import type { SequenceCache, SuffixRequest } from './types';

/**
 * The transformer's `SequenceCache` (the cache handoff, types.ts): what the sampler computed for one
 * finished row, kept so that `scoreBatch` scores suffixes against it without forwarding the sequence.
 *   kv:     per layer K and V of positions 0..length−1, each [1, H, length, dh] (tf memory)
 *   logits: logits[t] = next-token logits [V] after the first `promptLength + t` tokens, as the sampler
 *           drew token t from them (t = 0..generated−1; JS memory, V floats each)
 * Memory per row: 2·L·length·C + generated·V floats; released by whoever asked for it.
 */
export class TransformerSequenceCache implements SequenceCache {
  private kvLayers: LayerKV[] | null;

  constructor(
    /** The model that made it; any other model ignores it. */
    readonly owner: Transformer,
    /** The tokens it covers: prompt ++ generated[< generated − 1]. */
    readonly tokens: readonly number[],
    readonly promptLength: number,
    kv: LayerKV[],
    private readonly logits: readonly Float32Array[],
  ) {
    this.kvLayers = kv;
  }

  get length(): number {
    return this.tokens.length;
  }

  get released(): boolean {
    return this.kvLayers === null;
  }

  /** Per-layer K/V [1, H, length, dh]; throws once released. */
  kv(): LayerKV[] {
    if (!this.kvLayers) throw new Error('sequence cache: used after release()');
    return this.kvLayers;
  }

  /** log p(token | first `exitAt` tokens), exitAt in promptLength..length (the sampled positions), in float64 from the kept logits. */
  logprob(exitAt: number, token: number): number {
    const row = this.logits[exitAt - this.promptLength];
    let max = -Infinity;
    for (const x of row) if (x > max) max = x;
    let sum = 0;
    for (const x of row) sum += Math.exp(x - max);
    return row[token] - max - Math.log(sum);
  }

  /** Whether scoring `sequence` with `requests` can start from this cache (see ScoreJob.cache). */
  serves(model: Transformer, sequence: readonly number[], requests: readonly SuffixRequest[]): boolean {
    if (this.owner !== model || this.released || sequence.length > this.length) return false;
    for (let i = 0; i < sequence.length; i++) if (sequence[i] !== this.tokens[i]) return false;
    return requests.every(
      (r) => r.suffix.length === 0 || (r.exitAt >= this.promptLength && r.exitAt - this.promptLength < this.logits.length),
    );
  }

  release(): void {
    if (!this.kvLayers) return;
    for (const { k, v } of this.kvLayers) tf.dispose([k, v]);
    this.kvLayers = null;
  }
}
