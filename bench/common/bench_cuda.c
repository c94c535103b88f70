/* What the CUDA bench programs share (bench_cuda.h). */
#include "bench_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_check_cuda(cudaError_t e, const char *file, int line, const char *call)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, cudaGetErrorString(e));
    exit(1);
}

/* `bytes` of pinned host memory (host) or of device memory, filled with 1s. */
static void *filled(int host, size_t bytes)
{
    void *p = NULL;
    if (host) {
        BENCH_CHECK_CUDA(cudaMallocHost(&p, bytes));
        memset(p, 1, bytes);
    } else {
        BENCH_CHECK_CUDA(cudaMalloc(&p, bytes));
        BENCH_CHECK_CUDA(cudaMemset(p, 1, bytes));
    }
    return p;
}

static void release(int host, void *p)
{
    if (host)
        cudaFreeHost(p);
    else
        cudaFree(p);
}

double bench_copy_gbs(enum cudaMemcpyKind kind, size_t bytes)
{
    const int src_host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost;
    const int dst_host = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost;
    void *src = filled(src_host, bytes), *dst = filled(dst_host, bytes);
    cudaEvent_t e0, e1;
    BENCH_CHECK_CUDA(cudaEventCreate(&e0));
    BENCH_CHECK_CUDA(cudaEventCreate(&e1));
    BENCH_CHECK_CUDA(cudaMemcpy(dst, src, bytes, kind));
    float best = 1e30f;
    for (int i = 0; i < 5; i++) {
        float ms;
        BENCH_CHECK_CUDA(cudaEventRecord(e0, 0));
        BENCH_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, 0));
        BENCH_CHECK_CUDA(cudaEventRecord(e1, 0));
        BENCH_CHECK_CUDA(cudaEventSynchronize(e1));
        BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        best = ms < best ? ms : best;
    }
    release(src_host, src);
    release(dst_host, dst);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return (double)bytes / (best * 1e-3) / 1e9;
}
