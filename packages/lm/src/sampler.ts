import { UserError, yieldToEventLoop, type Rng } from '@rred/core';
import { tf } from '@rred/engine';
import { drawToken, validateSampleOptions } from './draw';
import { MASKED } from './layers';
import { copyCacheRows, TransformerSequenceCache, type KeptBlock, type RowKV } from './sequence-cache';
import type { LayerKV, Transformer } from './transformer';
import type { ComputeCost, SampleOptions, SampleResult } from './types';

/**
 * Batched autoregressive sampling. Prompts of different lengths are left-padded; each row keeps its
 * own positions (its first real token is position 0) and its queries never see its pad keys, so a
 * row's distribution is exactly the one it would get alone. Identical prompts share one prefill: the
 * distinct prompts are forwarded once and their cache rows are copied to every row that asked for
 * them (n samples from one exit point cost one prefix, not n). The cache has room for every row's
 * budget from the start, and each decode step writes its K/V into it in place (engine attendAndAppend).
 * Rows that finish are dropped from the batch (and from the KV cache). Random draws happen on the JS side with the Rng, one per active row
 * per step in row order, so a run is a pure function of the seed — the same with or without shared
 * prompts, and the same as `sampleNoCache`. With `keepCache`, a finished row's cache (its K/V and the
 * logits it drew from) is copied out before the row is dropped and returned with its result.
 */
export interface SampleOutput {
  results: SampleResult[];
  cost: ComputeCost;
}

interface Row {
  prompt: number[];
  tokens: number[];
  logprobs: number[];
  entropies: number[];
  /** Most tokens this row may generate: maxNewTokens, or less if the context fills first. */
  budget: number;
  done: boolean;
  truncated: boolean;
  /** keepCache: the logits [V] each token was drawn from, [budget, V] flat (row t: token t's), then the row's cache once it finished. */
  logits?: Float32Array;
  cache?: TransformerSequenceCache;
  /** Index of the row's prompt among the distinct prompts (rows of one prompt share its prefill and, kept, its K/V). */
  promptId?: number;
}

/**
 * Sampling with a KV cache: one prefill pass over the distinct prompts, then one 1-token pass per step.
 * Cost: tokensForwarded = Σ |distinct prompt| + one per live row per decode step (Σ (generated − 1)).
 */
export async function sampleWithCache(model: Transformer, prompts: number[][], options: SampleOptions, rng: Rng): Promise<SampleOutput> {
  const rows = startRows(model, prompts, options);
  const cost: ComputeCost = { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 };
  let live = rows.flatMap((r, i) => (r.done ? [] : [i])); // row ids held in the cache, in order
  if (live.length > 0) {
    const P = Math.max(...live.map((i) => rows[i].prompt.length));
    // keyValid[b][j]: may queries of cache row b attend to cached position j (false for left padding).
    let keyValid = live.map((i) => Array.from({ length: P }, (_, j) => j >= P - rows[i].prompt.length));
    const { distinct, source } = distinctPrompts(live.map((i) => rows[i].prompt));
    live.forEach((i, b) => (rows[i].promptId = source[b]));
    const promptKV = new Map<number, { parts: RowKV['prompt'][]; block: KeptBlock }>(); // keepCache: each distinct prompt's K/V per layer, copied once
    let { logits, kv } = prefill(model, distinct, P); // [D, V], [D, H, P, dh]
    // Rows of one prompt get its K/V copied (expandRows), and every row gets room for its budget: the
    // cache is [B, H, P + longest budget, dh] from here on, and each decode step writes its K/V in place.
    const slots = P + Math.max(...live.map((i) => rows[i].budget));
    const sized = withRoom(logits, kv, distinct.length < live.length ? source : null, slots);
    logits.dispose();
    disposeKV(kv);
    ({ logits, kv } = sized);
    cost.forwardPasses++;
    cost.tokensForwarded += distinct.reduce((n, p) => n + p.length, 0);
    for (;;) {
      const data = (await logits.data()) as Float32Array;
      logits.dispose();
      drawForRows(rows, live, data, model.config.vocabSize, options, rng);
      if (options.keepCache) keepFinished(model, rows, live, kv, keyValid, promptKV);
      const keep = live.flatMap((id, b) => (rows[id].done ? [] : [b]));
      if (keep.length === 0) break;
      if (keep.length < live.length) {
        const next = compactCache(kv, keep);
        disposeKV(kv);
        kv = next;
        live = keep.map((b) => live[b]);
        keyValid = keep.map((b) => keyValid[b]);
      }
      keyValid.forEach((k) => k.push(true)); // the token fed now is visible to itself and later
      if (options.signal) {
        await yieldToEventLoop(); // sampling never leaves the microtask queue otherwise: the abort could not be seen
        if (options.signal.aborted) {
          disposeKV(kv);
          throw options.signal.reason;
        }
      }
      const step = stepWithCache(
        model,
        live.map((i) => rows[i]),
        kv,
        keyValid,
      );
      disposeKV(kv.filter((layer, l) => layer.k !== step.kv[l].k)); // grown in place on wasm+native: the same tensors
      ({ logits, kv } = step);
      cost.forwardPasses++;
      cost.tokensForwarded += live.length;
    }
    disposeKV(kv);
  }
  cost.tokensGenerated = rows.reduce((n, r) => n + r.tokens.length, 0);
  return { results: rows.map(toResult), cost };
}

/**
 * Sampling without a cache: every step recomputes the full forward over prompt + tokens so far, for
 * every row on its own (identical prompts are not shared). Same draws as `sampleWithCache` for the
 * same seed — the reference it is tested against; kept for tests and for the cost bench.
 */
export async function sampleNoCache(
  model: Transformer,
  prompts: number[][],
  sampleOptions: SampleOptions,
  rng: Rng,
): Promise<SampleOutput> {
  const options = { ...sampleOptions, keepCache: false }; // it has no cache to keep
  const rows = startRows(model, prompts, options);
  const cost: ComputeCost = { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 };
  for (;;) {
    const live = rows.flatMap((r, i) => (r.done ? [] : [i]));
    if (live.length === 0) break;
    const sequences = live.map((i) => [...rows[i].prompt, ...rows[i].tokens]);
    const L = Math.max(...sequences.map((s) => s.length));
    const { logits, kv } = prefill(model, sequences, L);
    disposeKV(kv);
    const data = (await logits.data()) as Float32Array;
    logits.dispose();
    cost.forwardPasses++;
    cost.tokensForwarded += sequences.reduce((n, s) => n + s.length, 0);
    drawForRows(rows, live, data, model.config.vocabSize, options, rng);
  }
  cost.tokensGenerated = rows.reduce((n, r) => n + r.tokens.length, 0);
  return { results: rows.map(toResult), cost };
}

function startRows(model: Transformer, prompts: number[][], options: SampleOptions): Row[] {
  const { vocabSize: V, contextLength } = model.config;
  validateSampleOptions(options, V);
  return prompts.map((prompt, i) => {
    if (prompt.length === 0) throw new UserError(`sample: prompt ${i} is empty (it needs at least one token, normally <bos>)`);
    if (prompt.length > contextLength)
      throw new UserError(`sample: prompt ${i} has ${prompt.length} tokens, more than the model's contextLength ${contextLength}`);
    const bad = prompt.find((t) => !(Number.isInteger(t) && t >= 0 && t < V));
    if (bad !== undefined) throw new UserError(`sample: prompt ${i} contains token ${bad}, outside 0..${V - 1}`);
    const budget = Math.min(options.maxNewTokens, contextLength - prompt.length);
    return { prompt, tokens: [], logprobs: [], entropies: [], budget, done: budget === 0, truncated: budget === 0 };
  });
}

/** Draws one token for every live row from its logits row [V] and records it. */
function drawForRows(rows: Row[], live: number[], logits: Float32Array, V: number, options: SampleOptions, rng: Rng): void {
  live.forEach((id, b) => {
    const row = rows[id];
    const d = drawToken(logits.subarray(b * V, (b + 1) * V), options, rng);
    if (options.keepCache) {
      const kept = (row.logits ??= new Float32Array(row.budget * V));
      const at = row.tokens.length * V;
      for (let v = 0; v < V; v++) kept[at + v] = logits[b * V + v];
    }
    row.tokens.push(d.token);
    row.logprobs.push(d.logprob);
    row.entropies.push(d.entropy);
    if (d.token === options.stopToken) row.done = true;
    else if (row.tokens.length >= row.budget) {
      row.done = true;
      row.truncated = true;
    }
  });
}

/**
 * keepCache: for every row that finished at this draw, its cache row b copied out of the batch cache
 * into JS (K/V [B, H, keys, dh] → [H, positions, dh] per layer, without the left padding; no kernel
 * runs) with the logits it drew from. The prompt's positions are copied once per distinct prompt
 * (`promptKV`) and shared by its rows; each row copies its own generated positions.
 */
function keepFinished(
  model: Transformer,
  rows: Row[],
  live: number[],
  kv: LayerKV[],
  keyValid: boolean[][],
  promptKV: Map<number, { parts: RowKV['prompt'][]; block: KeptBlock }>,
): void {
  live.forEach((id, b) => {
    const row = rows[id];
    if (!row.done) return;
    const pad = keyValid[b].indexOf(true);
    const P = row.prompt.length;
    const ownLength = keyValid[b].length - pad - P; // generated − 1
    let prompt = promptKV.get(row.promptId!);
    if (!prompt) {
      prompt = copyCacheRows(kv, b, pad, P);
      promptKV.set(row.promptId!, prompt);
    }
    const own = copyCacheRows(kv, b, pad + P, ownLength);
    const layers = own.parts.map((part, l) => ({ prompt: prompt.parts[l], own: part }));
    const tokens = [...row.prompt, ...row.tokens.slice(0, -1)];
    prompt.block.holders++;
    own.block.holders++;
    const blocks = [prompt.block, own.block];
    row.cache = new TransformerSequenceCache(model, tokens, P, layers, row.logits!, model.config.vocabSize, row.tokens.length, blocks);
    row.logits = undefined;
  });
}

/**
 * Full forward over left-padded sequences (length L): logits of each row's last position [B, V]
 * and the per-layer K/V of all L positions [B, H, L, dh].
 */
function prefill(model: Transformer, sequences: number[][], L: number): { logits: tf.Tensor2D; kv: LayerKV[] } {
  const B = sequences.length;
  const tokens = new Int32Array(B * L);
  const positions = new Int32Array(B * L);
  const mask = new Float32Array(B * L * L).fill(MASKED);
  sequences.forEach((seq, b) => {
    const pad = L - seq.length;
    for (let j = 0; j < L; j++) {
      tokens[b * L + j] = j >= pad ? seq[j - pad] : 0;
      positions[b * L + j] = Math.max(0, j - pad);
      // Query j sees keys pad..j; pad queries see nothing real (their outputs are never used).
      for (let k = pad; k <= j; k++) mask[(b * L + j) * L + k] = 0;
    }
  });
  return tf.tidy(() => {
    const x = model.embedAt(tf.tensor2d(tokens, [B, L], 'int32'), tf.tensor2d(positions, [B, L], 'int32')); // [B·L, C]
    const { hidden, kv } = model.runBlocks({ x, batch: B, length: L, mask: tf.tensor4d(mask, [B, 1, L, L]) });
    const C = model.config.dModel;
    const last = tf.reshape(tf.slice(tf.reshape(hidden, [B, L, C]), [0, L - 1, 0], [B, 1, C]), [B, C]) as tf.Tensor2D; // [B, C]
    return { logits: model.head(last), kv };
  });
}

/**
 * One cached step: feeds each live row's latest token at its own position, appending its K/V to the
 * cache `past` ([B, H, slots, dh] per layer, holding keys − 1 positions).
 */
function stepWithCache(model: Transformer, rows: Row[], past: LayerKV[], keyValid: boolean[][]): { logits: tf.Tensor2D; kv: LayerKV[] } {
  const B = rows.length;
  const keys = keyValid[0].length; // cached positions plus the new one
  const tokens = new Int32Array(rows.map((r) => r.tokens[r.tokens.length - 1]));
  const positions = new Int32Array(rows.map((r) => r.prompt.length + r.tokens.length - 1));
  const mask = new Float32Array(B * keys);
  keyValid.forEach((valid, b) => valid.forEach((ok, j) => (mask[b * keys + j] = ok ? 0 : MASKED)));
  return tf.tidy(() => {
    const x = model.embedAt(tf.tensor2d(tokens, [B, 1], 'int32'), tf.tensor2d(positions, [B, 1], 'int32')); // [B, C]
    const { hidden, kv } = model.runBlocks({
      x,
      batch: B,
      length: 1,
      mask: tf.tensor4d(mask, [B, 1, 1, keys]),
      past,
      pastLength: keys - 1,
    });
    return { logits: model.head(hidden), kv };
  });
}

/**
 * The distinct prompts in order of first appearance, and for every prompt the index of its distinct
 * copy: prompts[b] equals distinct[source[b]].
 */
function distinctPrompts(prompts: readonly number[][]): { distinct: number[][]; source: number[] } {
  const index = new Map<string, number>();
  const distinct: number[][] = [];
  const source = prompts.map((p) => {
    const key = p.join(',');
    let at = index.get(key);
    if (at === undefined) {
      at = distinct.length;
      index.set(key, at);
      distinct.push(p);
    }
    return at;
  });
  return { distinct, source };
}

/**
 * The prefill's outputs for the cache: row b is row source[b] of the inputs (all rows in order when
 * source is null), K/V padded with zeros from P to `slots` positions. logits [D, V] → [B, V], K/V
 * [D, H, P, dh] → [B, H, slots, dh]. New tensors.
 */
function withRoom(logits: tf.Tensor2D, kv: LayerKV[], source: number[] | null, slots: number): { logits: tf.Tensor2D; kv: LayerKV[] } {
  return tf.tidy(() => {
    const rowsOf = source ? expandRows(logits, kv, source) : { logits: tf.clone(logits), kv };
    const room = (t: tf.Tensor4D) =>
      tf.pad(t, [
        [0, 0],
        [0, 0],
        [0, slots - t.shape[2]],
        [0, 0],
      ]) as tf.Tensor4D;
    return { logits: rowsOf.logits, kv: rowsOf.kv.map(({ k, v }) => ({ k: room(k), v: room(v) })) };
  });
}

/** Row b of the outputs is row source[b] of the inputs: logits [D, V] → [B, V], K/V [D, H, P, dh] → [B, H, P, dh]. */
function expandRows(logits: tf.Tensor2D, kv: LayerKV[], source: number[]): { logits: tf.Tensor2D; kv: LayerKV[] } {
  return tf.tidy(() => {
    const idx = tf.tensor1d(source, 'int32');
    return { logits: tf.gather(logits, idx, 0) as tf.Tensor2D, kv: gatherRows(kv, idx) };
  });
}

/** Keeps only the cache rows `keep` (batch axis). */
function compactCache(kv: LayerKV[], keep: number[]): LayerKV[] {
  return tf.tidy(() => gatherRows(kv, tf.tensor1d(keep, 'int32')));
}

/** Cache rows idx (batch axis), in that order; rows may repeat. */
function gatherRows(kv: LayerKV[], idx: tf.Tensor1D): LayerKV[] {
  return kv.map(({ k, v }) => ({ k: tf.gather(k, idx, 0), v: tf.gather(v, idx, 0) }));
}

function disposeKV(kv: LayerKV[]): void {
  for (const { k, v } of kv) tf.dispose([k, v]);
}

function toResult(row: Row): SampleResult {
  const result: SampleResult = { tokens: row.tokens, logprobs: row.logprobs, entropies: row.entropies, truncated: row.truncated };
  return row.cache ? { ...result, cache: row.cache } : result;
}
