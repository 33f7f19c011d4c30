import { Rng } from '@rred/core';
import { batchIndexMaps, broadcastMeta, contiguousStrides, reduceLayout, sizeOf, transposeMeta } from './shape-math';

/** Walks a [rank, shape, s1, s2] meta the way the C kernels do; returns the (s1, s2) offsets per output element. */
function walk(meta: Int32Array): [number, number][] {
  const r = meta[0];
  const shape = Array.from(meta.slice(1, 1 + r));
  const s1 = Array.from(meta.slice(1 + r, 1 + 2 * r));
  const s2 = Array.from(meta.slice(1 + 2 * r));
  const out: [number, number][] = [];
  const n = sizeOf(shape);
  const idx = new Array<number>(r).fill(0);
  for (let i = 0; i < n; i++) {
    out.push([idx.reduce((acc, v, d) => acc + v * s1[d], 0), idx.reduce((acc, v, d) => acc + v * s2[d], 0)]);
    for (let d = r - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/** Flat index of `coord` (of the output) in a broadcast operand of shape `shape`. */
function broadcastIndex(coord: number[], shape: number[]): number {
  const pad = coord.length - shape.length;
  const strides = contiguousStrides(shape);
  return shape.reduce((acc, n, d) => acc + (n === 1 ? 0 : coord[pad + d] * strides[d]), 0);
}

function unravel(i: number, shape: number[]): number[] {
  const coord = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    coord[d] = i % shape[d];
    i = Math.floor(i / shape[d]);
  }
  return coord;
}

function randomShape(rng: Rng, rank: number, maxDim = 4): number[] {
  return Array.from({ length: rank }, () => rng.int(1, maxDim));
}

describe('broadcastMeta', () => {
  it('visits the same operand elements as naive broadcasting, with inner strides 0 or 1', () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 300; trial++) {
      const rank = rng.int(0, 5);
      const out = randomShape(rng, rank);
      const a = out.slice(rng.int(0, rank)).map((n) => (rng.next() < 0.4 ? 1 : n));
      const b = out.slice(rng.int(0, rank)).map((n) => (rng.next() < 0.4 ? 1 : n));
      const outShape = out.map((n, d) => Math.max(a[d - (rank - a.length)] ?? 1, b[d - (rank - b.length)] ?? 1));
      const meta = broadcastMeta(a, b, outShape);
      const r = meta[0];
      if (r > 0) {
        expect([0, 1]).toContain(meta[2 * r]);
        expect([0, 1]).toContain(meta[3 * r]);
      }
      const visited = walk(meta);
      expect(visited.length).toBe(sizeOf(outShape));
      visited.forEach(([ia, ib], i) => {
        const coord = unravel(i, outShape);
        expect([ia, ib]).toEqual([broadcastIndex(coord, a), broadcastIndex(coord, b)]);
      });
    }
  });

  it('merges a same-shape op into one dim and keeps a row broadcast at two', () => {
    expect(Array.from(broadcastMeta([2, 3, 4], [2, 3, 4], [2, 3, 4]))).toEqual([1, 24, 1, 1]);
    expect(Array.from(broadcastMeta([6, 4], [4], [6, 4]))).toEqual([2, 6, 4, 4, 1, 0, 1]);
  });
});

describe('transposeMeta', () => {
  it('reads the element that a naive transpose reads, for random permutations', () => {
    const rng = new Rng(12);
    for (let trial = 0; trial < 300; trial++) {
      const rank = rng.int(1, 6);
      const shape = randomShape(rng, rank, rank > 4 ? 3 : 4);
      const perm = rng.shuffle([...shape.keys()]);
      const outShape = perm.map((p) => shape[p]);
      const inStrides = contiguousStrides(shape);
      const visited = walk(transposeMeta(shape, perm));
      expect(visited.length).toBe(sizeOf(shape));
      visited.forEach(([src, dst], i) => {
        const coord = unravel(i, outShape);
        expect(dst).toBe(i);
        expect(src).toBe(coord.reduce((acc, c, d) => acc + c * inStrides[perm[d]], 0));
      });
    }
  });

  it('collapses a head transpose [B,T,H,dh] -> [B,H,T,dh] to three dims with a contiguous inner run', () => {
    const meta = transposeMeta([2, 5, 3, 4], [0, 2, 1, 3]);
    expect(meta[0]).toBe(4);
    expect(Array.from(transposeMeta([3, 4], [0, 1]))).toEqual([1, 12, 1, 1]);
  });
});

describe('reduceLayout', () => {
  it('finds the [outer, red, inner] block when the reduced axes are adjacent (ignoring size-1 dims)', () => {
    expect(reduceLayout([4, 5, 6], [2]).block).toEqual({ outer: 20, red: 6, inner: 1 });
    expect(reduceLayout([4, 5, 6], [0]).block).toEqual({ outer: 1, red: 4, inner: 30 });
    expect(reduceLayout([4, 1, 6], [0, 2]).block).toEqual({ outer: 1, red: 24, inner: 1 });
    expect(reduceLayout([4, 5, 6], [0, 2]).block).toBeNull();
    expect(reduceLayout([4, 5, 6], [0, 2]).perm).toEqual([1, 0, 2]);
  });
});

describe('batchIndexMaps', () => {
  it('maps each output batch to the broadcast batches of a and b', () => {
    const { aIdx, bIdx } = batchIndexMaps([2, 1], [1, 3], [2, 3]);
    expect(Array.from(aIdx)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(Array.from(bIdx)).toEqual([0, 1, 2, 0, 1, 2]);
    const right = batchIndexMaps([4], [3, 4], [3, 4]);
    expect(Array.from(right.aIdx)).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
    expect(Array.from(right.bIdx)).toEqual([...Array(12).keys()]);
  });
});
