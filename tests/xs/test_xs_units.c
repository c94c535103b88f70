/* Unit tests of the JPEG XS reader's building blocks: the bit reader, the
 * unary and bounded codes, the inverse RCT, the header checks, and the C
 * decoder's output into a caller's picture (xs_decode_into). */
#include <stdint.h>
#include <string.h>

#include "../test.h"
#include "bitreader.h"
#include "xs_internal.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A test-side MSB-first writer. */
typedef struct {
    uint8_t buf[4096];
    size_t bits;
} writer;
static void put(writer *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned bit = (v >> (n - 1 - i)) & 1;
        if (bit)
            w->buf[w->bits >> 3] |= (uint8_t)(0x80 >> (w->bits & 7));
        w->bits++;
    }
}

static void test_bit_reader(void)
{
    for (int trial = 0; trial < 200; trial++) {
        writer w;
        memset(&w, 0, sizeof w);
        uint32_t vals[300];
        unsigned lens[300];
        int n = 0;
        while (w.bits < 8 * 1000 && n < 300) {
            lens[n] = 1 + rnd() % 32;
            vals[n] = lens[n] == 32 ? rnd() : rnd() & ((1u << lens[n]) - 1);
            put(&w, vals[n], lens[n]);
            n++;
        }
        size_t bytes = (w.bits + 7) / 8;
        xs_bits br;
        xs_bits_init(&br, w.buf, bytes);
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= xs_bits_get(&br, lens[i]) == vals[i];
        CHECK(ok && !br.overrun, "trial %d: values read back differ", trial);
        CHECK(br.pos_bits == w.bits, "position %zu after reading %zu bits", br.pos_bits, w.bits);
        /* Past the end: overrun flagged, zeros returned, nothing read outside. */
        size_t left = bytes * 8 - br.pos_bits;
        if (left < 32)
            (void)xs_bits_get(&br, (unsigned)left + 1);
        else
            br.overrun = 1;
        CHECK(br.overrun, "reading past the end is not flagged");
    }
}

static void test_unary(void)
{
    writer w;
    memset(&w, 0, sizeof w);
    int syms[500];
    for (int i = 0; i < 500; i++) {
        syms[i] = (int)(rnd() % 20);
        put(&w, (1u << syms[i]) - 1, (unsigned)syms[i]);
        put(&w, 0, 1);
    }
    xs_bits br;
    xs_bits_init(&br, w.buf, (w.bits + 7) / 8);
    int ok = 1;
    for (int i = 0; i < 500; i++)
        ok &= xs_bits_unary(&br, 32) == syms[i];
    CHECK(ok, "unary symbols read back differ");
    /* A run of ones that reaches the end is an error, not a read past it. */
    uint8_t ones[3] = {0xff, 0xff, 0xff};
    xs_bits_init(&br, ones, sizeof ones);
    CHECK(xs_bits_unary(&br, 32) == -1 && br.overrun, "unterminated unary code accepted");
    /* A run longer than the limit is refused. */
    uint8_t many[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0, 0};
    xs_bits_init(&br, many, sizeof many);
    CHECK(xs_bits_unary(&br, 32) == -1, "unary run of 47 accepted with a limit of 32");
}

/* Encoder side of the bounded code, as a test oracle. */
static int bounded_symbol(int r, int thr)
{
    if (r > thr)
        return r + thr;
    if (r > 0)
        return 2 * r;
    return r < 0 ? -2 * r - 1 : 0;
}

static void test_bounded_code(void)
{
    for (int thr = 0; thr <= 15; thr++) {
        int seen[64] = {0};
        for (int r = -thr; r <= 30; r++) {
            int x = bounded_symbol(r, thr);
            CHECK(x >= 0 && x < 64, "symbol %d out of range", x);
            CHECK(xs_bounded_residual(x, thr) == r, "thr %d residual %d: symbol %d decodes to %d",
                  thr, r, x, xs_bounded_residual(x, thr));
            if (x >= 0 && x < 64) {
                CHECK(!seen[x], "thr %d: symbol %d used twice", thr, x);
                seen[x] = 1;
            }
        }
        /* Every symbol up to 2*thr+1 is used: the code wastes nothing. */
        for (int x = 0; x <= 2 * thr; x++)
            CHECK(seen[x], "thr %d: symbol %d unused", thr, x);
    }
}

static void test_rct(void)
{
    for (int depth = 8; depth <= 16; depth += 2) {
        enum { N = 1000 };
        int32_t r[N], g[N], b[N], c0[N], c1[N], c2[N];
        for (int i = 0; i < N; i++) {
            r[i] = (int32_t)(rnd() % (1u << depth)) - (1 << (depth - 1));
            g[i] = (int32_t)(rnd() % (1u << depth)) - (1 << (depth - 1));
            b[i] = (int32_t)(rnd() % (1u << depth)) - (1 << (depth - 1));
            /* Forward RCT of 21122-1 F.3: c0 luma, c1 = B - G, c2 = R - G. */
            c0[i] = (r[i] + 2 * g[i] + b[i]) >> 2;
            c1[i] = b[i] - g[i];
            c2[i] = r[i] - g[i];
        }
        xs_inverse_rct(c0, c1, c2, N);
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= c0[i] == r[i] && c1[i] == g[i] && c2[i] == b[i];
        CHECK(ok, "RCT round trip at depth %d is not exact", depth);
    }
}

/* A minimal valid header, then mutations of single fields. */
static size_t make_header(uint8_t *p, int nc, int nlx, int nly)
{
    size_t n = 0;
    const uint8_t soc_cap[] = {0xff, 0x10, 0xff, 0x50, 0x00, 0x02};
    memcpy(p, soc_cap, sizeof soc_cap);
    n = sizeof soc_cap;
    const uint8_t pih[] = {
        0xff, 0x12, 0x00,        26, 0,  0,  0,    0,    0,
        0,    0,    0,           0,  64, 0,  32,   0,    0,
        0,    1,    (uint8_t)nc, 4,  8,  20, 0x84, 0x00, (uint8_t)(nlx << 4 | nly),
        0x00};
    memcpy(p + n, pih, sizeof pih);
    n += sizeof pih;
    p[n++] = 0xff;
    p[n++] = 0x13;
    p[n++] = 0;
    p[n++] = (uint8_t)(2 + 2 * nc);
    for (int c = 0; c < nc; c++) {
        p[n++] = 10;
        p[n++] = 0x11;
    }
    int nb = nc * (2 * nly + nlx + 1);
    p[n++] = 0xff;
    p[n++] = 0x14;
    p[n++] = (uint8_t)((2 + 2 * nb) >> 8);
    p[n++] = (uint8_t)(2 + 2 * nb);
    for (int b = 0; b < nb; b++) {
        p[n++] = 0;
        p[n++] = (uint8_t)b;
    }
    p[n++] = 0xff;
    p[n++] = 0x20;
    return n;
}

static void test_header_checks(void)
{
    uint8_t buf[512];
    xs_header h;
    xsf_error err;
    size_t n = make_header(buf, 3, 5, 1);
    xsf_error_clear(&err);
    CHECK(xs_parse_header(buf, n, &h, &err) == XSF_OK, "valid header refused: %s", err.msg);
    CHECK(h.wf == 64 && h.hf == 32 && h.nc == 3 && h.nlx == 5 && h.nly == 1, "fields misread");
    CHECK(h.header_bytes == n - 2, "header ends at %zu, expected %zu", h.header_bytes, n - 2);

    /* Absolute byte offsets: PIH starts at byte 6 (marker), Wf at 18, Hf 20,
     * Hsl 24, Nc 26, Ng 27, Fq/Br 30, Fslc/Ppoc/Cpih 31, NLx/NLy 32. */
    struct {
        size_t at;
        uint8_t value;
        const char *what;
    } bad[] = {
        {0, 0x00, "SOC"},        {19, 0, "width 0"},   {21, 0, "height 0"},
        {26, 0, "Nc 0"},         {26, 9, "Nc 9"},      {27, 3, "Ng 3"},
        {30, 0x83, "Br 3"},      {32, 0xf1, "NLx 15"}, {32, 0x53, "NLy 3"},
        {32, 0x12, "NLy > NLx"}, {25, 0, "Hsl 0"},     {31, 0x02, "Cpih 2"},
        {31, 0x03, "Cpih 3"},    {9, 27, "Lpih 27"},   {3, 0x12, "PIH before CAP"},
        {29, 30, "Bw 30"},       {33, 0x0c, "Fs 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t m[512];
        memcpy(m, buf, n);
        m[bad[i].at] = bad[i].value;
        xsf_error_clear(&err);
        xsf_status st = xs_parse_header(m, n, &h, &err);
        CHECK(st != XSF_OK && err.msg[0], "%s accepted", bad[i].what);
    }
    /* Every truncation of the header is refused with a message. */
    for (size_t cut = 0; cut < n - 1; cut++) {
        xsf_error_clear(&err);
        xsf_status st = xs_parse_header(buf, cut, &h, &err);
        CHECK(st != XSF_OK && err.msg[0], "header cut at %zu accepted", cut);
    }
    /* WGT must list exactly the bands that exist. */
    n = make_header(buf, 3, 5, 1);
    buf[n - 2 - 2 * 24 - 1] -= 2; /* one pair fewer in Lwgt */
    xsf_error_clear(&err);
    CHECK(xs_parse_header(buf, n, &h, &err) != XSF_OK, "short WGT accepted");
}

/* The colour a codestream describes, alone and on the decoder's picture: RGB
 * for the RCT and Star-Tetrix transforms, nothing said without one. */
static void test_header_colour(void)
{
    xs_header h;
    memset(&h, 0, sizeof h);
    xsf_colour c;
    for (int cpih = 0; cpih < 4; cpih++) {
        h.cpih = (uint8_t)cpih;
        memset(&c, 0x77, sizeof c);
        xs_header_colour(&h, &c);
        if (cpih == 1 || cpih == 3)
            CHECK(c.matrix == XSF_MATRIX_IDENTITY && c.rgb_order == 1 &&
                      c.source == XSF_COLOUR_CODESTREAM && c.range == XSF_RANGE_FULL &&
                      c.primaries == XSF_PRIMARIES_UNSPECIFIED,
                  "Cpih %d: matrix %d order %d source %d range %d", cpih, c.matrix, c.rgb_order,
                  c.source, c.range);
        else
            CHECK(c.matrix == XSF_MATRIX_UNSPECIFIED && c.source == XSF_COLOUR_DEFAULT &&
                      c.range == XSF_RANGE_UNSPECIFIED,
                  "Cpih %d: matrix %d source %d", cpih, c.matrix, c.source);
    }
    /* A 32x16 RGB picture coded with and without the RCT, decoded. */
    static uint16_t samples[3][32 * 16];
    for (int i = 0; i < 32 * 16; i++)
        samples[0][i] = (uint16_t)(i & 255), samples[1][i] = (uint16_t)(i * 7 & 255),
        samples[2][i] = 128;
    const xsf_format f = {XSF_PLANAR_U16, 3, {32, 32, 32}, {16, 16, 16}, {8, 8, 8}};
    uint8_t *data[3] = {(uint8_t *)samples[0], (uint8_t *)samples[1], (uint8_t *)samples[2]};
    const size_t stride[3] = {64, 64, 64};
    xsf_picture in;
    xsf_picture_wrap(&in, &f, data, stride, XSF_MEMORY_HOST, -1);
    for (int rct = 0; rct < 2; rct++) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(xs_encoder_config_format(&cfg, "444", 32, 16, 8) == XSF_OK, "format");
        cfg.cpih = rct;
        cfg.bpp = 8;
        xs_encoder *enc = NULL;
        xs_decoder *dec = NULL;
        uint8_t cs[4096];
        size_t len = 0, used = 0;
        const xsf_picture *out = NULL;
        CHECK(xs_encoder_create(&enc, &cfg, &err) == XSF_OK &&
                  xs_encode(enc, &in, cs, sizeof cs, &len) == XSF_OK &&
                  xs_decoder_create(&dec, NULL) == XSF_OK &&
                  xs_decode(dec, cs, len, &used, &out) == XSF_OK && out,
              "RCT %d: code and decode: %s", rct, err.msg);
        if (out) {
            CHECK(out->colour.matrix == (rct ? XSF_MATRIX_IDENTITY : XSF_MATRIX_UNSPECIFIED) &&
                      out->colour.source == (rct ? XSF_COLOUR_CODESTREAM : XSF_COLOUR_DEFAULT) &&
                      out->colour.rgb_order == rct,
                  "RCT %d: the decoded picture's colour is matrix %d source %d", rct,
                  out->colour.matrix, out->colour.source);
            CHECK(xsf_format_equal(&out->fmt, &f) && out->memory == XSF_MEMORY_HOST && !out->ref &&
                      out->stride[0] == 64,
                  "RCT %d: the decoded picture is a packed host view of the coded format", rct);
        }
        xs_encoder_destroy(enc);
        xs_decoder_destroy(dec);
    }
}

/* xs_decode_into writes the samples xs_decode gives into the caller's planes,
 * at their strides, and nothing else; a picture of another format is refused. */
static void test_decode_into(void)
{
    enum { W = 38, H = 20, PAD = 5 }; /* chroma 19 wide */
    static uint16_t samples[3][W * H];
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < W * H; i++)
            samples[c][i] = (uint16_t)((rnd() & 63) + (i % W) * 20 + c * 100) & 1023;
    const xsf_format f = {
        XSF_PLANAR_U16, 3, {W, (W + 1) / 2, (W + 1) / 2}, {H, H, H}, {10, 10, 10}};
    uint8_t *data[3] = {(uint8_t *)samples[0], (uint8_t *)samples[1], (uint8_t *)samples[2]};
    const size_t stride[3] = {2 * W, 2 * W, 2 * W};
    xsf_picture in;
    xsf_picture_wrap(&in, &f, data, stride, XSF_MEMORY_HOST, -1);
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    CHECK(xs_encoder_config_format(&cfg, "422", W, H, 10) == XSF_OK, "format");
    cfg.bpp = 12;
    xs_encoder *enc = NULL;
    xs_decoder *own = NULL, *into = NULL;
    uint8_t cs[8192];
    size_t len = 0, used = 0, used_into = 0;
    const xsf_picture *ref = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xs_encoder_create(&enc, &cfg, &err) == XSF_OK &&
              xs_encode(enc, &in, cs, sizeof cs, &len) == XSF_OK &&
              xs_decoder_create(&own, NULL) == XSF_OK && xs_decoder_create(&into, NULL) == XSF_OK &&
              xs_decode(own, cs, len, &used, &ref) == XSF_OK && ref,
          "code and decode: %s%s%s", err.msg, enc ? xs_encoder_error(enc) : "",
          own ? xs_decoder_error(own) : "");
    if (!ref)
        return;
    /* Planes with room after each row, filled with a mark the decoder must leave. */
    static uint16_t planes[3][(W + PAD) * H];
    memset(planes, 0xa5, sizeof planes);
    uint8_t *pdata[3] = {(uint8_t *)planes[0], (uint8_t *)planes[1], (uint8_t *)planes[2]};
    const size_t pstride[3] = {2 * (W + PAD), 2 * (W + PAD), 2 * (W + PAD)};
    xsf_picture out;
    xsf_picture_wrap(&out, &f, pdata, pstride, XSF_MEMORY_HOST, -1);
    out.props.rtp_timestamp = 77;
    for (int pass = 0; pass < 2; pass++) { /* the header parsed here, then given */
        xs_header h;
        CHECK(xs_parse_header(cs, len, &h, &err) == XSF_OK, "header");
        CHECK(xs_decode_into(into, pass ? &h : NULL, cs, len, &used_into, &out) == XSF_OK &&
                  used_into == used,
              "decode into the caller's planes (pass %d): %s", pass, xs_decoder_error(into));
        int same = 1, kept = 1;
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < H; y++) {
                const uint16_t *row = xsf_picture_row16(&out, c, y);
                same &= !memcmp(row, xsf_picture_row16(ref, c, y), xsf_format_row_bytes(&f, c));
                for (int x = f.width[c]; x < W + PAD; x++)
                    kept &= row[x] == 0xa5a5;
            }
        CHECK(same, "pass %d: the samples are xs_decode's", pass);
        CHECK(kept && out.props.rtp_timestamp == 77 && out.colour.source == XSF_COLOUR_DEFAULT,
              "pass %d: nothing but the samples written", pass);
    }
    /* The same decoder gives its own picture afterwards. */
    const xsf_picture *again = NULL;
    CHECK(xs_decode(into, cs, len, &used, &again) == XSF_OK && again &&
              !memcmp(again->data[1], ref->data[1], xsf_format_plane_bytes(&f, 1)),
          "own planes after decoding into the caller's");
    xsf_format other = f;
    other.depth[2] = 12;
    xsf_picture bad;
    xsf_picture_wrap(&bad, &other, pdata, pstride, XSF_MEMORY_HOST, -1);
    CHECK(xs_decode_into(into, NULL, cs, len, &used, &bad) == XSF_ERR_ARG &&
              strstr(xs_decoder_error(into), "not one of the codestream's"),
          "a picture of another format refused: %s", xs_decoder_error(into));
    xs_encoder_destroy(enc);
    xs_decoder_destroy(own);
    xs_decoder_destroy(into);
}

int main(void)
{
    test_bit_reader();
    test_unary();
    test_bounded_code();
    test_rct();
    test_header_checks();
    test_header_colour();
    test_decode_into();
    return xsf_test_finish();
}
