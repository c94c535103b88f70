/* Per-sample rules of the codec's front and back end, shared by the C
 * reference (colour.c, encoder.c, decoder.c) and the CUDA kernels: level
 * shift, colour transforms (15444-1 G.2 reversible, G.3 irreversible),
 * quantization and dequantization, rounding back to samples. The float
 * expressions are written in one order; the CUDA side is compiled without
 * FMA contraction, so both round alike. */
#ifndef XSF_BPC_COLOUR_RULES_H
#define XSF_BPC_COLOUR_RULES_H

#include <math.h>
#include <stdint.h>

#include "coder_rules.h"

/* RCT: R, G, B (level-shifted) to Y, Cb, Cr and back. */
BPC_HD void bpc_rct_forward(int32_t r, int32_t g, int32_t b, int32_t *y, int32_t *cb, int32_t *cr)
{
    *y = (r + 2 * g + b) >> 2; /* floor: arithmetic shift */
    *cb = b - g;
    *cr = r - g;
}

BPC_HD void bpc_rct_inverse(int32_t y, int32_t cb, int32_t cr, int32_t *r, int32_t *g, int32_t *b)
{
    *g = y - ((cb + cr) >> 2);
    *r = cr + *g;
    *b = cb + *g;
}

BPC_HD void bpc_ict_forward(float r, float g, float b, float *y, float *cb, float *cr)
{
    *y = 0.299f * r + 0.587f * g + 0.114f * b;
    *cb = -0.16875f * r - 0.33126f * g + 0.5f * b;
    *cr = 0.5f * r - 0.41869f * g - 0.08131f * b;
}

BPC_HD void bpc_ict_inverse(float y, float cb, float cr, float *r, float *g, float *b)
{
    *r = y + 1.402f * cr;
    *g = y - 0.34413f * cb - 0.71414f * cr;
    *b = y + 1.772f * cb;
}

/* 9/7 quantization index of a coefficient: sign(c) floor(|c| / step), with
 * the reciprocal of the step given (computed once, on the host). */
BPC_HD int32_t bpc_quantize(float c, float inv_step)
{
    const float a = fabsf(c) * inv_step;
    const int32_t q = a < 268435455.0f ? (int32_t)a : 268435455; /* < 2^28 */
    return c < 0 ? -q : q;
}

/* Coefficient from twice the reconstruction (bpc_codeblock_decode). */
BPC_HD int32_t bpc_dequantize_int(int32_t recon2)
{
    const int32_t a = (recon2 < 0 ? -recon2 : recon2) >> 1;
    return recon2 < 0 ? -a : a;
}

BPC_HD float bpc_dequantize_float(int32_t recon2, float half_step)
{
    return (float)recon2 * half_step;
}

/* Back to a sample of `depth` bits: undo the level shift, clamp. */
BPC_HD uint16_t bpc_to_sample_int(int32_t v, int depth)
{
    const int32_t s = v + (1 << (depth - 1)), top = (1 << depth) - 1;
    return (uint16_t)(s < 0 ? 0 : (s > top ? top : s));
}

BPC_HD uint16_t bpc_to_sample_float(float v, int depth)
{
    const float s = floorf(v + (float)(1 << (depth - 1)) + 0.5f);
    const float top = (float)((1 << depth) - 1);
    if (!(s >= 0.0f)) /* also NaN */
        return 0;
    return (uint16_t)(s > top ? top : s);
}

#endif
