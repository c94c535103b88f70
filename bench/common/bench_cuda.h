/* What the CUDA bench programs share (bench/common, target bench_common
 * where CUDA is built): a CUDA call checked, and the copy rates they measure
 * their floors with. Program code: a failed call prints where and exits 1. */
#ifndef XSF_BENCH_CUDA_H
#define XSF_BENCH_CUDA_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* Exits 1 after printing "file:line: call: CUDA's message" if call fails. */
#define BENCH_CHECK_CUDA(call) bench_check_cuda((call), __FILE__, __LINE__, #call)
void bench_check_cuda(cudaError_t e, const char *file, int line, const char *call);

/* GB/s of copies of `bytes` of `kind` (host memory pinned), bytes moved once
 * per copy: the best of 5 after one untimed, each timed by events on the
 * default stream. Device-to-device copies read and write each byte, so
 * twice this is the device memory's rate. On the current device. */
double bench_copy_gbs(enum cudaMemcpyKind kind, size_t bytes);

#endif
