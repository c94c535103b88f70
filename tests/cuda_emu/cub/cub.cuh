/* A stand-in for the few CUB primitives bpc/gpu_kernels.cuh and
 * xs/gpu_decoder.cu use, for the host
 * emulation (cuda_emu.h): the block ones through a static array and
 * __syncthreads, DeviceScan sequentially. Results as CUB documents them
 * (a block reduction's in thread 0). */
#ifndef XSF_EMU_CUB_H
#define XSF_EMU_CUB_H
#include "cuda_emu.h"
#include "cuda_runtime_api.h"

namespace cub
{

template <typename T, int THREADS> struct BlockReduce {
    struct TempStorage {
        T v[THREADS];
    };
    TempStorage &s;
    explicit BlockReduce(TempStorage &t) : s(t) {}
    template <class Op> T Reduce(T x, Op op)
    {
        const unsigned t = emu_linear_thread();
        s.v[t] = x;
        __syncthreads();
        T r = s.v[0];
        for (unsigned i = 1; i < emu_block_dim.x; i++)
            r = op(r, s.v[i]);
        __syncthreads();
        return r;
    }
    T Sum(T x)
    {
        struct add {
            T operator()(T a, T b) const
            {
                return a + b;
            }
        };
        return Reduce(x, add());
    }
};

template <typename T, int THREADS> struct BlockScan {
    struct TempStorage {
        T v[THREADS];
        T total;
    };
    TempStorage &s;
    explicit BlockScan(TempStorage &t) : s(t) {}
    void ExclusiveSum(T x, T &out)
    {
        T total;
        ExclusiveSum(x, out, total);
    }
    /* total: the block's sum, in every thread. Thread 0 scans for all, in
     * one pass (the emulated block has time for an extra barrier, not for
     * every thread summing its predecessors). */
    void ExclusiveSum(T x, T &out, T &total)
    {
        const unsigned t = emu_linear_thread();
        s.v[t] = x;
        __syncthreads();
        if (t == 0) {
            const unsigned n = emu_block_dim.x * emu_block_dim.y * emu_block_dim.z;
            T r = 0;
            for (unsigned i = 0; i < n; i++) {
                const T v = s.v[i];
                s.v[i] = r;
                r += v;
            }
            s.total = r;
        }
        __syncthreads();
        out = s.v[t];
        total = s.total;
        __syncthreads();
    }
};

struct DeviceScan {
    template <typename T>
    static cudaError_t ExclusiveSum(void *tmp, size_t &bytes, const T *in, T *out, int n,
                                    cudaStream_t = 0)
    {
        if (!tmp) {
            bytes = 16;
            return cudaSuccess;
        }
        T r = 0;
        for (int i = 0; i < n; i++) {
            const T v = in[i];
            out[i] = r;
            r += v;
        }
        return cudaSuccess;
    }
};

} // namespace cub
#endif
