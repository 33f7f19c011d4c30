#include "args.h"

#include <stdio.h>

napi_value args_throw(Args *a, const char *message) {
  if (!a->failed) napi_throw_error(a->env, NULL, message);
  a->failed = 1;
  return NULL;
}

int args_load(napi_env env, napi_callback_info info, Args *a, size_t need) {
  a->env = env;
  a->argc = RRED_MAX_ARGS;
  a->heap = NULL;
  a->heap_len = 0;
  a->failed = 0;
  if (napi_get_cb_info(env, info, &a->argc, a->argv, NULL, NULL) != napi_ok) {
    args_throw(a, "rred_native: could not read arguments");
    return 0;
  }
  if (a->argc < need) {
    char msg[96];
    snprintf(msg, sizeof msg, "rred_native: expected %zu arguments, got %zu", need, a->argc);
    args_throw(a, msg);
    return 0;
  }
  return 1;
}

int args_heap(Args *a, size_t i) {
  void *data = NULL;
  size_t len = 0;
  if (a->failed) return 0;
  if (napi_get_arraybuffer_info(a->env, a->argv[i], &data, &len) != napi_ok) {
    args_throw(a, "rred_native: argument 0 must be the wasm heap ArrayBuffer");
    return 0;
  }
  a->heap = (uint8_t *)data;
  a->heap_len = len;
  return 1;
}

double arg_num(Args *a, size_t i) {
  double v = 0;
  if (a->failed) return 0;
  if (napi_get_value_double(a->env, a->argv[i], &v) != napi_ok) {
    char msg[80];
    snprintf(msg, sizeof msg, "rred_native: argument %zu must be a number", i);
    args_throw(a, msg);
  }
  return v;
}

int64_t arg_int(Args *a, size_t i) { return (int64_t)arg_num(a, i); }

void *arg_heap_ptr(Args *a, size_t i, size_t count, size_t elem_size) {
  double off = arg_num(a, i);
  if (a->failed) return NULL;
  if (off < 0 || off + (double)count * (double)elem_size > (double)a->heap_len) {
    char msg[128];
    snprintf(msg, sizeof msg, "rred_native: argument %zu: %zu elements at byte offset %.0f run past the heap (%zu bytes)",
             i, count, off, a->heap_len);
    args_throw(a, msg);
    return NULL;
  }
  return a->heap + (size_t)off;
}

/* The data of typed array argument i if it has `want` type, else throws naming `what`. */
static const void *typed_array(Args *a, size_t i, napi_typedarray_type want, const char *what, size_t *len) {
  napi_typedarray_type type;
  void *data = NULL;
  size_t length = 0;
  if (a->failed) return NULL;
  if (napi_get_typedarray_info(a->env, a->argv[i], &type, &length, &data, NULL, NULL) != napi_ok || type != want) {
    char msg[80];
    snprintf(msg, sizeof msg, "rred_native: argument %zu must be a%s", i, what);
    args_throw(a, msg);
    return NULL;
  }
  *len = length;
  return data;
}

const int32_t *arg_i32array(Args *a, size_t i, size_t *len) { return typed_array(a, i, napi_int32_array, "n Int32Array", len); }

const double *arg_f64array(Args *a, size_t i, size_t *len) { return typed_array(a, i, napi_float64_array, " Float64Array", len); }

napi_value js_undefined(napi_env env) {
  napi_value v;
  napi_get_undefined(env, &v);
  return v;
}

napi_value js_number(napi_env env, double value) {
  napi_value v;
  napi_create_double(env, value, &v);
  return v;
}
