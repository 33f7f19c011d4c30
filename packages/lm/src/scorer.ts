import { UserError } from '@rred/core';
import { tf } from '@rred/engine';
import { causalMask, MASKED, oneHotFloat } from './layers';
import type { Transformer } from './transformer';
import type { ScoreResult, SuffixRequest } from './types';

export interface ScoreOptions {
  /**
   * Rough cap on float32 intermediates per layer of one suffix batch (elements). Longer request
   * lists are split into several suffix batches; the shared prefix is still forwarded once.
   * Default 16M (≈ 64 MB).
   */
  maxChunkElements?: number;
}

const DEFAULT_CHUNK_ELEMENTS = 16_000_000;

/**
 * Scores many suffixes after many prefixes of one shared sequence (the primitive behind the
 * RREDCoT immediate and value terms, Eqs. 7 and 9).
 *
 * Pass 1 runs the sequence (length T) once, keeping every layer's K and V and the log-probabilities
 * at every position. log p(suffix[0] | sequence[<exitAt]) is read from position exitAt − 1 there.
 * Pass 2 forwards all suffixes together (padded to the longest), each row attending to the cached
 * positions < exitAt of its own request and causally to its own earlier suffix tokens, at positions
 * exitAt, exitAt + 1, …; it gives the log-probabilities of suffix[1..]. Nothing of the prefix is
 * recomputed. Cost: T + Σ|suffix| token positions, 2 forward passes (more if chunked).
 */
export async function scoreAfterPrefixes(model: Transformer, sequence: number[], requests: SuffixRequest[], options: ScoreOptions = {}): Promise<ScoreResult> {
  validate(model, sequence, requests);
  const logprobs: number[][] = requests.map((r) => new Array<number>(r.suffix.length));
  const active = requests.flatMap((r, i) => (r.suffix.length > 0 ? [i] : []));
  if (active.length === 0) return { logprobs, cost: { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 } };
  const { vocabSize: V, contextLength, dModel: C, nHeads: H, dFF: F } = model.config;
  const T = sequence.length;

  // --- pass 1: the shared sequence, once ---
  const shared = tf.tidy(() => {
    const x = tf.reshape(model.embedFromStart(tf.tensor2d([sequence], [1, T], 'int32')), [T, C]) as tf.Tensor2D; // [T, C]
    const { hidden, kv } = model.runBlocks({ x, batch: 1, length: T, mask: causalMask(T) }); // kv: [1, H, T, dh]
    return { logp: tf.logSoftmax(model.head(hidden)), kv }; // logp: [T, V]
  });
  const sharedLogp = (await shared.logp.data()) as Float32Array;
  shared.logp.dispose();
  for (const i of active) {
    const { exitAt, suffix } = requests[i];
    logprobs[i][0] = sharedLogp[(exitAt - 1) * V + suffix[0]];
  }

  // --- pass 2: all suffixes against the cached prefix, longest first so chunks pad little ---
  const order = [...active].sort((a, b) => requests[b].suffix.length - requests[a].suffix.length || a - b);
  const budget = options.maxChunkElements ?? DEFAULT_CHUNK_ELEMENTS;
  let passes = 1;
  try {
    for (let start = 0; start < order.length; ) {
      const S = requests[order[start]].suffix.length;
      const perRow = S * (H * (T + S) * 4 + F * 6 + C * 14) + 4 * (T + S) * C;
      const rows = order.slice(start, start + Math.max(1, Math.floor(budget / perRow)));
      start += rows.length;
      passes++;
      const R = rows.length;
      const tokens = new Int32Array(R * S);
      const positions = new Int32Array(R * S);
      const targets = new Int32Array(R * S);
      const mask = new Float32Array(R * S * (T + S)).fill(MASKED);
      rows.forEach((id, r) => {
        const { exitAt, suffix } = requests[id];
        for (let j = 0; j < S; j++) {
          const real = j < suffix.length;
          tokens[r * S + j] = real ? suffix[j] : 0;
          positions[r * S + j] = Math.min(exitAt + j, contextLength - 1);
          targets[r * S + j] = j + 1 < suffix.length ? suffix[j + 1] : 0;
          const row = (r * S + j) * (T + S);
          for (let p = 0; p < exitAt; p++) mask[row + p] = 0; // the request's prefix
          for (let q = 0; q <= j; q++) mask[row + T + q] = 0; // its own suffix so far
        }
      });
      const picked = tf.tidy(() => {
        const x = model.embedAt(tf.tensor2d(tokens, [R, S], 'int32'), tf.tensor2d(positions, [R, S], 'int32')); // [R·S, C]
        const { hidden } = model.runBlocks({ x, batch: R, length: S, mask: tf.tensor4d(mask, [R, 1, S, T + S]), past: shared.kv });
        const logp = tf.logSoftmax(model.head(hidden)); // [R·S, V]
        return tf.sum(tf.mul(logp, oneHotFloat(tf.tensor1d(targets, 'int32'), V)), -1); // [R·S]
      });
      const values = (await picked.data()) as Float32Array;
      picked.dispose();
      rows.forEach((id, r) => {
        const n = requests[id].suffix.length;
        for (let j = 1; j < n; j++) logprobs[id][j] = values[r * S + j - 1];
      });
    }
  } finally {
    for (const { k, v } of shared.kv) tf.dispose([k, v]);
  }
  logprobs.forEach((row, i) => {
    const j = row.findIndex((x) => Number.isNaN(x));
    if (j >= 0) throw new Error(`scoreAfterPrefixes: log-probability of request ${i} suffix token ${j} is NaN (model weights diverged?)`);
  });
  const suffixTokens = active.reduce((n, i) => n + requests[i].suffix.length, 0);
  return { logprobs, cost: { tokensForwarded: T + suffixTokens, tokensGenerated: 0, forwardPasses: passes } };
}

/**
 * Reference implementation: every request's prefix ++ suffix forwarded from scratch, one pass each.
 * For tests and for the cost bench (cost Σ (exitAt + |suffix|)).
 */
export async function naiveScore(model: Transformer, sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult> {
  validate(model, sequence, requests);
  const V = model.config.vocabSize;
  const logprobs: number[][] = [];
  let tokensForwarded = 0;
  let forwardPasses = 0;
  for (const { exitAt, suffix } of requests) {
    if (suffix.length === 0) {
      logprobs.push([]);
      continue;
    }
    const full = [...sequence.slice(0, exitAt), ...suffix];
    const logp = tf.tidy(() => tf.logSoftmax(model.logits(tf.tensor2d([full], [1, full.length], 'int32')))); // [1, L, V]
    const data = (await logp.data()) as Float32Array;
    logp.dispose();
    logprobs.push(suffix.map((token, j) => data[(exitAt - 1 + j) * V + token]));
    tokensForwarded += full.length;
    forwardPasses++;
  }
  return { logprobs, cost: { tokensForwarded, tokensGenerated: 0, forwardPasses } };
}

function validate(model: Transformer, sequence: number[], requests: SuffixRequest[]): void {
  const { vocabSize: V, contextLength } = model.config;
  const T = sequence.length;
  const badToken = (t: number) => !(Number.isInteger(t) && t >= 0 && t < V);
  if (T === 0) throw new UserError('scoreAfterPrefixes: the shared sequence is empty');
  if (T > contextLength) throw new UserError(`scoreAfterPrefixes: the shared sequence has ${T} tokens, more than contextLength ${contextLength}`);
  const bad = sequence.find(badToken);
  if (bad !== undefined) throw new UserError(`scoreAfterPrefixes: sequence token ${bad} is outside 0..${V - 1}`);
  requests.forEach(({ exitAt, suffix }, i) => {
    if (!(Number.isInteger(exitAt) && exitAt >= 1 && exitAt <= T)) throw new UserError(`scoreAfterPrefixes: request ${i} has exitAt ${exitAt}, expected an integer in 1..${T} (the sequence length)`);
    const b = suffix.find(badToken);
    if (b !== undefined) throw new UserError(`scoreAfterPrefixes: request ${i} suffix token ${b} is outside 0..${V - 1}`);
    if (exitAt + suffix.length > contextLength) {
      throw new UserError(`scoreAfterPrefixes: request ${i} needs ${exitAt} prefix + ${suffix.length} suffix tokens = ${exitAt + suffix.length}, more than contextLength ${contextLength}`);
    }
  });
}
