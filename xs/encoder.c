/* The C reference JPEG XS encoder: the plan shared with the GPU encoder
 * (header, band lines of every precinct, byte budgets), and the frame loop:
 * input stage, forward DWT, bitplane counts, then precinct by precinct the
 * cost tables, the rate decision and the packing. */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

/* ---- plan ---- */

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
    for (int row0 = 0; row0 < g->rows && p->bline_first; row0 += h->hsl) {
        const int row1 = row0 + h->hsl < g->rows ? row0 + h->hsl : g->rows;
        const size_t n = (row1 == g->rows ? total : p->bline_first[(size_t)row1 * g->cols]) -
                         p->bline_first[(size_t)row0 * g->cols];
        if ((int)n > p->max_slice_blines)
            p->max_slice_blines = (int)n;
    }
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

/* ---- frame passes ---- */

int enc_gcli_pass(const enc_plan *plan, int32_t *const coef[XS_MAX_COMPONENTS], uint8_t *gcli,
                  uint16_t *reach)
{
    const xs_geometry *g = &plan->geom;
    const enc_params *pr = &plan->params;
    int saturated = 0;
    for (int b = 0; b < g->nbands; b++) {
        const xs_band *bd = &g->band[b];
        const int cw = g->comp[bd->comp].width;
        for (int y = 0; y < bd->height; y++) {
            uint8_t *gl = gcli + bd->gcli_offset + (size_t)y * bd->gcli_stride;
            uint16_t *rl = reach + bd->gcli_offset + (size_t)y * bd->gcli_stride;
            for (int k = 0; k < g->cols; k++) {
                const int w = xs_band_prec_width(g, bd, k);
                const int32_t *row =
                    coef[bd->comp] + (size_t)(bd->y0 + y) * cw + bd->x0 + (size_t)k * bd->col_width;
                for (int x = 0; x < w; x += 4) {
                    const int n = w - x < 4 ? w - x : 4;
                    uint32_t m = 0;
                    for (int j = 0; j < n; j++) {
                        const int32_t v = row[x + j];
                        const uint32_t a = (uint32_t)(v < 0 ? -(int64_t)v : v) >> pr->fq;
                        m = a > m ? a : m;
                    }
                    if (m > 0x7fff) {
                        saturated = 1;
                        m = 0x7fff;
                    }
                    const int gc = enc_bitlen(m);
                    uint16_t r = 0;
                    for (int j = 0; j < n; j++)
                        r |=
                            (uint16_t)(enc_sign_reach(row[x + j], gc, pr->qpih, pr->fq) << (4 * j));
                    *gl++ = (uint8_t)gc;
                    *rl++ = r;
                }
            }
        }
    }
    return saturated ? -1 : 0;
}

void enc_precinct_costs(const enc_plan *plan, size_t p, const uint8_t *gcli, const uint16_t *reach,
                        const uint8_t *gtli_above, int first_only, enc_line_cost *cost)
{
    const uint32_t first = plan->bline_first[p], last = plan->bline_first[p + 1];
    for (uint32_t i = first; i < last; i++) {
        const enc_bline *bl = &plan->bline[i];
        if (first_only && bl->line != 0)
            continue;
        enc_line_cost *c = &cost[i - first];
        memset(c, 0, sizeof *c);
        const uint8_t *g = gcli + bl->gcli_off;
        const uint16_t *r = reach + bl->gcli_off;
        const uint8_t *top = gtli_above ? g - bl->gcli_stride : NULL;
        const int ttop = gtli_above && bl->line == 0 ? gtli_above[bl->band] : 0;
        for (uint32_t s = 0; s < bl->groups; s += 8) {
            const int n = bl->groups - s < 8 ? (int)(bl->groups - s) : 8;
            enc_cost_sig_group(c, g + s, top ? top + s : NULL, r + s, n, ttop, &plan->params);
        }
    }
}

/* ---- C encoder ---- */

static void release(xs_encoder *e)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        free(e->coef[c]);
        wav_plan_destroy(e->wav[c]);
    }
    free(e->gcli);
    free(e->reach);
    free(e->gtli);
    free(e->cost);
    free(e->share);
    free(e->stats.budget_bytes);
    free(e->stats.coded_bytes);
    free(e->stats.total_bytes);
    free(e->stats.q);
    free(e->stats.r);
    enc_plan_free(&e->plan);
}

xsf_status xs_encoder_create(xs_encoder **out, const xs_encoder_config *cfg, xsf_error *err)
{
    xsf_error local;
    if (!err)
        err = &local;
    if (!out || !cfg)
        return xsf_error_set(err, XSF_ERR_ARG, "xs_encoder_create: NULL argument");
    *out = NULL;
    xs_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the encoder");
    xsf_status st = enc_plan_init(&e->plan, cfg, err);
    if (st != XSF_OK) {
        free(e);
        return st;
    }
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    for (int c = 0; c < g->nc && st == XSF_OK; c++) {
        const xs_component *cp = &g->comp[c];
        const size_t n = (size_t)cp->width * cp->height;
        e->coef[c] = malloc(n * sizeof(int32_t));
        if (!e->coef[c]) {
            st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for component %d", c);
            break;
        }
        if (c < g->ncd) {
            const wav_plan_desc d = xs_dwt_desc(cp, 1);
            st = wav_plan_create(&e->wav[c], &d, err);
        }
    }
    const size_t np = p->nprecincts;
    if (st == XSF_OK) {
        e->gcli = malloc(g->gcli_total ? g->gcli_total : 1);
        e->reach = malloc((g->gcli_total ? g->gcli_total : 1) * sizeof *e->reach);
        e->gtli = malloc(np * (size_t)g->nbands);
        e->cost = malloc((size_t)(p->max_slice_blines ? p->max_slice_blines : 1) * sizeof *e->cost);
        e->share = malloc(np * sizeof *e->share);
        e->stats.budget_bytes = malloc(np * sizeof(uint32_t));
        e->stats.coded_bytes = malloc(np * sizeof(uint32_t));
        e->stats.total_bytes = malloc(np * sizeof(uint32_t));
        e->stats.q = malloc(np);
        e->stats.r = malloc(np);
        if (!e->gcli || !e->reach || !e->gtli || !e->cost || !e->share || !e->stats.budget_bytes ||
            !e->stats.coded_bytes || !e->stats.total_bytes || !e->stats.q || !e->stats.r)
            st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the encoder's frame buffers");
        e->stats.nprecincts = np;
    }
    if (st != XSF_OK) {
        release(e);
        free(e);
        return st;
    }
    *out = e;
    return XSF_OK;
}

void xs_encoder_destroy(xs_encoder *e)
{
    if (!e)
        return;
    release(e);
    free(e);
}

const xs_header *xs_encoder_header(const xs_encoder *e)
{
    return &e->plan.hdr;
}

size_t xs_encoder_max_bytes(const xs_encoder *e)
{
    return e->plan.max_bytes;
}

const xs_encoder_stats *xs_encoder_last_stats(const xs_encoder *e)
{
    return &e->stats;
}

const char *xs_encoder_error(const xs_encoder *e)
{
    return e->err.msg;
}

static void put_be(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Offset of Lcod: SOC, CAP (its length field says how long), PIH marker and length. */
static size_t lcod_offset(const uint8_t *hdr)
{
    return 2 + 2 + (size_t)(hdr[4] << 8 | hdr[5]) + 4;
}

/* Bytes of the precincts p0..p1-1 (cost tables from cost, in codestream
 * order) at candidate k without vertical prediction; sizes[] gets each one's
 * (when not NULL). UINT64_MAX where a length field would overflow. */
static uint64_t slice_bytes(const enc_plan *p, size_t p0, size_t p1, const enc_line_cost *cost,
                            int k, enc_choice *ch, uint32_t *sizes)
{
    int q, r;
    enc_candidate(&p->params, k, &q, &r);
    uint64_t sum = 0;
    for (size_t i = p0; i < p1; i++) {
        const uint32_t f = p->bline_first[i];
        const uint32_t b = enc_evaluate(&p->params, p->hdr.gain, p->hdr.priority, p->bline + f,
                                        cost + (f - p->bline_first[p0]),
                                        (int)(p->bline_first[i + 1] - f), 0, q, r, ch);
        if (b == ENC_NOCOST)
            return UINT64_MAX;
        if (sizes)
            sizes[i - p0] = b;
        sum += b;
    }
    return sum;
}

/* XS_RC_SLICE, learnt from SVT-JPEG-XS's slice budget: the shares of the
 * precincts p0..p1-1 of one slice in share[p0..p1). The best candidate
 * (Q, R) at which the whole slice fits its bytes, counted without vertical
 * prediction (which only lowers a precinct's size), by bisection over k; each
 * precinct's share is its size there plus an even part of what the slice
 * leaves (enc_slice_share). So bytes follow the content inside a slice, not
 * the coefficient count; each precinct is then decided on its own (with
 * vertical prediction) against its share and what the precincts before it
 * left. Where not even the coarsest candidate fits, the shares stay
 * proportional to the coefficients (allot). */
static void slice_shares(const enc_plan *p, size_t p0, size_t p1, const enc_line_cost *cost,
                         enc_choice *ch, uint32_t *share)
{
    uint64_t allot = 0;
    for (size_t i = p0; i < p1; i++) {
        allot += p->allot[i];
        share[i] = p->allot[i];
    }
    if (slice_bytes(p, p0, p1, cost, 0, ch, NULL) > allot)
        return;
    int lo = 0, hi = (p->params.qmax + 1) * p->params.rmax;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (slice_bytes(p, p0, p1, cost, mid, ch, NULL) <= allot)
            lo = mid;
        else
            hi = mid;
    }
    const uint64_t sum = slice_bytes(p, p0, p1, cost, lo, ch, share + p0);
    for (size_t i = p0; i < p1; i++)
        share[i] = enc_slice_share(share[i], allot - sum, (int)(i - p0), (int)(p1 - p0));
}

xsf_status xs_encode(xs_encoder *e, const xsf_picture *pic, uint8_t *out, size_t cap, size_t *len)
{
    if (!e || !pic || !out || !len)
        return XSF_ERR_ARG;
    xsf_error_clear(&e->err);
    xsf_error *err = &e->err;
    *len = 0;
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    const xs_header *h = &p->hdr;
    const int fixed = p->cfg.rate_control == XS_RC_FIXED;
    if (cap < (fixed ? p->header_bytes : p->target_bytes))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "output buffer of %zu bytes, the codestream needs %zu", cap,
                             fixed ? p->header_bytes : p->target_bytes);
    xsf_status st = enc_input_stage(p, pic, e->coef, err);
    if (st != XSF_OK)
        return st;
    for (int c = 0; c < g->ncd; c++) {
        st = wav_forward(e->wav[c], e->coef[c]);
        if (st != XSF_OK)
            return xsf_error_set(err, st, "forward wavelet transform of component %d failed", c);
    }
    if (enc_gcli_pass(p, e->coef, e->gcli, e->reach) < 0)
        return xsf_error_set(
            err, XSF_ERR_ARG,
            "a coefficient needs more than 15 bit planes (Bw=%u, Fq=%u): raise Fq or lower Bw",
            h->bw, h->fq);
    memcpy(out, p->header, p->header_bytes);
    size_t off = p->header_bytes;
    for (int s = 0; s < g->slices; s++) {
        if (cap - off < 6)
            return xsf_error_set(err, XSF_ERR_ARG, "output buffer of %zu bytes is too small", cap);
        put_be(out + off, XS_MARKER_SLH, 2);
        put_be(out + off + 2, 4, 2);
        put_be(out + off + 4, (uint32_t)s, 2);
        off += 6;
        const int row0 = s * h->hsl, row1 = row0 + h->hsl < g->rows ? row0 + h->hsl : g->rows;
        uint64_t slice_allot = 0, allot_cum = 0, used = 0;
        for (int row = row0; row < row1; row++)
            for (int col = 0; col < g->cols; col++)
                slice_allot += p->allot[(size_t)row * g->cols + col];
        /* The slice's cost tables; those of a precinct's first lines are
         * redone once the precinct above is decided (vertical prediction). */
        const size_t p0 = (size_t)row0 * g->cols, p1 = (size_t)row1 * g->cols;
        static const uint8_t no_truncation[XS_MAX_BANDS];
        for (size_t pi = p0; pi < p1; pi++)
            enc_precinct_costs(p, pi, e->gcli, e->reach, pi >= p0 + g->cols ? no_truncation : NULL,
                               0, e->cost + (p->bline_first[pi] - p->bline_first[p0]));
        if (p->cfg.rate_control == XS_RC_SLICE)
            slice_shares(p, p0, p1, e->cost, &e->choice, e->share);
        for (int row = row0; row < row1; row++) {
            for (int col = 0; col < g->cols; col++) {
                const size_t pi = (size_t)row * g->cols + col;
                const uint8_t *above =
                    row > row0 ? e->gtli + (pi - (size_t)g->cols) * g->nbands : NULL;
                const enc_bline *bl = p->bline + p->bline_first[pi];
                const int nbl = (int)(p->bline_first[pi + 1] - p->bline_first[pi]);
                enc_line_cost *cost = e->cost + (p->bline_first[pi] - p->bline_first[p0]);
                if (above)
                    enc_precinct_costs(p, pi, e->gcli, e->reach, above, 1, cost);
                int q, r;
                uint32_t budget, total;
                if (fixed) {
                    q = p->cfg.q;
                    r = p->cfg.r;
                    budget = UINT32_MAX;
                    if (enc_evaluate(&p->params, h->gain, h->priority, bl, cost, nbl, above != NULL,
                                     q, r, &e->choice) == ENC_NOCOST)
                        return xsf_error_set(
                            err, XSF_ERR_ARG,
                            "precinct (%d,%d): Q=%d R=%d overflow a packet length field; "
                            "use long headers or a coarser quantization",
                            row, col, q, r);
                } else {
                    const int slice_rc = p->cfg.rate_control == XS_RC_SLICE;
                    allot_cum += slice_rc ? e->share[pi] : p->allot[pi];
                    budget = slice_rc ? (uint32_t)(allot_cum - used) : p->allot[pi];
                    if (enc_select(&p->params, h->gain, h->priority, bl, cost, nbl, above != NULL,
                                   budget, &q, &r, &e->choice) < 0)
                        return xsf_error_set(
                            err, XSF_ERR_ARG,
                            "precinct (%d,%d): %u bytes cannot hold even the coarsest quantization "
                            "(%u bytes): raise the rate",
                            row, col, budget, e->choice.bytes);
                }
                const uint32_t coded = e->choice.bytes;
                if (fixed)
                    total = coded;
                else if (p->cfg.rate_control == XS_RC_PRECINCT)
                    total = p->allot[pi];
                else
                    total = (row == row1 - 1 && col == g->cols - 1) ? (uint32_t)(slice_allot - used)
                                                                    : coded;
                if (cap - off < total)
                    return xsf_error_set(err, XSF_ERR_ARG,
                                         "output buffer of %zu bytes is too small", cap);
                if (enc_write_precinct(p, pi, q, r, &e->choice, cost, e->coef, e->gcli, above,
                                       out + off, total) != coded)
                    return xsf_error_set(err, XSF_ERR_INVALID,
                                         "internal: precinct (%d,%d) packed to a size other than "
                                         "its cost tables say",
                                         row, col);
                memcpy(e->gtli + pi * g->nbands, e->choice.t, (size_t)g->nbands);
                e->stats.budget_bytes[pi] = budget;
                e->stats.coded_bytes[pi] = coded;
                e->stats.total_bytes[pi] = total;
                e->stats.q[pi] = (uint8_t)q;
                e->stats.r[pi] = (uint8_t)r;
                off += total;
                used += total;
            }
        }
    }
    if (cap - off < 2)
        return xsf_error_set(err, XSF_ERR_ARG, "output buffer of %zu bytes is too small", cap);
    put_be(out + off, XS_MARKER_EOC, 2);
    off += 2;
    if (fixed)
        put_be(out + lcod_offset(out), (uint32_t)off, 4);
    else if (off != p->target_bytes)
        return xsf_error_set(err, XSF_ERR_INVALID, "internal: codestream of %zu bytes, target %zu",
                             off, p->target_bytes);
    e->stats.codestream_bytes = off;
    *len = off;
    return XSF_OK;
}
