/* Helpers of the encoder tests: synthetic pictures, encode-then-decode with
 * the C decoder, PSNR, and an independent check of the byte budgets read
 * from the codestream itself. */
#ifndef XSF_ENC_TEST_UTIL_H
#define XSF_ENC_TEST_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xs_internal.h"

static uint64_t enc_rng = 0x2545f4914f6cdd1dull;
static inline uint32_t enc_rand(void)
{
    enc_rng ^= enc_rng << 13;
    enc_rng ^= enc_rng >> 7;
    enc_rng ^= enc_rng << 17;
    return (uint32_t)(enc_rng >> 16);
}

/* The encoder's format by the tests' names: a sampling of
 * xs_encoder_config_format, or "rgb" (4:4:4 with the RCT). */
static inline void set_format(xs_encoder_config *cfg, const char *f, int w, int h, int depth)
{
    if (!strcmp(f, "rgb")) {
        xs_encoder_config_format(cfg, "444", w, h, depth);
        cfg->cpih = 1;
    } else {
        xs_encoder_config_format(cfg, f, w, h, depth);
    }
}

/* A picture with the statistics of a photograph, roughly: smooth shading,
 * a few edges, a textured patch and a little noise; components correlated. */
typedef struct test_picture {
    xsf_picture img;
    uint16_t *buf;
} test_picture;

static inline void test_picture_free(test_picture *p)
{
    free(p->buf);
    memset(p, 0, sizeof *p);
}

static inline int test_picture_make(test_picture *p, const xs_encoder_config *cfg, int kind)
{
    memset(p, 0, sizeof *p);
    size_t total = 0, off[XS_MAX_COMPONENTS];
    for (int c = 0; c < cfg->nc; c++) {
        off[c] = total;
        total += (size_t)(cfg->width / cfg->sx[c]) * (cfg->height / cfg->sy[c]);
    }
    p->buf = malloc(total * sizeof *p->buf);
    if (!p->buf)
        return -1;
    p->img.fmt.nc = cfg->nc;
    const double phase = (enc_rand() % 1000) / 100.0;
    for (int c = 0; c < cfg->nc; c++) {
        const int w = cfg->width / cfg->sx[c], h = cfg->height / cfg->sy[c], d = cfg->depth[c];
        const double maxv = (double)((1 << d) - 1);
        p->img.fmt.width[c] = w;
        p->img.fmt.height[c] = h;
        p->img.fmt.depth[c] = d;
        p->img.stride[c] = ((size_t)w) * sizeof(uint16_t);
        p->img.data[c] = (uint8_t *)(p->buf + off[c]);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                const double fx = (double)x * cfg->sx[c] / cfg->width,
                             fy = (double)y * cfg->sy[c] / cfg->height;
                double v;
                if (kind == 1) { /* noise: the worst case for the coder */
                    v = (enc_rand() % 65536) / 65535.0;
                } else {
                    v = 0.35 + 0.25 * fx + 0.15 * fy + 0.05 * c;
                    v += 0.08 * sin(6.0 * fx + phase + c) * cos(4.0 * fy);
                    if (fx > 0.55 && fy < 0.4)
                        v += 0.2; /* an edge */
                    if (fx < 0.3 && fy > 0.5)
                        v += 0.06 * sin(90.0 * fx + 70.0 * fy); /* texture */
                    v += ((int)(enc_rand() % 2001) - 1000) / 1000.0 * 0.01;
                }
                v = v < 0 ? 0 : (v > 1 ? 1 : v);
                ((uint16_t *)p->img.data[c])[(size_t)y * w + x] = (uint16_t)(v * maxv + 0.5);
            }
        }
    }
    return 0;
}

/* PSNR over every sample of every component, peak of component 0's depth;
 * 999 when identical. */
static inline double test_psnr(const xsf_picture *a, const xsf_picture *b)
{
    double se = 0, n = 0;
    for (int c = 0; c < a->fmt.nc; c++)
        for (int y = 0; y < a->fmt.height[c]; y++)
            for (int x = 0; x < a->fmt.width[c]; x++) {
                const double d =
                    (double)xsf_picture_row16(a, c, y)[x] - (double)xsf_picture_row16(b, c, y)[x];
                se += d * d;
                n += 1;
            }
    if (se == 0)
        return 999.0;
    const double peak = (double)((1 << a->fmt.depth[0]) - 1);
    return 10.0 * log10(peak * peak / (se / n));
}

static inline int test_same_picture(const xsf_picture *a, const xsf_picture *b)
{
    if (a->fmt.nc != b->fmt.nc)
        return 0;
    for (int c = 0; c < a->fmt.nc; c++) {
        if (a->fmt.width[c] != b->fmt.width[c] || a->fmt.height[c] != b->fmt.height[c])
            return 0;
        for (int y = 0; y < a->fmt.height[c]; y++)
            if (memcmp(xsf_picture_row16(a, c, y), xsf_picture_row16(b, c, y),
                       (size_t)a->fmt.width[c] * 2))
                return 0;
    }
    return 1;
}

static inline uint32_t rd_be(const uint8_t *p, int n)
{
    uint32_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Bytes the packets of the precinct at `prec` take, read from its headers
 * alone (precinct header, packet headers, significance subpackets whose size
 * follows from D[p,b], and the three lengths of each packet). */
static inline size_t test_precinct_content(const uint8_t *prec, const xs_geometry *g, int row,
                                           int col)
{
    size_t pos = g->precinct_header_bytes;
    const size_t ph = g->long_headers ? 7 : 5;
    for (int pi = 0; pi < g->npackets; pi++) {
        const xs_packet *pk = &g->packet[pi];
        int present = 0;
        for (int b = pk->first; b < pk->last; b++)
            present |= xs_band_prec_height(&g->band[b], row) > pk->line;
        if (!present)
            continue;
        const uint8_t *h = prec + pos;
        uint64_t v = 0;
        for (size_t i = 0; i < 8; i++)
            v = v << 8 | (i < ph ? h[i] : 0);
        const int raw = (int)(v >> 63);
        uint32_t ldat, lcnt, lsgn;
        if (g->long_headers) {
            ldat = (uint32_t)(v >> 43) & 0xfffff;
            lcnt = (uint32_t)(v >> 23) & 0xfffff;
            lsgn = (uint32_t)(v >> 8) & 0x7fff;
        } else {
            ldat = (uint32_t)(v >> 48) & 0x7fff;
            lcnt = (uint32_t)(v >> 35) & 0x1fff;
            lsgn = (uint32_t)(v >> 24) & 0x7ff;
        }
        pos += ph;
        if (!raw) {
            size_t bits = 0;
            for (int b = pk->first; b < pk->last; b++) {
                const int mode = (prec[5 + b / 4] >> (6 - 2 * (b & 3))) & 3;
                if (xs_band_prec_height(&g->band[b], row) > pk->line && (mode & 2))
                    bits += ((size_t)(xs_band_prec_width(g, &g->band[b], col) + 3) / 4 + 7) / 8;
            }
            pos += (bits + 7) / 8;
        }
        pos += (size_t)lcnt + ldat + lsgn;
    }
    return pos;
}

/* Checks a codestream against the rate-control contract, independently of
 * the encoder: exactly the target size; each slice (slice mode) or precinct
 * (precinct mode) exactly its share in proportion to its coefficients; each
 * precinct's packets within its budget: in precinct mode its share, in slice
 * mode the bytes the precinct occupies (inside a slice the encoder splits the
 * slice's bytes by content, xs/ENCODER.md) and, with the precincts before it
 * in the slice, within the slice's share. Returns NULL or what is wrong. */
static inline const char *test_check_budget(const uint8_t *cs, size_t len, size_t target,
                                            xs_rate_control rc)
{
    static char why[200];
    xs_header h;
    xs_geometry g;
    xsf_error e;
    if (xs_parse_header(cs, len, &h, &e) != XSF_OK || xs_geometry_init(&g, &h, &e) != XSF_OK)
        return "header does not parse";
    if (len != target || h.lcod != target) {
        snprintf(why, sizeof why, "codestream %zu bytes, Lcod %u, target %zu", len, h.lcod, target);
        return why;
    }
    const size_t np = (size_t)g.rows * g.cols;
    uint32_t *off = malloc(np * sizeof *off);
    size_t total;
    if (!off || xs_walk(cs, len, &h, &g, NULL, off, &total, &e) != XSF_OK) {
        free(off);
        return "codestream does not walk";
    }
    /* Shares in proportion to each precinct's coefficients. */
    const uint64_t data = target - h.header_bytes - 6 * (size_t)g.slices - 2;
    uint64_t all = 0;
    for (int row = 0; row < g.rows; row++)
        for (int col = 0; col < g.cols; col++)
            for (int b = 0; b < g.nbands; b++)
                all += (uint64_t)xs_band_prec_width(&g, &g.band[b], col) *
                       xs_band_prec_height(&g.band[b], row);
    uint64_t cum = 0, prev = 0;
    const char *bad = NULL;
    for (int s = 0; s < g.slices && !bad; s++) {
        uint64_t allot_cum = 0, used = 0;
        const int r0 = s * h.hsl, r1 = r0 + h.hsl < g.rows ? r0 + h.hsl : g.rows;
        /* The slice's share: the coefficients up to its end. */
        uint64_t cum_end = cum;
        for (int row = r0; row < r1; row++)
            for (int col = 0; col < g.cols; col++)
                for (int b = 0; b < g.nbands; b++)
                    cum_end += (uint64_t)xs_band_prec_width(&g, &g.band[b], col) *
                               xs_band_prec_height(&g.band[b], row);
        const uint64_t slice_share =
            ((size_t)r1 * g.cols == np ? data : data * cum_end / all) - prev;
        for (int row = r0; row < r1 && !bad; row++)
            for (int col = 0; col < g.cols && !bad; col++) {
                const size_t p = (size_t)row * g.cols + col;
                for (int b = 0; b < g.nbands; b++)
                    cum += (uint64_t)xs_band_prec_width(&g, &g.band[b], col) *
                           xs_band_prec_height(&g.band[b], row);
                const uint64_t next = p + 1 == np ? data : data * cum / all;
                const uint64_t share = next - prev;
                prev = next;
                allot_cum += share;
                const size_t content = test_precinct_content(cs + off[p], &g, row, col);
                const size_t occupied =
                    (p + 1 < np ? off[p + 1] : len - 2) - off[p] -
                    ((p + 1 < np && (p + 1) % ((size_t)h.hsl * g.cols) == 0) ? 6 : 0);
                const uint64_t budget = rc == XS_RC_SLICE ? occupied : share;
                if (content > budget) {
                    snprintf(why, sizeof why, "precinct (%d,%d): %zu bytes over its budget of %llu",
                             row, col, content, (unsigned long long)budget);
                    bad = why;
                } else if (rc == XS_RC_PRECINCT && occupied != share) {
                    snprintf(why, sizeof why,
                             "precinct (%d,%d) occupies %zu bytes, its share is %llu", row, col,
                             occupied, (unsigned long long)share);
                    bad = why;
                }
                used += occupied;
                if (!bad && rc == XS_RC_SLICE && used > slice_share) {
                    snprintf(why, sizeof why,
                             "precinct (%d,%d): the slice's precincts take %llu bytes of its %llu",
                             row, col, (unsigned long long)used, (unsigned long long)slice_share);
                    bad = why;
                }
            }
        if (!bad && rc == XS_RC_SLICE && used != allot_cum) {
            snprintf(why, sizeof why, "slice %d occupies %llu bytes, its share is %llu", s,
                     (unsigned long long)used, (unsigned long long)allot_cum);
            bad = why;
        }
    }
    free(off);
    return bad;
}

#endif
