/**
 * Shape bookkeeping for the native kernels: every kernel is first reduced to the fewest, longest
 * dimensions (size-1 dims dropped, adjacent dims merged when memory allows) so the C loops stay simple.
 */

export function sizeOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Row-major strides in elements. */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

/** Pads a shape with leading 1s to `rank`. */
function leftPad(shape: readonly number[], rank: number): number[] {
  return [...new Array<number>(rank - shape.length).fill(1), ...shape];
}

/**
 * Iteration meta for a broadcasting binary op: [rank, outShape[r], aStrides[r], bStrides[r]], with
 * broadcast dims at stride 0 and mergeable neighbours merged. The innermost stride of each operand
 * is then 0 or 1, which is what the C kernel specialises on.
 */
export function broadcastMeta(aShape: readonly number[], bShape: readonly number[], outShape: readonly number[]): Int32Array {
  const r = outShape.length;
  const a = leftPad(aShape, r);
  const b = leftPad(bShape, r);
  const ac = contiguousStrides(a);
  const bc = contiguousStrides(b);
  const dims: { n: number; sa: number; sb: number }[] = [];
  for (let d = 0; d < r; d++) {
    if (outShape[d] === 1) continue;
    dims.push({ n: outShape[d], sa: a[d] === 1 ? 0 : ac[d], sb: b[d] === 1 ? 0 : bc[d] });
  }
  const merged: { n: number; sa: number; sb: number }[] = [];
  for (const dim of dims) {
    const prev = merged[merged.length - 1];
    // Dims merge when, for both operands, stepping the outer dim equals stepping past the whole inner dim.
    if (prev && prev.sa === dim.sa * dim.n && prev.sb === dim.sb * dim.n) {
      prev.n *= dim.n;
      prev.sa = dim.sa;
      prev.sb = dim.sb;
    } else {
      merged.push({ ...dim });
    }
  }
  return packDimsMeta(
    merged.map((m) => m.n),
    merged.map((m) => m.sa),
    merged.map((m) => m.sb),
  );
}

/**
 * Strided-copy meta for a transpose: [rank, outShape, srcStrides, dstStrides] after dropping size-1
 * dims and merging input dims that stay adjacent and in order under the permutation.
 */
export function transposeMeta(shape: readonly number[], perm: readonly number[]): Int32Array {
  const kept: number[] = [];
  const newIndex = new Map<number, number>();
  shape.forEach((n, d) => {
    if (n !== 1) {
      newIndex.set(d, kept.length);
      kept.push(n);
    }
  });
  const p = perm.filter((d) => shape[d] !== 1).map((d) => newIndex.get(d) as number);
  // Runs of consecutive input dims in output order become one dim.
  const groups: { first: number; last: number }[] = [];
  for (const d of p) {
    const g = groups[groups.length - 1];
    if (g && d === g.last + 1) g.last = d;
    else groups.push({ first: d, last: d });
  }
  const byInput = [...groups].sort((x, y) => x.first - y.first);
  const groupSize = (g: { first: number; last: number }) => sizeOf(kept.slice(g.first, g.last + 1));
  const inStrides = contiguousStrides(byInput.map(groupSize));
  const strideOf = new Map(byInput.map((g, i) => [g, inStrides[i]]));
  const outShape = groups.map(groupSize);
  return packDimsMeta(
    outShape,
    groups.map((g) => strideOf.get(g) as number),
    contiguousStrides(outShape),
  );
}

interface ReduceLayout {
  /** The input viewed as [outer, red, inner]; null when the reduced axes are not one block. */
  block: { outer: number; red: number; inner: number } | null;
  /** Otherwise: transpose with this perm (kept axes first, reduced last), then reduce [outer, red, 1]. */
  perm: number[];
  outer: number;
  red: number;
}

/** How to reduce `axes` of `shape` with the [outer, red, inner] kernel. */
export function reduceLayout(shape: readonly number[], axes: readonly number[]): ReduceLayout {
  const isReduced = shape.map((_, d) => axes.includes(d));
  const red = sizeOf(shape.filter((_, d) => isReduced[d]));
  const outer = sizeOf(shape.filter((_, d) => !isReduced[d]));
  const perm = [...shape.keys()].filter((d) => !isReduced[d]).concat([...shape.keys()].filter((d) => isReduced[d]));
  // Size-1 dims can sit anywhere; the reduced axes form one block if the remaining ones are consecutive.
  const live = shape.map((n, d) => d).filter((d) => shape[d] !== 1);
  const liveReduced = live.filter((d) => isReduced[d]);
  if (liveReduced.length === 0) return { block: { outer, red: 1, inner: 1 }, perm, outer, red };
  const first = live.indexOf(liveReduced[0]);
  const last = live.indexOf(liveReduced[liveReduced.length - 1]);
  if (last - first + 1 !== liveReduced.length) return { block: null, perm, outer, red };
  const before = sizeOf(live.slice(0, first).map((d) => shape[d]));
  const after = sizeOf(live.slice(last + 1).map((d) => shape[d]));
  return { block: { outer: before, red, inner: after }, perm, outer, red };
}

/**
 * For each batch of a broadcast matmul, which batch of `a` and of `b` it reads
 * (outer dims right-aligned, size-1 dims broadcast).
 */
export function batchIndexMaps(
  aOuter: readonly number[],
  bOuter: readonly number[],
  outOuter: readonly number[],
): { aIdx: Int32Array; bIdx: Int32Array } {
  const n = sizeOf(outOuter);
  const r = outOuter.length;
  const a = leftPad(aOuter, r);
  const b = leftPad(bOuter, r);
  const as = contiguousStrides(a);
  const bs = contiguousStrides(b);
  const aIdx = new Int32Array(n);
  const bIdx = new Int32Array(n);
  const coord = new Array<number>(r).fill(0);
  for (let i = 0; i < n; i++) {
    let ai = 0;
    let bi = 0;
    for (let d = 0; d < r; d++) {
      if (a[d] !== 1) ai += coord[d] * as[d];
      if (b[d] !== 1) bi += coord[d] * bs[d];
    }
    aIdx[i] = ai;
    bIdx[i] = bi;
    for (let d = r - 1; d >= 0; d--) {
      if (++coord[d] < outOuter[d]) break;
      coord[d] = 0;
    }
  }
  return { aIdx, bIdx };
}

/**
 * The layout every native strided kernel reads: [rank, n[rank], first strides[rank], second strides[rank]]
 * (for copies: source then destination strides; for broadcasting ops: a's then b's).
 */
export function packDimsMeta(n: readonly number[], first: readonly number[], second: readonly number[]): Int32Array {
  const k = n.length;
  if (first.length !== k || second.length !== k)
    throw new Error(`packDimsMeta: ${k} dims but ${first.length} and ${second.length} strides`);
  const meta = new Int32Array(1 + 3 * k);
  meta[0] = k;
  meta.set(n, 1);
  meta.set(first, 1 + k);
  meta.set(second, 1 + 2 * k);
  return meta;
}
