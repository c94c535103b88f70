/* Rate control rules shared by the C encoder (rate.c) and the CUDA encoder
 * (gpu_kernels.cuh), as inline functions for both, so that both choose the
 * same truncation points: the convex hull of each code block's
 * (bytes, distortion) points (post-compression rate-distortion optimization,
 * as JPEG 2000 encoders do), and the hull point a slope threshold picks.
 * Doubles only through + - * / in one order: IEEE rounding makes them agree
 * (the CUDA side is compiled without FMA contraction). */
#ifndef XSF_BPC_RATE_RULES_H
#define XSF_BPC_RATE_RULES_H

#include <math.h>

#include "bpc_internal.h"
#include "coder_rules.h"

BPC_HD uint32_t bpc_rr_varint_size(uint32_t v)
{
    uint32_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Index entry plus data bytes of a code block cut after `passes` passes. */
BPC_HD uint32_t bpc_rr_bytes(int passes, uint32_t codewords)
{
    return passes ? bpc_rr_varint_size((uint32_t)passes) + 1 + bpc_rr_varint_size(codewords) +
                        2 * codewords
                  : 1;
}

/* The hull of one code block: weight turns the coder's distortion units into
 * the picture's squared error (band gain, step, colour gain). */
BPC_HD void bpc_rr_hull(int variant, int planes, int passes, const uint32_t *codewords,
                        const int64_t *distortion, double weight, bpc_rate_cb *out)
{
    double dsum[BPC_MAX_PASSES];
    double d = 0;
    int h = 0;
    for (int k = 1; k <= passes; k++) {
        int j, type;
        bpc_pass_at(variant, planes, k - 1, &j, &type);
        double t = (double)distortion[k - 1];
        t = t * ldexp(1.0, 2 * j - 2 * BPC_F);
        t = t * weight;
        d = d + t;
        const uint32_t r = bpc_rr_bytes(k, codewords[k - 1]);
        for (;;) {
            const uint32_t pr = h ? out->bytes[h - 1] : 1;
            const double pd = h ? dsum[h - 1] : 0.0;
            if (!(d > pd))
                break;     /* no better than the last hull point */
            if (r <= pr) { /* as many bytes, less distortion: replaces it */
                h--;
                continue;
            }
            const double s = (d - pd) / (double)(r - pr);
            if (h > 0 && s >= out->slope[h - 1]) {
                h--;
                continue;
            }
            out->pass[h] = (uint8_t)k;
            out->bytes[h] = r;
            out->slope[h] = s;
            dsum[h] = d;
            h++;
            break;
        }
    }
    out->npoints = h;
}

/* The last hull point whose slope is >= lambda, -1 for none. */
BPC_HD int bpc_rr_pick(const bpc_rate_cb *cb, double lambda)
{
    int lo = 0, hi = cb->npoints; /* slopes decrease: find the first below lambda */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (cb->slope[mid] >= lambda)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

BPC_HD uint32_t bpc_rr_point_bytes(const bpc_rate_cb *cb, int point)
{
    return point < 0 ? 1 : cb->bytes[point];
}

/* The fill's step: whether cb has a hull point after `point`, and *need,
 * the bytes moving to it adds. */
BPC_HD int bpc_rr_next(const bpc_rate_cb *cb, int point, uint64_t *need)
{
    if (point + 1 >= cb->npoints)
        return 0;
    *need = bpc_rr_point_bytes(cb, point + 1) - bpc_rr_point_bytes(cb, point);
    return 1;
}

#endif
