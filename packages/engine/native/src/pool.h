/*
 * A small thread pool for the memory-bound kernels (elementwise, softmax, copies). Work is split
 * into chunks that every participant grabs from a shared counter, and the calling thread grabs
 * chunks too: it never waits for a worker that has not started (a descheduled worker on a busy
 * machine costs nothing), only for chunks already running.
 */
#ifndef RRED_POOL_H
#define RRED_POOL_H
#include <stdint.h>

typedef void (*rred_chunk_fn)(void *ctx, int64_t begin, int64_t end);

/* Total threads taking part (caller included), >= 1. Starts workers on first use. */
void rred_pool_set_threads(int threads);
int rred_pool_threads(void);

/* Runs fn over [0, n) in chunks of at least `grain` items; serial when n is small or threads == 1. */
void rred_parallel_for(int64_t n, int64_t grain, rred_chunk_fn fn, void *ctx);

#endif
