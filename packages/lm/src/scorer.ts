import { UserError } from '@rred/core';
import { tf } from '@rred/engine';
import { causalMask, oneHotFloat } from './layers';
import { stackRows, TransformerSequenceCache } from './sequence-cache';
import { packedSlots, packRows, packSuffixRows, sequenceRowTensors, suffixRowTensors, type SequenceSlot } from './suffix-rows';
import type { LayerKV, Transformer } from './transformer';
import type { ScoreJob, ScoreResult, SuffixRequest } from './types';

export interface ScoreOptions {
  /**
   * Rough cap on float32 intermediates per layer of one suffix batch (elements). Longer request
   * lists are split into several suffix batches; the shared prefixes are still forwarded once.
   * Default 16M (≈ 64 MB).
   */
  maxChunkElements?: number;
  /**
   * Suffix tokens packed into one pass-2 row (several requests of the same sequence share a row;
   * see suffix-rows.ts). A request longer than this gets a row of its own. Default 64.
   */
  rowTokens?: number;
  /**
   * Sequence tokens packed into one pass-1 row (several short sequences share a row instead of being
   * padded to the longest; see suffix-rows.ts). Default (and minimum): the longest sequence. Wider
   * rows pad pass 1 less but make every pass-2 query attend over more cached slots.
   */
  sequenceRowTokens?: number;
}

const DEFAULT_CHUNK_ELEMENTS = 16_000_000;
const DEFAULT_ROW_TOKENS = 64;

/**
 * Scores many suffixes after many prefixes of one shared sequence (the primitive behind the
 * RREDCoT immediate and value terms, Eqs. 7 and 9). The one-job case of `scoreBatch`.
 */
export async function scoreAfterPrefixes(
  model: Transformer,
  sequence: number[],
  requests: SuffixRequest[],
  options: ScoreOptions = {},
): Promise<ScoreResult> {
  const [result] = await scoreBatch(model, [{ sequence, requests }], options, 'scoreAfterPrefixes');
  return result;
}

/**
 * Scores the requests of several sequences in one batched call (e.g. every trace of a GRPO batch).
 *
 * Pass 1 runs all sequences once, packed into rows (suffix-rows.ts), keeping every layer's K and V
 * and the log-probabilities at every position; log p(suffix[0] | sequence[<exitAt]) is read at
 * position exitAt − 1. Pass 2 forwards all suffixes together, packed into rows per sequence
 * (suffix-rows.ts): each token attends to the cached positions < exitAt of its own sequence and
 * causally to its own earlier suffix tokens, at positions exitAt, exitAt + 1, …; it gives the
 * log-probabilities of suffix[1..]. Nothing of a prefix is recomputed. Pass 2's per-token work
 * (projections, MLP, head) runs on the real suffix tokens only; rows and their padding exist for
 * attention alone (BlockPass.packing).
 *
 * Cost per job: T + Σ|suffix| token positions. `forwardPasses` of each job is the number of batched
 * passes of the whole call it took part in (1 + suffix chunks), so do not sum it over jobs.
 */
export async function scoreBatch(
  model: Transformer,
  jobs: ScoreJob[],
  options: ScoreOptions = {},
  caller = 'scoreBatch',
): Promise<ScoreResult[]> {
  jobs.forEach((job, j) => validate(model, job.sequence, job.requests, jobs.length === 1 ? caller : `${caller}: job ${j}`));
  const logprobs: number[][][] = jobs.map((job) => job.requests.map((r) => new Array<number>(r.suffix.length)));
  // Jobs with at least one non-empty suffix, in order; everything below indexes into `active`.
  const active = jobs.flatMap((job, j) => (job.requests.some((r) => r.suffix.length > 0) ? [j] : []));
  if (active.length === 0) return logprobs.map((lp) => ({ logprobs: lp, cost: { ...ZERO_COST } }));
  const batch = planBatch(model, jobs, active);
  const first = firstPass(model, batch, options);
  const past = pastRows(model, batch, first);
  let passes = batch.uncached.length > 0 ? 1 : 0;
  try {
    await firstTokens(model, batch, first, logprobs);
    passes += await secondPass(model, batch, past, options, logprobs);
  } finally {
    first?.logp.dispose();
    for (const { k, v } of [...(past.shared ?? []), ...(first?.kv ?? [])]) tf.dispose([k, v]);
  }
  return jobs.map((job, j) => {
    job.requests.forEach((_, i) => {
      const t = logprobs[j][i].findIndex((x) => Number.isNaN(x));
      if (t >= 0)
        throw new Error(
          `${caller}: log-probability of ${jobs.length === 1 ? '' : `job ${j} `}request ${i} suffix token ${t} is NaN (model weights diverged?)`,
        );
    });
    const suffixTokens = job.requests.reduce((n, r) => n + r.suffix.length, 0);
    if (suffixTokens === 0) return { logprobs: logprobs[j], cost: { ...ZERO_COST } };
    const fromCache = batch.caches[active.indexOf(j)] !== null;
    return {
      logprobs: logprobs[j],
      cost: { tokensForwarded: (fromCache ? 0 : job.sequence.length) + suffixTokens, tokensGenerated: 0, forwardPasses: passes },
    };
  });
}

const ZERO_COST = { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 };

/** The jobs of a call both passes work on: `active` (indices into the jobs), their requests, caches and K/V slots. */
interface BatchPlan {
  jobs: ScoreJob[];
  active: number[];
  activeRequests: SuffixRequest[][];
  /** A job with a usable sampler cache (ScoreJob.cache) skips pass 1: its K/V and first-token logits are the cache's. */
  caches: (TransformerSequenceCache | null)[];
  /** Indices into `active` of the jobs pass 1 forwards. */
  uncached: number[];
  /** Where each active job's sequence sits in the K/V rows (filled by firstPass, then pastRows). */
  slots: SequenceSlot[];
}

function planBatch(model: Transformer, jobs: ScoreJob[], active: number[]): BatchPlan {
  const caches = active.map((j) => {
    const c = jobs[j].cache;
    return c instanceof TransformerSequenceCache && c.serves(model, jobs[j].sequence, jobs[j].requests) ? c : null;
  });
  return {
    jobs,
    active,
    activeRequests: active.map((j) => jobs[j].requests),
    caches,
    uncached: active.flatMap((_, job) => (caches[job] ? [] : [job])),
    slots: new Array(active.length),
  };
}

/** Pass 1's output: log-probabilities at every slot [R1·T1, V] and every layer's K/V [R1, H, T1, dh]. */
interface FirstPass {
  logp: tf.Tensor2D;
  kv: LayerKV[];
  /** Rows and slots per row of pass 1. */
  R1: number;
  T1: number;
}

/** Pass 1: every uncached sequence once, packed into rows (block-diagonal causal mask); null when every job is cached. */
function firstPass(model: Transformer, b: BatchPlan, options: ScoreOptions): FirstPass | null {
  if (b.uncached.length === 0) return null;
  const { jobs, active } = b;
  const longest = Math.max(...b.uncached.map((job) => jobs[active[job]].sequence.length));
  const sequenceRows = packRows(
    b.uncached.map((job) => ({ job, request: -1, length: jobs[active[job]].sequence.length })),
    Math.max(longest, options.sequenceRowTokens ?? longest),
  );
  sequenceRows.forEach((row, r) => row.placed.forEach((p) => (b.slots[p.job] = { row: r, offset: p.offset })));
  const R1 = sequenceRows.length;
  const T1 = sequenceRows[0].length;
  const sequences = active.map((j) => jobs[j].sequence); // indexed like `active`; rows hold the uncached ones
  // One sequence per row (the usual case): the plain causal mask, broadcast; packed rows need their block-diagonal one.
  const single = sequenceRows.every((row) => row.placed.length === 1);
  const first = sequenceRowTensors(sequenceRows, sequences, T1, model.config.contextLength, { mask: !single });
  const out = tf.tidy(() => {
    const x = model.embedAt(tf.tensor2d(first.tokens, [R1, T1], 'int32'), tf.tensor2d(first.positions, [R1, T1], 'int32')); // [R1·T1, C]
    const mask = single ? causalMask(T1) : tf.tensor4d(first.mask, [R1, 1, T1, T1]); // [1 or R1, 1, T1, T1]
    const { hidden, kv } = model.runBlocks({ x, batch: R1, length: T1, mask }); // kv: [R1, H, T1, dh]
    return { logp: tf.logSoftmax(model.head(hidden)) as tf.Tensor2D, kv }; // logp: [R1·T1, V]
  });
  return { ...out, R1, T1 };
}

/** What pass-2 rows attend to: `T` cached slots per row, the one stack of every row (null when every job is cached) and `chunkPast`. */
interface PastRows {
  T: number;
  shared: LayerKV[] | null;
  /** The K/V suffix row r of `chunk` attends to, per layer [R, H, T, dh] (or [1, …], broadcast by runBlocks). */
  chunkPast(chunk: readonly { placed: readonly { job: number }[] }[]): LayerKV[];
}

/** Cached jobs follow the pass-1 rows as rows R1.. of their own (offset 0), each its sequence's positions of the cache. */
function pastRows(model: Transformer, b: BatchPlan, first: FirstPass | null): PastRows {
  const { dModel: C, nHeads: H } = model.config;
  const { jobs, active, caches, slots } = b;
  let rowCount = first?.R1 ?? 0;
  active.forEach((_, job) => {
    if (caches[job]) slots[job] = { row: rowCount++, offset: 0 };
  });
  const T = Math.max(first?.T1 ?? 0, ...active.map((j, job) => (caches[job] ? jobs[j].sequence.length : 0))); // cached slots per row
  // With every job cached (the cache handoff) there are no pass-1 rows: each chunk stacks its own rows'
  // caches, in its row order (chunkPast), so no gather. Otherwise one stack of every row, per layer [rowCount, H, T, dh].
  const shared = b.uncached.length === 0 ? null : stackCachedRows(first?.kv ?? null, caches, T, { H, dh: C / H });
  const chunkPast = (chunk: readonly { placed: readonly { job: number }[] }[]): LayerKV[] => {
    const jobOf = chunk.map((row) => row.placed[0].job);
    if (!shared) {
      const oneJob = jobOf.every((job) => job === jobOf[0]);
      return stackRows(
        (oneJob ? jobOf.slice(0, 1) : jobOf).map((job) => caches[job]!.kv()),
        H,
        C / H,
        T,
      );
    }
    if (rowCount === 1) return shared;
    const cachedRow = tf.tensor1d(
      jobOf.map((job) => slots[job].row),
      'int32',
    );
    return shared.map(({ k, v }) => ({ k: tf.gather(k, cachedRow) as tf.Tensor4D, v: tf.gather(v, cachedRow) as tf.Tensor4D }));
  };
  return { T, shared, chunkPast };
}

/** log p(suffix[0] | sequence[<exitAt]) of every request: pass 1's log-probabilities at exitAt − 1, or the cache's. */
async function firstTokens(model: Transformer, b: BatchPlan, first: FirstPass | null, logprobs: number[][][]): Promise<void> {
  const V = model.config.vocabSize;
  if (first) {
    const sharedLogp = (await first.logp.data()) as Float32Array;
    for (const job of b.uncached) {
      const at = b.slots[job].row * first.T1 + b.slots[job].offset;
      b.activeRequests[job].forEach(({ exitAt, suffix }, i) => {
        if (suffix.length > 0) logprobs[b.active[job]][i][0] = sharedLogp[(at + exitAt - 1) * V + suffix[0]];
      });
    }
  }
  b.caches.forEach((cache, job) => {
    b.activeRequests[job].forEach(({ exitAt, suffix }, i) => {
      if (cache && suffix.length > 0) logprobs[b.active[job]][i][0] = cache.logprob(exitAt, suffix[0]);
    });
  });
}

/** Pass 2: all suffixes against the cached prefixes, in chunks of rows (suffix[1..]); returns the number of chunks. */
async function secondPass(
  model: Transformer,
  b: BatchPlan,
  past: PastRows,
  options: ScoreOptions,
  logprobs: number[][][],
): Promise<number> {
  const { vocabSize: V, contextLength, dModel: C, nHeads: H, dFF: F } = model.config;
  const { T } = past;
  const rows = packSuffixRows(b.activeRequests, options.rowTokens ?? DEFAULT_ROW_TOKENS);
  const budget = options.maxChunkElements ?? DEFAULT_CHUNK_ELEMENTS;
  let passes = 0;
  for (let start = 0; start < rows.length;) {
    const S = rows[start].length; // rows are longest first: the chunk's width
    const perRow = S * (H * (T + S) * 4 + F * 6 + C * 14) + 4 * (T + S) * C;
    const chunk = rows.slice(start, start + Math.max(1, Math.floor(budget / perRow)));
    start += chunk.length;
    passes++;
    const R = chunk.length;
    const input = suffixRowTensors(chunk, b.activeRequests, b.slots, S, T, contextLength);
    // Projections and MLP run on the chunk's N real tokens only; attention on the [R, S] rows (BlockPass.packing).
    const { toPacked, toRows, spans } = packedSlots(chunk, S);
    const N = toPacked.length;
    const packed = (a: Int32Array) => Int32Array.from(toPacked, (slot) => a[slot]);
    const picked = tf.tidy(() => {
      const pastKV = past.chunkPast(chunk); // made in this tidy (stacked or gathered), or the shared stack
      const x = model.embedAt(tf.tensor2d(packed(input.tokens), [1, N], 'int32'), tf.tensor2d(packed(input.positions), [1, N], 'int32')); // [N, C]
      const packing = { rows: tf.tensor2d(spans, [R, 2], 'int32') };
      const mask = tf.tensor4d(input.mask, [R, 1, S, T + S]);
      const { hidden } = model.runBlocks({ x, batch: R, length: S, mask, past: pastKV, packing, keepKV: false }); // [N, C]
      const logp = tf.logSoftmax(model.head(hidden)); // [N, V]
      return tf.sum(tf.mul(logp, oneHotFloat(tf.tensor1d(packed(input.targets), 'int32'), V)), -1); // [N]
    });
    const values = (await picked.data()) as Float32Array; // values[n]: token n's log-probability of its target
    picked.dispose();
    chunk.forEach((row, r) => {
      for (const p of row.placed) {
        const out = logprobs[b.active[p.job]][p.request];
        for (let s = 1; s < p.length; s++) out[s] = values[toRows[r * S + p.offset + s - 1]];
      }
    });
  }
  return passes;
}

/**
 * The K/V every pass-2 row may attend to, per layer [rows, H, T, dh]: the pass-1 rows (padded from T1
 * to T slots) and then each cached job's cache, cut or padded to T slots (written in place into one
 * tensor per layer: stackRows). Slots past a job's sequence are never visible (the pass-2 mask shows a job
 * only its own slots < exitAt). With no cached job this is the pass-1 K/V itself.
 */
function stackCachedRows(
  firstKV: LayerKV[] | null,
  caches: (TransformerSequenceCache | null)[],
  T: number,
  shape: { H: number; dh: number },
): LayerKV[] {
  const cached = caches.flatMap((c) => (c ? [c.kv()] : []));
  if (cached.length === 0) return firstKV!;
  const fromCaches = stackRows(cached, shape.H, shape.dh, T);
  if (!firstKV) return fromCaches;
  const widen = (t: tf.Tensor4D) =>
    t.shape[2] === T
      ? t
      : tf.pad(t, [
          [0, 0],
          [0, 0],
          [0, T - t.shape[2]],
          [0, 0],
        ]);
  const stacked = tf.tidy(() =>
    fromCaches.map(({ k, v }, l) => ({
      k: tf.concat([widen(firstKV[l].k), k], 0) as tf.Tensor4D,
      v: tf.concat([widen(firstKV[l].v), v], 0) as tf.Tensor4D,
    })),
  );
  tf.dispose(fromCaches.flatMap(({ k, v }) => [k, v]));
  return stacked;
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

function validate(model: Transformer, sequence: number[], requests: SuffixRequest[], label = 'scoreAfterPrefixes'): void {
  const { vocabSize: V, contextLength } = model.config;
  const T = sequence.length;
  const badToken = (t: number) => !(Number.isInteger(t) && t >= 0 && t < V);
  if (T === 0) throw new UserError(`${label}: the shared sequence is empty`);
  if (T > contextLength) throw new UserError(`${label}: the shared sequence has ${T} tokens, more than contextLength ${contextLength}`);
  const bad = sequence.find(badToken);
  if (bad !== undefined) throw new UserError(`${label}: sequence token ${bad} is outside 0..${V - 1}`);
  requests.forEach(({ exitAt, suffix }, i) => {
    if (!(Number.isInteger(exitAt) && exitAt >= 1 && exitAt <= T))
      throw new UserError(`${label}: request ${i} has exitAt ${exitAt}, expected an integer in 1..${T} (the sequence length)`);
    const b = suffix.find(badToken);
    if (b !== undefined) throw new UserError(`${label}: request ${i} suffix token ${b} is outside 0..${V - 1}`);
    if (exitAt + suffix.length > contextLength) {
      throw new UserError(
        `${label}: request ${i} needs ${exitAt} prefix + ${suffix.length} suffix tokens = ${exitAt + suffix.length}, more than contextLength ${contextLength}`,
      );
    }
  });
}
