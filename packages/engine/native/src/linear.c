/*
 * A dense layer as one native call each way:
 *   forward   pre = x·W + b,  y = act(pre)                (act: identity, or GELU with pre kept)
 *   backward  dz = dy ⊙ act'(pre),  dx = dz·Wᵀ,  dW = xᵀ·dz,  db = Σ_rows dz
 * Shapes: x [R, In], W [In, Out], b [Out], y and pre [R, Out]; dx [R, In], dW [In, Out], db [Out].
 * Each row part of the product (blas.h) starts from the bias (beta 1: no zero fill, no bias pass) and
 * takes its GELU right after, while its rows are in cache, instead of a broadcast Add and an activation
 * over the whole output afterwards; the bias gradient is one column sum instead of tfjs' Sum over the
 * broadcast axis.
 */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "blas.h"
#include "gelu.h"
#include "kernels.h"
#include "pool.h"

enum { ACT_NONE = 0, ACT_GELU = 1 };

typedef struct {
  const float *b;
  float *pre, *y; /* pre = x·W + b; y = gelu(pre) (y == pre without an activation) */
  int Out;
} Epilogue;

/* Before the product: each row of pre starts as the bias. */
static void bias_rows(void *ctx, int m0, int m1) {
  const Epilogue *e = ctx;
  const int Out = e->Out;
  for (int r = m0; r < m1; r++) memcpy(e->pre + (size_t)r * Out, e->b, (size_t)Out * sizeof(float));
}

/* After it: y = gelu(pre). */
static void gelu_rows(void *ctx, int m0, int m1) {
  const Epilogue *e = ctx;
  const float *restrict pre = e->pre + (size_t)m0 * e->Out;
  float *restrict y = e->y + (size_t)m0 * e->Out;
  const int64_t n = (int64_t)(m1 - m0) * e->Out;
  for (int64_t i = 0; i < n; i++) y[i] = gelu_value(pre[i]);
}

/* linear(heap, xOff, wOff, bOff, preOff, yOff, R, In, Out, act): with act 0, yOff is ignored (y is pre). */
napi_value rred_linear(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 10) || !args_heap(&a, 0)) return NULL;
  const int64_t R = arg_int(&a, 6), In = arg_int(&a, 7), Out = arg_int(&a, 8), act = arg_int(&a, 9);
  if (a.failed) return NULL;
  if (R < 0 || In < 1 || Out < 1 || (act != ACT_NONE && act != ACT_GELU)) return args_throw(&a, "linear: bad shape or activation");
  const float *x = arg_heap_ptr(&a, 1, (size_t)(R * In), 4);
  const float *w = arg_heap_ptr(&a, 2, (size_t)(In * Out), 4);
  const float *b = arg_heap_ptr(&a, 3, (size_t)Out, 4);
  float *pre = arg_heap_ptr(&a, 4, (size_t)(R * Out), 4);
  float *y = act == ACT_GELU ? arg_heap_ptr(&a, 5, (size_t)(R * Out), 4) : pre;
  if (a.failed) return NULL;
  if (R == 0) return js_undefined(env);
  Epilogue e = {b, pre, y, (int)Out};
  const RowHooks hooks = {bias_rows, act == ACT_GELU ? gelu_rows : NULL, &e};
  rred_sgemm_rows(CblasNoTrans, CblasNoTrans, (int)R, (int)Out, (int)In, x, (int)In, w, (int)Out, pre, &hooks);
  return js_undefined(env);
}

typedef struct {
  const float *dy, *pre;
  float *dz;
  const float *src; /* dz, or dy without an activation */
  float *partial;   /* [parts, Out]: column sums of each part's rows (≤ 256 rows: float is enough) */
  int64_t R, Out, rowsPerPart;
} GradJob;

/* dz = dy ⊙ gelu'(pre) on rows of part p, and that part's column sums of dz (or of dy). */
static void grad_rows(void *ctx, int64_t begin, int64_t end) {
  const GradJob *j = ctx;
  const int64_t Out = j->Out;
  for (int64_t p = begin; p < end; p++) {
    const int64_t r0 = p * j->rowsPerPart, r1 = r0 + j->rowsPerPart < j->R ? r0 + j->rowsPerPart : j->R;
    float *restrict sum = j->partial + p * Out;
    for (int64_t c = 0; c < Out; c++) sum[c] = 0.0f;
    for (int64_t r = r0; r < r1; r++) {
      if (j->dz) {
        const float *restrict dy = j->dy + r * Out, *restrict pre = j->pre + r * Out;
        float *restrict dz = j->dz + r * Out;
        for (int64_t c = 0; c < Out; c++) dz[c] = dy[c] * gelu_deriv(pre[c]);
      }
      const float *restrict src = j->src + r * Out;
      for (int64_t c = 0; c < Out; c++) sum[c] += src[c];
    }
  }
}

/* Products large enough to split: below this both run on the calling thread. */
#define SPLIT_MNK (1 << 20)

typedef struct {
  const float *x, *w, *g; /* g = dz [R, Out] */
  float *dx, *dw;
  int R, In, Out;
} Products;

/* Item 0: dx = g·wᵀ [R, In]; item 1: dw = xᵀ·g [In, Out]. 2·R·In·Out flops each. */
static void grad_products(void *ctx, int64_t begin, int64_t end) {
  const Products *p = ctx;
  for (int64_t i = begin; i < end; i++) {
    if (i == 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p->R, p->In, p->Out, 1.0f, p->g, p->Out, p->w, p->Out, 0.0f, p->dx, p->In);
    else
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p->In, p->Out, p->R, 1.0f, p->x, p->In, p->g, p->Out, 0.0f, p->dw, p->Out);
  }
}

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
  /* parts of 64..256 rows, about 4 per thread; each part's column sums in float, the parts' added in double in part order */
  const int64_t threads = rred_pool_threads();
  int64_t parts = threads * 4;
  if (parts < (R + 255) / 256) parts = (R + 255) / 256;
  if (parts > (R + 63) / 64) parts = (R + 63) / 64;
  const int64_t rowsPerPart = (R + parts - 1) / parts;
  parts = (R + rowsPerPart - 1) / rowsPerPart;
  float *dz = act == ACT_GELU ? malloc((size_t)(R * Out) * sizeof(float)) : NULL;
  float *partial = malloc((size_t)(parts * Out) * sizeof(float));
  if ((act == ACT_GELU && !dz) || !partial) abort(); /* R·Out floats, as one activation tensor */
  GradJob job = {dy, pre, dz, dz ? dz : dy, partial, R, Out, rowsPerPart};
  rred_parallel_for(parts, 1, grad_rows, &job);
  for (int64_t c = 0; c < Out; c++) {
    double s = 0.0;
    for (int64_t p = 0; p < parts; p++) s += (double)partial[p * Out + c];
    db[c] = (float)s;
  }
  Products pr = {x, w, dz ? dz : dy, dx, dw, (int)R, (int)In, (int)Out};
  if (rred_pool_threads() > 1 && R * In * Out >= SPLIT_MNK) {
    rred_parallel_for(2, 1, grad_products, &pr); /* dx and dw at once, one thread each: same flops */
  } else {
    grad_products(&pr, 0, 2);
  }
  free(partial);
  free(dz);
  return js_undefined(env);
}
