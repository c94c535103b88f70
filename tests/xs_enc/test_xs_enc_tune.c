/* The encoder's tunes (xs/enc_tune.h): the contrast sensitivity models,
 * the visual weights of every sampling and decomposition (lower where the
 * frequencies are higher, chroma below luma, other tables than PSNR's), and
 * streams of the visual tune through the C decoder. -v prints the tables. */
#include <stdio.h>

#include "../test.h"
#include "enc_internal.h"
#include "enc_test_util.h"
#include "enc_tune.h"

static int verbose;

static void test_models(void)
{
    const double ppd = enc_view_pixels_per_degree(ENC_VIEW_DISTANCE_PX);
    CHECK(ppd > 56 && ppd < 57, "3 HD picture heights: %.3f pixels per degree, expected 56.5", ppd);
    CHECK(enc_csf_luma(0) == 1 && enc_csf_luma(7.5) == 1, "luma below its peak: %g %g",
          enc_csf_luma(0), enc_csf_luma(7.5));
    CHECK(enc_csf_luma(8.1) < 1 && enc_csf_luma(8.1) > 0.999, "luma peak near 8 cycles/degree: %g",
          enc_csf_luma(8.1));
    CHECK(enc_csf_chroma(0) == 1, "chroma at 0: %g", enc_csf_chroma(0));
    CHECK(fabs(enc_csf_chroma(12) - 0.01) < 1e-9, "chroma at its acuity limit: %g",
          enc_csf_chroma(12));
    double last_l = 2, last_c = 2;
    for (double f = 0.0; f <= 60; f += 0.25) {
        const double l = enc_csf_luma(f), c = enc_csf_chroma(f);
        CHECK(l > 0 && l <= 1 && c > 0 && c <= 1, "%.2f cycles/degree: luma %g chroma %g", f, l, c);
        CHECK(l <= last_l && c < last_c, "%.2f cycles/degree: not decreasing", f);
        if (f > 0)
            CHECK(c < l, "%.2f cycles/degree: chroma %g not below luma %g", f, c, l);
        last_l = l;
        last_c = c;
    }
    CHECK(enc_csf_luma(28) < 0.5, "luma at HD's Nyquist frequency: %g", enc_csf_luma(28));
}

/* The pass band of band b in cycles per pixel, [x0, x1] x [y0, y1]. */
static void pass_band(const xs_geometry *g, int b, double f[4])
{
    const xs_band *bd = &g->band[b];
    const xs_component *cp = &g->comp[bd->comp];
    f[0] = bd->x0 / (2.0 * cp->width * cp->sx);
    f[1] = (bd->x0 + bd->width) / (2.0 * cp->width * cp->sx);
    f[2] = bd->y0 / (2.0 * cp->height * cp->sy);
    f[3] = (bd->y0 + bd->height) / (2.0 * cp->height * cp->sy);
}

/* One format and decomposition: the visual weights against the model's
 * promises, and the tables against PSNR's. */
static void check_tables(const char *fmt, int nlx, int nly)
{
    char what[96];
    snprintf(what, sizeof what, "%s NLx=%d NLy=%d", fmt, nlx, nly);
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, fmt, 1920, 1080, 10);
    cfg.nlx = nlx;
    cfg.nly = nly;
    cfg.bpp = 3;
    xs_header hp, hv;
    xsf_error err = {0};
    CHECK(xs_encoder_config_header(&cfg, &hp, &err) == XSF_OK, "%s psnr: %s", what, err.msg);
    cfg.tune = XS_TUNE_VISUAL;
    CHECK(xs_encoder_config_header(&cfg, &hv, &err) == XSF_OK, "%s visual: %s", what, err.msg);
    xs_geometry g;
    double e[XS_MAX_BANDS], w[XS_MAX_BANDS], s[XS_MAX_BANDS];
    int nb = 0;
    if (enc_band_energies(&hv, &g, e, &err) != XSF_OK ||
        enc_visual_band_weights(&hv, w, &nb, &err) != XSF_OK) {
        CHECK(0, "%s: %s", what, err.msg);
        return;
    }
    CHECK(nb == g.nbands && nb == hv.nbands, "%s: %d weights, %d bands", what, nb, hv.nbands);
    /* The sensitivity factor of each band: its weight over the energy, the
     * pixels a sample covers and the colour transform's weight. */
    for (int b = 0; b < nb; b++) {
        const xs_band *bd = &g.band[b];
        const xs_component *cp = &g.comp[bd->comp];
        double k = 1;
        if (hv.cpih == 1 && bd->comp < 3)
            k = bd->comp == 0 ? 3.0 : 11.0 / 16.0;
        s[b] = w[b] / (e[b] * cp->sx * cp->sy * k);
        CHECK(s[b] > 0 && s[b] <= 1 + 1e-12, "%s band %d: sensitivity %g", what, b, s[b]);
    }
    /* Lower where the frequencies are higher: a band whose pass band lies at
     * or above another's of the same model, corner by corner, weighs at most
     * as much; the finest luma band far less than the coarsest. */
    int strict = 0;
    for (int a = 0; a < nb; a++)
        for (int b = 0; b < nb; b++) {
            const int ca = g.band[a].comp, cb = g.band[b].comp;
            const int chroma_a = hv.nc >= 3 && (ca == 1 || ca == 2),
                      chroma_b = hv.nc >= 3 && (cb == 1 || cb == 2);
            if (a == b || chroma_a != chroma_b)
                continue;
            double fa[4], fb[4];
            pass_band(&g, a, fa);
            pass_band(&g, b, fb);
            if (fa[0] >= fb[0] && fa[1] >= fb[1] && fa[2] >= fb[2] && fa[3] >= fb[3]) {
                CHECK(s[a] <= s[b] * (1 + 1e-9), "%s: band %d above band %d in frequency, %g > %g",
                      what, a, b, s[a], s[b]);
                strict += s[a] < s[b] * 0.99;
            }
        }
    CHECK(strict > 0, "%s: no band weighs less than a band below it", what);
    CHECK(s[nb - 1] < 0.5 * s[0], "%s: the last band %g, the first %g", what, s[nb - 1], s[0]);
    /* Chroma below luma: each chroma band's sensitivity below that of the
     * luma band at the same position. */
    if (hv.nc >= 3)
        for (int b = 0; b < nb; b++) {
            if (g.band[b].comp != 1 && g.band[b].comp != 2)
                continue;
            for (int l = 0; l < nb; l++)
                if (g.band[l].comp == 0 && g.band[l].beta == g.band[b].beta)
                    CHECK(s[b] < s[l], "%s: chroma band %d %g, luma band %d %g", what, b, s[b], l,
                          s[l]);
        }
    /* Tables: valid, and other than PSNR's. */
    int differ = 0, seen[XS_MAX_BANDS] = {0};
    for (int b = 0; b < nb; b++) {
        CHECK(hv.gain[b] <= 15 && hv.priority[b] < nb && !seen[hv.priority[b]],
              "%s band %d: gain %u priority %u", what, b, hv.gain[b], hv.priority[b]);
        if (hv.priority[b] < nb)
            seen[hv.priority[b]] = 1;
        differ |= hv.gain[b] != hp.gain[b] || hv.priority[b] != hp.priority[b];
    }
    CHECK(differ, "%s: the visual tables are PSNR's", what);
    /* Within the gains' range: no band clamped at 15. */
    int gmax = 0;
    for (int b = 0; b < nb; b++)
        gmax = hv.gain[b] > gmax ? hv.gain[b] : gmax;
    CHECK(gmax < 15, "%s: a visual gain reaches 15", what);
    if (verbose) {
        printf("%s: band comp beta gain(psnr visual) priority(psnr visual) sensitivity\n", what);
        for (int b = 0; b < nb; b++)
            printf("  %2d %d %2d  %2u %2u  %2u %2u  %.4g\n", b, g.band[b].comp, g.band[b].beta,
                   hp.gain[b], hv.gain[b], hp.priority[b], hv.priority[b], s[b]);
    }
}

static void test_tables(void)
{
    static const char *const fmts[] = {"400", "420", "422", "444", "rgb", "4444"};
    static const int levels[][2] = {{5, 2}, {5, 1}, {5, 0}, {8, 2}, {3, 1}, {2, 2}, {1, 0}};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            if (!strcmp(fmts[f], "420") && levels[l][1] == 0)
                continue; /* 4:2:0 needs a vertical level */
            check_tables(fmts[f], levels[l][0], levels[l][1]);
        }
}

/* The default stays PSNR, and the tables are those of the header. */
static void test_default(void)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    CHECK(cfg.tune == XS_TUNE_PSNR, "default tune %d", (int)cfg.tune);
    set_format(&cfg, "422", 640, 480, 10);
    cfg.bpp = 2;
    xs_header h;
    xsf_error err = {0};
    uint8_t gain[XS_MAX_BANDS], prio[XS_MAX_BANDS];
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_OK, "%s", err.msg);
    CHECK(enc_psnr_weights(&h, gain, prio, &err) == XSF_OK &&
              !memcmp(gain, h.gain, (size_t)h.nbands) &&
              !memcmp(prio, h.priority, (size_t)h.nbands),
          "default header is not the PSNR tables");
    cfg.tune = (xs_tune)7;
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_ERR_ARG, "tune 7 accepted");
}

/* Streams of the visual tune: exactly the budget, their WGT the encoder's,
 * decoded by the C decoder to a picture near the original. */
static void test_roundtrip(void)
{
    static const char *const fmts[] = {"420", "422", "444", "rgb"};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        double psnr[2] = {0, 0};
        for (int t = 0; t < 2; t++) {
            xs_encoder_config cfg;
            xs_encoder_config_init(&cfg);
            set_format(&cfg, fmts[f], 256, 128, 10);
            cfg.bpp = 3;
            cfg.tune = t ? XS_TUNE_VISUAL : XS_TUNE_PSNR;
            cfg.threads = 1;
            test_picture pic;
            xs_encoder *enc = NULL;
            xs_decoder *dec = NULL;
            xsf_error err = {0};
            if (test_picture_make(&pic, &cfg, 0)) {
                CHECK(0, "out of memory");
                return;
            }
            CHECK(xs_encoder_create(&enc, &cfg, &err) == XSF_OK, "%s: %s", fmts[f], err.msg);
            if (!enc) {
                test_picture_free(&pic);
                continue;
            }
            const size_t cap = xs_encoder_max_bytes(enc);
            uint8_t *buf = malloc(cap);
            size_t len = 0, used = 0;
            const xsf_picture *out = NULL;
            CHECK(buf && xs_encode(enc, &pic.img, buf, cap, &len) == XSF_OK, "%s: %s", fmts[f],
                  xs_encoder_error(enc));
            const char *why = test_check_budget(buf, len, cap, cfg.rate_control);
            CHECK(!why, "%s tune %d: %s", fmts[f], t, why ? why : "");
            xs_header h;
            CHECK(xs_parse_header(buf, len, &h, &err) == XSF_OK &&
                      !memcmp(h.gain, xs_encoder_header(enc)->gain, (size_t)h.nbands),
                  "%s: the codestream's WGT is not the encoder's", fmts[f]);
            xs_decoder_create(&dec, NULL);
            CHECK(xs_decode(dec, buf, len, &used, &out) == XSF_OK && used == len, "%s: %s", fmts[f],
                  xs_decoder_error(dec));
            if (out)
                psnr[t] = test_psnr(&pic.img, out);
            xs_decoder_destroy(dec);
            xs_encoder_destroy(enc);
            free(buf);
            test_picture_free(&pic);
        }
        CHECK(psnr[1] > 35, "%s visual: %.2f dB", fmts[f], psnr[1]);
        if (verbose)
            printf("%s 3 bpp: psnr tune %.2f dB, visual tune %.2f dB\n", fmts[f], psnr[0], psnr[1]);
    }
}

int main(int argc, char **argv)
{
    verbose = argc > 1 && !strcmp(argv[1], "-v");
    test_models();
    test_tables();
    test_default();
    test_roundtrip();
    return xsf_test_finish();
}
