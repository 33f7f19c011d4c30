/*
 * rred_native: OpenBLAS-backed kernels that operate in place on the tfjs wasm backend's heap.
 * The op-code tables are exported so the JS side never hard-codes the C enums.
 */
#include "args.h"
#include "kernels.h"

static void set_fn(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn);
  napi_set_named_property(env, exports, name, fn);
}

static void set_table(napi_env env, napi_value exports, const char *name, const char *const *names, int count) {
  napi_value table;
  napi_create_object(env, &table);
  for (int i = 0; i < count; i++) napi_set_named_property(env, table, names[i], js_number(env, i));
  napi_set_named_property(env, exports, name, table);
}

/* Same order as the enums in elementwise.c and reduce.c. */
static const char *const UNARY[] = {"Exp", "Log", "Tanh", "Sqrt", "Rsqrt", "Neg",
                                    "Square", "Abs", "Sigmoid", "Relu", "Reciprocal", "Erf"};
static const char *const BINARY[] = {"Add", "Sub", "Multiply", "RealDiv", "Maximum", "Minimum", "SquaredDifference", "Pow"};
static const char *const REDUCE[] = {"Sum", "Mean", "Max", "Min"};

static napi_value init(napi_env env, napi_value exports) {
  set_fn(env, exports, "batchMatMul", rred_batch_matmul);
  set_fn(env, exports, "setThreads", rred_set_threads);
  set_fn(env, exports, "getThreads", rred_get_threads);
  set_fn(env, exports, "blasConfig", rred_blas_config);
  set_fn(env, exports, "sgemmBench", rred_sgemm_bench);
  set_fn(env, exports, "stridedCopy", rred_strided_copy);
  set_fn(env, exports, "unary", rred_unary);
  set_fn(env, exports, "binary", rred_binary);
  set_fn(env, exports, "reduce", rred_reduce);
  set_fn(env, exports, "sumSquares", rred_sum_squares);
  set_fn(env, exports, "softmax", rred_softmax);
  set_fn(env, exports, "attendPast", rred_attend_past);
  set_fn(env, exports, "selfAttention", rred_self_attention);
  set_fn(env, exports, "selfAttentionGrad", rred_self_attention_grad);
  set_fn(env, exports, "gatherRows", rred_gather_rows);
  set_fn(env, exports, "segmentSum", rred_segment_sum);
  set_fn(env, exports, "layerNorm", rred_layernorm);
  set_fn(env, exports, "layerNormGrad", rred_layernorm_grad);
  set_fn(env, exports, "linear", rred_linear);
  set_fn(env, exports, "linearGrad", rred_linear_grad);
  set_fn(env, exports, "adamw", rred_adamw);
  set_table(env, exports, "unaryOps", UNARY, (int)(sizeof UNARY / sizeof UNARY[0]));
  set_table(env, exports, "binaryOps", BINARY, (int)(sizeof BINARY / sizeof BINARY[0]));
  set_table(env, exports, "reduceOps", REDUCE, (int)(sizeof REDUCE / sizeof REDUCE[0]));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
