/* A stand-in for the CUDA runtime API, what bpc/gpu_*.cu, xs/gpu_decoder.cu,
 * the pipeline's GPU stage (pipeline/pl_gpu.c) and their GPU tests use,
 * implemented on the host (cuda_runtime_emu.cpp): device memory is host
 * memory and every call completes before it returns, so streams and events
 * are always idle. Usable from C and C++. */
#ifndef XSF_EMU_CUDA_RUNTIME_API_H
#define XSF_EMU_CUDA_RUNTIME_API_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorSetOnActiveProcess = 36,
    cudaErrorNotReady = 600
} cudaError_t;
struct CUstream_st;
typedef struct CUstream_st *cudaStream_t;
typedef struct emu_event *cudaEvent_t;
enum cudaMemcpyKind {
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};
enum cudaDeviceAttr {
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
struct cudaDeviceProp {
    char name[256];
    int multiProcessorCount;
};
struct cudaFuncAttributes {
    int numRegs;
};
#define cudaStreamNonBlocking 0x01u
#define cudaEventDisableTiming 0x02u
#define cudaHostRegisterPortable 0x01u
#define cudaDeviceScheduleAuto 0x00u
#define cudaDeviceScheduleSpin 0x01u
#define cudaDeviceScheduleYield 0x02u
#define cudaDeviceScheduleBlockingSync 0x04u
#define cudaDeviceScheduleMask 0x07u
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d);
cudaError_t cudaGetDeviceFlags(unsigned *f);
cudaError_t cudaSetDeviceFlags(unsigned f);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *kernel);
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width_bytes, size_t height);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaHostRegister(void *p, size_t n, unsigned flags);
cudaError_t cudaHostUnregister(void *p);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k,
                            cudaStream_t st);
cudaError_t cudaMemset(void *d, int v, size_t n);
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st);
cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                         enum cudaMemcpyKind k);
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                              enum cudaMemcpyKind k, cudaStream_t st);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
#ifdef __cplusplus
}
/* The C++ runtime's typed overloads that device code calls. */
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t n)
{
    return cudaMalloc((void **)p, n);
}
template <typename T> static inline cudaError_t cudaMallocHost(T **p, size_t n)
{
    return cudaMallocHost((void **)p, n);
}
/* Every launch may use as much dynamic shared memory as it asks for. */
template <typename K> static inline cudaError_t cudaFuncSetAttribute(K, enum cudaFuncAttribute, int)
{
    return cudaSuccess;
}
#endif
#endif
