/*
 * Attention of new positions over cached ones, for inference (the scorer's pass 2, the sampler's
 * decode step): for every batch row b and head h,
 *   p   = softmax(scale · q · [kPast; kNew]ᵀ + mask)      [S, T + S]
 *   out = p · [vPast; vNew]                               [S, dh]
 * without concatenating the cached and new keys/values, scaling q, adding the mask or taking the
 * softmax as separate tensors. The (b, h) pairs are split across the engine's pool, OpenBLAS on one
 * thread per pair (the products are far below its own threading threshold).
 * Shapes: q, kNew, vNew [B, H, S, dh]; kPast, vPast [pastB, H, slots, dh] of which the first T slots
 * are cached (pastB 1: one prefix shared by every row); mask [maskB, 1, S, T + S] (maskB 1: the same for
 * every row); out [B, H, S, dh]. With append, the new keys/values are also written into slots T.. of
 * kPast/vPast in place: the sampler's preallocated cache grows without a copy of what it holds.
 * S = 1 (a decode step) uses matrix-vector products: sgemm with one query row packs all T cached keys
 * per call, which cost as much as the product itself.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fastmath.h"
#include "kernels.h"
#include "pool.h"

extern void openblas_set_num_threads(int num_threads);
extern int openblas_get_num_threads(void);

typedef struct {
  const float *q, *kp, *vp, *kn, *vn, *mask;
  float *out;
  int64_t H, S, T, dh, pastB, maskB;
  int64_t slots; /* positions allocated per (row, head) in kPast/vPast (≥ T) */
  float scale;
} AttendJob;

/* Row softmax in place after adding the mask row; a NaN anywhere makes the row NaN (as Softmax does). */
static void masked_softmax_row(float *restrict p, const float *restrict m, int64_t n) {
  float mx = -INFINITY;
  int nan = 0;
  for (int64_t c = 0; c < n; c++) {
    const float x = p[c] + m[c];
    p[c] = x;
    mx = x > mx ? x : mx;
    nan |= x != x;
  }
  if (nan) {
    for (int64_t c = 0; c < n; c++) p[c] = NAN;
    return;
  }
  float s = 0.0f;
  for (int64_t c = 0; c < n; c++) {
    p[c] = rred_expf(p[c] - mx);
    s += p[c];
  }
  const float inv = 1.0f / s;
  for (int64_t c = 0; c < n; c++) p[c] *= inv;
}

static void attend_chunk(void *ctx, int64_t begin, int64_t end) {
  const AttendJob *j = ctx;
  const int64_t S = j->S, T = j->T, dh = j->dh, W = T + S;
  float *p = malloc((size_t)(S * W) * sizeof(float));
  if (!p) abort(); /* S·(T+S) floats; the heap the tensors live on is far larger */
  for (int64_t bh = begin; bh < end; bh++) {
    const int64_t b = bh / j->H, h = bh % j->H;
    const int64_t past = ((j->pastB == 1 ? 0 : b) * j->H + h) * j->slots * dh;
    const float *q = j->q + bh * S * dh, *kn = j->kn + bh * S * dh, *vn = j->vn + bh * S * dh;
    const float *m = j->mask + (j->maskB == 1 ? 0 : b) * S * W;
    float *o = j->out + bh * S * dh;
    if (S == 1) { /* a decode step: matrix-vector products (sgemm would pack all T cached keys for one query) */
      if (T > 0) cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)T, (int)dh, j->scale, j->kp + past, (int)dh, q, 1, 0.0f, p, 1);
      float self = 0.0f;
      for (int64_t d = 0; d < dh; d++) self += q[d] * kn[d];
      p[T] = j->scale * self;
      masked_softmax_row(p, m, W);
      if (T > 0) cblas_sgemv(CblasRowMajor, CblasTrans, (int)T, (int)dh, 1.0f, j->vp + past, (int)dh, p, 1, 0.0f, o, 1);
      for (int64_t d = 0; d < dh; d++) o[d] = (T > 0 ? o[d] : 0.0f) + p[T] * vn[d];
      continue;
    }
    if (T > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)T, (int)dh, j->scale, q, (int)dh, j->kp + past, (int)dh,
                  0.0f, p, (int)W);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)S, (int)dh, j->scale, q, (int)dh, kn, (int)dh, 0.0f, p + T,
                (int)W);
    for (int64_t r = 0; r < S; r++) masked_softmax_row(p + r * W, m + r * W, W);
    if (T > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)S, (int)dh, (int)T, 1.0f, p, (int)W, j->vp + past, (int)dh, 0.0f,
                  o, (int)dh);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)S, (int)dh, (int)S, 1.0f, p + T, (int)W, vn, (int)dh,
                T > 0 ? 1.0f : 0.0f, o, (int)dh);
  }
  free(p);
}

/* Copies the new keys and values of every (row, head) into slots T..T+S−1 of its cached ones. */
static void append_chunk(void *ctx, int64_t begin, int64_t end) {
  const AttendJob *j = ctx;
  const int64_t n = j->S * j->dh;
  for (int64_t bh = begin; bh < end; bh++) {
    const int64_t at = (bh * j->slots + j->T) * j->dh;
    memcpy((float *)j->kp + at, j->kn + bh * n, (size_t)n * sizeof(float));
    memcpy((float *)j->vp + at, j->vn + bh * n, (size_t)n * sizeof(float));
  }
}

/*
 * attendPast(heap, qOff, kPastOff, vPastOff, kNewOff, vNewOff, maskOff, outOff, B, H, S, T, dh, pastB, maskB, scale,
 *            slots, append)
 * slots: positions allocated per (row, head) in kPast/vPast, of which the first T are cached. append = 1 (pastB = B,
 * slots ≥ T + S): first write the new keys/values into slots T..T+S−1, in place (a cache the caller owns).
 */
napi_value rred_attend_past(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 18) || !args_heap(&a, 0)) return NULL;
  const int64_t B = arg_int(&a, 8), H = arg_int(&a, 9), S = arg_int(&a, 10), T = arg_int(&a, 11), dh = arg_int(&a, 12);
  const int64_t pastB = arg_int(&a, 13), maskB = arg_int(&a, 14);
  const float scale = (float)arg_num(&a, 15);
  const int64_t slots = arg_int(&a, 16);
  const int append = arg_int(&a, 17) != 0;
  if (a.failed) return NULL;
  if (B < 0 || H < 1 || S < 0 || T < 0 || dh < 1 || (pastB != 1 && pastB != B) || (maskB != 1 && maskB != B) || slots < T ||
      (append && (pastB != B || slots < T + S)))
    return args_throw(&a, "attendPast: inconsistent shapes");
  const size_t rows = (size_t)(B * H * S * dh), pastRows = (size_t)(pastB * H * slots * dh);
  AttendJob job = {
      arg_heap_ptr(&a, 1, rows, 4),
      arg_heap_ptr(&a, 2, pastRows, 4),
      arg_heap_ptr(&a, 3, pastRows, 4),
      arg_heap_ptr(&a, 4, rows, 4),
      arg_heap_ptr(&a, 5, rows, 4),
      arg_heap_ptr(&a, 6, (size_t)(maskB * S * (T + S)), 4),
      arg_heap_ptr(&a, 7, rows, 4),
      H, S, T, dh, pastB, maskB, slots, scale,
  };
  if (a.failed) return NULL;
  if (B == 0 || S == 0) return js_undefined(env);
  if (append) rred_parallel_for(B * H, 64, append_chunk, &job);
  const int blasThreads = openblas_get_num_threads();
  if (blasThreads > 1) openblas_set_num_threads(1);
  const int64_t perPair = S * (T + S) * dh * 2;
  rred_parallel_for(B * H, 1 + 65536 / (perPair > 0 ? perPair : 1), attend_chunk, &job);
  if (blasThreads > 1) openblas_set_num_threads(blasThreads);
  return js_undefined(env);
}
