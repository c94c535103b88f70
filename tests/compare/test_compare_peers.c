/* compare/'s peers: a peer that is missing or broken gives one clear line
 * and no session (always checked); each peer that is installed (SVT-JPEG-XS:
 * argument 1 or SvtJpegxsEncApp on PATH; OpenJPEG: libopenjp2.so.7 and a
 * build with openjpeg.h) gives a row per rate on a 4:2:2 10-bit and an RGB
 * 8-bit picture: coded within the byte budget floor(bpp*W*H/8) (and within
 * 1 % of it), PSNR rising with the rate, SSIM and MS-SSIM, checked, timed on
 * the CPU, its version in the session. A peer that is not installed is
 * skipped with a message; neither installed: exit 77 after the checks that
 * always run. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "test.h"

static const double rates[] = {1, 2, 4, 0};
#define NRATES (sizeof rates / sizeof rates[0])

/* A 4:2:2 picture of `depth` bits: a synthetic picture with its chroma
 * averaged over pairs of columns. */
static xsf_status picture_422(xsf_picture *out, int w, int h, int depth, xsf_error *err)
{
    xsf_picture full;
    xsf_status st = cmp_synthetic_picture(&full, w, h, 3, depth, err);
    if (st)
        return st;
    xsf_picture_init(out);
    out->fmt = full.fmt;
    out->fmt.width[1] = out->fmt.width[2] = w / 2;
    if ((st = xsf_picture_alloc(out, NULL, err)) == XSF_OK)
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < h; y++) {
                const uint16_t *s = xsf_picture_row16(&full, c, y);
                uint16_t *d = xsf_picture_row16(out, c, y);
                for (int x = 0; x < out->fmt.width[c]; x++)
                    d[x] = c ? (uint16_t)((s[2 * x] + s[2 * x + 1] + 1) / 2) : s[x];
            }
    cmp_picture_free(&full);
    return st;
}

/* Missing peers: one line each, naming what is missing; no session. */
static void test_missing(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    cmp_options o = {.path = CMP_PATH_CPU,
                     .svt_enc = "/nonexistent/SvtJpegxsEncApp",
                     .opj = "/nonexistent/libopenjp2.so.7"};
    char about[256] = "";
    CHECK(cmp_peer_probe(CMP_SVT, &o, about, sizeof about, &err) == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "SVT-JPEG-XS") && strstr(err.msg, "left out") &&
              !strchr(err.msg, '\n'),
          "a missing SvtJpegxsEncApp: one line (%s)", err.msg);
    xsf_error_clear(&err);
    CHECK(cmp_peer_probe(CMP_OPJ, &o, about, sizeof about, &err) == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "OpenJPEG") && strstr(err.msg, "left out") && !strchr(err.msg, '\n'),
          "a missing libopenjp2: one line (%s)", err.msg);
    xsf_error_clear(&err);
    o.svt_enc = "/bin/false"; /* runs, codes nothing */
    CHECK(cmp_peer_probe(CMP_SVT, &o, about, sizeof about, &err) == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "does not encode"),
          "a broken SvtJpegxsEncApp: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(cmp_peer_probe(CMP_BPC_1PASS, &o, about, sizeof about, &err) == XSF_ERR_ARG,
          "bpc is no peer");
    cmp_session *s = NULL;
    o.variants = 1u << CMP_XS_DEFAULT | 1u << CMP_OPJ;
    xsf_error_clear(&err);
    CHECK(cmp_session_create(&s, &o, &err) == XSF_ERR_UNSUPPORTED && !s &&
              strstr(err.msg, "OpenJPEG"),
          "a session with a missing peer: %s", err.msg);
    cmp_session_destroy(s);
}

static void check_peer_rows(const cmp_session *s, cmp_variant v, const char *name, int w, int h)
{
    const double pixels = (double)w * h;
    double last = 0;
    for (size_t k = 0; k < NRATES; k++) {
        const cmp_row *r = NULL;
        int count = 0;
        for (size_t i = 0; i < cmp_session_rows(s); i++) {
            const cmp_row *q = cmp_session_row(s, i);
            if (!strcmp(q->picture, name) && q->variant == v && q->bpp_target == rates[k]) {
                r = q;
                count++;
            }
        }
        CHECK(count == 1, "%s %s %g: %d rows", name, cmp_variant_codec(v), rates[k], count);
        if (!r)
            continue;
        CHECK(r->path == CMP_PATH_CPU && r->timing == CMP_TIMING_CPU && r->threads >= 1 &&
                  r->device[0],
              "%s %s: on the CPU, %d threads", name, cmp_variant_codec(v), r->threads);
        if (rates[k] == 0 && v == CMP_SVT) {
            CHECK(!r->coded && strstr(r->note, "lossless"), "SVT lossless: not coded (%s)",
                  r->note);
            continue;
        }
        CHECK(r->coded, "%s %s %g: not coded: %s", name, cmp_variant_codec(v), rates[k], r->note);
        if (!r->coded)
            continue;
        CHECK(r->checked && r->enc_fps > 0 && r->enc_runs >= 1, "%s %s %g: checked, timed (%s)",
              name, cmp_variant_codec(v), rates[k], r->note);
        CHECK(v != CMP_OPJ || r->dec_fps > 0, "OpenJPEG's decoder timed");
        CHECK(fabs(r->bpp - (double)r->bytes * 8 / pixels) < 1e-9, "bpp from bytes");
        if (rates[k] > 0) {
            const double budget = floor(rates[k] * pixels / 8);
            CHECK((double)r->bytes <= budget && (double)r->bytes >= 0.99 * budget,
                  "%s %s %g bpp: %zu bytes, budget %.0f", name, cmp_variant_codec(v), rates[k],
                  r->bytes, budget);
            CHECK(!r->exact && r->psnr_all > last && isfinite(r->psnr_all),
                  "%s %s: PSNR %.2f at %g bpp, not above %.2f", name, cmp_variant_codec(v),
                  r->psnr_all, rates[k], last);
            CHECK(r->ssim > 0 && r->ssim <= 1 && r->ms_ssim > 0 && r->ms_ssim <= 1,
                  "SSIM %.4f, MS-SSIM %.4f", r->ssim, r->ms_ssim);
            last = r->psnr_all;
        } else {
            CHECK(r->exact && isinf(r->psnr_all) && r->ms_ssim == 1, "%s %s lossless: exact", name,
                  cmp_variant_codec(v));
        }
    }
}

int main(int argc, char **argv)
{
    test_missing();
    const char *svt = argc > 1 && access(argv[1], X_OK) == 0 ? argv[1] : NULL;
    int ran = 0;
    for (int v = CMP_SVT; v <= CMP_OPJ; v++) {
        cmp_options o = {.rates = rates,
                         .nrates = NRATES,
                         .variants = 1u << v,
                         .path = CMP_PATH_CPU,
                         .time_ms = 0,
                         .svt_enc = svt};
        xsf_error err;
        xsf_error_clear(&err);
        char about[512];
        if (cmp_peer_probe((cmp_variant)v, &o, about, sizeof about, &err) != XSF_OK) {
            printf("SKIP %s rows: %s\n", cmp_variant_codec((cmp_variant)v), err.msg);
            continue;
        }
        printf("%s: %s\n", cmp_variant_codec((cmp_variant)v), about);
        ran++;
        cmp_session *s = NULL;
        CHECK(cmp_session_create(&s, &o, &err) == XSF_OK, "session: %s", err.msg);
        if (!s)
            continue;
        const char *peer = cmp_session_peer(s, (cmp_variant)v);
        CHECK(peer && strstr(peer, v == CMP_SVT ? "SVT-JPEG-XS" : "OpenJPEG 2."),
              "the version in the session: %s", peer ? peer : "(none)");
        CHECK(!cmp_session_peer(s, v == CMP_SVT ? CMP_OPJ : CMP_SVT), "only the peer asked for");
        xsf_picture p422, rgb;
        CHECK(picture_422(&p422, 192, 176, 10, &err) == XSF_OK, "4:2:2: %s", err.msg);
        CHECK(cmp_synthetic_picture(&rgb, 176, 176, 3, 8, &err) == XSF_OK, "RGB: %s", err.msg);
        CHECK(cmp_session_add_picture(s, "yuv422p10", &p422, 0) == XSF_OK, "4:2:2: %s",
              cmp_session_error(s));
        CHECK(cmp_session_add_picture(s, "rgb8", &rgb, 1) == XSF_OK, "RGB: %s",
              cmp_session_error(s));
        CHECK(cmp_session_rows(s) == 2 * NRATES, "%zu rows", cmp_session_rows(s));
        check_peer_rows(s, (cmp_variant)v, "yuv422p10", 192, 176);
        check_peer_rows(s, (cmp_variant)v, "rgb8", 176, 176);
        /* The version in the table's heading, the rows in the CSV. */
        FILE *t = tmpfile();
        char line[1024];
        int heading = 0;
        CHECK(t && cmp_write_table(s, t) == XSF_OK, "table");
        if (t) {
            rewind(t);
            while (fgets(line, sizeof line, t))
                heading += !strncmp(line, "peer ", 5) && strstr(line, peer ? peer : "?");
            fclose(t);
        }
        CHECK(heading == 2, "the peer's line in both pictures' headings: %d", heading);
        cmp_picture_free(&p422);
        cmp_picture_free(&rgb);
        cmp_session_destroy(s);
    }
    const int status = xsf_test_finish();
    return status ? status : (ran ? 0 : 77);
}
