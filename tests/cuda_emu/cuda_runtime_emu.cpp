/* The runtime stand-in of cuda_runtime_api.h: host memory, synchronous.
 * Device allocations are poisoned, as device memory is not zeroed: a kernel
 * or a copy that reads what nobody wrote gives garbage here too. A stream is
 * a distinct heap byte (so that streams compare as on a GPU); an event
 * remembers only whether it was recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"

struct emu_event {
    int recorded;
};

static unsigned device_flags;

extern "C" {
const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNotReady: return "not ready";
    case cudaErrorSetOnActiveProcess: return "cannot set while device is active in this process";
    default: return "invalid argument";
    }
}
cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}
/* One emulated device, or XSF_CUDA_EMU_DEVICES of them (at most 8), all
 * the same host memory: enough for the device rule's test
 * (xsf_cuda_device.h), which needs a second device to switch to. */
static int emu_devices(void)
{
    const char *v = getenv("XSF_CUDA_EMU_DEVICES");
    const int n = v ? atoi(v) : 1;
    return n < 1 ? 1 : n > 8 ? 8 : n;
}
static thread_local int current_device;
cudaError_t cudaGetDeviceCount(int *n)
{
    *n = emu_devices();
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int d)
{
    if (d < 0 || d >= emu_devices())
        return cudaErrorInvalidValue;
    current_device = d;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d)
{
    *d = current_device;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    if (d < 0 || d >= emu_devices())
        return cudaErrorInvalidValue;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "host emulation");
    p->multiProcessorCount = 4;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
    if (d < 0 || d >= emu_devices())
        return cudaErrorInvalidValue;
    if (a == cudaDevAttrMaxSharedMemoryPerBlockOptin) {
        *v = 227 * 1024; /* an H100's */
        return cudaSuccess;
    }
    if (a != cudaDevAttrMultiProcessorCount)
        return cudaErrorInvalidValue;
    *v = 4; /* few: a grid-stride loop then strides */
    return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned *f)
{
    *f = device_flags;
    return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned f)
{
    device_flags = f;
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void)
{
    return cudaSuccess;
}
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *kernel)
{
    memset(a, 0, sizeof *a);
    return kernel ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    if (*p) /* device memory is not zeroed: poison it */
        memset(*p, 0xcd, n);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width_bytes, size_t height)
{
    /* Rows 512-byte aligned, as a GPU pitches them: callers must use the pitch. */
    *pitch = (width_bytes + 511) & ~(size_t)511;
    return cudaMalloc(p, *pitch * (height ? height : 1));
}
cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMallocHost(void **p, size_t n)
{
    return cudaMalloc(p, n);
}
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned)
{
    return cudaMalloc(p, n);
}
cudaError_t cudaFreeHost(void *p)
{
    return cudaFree(p);
}
cudaError_t cudaHostRegister(void *p, size_t n, unsigned)
{
    return p && n ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaHostUnregister(void *p)
{
    return p ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind)
{
    memmove(d, s, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t)
{
    return cudaMemcpy(d, s, n, k);
}
cudaError_t cudaMemset(void *d, int v, size_t n)
{
    memset(d, v, n);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    return cudaMemset(d, v, n);
}
cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                         enum cudaMemcpyKind k)
{
    return cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, NULL);
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
cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    return cudaStreamCreateWithFlags(s, 0);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = (cudaStream_t)malloc(1);
    return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    free(s);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t)
{
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)calloc(1, sizeof(struct emu_event));
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
    return cudaEventCreate(e);
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
/* Every recorded (or never recorded) event has completed: the work before it ran in the call that
 * enqueued it. */
cudaError_t cudaEventQuery(cudaEvent_t e)
{
    return e ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    return e ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = 0;
    return a->recorded && b->recorded ? cudaSuccess : cudaErrorInvalidValue;
}
}
