/* Round trips of the C encoder through the C decoder: every format, depth,
 * decomposition, coding tool and rate; lossless where the settings allow it;
 * the NLT and CWD markers (no third-party vector has them); the budget
 * contract read back from each codestream. */
#include <stdio.h>

#include "../test.h"
#include "enc_test_util.h"

typedef struct result {
    xsf_status st;
    double psnr;
    size_t bytes;
    int identical;
    char msg[300];
} result;

/* Encodes a synthetic picture with cfg, decodes it, compares. */
static result roundtrip(const xs_encoder_config *cfg, int kind)
{
    result r;
    memset(&r, 0, sizeof r);
    test_picture pic;
    xs_encoder *enc = NULL;
    xs_decoder *dec = NULL;
    uint8_t *buf = NULL;
    xsf_error err = {0};
    if (test_picture_make(&pic, cfg, kind)) {
        r.st = XSF_ERR_NOMEM;
        return r;
    }
    r.st = xs_encoder_create(&enc, cfg, &err);
    if (r.st != XSF_OK) {
        snprintf(r.msg, sizeof r.msg, "create: %s", err.msg);
        goto done;
    }
    const size_t cap = xs_encoder_max_bytes(enc);
    buf = malloc(cap);
    r.st = xs_encode(enc, &pic.img, buf, cap, &r.bytes);
    if (r.st != XSF_OK) {
        snprintf(r.msg, sizeof r.msg, "encode: %s", xs_encoder_error(enc));
        goto done;
    }
    if (cfg->rate_control != XS_RC_FIXED && !cfg->lossless) {
        const char *why =
            test_check_budget(buf, r.bytes, xs_encoder_max_bytes(enc), cfg->rate_control);
        if (why) {
            r.st = XSF_ERR_INVALID;
            snprintf(r.msg, sizeof r.msg, "budget: %s", why);
            goto done;
        }
    }
    xs_decoder_create(&dec, NULL);
    size_t used;
    const xsf_picture *out;
    r.st = xs_decode(dec, buf, r.bytes, &used, &out);
    if (r.st != XSF_OK) {
        snprintf(r.msg, sizeof r.msg, "decode: %s", xs_decoder_error(dec));
        goto done;
    }
    if (used != r.bytes) {
        r.st = XSF_ERR_INVALID;
        snprintf(r.msg, sizeof r.msg, "decoder consumed %zu of %zu bytes", used, r.bytes);
        goto done;
    }
    r.psnr = test_psnr(&pic.img, out);
    r.identical = test_same_picture(&pic.img, out);
done:
    xs_decoder_destroy(dec);
    xs_encoder_destroy(enc);
    free(buf);
    test_picture_free(&pic);
    return r;
}

static const char *const formats[] = {"400", "420", "422", "444", "rgb", "4444"};

/* Lossless (Fq=0, Q=R=0, Bw = depth) is exact for every format, depth up to
 * 12 and decomposition; deeper samples can need more than 15 bit planes,
 * which the encoder must refuse cleanly rather than code wrongly. */
static void test_lossless(void)
{
    static const int dec[][2] = {{1, 0}, {2, 1}, {5, 2}, {8, 2}, {3, 0}, {4, 1}};
    for (size_t f = 0; f < 6; f++)
        for (int depth = 8; depth <= 16; depth += 2)
            for (size_t d = 0; d < 6; d++) {
                if (!strcmp(formats[f], "420") && dec[d][1] == 0)
                    continue; /* 4:2:0 needs a vertical level */
                xs_encoder_config cfg;
                xs_encoder_config_init(&cfg);
                set_format(&cfg, formats[f], 72, 40, depth);
                cfg.nlx = dec[d][0];
                cfg.nly = dec[d][1];
                cfg.slice_lines = 8 << cfg.nly;
                cfg.lossless = 1;
                result r = roundtrip(&cfg, 0);
                if (depth <= 12) {
                    CHECK(r.st == XSF_OK && r.identical,
                          "lossless %s %d-bit NLx=%d NLy=%d: %s (psnr %.2f)", formats[f], depth,
                          cfg.nlx, cfg.nly, r.msg, r.psnr);
                } else {
                    CHECK((r.st == XSF_OK && r.identical) || r.st == XSF_ERR_ARG,
                          "lossless %s %d-bit NLx=%d NLy=%d: %s", formats[f], depth, cfg.nlx,
                          cfg.nly, r.msg);
                }
            }
}

/* Every coding tool on its own and together, lossless so that any slip in
 * the coding shows as a changed sample. */
static void test_tools_lossless(void)
{
    static const unsigned modes[] = {XS_GCLI_RAW,
                                     XS_GCLI_NOPRED,
                                     XS_GCLI_NOPRED | XS_GCLI_SIGFLAGS,
                                     XS_GCLI_VPRED,
                                     XS_GCLI_VPRED | XS_GCLI_SIGFLAGS,
                                     XS_GCLI_ALL};
    for (size_t m = 0; m < 6; m++)
        for (int fs = 0; fs <= 1; fs++)
            for (int rm = 0; rm <= 1; rm++)
                for (int cw = 0; cw <= 1; cw++) {
                    xs_encoder_config cfg;
                    xs_encoder_config_init(&cfg);
                    set_format(&cfg, "422", 150, 36, 10);
                    cfg.nlx = 3;
                    cfg.nly = cw ? 0 : 2;
                    cfg.cw = cw;
                    cfg.slice_lines = 8 << cfg.nly;
                    cfg.gcli_modes = modes[m];
                    cfg.fs = fs;
                    cfg.rm = rm;
                    cfg.lossless = 1;
                    result r = roundtrip(&cfg, 0);
                    CHECK(r.st == XSF_OK && r.identical,
                          "lossless modes 0x%x Fs=%d Rm=%d Cw=%d: %s", modes[m], fs, rm, cfg.cw,
                          r.msg);
                }
}

/* Lossy at a target: every format and depth 8..16, every NLy with a range
 * of NLx; exact size, budgets kept, decodable, quality sensible. */
static void test_lossy_matrix(void)
{
    for (size_t f = 0; f < 6; f++)
        for (int depth = 8; depth <= 16; depth++)
            for (int nly = 0; nly <= 2; nly++)
                for (int nlx = nly > 1 ? nly : 1; nlx <= 8; nlx += 1 + (depth & 1)) {
                    if (!strcmp(formats[f], "420") && nly == 0)
                        continue;
                    xs_encoder_config cfg;
                    xs_encoder_config_init(&cfg);
                    set_format(&cfg, formats[f], 250 + 2 * nlx, 30 + 2 * nly, depth);
                    cfg.nlx = nlx;
                    cfg.nly = nly;
                    /* 2 to 4 bits per sample: samples per pixel times that. */
                    double spp = 0;
                    for (int c = 0; c < cfg.nc; c++)
                        spp += 1.0 / (cfg.sx[c] * cfg.sy[c]);
                    cfg.bpp = spp * (2.0 + nlx % 3);
                    cfg.rate_control = (nlx & 1) ? XS_RC_SLICE : XS_RC_PRECINCT;
                    cfg.qpih = depth & 1;
                    cfg.fs = (nlx >> 1) & 1;
                    result r = roundtrip(&cfg, 0);
                    CHECK(r.st == XSF_OK && r.psnr > 32.0,
                          "lossy %s %d-bit NLx=%d NLy=%d %.1f bpp: %s (psnr %.2f)", formats[f],
                          depth, nlx, nly, cfg.bpp, r.msg, r.psnr);
                }
}

/* Rates from very low to very high on one picture: exact sizes, budgets,
 * quality rising with the rate; noise (the hardest content) too. */
static void test_rates(void)
{
    for (int kind = 0; kind <= 1; kind++)
        for (int rc = 0; rc <= 1; rc++) {
            double last = 0;
            static const double bpps[] = {0.75, 1.5, 3, 6, 10, 16, 24};
            for (size_t i = 0; i < sizeof bpps / sizeof bpps[0]; i++) {
                xs_encoder_config cfg;
                xs_encoder_config_init(&cfg);
                set_format(&cfg, "444", 512, 32, 12);
                cfg.bpp = bpps[i];
                cfg.rate_control = rc ? XS_RC_PRECINCT : XS_RC_SLICE;
                result r = roundtrip(&cfg, kind);
                CHECK(r.st == XSF_OK, "%s at %.2f bpp (%s): %s", kind ? "noise" : "picture",
                      bpps[i], rc ? "precinct" : "slice", r.msg);
                CHECK(r.psnr >= last - 0.01,
                      "%s at %.2f bpp: psnr %.2f below %.2f at the lower rate",
                      kind ? "noise" : "picture", bpps[i], r.psnr, last);
                last = r.psnr;
            }
        }
}

/* NLT (quadratic and extended) and CWD: the decoder supports them, no
 * third-party vector covers them. At a high rate the round trip is close;
 * with CWD lossless it is exact. */
static void test_nlt_cwd(void)
{
    for (int depth = 8; depth <= 16; depth += 4) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "422", 96, 32, depth);
        cfg.bpp = 12;
        cfg.tnlt = 1;
        cfg.nlt_sigma = 0;
        cfg.nlt_alpha = (unsigned)(1 << (depth - 4));
        result r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.psnr > 40, "quadratic NLT %d-bit: %s (psnr %.2f)", depth, r.msg,
              r.psnr);
        /* A linear toe below T2, quadratic above (E=8: slope 2^(Bw-E)). */
        cfg.tnlt = 2;
        cfg.nlt_t1 = 1u << 10;
        cfg.nlt_t2 = 1u << 12;
        cfg.nlt_e = 8;
        r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.psnr > 40, "extended NLT %d-bit: %s (psnr %.2f)", depth, r.msg,
              r.psnr);
    }
    for (int sd = 1; sd <= 3; sd++) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "4444", 80, 24, 10);
        cfg.sd = sd;
        cfg.lossless = 1;
        result r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.identical, "CWD Sd=%d lossless: %s", sd, r.msg);
        /* Untransformed components cost about a sample's worth of bits. */
        cfg.lossless = 0;
        cfg.bpp = 4 + 7.0 * sd;
        cfg.nly = 1;
        r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.psnr > 35, "CWD Sd=%d at %.0f bpp: %s (psnr %.2f)", sd, cfg.bpp,
              r.msg, r.psnr);
    }
    /* RCT with a fourth component left untransformed. */
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "4444", 64, 32, 8);
    cfg.cpih = 1;
    cfg.sd = 1;
    cfg.lossless = 1;
    result r = roundtrip(&cfg, 0);
    CHECK(r.st == XSF_OK && r.identical, "RCT + CWD lossless: %s", r.msg);
}

/* Slices, precinct columns, long headers, fixed Q/R, odd sizes. */
static void test_layouts(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 5}, {17, 3}, {33, 65}, {257, 9}, {640, 4}};
    for (size_t s = 0; s < 6; s++)
        for (int nly = 0; nly <= 2; nly++) {
            xs_encoder_config cfg;
            xs_encoder_config_init(&cfg);
            set_format(&cfg, "444", sizes[s][0], sizes[s][1], 10);
            cfg.nly = nly;
            cfg.bpp = 6;
            result r = roundtrip(&cfg, 0);
            CHECK(r.st == XSF_OK || r.st == XSF_ERR_ARG, "%dx%d NLy=%d: %s", sizes[s][0],
                  sizes[s][1], nly, r.msg);
            cfg.lossless = 1;
            r = roundtrip(&cfg, 0);
            CHECK(r.st == XSF_OK && r.identical, "%dx%d NLy=%d lossless: %s", sizes[s][0],
                  sizes[s][1], nly, r.msg);
        }
    for (int lines = 4; lines <= 64; lines *= 2) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "422", 128, 60, 10);
        cfg.slice_lines = lines;
        cfg.bpp = 3;
        result r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.psnr > 30, "slices of %d lines: %s", lines, r.msg);
    }
    for (int cw = 1; cw <= 3; cw++) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "422", 300, 20, 10);
        cfg.nlx = 2;
        cfg.nly = 0;
        cfg.cw = cw;
        cfg.bpp = 8; /* narrow precincts: headers take a good part of the rate */
        result r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.psnr > 30, "Cw=%d: %s (psnr %.2f)", cw, r.msg, r.psnr);
    }
    {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "444", 96, 32, 12);
        cfg.long_headers = 1;
        cfg.bpp = 5;
        result r = roundtrip(&cfg, 0);
        CHECK(r.st == XSF_OK && r.psnr > 30, "long headers: %s", r.msg);
        cfg.rate_control = XS_RC_FIXED;
        double last = 0;
        for (int q = 12; q >= 0; q -= 3) {
            cfg.q = q;
            cfg.r = 5;
            r = roundtrip(&cfg, 0);
            CHECK(r.st == XSF_OK && r.psnr >= last, "fixed Q=%d R=5: %s (psnr %.2f)", q, r.msg,
                  r.psnr);
            last = r.psnr;
        }
    }
}

/* Profiles: settings outside them are refused with a reason; inside, the
 * level and sublevel are derived. */
static void test_profiles(void)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "422", 1920, 1080, 10);
    cfg.bpp = 3;
    cfg.ppih = XS_PPIH_MAIN_422_10;
    xs_header h;
    xsf_error err = {0};
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_ERR_ARG,
          "Main 422.10 with NLy=2 accepted");
    cfg.nly = 1;
    memset(&err, 0, sizeof err);
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_OK, "Main 422.10: %s", err.msg);
    CHECK(h.plev == 0x1004,
          "Main 422.10 1080p at 3 bpp: Plev 0x%04x, expected 2k-1 Sublev3bpp 0x1004", h.plev);
    cfg.ppih = XS_PPIH_LIGHT_422_10;
    cfg.qpih = 1;
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_ERR_ARG,
          "Light with uniform quantization accepted");
    cfg.qpih = 0;
    cfg.depth[0] = cfg.depth[1] = cfg.depth[2] = 12;
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_ERR_ARG,
          "Light 422.10 at 12 bits accepted");
    set_format(&cfg, "444", 3840, 2160, 12);
    cfg.ppih = XS_PPIH_HIGH_444_12;
    cfg.nly = 2;
    cfg.bpp = 10;
    memset(&err, 0, sizeof err);
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_OK, "High 444.12: %s", err.msg);
    CHECK(h.plev == 0x2010,
          "High 444.12 UHD at 10 bpp: Plev 0x%04x, expected 4k-1 Sublev12bpp 0x2010", h.plev);
    cfg.ppih = XS_PPIH_MAIN_444_12;
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_ERR_ARG,
          "Main 444.12 with NLy=2 accepted");
    cfg.nly = 1;
    cfg.cpih = 1;
    memset(&err, 0, sizeof err);
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_OK, "Main 444.12 with RCT: %s", err.msg);
    cfg.slice_lines = 32;
    CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_ERR_ARG,
          "Main 444.12 with 32-line slices accepted");
    /* A target too small for even the coarsest quantization is an error. */
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "444", 64, 64, 10);
    cfg.bpp = 0.02;
    result r = roundtrip(&cfg, 0);
    CHECK(r.st == XSF_ERR_ARG, "0.02 bpp: expected a refusal, got status %d (%s)", (int)r.st,
          r.msg);
}

/* The PSNR weights favour luma as xs/ENCODER.md derives (8:1:1 weighted
 * MSE): in 4:4:4 the chroma of the lowest band sits one bit plane below luma
 * (every sample weighing the same would give them equal gains), and in
 * 4:2:2 and 4:2:0 never above it. */
static void test_weights(void)
{
    static const char *const fmts[] = {"444", "422", "420"};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, fmts[i], 1920, 1080, 10);
        cfg.bpp = 3;
        xs_header h;
        xsf_error err = {0};
        CHECK(xs_encoder_config_header(&cfg, &h, &err) == XSF_OK, "%s: %s", fmts[i], err.msg);
        CHECK(h.gain[1] == h.gain[2], "%s: Cb gain %u, Cr gain %u", fmts[i], h.gain[1], h.gain[2]);
        if (i == 0)
            CHECK(h.gain[0] == h.gain[1] + 1, "4:4:4: luma gain %u, chroma %u (expected one more)",
                  h.gain[0], h.gain[1]);
        else
            CHECK(h.gain[0] >= h.gain[1], "%s: luma gain %u below chroma %u", fmts[i], h.gain[0],
                  h.gain[1]);
    }
}

/* Slice rate control: the bytes of a slice follow its content. One slice of
 * four precincts, the first detailed (noise) and the other three flat: the
 * first takes far more than the quarter of the slice its coefficients would
 * give it, and the slice is still exactly its share. */
static void test_slice_shares(void)
{
    enum { W = 256, H = 16 };
    static uint16_t px[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            px[y * W + x] = (uint16_t)(y < 4 ? enc_rand() % 256 : 128);
    xsf_picture pic;
    memset(&pic, 0, sizeof pic);
    pic.fmt.nc = 1;
    pic.fmt.width[0] = W;
    pic.fmt.height[0] = H;
    pic.fmt.depth[0] = 8;
    pic.stride[0] = W * sizeof(uint16_t);
    pic.data[0] = (uint8_t *)px;
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "400", W, H, 8);
    cfg.bpp = 2;
    xs_encoder *enc = NULL;
    xsf_error err = {0};
    CHECK(xs_encoder_create(&enc, &cfg, &err) == XSF_OK, "create: %s", err.msg);
    if (!enc)
        return;
    const size_t cap = xs_encoder_max_bytes(enc);
    uint8_t *buf = malloc(cap);
    size_t len = 0;
    CHECK(buf && xs_encode(enc, &pic, buf, cap, &len) == XSF_OK, "encode: %s",
          xs_encoder_error(enc));
    const xs_encoder_stats *st = xs_encoder_last_stats(enc);
    CHECK(st->nprecincts == 4, "%zu precincts, expected 4", st->nprecincts);
    uint32_t slice = 0;
    for (size_t i = 0; i < st->nprecincts; i++)
        slice += st->total_bytes[i];
    CHECK(st->coded_bytes[0] > slice / 2,
          "the detailed precinct took %u of the slice's %u bytes (a quarter by coefficients)",
          st->coded_bytes[0], slice);
    const char *why = buf ? test_check_budget(buf, len, cap, XS_RC_SLICE) : "no buffer";
    CHECK(!why, "budget: %s", why ? why : "");
    free(buf);
    xs_encoder_destroy(enc);
}

int main(void)
{
    test_lossless();
    test_tools_lossless();
    test_lossy_matrix();
    test_rates();
    test_nlt_cwd();
    test_layouts();
    test_profiles();
    test_weights();
    test_slice_shares();
    return xsf_test_finish();
}
