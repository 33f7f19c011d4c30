#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#define MAX_WORKERS 31
/*
 * How long an idle worker spins (pause) for the next job before it sleeps on the condition variable.
 * A training step runs a kernel every few hundred µs with JS in between; a worker that slept after
 * ~100 µs (the earlier 2000 pause rounds) had to be woken for most kernels and joined late, leaving the
 * caller to run most chunks alone. Spinning up to 2 ms: engine-bench train step 72-74 -> 69-70 ms
 * (alternating builds). An idle process still sleeps 2 ms after its last kernel, and a spinning worker
 * yields its core every SPIN_CHECK rounds, so another process's thread that wants it is not held off.
 */
#define SPIN_NS 2000000
#define SPIN_CHECK 64 /* pause rounds between clock reads */

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A published job. Two slots alternate, so a slot is only rewritten after the job before it finished. */
typedef struct {
  rred_chunk_fn fn;
  void *ctx;
  int64_t n, chunk;
  _Atomic int64_t nchunks;
  _Atomic int64_t done;
} Job;

static Job jobs[2];
/* (generation << 32) | next chunk index: one atomic ties "which job" to "which chunk". */
static _Atomic uint64_t ctrl = 0;
static uint32_t generation = 0; /* written by the calling thread only */
static _Atomic int sleepers = 0;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started = 0;      /* workers created */
static int active_threads = 1;
/* One caller at a time owns the pool; a concurrent caller (e.g. another worker_thread that loaded the
   addon) runs its loop serially instead of corrupting the shared job slots. */
static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Grab and run chunks of generation `gen` until none are left or a newer job replaced it. */
static void run_chunks(uint64_t v, uint32_t gen) {
  Job *job = &jobs[gen & 1];
  for (;;) {
    if ((uint32_t)(v >> 32) != gen) return;
    const int64_t idx = (int64_t)(v & 0xffffffffu);
    if (idx >= atomic_load_explicit(&job->nchunks, memory_order_relaxed)) return;
    if (!atomic_compare_exchange_weak_explicit(&ctrl, &v, v + 1, memory_order_acq_rel, memory_order_acquire)) continue;
    const int64_t begin = idx * job->chunk;
    const int64_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
    job->fn(job->ctx, begin, end);
    atomic_fetch_add_explicit(&job->done, 1, memory_order_acq_rel);
    v = atomic_load_explicit(&ctrl, memory_order_acquire);
  }
}

static void *worker_main(void *arg) {
  (void)arg;
  uint32_t seen = (uint32_t)(atomic_load(&ctrl) >> 32);
  for (;;) {
    uint64_t v = atomic_load_explicit(&ctrl, memory_order_acquire);
    const int64_t until = now_ns() + SPIN_NS;
    for (int spin = 1; (uint32_t)(v >> 32) == seen; spin++) {
      cpu_relax();
      v = atomic_load_explicit(&ctrl, memory_order_acquire);
      if (spin % SPIN_CHECK == 0) {
        if (now_ns() > until) break;
        sched_yield(); /* another process's runnable thread on this core goes first (e.g. two jobs on 2 cores) */
      }
    }
    if ((uint32_t)(v >> 32) == seen) {
      pthread_mutex_lock(&mu);
      atomic_fetch_add(&sleepers, 1);
      while ((uint32_t)((v = atomic_load(&ctrl)) >> 32) == seen) pthread_cond_wait(&cv, &mu);
      atomic_fetch_sub(&sleepers, 1);
      pthread_mutex_unlock(&mu);
    }
    seen = (uint32_t)(v >> 32);
    run_chunks(v, seen);
  }
  return NULL;
}

void rred_pool_set_threads(int threads) {
  if (threads < 1) threads = 1;
  if (threads > MAX_WORKERS + 1) threads = MAX_WORKERS + 1;
  while (started < threads - 1) {
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, worker_main, NULL) != 0) {
      pthread_attr_destroy(&attr);
      break;
    }
    pthread_attr_destroy(&attr);
    started++;
  }
  active_threads = threads < started + 1 ? threads : started + 1;
}

int rred_pool_threads(void) { return active_threads; }

void rred_parallel_for(int64_t n, int64_t grain, rred_chunk_fn fn, void *ctx) {
  if (n <= 0) return;
  if (active_threads <= 1 || n < 2 * grain || pthread_mutex_trylock(&owner) != 0) {
    fn(ctx, 0, n);
    return;
  }
  /* About 4 chunks per thread: small enough that nobody waits long for a straggler. */
  int64_t nchunks = (int64_t)active_threads * 4;
  int64_t chunk = (n + nchunks - 1) / nchunks;
  if (chunk < grain) chunk = grain;
  nchunks = (n + chunk - 1) / chunk;
  const uint32_t gen = ++generation;
  Job *job = &jobs[gen & 1];
  job->fn = fn;
  job->ctx = ctx;
  job->n = n;
  job->chunk = chunk;
  atomic_store_explicit(&job->done, 0, memory_order_relaxed);
  atomic_store_explicit(&job->nchunks, nchunks, memory_order_relaxed);
  atomic_store_explicit(&ctrl, (uint64_t)gen << 32, memory_order_seq_cst); /* publish */
  if (atomic_load(&sleepers) > 0) {
    pthread_mutex_lock(&mu);
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  run_chunks(atomic_load(&ctrl), gen);
  while (atomic_load_explicit(&job->done, memory_order_acquire) < nchunks) cpu_relax();
  pthread_mutex_unlock(&owner);
}
