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

template <class F>
__global__ void __launch_bounds__(LEVEL2D_WARPS * 32, F::MIN_BLOCKS_INV)
    level2d_inverse(const level2d_args a)
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
    T *img = plane_ptr<T>(a.image, blockIdx.z);
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
    /* ticks p0+LAG-STEPS .. p1-1+LAG; the pair leaving at tick t is t-LAG.
     * TICKS pairs of rows per iteration, and the next iteration's rows are
     * loaded before this one's are computed: 2 * TICKS pairs in flight. */
    constexpr int TICKS = F::TICKS;
    const int t_begin = p0 + LAG - F::STEPS, t_end = p1 - 1 + LAG;
    T cur[TICKS][4][PAIRS], nxt[TICKS][4][PAIRS] = {};
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
            T e0[PAIRS], o0[PAIRS], e1[PAIRS], o1[PAIRS];
#pragma unroll
            for (int k = 0; k < PAIRS; k++) {
                e0[k] = cur[u][0][k];
                o0[k] = cur[u][1][k];
                e1[k] = cur[u][2][k];
                o1[k] = cur[u][3][k];
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
            const int p = t + u - LAG;
            if (p >= p0) /* warp-uniform */
                store_lines(img + (long long)(2 * p) * a.image.pitch,
                            2 * p + 1 < h ? img + (long long)(2 * p + 1) * a.image.pitch : nullptr,
                            2 * j0, w, E, O, scratch[threadIdx.x >> 5], lane);
        }
#pragma unroll
        for (int u = 0; u < TICKS; u++)
#pragma unroll
            for (int b = 0; b < 4; b++)
#pragma unroll
                for (int k = 0; k < PAIRS; k++)
                    cur[u][b][k] = nxt[u][b][k];
    }
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
    constexpr int TICKS = F::TICKS;
    const int t_begin = p0 + LAG - F::STEPS, t_end = p1 - 1 + LAG;
    T cur[TICKS][2][2 * PAIRS], nxt[TICKS][2][2 * PAIRS] = {};
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
            T E[2 * PAIRS], O[2 * PAIRS];
#pragma unroll
            for (int k = 0; k < 2 * PAIRS; k++) {
                E[k] = cur[u][0][k];
                O[k] = cur[u][1][k];
            }
            pipe.push(E, O);
            const int p = t + u - LAG;
            if (p < p0)
                continue;
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
        }
#pragma unroll
        for (int u = 0; u < TICKS; u++)
#pragma unroll
            for (int r = 0; r < 2; r++)
#pragma unroll
                for (int k = 0; k < 2 * PAIRS; k++)
                    cur[u][r][k] = nxt[u][r][k];
    }
}

/* ---------------- horizontal-only levels, one warp per row ---------------- */

/* One inverse level of an n-sample line: low band lo (ceil(n/2)), high band
 * hi (floor(n/2)) -> interleaved out. */
template <class F>
__device__ __forceinline__ void row_level_inverse(const typename F::T *lo, const typename F::T *hi,
                                                  typename F::T *out, int n, int lane)
{
    using T = typename F::T;
    const int nl = (n + 1) / 2, nh = n / 2;
    if (n == 1) {
        if (lane == 0)
            out[0] = lo[0];
        return;
    }
    const bool store = lane >= 1 && lane <= 30;
    for (int j0 = -HALO; j0 + HALO < nl; j0 += VALID) {
        const int jb = j0 + PAIRS * lane;
        T e[PAIRS], o[PAIRS];
        load_band(lo, jb, nl, n, 0, false, e);
        load_band(hi, jb, nh, n, 1, false, o);
        hinverse<F>(e, o);
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

template <class F> __global__ void rows_kernel(const rows_args a, bool inverse)
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
    T *dst = plane_ptr<T>(a.dst, plane) + (long long)y * a.dst.pitch;
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

template <class F> cudaError_t launch_level2d(bool inverse, const level2d_args &a, cudaStream_t s)
{
    const int wl = (a.width + 1) / 2;
    const int strips = (wl + VALID - 1) / VALID;
    const dim3 grid((strips + LEVEL2D_WARPS - 1) / LEVEL2D_WARPS, level2d_chunks(a), a.planes);
    if (grid.y == 0)
        return cudaSuccess;
    if (inverse)
        level2d_inverse<F><<<grid, LEVEL2D_WARPS * 32, 0, s>>>(a);
    else
        level2d_forward<F><<<grid, LEVEL2D_WARPS * 32, 0, s>>>(a);
    return cudaGetLastError();
}

template <class F> cudaError_t level2d_blocks_per_sm(bool inverse, int *blocks)
{
    return inverse ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, level2d_inverse<F>,
                                                                   LEVEL2D_WARPS * 32, 0)
                   : cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, level2d_forward<F>,
                                                                   LEVEL2D_WARPS * 32, 0);
}

template <class F>
cudaError_t launch_rows(bool inverse, const rows_args &a, size_t smem, cudaStream_t s)
{
    const long long rows = (long long)a.height * a.planes;
    const unsigned blocks = (unsigned)((rows + a.warps_per_block - 1) / a.warps_per_block);
    if (blocks == 0)
        return cudaSuccess;
    rows_kernel<F><<<blocks, a.warps_per_block * 32, smem, s>>>(a, inverse);
    return cudaGetLastError();
}

template <class F> cudaError_t rows_allow_smem(size_t bytes)
{
    return cudaFuncSetAttribute(rows_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)bytes);
}

/* Filter F's table (wavelet_cuda_internal.h): what dwt53.cu and dwt97.cu define. */
template <class F> constexpr filter_kernels kernels_for()
{
    return {launch_level2d<F>, launch_rows<F>, level2d_blocks_per_sm<F>, rows_allow_smem<F>};
}

#endif

} // namespace wav

#endif
