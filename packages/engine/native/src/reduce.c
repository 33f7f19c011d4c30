/*
 * Reductions over the middle axis of a contiguous [outer, red, inner] view. The JS side moves the
 * reduced axes into that position (collapsing or, rarely, transposing first). Sums accumulate in
 * double, so results do not depend on summation order beyond float rounding of the final value.
 */
#include <math.h>
#include <stdlib.h>

#include "args.h"
#include "kernels.h"
#include "pool.h"

enum { R_SUM, R_MEAN, R_MAX, R_MIN };

static double row_sum(const float *restrict x, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) acc[k] += x[i + k];
  double s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; i++) s += x[i];
  return s;
}

/* NaN-propagating extremes: once a NaN is seen the result is NaN. */
static float row_max(const float *x, int64_t n) {
  float m = -INFINITY;
  for (int64_t i = 0; i < n; i++) m = (x[i] > m || x[i] != x[i] || m != m) ? (m != m ? m : x[i]) : m;
  return m;
}
static float row_min(const float *x, int64_t n) {
  float m = INFINITY;
  for (int64_t i = 0; i < n; i++) m = (x[i] < m || x[i] != x[i] || m != m) ? (m != m ? m : x[i]) : m;
  return m;
}

typedef struct {
  int op;
  const float *x;
  float *y;
  double *acc; /* [inner] double accumulators (sums, single outer block) */
  int64_t outer, red, inner;
  double scale;
} ReduceJob;

/* Rows [begin, end) of a [outer, red] view (inner == 1): one output per row. */
static void reduce_rows(void *ctx, int64_t begin, int64_t end) {
  const ReduceJob *j = ctx;
  for (int64_t o = begin; o < end; o++) {
    const float *row = j->x + o * j->red;
    if (j->op == R_SUM || j->op == R_MEAN)
      j->y[o] = j->red == 0 ? (j->op == R_SUM ? 0.0f : NAN) : (float)(row_sum(row, j->red) * j->scale);
    else
      j->y[o] = j->op == R_MAX ? row_max(row, j->red) : row_min(row, j->red);
  }
}

/* Columns [begin, end) of the outer block `o`: accumulate down the reduced axis. */
static void reduce_cols_block(const ReduceJob *j, int64_t o, int64_t begin, int64_t end, double *acc) {
  const float *base = j->x + o * j->red * j->inner;
  float *restrict out = j->y + o * j->inner;
  if (j->op == R_SUM || j->op == R_MEAN) {
    for (int64_t c = begin; c < end; c++) acc[c] = 0.0;
    for (int64_t r = 0; r < j->red; r++) {
      const float *restrict row = base + r * j->inner;
      for (int64_t c = begin; c < end; c++) acc[c] += row[c];
    }
    for (int64_t c = begin; c < end; c++) out[c] = (j->red == 0 && j->op == R_MEAN) ? NAN : (float)(acc[c] * j->scale);
    return;
  }
  const int isMax = j->op == R_MAX;
  for (int64_t c = begin; c < end; c++) out[c] = isMax ? -INFINITY : INFINITY;
  for (int64_t r = 0; r < j->red; r++) {
    const float *restrict row = base + r * j->inner;
    if (isMax)
      for (int64_t c = begin; c < end; c++) out[c] = (row[c] > out[c] || row[c] != row[c]) && out[c] == out[c] ? row[c] : out[c];
    else
      for (int64_t c = begin; c < end; c++) out[c] = (row[c] < out[c] || row[c] != row[c]) && out[c] == out[c] ? row[c] : out[c];
  }
}

/* Split over outer blocks, each reduced over all its columns with a private accumulator. */
static void reduce_outer_blocks(void *ctx, int64_t begin, int64_t end) {
  const ReduceJob *j = ctx;
  double *acc = (j->op == R_SUM || j->op == R_MEAN) ? malloc((size_t)j->inner * sizeof(double)) : NULL;
  if ((j->op == R_SUM || j->op == R_MEAN) && !acc) return; /* caller checked allocation already; unreachable in practice */
  for (int64_t o = begin; o < end; o++) reduce_cols_block(j, o, 0, j->inner, acc);
  free(acc);
}

/* A single outer block, split over columns (disjoint ranges of the shared accumulator). */
static void reduce_col_ranges(void *ctx, int64_t begin, int64_t end) {
  const ReduceJob *j = ctx;
  reduce_cols_block(j, 0, begin, end, j->acc);
}

/* reduce(heap, op, xOff, outOff, outer, red, inner) */
napi_value rred_reduce(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 7) || !args_heap(&a, 0)) return NULL;
  const int op = (int)arg_int(&a, 1);
  const int64_t outer = arg_int(&a, 4), red = arg_int(&a, 5), inner = arg_int(&a, 6);
  if (a.failed) return NULL;
  if (op < R_SUM || op > R_MIN) return args_throw(&a, "reduce: unknown op code");
  if (outer < 0 || red < 0 || inner < 0) return args_throw(&a, "reduce: negative size");
  ReduceJob j = {op, arg_heap_ptr(&a, 2, (size_t)(outer * red * inner), 4), arg_heap_ptr(&a, 3, (size_t)(outer * inner), 4), NULL,
                 outer, red, inner, op == R_MEAN ? 1.0 / (double)red : 1.0};
  if (a.failed) return NULL;
  if (outer == 0 || inner == 0) return js_undefined(env);
  if (inner == 1) {
    rred_parallel_for(outer, 1 + 16384 / (red + 1), reduce_rows, &j);
    return js_undefined(env);
  }
  if (outer > 1) {
    if (op == R_SUM || op == R_MEAN) { /* fail here, not in a worker, if memory is short */
      void *probe = malloc((size_t)inner * sizeof(double));
      if (!probe) return args_throw(&a, "reduce: out of memory");
      free(probe);
    }
    rred_parallel_for(outer, 1 + 16384 / (red * inner + 1), reduce_outer_blocks, &j);
    return js_undefined(env);
  }
  j.acc = malloc((size_t)inner * sizeof(double));
  if (!j.acc) return args_throw(&a, "reduce: out of memory");
  /* Column ranges of >= 64 floats keep each thread on whole cache lines. */
  rred_parallel_for(inner, red * inner >= 32768 ? 64 : inner, reduce_col_ranges, &j);
  free(j.acc);
  return js_undefined(env);
}

/*
 * Σ x² over several float32 arrays of the heap (a global gradient norm², one call for every
 * variable): each array's sum in double on the pool, then the sums added in array order, so the
 * result does not depend on the thread count. A NaN or inf anywhere gives NaN or inf.
 */
typedef struct {
  const float **x;
  const int64_t *n;
  double *sums;
} SquaresJob;

static void squares_chunk(void *ctx, int64_t begin, int64_t end) {
  const SquaresJob *j = ctx;
  for (int64_t t = begin; t < end; t++) {
    const float *restrict x = j->x[t];
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < j->n[t]; i++) s += (double)x[i] * (double)x[i];
    j->sums[t] = s;
  }
}

#define MAX_SQUARES 4096

/* sumSquares(heap, spans): spans a Float64Array [byteOffset_0, count_0, byteOffset_1, count_1, …] → Σ x² */
napi_value rred_sum_squares(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 2) || !args_heap(&a, 0)) return NULL;
  size_t len = 0;
  const double *spans = arg_f64array(&a, 1, &len);
  if (a.failed) return NULL;
  const int64_t count = (int64_t)(len / 2);
  if (len % 2 != 0 || count > MAX_SQUARES) return args_throw(&a, "sumSquares: expected at most 4096 (offset, count) pairs");
  const float **x = malloc((size_t)(count > 0 ? count : 1) * sizeof *x);
  int64_t *n = malloc((size_t)(count > 0 ? count : 1) * sizeof *n);
  double *sums = malloc((size_t)(count > 0 ? count : 1) * sizeof *sums);
  if (!x || !n || !sums) abort();
  int64_t total = 0;
  for (int64_t t = 0; t < count && !a.failed; t++) {
    const double off = spans[2 * t], c = spans[2 * t + 1];
    n[t] = c >= 0 && c == (double)(int64_t)c ? (int64_t)c : -1;
    if (n[t] < 0) {
      args_throw(&a, "sumSquares: a count is not a non-negative integer");
      break;
    }
    if (off < 0 || off + c * 4.0 > (double)a.heap_len) {
      args_throw(&a, "sumSquares: an array runs past the heap");
      break;
    }
    x[t] = (const float *)(a.heap + (size_t)off);
    total += n[t];
  }
  double s = 0.0;
  if (!a.failed) {
    SquaresJob job = {x, n, sums};
    rred_parallel_for(count, total > 65536 ? 1 : count, squares_chunk, &job);
    for (int64_t t = 0; t < count; t++) s += sums[t];
  }
  free(x), free(n), free(sums);
  return a.failed ? NULL : js_number(env, s);
}
