/*
 * Fused forward/backward kernels of LayerNorm and the AdamW update. Built from tfjs ops, LayerNorm is ~9
 * passes over its input forward and ~25 backward; fused, each direction is one or two passes. (GELU is
 * the dense layer's epilogue: linear.c.)
 */
#include <math.h>

#include "args.h"
#include "kernels.h"
#include "pool.h"

typedef struct {
  const float *x, *gamma, *beta, *dy;
  float *y, *mean, *rstd;
  float *dgamma, *dbeta;
  int64_t cols;
  float eps;
} LayerNormJob;

/* Per row: mean and 1/sqrt(var + eps) (two passes, double accumulators, vectorized: omp simd), then the affine output. */
static void layernorm_rows(void *ctx, int64_t begin, int64_t end) {
  const LayerNormJob *job = ctx;
  const int64_t C = job->cols;
  for (int64_t r = begin; r < end; r++) {
    const float *restrict x = job->x + r * C;
    float *restrict y = job->y + r * C;
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < C; j++) sum += x[j];
    const float mean = (float)(sum / (double)C);
    double sq = 0.0;
#pragma omp simd reduction(+ : sq)
    for (int64_t j = 0; j < C; j++) {
      const double d = (double)(x[j] - mean);
      sq += d * d;
    }
    const float rstd = (float)(1.0 / sqrt(sq / (double)C + (double)job->eps));
    job->mean[r] = mean;
    job->rstd[r] = rstd;
    for (int64_t j = 0; j < C; j++) y[j] = (x[j] - mean) * rstd * job->gamma[j] + job->beta[j];
  }
}

/* dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), g = dy·gamma, x̂ = (x − mean)·rstd. */
static void layernorm_grad_rows(void *ctx, int64_t begin, int64_t end) {
  const LayerNormJob *job = ctx;
  const int64_t C = job->cols;
  for (int64_t r = begin; r < end; r++) {
    const float *restrict x = job->x + r * C;
    const float *restrict dy = job->dy + r * C;
    float *restrict dx = job->y + r * C;
    const float mean = job->mean[r], rstd = job->rstd[r];
    double sg = 0.0, sgx = 0.0;
#pragma omp simd reduction(+ : sg, sgx)
    for (int64_t j = 0; j < C; j++) {
      const float g = dy[j] * job->gamma[j];
      sg += g;
      sgx += (double)g * (double)((x[j] - mean) * rstd);
    }
    const float mg = (float)(sg / (double)C), mgx = (float)(sgx / (double)C);
    for (int64_t j = 0; j < C; j++) {
      const float xhat = (x[j] - mean) * rstd;
      dx[j] = rstd * (dy[j] * job->gamma[j] - mg - xhat * mgx);
    }
  }
}

typedef struct {
  const LayerNormJob *ln;
  int64_t rows;
} LayerNormColsJob;

/* dgamma = Σ_rows dy·x̂, dbeta = Σ_rows dy, for columns [begin, end). */
static void layernorm_grad_cols(void *ctx, int64_t begin, int64_t end) {
  const LayerNormColsJob *cj = ctx;
  const LayerNormJob *job = cj->ln;
  const int64_t C = job->cols;
  double acc_g[64], acc_b[64];
  for (int64_t c0 = begin; c0 < end; c0 += 64) {
    const int64_t c1 = c0 + 64 < end ? c0 + 64 : end;
    for (int64_t c = c0; c < c1; c++) acc_g[c - c0] = 0.0, acc_b[c - c0] = 0.0;
    for (int64_t r = 0; r < cj->rows; r++) {
      const float *restrict x = job->x + r * C;
      const float *restrict dy = job->dy + r * C;
      const float mean = job->mean[r], rstd = job->rstd[r];
      for (int64_t c = c0; c < c1; c++) {
        acc_g[c - c0] += (double)(dy[c] * ((x[c] - mean) * rstd));
        acc_b[c - c0] += (double)dy[c];
      }
    }
    for (int64_t c = c0; c < c1; c++) job->dgamma[c] = (float)acc_g[c - c0], job->dbeta[c] = (float)acc_b[c - c0];
  }
}

/* layerNorm(heap, xOff, gammaOff, betaOff, yOff, meanOff, rstdOff, rows, cols, eps) */
napi_value rred_layernorm(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 10) || !args_heap(&a, 0)) return NULL;
  const int64_t rows = arg_int(&a, 7), cols = arg_int(&a, 8);
  const double eps = arg_num(&a, 9);
  if (a.failed) return NULL;
  if (rows < 0 || cols < 1) return args_throw(&a, "layerNorm: expected rows >= 0 and cols >= 1");
  LayerNormJob job = {0};
  job.x = arg_heap_ptr(&a, 1, (size_t)(rows * cols), 4);
  job.gamma = arg_heap_ptr(&a, 2, (size_t)cols, 4);
  job.beta = arg_heap_ptr(&a, 3, (size_t)cols, 4);
  job.y = arg_heap_ptr(&a, 4, (size_t)(rows * cols), 4);
  job.mean = arg_heap_ptr(&a, 5, (size_t)rows, 4);
  job.rstd = arg_heap_ptr(&a, 6, (size_t)rows, 4);
  job.cols = cols;
  job.eps = (float)eps;
  if (a.failed) return NULL;
  rred_parallel_for(rows, 1 + 16384 / cols, layernorm_rows, &job);
  return js_undefined(env);
}

/* layerNormGrad(heap, dyOff, xOff, gammaOff, meanOff, rstdOff, dxOff, dgammaOff, dbetaOff, rows, cols) */
napi_value rred_layernorm_grad(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 11) || !args_heap(&a, 0)) return NULL;
  const int64_t rows = arg_int(&a, 9), cols = arg_int(&a, 10);
  if (a.failed) return NULL;
  if (rows < 0 || cols < 1) return args_throw(&a, "layerNormGrad: expected rows >= 0 and cols >= 1");
  LayerNormJob job = {0};
  job.dy = arg_heap_ptr(&a, 1, (size_t)(rows * cols), 4);
  job.x = arg_heap_ptr(&a, 2, (size_t)(rows * cols), 4);
  job.gamma = arg_heap_ptr(&a, 3, (size_t)cols, 4);
  job.mean = arg_heap_ptr(&a, 4, (size_t)rows, 4);
  job.rstd = arg_heap_ptr(&a, 5, (size_t)rows, 4);
  job.y = arg_heap_ptr(&a, 6, (size_t)(rows * cols), 4); /* dx */
  job.dgamma = arg_heap_ptr(&a, 7, (size_t)cols, 4);
  job.dbeta = arg_heap_ptr(&a, 8, (size_t)cols, 4);
  job.cols = cols;
  if (a.failed) return NULL;
  rred_parallel_for(rows, 1 + 16384 / cols, layernorm_grad_rows, &job);
  LayerNormColsJob cj = {&job, rows};
  rred_parallel_for(cols, 64, layernorm_grad_cols, &cj);
  return js_undefined(env);
}

typedef struct {
  const float *p, *g, *m, *v;
  float *po, *mo, *vo;
  float lr, b1, b2, eps, c1, c2, wd, gs;
} AdamJob;

/* AdamW on g = gs·grad (gs: the global-norm clip's factor, 1 without):
   m' = b1·m + (1−b1)·g, v' = b2·v + (1−b2)·g², p' = p − lr·(m'/c1)/(√(v'/c2) + ε) − lr·wd·p. */
static void adamw_chunk(void *ctx, int64_t begin, int64_t end) {
  const AdamJob *j = ctx;
  for (int64_t i = begin; i < end; i++) {
    const float g = j->gs * j->g[i];
    const float m = j->b1 * j->m[i] + (1.0f - j->b1) * g;
    const float v = j->b2 * j->v[i] + (1.0f - j->b2) * (g * g);
    const float update = (m / j->c1) / (sqrtf(v / j->c2) + j->eps);
    j->mo[i] = m;
    j->vo[i] = v;
    j->po[i] = (j->p[i] - update * j->lr) - j->p[i] * (j->lr * j->wd);
  }
}

/* adamw(heap, pOff, gOff, mOff, vOff, pOutOff, mOutOff, vOutOff, n, [lr, beta1, beta2, eps, c1, c2, weightDecay, gradScale]) */
napi_value rred_adamw(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 17) || !args_heap(&a, 0)) return NULL;
  const int64_t n = arg_int(&a, 8);
  if (a.failed) return NULL;
  if (n < 0) return args_throw(&a, "adamw: negative size");
  AdamJob j;
  j.p = arg_heap_ptr(&a, 1, (size_t)n, 4);
  j.g = arg_heap_ptr(&a, 2, (size_t)n, 4);
  j.m = arg_heap_ptr(&a, 3, (size_t)n, 4);
  j.v = arg_heap_ptr(&a, 4, (size_t)n, 4);
  j.po = arg_heap_ptr(&a, 5, (size_t)n, 4);
  j.mo = arg_heap_ptr(&a, 6, (size_t)n, 4);
  j.vo = arg_heap_ptr(&a, 7, (size_t)n, 4);
  j.lr = (float)arg_num(&a, 9), j.b1 = (float)arg_num(&a, 10), j.b2 = (float)arg_num(&a, 11);
  j.eps = (float)arg_num(&a, 12), j.c1 = (float)arg_num(&a, 13), j.c2 = (float)arg_num(&a, 14), j.wd = (float)arg_num(&a, 15);
  j.gs = (float)arg_num(&a, 16);
  if (a.failed) return NULL;
  rred_parallel_for(n, 16384, adamw_chunk, &j);
  return js_undefined(env);
}
