/*
 * Matrix products through OpenBLAS, reading and writing the wasm heap in place (no copies).
 */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "blas.h"
#include "kernels.h"
#include "pool.h"

/* Declared by OpenBLAS (cblas.h of some distributions omits them). */
extern void openblas_set_num_threads(int num_threads);
extern char *openblas_get_config(void);

typedef struct {
  const float *A, *B;
  float *C;
  const int32_t *aIdx, *bIdx;
  int64_t M, N, K;
  int lda, ldb;
  enum CBLAS_TRANSPOSE ta, tb;
  int packB; /* transB products: transpose each right matrix into a [K, N] scratch, then multiply NN */
} BatchJob;

/*
 * A[M,K]·B[N,K]ᵀ through OpenBLAS's NT path costs 1.5-2x its NN path at the attention shapes
 * (K = dh = 32, M = query rows ≥ 16, N = key rows up to a few hundred) on one thread: its packing of a
 * transposed right operand is slower than a plain copy. Transposing B once (N·K floats, ~1 % of the
 * 2·M·N·K flops when M ≥ 16) and calling NN is as fast as the plain layout. Below 16 query rows (the
 * sampler's decode step, M = 1) the product is a matrix-vector one and NT is already fast.
 */
#define PACK_MIN_ROWS 16

static void batch_chunk(void *ctx, int64_t begin, int64_t end) {
  const BatchJob *j = ctx;
  float *scratch = NULL;
  if (j->packB) {
    scratch = malloc((size_t)(j->K * j->N) * sizeof(float));
    if (!scratch) abort(); /* K·N floats of one right matrix; the heap the tensors live on is larger */
  }
  for (int64_t i = begin; i < end; i++) {
    const float *Ai = j->A + (size_t)j->aIdx[i] * j->M * j->K;
    const float *Bi = j->B + (size_t)j->bIdx[i] * j->K * j->N;
    float *Ci = j->C + i * (size_t)(j->M * j->N);
    if (j->M == 1) {
      /* one query row (the sampler's decode step): a matrix-vector product, either layout of B
         (a's K values are contiguous whether or not transA) */
      if (j->tb == CblasTrans)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)j->N, (int)j->K, 1.0f, Bi, j->ldb, Ai, 1, 0.0f, Ci, 1);
      else
        cblas_sgemv(CblasRowMajor, CblasTrans, (int)j->K, (int)j->N, 1.0f, Bi, j->ldb, Ai, 1, 0.0f, Ci, 1);
    } else if (scratch) {
      /* B_i [N, K] → scratch [K, N] (OpenBLAS's out-of-place transpose, vectorised) */
      cblas_somatcopy(CblasRowMajor, CblasTrans, (int)j->N, (int)j->K, 1.0f, Bi, (int)j->K, scratch, (int)j->N);
      cblas_sgemm(CblasRowMajor, j->ta, CblasNoTrans, (int)j->M, (int)j->N, (int)j->K, 1.0f, Ai, j->lda, scratch, (int)j->N, 0.0f, Ci,
                  (int)j->N);
    } else {
      cblas_sgemm(CblasRowMajor, j->ta, j->tb, (int)j->M, (int)j->N, (int)j->K, 1.0f, Ai, j->lda, Bi, j->ldb, 0.0f, Ci, (int)j->N);
    }
  }
  free(scratch);
}

/* Products at least this large (multiply-adds) are split by rows across the engine's pool. */
#define POOL_SPLIT_MNK (1 << 22)

/*
 * Threads: OpenBLAS always runs on one thread, and the engine's pool is the only parallelism. A large
 * product is split by rows of C across the pool, one single-threaded sgemm per part. At the train step's
 * shapes ([2048, 128]·[128, 512] and their gradients) this ran at 348 GFLOP/s against 295 for
 * OpenBLAS's own two threads (hot caches, best of 20, 2-core AVX-512), and in the step itself it
 * avoids waking OpenBLAS's threads while the pool's workers spin on the same cores. `requested` is the
 * thread count asked for with setThreads; only sgemmBench (the peak of MFU) hands it to OpenBLAS.
 */
static int requested = 1;

RowParts rred_row_parts(int64_t M, int want) {
  if (want <= 1 || M < 32) return (RowParts){1, (int)M};
  const int rows = (int)(((M + want - 1) / want + 15) / 16 * 16);
  return (RowParts){(int)((M + rows - 1) / rows), rows};
}

typedef struct {
  enum CBLAS_TRANSPOSE ta, tb;
  int M, N, K, lda, ldb;
  RowParts split;
  const float *A, *B;
  float *C;
  const RowHooks *hooks;
} RowSplit;

static void split_chunk(void *ctx, int64_t begin, int64_t end) {
  const RowSplit *s = ctx;
  for (int64_t p = begin; p < end; p++) {
    const int m0 = (int)p * s->split.rows, m1 = m0 + s->split.rows < s->M ? m0 + s->split.rows : s->M;
    /* rows m0.. of op(A): row m0 of A [M, K], or column m0 of A [K, M] when transposed */
    const float *Ap = s->ta == CblasNoTrans ? s->A + (size_t)m0 * s->lda : s->A + m0;
    const RowHooks *h = s->hooks;
    if (h && h->before) h->before(h->ctx, m0, m1);
    cblas_sgemm(CblasRowMajor, s->ta, s->tb, m1 - m0, s->N, s->K, 1.0f, Ap, s->lda, s->B, s->ldb, h && h->before ? 1.0f : 0.0f,
                s->C + (size_t)m0 * s->N, s->N);
    if (h && h->after) h->after(h->ctx, m0, m1);
  }
}

void rred_sgemm_rows(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float *C, const RowHooks *hooks) {
  const int big = (int64_t)M * N * K >= POOL_SPLIT_MNK;
  RowSplit s = {ta, tb, M, N, K, lda, ldb, rred_row_parts(M, big ? rred_pool_threads() : 1), A, B, C, hooks};
  if (s.split.parts == 1) {
    split_chunk(&s, 0, 1);
    return;
  }
  rred_parallel_for(s.split.parts, 1, split_chunk, &s);
}

/*
 * batchMatMul(heap, aOff, bOff, outOff, M, N, K, transA, transB, aIdx, bIdx, aBatches, bBatches)
 * a: [aBatches, M, K] (or [aBatches, K, M] when transA), b: [bBatches, K, N] (or [.., N, K] when transB),
 * out: [nBatch, M, N]; out batch i = a[aIdx[i]] @ b[bIdx[i]] (the index maps carry the broadcasting).
 */
napi_value rred_batch_matmul(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 13) || !args_heap(&a, 0)) return NULL;
  const int64_t M = arg_int(&a, 4), N = arg_int(&a, 5), K = arg_int(&a, 6);
  const int transA = arg_int(&a, 7) != 0, transB = arg_int(&a, 8) != 0;
  size_t na = 0, nb = 0;
  const int32_t *aIdx = arg_i32array(&a, 9, &na);
  const int32_t *bIdx = arg_i32array(&a, 10, &nb);
  const int64_t aBatches = arg_int(&a, 11), bBatches = arg_int(&a, 12);
  if (a.failed) return NULL;
  if (na != nb || M < 0 || N < 0 || K < 0) return args_throw(&a, "batchMatMul: inconsistent shapes or index maps");
  const size_t nBatch = na;
  const float *A = arg_heap_ptr(&a, 1, (size_t)(aBatches * M * K), 4);
  const float *B = arg_heap_ptr(&a, 2, (size_t)(bBatches * K * N), 4);
  float *C = arg_heap_ptr(&a, 3, nBatch * (size_t)(M * N), 4);
  if (a.failed) return NULL;
  for (size_t i = 0; i < nBatch; i++) {
    if (aIdx[i] < 0 || aIdx[i] >= aBatches || bIdx[i] < 0 || bIdx[i] >= bBatches)
      return args_throw(&a, "batchMatMul: batch index map out of range");
  }
  if (nBatch == 0 || M == 0 || N == 0) return js_undefined(env);
  if (K == 0) { /* empty inner dimension: the product is all zeros */
    memset(C, 0, nBatch * (size_t)(M * N) * sizeof(float));
    return js_undefined(env);
  }
  const int lda = transA ? (int)M : (int)K;
  const int ldb = transB ? (int)K : (int)N;
  const enum CBLAS_TRANSPOSE ta = transA ? CblasTrans : CblasNoTrans;
  const enum CBLAS_TRANSPOSE tb = transB ? CblasTrans : CblasNoTrans;

  /* One shared right matrix and consecutive left batches: fold the batch into M, one big product. */
  int foldable = !transA && bBatches == 1;
  for (size_t i = 0; foldable && i < nBatch; i++) foldable = aIdx[i] == (int32_t)i;
  if (foldable) {
    rred_sgemm_rows(ta, tb, (int)(M * (int64_t)nBatch), (int)N, (int)K, A, lda, B, ldb, C, NULL);
    return js_undefined(env);
  }
  const int64_t mnk = M * N * K;
  if (mnk >= POOL_SPLIT_MNK) {
    /* Few large products: one at a time, each split by rows across the pool. */
    for (size_t i = 0; i < nBatch; i++) {
      rred_sgemm_rows(ta, tb, (int)M, (int)N, (int)K, A + (size_t)aIdx[i] * M * K, lda, B + (size_t)bIdx[i] * K * N, ldb,
                      C + i * (size_t)(M * N), NULL);
    }
    return js_undefined(env);
  }
  /* Many medium products (attention: [B·H] × S×dh×(P+S)): whole products across the pool, ≥ 65536
     multiply-adds per chunk. */
  BatchJob job = {A, B, C, aIdx, bIdx, M, N, K, lda, ldb, ta, tb, transB && M >= PACK_MIN_ROWS};
  rred_parallel_for((int64_t)nBatch, 1 + 65536 / mnk, batch_chunk, &job);
  return js_undefined(env);
}

napi_value rred_set_threads(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 1)) return NULL;
  const int64_t n = arg_int(&a, 0);
  if (a.failed) return NULL;
  if (n < 1) return args_throw(&a, "setThreads: expected a thread count >= 1");
  requested = (int)n;
  openblas_set_num_threads(1);
  rred_pool_set_threads((int)n);
  return js_undefined(env);
}

napi_value rred_get_threads(napi_env env, napi_callback_info info) {
  (void)info;
  return js_number(env, requested);
}

napi_value rred_blas_config(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value s;
  const char *cfg = openblas_get_config();
  napi_create_string_utf8(env, cfg ? cfg : "unknown", NAPI_AUTO_LENGTH, &s);
  return s;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* sgemmBench(n, reps) -> best seconds for one n x n x n sgemm on private buffers (after one warm-up). */
napi_value rred_sgemm_bench(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_load(env, info, &a, 2)) return NULL;
  const int64_t n = arg_int(&a, 0), reps = arg_int(&a, 1);
  if (a.failed) return NULL;
  if (n < 1 || reps < 1) return args_throw(&a, "sgemmBench: expected n >= 1 and reps >= 1");
  const size_t count = (size_t)(n * n);
  float *A = aligned_alloc(64, ((count * 4 + 63) / 64) * 64);
  float *B = aligned_alloc(64, ((count * 4 + 63) / 64) * 64);
  float *C = aligned_alloc(64, ((count * 4 + 63) / 64) * 64);
  if (!A || !B || !C) {
    free(A), free(B), free(C);
    return args_throw(&a, "sgemmBench: out of memory");
  }
  for (size_t i = 0; i < count; i++) {
    A[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    B[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
  }
  double best = 1e30;
  /* the peak: OpenBLAS's own threads, as many as setThreads asked for (it beat a row split at 1024³) */
  openblas_set_num_threads(requested);
  for (int64_t r = -1; r < reps; r++) {
    const double t0 = now_seconds();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, A, (int)n, B, (int)n, 0.0f,
                C, (int)n);
    const double dt = now_seconds() - t0;
    if (r >= 0 && dt < best) best = dt;
  }
  openblas_set_num_threads(1);
  free(A), free(B), free(C);
  return js_number(env, best);
}
