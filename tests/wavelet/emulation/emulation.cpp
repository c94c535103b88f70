/* Host emulation of the wavelet CUDA kernels, so that CI (no GPU) checks the
 * kernel logic: the GPU test (test_wavelet_cuda.c) and the plan code
 * (plan_cuda.cu) are built against the stand-in runtime of cuda_runtime_api.h,
 * and the kernels of dwt_kernels.cuh are compiled as host C++.
 *
 * A warp is 32 fibers (ucontext) on one thread, switched only at the warp's
 * synchronization points (shuffles, __syncwarp): between them each lane runs
 * alone, as under independent thread scheduling. A shuffle is two rounds: every
 * lane posts its value, then every lane reads its source's. A lane that ends
 * while others wait at a barrier means divergent synchronization: reported and
 * fatal. Timing says nothing about the GPU. */
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "cuda_runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct int4 {
    int x, y, z, w;
};
struct float4 {
    float x, y, z, w;
};
using std::max;
using std::min;

namespace
{
constexpr size_t STACK_BYTES = 256 * 1024;
struct lane_state {
    ucontext_t ctx;
    bool done;
};
ucontext_t scheduler;
lane_state lanes[32];
char *stacks[32];
int current;
uint64_t slots[32];
const std::function<void()> *kernel_body;
dim3 thread_idx[32];
} // namespace

static dim3 blockIdx;
#define threadIdx (thread_idx[current])

static void yield_to_scheduler()
{
    swapcontext(&lanes[current].ctx, &scheduler);
}

template <class T> static T exchange(T v, int src)
{
    uint64_t u = 0;
    memcpy(&u, &v, sizeof v);
    slots[current] = u;
    yield_to_scheduler();
    T r;
    const uint64_t w = slots[src];
    memcpy(&r, &w, sizeof r);
    yield_to_scheduler();
    return r;
}
template <class T> static T __shfl_down_sync(unsigned, T v, int d)
{
    return exchange(v, current + d < 32 ? current + d : current);
}
template <class T> static T __shfl_up_sync(unsigned, T v, int d)
{
    return exchange(v, current - d >= 0 ? current - d : current);
}
static void __syncwarp()
{
    yield_to_scheduler();
}
template <class T> static T __ldg(const T *p)
{
    return *p;
}
static float __fadd_rn(float a, float b)
{
    volatile float r = a + b;
    return r;
}
static float __fmul_rn(float a, float b)
{
    volatile float r = a * b;
    return r;
}

#include "dwt_kernels.cuh"

namespace wav
{
int4 smem_rows[(227 * 1024) / sizeof(int4)];
}

static void lane_entry()
{
    (*kernel_body)();
    lanes[current].done = true;
    swapcontext(&lanes[current].ctx, &scheduler);
}

/* Runs one warp of `body` to completion, round by round. */
static void run_warp(const std::function<void()> &body, int warp)
{
    kernel_body = &body;
    for (int l = 0; l < 32; l++) {
        if (!stacks[l])
            stacks[l] = static_cast<char *>(malloc(STACK_BYTES));
        getcontext(&lanes[l].ctx);
        lanes[l].ctx.uc_stack.ss_sp = stacks[l];
        lanes[l].ctx.uc_stack.ss_size = STACK_BYTES;
        lanes[l].ctx.uc_link = nullptr;
        lanes[l].done = false;
        thread_idx[l] = dim3(warp * 32 + l);
        makecontext(&lanes[l].ctx, lane_entry, 0);
    }
    for (;;) {
        int finished = 0;
        for (int l = 0; l < 32; l++) {
            if (lanes[l].done) {
                finished++;
                continue;
            }
            current = l;
            swapcontext(&scheduler, &lanes[l].ctx);
            finished += lanes[l].done;
        }
        if (finished == 32)
            return;
        if (finished != 0) {
            fprintf(stderr, "emulation: divergent warp synchronization (%d of 32 lanes ended)\n",
                    finished);
            abort();
        }
    }
}

template <class K> static void run_grid(dim3 grid, int threads, const K &kernel)
{
    const std::function<void()> body = kernel;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                blockIdx = dim3(x, y, z);
                for (int w = 0; w < threads / 32; w++)
                    run_warp(body, w);
            }
}

namespace wav
{
template <class F>
static cudaError_t emulate_level2d(bool inverse, const level2d_args &a, const wav_u16_output *u16)
{
    const int wl = (a.width + 1) / 2;
    const int strips = (wl + VALID - 1) / VALID;
    const dim3 grid((strips + LEVEL2D_WARPS - 1) / LEVEL2D_WARPS, level2d_chunks(a), a.planes);
    if (grid.y > 65535 || grid.z > 65535)
        return cudaErrorInvalidValue;
    if (u16 && !(inverse && std::is_same<typename F::T, int32_t>::value))
        return cudaErrorInvalidValue; /* the 5/3's inverse only */
    const wav_u16_output none = {}, &out = u16 ? *u16 : none;
    run_grid(grid, LEVEL2D_WARPS * 32, [&] {
        if constexpr (std::is_same<typename F::T, int32_t>::value)
            if (u16)
                return level2d_inverse<F, true>(a, out);
        if (inverse)
            level2d_inverse<F>(a, out);
        else
            level2d_forward<F>(a);
    });
    return cudaSuccess;
}
template <class F>
static cudaError_t emulate_rows(bool inverse, const rows_args &a, const wav_u16_output *u16,
                                size_t smem)
{
    if (smem > sizeof smem_rows)
        return cudaErrorInvalidValue;
    if (u16 && !(inverse && std::is_same<typename F::T, int32_t>::value))
        return cudaErrorInvalidValue; /* the 5/3's inverse only */
    const wav_u16_output none = {}, &out = u16 ? *u16 : none;
    const long long rows = (long long)a.height * a.planes;
    const dim3 grid((unsigned)((rows + a.warps_per_block - 1) / a.warps_per_block));
    run_grid(grid, a.warps_per_block * 32, [&] {
        if constexpr (std::is_same<typename F::T, int32_t>::value)
            if (u16)
                return rows_kernel<F, true>(a, inverse, out);
        rows_kernel<F>(a, inverse, out);
    });
    return cudaSuccess;
}
template <class F>
static cudaError_t emulate_launch_level2d(bool inverse, const level2d_args &a,
                                          const wav_u16_output *u16, cudaStream_t)
{
    return emulate_level2d<F>(inverse, a, u16);
}
template <class F>
static cudaError_t emulate_launch_rows(bool inverse, const rows_args &a, const wav_u16_output *u16,
                                       size_t smem, cudaStream_t)
{
    return emulate_rows<F>(inverse, a, u16, smem);
}
template <class F> static cudaError_t emulate_blocks_per_sm(bool inverse, int *blocks)
{
    *blocks = inverse ? F::MIN_BLOCKS_INV : F::MIN_BLOCKS_FWD; /* as on a GPU */
    return cudaSuccess;
}
static cudaError_t emulate_allow_smem(size_t)
{
    return cudaSuccess;
}
/* The filters' tables (wavelet_cuda_internal.h) on the emulation. */
template <class F> static constexpr filter_kernels emulated()
{
    return {emulate_launch_level2d<F>, emulate_launch_rows<F>, emulate_blocks_per_sm<F>,
            emulate_allow_smem};
}
const filter_kernels kernels_53 = emulated<Lift53>();
const filter_kernels kernels_97 = emulated<Lift97>();
} // namespace wav

extern "C" {
const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "emulated error";
}
cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d)
{
    *d = 0;
    return cudaSuccess;
}
/* XSF_EMULATED_SMEM (bytes) shrinks shared memory to force the global stage. */
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int)
{
    const char *e = getenv("XSF_EMULATED_SMEM");
    *v = a == cudaDevAttrMultiProcessorCount ? 4 : (e ? atoi(e) : 227 * 1024);
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind)
{
    memmove(d, s, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind, cudaStream_t)
{
    memmove(d, s, n);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                              enum cudaMemcpyKind, cudaStream_t)
{
    for (size_t y = 0; y < h; y++)
        memmove(static_cast<char *>(d) + y * dp, static_cast<const char *>(s) + y * sp, w);
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = reinterpret_cast<cudaStream_t>(1);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t)
{
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t)
{
    return cudaSuccess;
}
}
