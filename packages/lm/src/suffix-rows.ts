/**
 * The layout of the scorer's two passes: which tokens share a batch row, where each sits, what it may
 * attend to and which token it predicts. Pure arithmetic, kept apart from the tensor code so it can
 * be tested on its own.
 *
 * Pass 1 packs whole sequences (prefixes) into rows; pass 2 packs the suffix requests of one sequence
 * into rows. A row per item would pad every sequence to the longest and pay each layer's fixed per-row
 * work for suffixes of only 3–4 tokens (the immediate term's `</think> y* <eos>`). A packed item sees
 * only itself (causally) and, in pass 2, the cached positions < exitAt of its own sequence; never its
 * row neighbours. Each token keeps its true position, so packing changes no probability.
 */
import { MASKED } from './layers';
import type { SuffixRequest } from './types';

/** One item (a sequence in pass 1, a suffix request in pass 2) placed in a row. */
interface Placed {
  /** Index of the job (sequence) the item belongs to. */
  job: number;
  /** Index of the request within its job (pass 2; -1 for a whole sequence in pass 1). */
  request: number;
  /** Slot of its first token in the row. */
  offset: number;
  length: number;
}

interface PackedRow {
  /** Tokens in the row (sum of the placed lengths). */
  length: number;
  placed: Placed[];
}

/**
 * First-fit decreasing: items longest first (ties in input order), each into the first row with room
 * for it (at most `capacity` tokens; an item longer than that gets a row of its own). Deterministic.
 * Rows come out longest first, so chunks of consecutive rows pad little.
 */
export function packRows(items: readonly Omit<Placed, 'offset'>[], capacity: number): PackedRow[] {
  const rows: PackedRow[] = [];
  const order = items.map((_, i) => i).sort((a, b) => items[b].length - items[a].length || a - b);
  for (const i of order) {
    const item = items[i];
    if (item.length === 0) continue;
    let row = rows.find((r) => r.length + item.length <= capacity);
    if (!row) {
      row = { length: 0, placed: [] };
      rows.push(row);
    }
    row.placed.push({ ...item, offset: row.length });
    row.length += item.length;
  }
  return rows.sort((a, b) => b.length - a.length);
}

/** Pass 2 rows: the non-empty requests of each job, packed per job (a row never mixes jobs, so it has one cached sequence). */
export function packSuffixRows(jobs: readonly (readonly SuffixRequest[])[], rowTokens: number): PackedRow[] {
  const rows = jobs.flatMap((requests, job) =>
    packRows(
      requests.map((r, request) => ({ job, request, length: r.suffix.length })),
      rowTokens,
    ),
  );
  return rows.sort((a, b) => b.length - a.length);
}

/** Where each job's sequence sits after pass 1: its row and the slot of its position 0. */
export interface SequenceSlot {
  row: number;
  offset: number;
}

/** The int32/float32 inputs of one pass over `rows` padded to `width` slots. */
interface RowTensors {
  tokens: Int32Array; // [R·width]
  positions: Int32Array; // [R·width]
  /** Token each slot predicts (pass 2: the request's next suffix token; 0 where unused). */
  targets: Int32Array; // [R·width]
  /** Additive attention mask [R, 1, width, cached + width]: 0 = visible, MASKED = hidden (empty when not asked for). */
  mask: Float32Array;
}

/**
 * Pass 1 inputs: every row holds whole sequences at positions 0.., each attending causally to itself
 * only (a block-diagonal causal mask). Padding slots see slot 0, so their softmax stays finite.
 * `mask: false` leaves the mask empty: when every row holds one sequence the plain causal mask
 * [1, 1, width, width] is the same for every real query (the caller broadcasts it), and the
 * R·width² floats are not worth building.
 */
export function sequenceRowTensors(
  rows: readonly PackedRow[],
  sequences: readonly (readonly number[])[],
  width: number,
  contextLength: number,
  { mask = true }: { mask?: boolean } = {},
): RowTensors {
  return fillRows(rows, width, 0, (p) => ({ tokens: sequences[p.job], firstPosition: 0, prefix: null }), contextLength, mask);
}

/**
 * Pass 2 inputs: request r of job j may see the cached positions of its own sequence before exitAt
 * (slots slot.offset .. slot.offset + exitAt − 1 of the cached row, `cached` slots wide) and its own
 * slots so far; it sits at positions exitAt, exitAt + 1, … and predicts its next suffix token.
 */
export function suffixRowTensors(
  rows: readonly PackedRow[],
  jobs: readonly (readonly SuffixRequest[])[],
  slots: readonly SequenceSlot[],
  width: number,
  cached: number,
  contextLength: number,
): RowTensors {
  return fillRows(
    rows,
    width,
    cached,
    (p) => {
      const { exitAt, suffix } = jobs[p.job][p.request];
      return { tokens: suffix, firstPosition: exitAt, prefix: { from: slots[p.job].offset, to: slots[p.job].offset + exitAt } };
    },
    contextLength,
    true,
  );
}

function fillRows(
  rows: readonly PackedRow[],
  width: number,
  cached: number,
  itemOf: (p: Placed) => { tokens: readonly number[]; firstPosition: number; prefix: { from: number; to: number } | null },
  contextLength: number,
  withMask: boolean,
): RowTensors {
  const R = rows.length;
  const span = cached + width;
  const tokens = new Int32Array(R * width);
  const positions = new Int32Array(R * width);
  const targets = new Int32Array(R * width);
  const mask = withMask ? new Float32Array(R * width * span).fill(MASKED) : new Float32Array(0);
  rows.forEach((row, r) => {
    if (withMask) for (let slot = row.length; slot < width; slot++) mask[(r * width + slot) * span] = 0;
    for (const p of row.placed) {
      const item = itemOf(p);
      for (let j = 0; j < p.length; j++) {
        const slot = r * width + p.offset + j;
        tokens[slot] = item.tokens[j];
        positions[slot] = Math.min(item.firstPosition + j, contextLength - 1);
        targets[slot] = j + 1 < p.length ? item.tokens[j + 1] : 0;
        if (!withMask) continue;
        const m = slot * span;
        if (item.prefix) mask.fill(0, m + item.prefix.from, m + item.prefix.to); // the request's prefix
        mask.fill(0, m + cached + p.offset, m + cached + p.offset + j + 1); // itself so far
      }
    }
  });
  return { tokens, positions, targets, mask };
}

/**
 * The real tokens of `rows` (padded to `width` slots) in row-major order, for a packed pass
 * (transformer.ts BlockPass.packing): toPacked[n] = the slot (r·width + s) of token n; toRows[slot] =
 * the token at that slot, 0 (a real token, masked away) for a padding slot; spans [R·2] = each row's
 * first token and count (a row's tokens fill its first slots, so they are consecutive).
 */
export function packedSlots(rows: readonly PackedRow[], width: number): { toPacked: Int32Array; toRows: Int32Array; spans: Int32Array } {
  const toPacked = new Int32Array(rows.reduce((n, r) => n + r.length, 0));
  const toRows = new Int32Array(rows.length * width);
  const spans = new Int32Array(2 * rows.length);
  let n = 0;
  rows.forEach((row, r) => {
    spans[2 * r] = n;
    spans[2 * r + 1] = row.length;
    for (const p of row.placed)
      for (let j = 0; j < p.length; j++) {
        const slot = r * width + p.offset + j;
        toPacked[n] = slot;
        toRows[slot] = n++;
      }
  });
  return { toPacked, toRows, spans };
}
