/* The per-pixel arithmetic of the output pixel formats (xsf_container in
 * xsf_picture.h), shared by the C reference (common/xsf_convert.c,
 * xsf_picture_convert) and the GPU's output kernel, so both give the same
 * bytes. Every function is `static inline` and, under nvcc, __host__
 * __device__; nothing here allocates, indexes a picture or needs more than
 * <stdint.h>. The callers do their own indexing: these functions take the
 * samples of one group (6 pixels of v210, 2 of a pgroup or of UYVY, 1 of
 * the RGB formats) and give its bytes or words.
 *
 * The rules (the contract, docs in xsf_picture.h):
 *  - depth conversion from D to N bits: rounds half up and saturates when
 *    D > N, shifts left when D < N (xsf_px_depth);
 *  - chroma resampling per axis from S to T samples (xsf_px_axis): copy
 *    (S == T), 2:1 down (S == 2T or 2T - 1: the rounded mean of 2i and 2i+1,
 *    2i alone at the edge; both axes down: the rounded mean of the up to 4,
 *    xsf_px_mean), 1:2 up (T == 2S or 2S - 1: source i >> 1); resampling is
 *    done at the source depth, then the depth conversion;
 *  - RGB: integer coefficients (xsf_rgb_fixed, made once on the host by
 *    xsf_rgb_fixed_make in xsf_colour.h) applied to the components at the
 *    luma position (xsf_px_rgb).
 * Words and samples wider than a byte are little-endian in memory (v210,
 * P210/P010, RGB48): xsf_px_store_le16/le32 write them byte by byte, which a
 * kernel may replace by a native store on a little-endian GPU. */
#ifndef XSF_PIXFMT_PACK_H
#define XSF_PIXFMT_PACK_H

#include <stdint.h>

#ifdef __CUDACC__
#define XSF_PX_FN static inline __host__ __device__
#else
#define XSF_PX_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The fixed-point Y'CbCr (or R'G'B', or gray) to R'G'B' step, B = bits of
 * the output (8: rgba/bgra; 16: rgb48 and rgbf32), S = XSF_RGB_FIXED_SHIFT:
 *     v_k = sum_j a[k][j] * s_j + c[k]    (int64; c holds the 1/2 rounding)
 *     out_k = v_k < 0 ? 0 : min(v_k >> S, 2^B - 1)
 * with s_j component j at the luma position (j 1, 2 unused, 0, for gray).
 * Rows k: R, G, B; columns j: source components 0, 1, 2. */
#define XSF_RGB_FIXED_SHIFT 16
typedef struct xsf_rgb_fixed {
    int64_t a[3][3];
    int64_t c[3];
    int bits;  /* B: 8 or 16 */
    int depth; /* the source components' depth the coefficients are for */
} xsf_rgb_fixed;

/* Sample s of D bits as N bits (1 <= D, N <= 16). */
XSF_PX_FN uint32_t xsf_px_depth(uint32_t s, int from, int to)
{
    if (from > to) {
        const uint32_t v = (s + (1u << (from - to - 1))) >> (from - to);
        const uint32_t max = (1u << to) - 1;
        return v < max ? v : max;
    }
    return s << (to - from);
}

/* The rounded mean of n (1..4) samples that sum to `sum`: (sum + n/2) / n;
 * for two, (a + b + 1) >> 1. */
XSF_PX_FN uint32_t xsf_px_mean(uint32_t sum, uint32_t n)
{
    return (sum + n / 2) / n;
}

/* How one axis is resampled from S source to T target samples. */
enum {
    XSF_PX_AXIS_NONE = -1, /* no rule: the format does not apply */
    XSF_PX_AXIS_COPY = 0,  /* target i = source i */
    XSF_PX_AXIS_DOWN = 1,  /* target i = mean of source 2i and 2i+1 (2i alone where 2i+1 >= S) */
    XSF_PX_AXIS_UP = 2,    /* target i = source i >> 1 */
};
XSF_PX_FN int xsf_px_axis(int S, int T)
{
    if (S == T)
        return XSF_PX_AXIS_COPY;
    if (S == 2 * T || S == 2 * T - 1)
        return XSF_PX_AXIS_DOWN;
    if (T == 2 * S || T == 2 * S - 1)
        return XSF_PX_AXIS_UP;
    return XSF_PX_AXIS_NONE;
}

/* The source samples target i of an axis reads: the first, *first, and how
 * many (1 or 2; 2 only when DOWN and 2i+1 < S). */
XSF_PX_FN int xsf_px_axis_src(int mode, int i, int S, int *first)
{
    if (mode == XSF_PX_AXIS_UP) {
        *first = i >> 1;
        return 1;
    }
    if (mode == XSF_PX_AXIS_DOWN) {
        *first = 2 * i;
        return 2 * i + 1 < S ? 2 : 1;
    }
    *first = i;
    return 1;
}

/* A value of `depth` bits in the most significant bits of 16 (P210/P010). */
XSF_PX_FN uint32_t xsf_px_msb16(uint32_t v, int depth)
{
    return v << (16 - depth);
}

/* One v210 group: 6 luma and 3 pairs of 10-bit samples (0 past the width)
 * as its 4 words (bits 30 and 31 zero). */
XSF_PX_FN void xsf_px_v210(const uint32_t y[6], const uint32_t cb[3], const uint32_t cr[3],
                           uint32_t w[4])
{
    w[0] = cb[0] | y[0] << 10 | cr[0] << 20;
    w[1] = y[1] | cb[1] << 10 | y[2] << 20;
    w[2] = cr[1] | y[3] << 10 | cb[2] << 20;
    w[3] = y[4] | cr[2] << 10 | y[5] << 20;
}

/* The inverse of xsf_px_v210 (for checks). */
XSF_PX_FN void xsf_px_v210_unpack(const uint32_t w[4], uint32_t y[6], uint32_t cb[3],
                                  uint32_t cr[3])
{
    cb[0] = w[0] & 1023, y[0] = w[0] >> 10 & 1023, cr[0] = w[0] >> 20 & 1023;
    y[1] = w[1] & 1023, cb[1] = w[1] >> 10 & 1023, y[2] = w[1] >> 20 & 1023;
    cr[1] = w[2] & 1023, y[3] = w[2] >> 10 & 1023, cb[2] = w[2] >> 20 & 1023;
    y[4] = w[3] & 1023, cr[2] = w[3] >> 10 & 1023, y[5] = w[3] >> 20 & 1023;
}

/* One ST 2110-20 4:2:2 10-bit pgroup: Cb Y0 Cr Y1, 10 bits each, most
 * significant bit first, in 5 bytes. */
XSF_PX_FN void xsf_px_pgroup(uint32_t cb, uint32_t y0, uint32_t cr, uint32_t y1, uint8_t out[5])
{
    out[0] = (uint8_t)(cb >> 2);
    out[1] = (uint8_t)((cb & 3) << 6 | y0 >> 4);
    out[2] = (uint8_t)((y0 & 15) << 4 | cr >> 6);
    out[3] = (uint8_t)((cr & 63) << 2 | y1 >> 8);
    out[4] = (uint8_t)(y1 & 255);
}

/* The inverse of xsf_px_pgroup: v[0..3] = Cb Y0 Cr Y1. */
XSF_PX_FN void xsf_px_pgroup_unpack(const uint8_t in[5], uint32_t v[4])
{
    v[0] = (uint32_t)in[0] << 2 | in[1] >> 6;
    v[1] = (uint32_t)(in[1] & 63) << 4 | in[2] >> 4;
    v[2] = (uint32_t)(in[2] & 15) << 6 | in[3] >> 2;
    v[3] = (uint32_t)(in[3] & 3) << 8 | in[4];
}

/* One UYVY pair: bytes Cb Y0 Cr Y1 (8-bit samples). */
XSF_PX_FN void xsf_px_uyvy(uint32_t cb, uint32_t y0, uint32_t cr, uint32_t y1, uint8_t out[4])
{
    out[0] = (uint8_t)cb;
    out[1] = (uint8_t)y0;
    out[2] = (uint8_t)cr;
    out[3] = (uint8_t)y1;
}

/* One pixel's R', G', B' (out[0..2], f->bits each) from its components
 * s0, s1, s2 at the luma position (xsf_rgb_fixed above). */
XSF_PX_FN void xsf_px_rgb(const xsf_rgb_fixed *f, uint32_t s0, uint32_t s1, uint32_t s2,
                          uint32_t out[3])
{
    const int64_t max = ((int64_t)1 << f->bits) - 1;
    for (int k = 0; k < 3; k++) {
        const int64_t v = f->a[k][0] * (int64_t)s0 + f->a[k][1] * (int64_t)s1 +
                          f->a[k][2] * (int64_t)s2 + f->c[k];
        const int64_t o = v < 0 ? 0 : v >> XSF_RGB_FIXED_SHIFT;
        out[k] = (uint32_t)(o < max ? o : max);
    }
}

/* rgbf32: a 16-bit result as a float in [0, 1], correctly rounded. */
XSF_PX_FN float xsf_px_unit_float(uint32_t v16)
{
    return (float)v16 / 65535.0f;
}

XSF_PX_FN void xsf_px_store_le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

XSF_PX_FN void xsf_px_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

XSF_PX_FN uint32_t xsf_px_load_le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

XSF_PX_FN uint32_t xsf_px_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#ifdef __cplusplus
}
#endif

#endif
