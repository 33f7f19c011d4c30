/**
 * The layout of the scorer's second pass: which suffix tokens share a batch row, where each sits, what
 * it may attend to and which token it predicts. Pure arithmetic, kept apart from the tensor code so it
 * can be tested on its own.
 *
 * Several requests of the same sequence are packed one after another into one row (up to
 * `rowTokens` suffix tokens per row), because a row per request pays the fixed per-row work of every
 * layer for a suffix of only 3–4 tokens (the immediate term's `</think> y* <eos>`). A packed request
 * sees the cached positions < exitAt of its own sequence and, causally, its own earlier tokens in the
 * row, never its row neighbours.
 */
import { MASKED } from './layers';
import type { SuffixRequest } from './types';

/** One request placed in a row. */
export interface PlacedRequest {
  /** Index of the job (sequence) it belongs to. */
  job: number;
  /** Index of the request within its job. */
  request: number;
  /** Slot of its first token in the row. */
  offset: number;
  length: number;
}

export interface SuffixRow {
  job: number;
  /** Suffix tokens in the row (sum of the placed lengths). */
  length: number;
  placed: PlacedRequest[];
}

/**
 * Packs every non-empty request of each job into rows of at most `rowTokens` tokens (a request longer
 * than that gets a row of its own), in request order, then orders all rows longest first so that
 * chunks of consecutive rows pad little.
 */
export function packSuffixRows(jobs: readonly (readonly SuffixRequest[])[], rowTokens: number): SuffixRow[] {
  const rows: SuffixRow[] = [];
  jobs.forEach((requests, job) => {
    let row: SuffixRow | null = null;
    requests.forEach(({ suffix }, request) => {
      if (suffix.length === 0) return;
      if (!row || row.length + suffix.length > rowTokens) {
        row = { job, length: 0, placed: [] };
        rows.push(row);
      }
      row.placed.push({ job, request, offset: row.length, length: suffix.length });
      row.length += suffix.length;
    });
  });
  // Stable sort: equal lengths keep job/request order, so the layout is deterministic.
  return rows.sort((a, b) => b.length - a.length);
}

/** The int32/float32 inputs of one chunk of rows, each padded to `width` slots. */
export interface RowTensors {
  tokens: Int32Array; // [R·width]
  positions: Int32Array; // [R·width]
  /** Token each slot predicts (the request's next suffix token; 0 where unused). */
  targets: Int32Array; // [R·width]
  /** Additive attention mask [R, 1, width, cached + width]: 0 = visible, MASKED = hidden. */
  mask: Float32Array;
}

/**
 * Fills the pass-2 inputs for `rows`. `cached` is the number of cached positions each row attends over
 * (the padded sequence length); request r may see cached positions < exitAt and its own slots so far.
 * Padding slots see cached position 0 only, so their softmax stays finite; their outputs are unused.
 */
export function rowTensors(
  rows: readonly SuffixRow[],
  jobs: readonly (readonly SuffixRequest[])[],
  width: number,
  cached: number,
  contextLength: number,
): RowTensors {
  const R = rows.length;
  const span = cached + width;
  const tokens = new Int32Array(R * width);
  const positions = new Int32Array(R * width);
  const targets = new Int32Array(R * width);
  const mask = new Float32Array(R * width * span).fill(MASKED);
  rows.forEach((row, r) => {
    for (let slot = row.length; slot < width; slot++) mask[(r * width + slot) * span] = 0;
    for (const p of row.placed) {
      const { exitAt, suffix } = jobs[p.job][p.request];
      for (let j = 0; j < p.length; j++) {
        const slot = r * width + p.offset + j;
        tokens[slot] = suffix[j];
        positions[slot] = Math.min(exitAt + j, contextLength - 1);
        targets[slot] = j + 1 < p.length ? suffix[j + 1] : 0;
        const m = slot * span;
        mask.fill(0, m, m + exitAt); // the request's prefix
        mask.fill(0, m + cached + p.offset, m + cached + p.offset + j + 1); // its own suffix so far
      }
    }
  });
  return { tokens, positions, targets, mask };
}
