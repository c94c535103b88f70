/* Band, precinct and packet geometry (21122-1 Annex B). */
#include <string.h>

#include "xs_internal.h"

static int ceil_shift(int n, int s)
{
    return (n + (1 << s) - 1) >> s;
}

/* Adds band (comp, beta) with its rectangle; bands are sorted afterwards. */
static void add_band(xs_geometry *g, int comp, int beta, int lx, int x0, int y0, int w, int h,
                     int lines)
{
    g->band[g->nbands++] = (xs_band){.comp = comp,
                                     .beta = beta,
                                     .lx = lx,
                                     .x0 = x0,
                                     .y0 = y0,
                                     .width = w,
                                     .height = h,
                                     .lines = lines};
}

/* Global band index of 21122-1 B.3: position beta major, component minor;
 * the components without decomposition (CWD) come last. */
static int band_order(const xs_geometry *g, const xs_band *b)
{
    if (b->comp >= g->ncd)
        return XS_MAX_BETA * g->ncd + (b->comp - g->ncd);
    return b->beta * g->ncd + b->comp;
}

xsf_status xs_geometry_init(xs_geometry *g, const xs_header *h, xsf_error *err)
{
    memset(g, 0, sizeof *g);
    g->nc = h->nc;
    g->ncd = h->nc - h->sd;
    g->precinct_height = 1 << h->nly;
    g->rows = (h->hf + g->precinct_height - 1) / g->precinct_height;
    g->slices = (g->rows + h->hsl - 1) / h->hsl;
    g->long_headers = h->lh || (size_t)h->wf * h->nc >= 32752;
    const int nlx = h->nlx, nly = h->nly;

    int sx_max = 1;
    for (int c = 0; c < h->nc; c++) {
        xs_component *cp = &g->comp[c];
        cp->sx = h->sx[c];
        cp->sy = h->sy[c];
        cp->width = h->wf / h->sx[c];
        cp->height = h->hf / h->sy[c];
        if (cp->sx > sx_max)
            sx_max = cp->sx;
        g->samples += (size_t)cp->width * cp->height;
        if (c < g->ncd) {
            cp->nlx = nlx;
            cp->nly = nly - (cp->sy - 1);
            if (cp->nly < 0)
                return xsf_error_set(
                    err, XSF_ERR_INVALID,
                    "component %d with vertical sampling %d needs NLy >= 1, found NLy=%d", c,
                    cp->sy, nly);
        } else if ((g->precinct_height / cp->sy) < 1) {
            return xsf_error_set(
                err, XSF_ERR_INVALID,
                "component %d without decomposition has no line in a precinct of %d lines", c,
                g->precinct_height);
        }
    }
    if (g->samples > XS_MAX_SAMPLES)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "picture of %zu samples exceeds the decoder's limit of %zu",
                             g->samples, XS_MAX_SAMPLES);

    for (int c = 0; c < g->ncd; c++) {
        const xs_component *cp = &g->comp[c];
        const int W = cp->width, H = cp->height, dv = cp->nly;
        const int Hv = ceil_shift(H, dv); /* height of the vertical low-pass after dv levels */
        add_band(g, c, 0, nlx, 0, 0, ceil_shift(W, nlx), Hv, 1);
        for (int l = nlx; l >= 1; l--) {
            const int wl = ceil_shift(W, l), wprev = ceil_shift(W, l - 1);
            /* beta of the band whose horizontal high-pass sits at level l in a full component */
            const int beta_hl = l > nly ? 1 + (nlx - l) : 1 + (nlx - nly) + 3 * (nly - l);
            if (l > dv) {
                add_band(g, c, beta_hl, l, wl, 0, wprev - wl, Hv, 1);
            } else {
                const int hl = ceil_shift(H, l), hprev = ceil_shift(H, l - 1);
                const int lines = 1 << (dv - l);
                add_band(g, c, beta_hl, l, wl, 0, wprev - wl, hl, lines);              /* HL */
                add_band(g, c, beta_hl + 1, l, 0, hl, wl, hprev - hl, lines);          /* LH */
                add_band(g, c, beta_hl + 2, l, wl, hl, wprev - wl, hprev - hl, lines); /* HH */
            }
        }
    }
    for (int c = g->ncd; c < g->nc; c++) {
        const xs_component *cp = &g->comp[c];
        int lines = g->precinct_height / cp->sy;
        if (lines > cp->height)
            lines = cp->height;
        add_band(g, c, 0, 0, 0, 0, cp->width, cp->height, lines);
    }
    /* Sort into codestream order (few bands: insertion sort). */
    for (int i = 1; i < g->nbands; i++) {
        xs_band t = g->band[i];
        int j = i;
        while (j > 0 && band_order(g, &g->band[j - 1]) > band_order(g, &t)) {
            g->band[j] = g->band[j - 1];
            j--;
        }
        g->band[j] = t;
    }
    if (g->nbands > XS_MAX_BANDS)
        return xsf_error_set(err, XSF_ERR_INVALID, "%d bands exceed the limit of %d", g->nbands,
                             XS_MAX_BANDS);
    for (int i = 0; i < g->nbands && i < h->nbands; i++) {
        g->band[i].gain = h->gain[i];
        g->band[i].priority = h->priority[i];
    }

    /* Precinct columns (21122-1 B.4): Cw in units of 8 * max(sx) * 2^NLx samples. */
    size_t cs = 0;
    g->cols = 1;
    if (h->cw) {
        cs = (size_t)8 * h->cw * sx_max << nlx;
        g->cols = (int)((h->wf + cs - 1) / cs);
    }
    for (int i = 0; i < g->nbands; i++) {
        xs_band *b = &g->band[i];
        const int sx = g->comp[b->comp].sx;
        b->col_width = h->cw ? (int)(cs / ((size_t)sx << b->lx)) : b->width;
        if (b->col_width < 1)
            b->col_width = 1;
        size_t groups = 0;
        for (int k = 0; k < g->cols; k++)
            groups += (size_t)(xs_band_prec_width(g, b, k) + 3) / 4;
        b->gcli_stride = groups;
        b->gcli_offset = g->gcli_total;
        g->gcli_total += groups * (size_t)b->height;
    }
    g->precinct_header_bytes = 5 + ((size_t)2 * g->nbands + 7) / 8;

    /* Packets (21122-1 Table B.x): packet 0 gathers every band of positions
     * 0..NLx-NLy (one line each); then one packet per further position for
     * line 0, then for line 1 where the position has two lines; then the
     * components without decomposition, a packet per line. */
    int i = 0;
    const int beta0 = nlx - nly;
    xs_packet *p = &g->packet[g->npackets++];
    p->line = 0;
    p->first = 0;
    while (i < g->nbands && g->band[i].comp < g->ncd && g->band[i].beta <= beta0)
        i++;
    p->last = i;
    const int first_beta_band = i;
    for (int line = 0; line < 2; line++) {
        for (i = first_beta_band; i < g->nbands && g->band[i].comp < g->ncd;) {
            const int beta = g->band[i].beta;
            int j = i, any = 0;
            while (j < g->nbands && g->band[j].comp < g->ncd && g->band[j].beta == beta) {
                if (g->band[j].lines > line)
                    any = 1;
                j++;
            }
            if (any) {
                p = &g->packet[g->npackets++];
                p->line = line;
                p->first = i;
                p->last = j;
            }
            i = j;
        }
    }
    for (i = 0; i < g->nbands; i++) {
        if (g->band[i].comp < g->ncd)
            continue;
        for (int line = 0; line < g->band[i].lines; line++) {
            if (g->npackets >= XS_MAX_PACKETS)
                return xsf_error_set(err, XSF_ERR_INVALID, "too many packets per precinct");
            p = &g->packet[g->npackets++];
            p->line = line;
            p->first = i;
            p->last = i + 1;
        }
    }
    return XSF_OK;
}

int xs_same_format(const xs_header *a, const xs_header *b)
{
    if (a->wf != b->wf || a->hf != b->hf || a->nc != b->nc || a->nlx != b->nlx ||
        a->nly != b->nly || a->sd != b->sd || a->cw != b->cw || a->hsl != b->hsl)
        return 0;
    for (int c = 0; c < a->nc; c++)
        if (a->sx[c] != b->sx[c] || a->sy[c] != b->sy[c] || a->depth[c] != b->depth[c])
            return 0;
    return 1;
}
