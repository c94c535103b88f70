/* The CUDA kernels of wavelet/, templated on the filter (dwt_lifting.cuh) and
 * instantiated in dwt53.cu and dwt97.cu (kernels_for).
 *
 * level2d: one 2D level, vertical and horizontal lifting fused, one warp per
 *   strip of 240 columns x chunk_pairs pairs of rows; data in registers,
 *   horizontal neighbours through shuffles, vertical ones through the pipeline
 *   of dwt_lifting.cuh. Forward: vertical then horizontal; inverse: horizontal
 *   then vertical (15444-1 F.3.2 / F.4.2, 21122-1 Annex E), which the integer
 *   5/3 needs for exactness.
 * rows: the horizontal-only levels (JPEG XS levels_v+1..levels_h), all of them
 *   in one pass: one warp per row, staged once, intermediate low-pass bands in
 *   shared memory between levels (__syncwarp orders them). */
#ifndef XSF_DWT_KERNELS_CUH
#define XSF_DWT_KERNELS_CUH

#include <type_traits>

#include "dwt_lifting.cuh"
#include "wavelet_cuda_internal.h"

namespace wav
{

static_assert(VALID == LEVEL2D_VALID_PAIRS, "wavelet_cuda_internal.h disagrees with the kernels");

template <class T> __device__ __forceinline__ T *plane_ptr(const surface &s, int plane)
{
    return static_cast<T *>(s.ptr) + (long long)plane * s.plane_stride;
}

/* ---------------- 2D level ---------------- */

/* The vertical pipeline's ticks t_begin..t_end of one strip, TICKS at a time: the rows
 * of tick t (B lines of K samples) come from load(t, rows) and go through tick(t, rows);
 * the next TICKS ticks' rows are loaded before this TICKS' are computed, so that 2 * TICKS
 * ticks' rows are in flight. */
template <class T, int TICKS, int B, int K, class Load, class Tick>
__device__ __forceinline__ void pipelined_ticks(int t_begin, int t_end, const Load &load,
                                                const Tick &tick)
{
    T cur[TICKS][B][K], nxt[TICKS][B][K] = {};
#pragma unroll
    for (int u = 0; u < TICKS; u++)
        load(t_begin + u, cur[u]);
    for (int t = t_begin; t <= t_end; t += TICKS) {
        if (t + TICKS <= t_end)
#pragma unroll
            for (int u = 0; u < TICKS; u++)
                load(t + TICKS + u, nxt[u]);
#pragma unroll
        for (int u = 0; u < TICKS; u++) {
            if (t + u > t_end)
                break;
            tick(t + u, cur[u]);
        }
#pragma unroll
        for (int u = 0; u < TICKS; u++)
#pragma unroll
            for (int b = 0; b < B; b++)
#pragma unroll
                for (int k = 0; k < K; k++)
                    cur[u][b][k] = nxt[u][b][k];
    }
}

/* U16: the picture goes to a.u16's 16-bit planes (the 5/3 only). */
template <class F, bool U16 = false>
__global__ void __launch_bounds__(LEVEL2D_WARPS * 32, F::MIN_BLOCKS_INV)
    level2d_inverse(const level2d_args a, const __grid_constant__ wav_u16_output u16)
{
    using T = typename F::T;
    constexpr int LAG = F::STEPS / 2;
    const int lane = threadIdx.x & 31;
    const int strip = blockIdx.x * LEVEL2D_WARPS + (threadIdx.x >> 5);
    const int w = a.width, h = a.height, wl = (w + 1) / 2, wh = w / 2, hl = (h + 1) / 2;
    const int j0 = strip * VALID - HALO;
    if (j0 + HALO >= wl)
        return; /* whole warp: strips are per warp */
    const int jb = j0 + PAIRS * lane;
    const bool hlift = w > 1;
    /* each warp's two output lines on their way to coalesced stores (static
     * for the host emulation, where __shared__ means nothing) */
    static __shared__ __align__(16) T scratch[LEVEL2D_WARPS][4 * SPAN];
    const T *ll = plane_ptr<T>(a.ll, blockIdx.z);
    const T *hi = plane_ptr<T>(a.hi, blockIdx.z);
    T *img = U16 ? nullptr : plane_ptr<T>(a.image, blockIdx.z);
    uint16_t *const out16 = U16 ? u16.plane[blockIdx.z] : nullptr;
    const long long pitch16 = U16 ? (long long)u16.pitch[blockIdx.z] : 0;
    const u16_conv conv = U16 ? u16_of(u16, blockIdx.z) : u16_conv();
    const int p0 = a.pair_first + blockIdx.y * a.chunk_pairs;
    const int p1 = min(p0 + a.chunk_pairs, min(a.pair_end, hl));

    /* the four bands of pair row t: LL, HL (row re), LH, HH (row ro) */
    auto load = [&](int t, T(&b)[4][PAIRS]) {
        const int re = fold(2 * t, h) >> 1, ro = (fold(2 * t + 1, h) - 1) >> 1;
        load_band(ll + (long long)re * a.ll.pitch, jb, wl, w, 0, true, b[0]);
        load_band(hi + (long long)(hl + ro) * a.hi.pitch, jb, wl, w, 0, true, b[2]);
        if (hlift) {
            load_band(hi + (long long)re * a.hi.pitch + wl, jb, wh, w, 1, true, b[1]);
            load_band(hi + (long long)(hl + ro) * a.hi.pitch + wl, jb, wh, w, 1, true, b[3]);
        } else {
#pragma unroll
            for (int k = 0; k < PAIRS; k++)
                b[1][k] = b[3][k] = T(0);
        }
    };
    vpipe<F, true, 2 * PAIRS> pipe;
    /* ticks p0+LAG-STEPS .. p1-1+LAG; the pair leaving at tick t is t-LAG. */
    auto tick = [&](int t, const T(&b)[4][PAIRS]) {
        T e0[PAIRS], o0[PAIRS], e1[PAIRS], o1[PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; k++) {
            e0[k] = b[0][k];
            o0[k] = b[1][k];
            e1[k] = b[2][k];
            o1[k] = b[3][k];
        }
        if (hlift) {
            hinverse<F>(e0, o0);
            hinverse<F>(e1, o1);
        }
        T E[2 * PAIRS], O[2 * PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; k++) {
            E[2 * k] = e0[k];
            E[2 * k + 1] = o0[k];
            O[2 * k] = e1[k];
            O[2 * k + 1] = o1[k];
        }
        pipe.push(E, O);
        const int p = t - LAG;
        if (p < p0) /* warp-uniform */
            return;
        if constexpr (U16) {
            store_lines_u16(out16 + (2 * p) * pitch16,
                            2 * p + 1 < h ? out16 + (2 * p + 1) * pitch16 : nullptr, 2 * j0, w, E,
                            O, scratch[threadIdx.x >> 5], lane, conv);
        } else {
            store_lines(img + (long long)(2 * p) * a.image.pitch,
                        2 * p + 1 < h ? img + (long long)(2 * p + 1) * a.image.pitch : nullptr,
                        2 * j0, w, E, O, scratch[threadIdx.x >> 5], lane);
        }
    };
    pipelined_ticks<T, F::TICKS, 4, PAIRS>(p0 + LAG - F::STEPS, p1 - 1 + LAG, load, tick);
}

template <class F>
__global__ void __launch_bounds__(LEVEL2D_WARPS * 32, F::MIN_BLOCKS_FWD)
    level2d_forward(const level2d_args a)
{
    using T = typename F::T;
    constexpr int LAG = F::STEPS / 2;
    const int lane = threadIdx.x & 31;
    const int strip = blockIdx.x * LEVEL2D_WARPS + (threadIdx.x >> 5);
    const int w = a.width, h = a.height, wl = (w + 1) / 2, wh = w / 2;
    const int hl = (h + 1) / 2, hh = h / 2;
    const int j0 = strip * VALID - HALO;
    if (j0 + HALO >= wl)
        return;
    const int jb = j0 + PAIRS * lane;
    const bool store = lane >= 1 && lane <= 30;
    const bool hlift = w > 1;
    const T *img = plane_ptr<T>(a.image, blockIdx.z);
    T *ll = plane_ptr<T>(a.ll, blockIdx.z);
    T *hi = plane_ptr<T>(a.hi, blockIdx.z);
    const int p0 = a.pair_first + blockIdx.y * a.chunk_pairs;
    const int p1 = min(p0 + a.chunk_pairs, min(a.pair_end, hl));

    auto load = [&](int t, T(&r)[2][2 * PAIRS]) {
        load_line(img + (long long)fold(2 * t, h) * a.image.pitch, jb, w, true, r[0]);
        load_line(img + (long long)fold(2 * t + 1, h) * a.image.pitch, jb, w, true, r[1]);
    };
    vpipe<F, false, 2 * PAIRS> pipe;
    /* ticks p0+LAG-STEPS .. p1-1+LAG; the pair leaving at tick t is t-LAG. */
    auto tick = [&](int t, const T(&r)[2][2 * PAIRS]) {
        T E[2 * PAIRS], O[2 * PAIRS];
#pragma unroll
        for (int k = 0; k < 2 * PAIRS; k++) {
            E[k] = r[0][k];
            O[k] = r[1][k];
        }
        pipe.push(E, O);
        const int p = t - LAG;
        if (p < p0)
            return;
        T e[PAIRS], o[PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; k++) {
            e[k] = E[2 * k];
            o[k] = E[2 * k + 1];
        }
        if (hlift)
            hforward<F>(e, o);
        store_band(ll + (long long)p * a.ll.pitch, jb, wl, store, e);
        store_band(hi + (long long)p * a.hi.pitch + wl, jb, wh, store, o);
        if (p < hh) {
#pragma unroll
            for (int k = 0; k < PAIRS; k++) {
                e[k] = O[2 * k];
                o[k] = O[2 * k + 1];
            }
            if (hlift)
                hforward<F>(e, o);
            store_band(hi + (long long)(hl + p) * a.hi.pitch, jb, wl, store, e);
            store_band(hi + (long long)(hl + p) * a.hi.pitch + wl, jb, wh, store, o);
        }
    };
    pipelined_ticks<T, F::TICKS, 2, 2 * PAIRS>(p0 + LAG - F::STEPS, p1 - 1 + LAG, load, tick);
}

/* ---------------- horizontal-only levels, one warp per row ---------------- */

/* One inverse level of an n-sample line: low band lo (ceil(n/2)), high band
 * hi (floor(n/2)) -> interleaved out, or (out16 not NULL: the 5/3's last
 * level) out16 as c says. */
template <class F>
__device__ __forceinline__ void row_level_inverse(const typename F::T *lo, const typename F::T *hi,
                                                  typename F::T *out, int n, int lane,
                                                  uint16_t *out16 = nullptr, u16_conv c = {})
{
    using T = typename F::T;
    const int nl = (n + 1) / 2, nh = n / 2;
    if (n == 1) {
        if (lane == 0) {
            if constexpr (std::is_same<T, int32_t>::value) {
                if (out16) {
                    out16[0] = (uint16_t)u16_sample(lo[0], c);
                    return;
                }
            }
            out[0] = lo[0];
        }
        return;
    }
    const bool store = lane >= 1 && lane <= 30;
    for (int j0 = -HALO; j0 + HALO < nl; j0 += VALID) {
        const int jb = j0 + PAIRS * lane;
        T e[PAIRS], o[PAIRS];
        load_band(lo, jb, nl, n, 0, false, e);
        load_band(hi, jb, nh, n, 1, false, o);
        hinverse<F>(e, o);
        if constexpr (std::is_same<T, int32_t>::value) {
            if (out16) {
                store_line_u16(out16, jb, n, store, e, o, c);
                continue;
            }
        }
        store_line(out, jb, n, store, e, o);
    }
}

/* One forward level of an n-sample interleaved line -> lo, hi bands. */
template <class F>
__device__ __forceinline__ void row_level_forward(const typename F::T *in, typename F::T *lo,
                                                  typename F::T *hi, int n, int lane)
{
    using T = typename F::T;
    const int nl = (n + 1) / 2, nh = n / 2;
    if (n == 1) {
        if (lane == 0)
            lo[0] = in[0];
        return;
    }
    const bool store = lane >= 1 && lane <= 30;
    for (int j0 = -HALO; j0 + HALO < nl; j0 += VALID) {
        const int jb = j0 + PAIRS * lane;
        T x[2 * PAIRS], e[PAIRS], o[PAIRS];
        load_line(in, jb, n, false, x);
#pragma unroll
        for (int k = 0; k < PAIRS; k++) {
            e[k] = x[2 * k];
            o[k] = x[2 * k + 1];
        }
        hforward<F>(e, o);
        store_band(lo, jb, nl, store, e);
        store_band(hi, jb, nh, store, o);
    }
}

/* Copy a row into the stage; every read of the source happens here, before the
 * first write of the destination (in place allowed). */
template <class T>
__device__ __forceinline__ void stage_row(const T *src, T *stage, int n, int lane)
{
    constexpr int BATCH = 8; /* 16-byte loads in flight per lane before the stores */
    int done = 0;
    if (aligned16(src)) {
        const int nv = n / 4;
        for (int i0 = 0; i0 < nv; i0 += 32 * BATCH) {
            T x[BATCH][4] = {};
#pragma unroll
            for (int b = 0; b < BATCH; b++) {
                const int i = i0 + b * 32 + lane;
                if (i < nv)
                    ld4(src + 4 * i, false, x[b]);
            }
#pragma unroll
            for (int b = 0; b < BATCH; b++) {
                const int i = i0 + b * 32 + lane;
                if (i < nv)
                    st4(stage + 4 * i, x[b][0], x[b][1], x[b][2], x[b][3]);
            }
        }
        done = 4 * nv;
    }
    for (int i0 = done; i0 < n; i0 += 32 * BATCH) {
        T x[BATCH] = {};
#pragma unroll
        for (int b = 0; b < BATCH; b++) {
            const int i = i0 + b * 32 + lane;
            if (i < n)
                x[b] = src[i];
        }
#pragma unroll
        for (int b = 0; b < BATCH; b++) {
            const int i = i0 + b * 32 + lane;
            if (i < n)
                stage[i] = x[b];
        }
    }
}

/* U16: the inverse's last level goes to a.u16's 16-bit planes (the 5/3 only). */
template <class F, bool U16 = false>
__global__ void rows_kernel(const rows_args a, bool inverse,
                            const __grid_constant__ wav_u16_output u16)
{
    using T = typename F::T;
    extern __shared__ int4 smem_rows[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long row = (long long)blockIdx.x * a.warps_per_block + warp;
    if (row >= (long long)a.height * a.planes)
        return;
    const int plane = (int)(row / a.height), y = a.row_first + (int)(row % a.height);
    T *stage = a.stage_global ? static_cast<T *>(a.stage_global) + row * a.stage_elems
                              : reinterpret_cast<T *>(smem_rows) + (long long)warp * a.stage_elems;
    const T *src = plane_ptr<T>(a.src, plane) + (long long)y * a.src.pitch;
    T *dst = U16 ? nullptr : plane_ptr<T>(a.dst, plane) + (long long)y * a.dst.pitch;
    const int W = a.width;
    T *buf_a = stage + ((W + 3) & ~3);             /* ceil(W/2): levels 1, 3, ... */
    T *buf_b = buf_a + ((((W + 1) / 2) + 3) & ~3); /* ceil(W/4): levels 2, 4, ... */

    stage_row(src, stage, W, lane);
    __syncwarp();
    /* samples left after i levels: ceil(W / 2^i), ceil halvings compose */
    auto n = [W](int i) { return (int)(((long long)W + (1ll << i) - 1) >> i); };

    if (inverse) {
        /* level i turns the low band n[i] and the high band at [n[i], n[i-1])
         * into n[i-1] samples */
        const T *lo = stage;
        for (int i = a.levels; i >= 1; i--) {
            T *out = i == 1 ? dst : ((i & 1) ? buf_b : buf_a);
            if (U16 && i == 1)
                row_level_inverse<F>(lo, stage + n(i), out, n(i - 1), lane,
                                     u16.plane[plane] + (long long)y * (long long)u16.pitch[plane],
                                     u16_of(u16, plane));
            else
                row_level_inverse<F>(lo, stage + n(i), out, n(i - 1), lane);
            __syncwarp();
            lo = out;
        }
    } else {
        const T *in = stage;
        for (int i = 1; i <= a.levels; i++) {
            T *lo = i == a.levels ? dst : ((i & 1) ? buf_a : buf_b);
            row_level_forward<F>(in, lo, dst + n(i), n(i - 1), lane);
            __syncwarp();
            in = lo;
        }
    }
}

/* ---------------- launches ---------------- */
#ifdef __CUDACC__ /* (the kernels above also compile as host C++ for emulation) */

template <class F>
cudaError_t launch_level2d(bool inverse, const level2d_args &a, const wav_u16_output *u16,
                           cudaStream_t s)
{
    const int wl = (a.width + 1) / 2;
    const int strips = (wl + VALID - 1) / VALID;
    const dim3 grid((strips + LEVEL2D_WARPS - 1) / LEVEL2D_WARPS, level2d_chunks(a), a.planes);
    if (grid.y == 0)
        return cudaSuccess;
    if (inverse && u16) {
        if constexpr (std::is_same<typename F::T, int32_t>::value)
            level2d_inverse<F, true><<<grid, LEVEL2D_WARPS * 32, 0, s>>>(a, *u16);
        else
            return cudaErrorInvalidValue; /* the 5/3 only */
    } else if (inverse)
        level2d_inverse<F><<<grid, LEVEL2D_WARPS * 32, 0, s>>>(a, wav_u16_output());
    else
        level2d_forward<F><<<grid, LEVEL2D_WARPS * 32, 0, s>>>(a);
    return cudaGetLastError();
}

/* The inverse: the fewer of its two kernels (the 5/3's 16-bit one too, which this
 * also loads, so that a decoder's first frame does not pay for it). */
template <class F> cudaError_t level2d_blocks_per_sm(bool inverse, int *blocks)
{
    if (!inverse)
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, level2d_forward<F>,
                                                             LEVEL2D_WARPS * 32, 0);
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, level2d_inverse<F>,
                                                                  LEVEL2D_WARPS * 32, 0);
    if constexpr (std::is_same<typename F::T, int32_t>::value) {
        int u16 = 0;
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&u16, level2d_inverse<F, true>,
                                                              LEVEL2D_WARPS * 32, 0);
        *blocks = u16 < *blocks ? u16 : *blocks;
    }
    return e;
}

template <class F>
cudaError_t launch_rows(bool inverse, const rows_args &a, const wav_u16_output *u16, size_t smem,
                        cudaStream_t s)
{
    const long long rows = (long long)a.height * a.planes;
    const unsigned blocks = (unsigned)((rows + a.warps_per_block - 1) / a.warps_per_block);
    if (blocks == 0)
        return cudaSuccess;
    if (inverse && u16) {
        if constexpr (std::is_same<typename F::T, int32_t>::value)
            rows_kernel<F, true><<<blocks, a.warps_per_block * 32, smem, s>>>(a, inverse, *u16);
        else
            return cudaErrorInvalidValue; /* the 5/3 only */
    } else {
        rows_kernel<F><<<blocks, a.warps_per_block * 32, smem, s>>>(a, inverse, wav_u16_output());
    }
    return cudaGetLastError();
}

template <class F> cudaError_t rows_allow_smem(size_t bytes)
{
    const cudaError_t e = cudaFuncSetAttribute(
        rows_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if constexpr (std::is_same<typename F::T, int32_t>::value)
        if (e == cudaSuccess)
            return cudaFuncSetAttribute(rows_kernel<F, true>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    return e;
}

/* Filter F's table (wavelet_cuda_internal.h): what dwt53.cu and dwt97.cu define. */
template <class F> constexpr filter_kernels kernels_for()
{
    return {launch_level2d<F>, launch_rows<F>, level2d_blocks_per_sm<F>, rows_allow_smem<F>};
}

#endif

} // namespace wav

#endif
