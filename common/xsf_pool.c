/* Worker threads for data-parallel loops (xsf_pool.h). A run publishes the
 * function and the range, then a new generation number; indices are taken
 * from an atomic counter by every thread, the caller's included; each
 * worker counts itself off when the range is done. Runs come back to back
 * (a frame of the encoder is a dozen), so a thread that waits (a worker for
 * the next run, the caller for the last worker) spins for a while before it
 * sleeps on a condition variable: waking sleeping threads one after the
 * other costs tens of microseconds a run. */
#define _POSIX_C_SOURCE 200809L /* sysconf, clock_gettime */
#include "xsf_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define SPIN_NS 100000 /* how long a waiting thread spins before it sleeps */

typedef struct pool_worker {
    xsf_pool *pool;
    int index;
    pthread_t thread;
} pool_worker;

struct xsf_pool {
    int threads; /* the caller's included */
    pool_worker *workers;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    atomic_ulong generation; /* a new run: fn, ctx and n are set before it moves */
    atomic_int busy;         /* workers still in the current run */
    atomic_int sleepers;     /* workers asleep on wake, or about to be (under lock) */
    atomic_int stop;
    xsf_pool_fn fn;
    void *ctx;
    size_t n;
    atomic_size_t next;
};

int xsf_cpu_count(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (n < XSF_POOL_MAX_THREADS ? (int)n : XSF_POOL_MAX_THREADS) : 1;
}

static void take_indices(xsf_pool *p, int worker)
{
    for (;;) {
        const size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->n)
            return;
        p->fn(p->ctx, i, worker);
    }
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void xsf_pool_pause(unsigned k)
{
    CPU_RELAX();
    if (k % 64 == 0)
        sched_yield();
}

/* Spins up to SPIN_NS while *v == old (and no stop); returns the last value
 * seen. Yields the core now and then, for pools larger than the machine. */
static unsigned long spin_while(const atomic_ulong *v, unsigned long old, const atomic_int *stop)
{
    long long until = 0;
    for (unsigned k = 1;; k++) {
        const unsigned long cur = atomic_load(v);
        if (cur != old || atomic_load_explicit(stop, memory_order_relaxed))
            return cur;
        xsf_pool_pause(k);
        if (k % 64 == 0) {
            const long long t = now_ns();
            if (!until)
                until = t + SPIN_NS;
            else if (t >= until)
                return cur;
        }
    }
}

static void *worker_main(void *arg)
{
    pool_worker *w = arg;
    xsf_pool *p = w->pool;
    unsigned long seen = 0;
    for (;;) {
        unsigned long g = spin_while(&p->generation, seen, &p->stop);
        if (g == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->lock);
            atomic_fetch_add(&p->sleepers, 1);
            while (!atomic_load(&p->stop) && (g = atomic_load(&p->generation)) == seen)
                pthread_cond_wait(&p->wake, &p->lock);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load(&p->stop))
            break;
        seen = g;
        take_indices(p, w->index);
        if (atomic_fetch_sub(&p->busy, 1) == 1) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

xsf_status xsf_pool_create(xsf_pool **out, int threads, xsf_error *err)
{
    if (!out || threads < 0 || threads > XSF_POOL_MAX_THREADS)
        return xsf_error_set(err, XSF_ERR_ARG, "thread pool: %d threads, expected 0..%d", threads,
                             XSF_POOL_MAX_THREADS);
    *out = NULL;
    if (threads == 0)
        threads = xsf_cpu_count();
    xsf_pool *p = calloc(1, sizeof *p);
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "thread pool: out of memory");
    p->threads = 1;
    atomic_init(&p->next, 0);
    atomic_init(&p->generation, 0);
    atomic_init(&p->busy, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->stop, 0);
    if (threads > 1) {
        p->workers = calloc((size_t)threads - 1, sizeof *p->workers);
        if (!p->workers || pthread_mutex_init(&p->lock, NULL)) {
            free(p->workers);
            free(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "thread pool: out of memory");
        }
        pthread_cond_init(&p->wake, NULL);
        pthread_cond_init(&p->done, NULL);
        p->started = 1;
        for (int i = 0; i < threads - 1; i++) {
            pool_worker *w = &p->workers[i];
            w->pool = p;
            w->index = i + 1;
            if (pthread_create(&w->thread, NULL, worker_main, w))
                break; /* fewer threads than asked: the pool runs on those it has */
            p->threads++;
        }
    }
    *out = p;
    return XSF_OK;
}

void xsf_pool_destroy(xsf_pool *p)
{
    if (!p)
        return;
    if (p->started) {
        pthread_mutex_lock(&p->lock);
        atomic_store(&p->stop, 1);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
        for (int i = 0; i < p->threads - 1; i++)
            pthread_join(p->workers[i].thread, NULL);
        pthread_cond_destroy(&p->wake);
        pthread_cond_destroy(&p->done);
        pthread_mutex_destroy(&p->lock);
    }
    free(p->workers);
    free(p);
}

int xsf_pool_threads(const xsf_pool *p)
{
    return p ? p->threads : 1;
}

void xsf_pool_run(xsf_pool *p, size_t n, xsf_pool_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (p->threads == 1 || n == 1) {
        for (size_t i = 0; i < n; i++)
            fn(ctx, i, 0);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store(&p->busy, p->threads - 1);
    atomic_fetch_add(&p->generation, 1);
    if (atomic_load(&p->sleepers)) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    take_indices(p, 0);
    /* The workers still in the run: spin on busy, then sleep. */
    long long until = 0;
    for (unsigned k = 1; atomic_load(&p->busy); k++) {
        xsf_pool_pause(k);
        if (k % 64 == 0) {
            const long long t = now_ns();
            if (!until) {
                until = t + SPIN_NS;
            } else if (t >= until) {
                pthread_mutex_lock(&p->lock);
                while (atomic_load(&p->busy))
                    pthread_cond_wait(&p->done, &p->lock);
                pthread_mutex_unlock(&p->lock);
                break;
            }
        }
    }
}

static void pool_parallel_run(void *self, size_t n, xsf_pool_fn fn, void *ctx)
{
    xsf_pool_run(self, n, fn, ctx);
}

xsf_parallel xsf_pool_parallel(xsf_pool *pool)
{
    return (xsf_parallel){
        .run = pool_parallel_run, .self = pool, .threads = xsf_pool_threads(pool)};
}
