/* wavelet_cuda.h's out-of-place plans over the C reference (wavelet.h), for
 * the emulated GPU codecs (BPC-PaCo, the JPEG XS decoder): the GPU wavelet
 * core is its owner's to test (tests/wavelet, on its own emulation); here it
 * only has to transform as the C reference does, and to hold the incremental
 * inverse to its contract so that a decoder's row release is checked:
 * wav_cuda_inverse_rows_to sees only the coefficients that rows_in makes
 * final (the others poisoned), and writes only the rows that become final. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../wavelet/wav_test_data.h" /* wav_test_coefficient_final */
#include "wavelet_cuda.h"

struct wav_cuda_plan {
    wav_plan *plan;
    wav_plan_desc desc;
    size_t bytes;
    uint32_t *scratch; /* the incremental inverse's view of the coefficients */
};

/* What the incremental inverse puts where a coefficient is not final yet:
 * within the 5/3's +-2^29, yet far from any real coefficient, so that an
 * output row computed from it is wrong. */
#define NOT_FINAL 0x0badbad

extern "C" {
xsf_status wav_cuda_plan_create(wav_cuda_plan **out, const wav_plan_desc *desc, xsf_error *err)
{
    wav_cuda_plan *p = (wav_cuda_plan *)calloc(1, sizeof *p);
    if (!p)
        return XSF_ERR_NOMEM;
    p->desc = *desc;
    const size_t planes = desc->planes > 1 ? desc->planes : 1;
    p->bytes =
        ((planes - 1) * desc->plane_stride + (desc->height - 1) * desc->pitch + desc->width) * 4;
    xsf_status s = wav_plan_create(&p->plan, desc, err);
    if (s == XSF_OK && !(p->scratch = (uint32_t *)malloc(p->bytes)))
        s = XSF_ERR_NOMEM;
    if (s) {
        wav_plan_destroy(p->plan);
        free(p);
        return s;
    }
    *out = p;
    return XSF_OK;
}
void wav_cuda_plan_destroy(wav_cuda_plan *p)
{
    if (p) {
        wav_plan_destroy(p->plan);
        free(p->scratch);
    }
    free(p);
}
const wav_plan_desc *wav_cuda_plan_get_desc(const wav_cuda_plan *p)
{
    return &p->desc;
}
const char *wav_cuda_plan_error(const wav_cuda_plan *)
{
    return "";
}
xsf_status wav_cuda_forward_to(wav_cuda_plan *p, const void *src, void *dst, struct CUstream_st *)
{
    memcpy(dst, src, p->bytes);
    return wav_forward(p->plan, dst);
}
xsf_status wav_cuda_inverse_to(wav_cuda_plan *p, const void *src, void *dst, struct CUstream_st *)
{
    memcpy(dst, src, p->bytes);
    return wav_inverse(p->plan, dst);
}
/* Rows [y0, y1) of the int32 picture pic (the plan's layout) into out's 16-bit planes. */
static void to_u16(const wav_cuda_plan *p, const uint32_t *pic, const wav_u16_output *out,
                   size_t y0, size_t y1)
{
    const wav_plan_desc *d = &p->desc;
    for (size_t k = 0; k < d->planes; k++)
        for (size_t y = y0; y < y1; y++)
            for (size_t x = 0; x < d->width; x++) {
                int64_t v = (int32_t)pic[k * d->plane_stride + y * d->pitch + x];
                v = v < -(1 << 30) ? -(1 << 30) : v > (1 << 30) ? (1 << 30) : v;
                v = (v + out->offset[k]) >> out->shift[k];
                out->plane[k][y * out->pitch[k] + x] = (uint16_t)(v < 0             ? 0
                                                                  : v > out->max[k] ? out->max[k]
                                                                                    : v);
            }
}
/* The 16-bit output's contract (wavelet_cuda.h), as the GPU plan checks it. */
static xsf_status u16_ok(const wav_cuda_plan *p, const wav_u16_output *out)
{
    const wav_plan_desc *d = &p->desc;
    if (!out || d->filter != WAV_FILTER_53 || d->levels_h < 1 || d->planes > WAV_U16_PLANES)
        return XSF_ERR_ARG;
    for (size_t k = 0; k < d->planes; k++)
        if (!out->plane[k] || (uintptr_t)out->plane[k] % 2 || out->pitch[k] < d->width ||
            out->offset[k] <= -(1 << 30) || out->offset[k] >= (1 << 30) || out->shift[k] < 0 ||
            out->shift[k] > 30 || out->max[k] < 0 || out->max[k] > 65535)
            return XSF_ERR_ARG;
    return XSF_OK;
}
xsf_status wav_cuda_inverse_to_u16(wav_cuda_plan *p, const void *src, const wav_u16_output *out,
                                   struct CUstream_st *)
{
    xsf_status st = u16_ok(p, out);
    if (st != XSF_OK)
        return st;
    memcpy(p->scratch, src, p->bytes);
    st = wav_inverse(p->plan, p->scratch);
    if (st == XSF_OK)
        to_u16(p, p->scratch, out, 0, p->desc.height);
    return st;
}
/* The whole inverse of the final coefficients, of which rows
 * [final(rows_before), final(rows_in)) of each plane go to dst: slow (a
 * whole picture per call) and simple. */
/* The whole inverse of the final coefficients into the scratch: the rows
 * [*y0, *y1) it makes final are right there. */
static xsf_status inverse_final(wav_cuda_plan *p, const void *src, size_t rows_before,
                                size_t rows_in, size_t *y0, size_t *y1)
{
    const wav_plan_desc *d = &p->desc;
    if (rows_in < rows_before)
        return XSF_ERR_ARG;
    *y0 = wav_inverse_rows_final(d, rows_before);
    *y1 = wav_inverse_rows_final(d, rows_in);
    if (*y1 <= *y0)
        return XSF_OK;
    const size_t planes = d->planes > 1 ? d->planes : 1;
    const uint32_t *s = (const uint32_t *)src;
    uint32_t *w = p->scratch;
    for (size_t k = 0; k < planes; k++)
        for (size_t y = 0; y < d->height; y++)
            for (size_t x = 0; x < d->width; x++) {
                const size_t i = k * d->plane_stride + y * d->pitch + x;
                w[i] = wav_test_coefficient_final(d, rows_in, x, y) ? s[i] : NOT_FINAL;
            }
    return wav_inverse(p->plan, w);
}
xsf_status wav_cuda_inverse_rows_to(wav_cuda_plan *p, const void *src, void *dst,
                                    size_t rows_before, size_t rows_in, struct CUstream_st *)
{
    size_t y0 = 0, y1 = 0;
    const xsf_status st = inverse_final(p, src, rows_before, rows_in, &y0, &y1);
    const size_t planes = p->desc.planes > 1 ? p->desc.planes : 1;
    for (size_t k = 0; st == XSF_OK && k < planes; k++)
        for (size_t y = y0; y < y1; y++) {
            const size_t i = k * p->desc.plane_stride + y * p->desc.pitch;
            memcpy((uint32_t *)dst + i, p->scratch + i, p->desc.width * 4);
        }
    return st;
}
xsf_status wav_cuda_inverse_rows_to_u16(wav_cuda_plan *p, const void *src,
                                        const wav_u16_output *out, size_t rows_before,
                                        size_t rows_in, struct CUstream_st *)
{
    size_t y0 = 0, y1 = 0;
    xsf_status st = u16_ok(p, out);
    if (st == XSF_OK)
        st = inverse_final(p, src, rows_before, rows_in, &y0, &y1);
    if (st == XSF_OK && y1 > y0)
        to_u16(p, p->scratch, out, y0, y1);
    return st;
}
}
