/* Encoder input stage, the inverse of the decoder's output stage (21122-1
 * Annex F and G): samples to wavelet-domain values at Bw bits with the DC
 * offset removed, through the forward non-linearity where one is signalled,
 * then the forward reversible colour transform. */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "xs_decoder.h"

/* Forward NLT of one depth: for every sample value, the coefficient at the
 * middle of the run of coefficients that the decoder's own output stage
 * maps to that value (so the table inverts exactly what the decoder does).
 * Values no coefficient reaches take the nearest one that is reached. */
static xsf_status nlt_table(const xs_header *h, int depth, int32_t *lut, xsf_error *err)
{
    const size_t nv = (size_t)1 << h->bw, ns = (size_t)1 << depth;
    xs_decoder *d = calloc(1, sizeof *d);
    int32_t *coef = malloc(nv * sizeof *coef);
    uint16_t *out = malloc(nv * sizeof *out);
    uint32_t *first = malloc(ns * sizeof *first), *last = malloc(ns * sizeof *last);
    xsf_status st = XSF_OK;
    if (!d || !coef || !out || !first || !last) {
        st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the forward NLT table");
        goto done;
    }
    d->hdr = *h;
    d->hdr.nc = 1;
    d->hdr.cpih = 0;
    d->hdr.depth[0] = (uint8_t)depth;
    d->geom.nc = 1;
    d->geom.comp[0].width = (int)nv;
    d->geom.comp[0].height = 1;
    const int32_t dc = 1 << (h->bw - 1);
    for (size_t v = 0; v < nv; v++)
        coef[v] = (int32_t)v - dc;
    d->coef[0] = coef;
    xsf_picture row; /* one row of nv samples */
    xsf_picture_init(&row);
    row.data[0] = (uint8_t *)out;
    row.stride[0] = nv * sizeof *out;
    xs_output_stage(d, &row);
    for (size_t s = 0; s < ns; s++)
        first[s] = UINT32_MAX;
    for (size_t v = 0; v < nv; v++) {
        if (first[out[v]] == UINT32_MAX)
            first[out[v]] = (uint32_t)v;
        last[out[v]] = (uint32_t)v;
    }
    /* Nearest reached value below (lut holds it for now) and above. */
    int32_t below = -1;
    for (size_t s = 0; s < ns; s++) {
        if (first[s] != UINT32_MAX)
            below = (int32_t)s;
        lut[s] = below;
    }
    int32_t above = -1;
    for (size_t s = ns; s-- > 0;) {
        if (first[s] != UINT32_MAX)
            above = (int32_t)s;
        int32_t hit = lut[s];
        if (hit < 0 || (above >= 0 && (size_t)above - s < s - (size_t)hit))
            hit = above;
        uint32_t v = first[hit] + (last[hit] - first[hit]) / 2;
        if (out[v] != (uint16_t)hit)
            v = first[hit];
        lut[s] = (int32_t)v - dc;
    }
done:
    free(d);
    free(coef);
    free(out);
    free(first);
    free(last);
    return st;
}

xsf_status enc_nlt_tables(const xs_header *h, int32_t *lut[XS_MAX_COMPONENTS], xsf_error *err)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        lut[c] = NULL;
    if (!h->tnlt)
        return XSF_OK;
    for (int c = 0; c < h->nc; c++) {
        int same = -1;
        for (int o = 0; o < c; o++)
            if (h->depth[o] == h->depth[c])
                same = o;
        if (same >= 0) {
            lut[c] = lut[same];
            continue;
        }
        lut[c] = malloc(sizeof(int32_t) << h->depth[c]);
        if (!lut[c])
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the forward NLT table");
        xsf_status st = nlt_table(h, h->depth[c], lut[c], err);
        if (st != XSF_OK)
            return st;
    }
    return XSF_OK;
}

xsf_status enc_input_check(const enc_plan *plan, const xsf_picture *pic, xsf_error *err)
{
    const xs_header *h = &plan->hdr;
    const xs_geometry *g = &plan->geom;
    if (!pic || pic->fmt.nc != h->nc)
        return xsf_error_set(err, XSF_ERR_ARG, "picture of %d components, the encoder expects %u",
                             pic ? pic->fmt.nc : 0, h->nc);
    if (pic->fmt.container != XSF_PLANAR_U16 || pic->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "the encoder reads planar 16-bit pictures in host memory");
    const xsf_format *f = &pic->fmt;
    for (int c = 0; c < h->nc; c++) {
        const int w = g->comp[c].width, ht = g->comp[c].height;
        if (f->width[c] != w || f->height[c] != ht || f->depth[c] != h->depth[c] || !pic->data[c] ||
            pic->stride[c] < (size_t)w * 2)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "component %d is %dx%d at %d bits (stride %zu bytes), the encoder "
                                 "expects %dx%d at %u bits",
                                 c, f->width[c], f->height[c], f->depth[c], pic->stride[c], w, ht,
                                 h->depth[c]);
    }
    return XSF_OK;
}

void enc_input_row(const enc_plan *plan, const xsf_picture *pic, int c, int y, int32_t *out)
{
    const xs_header *h = &plan->hdr;
    const int w = plan->geom.comp[c].width;
    const uint32_t maxv = (1u << h->depth[c]) - 1;
    const int shift = h->bw - h->depth[c];
    const int32_t dc = 1 << (h->bw - 1);
    const int32_t *lut = plan->nlt_lut[c];
    const uint16_t *in = xsf_picture_row16(pic, c, y);
    for (int x = 0; x < w; x++) {
        const uint32_t s = in[x] > maxv ? maxv : in[x];
        out[x] = lut ? lut[s] : (int32_t)(s << shift) - dc;
    }
}

void enc_input_rows(const enc_plan *plan, const xsf_picture *pic,
                    int32_t *const coef[XS_MAX_COMPONENTS], int row0, int row1)
{
    const xs_header *h = &plan->hdr;
    const xs_geometry *g = &plan->geom;
    for (int c = 0; c < h->nc; c++) {
        const int w = g->comp[c].width, ht = g->comp[c].height, sy = g->comp[c].sy;
        const int y0 = row0 / sy, y1 = row1 >= g->comp[0].height || row1 / sy > ht ? ht : row1 / sy;
        for (int y = y0; y < y1 && coef[c]; y++)
            enc_input_row(plan, pic, c, y, coef[c] + (size_t)y * w);
    }
    if (h->cpih == 1) {
        /* Forward RCT (inverse of 21122-1 F.3): components 0, 1, 2 are R, G, B. */
        const size_t w = (size_t)g->comp[0].width;
        const int y1 = row1 < g->comp[0].height ? row1 : g->comp[0].height;
        int32_t *c0 = coef[0], *c1 = coef[1], *c2 = coef[2];
        for (size_t i = (size_t)row0 * w; i < (size_t)y1 * w; i++) {
            const int32_t r = c0[i], gr = c1[i], b = c2[i];
            c0[i] = (r + 2 * gr + b) >> 2;
            c1[i] = b - gr;
            c2[i] = r - gr;
        }
    }
}
