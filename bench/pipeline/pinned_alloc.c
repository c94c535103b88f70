/* Pinned host memory: what an allocation costs the thread that makes it and
 * what it costs every other thread's CUDA calls meanwhile.
 *
 * A second thread copies 1 MiB host-to-device and synchronizes in a loop; the
 * table gives its worst copy while the first thread allocates and frees
 * buffers of a receiver's frame (4.6 MB, a UHD 4:2:2 3 bpp codestream and a
 * half) and of a picture (33.2 MB) in three ways:
 *   cudaHostAlloc        the driver faults the pages in under its lock
 *   register, untouched  malloc + cudaHostRegister: the same, in the register
 *   pl_host_alloc        the pipeline's: mmap(MAP_POPULATE) in this thread,
 *                        then cudaHostRegister of pages already present
 * usage: pipeline_pinned_alloc [ROUNDS] (--help) */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "pl_gpu.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

typedef struct probe {
    volatile int stop;
    double worst_ms;
    long copies;
} probe;

static void *prober(void *arg)
{
    probe *pr = arg;
    cudaStream_t s;
    void *d = NULL, *h = NULL;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&d, 1 << 20) != cudaSuccess || cudaHostAlloc(&h, 1 << 20, 0) != cudaSuccess)
        return NULL;
    while (!pr->stop) {
        const double t0 = 1e3 * xsf_clock_mono_s();
        cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, s);
        cudaStreamSynchronize(s);
        const double dt = 1e3 * xsf_clock_mono_s() - t0;
        pr->worst_ms = dt > pr->worst_ms ? dt : pr->worst_ms;
        pr->copies++;
    }
    cudaFreeHost(h);
    cudaFree(d);
    cudaStreamDestroy(s);
    return NULL;
}

enum { HOSTALLOC, REGISTER_UNTOUCHED, PL_HOST_ALLOC, WAYS };
static const char *const names[WAYS] = {"cudaHostAlloc", "malloc + register", "pl_host_alloc"};

static void *alloc_one(int way, size_t bytes)
{
    void *p = NULL;
    switch (way) {
    case HOSTALLOC:
        return cudaHostAlloc(&p, bytes, cudaHostAllocPortable) == cudaSuccess ? p : NULL;
    case REGISTER_UNTOUCHED:
        if (!(p = malloc(bytes)))
            return NULL;
        if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
            free(p);
            return NULL;
        }
        return p;
    default: return pl_host_alloc(bytes, 1);
    }
}

static void free_one(int way, void *p)
{
    switch (way) {
    case HOSTALLOC: cudaFreeHost(p); break;
    case REGISTER_UNTOUCHED:
        cudaHostUnregister(p);
        free(p);
        break;
    default: pl_host_free(p, 1); break;
    }
}

static int measure(int way, size_t bytes, int n)
{
    void **bufs = calloc((size_t)n, sizeof *bufs);
    probe pr = {0, 0, 0};
    pthread_t th;
    if (!bufs || pthread_create(&th, NULL, prober, &pr))
        return 1;
    while (pr.copies < 50) /* the prober runs before the first allocation */
        sched_yield();
    const double t0 = 1e3 * xsf_clock_mono_s();
    for (int i = 0; i < n; i++)
        if (!(bufs[i] = alloc_one(way, bytes))) {
            fprintf(stderr, "%s of %zu bytes failed\n", names[way], bytes);
            return 1;
        }
    const double t1 = 1e3 * xsf_clock_mono_s();
    for (int i = 0; i < n; i++)
        free_one(way, bufs[i]);
    const double t2 = 1e3 * xsf_clock_mono_s();
    pr.stop = 1;
    pthread_join(th, NULL);
    printf("| %s | %zu x %d | %.2f | %.2f | %.2f | %.2f |\n", names[way], bytes, n, (t1 - t0) / n,
           (double)bytes * n / ((t1 - t0) * 1e6), (t2 - t1) / n, pr.worst_ms);
    free(bufs);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 1;
    const cli_option args[] = {
        CLI_ARG("ROUNDS", CLI_INT, &rounds, "times the table is measured (default 1)", .lo = 0,
                .hi = 1000),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "Pinned host allocations and what they cost another "
                                      "thread's CUDA calls.\n",
                             .options = args};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    if (cudaFree(0) != cudaSuccess) {
        fprintf(stderr, "pinned_alloc: no CUDA device\n");
        return 77;
    }
    printf("| allocation | bytes x count | ms each | GB/s | free ms each | another thread's 1 MiB "
           "H2D + sync, worst ms |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: |\n");
    for (int r = 0; r < rounds; r++)
        for (int way = 0; way < WAYS; way++)
            if (measure(way, 4665344, 16) || measure(way, 33177600, 8))
                return 1;
    return 0;
}
