/* Row softmax over the last axis: y = exp(x - max) / sum(exp(x - max)), computed in one pass per row. */
#include <math.h>

#include "args.h"
#include "fastmath.h"
#include "kernels.h"
#include "pool.h"

typedef struct {
  const float *x;
  float *y;
  int64_t cols;
} SoftmaxJob;

/* Lane-parallel reductions (16 independent accumulators) so gcc vectorizes them without -ffast-math. */
#define LANES 16

static void softmax_rows(void *ctx, int64_t begin, int64_t end) {
  const SoftmaxJob *job = ctx;
  const int64_t cols = job->cols;
  for (int64_t r = begin; r < end; r++) {
    const float *restrict xr = job->x + r * cols;
    float *restrict yr = job->y + r * cols;
    float lm[LANES], ls[LANES];
    int nan = 0;
    for (int k = 0; k < LANES; k++) lm[k] = -INFINITY, ls[k] = 0.0f;
    int64_t j = 0;
    for (; j + LANES <= cols; j += LANES)
      for (int k = 0; k < LANES; k++) {
        lm[k] = xr[j + k] > lm[k] ? xr[j + k] : lm[k];
        nan |= xr[j + k] != xr[j + k];
      }
    float m = -INFINITY;
    for (int k = 0; k < LANES; k++) m = lm[k] > m ? lm[k] : m;
    for (; j < cols; j++) {
      m = xr[j] > m ? xr[j] : m;
      nan |= xr[j] != xr[j];
    }
    if (nan) { /* a NaN logit makes the whole row NaN, as the reference kernels do */
      for (j = 0; j < cols; j++) yr[j] = NAN;
      continue;
    }
    for (j = 0; j < cols; j++) yr[j] = rred_expf(xr[j] - m);
    j = 0;
    for (; j + LANES <= cols; j += LANES)
      for (int k = 0; k < LANES; k++) ls[k] += yr[j + k];
    float s = 0.0f;
    for (int k = 0; k < LANES; k++) s += ls[k];
    for (; j < cols; j++) s += yr[j];
    const float inv = 1.0f / s;
    for (j = 0; j < cols; j++) yr[j] *= inv;
  }
}

/* softmax(heap, xOff, outOff, rows, cols) */
napi_value rred_softmax(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 5) || !args_heap(&a, 0)) return NULL;
  const int64_t rows = arg_int(&a, 3), cols = arg_int(&a, 4);
  if (a.failed) return NULL;
  if (rows < 0 || cols < 0) return args_throw(&a, "softmax: negative size");
  const float *restrict x = arg_heap_ptr(&a, 1, (size_t)(rows * cols), 4);
  float *restrict y = arg_heap_ptr(&a, 2, (size_t)(rows * cols), 4);
  if (a.failed) return NULL;
  SoftmaxJob job = {x, y, cols};
  rred_parallel_for(rows, cols > 0 ? 1 + 16384 / cols : rows, softmax_rows, &job);
  return js_undefined(env);
}
