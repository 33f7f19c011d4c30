/*
 * One strided copy serves Transpose, Slice, Concat, SplitV and Tile: each is "walk an N-d shape,
 * reading with one set of strides and writing with another" (Tile uses stride 0 on repeat dims).
 * Elements are 4 bytes (float32 / int32).
 */
#include <string.h>

#include "args.h"
#include "kernels.h"
#include "pool.h"

#define TILE 16

/* The innermost two dims. Row-major walk when the source inner stride is 1, blocked otherwise
   (a transpose of the last two dims), so both sides stay cache friendly. */
static void copy_2d(const float *src, float *dst, int64_t n0, int64_t n1, int64_t s0, int64_t s1, int64_t d0,
                    int64_t d1) {
  if (s1 == 1 && d1 == 1) {
    for (int64_t i = 0; i < n0; i++) memcpy(dst + i * d0, src + i * s0, (size_t)n1 * sizeof(float));
    return;
  }
  if (d1 == 1 && s0 == 1) { /* transpose of a 2-d block: tile it */
    for (int64_t i0 = 0; i0 < n0; i0 += TILE) {
      const int64_t i1 = i0 + TILE < n0 ? i0 + TILE : n0;
      for (int64_t j0 = 0; j0 < n1; j0 += TILE) {
        const int64_t j1 = j0 + TILE < n1 ? j0 + TILE : n1;
        for (int64_t i = i0; i < i1; i++)
          for (int64_t j = j0; j < j1; j++) dst[i * d0 + j] = src[i + j * s1];
      }
    }
    return;
  }
  for (int64_t i = 0; i < n0; i++)
    for (int64_t j = 0; j < n1; j++) dst[i * d0 + j * d1] = src[i * s0 + j * s1];
}

typedef struct {
  const float *src;
  float *dst;
  int r;
  int64_t shape[RRED_MAX_RANK + 2], ss[RRED_MAX_RANK + 2], ds[RRED_MAX_RANK + 2];
  int64_t outer; /* product of the leading r - 2 dims */
} CopyJob;

/* Offsets of leading-dims index o. */
static void outer_offsets(const CopyJob *job, int64_t o, int64_t *so, int64_t *dof) {
  *so = 0, *dof = 0;
  for (int d = job->r - 3; d >= 0; d--) {
    const int64_t i = o % job->shape[d];
    o /= job->shape[d];
    *so += i * job->ss[d], *dof += i * job->ds[d];
  }
}

static void copy_outer(void *ctx, int64_t begin, int64_t end) {
  const CopyJob *job = ctx;
  const int r = job->r;
  for (int64_t o = begin; o < end; o++) {
    int64_t so, dof;
    outer_offsets(job, o, &so, &dof);
    copy_2d(job->src + so, job->dst + dof, job->shape[r - 2], job->shape[r - 1], job->ss[r - 2], job->ss[r - 1],
            job->ds[r - 2], job->ds[r - 1]);
  }
}

/* Rows [begin, end) of the flattened (outer x rows) view, each piece a sub-block of one 2-d copy. */
static void copy_rows(void *ctx, int64_t begin, int64_t end) {
  const CopyJob *job = ctx;
  const int r = job->r;
  const int64_t rows = job->shape[r - 2];
  for (int64_t pos = begin; pos < end;) {
    const int64_t o = pos / rows, i0 = pos % rows;
    const int64_t i1 = (o + 1) * rows < end ? rows : end - o * rows;
    int64_t so, dof;
    outer_offsets(job, o, &so, &dof);
    copy_2d(job->src + so + i0 * job->ss[r - 2], job->dst + dof + i0 * job->ds[r - 2], i1 - i0, job->shape[r - 1],
            job->ss[r - 2], job->ss[r - 1], job->ds[r - 2], job->ds[r - 1]);
    pos += i1 - i0;
  }
}

/* stridedCopy(heap, srcOff, dstOff, meta) with meta = Int32Array [rank, shape[r], srcStrides[r], dstStrides[r]]. */
napi_value rred_strided_copy(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 4) || !args_heap(&a, 0)) return NULL;
  size_t mlen = 0;
  const int32_t *meta = arg_i32array(&a, 3, &mlen);
  if (a.failed) return NULL;
  const int rank = mlen > 0 ? meta[0] : -1;
  if (rank < 0 || rank > RRED_MAX_RANK || mlen != (size_t)(1 + 3 * rank))
    return args_throw(&a, "stridedCopy: malformed meta (expected [rank, shape, srcStrides, dstStrides], rank <= 8)");
  int64_t shape[RRED_MAX_RANK + 2], ss[RRED_MAX_RANK + 2], ds[RRED_MAX_RANK + 2];
  /* Pad to rank >= 2 with leading size-1 dims so the inner 2-d routine always applies. */
  const int pad = rank < 2 ? 2 - rank : 0;
  const int r = rank + pad;
  int64_t srcReach = 1, dstReach = 1;
  for (int d = 0; d < r; d++) {
    if (d < pad) {
      shape[d] = 1, ss[d] = 0, ds[d] = 0;
      continue;
    }
    const int k = d - pad;
    shape[d] = meta[1 + k], ss[d] = meta[1 + rank + k], ds[d] = meta[1 + 2 * rank + k];
    if (shape[d] < 0 || ss[d] < 0 || ds[d] < 0) return args_throw(&a, "stridedCopy: negative shape or stride");
    if (shape[d] == 0) return js_undefined(env); /* empty: nothing to copy */
    srcReach += (shape[d] - 1) * ss[d];
    dstReach += (shape[d] - 1) * ds[d];
  }
  const float *src = arg_heap_ptr(&a, 1, (size_t)srcReach, 4);
  float *dst = arg_heap_ptr(&a, 2, (size_t)dstReach, 4);
  if (a.failed) return NULL;

  CopyJob job = {src, dst, r, {0}, {0}, {0}, 1};
  for (int d = 0; d < r; d++) job.shape[d] = shape[d], job.ss[d] = ss[d], job.ds[d] = ds[d];
  for (int d = 0; d < r - 2; d++) job.outer *= shape[d];
  const int64_t rowLen = shape[r - 1], rows = shape[r - 2];
  if (job.outer >= 4) /* split the leading dims */
    rred_parallel_for(job.outer, 1 + 16384 / (rows * rowLen), copy_outer, &job);
  else /* split the rows of the inner 2-d block */
    rred_parallel_for(job.outer * rows, 1 + 16384 / rowLen, copy_rows, &job);
  return js_undefined(env);
}
