/* Worker threads for data-parallel loops (xsf_pool.h). A run publishes the
 * function, the range and a new generation number under the mutex and wakes
 * the workers; indices are taken from an atomic counter by every thread,
 * the caller's included; the last worker to finish wakes the caller. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "xsf_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

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
    unsigned long generation; /* a new run (under lock) */
    int busy;                 /* workers still in the current run (under lock) */
    int stop;
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

static void *worker_main(void *arg)
{
    pool_worker *w = arg;
    xsf_pool *p = w->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        take_indices(p, w->index);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
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
        p->stop = 1;
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
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->busy = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    take_indices(p, 0);
    pthread_mutex_lock(&p->lock);
    while (p->busy)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
