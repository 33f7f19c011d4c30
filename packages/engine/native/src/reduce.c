/*
 * Reductions over the middle axis of a contiguous [outer, red, inner] view. The JS side moves the
 * reduced axes into that position (collapsing or, rarely, transposing first). Sums accumulate in
 * double, so results do not depend on summation order beyond float rounding of the final value.
 */
#include <math.h>
#include <stdlib.h>

#include "args.h"
#include "kernels.h"

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

/* reduce(heap, op, xOff, outOff, outer, red, inner) */
napi_value rred_reduce(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 7) || !args_heap(&a, 0)) return NULL;
  const int op = (int)arg_int(&a, 1);
  const int64_t outer = arg_int(&a, 4), red = arg_int(&a, 5), inner = arg_int(&a, 6);
  if (a.failed) return NULL;
  if (op < R_SUM || op > R_MIN) return args_throw(&a, "reduce: unknown op code");
  if (outer < 0 || red < 0 || inner < 0) return args_throw(&a, "reduce: negative size");
  const float *restrict x = arg_heap_ptr(&a, 2, (size_t)(outer * red * inner), 4);
  float *restrict y = arg_heap_ptr(&a, 3, (size_t)(outer * inner), 4);
  if (a.failed) return NULL;
  const double scale = op == R_MEAN ? 1.0 / (double)red : 1.0; /* red == 0 gives inf * 0 = NaN: mean of nothing */

  if (inner == 1) {
    for (int64_t o = 0; o < outer; o++) {
      const float *row = x + o * red;
      if (op == R_SUM || op == R_MEAN)
        y[o] = red == 0 ? (op == R_SUM ? 0.0f : NAN) : (float)(row_sum(row, red) * scale);
      else
        y[o] = op == R_MAX ? row_max(row, red) : row_min(row, red);
    }
    return js_undefined(env);
  }

  if (op == R_SUM || op == R_MEAN) {
    double *acc = malloc((size_t)inner * sizeof(double));
    if (!acc) return args_throw(&a, "reduce: out of memory");
    for (int64_t o = 0; o < outer; o++) {
      for (int64_t j = 0; j < inner; j++) acc[j] = 0.0;
      const float *base = x + o * red * inner;
      for (int64_t r = 0; r < red; r++) {
        const float *restrict row = base + r * inner;
        for (int64_t j = 0; j < inner; j++) acc[j] += row[j];
      }
      float *restrict out = y + o * inner;
      if (red == 0 && op == R_MEAN)
        for (int64_t j = 0; j < inner; j++) out[j] = NAN;
      else
        for (int64_t j = 0; j < inner; j++) out[j] = (float)(acc[j] * scale);
    }
    free(acc);
    return js_undefined(env);
  }

  const int isMax = op == R_MAX;
  for (int64_t o = 0; o < outer; o++) {
    float *restrict out = y + o * inner;
    for (int64_t j = 0; j < inner; j++) out[j] = isMax ? -INFINITY : INFINITY;
    const float *base = x + o * red * inner;
    for (int64_t r = 0; r < red; r++) {
      const float *restrict row = base + r * inner;
      if (isMax)
        for (int64_t j = 0; j < inner; j++) out[j] = (row[j] > out[j] || row[j] != row[j]) && out[j] == out[j] ? row[j] : out[j];
      else
        for (int64_t j = 0; j < inner; j++) out[j] = (row[j] < out[j] || row[j] != row[j]) && out[j] == out[j] ? row[j] : out[j];
    }
  }
  return js_undefined(env);
}
