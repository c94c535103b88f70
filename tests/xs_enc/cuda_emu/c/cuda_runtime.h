/* C view of the emulated runtime (for the test program). */
#pragma once
#include <stddef.h>
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, int kind);
cudaError_t cudaFree(void *p);
