/*
 * One strided copy serves Transpose, Slice, Concat, SplitV and Tile: each is "walk an N-d shape,
 * reading with one set of strides and writing with another" (Tile uses stride 0 on repeat dims).
 * Elements are 4 bytes (float32 / int32).
 */
#include <string.h>

#include "args.h"
#include "kernels.h"

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

  int64_t outer = 1;
  for (int d = 0; d < r - 2; d++) outer *= shape[d];
  int64_t idx[RRED_MAX_RANK + 2] = {0};
  int64_t so = 0, dof = 0;
  for (int64_t o = 0; o < outer; o++) {
    copy_2d(src + so, dst + dof, shape[r - 2], shape[r - 1], ss[r - 2], ss[r - 1], ds[r - 2], ds[r - 1]);
    for (int d = r - 3; d >= 0; d--) { /* odometer over the leading dims */
      idx[d]++, so += ss[d], dof += ds[d];
      if (idx[d] < shape[d]) break;
      so -= ss[d] * shape[d], dof -= ds[d] * shape[d], idx[d] = 0;
    }
  }
  return js_undefined(env);
}
