/* The whole C codec (bpc/): lossless round trips (5/3, every pass kept) of
 * random pictures of awkward shapes, depths, component counts and level
 * counts, and of the photographs behind vectors/xs (decoded with the xs
 * decoder); lossy round trips that meet their rate within 1% (9/7 and 5/3,
 * every variant) with quality rising with the rate; the header as read back.
 *
 * usage: test_bpc_codec VECTOR_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "bpc.h"
#include "xs.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static void image_alloc(xsf_picture *img, int nc, const int *w, const int *h, int depth)
{
    memset(img, 0, sizeof *img);
    img->fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        img->fmt.width[c] = w[c];
        img->fmt.height[c] = h[c];
        img->fmt.depth[c] = depth;
        img->stride[c] =
            ((size_t)w[c] + (c & 1) * 3) * sizeof(uint16_t); /* a pitch wider than the width */
        img->data[c] = (uint8_t *)(calloc((img->stride[c] / 2) * h[c], 2));
    }
}

static void image_free(xsf_picture *img)
{
    for (int c = 0; c < img->fmt.nc; c++)
        free(img->data[c]);
}

/* Gradients, edges and noise; kind 1 is uniform noise. */
static void fill(xsf_picture *img, int kind)
{
    for (int c = 0; c < img->fmt.nc; c++) {
        const int maxv = (1 << img->fmt.depth[c]) - 1;
        for (int y = 0; y < img->fmt.height[c]; y++)
            for (int x = 0; x < img->fmt.width[c]; x++) {
                int v;
                if (kind == 1) {
                    v = (int)(rnd() & (uint32_t)maxv);
                } else {
                    v = (int)((double)maxv * (0.5 + 0.3 * sin(x * 0.05 + c) * cos(y * 0.07)));
                    if ((x / 13 + y / 11) % 4 == 0)
                        v = maxv - v;
                    v += (int)(rnd() % (unsigned)(maxv / 20 + 1));
                }
                xsf_picture_row16(img, c, y)[x] = (uint16_t)(v < 0 ? 0 : (v > maxv ? maxv : v));
            }
    }
}

static double psnr(const xsf_picture *a, const xsf_picture *b)
{
    double se = 0, n = 0, peak = 0;
    for (int c = 0; c < a->fmt.nc; c++) {
        const double m = (double)((1 << a->fmt.depth[c]) - 1);
        peak = m > peak ? m : peak;
        for (int y = 0; y < a->fmt.height[c]; y++)
            for (int x = 0; x < a->fmt.width[c]; x++) {
                const double d =
                    (double)xsf_picture_row16(a, c, y)[x] - xsf_picture_row16(b, c, y)[x];
                se += d * d;
                n++;
            }
    }
    return se == 0 ? 999.0 : 10 * log10(peak * peak * n / se);
}

static int identical(const xsf_picture *a, const xsf_picture *b)
{
    if (a->fmt.nc != b->fmt.nc)
        return 0;
    for (int c = 0; c < a->fmt.nc; c++) {
        if (a->fmt.width[c] != b->fmt.width[c] || a->fmt.height[c] != b->fmt.height[c] ||
            a->fmt.depth[c] != b->fmt.depth[c])
            return 0;
        for (int y = 0; y < a->fmt.height[c]; y++)
            if (memcmp(xsf_picture_row16(a, c, y), xsf_picture_row16(b, c, y),
                       2 * (size_t)a->fmt.width[c]))
                return 0;
    }
    return 1;
}

/* bpc_decode_parsed with the header bpc_parse_header gave: the picture of
 * bpc_decode (`want`); the header is taken from `info`, not read again
 * (tables it names that the decoder lacks are refused, whatever the bytes
 * say); a codestream shorter than the header says is refused. */
static void parsed_decode(const bpc_info *info, const uint8_t *buf, size_t len,
                          const xsf_picture *want, const char *what)
{
    bpc_decoder *dec;
    bpc_decoder_create(&dec, NULL);
    const xsf_picture *out;
    size_t used = 0;
    xsf_status s = bpc_decode_parsed(dec, info, buf, len, &used, &out);
    CHECK(s == XSF_OK && used == len && identical(want, out),
          "%s: parsed decode: %s (%zu of %zu bytes)", what, bpc_decoder_error(dec), used, len);
    for (int c = 0; c < info->nc; c++)
        for (int b = 0; b < 3 * info->levels + 1; b++)
            CHECK(info->filter == BPC_FILTER_97 ? info->step[c][b] > 0 : info->step[c][b] == 1.0f,
                  "%s: step %g of component %d band %d", what, (double)info->step[c][b], c, b);
    bpc_info other = *info;
    other.tables_id = 0x5eed;
    s = bpc_decode_parsed(dec, &other, buf, len, &used, &out);
    CHECK(s == XSF_ERR_UNSUPPORTED && strstr(bpc_decoder_error(dec), "00005eed"),
          "%s: tables of the parsed header: %d %s", what, (int)s, bpc_decoder_error(dec));
    s = bpc_decode_parsed(dec, info, buf, len - 1, &used, &out);
    CHECK(s == XSF_ERR_TRUNCATED && used == 0, "%s: parsed decode of a cut codestream: %d", what,
          (int)s);
    bpc_decoder_destroy(dec);
}

/* Encodes and decodes; returns the PSNR (999 when exact) or -1. */
static double round_trip(const bpc_params *p, const xsf_picture *img, size_t *bytes,
                         const char *what)
{
    bpc_encoder *enc;
    bpc_decoder *dec;
    bpc_encoder_create(&enc, p, NULL);
    bpc_decoder_create(&dec, NULL);
    const size_t cap = bpc_encode_bound(p, &img->fmt);
    CHECK(cap > 0, "%s: no bound", what);
    uint8_t *buf = malloc(cap ? cap : 1);
    size_t len = 0, used = 0;
    double q = -1;
    xsf_status s = bpc_encode(enc, img, buf, cap, &len);
    CHECK(s == XSF_OK, "%s: encode: %s", what, bpc_encoder_error(enc));
    if (!s) {
        bpc_info info;
        xsf_error err;
        CHECK(bpc_detect(buf, len), "%s: not detected", what);
        s = bpc_parse_header(buf, len, &info, &err);
        CHECK(s == XSF_OK && info.codestream_bytes == len && info.nc == img->fmt.nc &&
                  info.width[0] == img->fmt.width[0] && info.variant == p->variant &&
                  info.levels == p->levels && info.filter == p->filter,
              "%s: header read back", what);
        const xsf_picture *out;
        s = bpc_decode(dec, buf, len, &used, &out);
        CHECK(s == XSF_OK && used == len, "%s: decode: %s", what, bpc_decoder_error(dec));
        if (!s) {
            q = identical(img, out) ? 999.0 : psnr(img, out);
            /* The picture says what the codestream's transform gives. */
            const int rgb = info.colour == BPC_COLOUR_RCT || info.colour == BPC_COLOUR_ICT;
            CHECK(out->colour.matrix == (rgb ? XSF_MATRIX_IDENTITY : XSF_MATRIX_UNSPECIFIED) &&
                      out->colour.rgb_order == rgb &&
                      out->colour.source == (rgb ? XSF_COLOUR_CODESTREAM : XSF_COLOUR_DEFAULT) &&
                      out->memory == XSF_MEMORY_HOST && !out->ref,
                  "%s: decoded colour matrix %d source %d for transform %d", what,
                  out->colour.matrix, out->colour.source, (int)info.colour);
        }
        if (!s)
            parsed_decode(&info, buf, len, out, what);
    }
    *bytes = len;
    free(buf);
    bpc_encoder_destroy(enc);
    bpc_decoder_destroy(dec);
    return q;
}

static void random_lossless(void)
{
    const int shapes[][2] = {{1, 1},   {2, 3},    {65, 1},    {1, 70},
                             {64, 64}, {127, 33}, {200, 130}, {321, 67}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int v = 1; v <= 3; v++) {
            const int nc = 1 + (int)(rnd() % 4), depth = 1 + (int)(rnd() % 16);
            int w[4], h[4];
            for (int c = 0; c < 4; c++) {
                w[c] = shapes[i][0];
                h[c] = shapes[i][1];
            }
            if (nc == 4 && w[0] > 2) { /* a subsampled fourth component */
                w[3] = (w[0] + 1) / 2;
            }
            xsf_picture img;
            image_alloc(&img, nc, w, h, depth);
            fill(&img, (int)(i & 1));
            bpc_params p;
            bpc_params_default(&p);
            p.variant = (bpc_variant)v;
            p.levels = (int)(rnd() % 7);
            char what[96];
            snprintf(what, sizeof what, "lossless %dx%d nc %d depth %d levels %d variant %d", w[0],
                     h[0], nc, depth, p.levels, v);
            size_t bytes;
            CHECK(round_trip(&p, &img, &bytes, what) == 999.0, "%s: not exact", what);
            image_free(&img);
        }
}

/* A decoded vector as a picture (the xs decoder's planes, copied). */
static int load_vector(const char *dir, const char *name, xsf_picture *img)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n);
    const size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    xs_decoder *dec;
    xs_decoder_create(&dec, NULL);
    const xsf_picture *xi;
    size_t used;
    int ok = got == (size_t)n && xs_decode(dec, buf, got, &used, &xi) == XSF_OK;
    if (ok) {
        int w[4], h[4];
        for (int c = 0; c < xi->fmt.nc && c < 4; c++) {
            w[c] = xi->fmt.width[c];
            h[c] = xi->fmt.height[c];
        }
        image_alloc(img, xi->fmt.nc < 4 ? xi->fmt.nc : 4, w, h, xi->fmt.depth[0]);
        for (int c = 0; c < img->fmt.nc; c++)
            for (int y = 0; y < h[c]; y++)
                memcpy(xsf_picture_row16(img, c, y), xsf_picture_row16(xi, c, y), 2 * (size_t)w[c]);
    }
    xs_decoder_destroy(dec);
    free(buf);
    return ok;
}

static void photographs(const char *dir)
{
    static const char *names[] = {"fmt_yuv444_8b", "fmt_rgb_10b", "fmt_yuv422_12b", "geom_346x199",
                                  "hd_420_8b_bpp1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        xsf_picture img;
        if (!load_vector(dir, names[i], &img)) {
            CHECK(0, "cannot decode vector %s in %s", names[i], dir);
            continue;
        }
        const double raw_bits = (double)img.fmt.width[0] * img.fmt.height[0];
        for (int v = 1; v <= 3; v++) {
            /* lossless */
            bpc_params p;
            bpc_params_default(&p);
            p.variant = (bpc_variant)v;
            char what[128];
            size_t bytes;
            snprintf(what, sizeof what, "%s lossless variant %d", names[i], v);
            CHECK(round_trip(&p, &img, &bytes, what) == 999.0, "%s: not exact", what);
            printf("%-16s %d passes lossless: %.3f bpp\n", names[i], v,
                   8.0 * (double)bytes / raw_bits);
            if (i == 4 && v != 2)
                continue; /* the HD picture: one variant suffices for rates */
            /* lossy rates, 9/7 and 5/3 */
            for (int f = 0; f < 2; f++) {
                double last = 0;
                const double rates[] = {0.25, 0.5, 1.0, 2.0, 4.0};
                for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
                    bpc_params_default(&p);
                    p.variant = (bpc_variant)v;
                    p.filter = f ? BPC_FILTER_97 : BPC_FILTER_53;
                    p.qstep = 0.5f;
                    bpc_params_set_bpp(&p, rates[r], img.fmt.width[0], img.fmt.height[0]);
                    snprintf(what, sizeof what, "%s %s %.2f bpp variant %d", names[i],
                             f ? "9/7" : "5/3", rates[r], v);
                    const double q = round_trip(&p, &img, &bytes, what);
                    const double target = (double)p.target_bytes;
                    /* the whole stream, every pass: smaller than the target? */
                    bpc_params all = p;
                    all.target_bytes = 0;
                    size_t full;
                    const double qfull = round_trip(&all, &img, &full, what);
                    if (full <= p.target_bytes) {
                        CHECK(bytes == full && q == qfull, "%s: %zu bytes, all passes are %zu",
                              what, bytes, full);
                    } else {
                        CHECK(bytes <= p.target_bytes && (double)bytes >= 0.99 * target,
                              "%s: %zu bytes for a target of %zu", what, bytes, p.target_bytes);
                        CHECK(q > last, "%s: PSNR %.2f not above %.2f", what, q, last);
                    }
                    printf("%-16s %s %d passes %5.2f bpp: %7zu bytes (%.4f of target) %6.2f dB\n",
                           names[i], f ? "9/7" : "5/3", v, rates[r], bytes, (double)bytes / target,
                           q);
                    last = q;
                }
            }
        }
        image_free(&img);
    }
}

/* Parameters the encoder refuses. */
static void bad_params(void)
{
    int w[4] = {16, 16, 16, 16}, h[4] = {16, 16, 16, 16};
    xsf_picture img;
    image_alloc(&img, 3, w, h, 8);
    fill(&img, 0);
    bpc_params p;
    bpc_encoder *enc;
    uint8_t buf[1 << 16];
    size_t len;
    struct {
        const char *what;
        void (*tweak)(bpc_params *);
    } cases[4];
    (void)cases;
    bpc_params_default(&p);
    p.levels = 7;
    bpc_encoder_create(&enc, &p, NULL);
    CHECK(bpc_encode(enc, &img, buf, sizeof buf, &len) == XSF_ERR_ARG, "7 levels refused");
    bpc_encoder_destroy(enc);
    bpc_params_default(&p);
    p.colour = BPC_COLOUR_ICT; /* with the 5/3 */
    bpc_encoder_create(&enc, &p, NULL);
    CHECK(bpc_encode(enc, &img, buf, sizeof buf, &len) == XSF_ERR_ARG, "ICT with 5/3 refused");
    bpc_encoder_destroy(enc);
    bpc_params_default(&p);
    p.target_bytes = 20; /* below the header */
    bpc_encoder_create(&enc, &p, NULL);
    CHECK(bpc_encode(enc, &img, buf, sizeof buf, &len) == XSF_ERR_ARG, "tiny target refused");
    bpc_encoder_destroy(enc);
    bpc_params_default(&p);
    bpc_encoder_create(&enc, &p, NULL);
    CHECK(bpc_encode(enc, &img, buf, 40, &len) == XSF_ERR_ARG, "small buffer refused");
    bpc_encoder_destroy(enc);
    image_free(&img);
}

static void transform_colour(void)
{
    static const bpc_colour transforms[] = {BPC_COLOUR_NONE, BPC_COLOUR_RCT, BPC_COLOUR_ICT};
    for (size_t i = 0; i < 3; i++) {
        xsf_colour c;
        memset(&c, 0x77, sizeof c);
        bpc_transform_colour(transforms[i], &c);
        CHECK(i ? c.matrix == XSF_MATRIX_IDENTITY && c.rgb_order == 1 &&
                      c.source == XSF_COLOUR_CODESTREAM
                : c.matrix == XSF_MATRIX_UNSPECIFIED && c.source == XSF_COLOUR_DEFAULT,
              "transform %d: matrix %d order %d source %d", (int)transforms[i], c.matrix,
              c.rgb_order, c.source);
        CHECK(c.range == (i ? XSF_RANGE_FULL : XSF_RANGE_UNSPECIFIED) &&
                  c.primaries == XSF_PRIMARIES_UNSPECIFIED,
              "transform %d: range %d", (int)transforms[i], c.range);
    }
}

int main(int argc, char **argv)
{
    transform_colour();
    random_lossless();
    bad_params();
    if (argc > 1)
        photographs(argv[1]);
    else
        CHECK(0, "usage: test_bpc_codec VECTOR_DIR");
    return xsf_test_finish();
}
