/* CPU emulation of the parts of the CUDA runtime and device intrinsics that
 * xs/gpu_encoder.cu uses: blocks run one after another, the threads of a
 * block as std::threads with real barriers, warps exchange through buffers. */
#pragma once
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern thread_local dim3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
extern uint8_t *emu_dyn_smem;

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3,
       cudaStreamNonBlocking = 1, cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
typedef int cudaMemcpyKind;
typedef struct CUstream_st *cudaStream_t;
typedef void *cudaEvent_t;
inline const char *cudaGetErrorString(cudaError_t) { return "emulated error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, int) { *s = (cudaStream_t)malloc(1); return cudaSuccess; }
inline cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { *p = (T *)calloc(1, n ? n : 1); memset(*p, 0xa5, n); return cudaSuccess; }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) { *p = (T *)malloc(n ? n : 1); return cudaSuccess; }
extern "C" cudaError_t cudaFree(void *p);
inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int) { memcpy(d, s, n); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t) { memcpy(d, s, n); return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) { memset(d, v, n); return cudaSuccess; }
inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, int, cudaStream_t)
{
    for (size_t y = 0; y < h; y++)
        memcpy((char *)d + y * dp, (const char *)s + y * sp, w);
    return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = malloc(1); return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0; return cudaSuccess; }
template <class F> inline cudaError_t cudaFuncSetAttribute(F, int, int) { return cudaSuccess; }

/* ---- device side ---- */
struct emu_block {
    std::barrier<> *block_bar;
    std::barrier<> *warp_bar[32];
    uint64_t xchg[32][32];
};
extern thread_local emu_block *emu_cur;

inline void __syncthreads() { emu_cur->block_bar->arrive_and_wait(); }
inline int emu_warp() { return threadIdx.x >> 5; }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_cur->warp_bar[emu_warp()]->arrive_and_wait(); }
template <class T> inline T emu_exchange(T v, int src_lane)
{
    const int w = emu_warp(), lane = threadIdx.x & 31;
    static_assert(sizeof(T) <= 8, "");
    uint64_t raw = 0;
    memcpy(&raw, &v, sizeof v);
    emu_cur->xchg[w][lane] = raw;
    __syncwarp();
    T r;
    uint64_t got = emu_cur->xchg[w][src_lane & 31];
    memcpy(&r, &got, sizeof r);
    __syncwarp();
    return r;
}
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return emu_exchange(v, src); }
template <class T> inline T __shfl_up_sync(unsigned, T v, int d)
{
    const int lane = threadIdx.x & 31;
    T o = emu_exchange(v, lane >= d ? lane - d : lane);
    return o;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int m) { return emu_exchange(v, (threadIdx.x & 31) ^ m); }
inline unsigned __reduce_add_sync(unsigned, unsigned v)
{
    unsigned s = 0;
    for (int l = 0; l < 32; l++)
        s += emu_exchange(v, l);
    return s;
}
inline int __any_sync(unsigned, int p)
{
    int a = 0;
    for (int l = 0; l < 32; l++)
        a |= emu_exchange(p, l);
    return a != 0;
}
inline unsigned atomicOr(unsigned *p, unsigned v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicCAS(unsigned *p, unsigned c, unsigned v)
{
    __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return c;
}
inline unsigned __byte_perm(unsigned x, unsigned, unsigned) { return __builtin_bswap32(x); }
using std::min;
using std::max;
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }

/* Launch: the threads of a block run concurrently, one block after another;
 * the same threads serve every block (fresh barriers between blocks). */
template <class K, class... A> inline void emu_launch(K kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t, A... args)
{
    gridDim = grid;
    blockDim = block;
    std::vector<uint8_t> dyn(smem + 16);
    emu_dyn_smem = dyn.data();
    const unsigned nt = block.x, nw = (nt + 31) / 32;
    const size_t nblocks = (size_t)grid.x * grid.y * grid.z;
    emu_block b;
    std::vector<std::unique_ptr<std::barrier<>>> keep;
    auto fresh = [&]() {
        keep.clear();
        keep.emplace_back(new std::barrier<>((std::ptrdiff_t)nt));
        b.block_bar = keep.back().get();
        for (unsigned w = 0; w < nw; w++) {
            keep.emplace_back(new std::barrier<>((std::ptrdiff_t)(nt - 32 * w < 32 ? nt - 32 * w : 32)));
            b.warp_bar[w] = keep.back().get();
        }
    };
    fresh();
    auto done = [&]() noexcept { fresh(); };
    std::barrier<decltype(done)> between((std::ptrdiff_t)nt, done);
    std::vector<std::thread> th;
    for (unsigned t = 0; t < nt; t++)
        th.emplace_back([&, t]() {
            threadIdx = dim3(t);
            emu_cur = &b;
            for (size_t i = 0; i < nblocks; i++) {
                blockIdx = dim3((unsigned)(i % grid.x), (unsigned)(i / grid.x % grid.y), (unsigned)(i / grid.x / grid.y));
                kernel(args...);
                b.warp_bar[t >> 5]->arrive_and_drop();
                b.block_bar->arrive_and_drop();
                between.arrive_and_wait();
            }
        });
    for (auto &x : th)
        x.join();
}
