/* The thread pool (xsf_pool.h): every index of a run once, on a thread the
 * pool names, runs back to back, the caller's thread among the workers. */
#include <stdatomic.h>
#include <string.h>

#include "test.h"
#include "xsf_pool.h"

#define N 1000

typedef struct run_ctx {
    atomic_int calls[N];
    atomic_int bad_worker;
    int threads;
} run_ctx;

static void count(void *ctx, size_t i, int worker)
{
    run_ctx *r = ctx;
    atomic_fetch_add(&r->calls[i], 1);
    if (worker < 0 || worker >= r->threads)
        atomic_fetch_add(&r->bad_worker, 1);
}

/* Index i waits for index i - 1 (its chain of 4), then marks itself done:
 * allowed by the pool's order (xsf_pool.h); the order is checked too. */
static void chain(void *ctx, size_t i, int worker)
{
    run_ctx *r = ctx;
    (void)worker;
    if (i % 4)
        for (unsigned k = 1; !atomic_load(&r->calls[i - 1]); k++)
            xsf_pool_pause(k);
    if (i % 4 && atomic_load(&r->calls[i - 1]) != 1)
        atomic_fetch_add(&r->bad_worker, 1);
    atomic_fetch_add(&r->calls[i], 1);
}

int main(void)
{
    CHECK(xsf_cpu_count() >= 1, "%d cores", xsf_cpu_count());
    xsf_pool *p = NULL;
    xsf_error err;
    CHECK(xsf_pool_create(&p, -1, &err) == XSF_ERR_ARG, "negative count refused");
    CHECK(xsf_pool_create(&p, XSF_POOL_MAX_THREADS + 1, &err) == XSF_ERR_ARG, "too many refused");
    static run_ctx r;
    const int counts[] = {1, 2, 3, 7, 0};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        CHECK(xsf_pool_create(&p, counts[k], &err) == XSF_OK, "pool of %d: %s", counts[k], err.msg);
        if (!p)
            continue;
        r.threads = xsf_pool_threads(p);
        CHECK(r.threads == (counts[k] ? counts[k] : xsf_cpu_count()), "%d threads for %d",
              r.threads, counts[k]);
        for (int run = 0; run < 50; run++) {
            const size_t n = (size_t)(run * 37 % N) + (run == 0 ? 0 : 1);
            for (size_t i = 0; i < N; i++)
                atomic_store(&r.calls[i], 0);
            atomic_store(&r.bad_worker, 0);
            xsf_pool_run(p, n, count, &r);
            int wrong = 0;
            for (size_t i = 0; i < N; i++)
                wrong += atomic_load(&r.calls[i]) != (i < n);
            CHECK(!wrong, "pool of %d, run %d of %zu indices: %d indices called other than once",
                  r.threads, run, n, wrong);
            CHECK(!atomic_load(&r.bad_worker), "worker index out of range");
        }
        for (size_t i = 0; i < N; i++)
            atomic_store(&r.calls[i], 0);
        xsf_pool_run(p, N, chain, &r);
        int wrong = 0;
        for (size_t i = 0; i < N; i++)
            wrong += atomic_load(&r.calls[i]) != 1;
        CHECK(!wrong && !atomic_load(&r.bad_worker),
              "pool of %d, indices waiting for lower ones: %d called other than once", r.threads,
              wrong);
        xsf_pool_destroy(p);
        p = NULL;
    }
    xsf_pool_destroy(NULL);
    return xsf_test_finish();
}
