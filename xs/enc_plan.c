/* The encoder's plan, shared by the C and the GPU encoders: the header, the
 * band lines of every precinct and the byte budgets (enc_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

void enc_plan_free(enc_plan *p)
{
    free(p->bline_first);
    free(p->bline);
    free(p->allot);
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        int shared = 0;
        for (int o = 0; o < c; o++)
            shared |= p->nlt_lut[o] == p->nlt_lut[c];
        if (!shared)
            free(p->nlt_lut[c]);
    }
    memset(p, 0, sizeof *p);
}

/* Band lines of precinct (row, col) in codestream order: packet by packet,
 * band by band, those the precinct's height reaches (as the decoder walks). */
static size_t list_blines(const xs_geometry *g, int row, int col, enc_bline *out)
{
    size_t n = 0;
    for (int pi = 0; pi < g->npackets; pi++) {
        const xs_packet *pk = &g->packet[pi];
        for (int b = pk->first; b < pk->last; b++) {
            const xs_band *bd = &g->band[b];
            if (xs_band_prec_height(bd, row) <= pk->line)
                continue;
            if (out) {
                enc_bline *e = &out[n];
                const size_t brow = (size_t)row * bd->lines + pk->line;
                e->band = (uint16_t)b;
                e->line = (uint8_t)pk->line;
                e->packet = (uint8_t)pi;
                e->width = (uint32_t)xs_band_prec_width(g, bd, col);
                e->groups = (e->width + 3) / 4;
                e->gcli_stride = (uint32_t)bd->gcli_stride;
                e->gcli_off = (uint32_t)(bd->gcli_offset + brow * bd->gcli_stride +
                                         (size_t)col * ((bd->col_width + 3) / 4));
                e->coef_off = (uint32_t)((size_t)(bd->y0 + brow) * g->comp[bd->comp].width +
                                         bd->x0 + (size_t)col * bd->col_width);
                e->precinct = (uint32_t)((size_t)row * g->cols + col);
            }
            n++;
        }
    }
    return n;
}

xsf_status enc_plan_init(enc_plan *p, const xs_encoder_config *cfg, xsf_error *err)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (cfg->lossless) {
        /* What enc_make_header applies, kept for the frame loop. */
        p->cfg.rate_control = XS_RC_FIXED;
        p->cfg.q = p->cfg.r = 0;
    }
    xsf_status st = enc_make_header(cfg, &p->hdr, err);
    if (st == XSF_OK)
        st = xs_geometry_init(&p->geom, &p->hdr, err);
    if (st != XSF_OK)
        return st;
    const xs_geometry *g = &p->geom;
    const xs_header *h = &p->hdr;
    if (g->gcli_total > UINT32_MAX || g->samples > UINT32_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "picture too large for the encoder");

    /* Band lines of every precinct. */
    p->nprecincts = (size_t)g->rows * g->cols;
    p->bline_first = malloc((p->nprecincts + 1) * sizeof *p->bline_first);
    size_t total = 0;
    for (int row = 0; row < g->rows && p->bline_first; row++)
        for (int col = 0; col < g->cols; col++) {
            size_t n = list_blines(g, row, col, NULL);
            p->bline_first[(size_t)row * g->cols + col] = (uint32_t)total;
            total += n;
            if ((int)n > p->max_blines)
                p->max_blines = (int)n;
        }
    p->nblines = total;
    p->bline = malloc((total ? total : 1) * sizeof *p->bline);
    p->allot = malloc(p->nprecincts * sizeof *p->allot);
    if (!p->bline_first || !p->bline || !p->allot) {
        enc_plan_free(p);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the precinct layout");
    }
    p->bline_first[p->nprecincts] = (uint32_t)total;
    for (int row = 0; row < g->rows; row++)
        for (int col = 0; col < g->cols; col++)
            list_blines(g, row, col, p->bline + p->bline_first[(size_t)row * g->cols + col]);

    /* Decision parameters. */
    enc_params *pr = &p->params;
    const unsigned modes = p->cfg.gcli_modes;
    pr->fs = h->fs;
    pr->rm = h->rm;
    pr->qpih = h->qpih;
    pr->fq = h->fq;
    pr->allow_raw = (modes & XS_GCLI_RAW) != 0;
    pr->allow_vpred = (modes & XS_GCLI_VPRED) != 0;
    pr->allow_sig = (modes & XS_GCLI_SIGFLAGS) != 0;
    pr->force_raw = modes == XS_GCLI_RAW;
    pr->long_headers = g->long_headers;
    pr->nbands = g->nbands;
    int maxgain = 0, maxprio = 0;
    for (int b = 0; b < g->nbands; b++) {
        maxgain = h->gain[b] > maxgain ? h->gain[b] : maxgain;
        maxprio = h->priority[b] > maxprio ? h->priority[b] : maxprio;
    }
    pr->qmax = 15 + maxgain > 255 ? 255 : 15 + maxgain;
    pr->rmax = maxprio + 1;
    pr->prec_header_bytes = (uint32_t)g->precinct_header_bytes;

    /* Budgets: the codestream is exactly the target; what the headers, the
     * slice headers and EOC leave is shared by the precincts in proportion
     * to their coefficients. */
    const size_t fixed = h->header_bytes + 6 * (size_t)g->slices + 2;
    if (p->cfg.rate_control != XS_RC_FIXED) {
        double bytes = p->cfg.target_bytes ? (double)p->cfg.target_bytes
                                           : p->cfg.bpp * (double)h->wf * (double)h->hf / 8.0;
        if (bytes >= (double)UINT32_MAX) {
            enc_plan_free(p);
            return xsf_error_set(err, XSF_ERR_ARG, "target of %.0f bytes exceeds 4 GiB", bytes);
        }
        p->target_bytes = (size_t)bytes;
        if (p->target_bytes < fixed + p->nprecincts * g->precinct_header_bytes) {
            size_t need = fixed + p->nprecincts * g->precinct_header_bytes;
            enc_plan_free(p);
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "target of %zu bytes is below the %zu bytes of the headers alone",
                                 (size_t)bytes, need);
        }
        const uint64_t data = p->target_bytes - fixed;
        uint64_t cum = 0, prev = 0;
        const uint64_t all = g->samples ? g->samples : 1;
        uint64_t weight_total = 0;
        for (size_t i = 0; i < p->nblines; i++)
            weight_total += p->bline[i].width;
        if (!weight_total)
            weight_total = all;
        for (size_t i = 0; i < p->nprecincts; i++) {
            for (uint32_t k = p->bline_first[i]; k < p->bline_first[i + 1]; k++)
                cum += p->bline[k].width;
            const uint64_t next = i + 1 == p->nprecincts ? data : data * cum / weight_total;
            p->allot[i] = (uint32_t)(next - prev);
            prev = next;
        }
        p->max_bytes = p->target_bytes;
        p->hdr.lcod = (uint32_t)p->target_bytes;
    } else {
        /* Bound: per code group 31 count bits, 64 data bits, 4 sign bits and a
         * significance bit; per packet its header and four padded subpackets. */
        size_t bound = fixed + p->nprecincts * g->precinct_header_bytes;
        for (size_t i = 0; i < p->nblines; i++)
            bound += ((size_t)p->bline[i].groups * 100 + 7) / 8 + 7 + 4;
        p->max_bytes = bound;
        memset(p->allot, 0, p->nprecincts * sizeof *p->allot);
    }
    st = enc_check_profile(&p->cfg, &p->hdr, p->max_bytes, err);
    if (st == XSF_OK)
        st = enc_nlt_tables(&p->hdr, p->nlt_lut, err);
    if (st != XSF_OK) {
        enc_plan_free(p);
        return st;
    }
    p->header_bytes = enc_write_header(&p->hdr, p->header, sizeof p->header);
    return XSF_OK;
}
