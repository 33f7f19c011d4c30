/* Row softmax over the last axis: y = exp(x - max) / sum(exp(x - max)), computed in one pass per row. */
#include <math.h>

#include "args.h"
#include "fastmath.h"
#include "kernels.h"

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
  for (int64_t r = 0; r < rows; r++) {
    const float *restrict xr = x + r * cols;
    float *restrict yr = y + r * cols;
    float m = -INFINITY;
    int nan = 0;
    for (int64_t j = 0; j < cols; j++) {
      m = xr[j] > m ? xr[j] : m;
      nan |= xr[j] != xr[j];
    }
    if (nan) { /* a NaN logit makes the whole row NaN, as the reference kernels do */
      for (int64_t j = 0; j < cols; j++) yr[j] = NAN;
      continue;
    }
    float s = 0.0f;
    for (int64_t j = 0; j < cols; j++) {
      const float e = rred_expf(xr[j] - m);
      yr[j] = e;
      s += e;
    }
    const float inv = 1.0f / s;
    for (int64_t j = 0; j < cols; j++) yr[j] *= inv;
  }
  return js_undefined(env);
}
