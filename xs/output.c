/* Output stage: inverse reversible colour transform (21122-1 F.3), then the
 * inverse non-linearity — linear, quadratic or extended (Annex G) — with DC
 * offset, rounding to the output depth and clamping. */
#include "xs_decoder.h"

static inline int64_t clamp64(int64_t v, int64_t hi)
{
    return v < 0 ? 0 : (v > hi ? hi : v);
}

void xs_inverse_rct(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* Wrapping arithmetic: hostile streams may carry any int32 here. */
        int32_t y = c0[i], u = c1[i], v = c2[i];
        int32_t g = (int32_t)((uint32_t)y - (uint32_t)(((int64_t)u + v) >> 2));
        c0[i] = (int32_t)((uint32_t)g + (uint32_t)v);
        c1[i] = g;
        c2[i] = (int32_t)((uint32_t)g + (uint32_t)u);
    }
}

/* n samples of component c from the coefficients `in` to `out`. */
static void output_row(const xs_header *h, int c, const int32_t *in, uint16_t *out, size_t n)
{
    const int bw = h->bw;
    const int depth = h->depth[c];
    const int64_t maxv = ((int64_t)1 << depth) - 1;
    const int64_t dc = (int64_t)1 << (bw - 1);
    if (h->tnlt == 0) {
        const int dz = bw - depth;
        const int64_t round = ((int64_t)1 << dz) >> 1;
        for (size_t i = 0; i < n; i++)
            out[i] = (uint16_t)clamp64((in[i] + dc + round) >> dz, maxv);
    } else if (h->tnlt == 1) {
        /* G.3: quadratic, with DC offset alpha - sigma * 2^15. */
        const int dz = 2 * bw - depth;
        const int64_t round = ((int64_t)1 << dz) >> 1;
        const int64_t dco = (int64_t)h->nlt_alpha - (int64_t)h->nlt_sigma * 32768;
        const int64_t vmax = ((int64_t)1 << bw) - 1;
        for (size_t i = 0; i < n; i++) {
            int64_t v = clamp64(in[i] + dc, vmax);
            out[i] = (uint16_t)clamp64(((v * v + round) >> dz) + dco, maxv);
        }
    } else {
        /* G.4: extended, three pieces split at T1 and T2. */
        const int e = h->nlt_e, eps = bw - e;
        const int64_t t1 = h->nlt_t1, t2 = h->nlt_t2;
        const int64_t b1 = t1 + ((int64_t)1 << (bw - e - 1));
        const int64_t b2 = t1 * t1;
        const int64_t b3 = t2 - ((int64_t)1 << (bw - e - 1));
        const int64_t a1 = b2 + (t1 << (bw - e)) + ((int64_t)1 << (2 * bw - 2 - 2 * e));
        const int64_t a3 = b2 + (t2 << (bw - e)) - ((int64_t)1 << (2 * bw - 2 - 2 * e));
        const int dz = 2 * bw - depth;
        const int64_t round = ((int64_t)1 << dz) >> 1;
        const int64_t vmax = ((int64_t)1 << bw) - 1;
        for (size_t i = 0; i < n; i++) {
            int64_t v = in[i] + dc;
            if (v < t1) {
                v = clamp64(b1 - v, vmax);
                v = a1 - v * v;
            } else if (v < t2) {
                v = v * ((int64_t)1 << eps) + b2;
            } else {
                v = clamp64(v - b3, vmax);
                v = a3 + v * v;
            }
            out[i] = (uint16_t)clamp64((v + round) >> dz, maxv);
        }
    }
}

/* Component c's rows of the frame's rows [0, y): y * Hc / Hf. */
static int comp_rows(const xs_decoder *d, int c, int y)
{
    return (int)((size_t)y * (size_t)d->geom.comp[c].height / d->hdr.hf);
}

void xs_output_rows(xs_decoder *d, const xsf_picture *dst, int y0, int y1)
{
    const xs_header *h = &d->hdr;
    const xs_geometry *g = &d->geom;
    if (h->cpih == 1) { /* components 0..2 of one size (the header checks) */
        const size_t w = (size_t)g->comp[0].width;
        for (int y = comp_rows(d, 0, y0); y < comp_rows(d, 0, y1); y++)
            xs_inverse_rct(d->coef[0] + y * w, d->coef[1] + y * w, d->coef[2] + y * w, w);
    }
    for (int c = 0; c < g->nc; c++) {
        const size_t w = (size_t)g->comp[c].width;
        for (int y = comp_rows(d, c, y0); y < comp_rows(d, c, y1); y++)
            output_row(h, c, d->coef[c] + (size_t)y * w, xsf_picture_row16(dst, c, y), w);
    }
}

void xs_output_stage(xs_decoder *d, const xsf_picture *dst)
{
    const xs_header *h = &d->hdr;
    const xs_geometry *g = &d->geom;
    if (h->cpih == 1)
        xs_inverse_rct(d->coef[0], d->coef[1], d->coef[2],
                       (size_t)g->comp[0].width * g->comp[0].height);
    for (int c = 0; c < g->nc; c++) {
        const size_t w = (size_t)g->comp[c].width;
        for (int y = 0; y < g->comp[c].height; y++)
            output_row(h, c, d->coef[c] + (size_t)y * w, xsf_picture_row16(dst, c, y), w);
    }
}
