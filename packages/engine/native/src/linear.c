/*
 * A dense layer as one native call each way:
 *   forward   pre = x·W + b,  y = act(pre)                (act: identity, or GELU with pre kept)
 *   backward  dz = dy ⊙ act'(pre),  dx = dz·Wᵀ,  dW = xᵀ·dz,  db = Σ_rows dz  (in row blocks: below)
 * Shapes: x [R, In], W [In, Out], b [Out], y and pre [R, Out]; dx [R, In], dW [In, Out], db [Out].
 * With a residual r [R, Out] (no activation): pre = r + (x·W + b), the transformer's skip connection
 * added to each row part right after its product, while in cache, instead of a separate Add over the
 * output (the same float additions, so the same bits; its gradient is dy).
 * Each row part of the product (blas.h) starts from the bias (beta 1: no zero fill, no bias pass) and
 * takes its GELU right after, while its rows are in cache, instead of a broadcast Add and an activation
 * over the whole output afterwards; the bias gradient is one column sum instead of tfjs' Sum over the
 * broadcast axis.
 */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "blas.h"
#include "fastmath.h"
#include "kernels.h"
#include "pool.h"

enum { ACT_NONE = 0, ACT_GELU = 1 };

/*
 * GELU, tanh form (GPT-2), and its derivative, per element:
 *   gelu(x) = x·s,  s = sigmoid(2u) = 0.5·(1 + tanh u),  u = c·(x + a·x³)
 */
#define GELU_C 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

/* sigmoid(2u) rather than 0.5·(1 + tanh u): no cancellation for very negative x. */
static inline float gelu_sigmoid(float v) { return 1.0f / (1.0f + rred_expf(-2.0f * GELU_C * (v + GELU_A * v * v * v))); }

static inline float gelu_value(float v) { return v * gelu_sigmoid(v); }

/* d/dx of x·s: s + 2x·s·(1 − s)·c·(1 + 3a·x²) (= 0.5·(1 + t) + 0.5·x·(1 − t²)·u', t = tanh u, without cancellation). */
static inline float gelu_deriv(float v) {
  const float s = gelu_sigmoid(v);
  return s + 2.0f * v * s * (1.0f - s) * GELU_C * (1.0f + 3.0f * GELU_A * v * v);
}

typedef struct {
  const float *b, *res; /* res: the residual [R, Out], or NULL */
  float *pre, *y;       /* pre = x·W + b (+ res); y = gelu(pre) (y == pre without an activation) */
  int Out;
} Epilogue;

/* Before the product: each row of pre starts as the bias. */
static void bias_rows(void *ctx, int m0, int m1) {
  const Epilogue *e = ctx;
  const int Out = e->Out;
  for (int r = m0; r < m1; r++) memcpy(e->pre + (size_t)r * Out, e->b, (size_t)Out * sizeof(float));
}

/* After it: pre += the residual. */
static void residual_rows(void *ctx, int m0, int m1) {
  const Epilogue *e = ctx;
  float *restrict pre = e->pre + (size_t)m0 * e->Out;
  const float *restrict res = e->res + (size_t)m0 * e->Out;
  const int64_t n = (int64_t)(m1 - m0) * e->Out;
  for (int64_t i = 0; i < n; i++) pre[i] = res[i] + pre[i];
}

/* After it: y = gelu(pre). */
static void gelu_rows(void *ctx, int m0, int m1) {
  const Epilogue *e = ctx;
  const float *restrict pre = e->pre + (size_t)m0 * e->Out;
  float *restrict y = e->y + (size_t)m0 * e->Out;
  const int64_t n = (int64_t)(m1 - m0) * e->Out;
  for (int64_t i = 0; i < n; i++) y[i] = gelu_value(pre[i]);
}

/* linear(heap, xOff, wOff, bOff, preOff, yOff, R, In, Out, act, resOff): with act 0, yOff is ignored (y is pre);
   resOff ≥ 0: the residual (act 0 only), −1: none. */
napi_value rred_linear(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 11) || !args_heap(&a, 0)) return NULL;
  const int64_t R = arg_int(&a, 6), In = arg_int(&a, 7), Out = arg_int(&a, 8), act = arg_int(&a, 9);
  const int residual = arg_int(&a, 10) >= 0;
  if (a.failed) return NULL;
  if (R < 0 || In < 1 || Out < 1 || (act != ACT_NONE && act != ACT_GELU) || (residual && act != ACT_NONE))
    return args_throw(&a, "linear: bad shape or activation (a residual needs act none)");
  const float *x = arg_heap_ptr(&a, 1, (size_t)(R * In), 4);
  const float *w = arg_heap_ptr(&a, 2, (size_t)(In * Out), 4);
  const float *b = arg_heap_ptr(&a, 3, (size_t)Out, 4);
  float *pre = arg_heap_ptr(&a, 4, (size_t)(R * Out), 4);
  float *y = act == ACT_GELU ? arg_heap_ptr(&a, 5, (size_t)(R * Out), 4) : pre;
  const float *res = residual ? arg_heap_ptr(&a, 10, (size_t)(R * Out), 4) : NULL;
  if (a.failed) return NULL;
  if (R == 0) return js_undefined(env);
  Epilogue e = {b, res, pre, y, (int)Out};
  const RowHooks hooks = {bias_rows, act == ACT_GELU ? gelu_rows : res ? residual_rows : NULL, &e};
  rred_sgemm_rows(CblasNoTrans, CblasNoTrans, (int)R, (int)Out, (int)In, x, (int)In, w, (int)Out, pre, &hooks);
  return js_undefined(env);
}

/*
 * The backward runs in blocks of BLOCK rows, each thread over its own contiguous run of blocks: a
 * block's dz (dy ⊙ gelu'(pre), or dy itself) is made, summed into db, multiplied into dx's rows and
 * added into the thread's dw while it is in L2, instead of a pass over the whole [R, Out] dz followed
 * by two products that read it back from memory.
 */
#define BLOCK 256

typedef struct {
  const float *x, *w, *dy, *pre;
  float *dx;
  float **dw;      /* [parts]: each part's dw accumulator [In, Out] (part 0's is the output) */
  float **scratch; /* [parts]: a block's dz, BLOCK·Out floats (NULL without an activation) */
  double **db;     /* [parts]: each part's column sums [Out] */
  int64_t R, In, Out, rowsPerPart;
} GradJob;

static void grad_part(void *ctx, int64_t begin, int64_t end) {
  const GradJob *j = ctx;
  const int64_t In = j->In, Out = j->Out;
  for (int64_t p = begin; p < end; p++) {
    const int64_t r0 = p * j->rowsPerPart, r1 = r0 + j->rowsPerPart < j->R ? r0 + j->rowsPerPart : j->R;
    double *restrict db = j->db[p];
    for (int64_t c = 0; c < Out; c++) db[c] = 0.0;
    for (int64_t b0 = r0; b0 < r1; b0 += BLOCK) {
      const int64_t n = b0 + BLOCK < r1 ? BLOCK : r1 - b0;
      const float *g = j->dy + b0 * Out; /* this block's dz [n, Out] */
      if (j->pre) {
        float *restrict dz = j->scratch[p];
        const float *restrict dy = g, *restrict pre = j->pre + b0 * Out;
        for (int64_t i = 0; i < n * Out; i++) dz[i] = dy[i] * gelu_deriv(pre[i]);
        g = dz;
      }
      for (int64_t r = 0; r < n; r++) {
        const float *restrict row = g + r * Out;
        for (int64_t c = 0; c < Out; c++) db[c] += row[c];
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)In, (int)Out, 1.0f, g, (int)Out, j->w, (int)Out, 0.0f,
                  j->dx + b0 * In, (int)In);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)In, (int)Out, (int)n, 1.0f, j->x + b0 * In, (int)In, g, (int)Out,
                  b0 == r0 ? 0.0f : 1.0f, j->dw[p], (int)Out);
    }
  }
}

/* Products this large split their rows across the pool; below it the calling thread does all. */
#define SPLIT_MNK (1 << 20)
#define MAX_PARTS 64 /* the pool has at most 32 threads */

/* linearGrad(heap, xOff, wOff, dyOff, preOff, dxOff, dwOff, dbOff, R, In, Out, act): preOff is read only with act 1. */
napi_value rred_linear_grad(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 12) || !args_heap(&a, 0)) return NULL;
  const int64_t R = arg_int(&a, 8), In = arg_int(&a, 9), Out = arg_int(&a, 10), act = arg_int(&a, 11);
  if (a.failed) return NULL;
  if (R < 0 || In < 1 || Out < 1 || (act != ACT_NONE && act != ACT_GELU)) return args_throw(&a, "linearGrad: bad shape or activation");
  const float *x = arg_heap_ptr(&a, 1, (size_t)(R * In), 4);
  const float *w = arg_heap_ptr(&a, 2, (size_t)(In * Out), 4);
  const float *dy = arg_heap_ptr(&a, 3, (size_t)(R * Out), 4);
  const float *pre = act == ACT_GELU ? arg_heap_ptr(&a, 4, (size_t)(R * Out), 4) : NULL;
  float *dx = arg_heap_ptr(&a, 5, (size_t)(R * In), 4);
  float *dw = arg_heap_ptr(&a, 6, (size_t)(In * Out), 4);
  float *db = arg_heap_ptr(&a, 7, (size_t)Out, 4);
  if (a.failed) return NULL;
  if (R == 0) { /* no rows: every gradient is zero */
    memset(dw, 0, (size_t)(In * Out) * sizeof(float));
    memset(db, 0, (size_t)Out * sizeof(float));
    return js_undefined(env);
  }
  /* one part per pool thread (as blas.h splits rows), or one part below the split size */
  const int64_t threads = rred_pool_threads() < MAX_PARTS ? rred_pool_threads() : MAX_PARTS;
  const RowParts split = rred_row_parts(R, R * In * Out >= SPLIT_MNK ? (int)threads : 1);
  const int64_t parts = split.parts, rowsPerPart = split.rows;
  float *dwParts[MAX_PARTS], *scratch[MAX_PARTS];
  double *dbParts[MAX_PARTS];
  int failed = 0;
  for (int64_t p = 0; p < parts; p++) {
    dwParts[p] = p == 0 ? dw : malloc((size_t)(In * Out) * sizeof(float));
    scratch[p] = pre ? malloc((size_t)(BLOCK * Out) * sizeof(float)) : NULL;
    dbParts[p] = malloc((size_t)Out * sizeof(double));
    failed |= !dwParts[p] || (pre && !scratch[p]) || !dbParts[p];
  }
  if (failed) abort(); /* a few [In, Out] and [BLOCK, Out] buffers */
  GradJob job = {x, w, dy, pre, dx, dwParts, scratch, dbParts, R, In, Out, rowsPerPart};
  rred_parallel_for(parts, 1, grad_part, &job);
  /* parts added in part order: the result depends on the thread count, not on timing */
  for (int64_t p = 1; p < parts; p++) {
    const float *restrict src = dwParts[p];
    for (int64_t i = 0; i < In * Out; i++) dw[i] += src[i];
  }
  for (int64_t c = 0; c < Out; c++) {
    double s = 0.0;
    for (int64_t p = 0; p < parts; p++) s += dbParts[p][c];
    db[c] = (float)s;
  }
  for (int64_t p = 0; p < parts; p++) {
    if (p > 0) free(dwParts[p]);
    free(scratch[p]);
    free(dbParts[p]);
  }
  return js_undefined(env);
}
