/* compare/: xsflow compare on small pictures with the C references: every
 * row present, rates kept, PSNR rising with the rate, lossless exact, the
 * metrics against independent computations, the CSV parseable, the plots
 * written; the command's request (cmp_request). Argument: a folder to write into (the plots). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "test.h"

static const double rates[] = {1, 2, 4, 8, 0};
#define NRATES (sizeof rates / sizeof rates[0])

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long)st.st_size;
}

static void test_parsers(void)
{
    double r[8];
    size_t n;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(cmp_parse_rates("0.5,lossless,8", r, 8, &n, &err) == XSF_OK && n == 3 && r[0] == 0.5 &&
              r[1] == 0 && r[2] == 8,
          "rates parsed: n=%zu", n);
    CHECK(cmp_parse_rates("0.5,,8", r, 8, &n, &err) == XSF_ERR_ARG, "empty rate refused");
    CHECK(cmp_parse_rates("-1", r, 8, &n, &err) == XSF_ERR_ARG, "negative rate refused");
    CHECK(cmp_parse_rates("1,2,3", r, 2, &n, &err) == XSF_ERR_ARG, "too many rates refused");
    unsigned m;
    CHECK(cmp_parse_variants("xs", &m, &err) == XSF_OK &&
              m == (1u << CMP_XS_DEFAULT | 1u << CMP_XS_QUALITY),
          "xs = both XS variants: %x", m);
    CHECK(cmp_parse_variants("bpc-1pass,bpc3", &m, &err) == XSF_OK &&
              m == (1u << CMP_BPC_1PASS | 1u << CMP_BPC_3PASS),
          "single variants: %x", m);
    CHECK(cmp_parse_variants("jpeg2000", &m, &err) == XSF_ERR_ARG, "unknown codec refused");
    CHECK(cmp_parse_variants("all", &m, &err) == XSF_OK && m == CMP_OWN_VARIANTS &&
              !(m & CMP_PEER_VARIANTS),
          "all: xsflow's five, no peer: %x", m);
    CHECK(cmp_parse_variants("svt,j2k", &m, &err) == XSF_OK &&
              m == (1u << CMP_SVT | 1u << CMP_OPJ) && cmp_variant_is_peer(CMP_SVT) &&
              cmp_variant_is_peer(CMP_OPJ) && !cmp_variant_is_peer(CMP_BPC_3PASS),
          "the peers: %x", m);
    /* Every name --codecs takes, and names close to them that it refuses. */
    static const struct {
        const char *name;
        unsigned mask;
    } names[] = {
        {"xs", 1u << CMP_XS_DEFAULT | 1u << CMP_XS_QUALITY},
        {"bpc", 1u << CMP_BPC_1PASS | 1u << CMP_BPC_2PASS | 1u << CMP_BPC_3PASS},
        {"all", CMP_OWN_VARIANTS},
        {"peers", CMP_PEER_VARIANTS},
        {"xs-default", 1u << CMP_XS_DEFAULT},
        {"xs-quality", 1u << CMP_XS_QUALITY},
        {"bpc-1pass", 1u << CMP_BPC_1PASS},
        {"bpc-2pass", 1u << CMP_BPC_2PASS},
        {"bpc-3pass", 1u << CMP_BPC_3PASS},
        {"bpc1", 1u << CMP_BPC_1PASS},
        {"bpc2", 1u << CMP_BPC_2PASS},
        {"bpc3", 1u << CMP_BPC_3PASS},
        {"svt", 1u << CMP_SVT},
        {"opj", 1u << CMP_OPJ},
        {"openjpeg", 1u << CMP_OPJ},
        {"j2k", 1u << CMP_OPJ},
        {"svt-default", 0},
        {"opj-default", 0},
        {"xs-", 0},
        {"xs-defaults", 0},
        {"bpc-1", 0},
        {"bpc4", 0},
        {"x", 0},
        {"", 0},
        {"peer", 0},
        {"bpc-1pass-", 0},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const xsf_status st = cmp_parse_variants(names[i].name, &m, &err);
        CHECK(names[i].mask ? st == XSF_OK && m == names[i].mask : st == XSF_ERR_ARG,
              "--codecs %s: status %d, mask %x", names[i].name, st, m);
    }
    CHECK(cmp_parse_variants("xs-default,,bpc", &m, &err) == XSF_ERR_ARG, "an empty name refused");
}

/* `xsflow compare`'s request: its defaults, its knobs in their fields and their
 * bounds, and the session's options it gives. */
static void test_request(void)
{
    cmp_request q;
    cmp_request_init(&q);
    CHECK(q.gpu == -1 && q.time_ms == 200 && !strcmp(q.sampling, "444") && q.depth == 8 &&
              !strcmp(q.peers, "auto") && !q.nrates && !q.variants,
          "the request's defaults");
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(cmp_knobs, &q,
                            "cpu time-ms=5 size=64x48 depth=10 peer-threads=3 codec-help "
                            "progress quiet",
                            "compare", &err) == XSF_OK,
          "knobs: %s", err.msg);
    CHECK(q.gpu == 0 && q.time_ms == 5 && q.size[0] == 64 && q.size[1] == 48 && q.depth == 10 &&
              q.peer_threads == 3 && q.codec_help && q.progress && q.quiet,
          "each knob in its field");
    const xsf_option *v = xsf_option_find(cmp_knobs, "progress");
    const xsf_option *csv = xsf_option_find(cmp_knobs, "csv");
    CHECK(v && v->short_name == 'v' && xsf_option_find(cmp_knobs, "quiet")->short_name == 'q',
          "-v and -q");
    CHECK(csv && xsf_option_set(csv, &q, "out.csv", &err) == XSF_OK && !strcmp(q.csv, "out.csv"),
          "--csv");
    static const char *const refused[] = {"time-ms=-1", "depth=17", "size=8", "peer-threads=-1",
                                          "gpu=2"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK(xsf_options_apply(cmp_knobs, &q, refused[i], "compare", &err) == XSF_ERR_ARG,
              "%s refused", refused[i]);
    q.gpu = 1;
    q.nrates = 2;
    q.rates[0] = 1, q.rates[1] = 0;
    q.variants = 1u << CMP_OPJ;
    q.svt_enc = "enc", q.svt_dec = "dec", q.opj = "lib";
    cmp_options o;
    cmp_request_options(&q, &o);
    CHECK(o.path == CMP_PATH_GPU && o.rates == q.rates && o.nrates == 2 &&
              o.variants == 1u << CMP_OPJ && o.time_ms == 5 && o.svt_enc == q.svt_enc &&
              o.svt_dec == q.svt_dec && o.opj == q.opj && o.peer_threads == 3 && !o.progress,
          "the session's options from the request");
    q.gpu = 0;
    q.nrates = 0;
    cmp_request_options(&q, &o);
    CHECK(o.path == CMP_PATH_CPU && !o.rates && !o.tune, "--cpu, the default rates, tune psnr");
    CHECK(xsf_options_apply(cmp_knobs, &q, "tune=visual", "compare", &err) == XSF_OK &&
              q.tune == 1 && (cmp_request_options(&q, &o), o.tune == 1),
          "--tune visual: %s", err.msg);
    CHECK(xsf_options_apply(cmp_knobs, &q, "tune=mse", "compare", &err) == XSF_ERR_ARG,
          "an unknown tune refused");
}

/* --tune visual: JPEG XS rows coded with the visual tables (other bytes than
 * the PSNR tune's at the same rate, so another PSNR), SSIM and MS-SSIM in
 * each row. */
static void test_tune(void)
{
    static const double two[] = {2};
    double psnr[2] = {0, 0};
    xsf_picture pic;
    xsf_error perr;
    xsf_error_clear(&perr);
    if (cmp_synthetic_picture(&pic, 256, 192, 3, 8, &perr) != XSF_OK) { /* MS-SSIM: 161x161 */
        CHECK(0, "synthetic picture: %s", perr.msg);
        return;
    }
    for (int t = 0; t < 2; t++) {
        cmp_options opt = {.rates = two,
                           .nrates = 1,
                           .variants = 1u << CMP_XS_DEFAULT,
                           .path = CMP_PATH_CPU,
                           .tune = t};
        cmp_session *s = NULL;
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(cmp_session_create(&s, &opt, &err) == XSF_OK, "tune %d session: %s", t, err.msg);
        if (!s)
            return;
        CHECK(cmp_session_add_picture(s, "rgb8", &pic, 1) == XSF_OK && cmp_session_rows(s) == 1,
              "tune %d: %s", t, cmp_session_error(s));
        const cmp_row *r = cmp_session_rows(s) == 1 ? cmp_session_row(s, 0) : NULL;
        CHECK(r && isfinite(r->psnr_all) && r->ssim > 0.5 && r->ssim <= 1 && r->ms_ssim > 0.5,
              "tune %d: a row with PSNR, SSIM, MS-SSIM", t);
        if (r)
            psnr[t] = r->psnr_all;
        cmp_session_destroy(s);
    }
    cmp_picture_free(&pic);
    CHECK(psnr[0] != psnr[1], "--tune visual coded as psnr (%.4f dB)", psnr[0]);
}

/* PSNR and SSIM against values computed here from their definitions. */
static void test_metrics(void)
{
    xsf_picture a, b;
    xsf_error err;
    CHECK(cmp_synthetic_picture(&a, 64, 48, 3, 10, &err) == XSF_OK, "synthetic: %s", err.msg);
    CHECK(cmp_picture_copy(&b, &a, &err) == XSF_OK, "copy: %s", err.msg);
    CHECK(isinf(cmp_psnr_component(&a, &b, 1)) && isinf(cmp_psnr_all(&a, &b)),
          "identical: infinite PSNR");
    CHECK(fabs(cmp_ssim_luma(&a, &b, 1) - 1) < 1e-12, "identical: SSIM 1");
    /* Component 1: 12 samples off by 5; component 2: 3 samples off by 1. */
    for (int i = 0; i < 12; i++)
        ((uint16_t *)b.data[1])[i * 97] =
            (uint16_t)(((uint16_t *)b.data[1])[i * 97] < 100 ? ((uint16_t *)b.data[1])[i * 97] + 5
                                                             : ((uint16_t *)b.data[1])[i * 97] - 5);
    for (int i = 0; i < 3; i++)
        ((uint16_t *)b.data[2])[i * 300] ^= 1;
    const double n = 64.0 * 48, peak = 1023;
    const double want1 = 10 * log10(peak * peak * n / (12 * 25.0));
    const double want_all = 10 * log10(peak * peak * 3 * n / (12 * 25.0 + 3));
    CHECK(fabs(cmp_psnr_component(&a, &b, 1) - want1) < 1e-9, "component PSNR %.6f, expected %.6f",
          cmp_psnr_component(&a, &b, 1), want1);
    CHECK(isinf(cmp_psnr_component(&a, &b, 0)), "untouched component: infinite PSNR");
    CHECK(fabs(cmp_psnr_all(&a, &b) - want_all) < 1e-9, "overall PSNR %.6f, expected %.6f",
          cmp_psnr_all(&a, &b), want_all);
    /* SSIM of one 8x8 picture: one window, computed directly. */
    xsf_picture x, y;
    CHECK(cmp_synthetic_picture(&x, 16, 16, 1, 8, &err) == XSF_OK, "synthetic 16x16");
    CHECK(cmp_picture_copy(&y, &x, &err) == XSF_OK, "copy");
    x.fmt.width[0] = x.fmt.height[0] = y.fmt.width[0] = y.fmt.height[0] =
        8; /* the top-left 8x8 (pitch stays 16) */
    for (int i = 0; i < 8; i++)
        ((uint16_t *)y.data[0])[i * 16 + i] = (uint16_t)(255 - ((uint16_t *)y.data[0])[i * 16 + i]);
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            const double p = ((uint16_t *)x.data[0])[r * 16 + c],
                         q = ((uint16_t *)y.data[0])[r * 16 + c];
            sx += p;
            sy += q;
            sxx += p * p;
            syy += q * q;
            sxy += p * q;
        }
    const double mx = sx / 64, my = sy / 64;
    const double vx = (sxx - 64 * mx * mx) / 63, vy = (syy - 64 * my * my) / 63,
                 cxy = (sxy - 64 * mx * my) / 63;
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    const double want =
        (2 * mx * my + c1) * (2 * cxy + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
    CHECK(fabs(cmp_ssim_luma(&x, &y, 0) - want) < 1e-9, "SSIM %.9f, expected %.9f",
          cmp_ssim_luma(&x, &y, 0), want);
    CHECK(want < 0.99, "the damaged window is not similar (%.4f)", want);
    cmp_picture_free(&a);
    cmp_picture_free(&b);
    cmp_picture_free(&x);
    cmp_picture_free(&y);
}

/* MS-SSIM of the case tests/compare/msssim_reference.py computes with only
 * the Python standard library (run it to see the value): two 200x180 8-bit
 * pictures of integer formulas, odd sizes at the lower scales. */
#define MSSSIM_REFERENCE 0.947972281356
static int ms_ref(int x, int y)
{
    return (x * 3 + y * 2 + ((x / 8 + y / 8) % 2) * 64 + (x * y) % 37) % 256;
}

static void test_msssim(void)
{
    xsf_picture a, b;
    xsf_error err;
    CHECK(cmp_synthetic_picture(&a, 200, 180, 1, 8, &err) == XSF_OK, "200x180: %s", err.msg);
    CHECK(cmp_synthetic_picture(&b, 200, 180, 1, 8, &err) == XSF_OK, "200x180: %s", err.msg);
    for (int y = 0; y < 180; y++)
        for (int x = 0; x < 200; x++) {
            const int d = (ms_ref(x, y) + ms_ref(x + 1, y + 1)) / 2 + (x * 31 + y * 17) % 23 - 11;
            xsf_picture_row16(&a, 0, y)[x] = (uint16_t)ms_ref(x, y);
            xsf_picture_row16(&b, 0, y)[x] = (uint16_t)(d < 0 ? 0 : d > 255 ? 255 : d);
        }
    CHECK(fabs(cmp_msssim_luma(&a, &a, 0) - 1) < 1e-12, "identical: MS-SSIM %.12f",
          cmp_msssim_luma(&a, &a, 0));
    const double v = cmp_msssim_luma(&a, &b, 0);
    CHECK(fabs(v - MSSSIM_REFERENCE) < 1e-9, "MS-SSIM %.12f, the reference script %.12f", v,
          MSSSIM_REFERENCE);
    /* Symmetric in its pictures; more damage, less similarity. */
    CHECK(fabs(cmp_msssim_luma(&b, &a, 0) - v) < 1e-12, "MS-SSIM symmetric");
    for (int y = 0; y < 180; y++)
        for (int x = 0; x < 200; x += 3)
            xsf_picture_row16(&b, 0, y)[x] = (uint16_t)(255 - xsf_picture_row16(&b, 0, y)[x]);
    CHECK(cmp_msssim_luma(&a, &b, 0) < v - 0.01, "more damage: MS-SSIM %.4f, was %.4f",
          cmp_msssim_luma(&a, &b, 0), v);
    /* Too small for 5 scales: no value. */
    xsf_picture s;
    CHECK(cmp_synthetic_picture(&s, 160, 160, 1, 8, &err) == XSF_OK, "160x160");
    CHECK(isnan(cmp_msssim_luma(&s, &s, 0)), "160x160: no MS-SSIM");
    cmp_picture_free(&s);
    CHECK(cmp_synthetic_picture(&s, 161, 161, 3, 10, &err) == XSF_OK, "161x161");
    CHECK(fabs(cmp_msssim_luma(&s, &s, 1) - 1) < 1e-12, "161x161 RGB identical: 1");
    cmp_picture_free(&s);
    cmp_picture_free(&a);
    cmp_picture_free(&b);
}

/* Splits one CSV line into fields (quotes as RFC 4180); returns the count. */
static int csv_fields(const char *line, char fields[][128], int max)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        char buf[128];
        size_t len = 0;
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;
                if (len + 1 < sizeof buf)
                    buf[len++] = *p;
            }
            if (*p == '"')
                p++;
        } else {
            for (; *p && *p != ',' && *p != '\n'; p++)
                if (len + 1 < sizeof buf)
                    buf[len++] = *p;
        }
        buf[len] = 0;
        if (n < max)
            snprintf(fields[n], 128, "%s", buf);
        n++;
        if (*p != ',')
            return n;
        p++;
    }
}

static int column(char names[][128], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return i;
    return -1;
}

static void test_csv(const cmp_session *s, size_t expected_rows)
{
    FILE *f = tmpfile();
    CHECK(f != NULL, "tmpfile");
    if (!f)
        return;
    CHECK(cmp_write_csv(s, f) == XSF_OK, "CSV written");
    rewind(f);
    static char header[64][128], fields[64][128];
    char line[4096];
    CHECK(fgets(line, sizeof line, f) != NULL, "CSV header");
    const int ncol = csv_fields(line, header, 64);
    static const char *const required[] = {
        "picture", "codec",   "variant", "bpp_target",   "bpp",          "psnr_db",
        "ssim",    "enc_fps", "dec_fps", "enc_gsamples", "dec_gsamples", "device",
        "psnr_c0", "path",    "timing",  "filter",       "levels_h",     "levels_v"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        CHECK(column(header, ncol, required[i]) >= 0, "CSV column %s", required[i]);
    const int c_bpp = column(header, ncol, "bpp"), c_target = column(header, ncol, "bpp_target");
    const int c_psnr = column(header, ncol, "psnr_db"), c_fps = column(header, ncol, "enc_fps");
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        const int n = csv_fields(line, fields, 64);
        CHECK(n == ncol, "row %zu: %d fields, header has %d", rows, n, ncol);
        if (n == ncol) {
            const int lossless = !strcmp(fields[c_target], "lossless");
            CHECK(lossless || atof(fields[c_bpp]) <= atof(fields[c_target]) + 1e-9,
                  "row %zu: bpp %s over %s", rows, fields[c_bpp], fields[c_target]);
            CHECK(lossless ? !strcmp(fields[c_psnr], "inf") : atof(fields[c_psnr]) > 10,
                  "row %zu: PSNR '%s'", rows, fields[c_psnr]);
            CHECK(atof(fields[c_fps]) > 0, "row %zu: encode fps '%s'", rows, fields[c_fps]);
        }
        rows++;
    }
    CHECK(rows == expected_rows, "CSV rows %zu, expected %zu", rows, expected_rows);
    fclose(f);
}

static int own_variants(void)
{
    int n = 0;
    for (int v = 0; v < CMP_VARIANTS; v++)
        n += !!(CMP_OWN_VARIANTS & (1u << v)) && !cmp_variant_is_peer((cmp_variant)v);
    return n;
}

/* The rows of one picture: one per variant and rate, coded, within the
 * rate, PSNR rising, lossless exact. */
static void check_rows(const cmp_session *s, const char *name, int w, int h)
{
    const double pixels = (double)w * h;
    for (int v = 0; v < CMP_VARIANTS; v++) {
        if (!(CMP_OWN_VARIANTS & (1u << v)))
            continue;
        double last_psnr = 0;
        for (size_t k = 0; k < NRATES; k++) {
            const cmp_row *found = NULL;
            int count = 0;
            for (size_t i = 0; i < cmp_session_rows(s); i++) {
                const cmp_row *r = cmp_session_row(s, i);
                if (!strcmp(r->picture, name) && (int)r->variant == v &&
                    r->bpp_target == rates[k]) {
                    found = r;
                    count++;
                }
            }
            CHECK(count == 1, "%s %s-%s %g: %d rows", name, cmp_variant_codec((cmp_variant)v),
                  cmp_variant_name((cmp_variant)v), rates[k], count);
            if (!found)
                continue;
            const cmp_row *r = found;
            CHECK(r->coded, "%s %s-%s %g: not coded: %s", name, cmp_variant_codec(r->variant),
                  cmp_variant_name(r->variant), rates[k], r->note);
            if (!r->coded)
                continue;
            CHECK(r->checked && r->timing == CMP_TIMING_CPU && r->enc_runs >= 1 &&
                      r->dec_runs >= 1 && r->enc_fps > 0 && r->dec_fps > 0 && r->enc_gsamples > 0 &&
                      r->dec_gsamples > 0,
                  "%s %g: timing filled", name, rates[k]);
            CHECK(fabs(r->bpp - (double)r->bytes * 8 / pixels) < 1e-9, "bpp from bytes");
            const int is_xs = v <= CMP_XS_QUALITY;
            CHECK(!strcmp(r->filter, is_xs || rates[k] == 0 ? "5/3" : "9/7"), "%s: filter %s", name,
                  r->filter);
            CHECK(r->levels_h >= 5 && r->levels_v >= 1, "levels %d/%d", r->levels_h, r->levels_v);
            if (rates[k] > 0) {
                const double budget = floor(rates[k] * pixels / 8);
                /* XS: exactly the target (xs.h); BPC-PaCo: at most it and within 1% (bpc encode
                 * --help): within 1%, the step search asking 99.5%. */
                if (is_xs)
                    CHECK((double)r->bytes == budget, "%s xs %g bpp: %zu bytes, budget %.0f", name,
                          rates[k], r->bytes, budget);
                else
                    CHECK((double)r->bytes <= budget && (double)r->bytes >= 0.99 * budget,
                          "%s bpc %g bpp: %zu bytes, budget %.0f (step %g)", name, rates[k],
                          r->bytes, budget, r->qstep);
                CHECK(!r->exact && isfinite(r->psnr_all) && r->psnr_all > last_psnr,
                      "%s %s-%s: PSNR %.2f at %g bpp, not above %.2f", name,
                      cmp_variant_codec(r->variant), cmp_variant_name(r->variant), r->psnr_all,
                      rates[k], last_psnr);
                CHECK(r->ssim > 0 && r->ssim <= 1, "SSIM %.4f", r->ssim);
                for (int c = 0; c < r->nc; c++)
                    CHECK(isfinite(r->psnr[c]), "component %d PSNR %.2f", c, r->psnr[c]);
                last_psnr = r->psnr_all;
            } else {
                CHECK(r->exact && isinf(r->psnr_all) && r->ssim == 1,
                      "%s %s-%s lossless: exact %d, PSNR %.2f", name, cmp_variant_codec(r->variant),
                      cmp_variant_name(r->variant), r->exact, r->psnr_all);
                for (int c = 0; c < r->nc; c++)
                    CHECK(isinf(r->psnr[c]), "lossless component %d PSNR %.2f", c, r->psnr[c]);
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    test_parsers();
    test_request();
    test_metrics();
    test_msssim();

    xsf_error err;
    xsf_error_clear(&err);
    cmp_session *s = NULL;
    cmp_options gpu = {.path = CMP_PATH_GPU};
    if (cmp_gpu_available() != XSF_OK) {
        CHECK(cmp_session_create(&s, &gpu, &err) == XSF_ERR_NODEVICE &&
                  strstr(err.msg, "no usable GPU"),
              "--gpu without a GPU: a clear error (%s)", err.msg);
        cmp_session_destroy(s);
        s = NULL;
    }

    cmp_options opt = {.rates = rates, .nrates = NRATES, .path = CMP_PATH_CPU, .time_ms = 0};
    xsf_error_clear(&err);
    CHECK(cmp_session_create(&s, &opt, &err) == XSF_OK, "session: %s", err.msg);
    if (!s)
        return xsf_test_finish();
    xsf_picture rgb, grey;
    CHECK(cmp_synthetic_picture(&rgb, 192, 128, 3, 8, &err) == XSF_OK, "synthetic RGB: %s",
          err.msg);
    CHECK(cmp_synthetic_picture(&grey, 160, 96, 1, 12, &err) == XSF_OK, "synthetic grey: %s",
          err.msg);
    CHECK(cmp_session_add_picture(s, "rgb8", &rgb, 1) == XSF_OK, "rgb8: %s", cmp_session_error(s));
    CHECK(cmp_session_add_picture(s, "grey12", &grey, 0) == XSF_OK, "grey12: %s",
          cmp_session_error(s));
    const size_t expected = 2 * (size_t)own_variants() * NRATES;
    CHECK(cmp_session_rows(s) == expected, "%zu rows, expected %zu", cmp_session_rows(s), expected);
    check_rows(s, "rgb8", 192, 128);
    check_rows(s, "grey12", 160, 96);
    test_csv(s, expected);
    test_tune();

    /* The readable table: a line per row plus each picture's two header lines. */
    FILE *t = tmpfile();
    CHECK(t && cmp_write_table(s, t) == XSF_OK, "table written");
    if (t) {
        rewind(t);
        char line[512];
        size_t lines = 0;
        while (fgets(line, sizeof line, t))
            lines += line[0] != '\n';
        CHECK(lines == expected + 2 * 2, "table: %zu lines", lines);
        fclose(t);
    }

    /* Plots: both pictures, SVG and PNG of each plot, non-empty. */
    char plots[1024];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    xsf_error_clear(&err);
    CHECK(cmp_write_plots(s, plots, NULL, &err) == XSF_OK, "plots: %s", err.msg);
    static const char *const names[] = {"rgb8", "grey12"};
    static const char *const kinds[] = {"rd.svg", "rd.png", "speed.svg", "speed.png"};
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 4; k++) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s-%s", plots, names[p], kinds[k]);
            CHECK(file_size(path) > 1000, "%s: %ld bytes", path, file_size(path));
        }
    xsf_error_clear(&err);
    CHECK(cmp_write_plots(s, plots, "/nonexistent/gnuplot", &err) == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "gnuplot"),
          "no gnuplot: a clear error (%s)", err.msg);

    cmp_picture_free(&rgb);
    cmp_picture_free(&grey);
    cmp_session_destroy(s);
    return xsf_test_finish();
}
