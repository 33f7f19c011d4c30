/*
 * Elementwise float32 kernels. Binary ops broadcast through strides computed on the JS side, which
 * collapses the shapes first so the innermost dimension is long and each operand's inner stride is
 * 0 (broadcast) or 1 (contiguous): four specialised inner loops cover every case.
 */
#include <math.h>

#include "args.h"
#include "fastmath.h"
#include "kernels.h"
#include "pool.h"

/* Items per chunk below which splitting across threads costs more than it saves. */
#define GRAIN 16384

enum { U_EXP, U_LOG, U_TANH, U_SQRT, U_RSQRT, U_NEG, U_SQUARE, U_ABS, U_SIGMOID, U_RELU, U_RECIPROCAL, U_ERF };
enum { B_ADD, B_SUB, B_MUL, B_DIV, B_MAX, B_MIN, B_SQDIFF, B_POW };

#define UNARY_LOOP(EXPR)                                        \
  for (int64_t i = begin; i < end; i++) {                       \
    const float v = x[i];                                       \
    y[i] = (EXPR);                                              \
  }                                                             \
  break;

typedef struct {
  int op;
  const float *x;
  float *y;
} UnaryJob;

static void unary_chunk(void *ctx, int64_t begin, int64_t end) {
  const UnaryJob *job = ctx;
  const float *restrict x = job->x;
  float *restrict y = job->y;
  switch (job->op) {
    case U_EXP: UNARY_LOOP(rred_expf(v))
    case U_LOG: UNARY_LOOP(logf(v))
    case U_TANH: UNARY_LOOP(rred_tanhf(v))
    case U_SQRT: UNARY_LOOP(sqrtf(v))
    case U_RSQRT: UNARY_LOOP(1.0f / sqrtf(v))
    case U_NEG: UNARY_LOOP(-v)
    case U_SQUARE: UNARY_LOOP(v * v)
    case U_ABS: UNARY_LOOP(fabsf(v))
    case U_SIGMOID: UNARY_LOOP(1.0f / (1.0f + rred_expf(-v)))
    case U_RELU: UNARY_LOOP(v < 0.0f ? 0.0f : v) /* NaN stays NaN */
    case U_RECIPROCAL: UNARY_LOOP(1.0f / v)
    case U_ERF: UNARY_LOOP(erff(v))
    default: break;
  }
}

/* unary(heap, op, xOff, outOff, n) */
napi_value rred_unary(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 5) || !args_heap(&a, 0)) return NULL;
  const int op = (int)arg_int(&a, 1);
  const int64_t n = arg_int(&a, 4);
  if (a.failed) return NULL;
  if (n < 0) return args_throw(&a, "unary: negative element count");
  if (op < U_EXP || op > U_ERF) return args_throw(&a, "unary: unknown op code");
  UnaryJob job = {op, arg_heap_ptr(&a, 2, (size_t)n, 4), arg_heap_ptr(&a, 3, (size_t)n, 4)};
  if (a.failed) return NULL;
  rred_parallel_for(n, GRAIN, unary_chunk, &job);
  return js_undefined(env);
}

static inline float f_add(float p, float q) { return p + q; }
static inline float f_sub(float p, float q) { return p - q; }
static inline float f_mul(float p, float q) { return p * q; }
static inline float f_div(float p, float q) { return p / q; }
/* NaN-propagating max/min (a NaN in either operand gives NaN). */
static inline float f_max(float p, float q) { return (p > q || p != p) ? p : q; }
static inline float f_min(float p, float q) { return (p < q || p != p) ? p : q; }
static inline float f_sqdiff(float p, float q) { return (p - q) * (p - q); }
static inline float f_pow(float p, float q) { return powf(p, q); }

#define DEFINE_INNER(NAME, F)                                                                              \
  static void NAME(const float *restrict x, int sx, const float *restrict z, int sz, float *restrict y,  \
                   int64_t n) {                                                                            \
    if (sx && sz) {                                                                                        \
      for (int64_t i = 0; i < n; i++) y[i] = F(x[i], z[i]);                                                \
    } else if (sx) {                                                                                       \
      const float q = z[0];                                                                                \
      for (int64_t i = 0; i < n; i++) y[i] = F(x[i], q);                                                   \
    } else if (sz) {                                                                                       \
      const float p = x[0];                                                                                \
      for (int64_t i = 0; i < n; i++) y[i] = F(p, z[i]);                                                   \
    } else {                                                                                               \
      const float v = F(x[0], z[0]);                                                                       \
      for (int64_t i = 0; i < n; i++) y[i] = v;                                                            \
    }                                                                                                      \
  }

DEFINE_INNER(inner_add, f_add)
DEFINE_INNER(inner_sub, f_sub)
DEFINE_INNER(inner_mul, f_mul)
DEFINE_INNER(inner_div, f_div)
DEFINE_INNER(inner_max, f_max)
DEFINE_INNER(inner_min, f_min)
DEFINE_INNER(inner_sqdiff, f_sqdiff)
DEFINE_INNER(inner_pow_general, f_pow)

/* Integer and half exponents (x^2, x^3 in GELU, x^0.5, x^-1) skip powf, which is a slow scalar call. */
static void inner_pow(const float *restrict x, int sx, const float *restrict z, int sz, float *restrict y, int64_t n) {
  if (sx && !sz) {
    const float q = z[0];
    if (q == 2.0f) {
      for (int64_t i = 0; i < n; i++) y[i] = x[i] * x[i];
      return;
    }
    if (q == 3.0f) {
      for (int64_t i = 0; i < n; i++) y[i] = x[i] * x[i] * x[i];
      return;
    }
    if (q == 1.0f) {
      for (int64_t i = 0; i < n; i++) y[i] = x[i];
      return;
    }
    if (q == 0.5f) {
      for (int64_t i = 0; i < n; i++) y[i] = sqrtf(x[i]);
      return;
    }
    if (q == -1.0f) {
      for (int64_t i = 0; i < n; i++) y[i] = 1.0f / x[i];
      return;
    }
  }
  inner_pow_general(x, sx, z, sz, y, n);
}

typedef void (*InnerFn)(const float *, int, const float *, int, float *, int64_t);

typedef struct {
  InnerFn fn;
  const float *A, *B;
  float *Y;
  int r;
  int64_t shape[RRED_MAX_RANK + 1], sa[RRED_MAX_RANK + 1], sb[RRED_MAX_RANK + 1];
  int64_t inner;
} BinaryJob;

/* Output elements [begin, end) in row-major order: walk the rows they span, odometer over outer dims. */
static void binary_chunk(void *ctx, int64_t begin, int64_t end) {
  const BinaryJob *job = ctx;
  const int r = job->r;
  const int64_t inner = job->inner;
  int64_t row = begin / inner;
  int64_t idx[RRED_MAX_RANK + 1] = {0};
  int64_t oa = 0, ob = 0;
  int64_t rem = row;
  for (int d = r - 2; d >= 0; d--) { /* unravel the first row's outer coordinates */
    idx[d] = rem % job->shape[d];
    rem /= job->shape[d];
    oa += idx[d] * job->sa[d];
    ob += idx[d] * job->sb[d];
  }
  const int ia = (int)job->sa[r - 1], ib = (int)job->sb[r - 1];
  for (int64_t pos = begin; pos < end; row++) {
    const int64_t j0 = pos - row * inner;
    const int64_t j1 = (row + 1) * inner < end ? inner : end - row * inner;
    job->fn(job->A + oa + j0 * ia, ia, job->B + ob + j0 * ib, ib, job->Y + pos, j1 - j0);
    pos += j1 - j0;
    for (int d = r - 2; d >= 0; d--) {
      idx[d]++, oa += job->sa[d], ob += job->sb[d];
      if (idx[d] < job->shape[d]) break;
      oa -= job->sa[d] * job->shape[d], ob -= job->sb[d] * job->shape[d], idx[d] = 0;
    }
  }
}

/* binary(heap, op, aOff, bOff, outOff, meta) with meta = Int32Array [rank, outShape[r], aStrides[r], bStrides[r]]. */
napi_value rred_binary(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 6) || !args_heap(&a, 0)) return NULL;
  const int op = (int)arg_int(&a, 1);
  size_t mlen = 0;
  const int32_t *meta = arg_i32array(&a, 5, &mlen);
  if (a.failed) return NULL;
  InnerFn fn;
  switch (op) {
    case B_ADD: fn = inner_add; break;
    case B_SUB: fn = inner_sub; break;
    case B_MUL: fn = inner_mul; break;
    case B_DIV: fn = inner_div; break;
    case B_MAX: fn = inner_max; break;
    case B_MIN: fn = inner_min; break;
    case B_SQDIFF: fn = inner_sqdiff; break;
    case B_POW: fn = inner_pow; break;
    default: return args_throw(&a, "binary: unknown op code");
  }
  const int rank = mlen > 0 ? meta[0] : -1;
  if (rank < 0 || rank > RRED_MAX_RANK || mlen != (size_t)(1 + 3 * rank))
    return args_throw(&a, "binary: malformed meta (expected [rank, outShape, aStrides, bStrides], rank <= 8)");
  int64_t shape[RRED_MAX_RANK + 1], sa[RRED_MAX_RANK + 1], sb[RRED_MAX_RANK + 1];
  /* Pad rank-0 to rank 1 so there is always an inner dim. */
  const int r = rank == 0 ? 1 : rank;
  int64_t total = 1, reachA = 1, reachB = 1;
  for (int d = 0; d < r; d++) {
    if (rank == 0) {
      shape[d] = 1, sa[d] = 0, sb[d] = 0;
    } else {
      shape[d] = meta[1 + d], sa[d] = meta[1 + rank + d], sb[d] = meta[1 + 2 * rank + d];
    }
    if (shape[d] < 0 || sa[d] < 0 || sb[d] < 0) return args_throw(&a, "binary: negative shape or stride");
    total *= shape[d];
    if (shape[d] > 0) reachA += (shape[d] - 1) * sa[d], reachB += (shape[d] - 1) * sb[d];
  }
  if (total == 0) return js_undefined(env);
  if ((sa[r - 1] != 0 && sa[r - 1] != 1) || (sb[r - 1] != 0 && sb[r - 1] != 1))
    return args_throw(&a, "binary: inner strides must be 0 or 1");
  const float *A = arg_heap_ptr(&a, 2, (size_t)reachA, 4);
  const float *B = arg_heap_ptr(&a, 3, (size_t)reachB, 4);
  float *Y = arg_heap_ptr(&a, 4, (size_t)total, 4);
  if (a.failed) return NULL;

  BinaryJob job = {fn, A, B, Y, r, {0}, {0}, {0}, shape[r - 1]};
  for (int d = 0; d < r; d++) job.shape[d] = shape[d], job.sa[d] = sa[d], job.sb[d] = sb[d];
  rred_parallel_for(total, GRAIN, binary_chunk, &job);
  return js_undefined(env);
}
