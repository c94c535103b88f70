/* The runtime stand-in of cuda_runtime_api.h: host memory, synchronous. */
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"

struct emu_event {
    int recorded;
};

extern "C" {
const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : (e == cudaErrorMemoryAllocation ? "out of memory" : "invalid value");
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    if (*p) /* device memory is not zeroed: poison it */
        memset(*p, 0xcd, n);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind)
{
    memmove(d, s, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t)
{
    return cudaMemcpy(d, s, n, k);
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                              enum cudaMemcpyKind, cudaStream_t)
{
    if (w > dp || w > sp)
        return cudaErrorInvalidValue;
    for (size_t y = 0; y < h; y++)
        memcpy((char *)d + y * dp, (const char *)s + y * sp, w);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)calloc(1, sizeof(struct emu_event));
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
    e->recorded = 1;
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = 0;
    return a->recorded && b->recorded ? cudaSuccess : cudaErrorInvalidValue;
}
}
