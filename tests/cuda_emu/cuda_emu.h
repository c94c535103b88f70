/* Host emulation of the CUDA built-ins the BPC-PaCo kernels and the JPEG XS
 * decoder and encoder use, so that bpc/codeblock_kernels.cuh,
 * bpc/gpu_encoder.cu, bpc/gpu_decoder.cu, xs/gpu_decoder.cu and
 * xs/gpu_encoder.cu compile as host C++ and run on CPUs (CI has no GPU). A
 * block is one fiber per thread (cuda_emu.cpp), switched only at warp
 * primitives and __syncthreads: between them each thread runs alone, as
 * under independent thread scheduling. A warp primitive completes when the
 * warp's 32 threads have all reached one of the same kind (every primitive
 * here takes the full mask); a barrier when every thread of the block that
 * has not exited has reached it. Threads of a warp at different primitives,
 * or a warp whose lanes exit while others wait, are divergence bugs:
 * reported, fatal. Blocks run one after the other and launches one at a
 * time, so `__shared__` is a static. Timing says nothing about the GPU. */
#ifndef XSF_CUDA_EMU_H
#define XSF_CUDA_EMU_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <functional>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __grid_constant__

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

struct int4 {
    int x, y, z, w;
};
struct ushort4 {
    unsigned short x, y, z, w;
};
struct int2 {
    int x, y;
};
struct uint2 {
    unsigned x, y;
};
struct uint4 {
    unsigned x, y, z, w;
};
static inline int4 make_int4(int x, int y, int z, int w)
{
    return int4{x, y, z, w};
}
static inline uint2 make_uint2(unsigned x, unsigned y)
{
    return uint2{x, y};
}
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    return uint4{x, y, z, w};
}

enum emu_op {
    EMU_SHFL_IDX,
    EMU_SHFL_UP,
    EMU_SHFL_DOWN,
    EMU_SHFL_XOR,
    EMU_BALLOT,
    EMU_ANY,
    EMU_SYNCWARP
};

uint64_t emu_exchange(emu_op op, uint64_t value, int arg);
void emu_syncthreads();
const dim3 &emu_thread_idx();
unsigned emu_linear_thread();
extern dim3 emu_block_idx, emu_block_dim, emu_grid_dim;
/* Runs body for every thread of the grid, block after block, with
 * shared_bytes of dynamic shared memory at emu_dyn_smem. */
void emu_launch_grid(dim3 grid, dim3 block, const std::function<void()> &body,
                     size_t shared_bytes = 0);
static inline void emu_launch(unsigned blocks, unsigned threads, const std::function<void()> &body)
{
    emu_launch_grid(dim3(blocks), dim3(threads), body);
}

/* The dynamic shared memory of the launch under way (`extern __shared__`
 * arrays, which the launch rewrite points here). */
extern uint8_t *emu_dyn_smem;

/* kernel<<<grid, block, shared_bytes, stream>>>(args) as the launch
 * rewrite (rewrite_launches.cmake) spells it; the launch completes before
 * it returns, as if every stream synchronized at once. */
template <class K, class G, class B, class S, class... A>
static inline void emu_launch(K kernel, G grid, B block, size_t shared_bytes, S, A... args)
{
    emu_launch_grid(
        dim3(grid), dim3(block), [&] { kernel(args...); }, shared_bytes);
}

#define threadIdx (emu_thread_idx())
#define blockIdx emu_block_idx
#define blockDim emu_block_dim
#define gridDim emu_grid_dim
#define __syncthreads() emu_syncthreads()

template <typename T> static inline uint64_t emu_bits(T v)
{
    uint64_t u = 0;
    memcpy(&u, &v, sizeof v);
    return u;
}
template <typename T> static inline T emu_from(uint64_t u)
{
    T v;
    memcpy(&v, &u, sizeof v);
    return v;
}
template <typename T> static inline T __shfl_sync(unsigned, T v, int src)
{
    return emu_from<T>(emu_exchange(EMU_SHFL_IDX, emu_bits(v), src));
}
template <typename T> static inline T __shfl_up_sync(unsigned, T v, unsigned d)
{
    return emu_from<T>(emu_exchange(EMU_SHFL_UP, emu_bits(v), (int)d));
}
template <typename T> static inline T __shfl_down_sync(unsigned, T v, unsigned d)
{
    return emu_from<T>(emu_exchange(EMU_SHFL_DOWN, emu_bits(v), (int)d));
}
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int m)
{
    return emu_from<T>(emu_exchange(EMU_SHFL_XOR, emu_bits(v), m));
}
static inline void __syncwarp(unsigned = 0xffffffffu)
{
    emu_exchange(EMU_SYNCWARP, 0, 0);
}
static inline unsigned __ballot_sync(unsigned, int p)
{
    return (unsigned)emu_exchange(EMU_BALLOT, p != 0, 0);
}
static inline int __any_sync(unsigned, int p)
{
    return (int)emu_exchange(EMU_ANY, p != 0, 0);
}
static inline int __popc(unsigned v)
{
    return __builtin_popcount(v);
}
static inline int __popcll(unsigned long long v)
{
    return __builtin_popcountll(v);
}
static inline int __clz(unsigned v)
{
    return v ? __builtin_clz(v) : 32;
}
static inline int __ffs(int v)
{
    return __builtin_ffs(v);
}
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const uint64_t bytes = (uint64_t)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)(bytes >> (8 * ((s >> (4 * i)) & 7)) & 0xffu) << (8 * i);
    return r;
}
static inline int __ffsll(long long v)
{
    return __builtin_ffsll(v);
}
/* The upper 32 bits of hi:lo shifted left by shift & 31. */
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((uint64_t)hi << 32 | lo) << (shift & 31)) >> 32);
}
/* CUDA's min and max overloads; plain host C++ has only std:: templates,
 * which refuse the mixed types device code relies on. */
#define EMU_MINMAX(T)                                                                              \
    static inline T min(T a, T b)                                                                  \
    {                                                                                              \
        return a < b ? a : b;                                                                      \
    }                                                                                              \
    static inline T max(T a, T b)                                                                  \
    {                                                                                              \
        return a > b ? a : b;                                                                      \
    }
EMU_MINMAX(int)
EMU_MINMAX(unsigned)
EMU_MINMAX(long)
EMU_MINMAX(unsigned long)
EMU_MINMAX(long long)
EMU_MINMAX(unsigned long long)
#undef EMU_MINMAX
/* Atomics: one thread runs at a time, between warp primitives. */
template <typename T> static inline T atomicCAS(T *p, T compare, T v)
{
    const T old = *p;
    if (old == compare)
        *p = v;
    return old;
}
template <typename T> static inline T atomicOr(T *p, T v)
{
    const T old = *p;
    *p = old | v;
    return old;
}
static inline int atomicMax(int *p, int v)
{
    const int old = *p;
    if (v > old)
        *p = v;
    return old;
}

#endif
