/*
 * The engine's one way to run a large product on several threads (blas.c): C = op(A)·op(B) split by rows
 * of C across the kernel pool, one single-threaded sgemm per part, with an optional epilogue run on each
 * part's rows right after its product (while they are in cache).
 */
#ifndef RRED_BLAS_H
#define RRED_BLAS_H
#include <cblas.h>
#include <stdint.h>

/* Runs on rows [m0, m1) of C once they hold the product. */
typedef void (*rred_rows_fn)(void *ctx, int m0, int m1);

/* C [M, N] (row stride N) = op(A)·op(B); then epilogue(ctx, m0, m1) per part (epilogue may be NULL). */
void rred_sgemm_rows(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float *C, rred_rows_fn epilogue, void *ctx);

#endif
