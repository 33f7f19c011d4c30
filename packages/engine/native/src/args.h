/*
 * Argument helpers shared by every native kernel. Every kernel receives the wasm heap (an ArrayBuffer)
 * first and byte offsets into it; the heap is re-read on every call because wasm memory growth
 * replaces the buffer. Every pointer handed out is bounds-checked against the heap length, so a bad
 * offset from JS becomes a JS exception instead of a segfault.
 */
#ifndef RRED_ARGS_H
#define RRED_ARGS_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#define RRED_MAX_ARGS 20
#define RRED_MAX_RANK 8

typedef struct {
  napi_env env;
  size_t argc;
  napi_value argv[RRED_MAX_ARGS];
  uint8_t *heap;
  size_t heap_len;
  int failed; /* set once an exception is pending; later helpers become no-ops */
} Args;

/* Reads up to RRED_MAX_ARGS arguments; throws unless at least `need` were passed. */
int args_load(napi_env env, napi_callback_info info, Args *a, size_t need);
/* Argument i is the wasm heap ArrayBuffer. */
int args_heap(Args *a, size_t i);
double arg_num(Args *a, size_t i);
int64_t arg_int(Args *a, size_t i);
/* Pointer to `count` elements of `elem_size` bytes at the byte offset given by argument i. */
void *arg_heap_ptr(Args *a, size_t i, size_t count, size_t elem_size);
/* Contents of an Int32Array argument. */
const int32_t *arg_i32array(Args *a, size_t i, size_t *len);
/* Contents of a Float64Array argument. */
const double *arg_f64array(Args *a, size_t i, size_t *len);
napi_value args_throw(Args *a, const char *message);
napi_value js_undefined(napi_env env);
napi_value js_number(napi_env env, double value);

#endif
