/*
 * Attention of new positions over cached ones, for inference (the scorer's pass 2, the sampler's
 * decode step): for every batch row b and head h,
 *   p   = softmax(scale · q · [kPast; kNew]ᵀ + mask)      [S, T + S]
 *   out = p · [vPast; vNew]                               [S, dh]
 * without concatenating the cached and new keys/values, scaling q, adding the mask or taking the
 * softmax as separate tensors. The (b, h) pairs are split across the engine's pool, OpenBLAS on one
 * thread (as everywhere: blas.c).
 * Shapes: the new positions' q, kNew, vNew are the head columns of qkv [B·S, 3C] (C = H·dh: row b·S + s
 * holds q ++ k ++ v of position s of row b), as the QKV projection writes them; kPast, vPast
 * [pastB, H, slots, dh] of which the first T slots are cached (pastB 1: one prefix shared by every row);
 * mask [maskB, 1, S, T + S] (maskB 1: the same for every row); out [B·S, C], heads merged. No head
 * split or merge copies. With append, the new keys/values are also written into slots T.. of
 * kPast/vPast in place: the sampler's preallocated cache grows without a copy of what it holds.
 * S = 1 (a decode step) uses matrix-vector products: sgemm with one query row packs all T cached keys
 * per call, which cost as much as the product itself.
 * Ragged rows (the scorer's packed pass 2): rows [B, 2] gives each batch row's first packed token and
 * its count n_b ≤ S; qkv is then [N, 3C] and out [N, C] (packed tokens, row b's at start_b..start_b+n_b−1),
 * and row b has n_b queries and new keys, its mask the first n_b rows and the columns [0, T) ∪ [T, T + n_b)
 * of its [S, T + S] block. The padding slots of a row are neither computed nor read.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fastmath.h"
#include "kernels.h"
#include "pool.h"

typedef struct {
  const float *qkv, *kp, *vp, *mask;
  const int32_t *rows; /* ragged rows: [B, 2] (first packed token, count), or NULL (S slots per row) */
  float *out;
  int64_t H, S, T, dh, pastB, maskB;
  int64_t slots; /* positions allocated per (row, head) in kPast/vPast (≥ T) */
  float scale;
} AttendJob;

/* Row softmax in place after adding the mask row; a NaN anywhere makes the row NaN (as Softmax does).
   The reductions are `omp simd` loops (-fopenmp-simd: vectorized, no runtime): without it gcc keeps a
   float max or sum scalar to preserve its order, and this row loop was the larger part of the forward. */
static void masked_softmax_row(float *restrict p, const float *restrict m, int64_t n) {
  float top = -INFINITY;
  int nan = 0;
#pragma omp simd reduction(max : top) reduction(| : nan)
  for (int64_t c = 0; c < n; c++) {
    const float x = p[c] + m[c];
    p[c] = x;
    top = x > top ? x : top;
    nan |= x != x;
  }
  if (nan) {
    for (int64_t c = 0; c < n; c++) p[c] = NAN;
    return;
  }
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < n; c++) {
    const float e = rred_expf(p[c] - top);
    p[c] = e;
    s += e;
  }
  const float inv = 1.0f / s;
  for (int64_t c = 0; c < n; c++) p[c] *= inv;
}

/* Σ a[c]·b[c], c < n (a vectorized reduction). */
static float dot(const float *restrict a, const float *restrict b, int64_t n) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < n; c++) s += a[c] * b[c];
  return s;
}

/*
 * Runs fn over `pairs` (row, head) pairs on the kernel pool (OpenBLAS is on one thread: blas.c).
 * `perPair`: multiply-adds of one pair, for the chunk size.
 */
static void run_pairs(int64_t pairs, int64_t perPair, rred_chunk_fn fn, void *job) {
  rred_parallel_for(pairs, 1 + 65536 / (perPair > 0 ? perPair : 1), fn, job);
}

/*
 * A mask entry at or below this hides its key: the key's weight is exactly 0 (exp underflows to 0 for
 * every finite score), so the key can be left out of the products. MASKED (-1e9) in @rred/lm is below it.
 */
#define HIDDEN_AT (-1e8f)

/*
 * The keys a pair's n queries can see, from its mask m (n rows W = T + S apart; new keys at columns T..T+n−1):
 * *tv = 1 + the last cached key (< T) and *sv = 1 + the last new key any query sees (0 if none). Keys past
 * them are hidden from every query and are not computed; hidden keys before them are (their weight is 0
 * either way). When some query sees no key at all, the full ranges (then every key gets the same weight,
 * as softmax of a row of equal values gives).
 */
static void visible_keys(const float *m, int64_t n, int64_t T, int64_t W, int64_t *tv, int64_t *sv) {
  int64_t lastPast = -1, lastNew = -1;
  for (int64_t r = 0; r < n; r++) {
    const float *row = m + r * W;
    int64_t c = T + n - 1;
    while (c >= T && row[c] <= HIDDEN_AT) c--;
    if (c >= T && c - T > lastNew) lastNew = c - T;
    int64_t p = T - 1;
    while (p >= 0 && row[p] <= HIDDEN_AT) p--;
    if (p > lastPast) lastPast = p;
    if (c < T && p < 0) { /* this query sees nothing */
      *tv = T, *sv = n;
      return;
    }
  }
  *tv = lastPast + 1, *sv = lastNew + 1;
}

static void attend_chunk(void *ctx, int64_t begin, int64_t end) {
  const AttendJob *j = ctx;
  const int64_t S = j->S, T = j->T, dh = j->dh, W = T + S, C = j->H * dh, ld = 3 * C;
  float *p = malloc((size_t)(S * W + W) * sizeof(float));
  if (!p) abort(); /* S·(T+S) floats and a mask row; the heap the tensors live on is far larger */
  float *mrow = p + S * W;
  for (int64_t bh = begin; bh < end; bh++) {
    const int64_t b = bh / j->H, h = bh % j->H;
    const int64_t past = ((j->pastB == 1 ? 0 : b) * j->H + h) * j->slots * dh;
    const int64_t first = j->rows ? j->rows[2 * b] : b * S, n = j->rows ? j->rows[2 * b + 1] : S; /* this row's tokens in qkv/out */
    const float *q = j->qkv + first * ld + h * dh, *kn = q + C, *vn = q + 2 * C; /* rows ld apart */
    const float *m = j->mask + (j->maskB == 1 ? 0 : b) * S * W;
    float *o = j->out + first * C + h * dh; /* rows C apart */
    if (n == 0) continue;
    if (S == 1) { /* a decode step: matrix-vector products (sgemm would pack all T cached keys for one query) */
      if (T > 0) cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)T, (int)dh, j->scale, j->kp + past, (int)dh, q, 1, 0.0f, p, 1);
      p[T] = j->scale * dot(q, kn, dh);
      masked_softmax_row(p, m, W);
      if (T > 0) cblas_sgemv(CblasRowMajor, CblasTrans, (int)T, (int)dh, 1.0f, j->vp + past, (int)dh, p, 1, 0.0f, o, 1);
      for (int64_t d = 0; d < dh; d++) o[d] = (T > 0 ? o[d] : 0.0f) + p[T] * vn[d];
      continue;
    }
    /* Several queries (the scorer's suffix rows): only the keys some query sees, tv cached and sv new
       ones; p [n, tv + sv] holds the cached keys' scores, then the new keys'. */
    int64_t tv, sv;
    visible_keys(m, n, T, W, &tv, &sv);
    const int64_t wv = tv + sv;
    if (tv > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)tv, (int)dh, j->scale, q, (int)ld, j->kp + past, (int)dh,
                  0.0f, p, (int)wv);
    if (sv > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)sv, (int)dh, j->scale, q, (int)ld, kn, (int)ld, 0.0f,
                  p + tv, (int)wv);
    for (int64_t r = 0; r < n; r++) {
      memcpy(mrow, m + r * W, (size_t)tv * sizeof(float));
      memcpy(mrow + tv, m + r * W + T, (size_t)sv * sizeof(float));
      masked_softmax_row(p + r * wv, mrow, wv);
    }
    if (tv > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dh, (int)tv, 1.0f, p, (int)wv, j->vp + past, (int)dh, 0.0f,
                  o, (int)C);
    if (sv > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dh, (int)sv, 1.0f, p + tv, (int)wv, vn, (int)ld,
                  tv > 0 ? 1.0f : 0.0f, o, (int)C);
  }
  free(p);
}

/* Copies the new keys and values of every (row, head) from qkv into slots T..T+S−1 of its cached ones. */
static void append_chunk(void *ctx, int64_t begin, int64_t end) {
  const AttendJob *j = ctx;
  const int64_t S = j->S, dh = j->dh, C = j->H * dh, ld = 3 * C;
  for (int64_t bh = begin; bh < end; bh++) {
    const int64_t b = bh / j->H, h = bh % j->H;
    const float *kn = j->qkv + b * S * ld + C + h * dh, *vn = kn + C;
    for (int64_t s = 0; s < S; s++) {
      const int64_t at = (bh * j->slots + j->T + s) * dh;
      memcpy((float *)j->kp + at, kn + s * ld, (size_t)dh * sizeof(float));
      memcpy((float *)j->vp + at, vn + s * ld, (size_t)dh * sizeof(float));
    }
  }
}

/*
 * attendPast(heap, qkvOff, kPastOff, vPastOff, maskOff, outOff, B, H, S, T, dh, pastB, maskB, scale, slots, append, rowsOff, N)
 * slots: positions allocated per (row, head) in kPast/vPast, of which the first T are cached. append = 1 (pastB = B,
 * slots ≥ T + S): first write the new keys/values into slots T..T+S−1, in place (a cache the caller owns).
 * rowsOff ≥ 0: ragged rows, int32 [B, 2] (first packed token, count ≤ S) over N packed tokens (no append); −1: none.
 */
napi_value rred_attend_past(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 18) || !args_heap(&a, 0)) return NULL;
  const int64_t B = arg_int(&a, 6), H = arg_int(&a, 7), S = arg_int(&a, 8), T = arg_int(&a, 9), dh = arg_int(&a, 10);
  const int64_t pastB = arg_int(&a, 11), maskB = arg_int(&a, 12);
  const float scale = (float)arg_num(&a, 13);
  const int64_t slots = arg_int(&a, 14);
  const int append = arg_int(&a, 15) != 0;
  const int ragged = arg_int(&a, 16) >= 0;
  const int64_t N = ragged ? arg_int(&a, 17) : B * S; /* tokens in qkv and out */
  if (a.failed) return NULL;
  if (B < 0 || H < 1 || S < 0 || T < 0 || dh < 1 || (pastB != 1 && pastB != B) || (maskB != 1 && maskB != B) || slots < T ||
      (append && (pastB != B || slots < T + S || ragged)) || N < 0)
    return args_throw(&a, "attendPast: inconsistent shapes");
  const size_t C = (size_t)(H * dh), pastRows = (size_t)(pastB * H * slots * dh);
  const int32_t *rows = ragged ? arg_heap_ptr(&a, 16, (size_t)(2 * B), 4) : NULL;
  AttendJob job = {
      arg_heap_ptr(&a, 1, (size_t)N * 3 * C, 4),
      arg_heap_ptr(&a, 2, pastRows, 4),
      arg_heap_ptr(&a, 3, pastRows, 4),
      arg_heap_ptr(&a, 4, (size_t)(maskB * S * (T + S)), 4),
      rows,
      arg_heap_ptr(&a, 5, (size_t)N * C, 4),
      H, S, T, dh, pastB, maskB, slots, scale,
  };
  if (a.failed) return NULL;
  if (rows)
    for (int64_t b = 0; b < B; b++)
      if (rows[2 * b] < 0 || rows[2 * b + 1] < 0 || rows[2 * b + 1] > S || rows[2 * b] + rows[2 * b + 1] > N)
        return args_throw(&a, "attendPast: a ragged row is outside the packed tokens or wider than S");
  if (B == 0 || S == 0) return js_undefined(env);
  if (append) rred_parallel_for(B * H, 64, append_chunk, &job);
  run_pairs(B * H, S * (T + S) * dh * 2, attend_chunk, &job);
  return js_undefined(env);
}

/*
 * Self-attention of a pass from scratch, straight from the fused QKV projection (training forward,
 * prefill, the scorer's pass 1): for every row b and head h, with Q, K, V the head's columns of
 * qkv [B·S, 3C] (C = H·dh),
 *   P = softmax(scale · Q·Kᵀ + mask)   [S, S], kept for the gradient in probs [B, H, S, S]
 *   out[b, :, h·dh..] = P · V          out [B·S, C], heads already merged
 * mask [maskB, 1, S, S] (maskB 1: the same for every row). No transposes, no split, no score tensors.
 */
typedef struct {
  const float *qkv, *mask, *dout;
  float *out, *probs, *dqkv;
  int64_t H, S, dh, maskB;
  float scale;
} SelfJob;

static void self_chunk(void *ctx, int64_t begin, int64_t end) {
  const SelfJob *j = ctx;
  const int64_t S = j->S, dh = j->dh, C = j->H * dh, ld = 3 * C;
  for (int64_t bh = begin; bh < end; bh++) {
    const int64_t b = bh / j->H, h = bh % j->H;
    const float *q = j->qkv + b * S * ld + h * dh, *k = q + C, *v = q + 2 * C;
    float *p = j->probs + bh * S * S;
    const float *m = j->mask + (j->maskB == 1 ? 0 : b) * S * S;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)S, (int)dh, j->scale, q, (int)ld, k, (int)ld, 0.0f, p, (int)S);
    for (int64_t r = 0; r < S; r++) masked_softmax_row(p + r * S, m + r * S, S);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)S, (int)dh, (int)S, 1.0f, p, (int)S, v, (int)ld, 0.0f,
                j->out + b * S * C + h * dh, (int)C);
  }
}

/*
 * Its gradient, given dOut [B·S, C] and the forward's probs: per (b, h), into the head's columns of dqkv [B·S, 3C],
 *   dV = Pᵀ·dO,  dP = dO·Vᵀ,  dS = P ⊙ (dP − rowsum(P ⊙ dP)),  dQ = scale·dS·K,  dK = scale·dSᵀ·Q.
 * Masked entries have P = 0, so they pass no gradient. The mask gets none (it is a constant).
 */
static void self_grad_chunk(void *ctx, int64_t begin, int64_t end) {
  const SelfJob *j = ctx;
  const int64_t S = j->S, dh = j->dh, C = j->H * dh, ld = 3 * C;
  float *ds = malloc((size_t)(S * S) * sizeof(float));
  if (!ds) abort(); /* S·S floats; the heap the tensors live on is far larger */
  for (int64_t bh = begin; bh < end; bh++) {
    const int64_t b = bh / j->H, h = bh % j->H;
    const float *q = j->qkv + b * S * ld + h * dh, *k = q + C, *v = q + 2 * C;
    const float *p = j->probs + bh * S * S;
    const float *dO = j->dout + b * S * C + h * dh;
    float *dq = j->dqkv + b * S * ld + h * dh, *dk = dq + C, *dv = dq + 2 * C;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)S, (int)dh, (int)S, 1.0f, p, (int)S, dO, (int)C, 0.0f, dv, (int)ld);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)S, (int)dh, 1.0f, dO, (int)C, v, (int)ld, 0.0f, ds, (int)S);
    for (int64_t r = 0; r < S; r++) {
      const float *pr = p + r * S;
      float *dr = ds + r * S;
      const float d = dot(pr, dr, S);
      for (int64_t c = 0; c < S; c++) dr[c] = pr[c] * (dr[c] - d);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)S, (int)dh, (int)S, j->scale, ds, (int)S, k, (int)ld, 0.0f, dq, (int)ld);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)S, (int)dh, (int)S, j->scale, ds, (int)S, q, (int)ld, 0.0f, dk, (int)ld);
  }
  free(ds);
}

/* selfAttention(heap, qkvOff, maskOff, outOff, probsOff, B, H, S, dh, maskB, scale) */
napi_value rred_self_attention(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 11) || !args_heap(&a, 0)) return NULL;
  const int64_t B = arg_int(&a, 5), H = arg_int(&a, 6), S = arg_int(&a, 7), dh = arg_int(&a, 8), maskB = arg_int(&a, 9);
  const float scale = (float)arg_num(&a, 10);
  if (a.failed) return NULL;
  if (B < 0 || H < 1 || S < 0 || dh < 1 || (maskB != 1 && maskB != B)) return args_throw(&a, "selfAttention: inconsistent shapes");
  const size_t C = (size_t)(H * dh);
  SelfJob job = {arg_heap_ptr(&a, 1, (size_t)(B * S) * 3 * C, 4), arg_heap_ptr(&a, 2, (size_t)(maskB * S * S), 4), NULL,
                 arg_heap_ptr(&a, 3, (size_t)(B * S) * C, 4), arg_heap_ptr(&a, 4, (size_t)(B * H * S * S), 4), NULL, H, S, dh, maskB,
                 scale};
  if (a.failed) return NULL;
  if (B > 0 && S > 0) run_pairs(B * H, S * S * dh * 2, self_chunk, &job);
  return js_undefined(env);
}

/* selfAttentionGrad(heap, qkvOff, probsOff, dOutOff, dQkvOff, B, H, S, dh, scale) */
napi_value rred_self_attention_grad(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 10) || !args_heap(&a, 0)) return NULL;
  const int64_t B = arg_int(&a, 5), H = arg_int(&a, 6), S = arg_int(&a, 7), dh = arg_int(&a, 8);
  const float scale = (float)arg_num(&a, 9);
  if (a.failed) return NULL;
  if (B < 0 || H < 1 || S < 0 || dh < 1) return args_throw(&a, "selfAttentionGrad: inconsistent shapes");
  const size_t C = (size_t)(H * dh);
  SelfJob job = {arg_heap_ptr(&a, 1, (size_t)(B * S) * 3 * C, 4), NULL, arg_heap_ptr(&a, 3, (size_t)(B * S) * C, 4), NULL,
                 arg_heap_ptr(&a, 2, (size_t)(B * H * S * S), 4), arg_heap_ptr(&a, 4, (size_t)(B * S) * 3 * C, 4), H, S, dh, 1, scale};
  if (a.failed) return NULL;
  if (B > 0 && S > 0) run_pairs(B * H, S * S * dh * 2, self_grad_chunk, &job);
  return js_undefined(env);
}
