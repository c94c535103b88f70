/* The C encoder's speed structure, against what it must equal:
 * - enc_precinct_costs (cost tables from histograms) against the model it
 *   sums, enc_cost_sig_group of enc_rate.h, on random bitplane counts, sign
 *   reaches and truncations above, for every run mode, sign mode and
 *   decomposition, whole precincts and first lines only;
 * - enc_precinct_gcli against enc_bitlen and enc_sign_reach, on random
 *   coefficients with the edge values of the rounding at t = 0;
 * - enc_quantize's uniform quantizer (its shortcut off the decoder's
 *   values) against the nearest of the decoder's values found by search,
 *   and enc_sign_reach against enc_quantize, at and around every value and
 *   midpoint;
 * - whole frames on 1 thread and on several: the same codestream and the
 *   same per-precinct record, for every rate mode, tools, precinct columns,
 *   lossless; the same error where a frame fails; a fixed rate into an output
 *   smaller than the bound. */
#include <stdio.h>

#include "../test.h"
#include "enc_internal.h"
#include "enc_test_util.h"

/* The tables as enc_cost_sig_group sums them, group by group. */
static void reference_costs(const enc_plan *plan, size_t p, const uint8_t *gcli,
                            const uint16_t *reach, const uint8_t *above, enc_line_cost *cost)
{
    const uint32_t first = plan->bline_first[p], last = plan->bline_first[p + 1];
    for (uint32_t i = first; i < last; i++) {
        const enc_bline *bl = &plan->bline[i];
        enc_line_cost *c = &cost[i - first];
        memset(c, 0, sizeof *c);
        const uint8_t *g = gcli + bl->gcli_off;
        const uint16_t *r = reach + bl->gcli_off;
        const uint8_t *top = above ? g - bl->gcli_stride : NULL;
        const int ttop = above && bl->line == 0 ? above[bl->band] : 0;
        for (uint32_t s = 0; s < bl->groups; s += 8) {
            const int n = bl->groups - s < 8 ? (int)(bl->groups - s) : 8;
            enc_cost_sig_group(c, g + s, top ? top + s : NULL, r + s, n, ttop, &plan->params);
        }
    }
}

static void test_costs(int rm, int fs, int nly, int kind)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    xs_encoder_config_format(&cfg, "422", 256, 64, 10);
    cfg.bpp = 3;
    cfg.rm = rm;
    cfg.fs = fs;
    cfg.nly = nly;
    enc_plan plan;
    xsf_error err;
    CHECK(enc_plan_init(&plan, &cfg, &err) == XSF_OK, "plan: %s", err.msg);
    const xs_geometry *g = &plan.geom;
    const size_t n = g->gcli_total;
    uint8_t *gcli = malloc(n), above[XS_MAX_BANDS];
    uint16_t *reach = malloc(n * sizeof *reach);
    enc_line_cost *fast = malloc((size_t)plan.max_blines * sizeof *fast);
    enc_line_cost *ref = malloc((size_t)plan.max_blines * sizeof *ref);
    enc_line_cost *before = malloc((size_t)plan.max_blines * sizeof *before);
    static const uint8_t no_truncation[XS_MAX_BANDS];
    for (size_t i = 0; i < n; i++) {
        /* kind 0: counts near their neighbours' (what pictures give); 1: any count. */
        int v =
            kind ? (int)(enc_rand() % 16) : (int)(i ? gcli[i - 1] : 4) + (int)(enc_rand() % 5) - 2;
        v = v < 0 ? 0 : (v > 15 ? 15 : v);
        if (enc_rand() % 8 == 0)
            v = 0;
        gcli[i] = (uint8_t)v;
        uint16_t r = 0;
        for (int k = 0; k < 4; k++)
            r |= (uint16_t)((enc_rand() % (unsigned)(v + 1)) << (4 * k));
        reach[i] = v ? r : 0;
    }
    int mismatches = 0, first_only_bad = 0;
    for (int trial = 0; trial < 4; trial++) {
        for (int b = 0; b < g->nbands; b++)
            above[b] = (uint8_t)(trial == 0 ? 0 : enc_rand() % 16);
        for (size_t p = 0; p < plan.nprecincts; p++) {
            const uint8_t *a = p >= (size_t)g->cols && trial != 3 ? above : NULL;
            enc_precinct_costs(&plan, p, gcli, reach, a, 0, fast);
            reference_costs(&plan, p, gcli, reach, a, ref);
            const size_t nbl = plan.bline_first[p + 1] - plan.bline_first[p];
            mismatches += memcmp(fast, ref, nbl * sizeof *ref) != 0;
            /* first_only, over the tables of a call without the truncations
             * above: the first lines' vertical prediction tables made right,
             * everything else left as it was. */
            enc_precinct_costs(&plan, p, gcli, reach, a ? no_truncation : NULL, 0, fast);
            for (size_t i = 0; i < nbl; i++)
                for (int m = ENC_MODE_VPRED; m < ENC_MODES; m += 2)
                    if (plan.bline[plan.bline_first[p] + i].line == 0)
                        memset(fast[i].unary[m], 0xa5, sizeof fast[i].unary[m]);
            memcpy(before, fast, nbl * sizeof *fast);
            enc_precinct_costs(&plan, p, gcli, reach, a, 1, fast);
            for (size_t i = 0; i < nbl; i++)
                first_only_bad +=
                    memcmp(&fast[i],
                           plan.bline[plan.bline_first[p] + i].line == 0 ? &ref[i] : &before[i],
                           sizeof *fast) != 0;
        }
    }
    CHECK(!mismatches, "rm=%d fs=%d nly=%d kind %d: %d precincts' cost tables differ", rm, fs, nly,
          kind, mismatches);
    CHECK(!first_only_bad, "rm=%d fs=%d nly=%d kind %d: first_only, %d band lines' tables wrong",
          rm, fs, nly, kind, first_only_bad);
    free(gcli);
    free(reach);
    free(fast);
    free(ref);
    free(before);
    enc_plan_free(&plan);
}

/* Row y of band b in the Mallat planes: its first coefficient. */
static const int32_t *band_row(const xs_geometry *g, int32_t *const coef[], int b, int y)
{
    const xs_band *bd = &g->band[b];
    return coef[bd->comp] + (size_t)(bd->y0 + y) * (size_t)g->comp[bd->comp].width + bd->x0;
}

static void test_gcli(int qpih, int fq)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    xs_encoder_config_format(&cfg, "422", 250, 40, 10); /* 250: partial code groups */
    cfg.rate_control = XS_RC_FIXED;
    cfg.qpih = qpih;
    cfg.fq = fq;
    enc_plan plan;
    xsf_error err;
    CHECK(enc_plan_init(&plan, &cfg, &err) == XSF_OK, "plan: %s", err.msg);
    const xs_geometry *g = &plan.geom;
    int32_t *coef[XS_MAX_COMPONENTS] = {0};
    for (int c = 0; c < g->nc; c++) {
        const size_t n = (size_t)g->comp[c].width * g->comp[c].height;
        coef[c] = malloc(n * sizeof(int32_t));
        for (size_t i = 0; i < n; i++) {
            const int32_t one = 1 << fq;
            int32_t v;
            switch (enc_rand() % 6) {
            case 0: v = 0; break;
            case 1:
                v = fq ? (one >> 1) - 1 + (int32_t)(enc_rand() % 3) : 1;
                break; /* t = 0 rounding */
            case 2: v = one - 1 + (int32_t)(enc_rand() % 3); break;
            case 3: v = (int32_t)(enc_rand() % (uint32_t)(one * 8)); break;
            default: v = (int32_t)(enc_rand() % ((uint32_t)one << 14)); break;
            }
            coef[c][i] = enc_rand() % 2 ? -v : v;
        }
    }
    const size_t n = g->gcli_total;
    uint8_t *gf = malloc(n), *gr = malloc(n);
    uint16_t *rf = malloc(n * 2), *rr = malloc(n * 2);
    int bad = 0, sat = 0;
    for (size_t p = 0; p < plan.nprecincts; p++) {
        sat |= enc_precinct_gcli(&plan, p, coef, gf, rf, 0) != 0;
        for (uint32_t i = plan.bline_first[p]; i < plan.bline_first[p + 1]; i++) {
            const enc_bline *bl = &plan.bline[i];
            const int32_t *row = coef[g->band[bl->band].comp] + bl->coef_off;
            for (uint32_t k = 0; k < bl->groups; k++) {
                const uint32_t m = bl->width - 4 * k < 4 ? bl->width - 4 * k : 4;
                uint32_t mx = 0;
                for (uint32_t j = 0; j < m; j++) {
                    const int32_t v = row[4 * k + j];
                    const uint32_t a = (uint32_t)(v < 0 ? -(int64_t)v : v) >> fq;
                    mx = a > mx ? a : mx;
                }
                const int gc = enc_bitlen(mx > 0x7fff ? 0x7fff : mx);
                uint16_t r = 0;
                for (uint32_t j = 0; j < m; j++)
                    r |= (uint16_t)(enc_sign_reach(row[4 * k + j], gc, qpih, fq) << (4 * j));
                gr[bl->gcli_off + k] = (uint8_t)gc;
                rr[bl->gcli_off + k] = r;
                bad += gf[bl->gcli_off + k] != gc || rf[bl->gcli_off + k] != r;
            }
        }
    }
    CHECK(!bad && !sat, "qpih=%d fq=%d: %d code groups differ (saturated %d)", qpih, fq, bad, sat);
    /* The same counts band row by band row (the DWT's order) for the bands
     * of a horizontal level, precinct by precinct for the others. */
    memset(gf, 0xff, n);
    memset(rf, 0xff, n * 2);
    for (int b = 0; b < g->nbands; b++)
        for (int y = 0; y < g->band[b].height && g->band[b].lx > 0; y++)
            sat |= enc_band_row_gcli(&plan, b, y, band_row(g, coef, b, y), gf, rf) != 0;
    for (size_t p = 0; p < plan.nprecincts; p++)
        sat |= enc_precinct_gcli(&plan, p, coef, gf, rf, 1) != 0;
    CHECK(!memcmp(gf, gr, n) && !memcmp(rf, rr, n * 2) && !sat,
          "qpih=%d fq=%d: band rows' counts differ from the precincts' (saturated %d)", qpih, fq,
          sat);
    /* A magnitude of 16 bit planes is refused. */
    coef[0][3] = (int32_t)(0x8000u << fq);
    CHECK(enc_precinct_gcli(&plan, 0, coef, gf, rf, 0) < 0, "saturation not reported");
    int top = 0; /* the band of component 0 at the top left: LL */
    while (g->band[top].comp != 0 || g->band[top].x0 || g->band[top].y0)
        top++;
    CHECK(enc_band_row_gcli(&plan, top, 0, band_row(g, coef, top, 0), gf, rf) < 0,
          "saturation not reported (row)");
    for (int c = 0; c < g->nc; c++)
        free(coef[c]);
    free(gf);
    free(gr);
    free(rf);
    free(rr);
    enc_plan_free(&plan);
}

typedef struct coded {
    xsf_status st;
    char msg[XSF_ERRMSG_LEN];
    uint8_t *cs;
    size_t len;
    uint8_t *q, *r;
    uint32_t *coded;
    size_t np;
} coded;

static void code(const xs_encoder_config *base, const xsf_picture *pic, int threads, size_t cap,
                 coded *out)
{
    memset(out, 0, sizeof *out);
    xs_encoder_config cfg = *base;
    cfg.threads = threads;
    xs_encoder *e;
    xsf_error err;
    out->st = xs_encoder_create(&e, &cfg, &err);
    if (out->st != XSF_OK) {
        snprintf(out->msg, sizeof out->msg, "%s", err.msg);
        return;
    }
    CHECK(xs_encoder_threads(e) == threads, "%d threads, asked %d", xs_encoder_threads(e), threads);
    if (!cap)
        cap = xs_encoder_max_bytes(e);
    out->cs = malloc(cap);
    /* Twice: the second frame must not depend on the first. */
    out->st = xs_encode(e, pic, out->cs, cap, &out->len);
    out->st = xs_encode(e, pic, out->cs, cap, &out->len);
    snprintf(out->msg, sizeof out->msg, "%s", xs_encoder_error(e));
    const xs_encoder_stats *s = xs_encoder_last_stats(e);
    out->np = s->nprecincts;
    out->q = malloc(out->np);
    out->r = malloc(out->np);
    out->coded = malloc(out->np * sizeof *out->coded);
    memcpy(out->q, s->q, out->np);
    memcpy(out->r, s->r, out->np);
    memcpy(out->coded, s->coded_bytes, out->np * sizeof *out->coded);
    xs_encoder_destroy(e);
}

static void coded_free(coded *c)
{
    free(c->cs);
    free(c->q);
    free(c->r);
    free(c->coded);
}

/* Threads 1 against 2, 3 and 6 (cap 0: the encoder's bound). */
static void same_for_threads(const char *what, const xs_encoder_config *cfg, int kind, size_t cap)
{
    test_picture pic;
    if (test_picture_make(&pic, cfg, kind)) {
        CHECK(0, "%s: no memory for the picture", what);
        return;
    }
    pic.img.fmt.container = XSF_PLANAR_U16;
    coded ref;
    code(cfg, &pic.img, 1, cap, &ref);
    static const int counts[] = {2, 3, 6, 13}; /* 6 and 13: the pipeline's longer lags */
    for (int k = 0; k < (int)(sizeof counts / sizeof counts[0]); k++) {
        coded c;
        code(cfg, &pic.img, counts[k], cap, &c);
        CHECK(c.st == ref.st && !strcmp(c.msg, ref.msg),
              "%s, %d threads: status %d (%s), 1: %d (%s)", what, counts[k], c.st, c.msg, ref.st,
              ref.msg);
        if (ref.st == XSF_OK && c.st == XSF_OK) {
            CHECK(c.len == ref.len && !memcmp(c.cs, ref.cs, c.len),
                  "%s, %d threads: codestream differs (%zu bytes, 1: %zu)", what, counts[k], c.len,
                  ref.len);
            CHECK(!memcmp(c.q, ref.q, c.np) && !memcmp(c.r, ref.r, c.np) &&
                      !memcmp(c.coded, ref.coded, c.np * sizeof *c.coded),
                  "%s, %d threads: per-precinct record differs", what, counts[k]);
        }
        coded_free(&c);
    }
    coded_free(&ref);
    test_picture_free(&pic);
}

static void test_frames(void)
{
    static const struct {
        const char *name, *sampling;
        int w, h, depth;
    } formats[] = {{"422 10-bit", "422", 640, 160, 10},
                   {"420 8-bit", "420", 256, 96, 8},
                   {"444 12-bit", "444", 200, 72, 12},
                   {"400 odd height", "400", 192, 75, 10}};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (int v = 0; v < 9; v++) {
            xs_encoder_config cfg;
            xs_encoder_config_init(&cfg);
            xs_encoder_config_format(&cfg, formats[f].sampling, formats[f].w, formats[f].h,
                                     formats[f].depth);
            cfg.bpp = 1 + v % 4;
            static const char *const what[] = {"slice",        "precinct",  "fixed",
                                               "lossless",     "columns",   "nly 0 rm 1",
                                               "uniform fs 0", "raw modes", "too low a rate"};
            switch (v) {
            case 1: cfg.rate_control = XS_RC_PRECINCT; break;
            case 2:
                cfg.rate_control = XS_RC_FIXED;
                cfg.bpp = 0;
                cfg.q = 5;
                cfg.r = 1;
                break;
            case 3:
                cfg.lossless = 1;
                cfg.bpp = 0;
                break;
            case 4:
                cfg.cw = 1;
                cfg.slice_lines = 32;
                break;
            case 5:
                cfg.nly = 0;
                cfg.rm = 1;
                break;
            case 6:
                cfg.qpih = 1;
                cfg.fs = 0;
                cfg.nly = 1;
                break;
            case 7:
                cfg.gcli_modes = XS_GCLI_RAW | XS_GCLI_NOPRED;
                cfg.long_headers = 1;
                break;
            case 8: cfg.bpp = 0.05; break;
            }
            char name[96];
            snprintf(name, sizeof name, "%s, %s", formats[f].name, what[v]);
            same_for_threads(name, &cfg, 0, 0);
        }
    /* A fixed rate into outputs smaller than the bound: big enough (the
     * spill buffer), then too small (the same error). */
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    xs_encoder_config_format(&cfg, "422", 640, 160, 10);
    cfg.rate_control = XS_RC_FIXED;
    cfg.q = 6;
    same_for_threads("fixed rate, output below the bound", &cfg, 0, 64 * 1024);
    same_for_threads("fixed rate, output too small", &cfg, 0, 2000);
    same_for_threads("noise", &cfg, 1, 0);
}

/* The uniform quantizer's answer by search: the m in 0..2^(g-t)-1 whose
 * decoder value (enc_uniform_value) is nearest to a (Fq fractional bits),
 * the lower on a tie. */
static uint32_t nearest_uniform(uint64_t a, int g, int t, int fq)
{
    const int s = g - t + 1;
    const uint32_t lim = (1u << (g - t)) - 1;
    uint32_t lo = 0, hi = lim; /* the last m whose value is at or below a */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo + 1) / 2;
        if (((uint64_t)enc_uniform_value(mid, t, s) << fq) <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (lo == lim)
        return lim;
    const uint64_t v0 = (uint64_t)enc_uniform_value(lo, t, s) << fq;
    const uint64_t v1 = (uint64_t)enc_uniform_value(lo + 1, t, s) << fq;
    return v1 - a < a - v0 ? lo + 1 : lo;
}

static void test_uniform(int fq)
{
    int bad = 0;
    for (int g = 2; g <= 15 && !bad; g++)
        for (int t = 1; t < g && !bad; t++) {
            const int s = g - t + 1;
            const uint32_t lim = (1u << (g - t)) - 1;
            const uint32_t stride = lim > 512 ? lim / 509 : 1;
            for (uint32_t m = 0; m <= lim && !bad; m += stride) {
                const uint64_t v = (uint64_t)enc_uniform_value(m, t, s) << fq;
                const uint64_t n = (uint64_t)enc_uniform_value(m + 1, t, s) << fq;
                const uint64_t mid = (v + n) / 2;
                const uint64_t at[] = {v, v + 1, mid - 1, mid, mid + 1, n - 1, v ? v - 1 : 0};
                for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
                    const int32_t w = (int32_t)(at[i] & 0x7fffffff);
                    const uint32_t want = nearest_uniform((uint64_t)w, g, t, fq);
                    const uint32_t got = enc_quantize(w, g, t, 1, fq);
                    const uint32_t neg = enc_quantize(-w, g, t, 1, fq);
                    int reach = 0;
                    for (int u = g - 1; u >= 1 && !reach; u--)
                        if (enc_quantize(w, g, u, 1, fq))
                            reach = u + 1;
                    if (!reach)
                        reach = enc_quantize(w, g, 0, 1, fq) ? 1 : 0;
                    if (got != want || neg != want || enc_sign_reach(w, g, 1, fq) != reach) {
                        CHECK(0,
                              "Fq=%d g=%d t=%d magnitude %d: quantized %u (-: %u), search %u; "
                              "sign reach %d, by quantizing %d",
                              fq, g, t, w, got, neg, want, enc_sign_reach(w, g, 1, fq), reach);
                        bad = 1;
                        break;
                    }
                }
            }
        }
}

int main(void)
{
    test_uniform(8);
    test_uniform(0);
    test_uniform(3);
    for (int rm = 0; rm < 2; rm++)
        for (int fs = 0; fs < 2; fs++)
            for (int nly = 0; nly < 3; nly++)
                for (int kind = 0; kind < 2; kind++)
                    test_costs(rm, fs, nly, kind);
    test_gcli(0, 8);
    test_gcli(0, 0);
    test_gcli(0, 3);
    test_gcli(1, 8);
    test_gcli(1, 0);
    test_frames();
    return xsf_test_finish();
}
