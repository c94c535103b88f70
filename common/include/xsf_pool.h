/* A pool of worker threads for data-parallel loops: xsf_pool_run calls a
 * function once for every index of a range, on the pool's threads and the
 * caller's, and returns when every call has returned. The threads are made
 * once, at creation, and wait between runs; a run allocates nothing.
 *
 * Indices are handed out in rising order as threads become free, so which
 * thread gets which index varies from run to run: a caller whose result
 * must not depend on the thread count writes each index's result to a
 * place of its own (per-thread scratch by the `worker` argument).
 *
 * Threads: one run at a time per pool (the pool is used by one thread at a
 * time); fn may not call xsf_pool_run on the same pool. */
#ifndef XSF_POOL_H
#define XSF_POOL_H

#include <stddef.h>

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XSF_POOL_MAX_THREADS 256

typedef struct xsf_pool xsf_pool;

/* fn(ctx, index, worker): worker in [0, xsf_pool_threads) names the thread
 * running it (0 is the caller of xsf_pool_run). */
typedef void (*xsf_pool_fn)(void *ctx, size_t index, int worker);

/* Online CPUs (sysconf), at least 1. */
int xsf_cpu_count(void);

/* A pool of `threads` threads, the caller of xsf_pool_run included (1: no
 * thread is made, runs are plain loops; 0: xsf_cpu_count()); at most
 * XSF_POOL_MAX_THREADS. Where the system gives fewer threads than asked,
 * the pool has those it got (xsf_pool_threads says how many). */
xsf_status xsf_pool_create(xsf_pool **pool, int threads, xsf_error *err);
/* Stops and joins the threads (NULL: nothing). */
void xsf_pool_destroy(xsf_pool *pool);
int xsf_pool_threads(const xsf_pool *pool);

/* fn(ctx, i, worker) for every i in [0, n); returns when all have returned.
 * Since indices are handed out in rising order and a taken index runs to
 * its end, fn(i) may wait for the effect of fn(j), j < i, by spinning
 * (xsf_pool_pause) where fn(j) waits only for lower indices in turn. */
void xsf_pool_run(xsf_pool *pool, size_t n, xsf_pool_fn fn, void *ctx);

/* Step k (1, 2, ...) of a spin wait: a pause, and every 64 steps the core
 * yielded (so a pool larger than the machine still makes progress). */
void xsf_pool_pause(unsigned k);

/* A data-parallel loop runner handed to a library by its caller (the C
 * decoder's parallel hook, xs_decoder_set_parallel): run(self, n, fn, ctx)
 * calls fn(ctx, i, worker) once for every i in [0, n), worker in
 * [0, threads) naming the thread (0 the caller of run; no two calls under
 * way at once share a worker), and returns when all have returned. Who
 * runs the calls is the runner's business (a pool, a pipeline's idle
 * decoder threads); several runs may be under way at once from different
 * callers. The library owns no thread: it splits its work into
 * independent parts and lets the runner spread them. */
typedef struct xsf_parallel {
    void (*run)(void *self, size_t n, xsf_pool_fn fn, void *ctx);
    void *self;
    int threads; /* the most workers of one run, the caller's included (>= 1) */
} xsf_parallel;

/* A pool as a runner (one run at a time: the pool's rule). */
xsf_parallel xsf_pool_parallel(xsf_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
