/* The CUDA codec's kernels besides the coder (codeblock_kernels.cuh): front
 * and back end (level shift, colour transforms, rounding: colour_rules.h),
 * rate control (rate_rules.h: hull per code block, then one block running
 * rate.c's bisection and fill with CUB reductions and scans), index sizes
 * and packing. Included by gpu_encoder.cu and gpu_decoder.cu, each taking
 * its own kernels (BPC_KERNELS_ENCODE_ONLY, BPC_KERNELS_DECODE_ONLY). */
#ifndef XSF_BPC_GPU_KERNELS_CUH
#define XSF_BPC_GPU_KERNELS_CUH

#include <cub/cub.cuh>

#include "bpc_internal.h"
#include "colour_rules.h"
#include "rate_rules.h"

#define RATE_THREADS 1024

/* ---- front and back end kernels ---- */

struct bpc_plane_set {
    void *p[BPC_MAX_COMPONENTS]; /* int32 or float, width elements per row */
    uint16_t *s[BPC_MAX_COMPONENTS];
    uint32_t w[BPC_MAX_COMPONENTS], h[BPC_MAX_COMPONENTS], spitch[BPC_MAX_COMPONENTS];
    int depth[BPC_MAX_COMPONENTS];
};

/* The pixel of a front or back end thread: column x (a thread a column), row
 * y (a block row a row), i its index in the width-wide planes p, and sample
 * its index in component k's sample plane. */
struct bpc_pixel {
    uint32_t x, y;
    size_t i;
    __device__ __forceinline__ size_t sample(const bpc_plane_set &ps, int k) const
    {
        return (size_t)y * ps.spitch[k] + x;
    }
};

/* The thread's pixel of component c; false where it lies outside. */
__device__ __forceinline__ bool bpc_pixel_of(const bpc_plane_set &ps, int c, bpc_pixel &px)
{
    px.x = blockIdx.x * blockDim.x + threadIdx.x;
    px.y = blockIdx.y;
    if (px.x >= ps.w[c] || px.y >= ps.h[c])
        return false;
    px.i = (size_t)px.y * ps.w[c] + px.x;
    return true;
}

/* Component c (colour = 0) or components 0..2 through the RCT/ICT (colour). */
#ifndef BPC_KERNELS_DECODE_ONLY
__global__ void bpc_front_kernel(bpc_plane_set ps, int c, int colour, int filter)
{
    bpc_pixel px;
    if (!bpc_pixel_of(ps, c, px))
        return;
    const size_t i = px.i;
    if (!colour) {
        const int32_t v = (int32_t)ps.s[c][px.sample(ps, c)];
        if (filter)
            ((float *)ps.p[c])[i] = (float)v - (float)(1 << (ps.depth[c] - 1));
        else
            ((int32_t *)ps.p[c])[i] = v - (1 << (ps.depth[c] - 1));
        return;
    }
    int32_t v[3];
    for (int k = 0; k < 3; k++)
        v[k] = (int32_t)ps.s[k][px.sample(ps, k)];
    if (filter) {
        const float sh = (float)(1 << (ps.depth[0] - 1));
        float a, b, d;
        bpc_ict_forward((float)v[0] - sh, (float)v[1] - sh, (float)v[2] - sh, &a, &b, &d);
        ((float *)ps.p[0])[i] = a;
        ((float *)ps.p[1])[i] = b;
        ((float *)ps.p[2])[i] = d;
    } else {
        const int32_t sh = 1 << (ps.depth[0] - 1);
        int32_t a, b, d;
        bpc_rct_forward(v[0] - sh, v[1] - sh, v[2] - sh, &a, &b, &d);
        ((int32_t *)ps.p[0])[i] = a;
        ((int32_t *)ps.p[1])[i] = b;
        ((int32_t *)ps.p[2])[i] = d;
    }
}

#endif

#ifndef BPC_KERNELS_ENCODE_ONLY
__global__ void bpc_back_kernel(bpc_plane_set ps, int c, int colour, int filter)
{
    bpc_pixel px;
    if (!bpc_pixel_of(ps, c, px))
        return;
    const size_t i = px.i;
    if (!colour) {
        ps.s[c][px.sample(ps, c)] =
            filter ? bpc_to_sample_float(((const float *)ps.p[c])[i], ps.depth[c])
                   : bpc_to_sample_int(((const int32_t *)ps.p[c])[i], ps.depth[c]);
        return;
    }
    if (filter) {
        float r, g, b;
        bpc_ict_inverse(((const float *)ps.p[0])[i], ((const float *)ps.p[1])[i],
                        ((const float *)ps.p[2])[i], &r, &g, &b);
        ps.s[0][px.sample(ps, 0)] = bpc_to_sample_float(r, ps.depth[0]);
        ps.s[1][px.sample(ps, 1)] = bpc_to_sample_float(g, ps.depth[1]);
        ps.s[2][px.sample(ps, 2)] = bpc_to_sample_float(b, ps.depth[2]);
    } else {
        int32_t r, g, b;
        bpc_rct_inverse(((const int32_t *)ps.p[0])[i], ((const int32_t *)ps.p[1])[i],
                        ((const int32_t *)ps.p[2])[i], &r, &g, &b);
        ps.s[0][px.sample(ps, 0)] = bpc_to_sample_int(r, ps.depth[0]);
        ps.s[1][px.sample(ps, 1)] = bpc_to_sample_int(g, ps.depth[1]);
        ps.s[2][px.sample(ps, 2)] = bpc_to_sample_int(b, ps.depth[2]);
    }
}

#endif

#ifndef BPC_KERNELS_DECODE_ONLY
/* ---- rate control kernels (rate.c's rules) ---- */

__global__ void bpc_hull_kernel(uint32_t ncb, int variant, const uint8_t *planes,
                                const uint8_t *passes, const uint32_t *pass_cw,
                                const int64_t *pass_dist, const double *weight, bpc_rate_cb *rate,
                                uint32_t *full_bytes)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncb)
        return;
    const int n = passes[i];
    const uint32_t *cw = pass_cw + (size_t)i * BPC_MAX_PASSES;
    full_bytes[i] = bpc_rr_bytes(n, n ? cw[n - 1] : 0);
    bpc_rr_hull(variant, planes[i], n, cw, pass_dist + (size_t)i * BPC_MAX_PASSES, weight[i],
                &rate[i]);
}

struct bpc_max_op {
    __device__ double operator()(double a, double b) const
    {
        return a > b ? a : b;
    }
};

/* One block: the passes kept per code block (sel), as bpc_rate_select and
 * the encoder's "everything fits" rule decide. */
__global__ void __launch_bounds__(RATE_THREADS)
    bpc_rate_kernel(uint32_t ncb, const bpc_rate_cb *cbs, const uint8_t *passes,
                    const uint32_t *full_bytes, unsigned long long budget, int *point, uint8_t *sel)
{
    typedef cub::BlockReduce<unsigned long long, RATE_THREADS> reduce_u64;
    typedef cub::BlockReduce<double, RATE_THREADS> reduce_f64;
    typedef cub::BlockScan<unsigned long long, RATE_THREADS> scan_u64;
    __shared__ union {
        typename reduce_u64::TempStorage r;
        typename reduce_f64::TempStorage d;
        typename scan_u64::TempStorage s;
    } tmp;
    __shared__ unsigned long long bcast_u;
    __shared__ double bcast_d;
    const uint32_t t = threadIdx.x;

    unsigned long long mine = 0;
    for (uint32_t i = t; i < ncb; i += RATE_THREADS)
        mine += full_bytes[i];
    unsigned long long all = reduce_u64(tmp.r).Sum(mine);
    if (t == 0)
        bcast_u = all;
    __syncthreads();
    all = bcast_u;
    if (budget == 0 || all <= budget) {
        for (uint32_t i = t; i < ncb; i += RATE_THREADS)
            sel[i] = passes[i];
        return;
    }
    __syncthreads();
    double mtop = 0;
    for (uint32_t i = t; i < ncb; i += RATE_THREADS)
        if (cbs[i].npoints && cbs[i].slope[0] > mtop)
            mtop = cbs[i].slope[0];
    double top = reduce_f64(tmp.d).Reduce(mtop, bpc_max_op());
    if (t == 0)
        bcast_d = top;
    __syncthreads();
    top = bcast_d;
    double lo = 0, hi = 2 * top + 1;
    for (int it = 0; it < 64; it++) {
        const double mid = (lo + hi) * 0.5;
        if (!(mid > lo && mid < hi))
            break;
        unsigned long long s = 0;
        for (uint32_t i = t; i < ncb; i += RATE_THREADS)
            s += bpc_rr_point_bytes(&cbs[i], bpc_rr_pick(&cbs[i], mid));
        __syncthreads();
        s = reduce_u64(tmp.r).Sum(s);
        if (t == 0)
            bcast_u = s;
        __syncthreads();
        if (bcast_u <= budget)
            hi = mid;
        else
            lo = mid;
    }
    unsigned long long used = 0;
    for (uint32_t i = t; i < ncb; i += RATE_THREADS) {
        point[i] = bpc_rr_pick(&cbs[i], hi);
        used += bpc_rr_point_bytes(&cbs[i], point[i]);
    }
    __syncthreads();
    used = reduce_u64(tmp.r).Sum(used);
    if (t == 0)
        bcast_u = used;
    __syncthreads();
    used = bcast_u;
    unsigned long long left = used <= budget ? budget - used : 0;
    /* fill rounds over a blocked arrangement: thread t owns [first, end) */
    const uint32_t chunk = (ncb + RATE_THREADS - 1) / RATE_THREADS;
    const uint32_t first = t * chunk < ncb ? t * chunk : ncb,
                   end = first + chunk < ncb ? first + chunk : ncb;
    for (int round = 0; round < 64; round++) {
        unsigned long long cand = 0;
        for (uint32_t i = first; i < end; i++) {
            uint64_t need;
            if (bpc_rr_next(&cbs[i], point[i], &need) && need <= left)
                cand += need;
        }
        unsigned long long run;
        __syncthreads();
        scan_u64(tmp.s).ExclusiveSum(cand, run);
        unsigned long long taken = 0;
        for (uint32_t i = first; i < end; i++) {
            const int at = point[i];
            uint64_t need;
            if (!bpc_rr_next(&cbs[i], at, &need) || need > left)
                continue;
            run += need;
            if (run > left)
                break;
            point[i] = at + 1;
            taken += need;
        }
        __syncthreads();
        taken = reduce_u64(tmp.r).Sum(taken);
        if (t == 0)
            bcast_u = taken;
        __syncthreads();
        taken = bcast_u;
        if (!taken)
            break;
        left -= taken;
    }
    __syncthreads();
    for (uint32_t i = t; i < ncb; i += RATE_THREADS)
        sel[i] = (uint8_t)(point[i] < 0 ? 0 : cbs[i].pass[point[i]]);
}

/* Index entry and data bytes of each code block as kept. */
__global__ void bpc_sizes_kernel(uint32_t ncb, const uint8_t *sel, const uint32_t *pass_cw,
                                 unsigned long long *isz, unsigned long long *dsz)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncb)
        return;
    const int k = sel[i];
    const uint32_t cw = k ? pass_cw[(size_t)i * BPC_MAX_PASSES + k - 1] : 0;
    isz[i] = bpc_rr_bytes(k, cw) - 2ull * cw;
    dsz[i] = 2ull * cw;
}

__global__ void bpc_totals_kernel(uint32_t ncb, const unsigned long long *isz,
                                  const unsigned long long *dsz, const unsigned long long *ioff,
                                  const unsigned long long *doff, unsigned long long *totals)
{
    totals[0] = ncb ? ioff[ncb - 1] + isz[ncb - 1] : 0;
    totals[1] = ncb ? doff[ncb - 1] + dsz[ncb - 1] : 0;
}

/* One warp per code block: its index entry (lane 0) and its data. out holds
 * the index then the data (the header is written on the host). */
__global__ void bpc_pack_kernel(uint32_t ncb, const uint8_t *sel, const uint8_t *planes,
                                const uint32_t *pass_cw, const unsigned long long *ioff,
                                const unsigned long long *doff, const unsigned long long *totals,
                                const uint64_t *slot, const uint8_t *slots, uint8_t *out)
{
    const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (i >= ncb)
        return;
    const int k = sel[i];
    const uint32_t cw = k ? pass_cw[(size_t)i * BPC_MAX_PASSES + k - 1] : 0;
    if (lane == 0) {
        uint8_t *p = out + ioff[i];
        uint32_t v = (uint32_t)k;
        while (v >= 0x80) {
            *p++ = (uint8_t)(0x80 | (v & 0x7f));
            v >>= 7;
        }
        *p++ = (uint8_t)v;
        if (k) {
            *p++ = planes[i];
            v = cw;
            while (v >= 0x80) {
                *p++ = (uint8_t)(0x80 | (v & 0x7f));
                v >>= 7;
            }
            *p++ = (uint8_t)v;
        }
    }
    uint8_t *d = out + totals[0] + doff[i];
    const uint8_t *s = slots + slot[i];
    for (uint32_t b = (uint32_t)lane; b < 2 * cw; b += 32)
        d[b] = s[b];
}

#endif

#endif
