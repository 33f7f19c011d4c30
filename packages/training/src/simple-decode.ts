import { tf } from '@rred/engine';
import type { Rng } from '@rred/core';

/** Anything with a full causal forward (the @rred/lm Transformer has one). */
export interface CausalModel {
  logits(tokens: tf.Tensor2D): tf.Tensor3D; // [B, T] → [B, T, V]
  readonly config: { contextLength: number };
}

export interface SimpleDecodeOptions {
  /** 0 = greedy (argmax); otherwise sample from softmax(logits / temperature) with `rng`. */
  temperature: number;
  maxNewTokens: number;
  stopToken: number;
  padId: number;
}

/**
 * Decoding without a KV cache: every step re-runs the full forward over the right-padded batch
 * (harmless under causal attention) and extends each unfinished row. Slow, but independent of the
 * lm package's cached sampler, so validation works while that is being built; use it on small
 * subsets only. Returns the generated tokens (stop token included) and whether each row stopped
 * before `maxNewTokens` / the context end.
 */
export function simpleDecode(
  model: CausalModel,
  prompts: number[][],
  options: SimpleDecodeOptions,
  rng?: Rng,
): { tokens: number[][]; stopped: boolean[] } {
  if (options.temperature > 0 && !rng) throw new Error('simpleDecode: sampling at temperature > 0 needs an Rng');
  const rows = prompts.map((p) => p.slice());
  const generated: number[][] = prompts.map(() => []);
  const stopped = prompts.map(() => false);
  const limit = model.config.contextLength;
  for (let step = 0; step < options.maxNewTokens; step++) {
    const active = rows.map((_, i) => i).filter((i) => !stopped[i] && rows[i].length < limit);
    if (active.length === 0) break;
    const T = Math.max(...active.map((i) => rows[i].length));
    const flat = new Int32Array(active.length * T).fill(options.padId);
    active.forEach((i, b) => flat.set(rows[i], b * T));
    const last = tf.tidy(() => {
      const logits = model.logits(tf.tensor2d(flat, [active.length, T], 'int32')); // [B, T, V]
      const V = logits.shape[2];
      const at = tf.tensor1d(active.map((i, b) => b * T + rows[i].length - 1), 'int32');
      return tf.gather(tf.reshape(logits, [active.length * T, V]), at).dataSync() as Float32Array; // [B·V]
    });
    const V = last.length / active.length;
    active.forEach((i, b) => {
      const row = last.subarray(b * V, (b + 1) * V);
      const tok = options.temperature > 0 ? sampleFrom(row, options.temperature, rng!) : argmax(row);
      rows[i].push(tok);
      generated[i].push(tok);
      if (tok === options.stopToken) stopped[i] = true;
    });
  }
  return { tokens: generated, stopped };
}

function argmax(xs: Float32Array): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

function sampleFrom(logits: Float32Array, temperature: number, rng: Rng): number {
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  if (!Number.isFinite(max)) throw new Error(`simpleDecode: non-finite logits (max ${max})`);
  const weights = Array.from(logits, (x) => Math.exp((x - max) / temperature));
  return rng.categorical(weights);
}
