/* 21122-2 level and sublevel the encoder signals, across profiles, rates
 * and picture sizes: the level must be the smallest whose limits hold the
 * picture and the sublevel the smallest whose bound, in bits per pixel of
 * the picture's own samples (as the ISO reference model checks it), holds
 * the codestream. The expectations are computed here from the tables of
 * 21122-2, independently of xs/levels.c. Also xs_plev_check and
 * xs_plev_derive on their own, and the Plev of real encodes read back from
 * the codestream. */
#include <stdio.h>
#include <string.h>

#include "../test.h"
#include "enc_test_util.h"
#include "xs.h"

/* Levels, smallest first: code, largest width, height, samples. */
static const struct {
    unsigned code, w, h;
    unsigned long long samples;
} levels[] = {
    {0x04, 1280, 5120, 2621440ull},   {0x10, 2048, 8192, 4194304ull},
    {0x20, 4096, 16384, 8912896ull},  {0x24, 4096, 16384, 16777216ull},
    {0x30, 8192, 32768, 35651584ull},
};

/* The sublevels an encoder may signal, smallest first (Sublev4bpp is left
 * out: the reference model does not know it). */
static const struct {
    unsigned code, bpp;
} sublevels[] = {{0x03, 2}, {0x04, 3}, {0x08, 6}, {0x0c, 9}, {0x10, 12}};

typedef struct profile_case {
    uint16_t ppih;
    const char *name, *format;
    int depth, nly;
    unsigned full_bpp; /* Nbpp at the Full sublevel */
} profile_case;

static const profile_case profiles[] = {
    {XS_PPIH_LIGHT_422_10, "Light 422.10", "422", 10, 1, 20},
    {XS_PPIH_MAIN_422_10, "Main 422.10", "422", 10, 1, 20},
    {XS_PPIH_MAIN_444_12, "Main 444.12", "444", 12, 1, 36},
    {XS_PPIH_HIGH_444_12, "High 444.12", "444", 12, 2, 36},
};

/* The Plev expected for `bytes` at w x h, or -1 when none admits it. */
static int expected_plev(const profile_case *p, unsigned w, unsigned h, unsigned long long bytes)
{
    int level = -1;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0] && level < 0; i++)
        if (w <= levels[i].w && h <= levels[i].h && (unsigned long long)w * h <= levels[i].samples)
            level = (int)levels[i].code;
    if (level < 0)
        return -1;
    const unsigned long long bits = bytes * 8, pixels = (unsigned long long)w * h;
    for (size_t i = 0; i < sizeof sublevels / sizeof sublevels[0]; i++)
        if (bits <= sublevels[i].bpp * pixels)
            return level << 8 | (int)sublevels[i].code;
    if (bits <= p->full_bpp * pixels)
        return level << 8 | 0x80;
    return -1;
}

static void config_for(xs_encoder_config *cfg, const profile_case *p, unsigned w, unsigned h,
                       double bpp)
{
    xs_encoder_config_init(cfg);
    xs_encoder_config_format(cfg, p->format, (int)w, (int)h, p->depth);
    cfg->ppih = p->ppih;
    cfg->nly = p->nly;
    cfg->bpp = bpp;
}

/* Header only (no picture): many sizes and rates. */
static void test_derived_matrix(void)
{
    static const unsigned sizes[][2] = {
        {320, 180},   {640, 480},   {1280, 720},  {1280, 1080}, {1920, 1080},
        {2048, 1080}, {2048, 2048}, {3840, 2160}, {4096, 2160}, {4096, 4096},
    };
    static const double rates[] = {0.5, 1.9, 2.0, 2.01, 2.5, 3.0,  3.2,  4.0,  5.99, 6.0,
                                   6.3, 8.0, 9.0, 9.5,  12., 12.5, 18.0, 20.0, 24.0, 36.0};
    int full_seen = 0, refused = 0;
    for (size_t pi = 0; pi < sizeof profiles / sizeof profiles[0]; pi++) {
        const profile_case *p = &profiles[pi];
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (size_t ri = 0; ri < sizeof rates / sizeof rates[0]; ri++) {
                const unsigned w = sizes[si][0], h = sizes[si][1];
                xs_encoder_config cfg;
                config_for(&cfg, p, w, h, rates[ri]);
                const unsigned long long bytes =
                    (unsigned long long)(rates[ri] * (double)w * (double)h / 8);
                const int want = expected_plev(p, w, h, bytes);
                xs_header hdr;
                xsf_error err = {0};
                const xsf_status st = xs_encoder_config_header(&cfg, &hdr, &err);
                if (want < 0) {
                    CHECK(st == XSF_ERR_ARG, "%s %ux%u at %.2f bpp: accepted (Plev 0x%04x)",
                          p->name, w, h, rates[ri], hdr.plev);
                    refused++;
                    continue;
                }
                CHECK(st == XSF_OK, "%s %ux%u at %.2f bpp: %s", p->name, w, h, rates[ri], err.msg);
                if (st != XSF_OK)
                    continue;
                CHECK(hdr.plev == want,
                      "%s %ux%u at %.2f bpp (%llu bytes): Plev 0x%04x, expected 0x%04x", p->name, w,
                      h, rates[ri], bytes, hdr.plev, want);
                full_seen += (want & 0xff) == 0x80;
                /* The derived Plev passes the check, one sublevel less does not. */
                err = (xsf_error){0};
                CHECK(xs_plev_check(p->ppih, hdr.plev, w, h, 0, bytes, &err) == XSF_OK,
                      "%s %ux%u: derived Plev 0x%04x fails its check: %s", p->name, w, h, hdr.plev,
                      err.msg);
            }
        }
    }
    CHECK(full_seen > 0 && refused > 0, "the matrix reached Full (%d) and refusals (%d)", full_seen,
          refused);
}

/* The issue's case: High 444.12 at 6 bpp below the level's largest picture
 * is Sublev6bpp (not Sublev3bpp), and forcing Sublev3bpp is refused. */
static void test_issue_case(void)
{
    xs_encoder_config cfg;
    config_for(&cfg, &profiles[3], 1920, 1080, 6);
    xs_header hdr;
    xsf_error err = {0};
    CHECK(xs_encoder_config_header(&cfg, &hdr, &err) == XSF_OK, "High 444.12 6 bpp: %s", err.msg);
    CHECK(hdr.plev == 0x1008, "High 444.12 1080p at 6 bpp: Plev 0x%04x, expected 2k-1 Sublev6bpp",
          hdr.plev);
    cfg.plev = 0x1004;
    err = (xsf_error){0};
    CHECK(xs_encoder_config_header(&cfg, &hdr, &err) == XSF_ERR_ARG &&
              strstr(err.msg, "Sublev3bpp") && strstr(err.msg, "6.00 bpp"),
          "forced Sublev3bpp at 6 bpp: status, message '%s'", err.msg);
    /* A larger sublevel, or a larger level, may be given. */
    cfg.plev = 0x200c;
    err = (xsf_error){0};
    CHECK(xs_encoder_config_header(&cfg, &hdr, &err) == XSF_OK && hdr.plev == 0x200c,
          "given 4k-1 Sublev9bpp: %s", err.msg);
    cfg.plev = 0x0408;
    err = (xsf_error){0};
    CHECK(xs_encoder_config_header(&cfg, &hdr, &err) == XSF_ERR_ARG && strstr(err.msg, "1k-1"),
          "given 1k-1 for 1920x1080 accepted: '%s'", err.msg);
}

/* Real encodes: the Plev read back from the codestream against its own size. */
static void test_encoded(void)
{
    static const double rates[] = {1.5, 3, 4.5, 6, 11, 16};
    for (size_t pi = 0; pi < sizeof profiles / sizeof profiles[0]; pi++) {
        for (size_t ri = 0; ri < sizeof rates / sizeof rates[0]; ri++) {
            const profile_case *p = &profiles[pi];
            xs_encoder_config cfg;
            config_for(&cfg, p, 256, 144, rates[ri]);
            test_picture pic;
            xs_encoder *enc = NULL;
            xsf_error err = {0};
            if (test_picture_make(&pic, &cfg, 0) != 0) {
                CHECK(0, "out of memory");
                return;
            }
            CHECK(xs_encoder_create(&enc, &cfg, &err) == XSF_OK, "%s %.1f bpp: %s", p->name,
                  rates[ri], err.msg);
            const size_t cap = enc ? xs_encoder_max_bytes(enc) : 0;
            uint8_t *out = malloc(cap ? cap : 1);
            size_t len = 0;
            if (enc && out && xs_encode(enc, &pic.img, out, cap, &len) == XSF_OK) {
                xs_header hdr;
                err = (xsf_error){0};
                CHECK(xs_parse_header(out, len, &hdr, &err) == XSF_OK, "read back: %s", err.msg);
                const int want = expected_plev(p, 256, 144, len);
                CHECK(hdr.plev == want,
                      "%s 256x144 at %.1f bpp, %zu bytes: Plev 0x%04x in the codestream, expected "
                      "0x%04x",
                      p->name, rates[ri], len, hdr.plev, want);
                err = (xsf_error){0};
                CHECK(xs_plev_check(hdr.ppih, hdr.plev, hdr.wf, hdr.hf, hdr.cpih, len, &err) ==
                          XSF_OK,
                      "%s: %s", p->name, err.msg);
            } else {
                CHECK(0, "%s %.1f bpp: encode failed: %s", p->name, rates[ri],
                      enc ? xs_encoder_error(enc) : "no encoder");
            }
            free(out);
            xs_encoder_destroy(enc);
            test_picture_free(&pic);
        }
    }
}

/* xs_plev_check and xs_plev_derive on their own. */
static void test_check(void)
{
    xsf_error err = {0};
    const unsigned long long bytes6 = 1920ull * 1080 * 6 / 8; /* exactly 6 bpp */
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x1008, 1920, 1080, 0, bytes6, &err) == XSF_OK,
          "exactly 6 bpp in Sublev6bpp: %s", err.msg);
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x1008, 1920, 1080, 0, bytes6 + 1, &err) ==
                  XSF_ERR_INVALID &&
              strstr(err.msg, "Sublev9bpp"),
          "one byte above 6 bpp in Sublev6bpp: '%s'", err.msg);
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x1004, 1920, 1080, 0, bytes6, &err) ==
                  XSF_ERR_INVALID &&
              strstr(err.msg, "it needs Sublev6bpp"),
          "6 bpp in Sublev3bpp: '%s'", err.msg);
    /* Sublev4bpp is read and checked, though never derived. */
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_MAIN_422_10, 0x1006, 1920, 1080, 0, 1920ull * 1080 * 4 / 8, &err) ==
              XSF_OK,
          "4 bpp in Sublev4bpp: %s", err.msg);
    CHECK(!strcmp(xs_sublevel_name(0x1006), "Sublev4bpp") &&
              !strcmp(xs_sublevel_name(0x1003), "Sublev2bpp"),
          "sublevel names");
    uint16_t plev = 0;
    err = (xsf_error){0};
    CHECK(xs_plev_derive(XS_PPIH_MAIN_422_10, 1920, 1080, 0, 1920ull * 1080 * 4 / 8, &plev, &err) ==
                  XSF_OK &&
              plev == 0x1008,
          "4 bpp derives Sublev6bpp: 0x%04x %s", plev, err.msg);
    /* Level against size: 2k-1 holds 2048 wide, not 2049; samples bound too. */
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_MAIN_422_10, 0x1010, 2049, 1080, 0, 1000, &err) ==
                  XSF_ERR_INVALID &&
              strstr(err.msg, "4k-1"),
          "2049 wide in 2k-1: '%s'", err.msg);
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_MAIN_422_10, 0x1010, 2048, 2049, 0, 1000, &err) == XSF_ERR_INVALID,
          "2048x2049 (over 2k-1's samples) in 2k-1 accepted");
    /* Full: the profile's bound. */
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_MAIN_422_10, 0x1080, 1920, 1080, 0, 1920ull * 1080 * 20 / 8,
                        &err) == XSF_OK,
          "20 bpp in Main 422.10 Full: %s", err.msg);
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_MAIN_422_10, 0x1080, 1920, 1080, 0, 1920ull * 1080 * 20 / 8 + 1,
                        &err) == XSF_ERR_INVALID,
          "above 20 bpp in Main 422.10 Full accepted");
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x1080, 1920, 1080, 0, 1920ull * 1080 * 36 / 8,
                        &err) == XSF_OK,
          "36 bpp in High 444.12 Full: %s", err.msg);
    /* Unrestricted level and sublevel hold everything; unknown codes do not. */
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x0000, 20000, 20000, 0, 1ull << 40, &err) == XSF_OK,
          "unrestricted: %s", err.msg);
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x1205, 64, 64, 0, 10, &err) == XSF_ERR_INVALID,
          "unknown level accepted");
    err = (xsf_error){0};
    CHECK(xs_plev_check(XS_PPIH_HIGH_444_12, 0x1005, 64, 64, 0, 10, &err) == XSF_ERR_INVALID,
          "unknown sublevel accepted");
    /* Star-Tetrix: the rate is over the colour filter array (4 x wf x hf). */
    err = (xsf_error){0};
    CHECK(xs_plev_check(0xb340, 0x1004, 960, 540, 3, 960ull * 540 * 4 * 3 / 8, &err) == XSF_OK,
          "Bayer 3 bpp of the array: %s", err.msg);
    err = (xsf_error){0};
    CHECK(xs_plev_derive(XS_PPIH_HIGH_444_12, 10241, 100, 0, 100, &plev, &err) == XSF_ERR_ARG,
          "a picture wider than every level derived a Plev");
}

int main(void)
{
    test_check();
    test_issue_case();
    test_derived_matrix();
    test_encoded();
    return xsf_test_finish();
}
