/* Embedding lookup (gather rows) and its gradient (sum rows into segments). */
#include <string.h>

#include "args.h"
#include "kernels.h"

/* gatherRows(heap, xOff, idxOff, outOff, nRows, rowLen, nIdx) -> -1, or the position of the first bad index. */
napi_value rred_gather_rows(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 7) || !args_heap(&a, 0)) return NULL;
  const int64_t nRows = arg_int(&a, 4), rowLen = arg_int(&a, 5), nIdx = arg_int(&a, 6);
  if (a.failed) return NULL;
  if (nRows < 0 || rowLen < 0 || nIdx < 0) return args_throw(&a, "gatherRows: negative size");
  const float *x = arg_heap_ptr(&a, 1, (size_t)(nRows * rowLen), 4);
  const int32_t *idx = arg_heap_ptr(&a, 2, (size_t)nIdx, 4);
  float *y = arg_heap_ptr(&a, 3, (size_t)(nIdx * rowLen), 4);
  if (a.failed) return NULL;
  for (int64_t i = 0; i < nIdx; i++)
    if (idx[i] < 0 || idx[i] >= nRows) return js_number(env, (double)i);
  for (int64_t i = 0; i < nIdx; i++) memcpy(y + i * rowLen, x + (int64_t)idx[i] * rowLen, (size_t)rowLen * sizeof(float));
  return js_number(env, -1);
}

/* segmentSum(heap, xOff, idsOff, outOff, n, rowLen, numSegments): out[s] = sum of rows i with ids[i] == s.
   Ids outside [0, numSegments) are dropped, as in TensorFlow's UnsortedSegmentSum. */
napi_value rred_segment_sum(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 7) || !args_heap(&a, 0)) return NULL;
  const int64_t n = arg_int(&a, 4), rowLen = arg_int(&a, 5), numSegments = arg_int(&a, 6);
  if (a.failed) return NULL;
  if (n < 0 || rowLen < 0 || numSegments < 0) return args_throw(&a, "segmentSum: negative size");
  const float *x = arg_heap_ptr(&a, 1, (size_t)(n * rowLen), 4);
  const int32_t *ids = arg_heap_ptr(&a, 2, (size_t)n, 4);
  float *y = arg_heap_ptr(&a, 3, (size_t)(numSegments * rowLen), 4);
  if (a.failed) return NULL;
  memset(y, 0, (size_t)(numSegments * rowLen) * sizeof(float));
  for (int64_t i = 0; i < n; i++) {
    const int64_t s = ids[i];
    if (s < 0 || s >= numSegments) continue;
    float *restrict dst = y + s * rowLen;
    const float *restrict src = x + i * rowLen;
    for (int64_t j = 0; j < rowLen; j++) dst[j] += src[j];
  }
  return js_undefined(env);
}
