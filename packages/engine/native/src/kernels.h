/* Every N-API function the addon exports (one per kernel family). */
#ifndef RRED_KERNELS_H
#define RRED_KERNELS_H
#include "args.h"

napi_value rred_batch_matmul(napi_env env, napi_callback_info info);
napi_value rred_set_threads(napi_env env, napi_callback_info info);
napi_value rred_get_threads(napi_env env, napi_callback_info info);
napi_value rred_blas_config(napi_env env, napi_callback_info info);
napi_value rred_sgemm_bench(napi_env env, napi_callback_info info);
napi_value rred_strided_copy(napi_env env, napi_callback_info info);
napi_value rred_unary(napi_env env, napi_callback_info info);
napi_value rred_binary(napi_env env, napi_callback_info info);
napi_value rred_reduce(napi_env env, napi_callback_info info);
napi_value rred_sum_squares(napi_env env, napi_callback_info info);
napi_value rred_softmax(napi_env env, napi_callback_info info);
napi_value rred_attend_past(napi_env env, napi_callback_info info);
napi_value rred_self_attention(napi_env env, napi_callback_info info);
napi_value rred_self_attention_grad(napi_env env, napi_callback_info info);
napi_value rred_gather_rows(napi_env env, napi_callback_info info);
napi_value rred_segment_sum(napi_env env, napi_callback_info info);
napi_value rred_layernorm(napi_env env, napi_callback_info info);
napi_value rred_layernorm_grad(napi_env env, napi_callback_info info);
napi_value rred_linear(napi_env env, napi_callback_info info);
napi_value rred_linear_grad(napi_env env, napi_callback_info info);
napi_value rred_adamw(napi_env env, napi_callback_info info);

#endif
