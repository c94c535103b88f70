/* Register-based lifting engine of the CUDA kernels (Enfedaque, Auli-Llinas,
 * Moure, "Implementation of the DWT in a GPU through a register-based
 * strategy", and chapter 2 of Enfedaque's thesis), written for independent
 * thread scheduling: every exchange is a *_sync shuffle over the full warp.
 *
 * Horizontal: a warp holds SPAN = 128 consecutive sample pairs (even, odd) of
 * one line, 4 consecutive pairs per lane, so that each lane moves 16 bytes per
 * band. A lifting step needs one neighbour pair, which lies in the same lane
 * except at the lane's edge: one shuffle per step. Warps overlap by HALO pairs
 * each side (the paper's halo), which they recompute and do not store; each
 * half-step spoils at most one pair at the warp's edges, and the 9/7 has four.
 *
 * Vertical: each lane streams its 8 columns down the picture one pair of rows
 * (even, odd) per tick through a pipeline of lifting stages whose state stays
 * in registers (a sliding window of one pair per stage), so a warp reads each
 * row once and only STEPS pre-roll pairs per chunk of rows twice. */
#ifndef XSF_DWT_LIFTING_CUH
#define XSF_DWT_LIFTING_CUH

#include <stdint.h>

#include "wavelet_cuda.h"
#include "wavelet_internal.h"

namespace wav
{

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int PAIRS = 4;               /* pairs per lane */
constexpr int SPAN = 32 * PAIRS;       /* pairs per warp */
constexpr int HALO = 4;                /* pairs recomputed each side */
constexpr int VALID = SPAN - 2 * HALO; /* pairs a warp stores: lanes 1..30 */

/* Whole-sample symmetric extension: the index in [0, n) that position i of the
 * infinitely mirrored line reads (x[-i] = x[i], x[n-1+i] = x[n-1-i]). Parity is
 * kept for n >= 2, so low-pass positions fold onto low-pass ones. */
__device__ __forceinline__ int fold(int i, int n)
{
    if (n < 2)
        return 0;
    const int p = 2 * (n - 1);
    while (i < 0 || i >= n) {
        if (i < 0)
            i = -i;
        if (i >= n)
            i = p - i;
    }
    return i;
}

/* ---- filters: lifting steps s = 0..STEPS-1 of the forward transform; even s
 * updates odd samples from their even neighbours (i, i+1), odd s updates even
 * samples from their odd neighbours (i-1, i). The inverse runs them backwards
 * with the opposite sign. ---- */

struct Lift53 {
    using T = int32_t;
    static constexpr int STEPS = 2;
    static constexpr int TICKS = 1; /* pairs of rows per iteration of the 2D kernels */
    /* blocks of the 2D kernels per multiprocessor, which caps their
     * registers: inverse 5 (96 registers; 6 would spill), forward 6 (80).
     * Measured on an H100: either one more or one less is slower. Two pairs
     * of rows per iteration would need more than 128 and spill. */
    static constexpr int MIN_BLOCKS_INV = 5, MIN_BLOCKS_FWD = 6;
    /* 15444-1 (F-5)/(F-6), floors by arithmetic shift */
    static __device__ __forceinline__ T step(int s, bool inv, T x, T a, T b)
    {
        const T d = (s == 0) ? ((a + b) >> 1) : ((a + b + 2) >> 2);
        return ((s == 0) != inv) ? x - d : x + d;
    }
    static __device__ __forceinline__ void scale(bool, T &, T &) {}
};

struct Lift97 {
    using T = float;
    static constexpr int STEPS = 4;
    static constexpr int TICKS = 1;
    static constexpr int MIN_BLOCKS_INV = 4, MIN_BLOCKS_FWD = 4; /* at most 128 registers */
    static __device__ __forceinline__ float coef(int s)
    {
        return s == 0 ? WAV97_ALPHA : s == 1 ? WAV97_BETA : s == 2 ? WAV97_GAMMA : WAV97_DELTA;
    }
    /* x + c * (a + b), rounded step by step as the C reference does (no FMA
     * contraction), so that GPU and CPU agree exactly. */
    static __device__ __forceinline__ T step(int s, bool inv, T x, T a, T b)
    {
        const float c = inv ? -coef(s) : coef(s);
        return __fadd_rn(x, __fmul_rn(c, __fadd_rn(a, b)));
    }
    /* forward: low *= 1/K, high *= K; inverse the reverse */
    static __device__ __forceinline__ void scale(bool inv, T &e, T &o)
    {
        e = __fmul_rn(e, inv ? WAV97_K : WAV97_INV_K);
        o = __fmul_rn(o, inv ? WAV97_INV_K : WAV97_K);
    }
};

/* ---- horizontal lifting of one line held by a warp: e[k], o[k] are pairs
 * 4 * lane + k of the warp's span ---- */

template <class F>
__device__ __forceinline__ void hstep(int s, bool inv, typename F::T (&e)[PAIRS],
                                      typename F::T (&o)[PAIRS])
{
    using T = typename F::T;
    if ((s & 1) == 0) { /* odd samples from even i, i+1 */
        const T right = __shfl_down_sync(FULL_MASK, e[0], 1);
#pragma unroll
        for (int k = 0; k < PAIRS - 1; k++)
            o[k] = F::step(s, inv, o[k], e[k], e[k + 1]);
        o[PAIRS - 1] = F::step(s, inv, o[PAIRS - 1], e[PAIRS - 1], right);
    } else { /* even samples from odd i-1, i */
        const T left = __shfl_up_sync(FULL_MASK, o[PAIRS - 1], 1);
#pragma unroll
        for (int k = PAIRS - 1; k > 0; k--)
            e[k] = F::step(s, inv, e[k], o[k - 1], o[k]);
        e[0] = F::step(s, inv, e[0], left, o[0]);
    }
}

template <class F>
__device__ __forceinline__ void hforward(typename F::T (&e)[PAIRS], typename F::T (&o)[PAIRS])
{
#pragma unroll
    for (int s = 0; s < F::STEPS; s++)
        hstep<F>(s, false, e, o);
#pragma unroll
    for (int k = 0; k < PAIRS; k++)
        F::scale(false, e[k], o[k]);
}

template <class F>
__device__ __forceinline__ void hinverse(typename F::T (&e)[PAIRS], typename F::T (&o)[PAIRS])
{
#pragma unroll
    for (int k = 0; k < PAIRS; k++)
        F::scale(true, e[k], o[k]);
#pragma unroll
    for (int s = F::STEPS - 1; s >= 0; s--)
        hstep<F>(s, true, e, o);
}

/* ---- vertical pipeline: push the pair of rows t (E = row 2t, O = row 2t+1,
 * N values each); on return E, O hold the finished pair t - STEPS/2. Stage q
 * runs step s(q); an odd-sample stage delays by one pair (it needs the next even
 * row), an even-sample stage does not (it keeps the previous odd row). Output is
 * right from the STEPS-th push on. ---- */

template <class F, bool INV, int N> struct vpipe {
    using T = typename F::T;
    T prev_e[F::STEPS][N], prev_o[F::STEPS][N];

    __device__ __forceinline__ vpipe()
    {
#pragma unroll
        for (int q = 0; q < F::STEPS; q++)
#pragma unroll
            for (int v = 0; v < N; v++)
                prev_e[q][v] = prev_o[q][v] = T(0);
    }

    __device__ __forceinline__ void push(T (&E)[N], T (&O)[N])
    {
        if (INV)
#pragma unroll
            for (int v = 0; v < N; v++)
                F::scale(true, E[v], O[v]);
#pragma unroll
        for (int q = 0; q < F::STEPS; q++) {
            const int s = INV ? F::STEPS - 1 - q : q;
            if ((s & 1) == 0) {
#pragma unroll
                for (int v = 0; v < N; v++) {
                    const T ne = E[v], no = O[v];
                    E[v] = prev_e[q][v];
                    O[v] = F::step(s, INV, prev_o[q][v], prev_e[q][v], ne);
                    prev_e[q][v] = ne;
                    prev_o[q][v] = no;
                }
            } else {
#pragma unroll
                for (int v = 0; v < N; v++) {
                    const T no = O[v];
                    E[v] = F::step(s, INV, E[v], prev_o[q][v], no);
                    prev_o[q][v] = no;
                }
            }
        }
        if (!INV)
#pragma unroll
            for (int v = 0; v < N; v++)
                F::scale(false, E[v], O[v]);
    }
};

/* ---- memory: 4 consecutive samples, 16 bytes at once where aligned ---- */

template <class T> struct vec4;
template <> struct vec4<int32_t> {
    using type = int4;
};
template <> struct vec4<float> {
    using type = float4;
};

template <class T> __device__ __forceinline__ bool aligned16(const T *p)
{
    return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

/* Read-only global data (inputs of an out-of-place step): the non-coherent path. */
template <class T> __device__ __forceinline__ T ld(const T *p, bool global_ro)
{
    return global_ro ? __ldg(p) : *p;
}

template <class T> __device__ __forceinline__ void ld4(const T *p, bool global_ro, T (&x)[4])
{
    using V = typename vec4<T>::type;
    const V v = global_ro ? __ldg(reinterpret_cast<const V *>(p)) : *reinterpret_cast<const V *>(p);
    x[0] = v.x;
    x[1] = v.y;
    x[2] = v.z;
    x[3] = v.w;
}

template <class T> __device__ __forceinline__ void st4(T *p, T a, T b, T c, T d)
{
    using V = typename vec4<T>::type;
    V v;
    v.x = a;
    v.y = b;
    v.z = c;
    v.w = d;
    *reinterpret_cast<V *>(p) = v;
}

/* Band samples jb..jb+3 of the low (odd = 0) or high (odd = 1) band of an
 * n-sample line, the band holding `count` samples; positions outside the band
 * read the mirrored line. */
template <class T>
__device__ __forceinline__ void load_band(const T *band, int jb, int count, int n, int odd,
                                          bool global_ro, T (&x)[PAIRS])
{
    if (jb >= 0 && jb + PAIRS <= count) {
        if (aligned16(band + jb)) {
            ld4(band + jb, global_ro, x);
        } else {
#pragma unroll
            for (int k = 0; k < PAIRS; k++)
                x[k] = ld(band + jb + k, global_ro);
        }
    } else {
#pragma unroll
        for (int k = 0; k < PAIRS; k++)
            x[k] = ld(band + ((fold(2 * (jb + k) + odd, n) - odd) >> 1), global_ro);
    }
}

/* Interleaved samples 2*jb .. 2*jb+7 of an n-sample line, mirrored outside. */
template <class T>
__device__ __forceinline__ void load_line(const T *line, int jb, int n, bool global_ro,
                                          T (&x)[2 * PAIRS])
{
    const int c0 = 2 * jb;
    if (c0 >= 0 && c0 + 2 * PAIRS <= n) {
        if (aligned16(line + c0)) {
            T a[4], b[4];
            ld4(line + c0, global_ro, a);
            ld4(line + c0 + 4, global_ro, b);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                x[k] = a[k];
                x[4 + k] = b[k];
            }
        } else {
#pragma unroll
            for (int k = 0; k < 2 * PAIRS; k++)
                x[k] = ld(line + c0 + k, global_ro);
        }
    } else {
#pragma unroll
        for (int k = 0; k < 2 * PAIRS; k++)
            x[k] = ld(line + fold(c0 + k, n), global_ro);
    }
}

/* Band samples jb..jb+3 to a band of `count` samples, if `store`. */
template <class T>
__device__ __forceinline__ void store_band(T *band, int jb, int count, bool store,
                                           const T (&x)[PAIRS])
{
    if (!store)
        return;
    if (jb + PAIRS <= count && aligned16(band + jb)) {
        st4(band + jb, x[0], x[1], x[2], x[3]);
    } else {
#pragma unroll
        for (int k = 0; k < PAIRS; k++)
            if (jb + k < count)
                band[jb + k] = x[k];
    }
}

/* The two output lines of a 2D inverse tick. Lane L holds the interleaved
 * samples 8L..8L+7 of the warp's span (E: line 0, O: line 1; c_warp is the
 * line position of the span's first sample); written as they are, each
 * 16-byte store of the warp would touch 32 half-filled sectors. Through the
 * warp's scratch x (2 * 2 * SPAN samples of shared memory) lane m writes
 * samples 4m..4m+3 and 128+4m..128+4m+3 instead: whole sectors, one request
 * per 512 bytes. The halo (lanes 0 and 31: samples below 8 and from 248) is
 * not stored; line1 may be NULL (no odd line). Every lane must call. */
template <class T>
__device__ __forceinline__ void store_lines(T *line0, T *line1, int c_warp, int n,
                                            const T (&E)[2 * PAIRS], const T (&O)[2 * PAIRS], T *x,
                                            int lane)
{
    constexpr int LINE = 2 * SPAN;
    st4(x + 8 * lane, E[0], E[1], E[2], E[3]);
    st4(x + 8 * lane + 4, E[4], E[5], E[6], E[7]);
    st4(x + LINE + 8 * lane, O[0], O[1], O[2], O[3]);
    st4(x + LINE + 8 * lane + 4, O[4], O[5], O[6], O[7]);
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 2; r++) {
        T *line = r ? line1 : line0;
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int rel = half * SPAN + 4 * lane, c0 = c_warp + rel;
            if (!line || rel < 2 * HALO || rel >= LINE - 2 * HALO || c0 >= n)
                continue;
            T v[4];
            ld4(x + r * LINE + rel, false, v);
            if (c0 + 4 <= n && aligned16(line + c0)) {
                st4(line + c0, v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int k = 0; k < 4; k++)
                    if (c0 + k < n)
                        line[c0 + k] = v[k];
            }
        }
    }
    __syncwarp(); /* x is free for the next tick */
}

/* ---- the picture as unsigned 16-bit samples (wavelet_cuda.h's wav_u16_output) ---- */

/* Plane k's conversion. */
struct u16_conv {
    int32_t offset, max;
    int shift;
};

__device__ __forceinline__ u16_conv u16_of(const wav_u16_output &o, int k)
{
    return {o.offset[k], o.max[k], o.shift[k]};
}

/* 32-bit arithmetic: the clamp keeps the sum within int32 (|offset| < 2^30). */
__device__ __forceinline__ uint32_t u16_sample(int32_t v, const u16_conv &c)
{
    const int32_t x = min(max(v, -(1 << 30)), 1 << 30) + c.offset;
    return (uint32_t)min(max(x >> c.shift, 0), c.max);
}

/* Samples v[0..3] at line + c0 of an n-sample line: one 8-byte store where
 * the four are inside and the address allows, else sample by sample. */
__device__ __forceinline__ void store4_u16(uint16_t *line, int c0, int n, const int32_t (&v)[4],
                                           const u16_conv &c)
{
    uint32_t s[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
        s[k] = u16_sample(v[k], c);
    uint16_t *p = line + c0;
    if (c0 + 4 <= n && (reinterpret_cast<uintptr_t>(p) & 7u) == 0) {
        *reinterpret_cast<unsigned long long *>(p) =
            (unsigned long long)(s[0] | s[1] << 16) | (unsigned long long)(s[2] | s[3] << 16) << 32;
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (c0 + k < n)
                p[k] = (uint16_t)s[k];
    }
}

/* store_lines into 16-bit lines: the same staging through x, then each lane
 * converts its 4 samples per half and stores 8 bytes (a warp 256 contiguous
 * bytes a half line). */
__device__ __forceinline__ void store_lines_u16(uint16_t *line0, uint16_t *line1, int c_warp, int n,
                                                const int32_t (&E)[2 * PAIRS],
                                                const int32_t (&O)[2 * PAIRS], int32_t *x, int lane,
                                                const u16_conv &c)
{
    constexpr int LINE = 2 * SPAN;
    st4(x + 8 * lane, E[0], E[1], E[2], E[3]);
    st4(x + 8 * lane + 4, E[4], E[5], E[6], E[7]);
    st4(x + LINE + 8 * lane, O[0], O[1], O[2], O[3]);
    st4(x + LINE + 8 * lane + 4, O[4], O[5], O[6], O[7]);
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 2; r++) {
        uint16_t *line = r ? line1 : line0;
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int rel = half * SPAN + 4 * lane, c0 = c_warp + rel;
            if (!line || rel < 2 * HALO || rel >= LINE - 2 * HALO || c0 >= n)
                continue;
            int32_t v[4];
            ld4(x + r * LINE + rel, false, v);
            store4_u16(line, c0, n, v, c);
        }
    }
    __syncwarp(); /* x is free for the next tick */
}

/* store_line into a 16-bit line. */
__device__ __forceinline__ void store_line_u16(uint16_t *line, int jb, int n, bool store,
                                               const int32_t (&e)[PAIRS], const int32_t (&o)[PAIRS],
                                               const u16_conv &c)
{
    if (!store)
        return;
    const int32_t a[4] = {e[0], o[0], e[1], o[1]}, b[4] = {e[2], o[2], e[3], o[3]};
    store4_u16(line, 2 * jb, n, a, c);
    store4_u16(line, 2 * jb + 4, n, b, c);
}

/* Interleaved pairs jb..jb+3 to an n-sample line, if `store`. */
template <class T>
__device__ __forceinline__ void store_line(T *line, int jb, int n, bool store, const T (&e)[PAIRS],
                                           const T (&o)[PAIRS])
{
    if (!store)
        return;
    const int c0 = 2 * jb;
    if (c0 + 2 * PAIRS <= n && aligned16(line + c0)) {
        st4(line + c0, e[0], o[0], e[1], o[1]);
        st4(line + c0 + 4, e[2], o[2], e[3], o[3]);
    } else {
#pragma unroll
        for (int k = 0; k < PAIRS; k++) {
            if (c0 + 2 * k < n)
                line[c0 + 2 * k] = e[k];
            if (c0 + 2 * k + 1 < n)
                line[c0 + 2 * k + 1] = o[k];
        }
    }
}

} // namespace wav

#endif
