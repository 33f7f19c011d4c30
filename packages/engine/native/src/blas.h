/*
 * The engine's one way to run a large product on several threads (blas.c): C = op(A)·op(B) split by rows
 * of C across the kernel pool, one single-threaded sgemm per part, with optional hooks run on each
 * part's rows right before and after its product (while they are in cache).
 */
#ifndef RRED_BLAS_H
#define RRED_BLAS_H
#include <cblas.h>
#include <stdint.h>

/* Runs on rows [m0, m1) of C. */
typedef void (*rred_rows_fn)(void *ctx, int m0, int m1);

/* Optional per-part hooks: `before` initialises C's rows and the product is then added to them (beta 1:
   OpenBLAS skips its zero fill); `after` runs on the rows once they hold the result. Either may be NULL. */
typedef struct {
  rred_rows_fn before, after;
  void *ctx;
} RowHooks;

/* M rows split into `parts` runs of `rows` rows each (whole 16-row blocks; the last run may be shorter). */
typedef struct {
  int parts, rows;
} RowParts;

/* At most `want` parts of M rows; one part when want <= 1 or M < 32. */
RowParts rred_row_parts(int64_t M, int want);

/* C [M, N] (row stride N) = op(A)·op(B), or += with hooks->before; hooks may be NULL. */
void rred_sgemm_rows(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float *C, const RowHooks *hooks);

#endif
