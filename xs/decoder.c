/* The C reference JPEG XS decoder: headers, a structural walk of the whole
 * codestream, then slice by slice entropy decoding into coefficient planes,
 * the inverse DWT of wavelet/ and the output stage. */
#include <stdlib.h>
#include <string.h>

#include "xs_decoder.h"

xsf_status xs_decoder_create(xs_decoder **dec, xsf_error *err)
{
    if (!dec)
        return xsf_error_set(err, XSF_ERR_ARG, "no place for the decoder");
    *dec = calloc(1, sizeof **dec);
    return *dec ? XSF_OK : xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a decoder");
}

static void release_buffers(xs_decoder *d)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        free(d->coef[c]);
        free(d->out[c]);
        wav_plan_destroy(d->plan[c]);
        d->coef[c] = NULL;
        d->out[c] = NULL;
        d->plan[c] = NULL;
    }
    free(d->gcli);
    free(d->gtli);
    free(d->sig_scratch);
    d->gcli = d->gtli = d->sig_scratch = NULL;
    d->configured = 0;
}

void xs_decoder_destroy(xs_decoder *d)
{
    if (!d)
        return;
    release_buffers(d);
    free(d);
}

const xs_header *xs_decoder_header(const xs_decoder *d)
{
    return &d->hdr;
}

const char *xs_decoder_error(const xs_decoder *d)
{
    return d->err.msg;
}

static xsf_status configure(xs_decoder *d, const xs_header *prev)
{
    if (d->configured && xs_same_format(prev, &d->hdr))
        return XSF_OK;
    release_buffers(d);
    const xs_geometry *g = &d->geom;
    size_t sig_bytes = 0;
    for (int b = 0; b < g->nbands; b++)
        sig_bytes += g->band[b].gcli_stride / 8 + 2;
    d->gcli = malloc(g->gcli_total ? g->gcli_total : 1);
    d->gtli = malloc((size_t)g->rows * g->cols * g->nbands);
    d->sig_scratch = malloc(sig_bytes * 8);
    if (!d->gcli || !d->gtli || !d->sig_scratch)
        goto nomem;
    xsf_picture_init(&d->pic);
    d->pic.fmt.container = XSF_PLANAR_U16;
    d->pic.fmt.nc = g->nc;
    for (int c = 0; c < g->nc; c++) {
        const xs_component *cp = &g->comp[c];
        const size_t n = (size_t)cp->width * cp->height;
        d->coef[c] = malloc(n * sizeof(int32_t));
        if (!d->coef[c])
            goto nomem;
        if (cp->nlx > 0) {
            const wav_plan_desc desc = xs_dwt_desc(cp, 1);
            xsf_status st = wav_plan_create(&d->plan[c], &desc, &d->err);
            if (st != XSF_OK) {
                release_buffers(d);
                return st;
            }
        }
        d->pic.fmt.width[c] = cp->width;
        d->pic.fmt.height[c] = cp->height;
        d->pic.fmt.depth[c] = d->hdr.depth[c];
    }
    d->configured = 1;
    return XSF_OK;
nomem:
    release_buffers(d);
    return xsf_error_set(&d->err, XSF_ERR_NOMEM, "out of memory for a %ux%u picture", d->hdr.wf,
                         d->hdr.hf);
}

/* The decoder's own output planes (d->pic's), made by the first decode into them. */
static xsf_status own_planes(xs_decoder *d)
{
    for (int c = 0; c < d->pic.fmt.nc; c++) {
        if (d->out[c])
            continue;
        const size_t row = xsf_format_row_bytes(&d->pic.fmt, c);
        if (!(d->out[c] = malloc(row * (size_t)d->pic.fmt.height[c]))) {
            release_buffers(d);
            return xsf_error_set(&d->err, XSF_ERR_NOMEM, "out of memory for a %ux%u picture",
                                 d->hdr.wf, d->hdr.hf);
        }
        d->pic.stride[c] = row;
        d->pic.data[c] = (uint8_t *)d->out[c];
    }
    return XSF_OK;
}

xsf_status xs_decode(xs_decoder *d, const uint8_t *buf, size_t len, size_t *consumed,
                     const xsf_picture **pic)
{
    if (!d || !buf || !consumed || !pic)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    *consumed = 0;
    *pic = NULL;
    xs_header h;
    const xsf_status st = xs_parse_header(buf, len, &h, &d->err);
    if (st != XSF_OK)
        return st;
    return xs_decode_parsed(d, &h, buf, len, consumed, pic);
}

static xsf_status decode(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                         size_t *consumed, xsf_picture *dst);

xsf_status xs_decode_parsed(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                            size_t *consumed, const xsf_picture **pic)
{
    if (!d || !hdr || !buf || !consumed || !pic)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    *consumed = 0;
    *pic = NULL;
    const xsf_status st = decode(d, hdr, buf, len, consumed, NULL);
    if (st == XSF_OK) {
        xs_header_colour(&d->hdr, &d->pic.colour);
        *pic = &d->pic;
    }
    return st;
}

xsf_status xs_decode_into(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                          size_t *consumed, xsf_picture *out)
{
    if (!d || !buf || !consumed || !out)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    *consumed = 0;
    xs_header h;
    if (!hdr) {
        const xsf_status st = xs_parse_header(buf, len, &h, &d->err);
        if (st != XSF_OK)
            return st;
        hdr = &h;
    }
    return decode(d, hdr, buf, len, consumed, out);
}

/* Decodes into dst (NULL: the decoder's own planes). */
static xsf_status decode(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                         size_t *consumed, xsf_picture *dst)
{
    /* Walk the whole codestream before touching the decoder's state or
     * allocating anything it sizes. */
    const xs_header h = *hdr;
    xsf_status st = xs_geometry_init(&d->scratch_geom, &h, &d->err);
    size_t total = 0;
    if (st == XSF_OK)
        st = xs_walk(buf, len, &h, &d->scratch_geom, NULL, NULL, &total, &d->err);
    if (st != XSF_OK)
        return st;
    const xs_header prev = d->hdr;
    d->hdr = h;
    d->geom = d->scratch_geom;
    st = configure(d, &prev);
    if (st != XSF_OK)
        return st;
    if (!dst)
        st = own_planes(d);
    else if (!xsf_format_equal(&dst->fmt, &d->pic.fmt) || dst->memory == XSF_MEMORY_DEVICE)
        st =
            xsf_error_set(&d->err, XSF_ERR_ARG, "the picture given is not one of the codestream's");
    if (st != XSF_OK)
        return st;
    const xs_geometry *g = &d->geom;
    size_t off = d->hdr.header_bytes;
    for (int s = 0; s < g->slices; s++) {
        off += 6; /* SLH, checked by the walk */
        const int row_end = (s + 1) * d->hdr.hsl < g->rows ? (s + 1) * d->hdr.hsl : g->rows;
        for (int row = s * d->hdr.hsl; row < row_end; row++) {
            for (int col = 0; col < g->cols; col++) {
                size_t used;
                st = xs_decode_precinct(d, buf + off, total - off, off, row, col,
                                        row == s * d->hdr.hsl, &used);
                if (st != XSF_OK)
                    return st;
                off += used;
            }
        }
    }
    for (int c = 0; c < g->nc; c++) {
        if (d->plan[c]) {
            st = wav_inverse(d->plan[c], d->coef[c]);
            if (st != XSF_OK)
                return xsf_error_set(&d->err, st,
                                     "inverse wavelet transform of component %d failed", c);
        }
    }
    xs_output_stage(d, dst ? dst : &d->pic);
    *consumed = total;
    return XSF_OK;
}
