/* CUDA runtime calls of the pipeline, or their stand-ins without CUDA. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "pl_gpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <sys/mman.h>

int pl_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

void pl_gpu_name(int device, char *out, size_t cap)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(out, cap, "device %d", device);
        return;
    }
    snprintf(out, cap, "%s", prop.name);
}

/* Pinned memory is mapped and faulted in by this thread first, then
 * registered with CUDA. cudaHostAlloc faults the pages in itself while it
 * holds the driver's lock: on an H100 a 33 MB picture buffer took 12 ms
 * and held every other thread's CUDA calls (an H2D copy waited 123 ms
 * behind eight of them), so a receiver growing its frames stalled the
 * decoders. Registering pages already present holds them ~2 ms
 * (bench/pipeline/pinned_alloc; BENCHMARKS.md, "Start-up"). The first page
 * keeps the mapping's length for pl_host_free. */
#define HOST_HEADER ((size_t)4096)

void *pl_host_alloc(size_t bytes, int pinned)
{
    if (!pinned)
        return malloc(bytes ? bytes : 1);
    if (bytes > SIZE_MAX - 2 * HOST_HEADER)
        return NULL;
    const size_t total = HOST_HEADER + (bytes + HOST_HEADER - 1) / HOST_HEADER * HOST_HEADER;
    uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                      -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    *(size_t *)m = total;
    if (cudaHostRegister(m, total, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        munmap(m, total);
        return NULL;
    }
    return m + HOST_HEADER;
}

void pl_host_free(void *ptr, int pinned)
{
    if (!ptr)
        return;
    if (!pinned) {
        free(ptr);
        return;
    }
    uint8_t *m = (uint8_t *)ptr - HOST_HEADER;
    const size_t total = *(const size_t *)m;
    cudaHostUnregister(m);
    munmap(m, total);
}

int pl_gpu_select(int device)
{
    return cudaSetDevice(device) == cudaSuccess ? 0 : -1;
}

int pl_gpu_set_sync(int device, int mode)
{
    static const unsigned schedule[4] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin,
                                         cudaDeviceScheduleYield, cudaDeviceScheduleBlockingSync};
    if (mode < 0 || mode > 3)
        return -1;
    unsigned flags = 0;
    /* The device's flags with only the scheduling bits replaced. Since CUDA 11 a device
     * already initialized (xs_gpu_available may have touched it) takes the new flags; an
     * older runtime answers cudaErrorSetOnActiveProcess there. */
    if (cudaSetDevice(device) != cudaSuccess || cudaGetDeviceFlags(&flags) != cudaSuccess ||
        cudaSetDeviceFlags((flags & ~(unsigned)cudaDeviceScheduleMask) | schedule[mode]) !=
            cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}

xs_cuda_stream pl_gpu_stream_create(void)
{
    cudaStream_t s = NULL;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return (xs_cuda_stream)s;
}

void pl_gpu_stream_destroy(xs_cuda_stream s)
{
    if (s)
        cudaStreamDestroy((cudaStream_t)s);
}

void *pl_gpu_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void pl_gpu_free(void *ptr)
{
    if (ptr)
        cudaFree(ptr);
}

int pl_gpu_stream_sync(xs_cuda_stream s)
{
    return cudaStreamSynchronize((cudaStream_t)s) == cudaSuccess ? 0 : -1;
}

#else /* no CUDA */

int pl_gpu_count(void)
{
    return 0;
}

void pl_gpu_name(int device, char *out, size_t cap)
{
    snprintf(out, cap, "device %d", device);
}

void *pl_host_alloc(size_t bytes, int pinned)
{
    (void)pinned;
    return malloc(bytes ? bytes : 1);
}

void pl_host_free(void *ptr, int pinned)
{
    (void)pinned;
    free(ptr);
}

int pl_gpu_select(int device)
{
    (void)device;
    return -1;
}

int pl_gpu_set_sync(int device, int mode)
{
    (void)device, (void)mode;
    return -1;
}

xs_cuda_stream pl_gpu_stream_create(void)
{
    return NULL;
}

void pl_gpu_stream_destroy(xs_cuda_stream s)
{
    (void)s;
}

void *pl_gpu_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void pl_gpu_free(void *ptr)
{
    (void)ptr;
}

int pl_gpu_stream_sync(xs_cuda_stream s)
{
    (void)s;
    return -1;
}

#endif
