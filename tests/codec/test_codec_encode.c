/* The encoders of the codec table (xsf_codec.h's xsf_encoder_ops) and the
 * knob tables they take (xsf_option.h): for JPEG XS and BPC-PaCo, a picture
 * encoded through the table gives the bytes the codec's own API gives for
 * the same settings, decodes through the table to the picture the codec's
 * own decoder gives, and a lossless round trip is exact; knobs a codec does
 * not know, or values it does not take, are refused naming them. The GPU
 * encoders (where a GPU is usable) give the C encoders' bytes; with two
 * GPUs (the emulated build has two), BPC-PaCo's GPU encoder and decoder
 * made for the second keep the caller's device current (xsf_cuda_device.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "test.h"
#include "xs.h"
#include "xsf_codecs.h"

#if XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* A host picture of nc components (component 0 w x h, the others w/sx x h)
 * with smooth content and some texture. */
static void make_picture(xsf_picture *p, int nc, int w, int h, int sx, int depth, unsigned seed)
{
    xsf_picture_init(p);
    p->fmt.container = XSF_PLANAR_U16;
    p->fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        p->fmt.width[c] = c ? w / sx : w;
        p->fmt.height[c] = h;
        p->fmt.depth[c] = depth;
    }
    xsf_error err;
    xsf_error_clear(&err);
    if (xsf_picture_alloc(p, NULL, &err) != XSF_OK) {
        fprintf(stderr, "no memory for a picture: %s\n", err.msg);
        exit(1);
    }
    const unsigned max = (1u << depth) - 1;
    for (int c = 0; c < nc; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < p->fmt.width[c]; x++) {
                seed = seed * 1103515245u + 12345u;
                const double v =
                    0.5 + 0.3 * sin(x * 0.11 + c) * cos(y * 0.07) + (double)(seed >> 24) / 2048.0;
                xsf_picture_row16(p, c, y)[x] = (uint16_t)(v < 0 ? 0 : v > 1 ? max : v * max);
            }
}

static int same_samples(const xsf_picture *a, const xsf_picture *b)
{
    if (!xsf_format_equal(&a->fmt, &b->fmt))
        return 0;
    for (int c = 0; c < a->fmt.nc; c++)
        for (int y = 0; y < a->fmt.height[c]; y++)
            if (memcmp(xsf_picture_row16(a, c, y), xsf_picture_row16(b, c, y),
                       xsf_format_row_bytes(&a->fmt, c)))
                return 0;
    return 1;
}

/* Encodes `pic` through the codec's table (device -1: the C encoder) into *cs. */
static xsf_status table_encode(const xsf_codec *codec, const xsf_encode_settings *s, int device,
                               const xsf_picture *pic, uint8_t **cs, size_t *len, xsf_error *err)
{
    void *enc = NULL;
    *cs = NULL;
    *len = 0;
    xsf_status st = codec->encoder->create(&enc, s, device, NULL, err);
    if (st != XSF_OK)
        return st;
    const size_t cap = codec->encoder->max_bytes(enc);
    *cs = malloc(cap);
    st = *cs ? codec->encoder->encode(enc, pic, *cs, cap, len, err) : XSF_ERR_NOMEM;
    if (st == XSF_OK) { /* without an output: coded, nothing handed back */
        size_t none = 1;
        st = codec->encoder->encode(enc, pic, NULL, 0, &none, err);
        CHECK(st == XSF_OK && none == 0, "%s: encode without output: %s, len %zu", codec->name,
              err->msg, none);
    }
    codec->encoder->destroy(enc);
    return st;
}

/* Decodes cs through the codec's table (parse_header, the C decoder) into *out. */
static xsf_status table_decode(const xsf_codec *codec, const void *params, const uint8_t *cs,
                               size_t len, xsf_picture *out, xsf_error *err)
{
    xsf_codec_frame frame;
    xsf_picture_init(out);
    xsf_status st = codec->parse_header(cs, len, &frame, err);
    if (st != XSF_OK)
        return st;
    out->fmt = frame.format;
    if ((st = xsf_picture_alloc(out, NULL, err)) != XSF_OK)
        return st;
    void *dec = NULL;
    if ((st = codec->cpu_create(&dec, err)) != XSF_OK)
        return st;
    st = codec->cpu_decode(dec, &frame, params, cs, len, out, err);
    codec->cpu_destroy(dec);
    return st;
}

/* The picture a direct decoder gave (a view of its planes), copied. */
static void copy_view(xsf_picture *dst, const xsf_picture *view)
{
    xsf_picture_init(dst);
    dst->fmt = view->fmt;
    xsf_error err;
    xsf_error_clear(&err);
    if (xsf_picture_alloc(dst, NULL, &err) != XSF_OK || xsf_picture_copy(dst, view, &err) != XSF_OK)
        exit(1);
}

/* ---- the knob tables ---- */

typedef struct knobs {
    int n, flag, mode, list[4], count;
    double d;
} knobs;

static const int modes[] = {10, 20};
static const xsf_option table[] = {
    XSF_OPTION_HEAD("heading:"),
    XSF_OPTION("n", XSF_OPTION_INT, offsetof(knobs, n), "N", "a number", .lo = 1, .hi = 8),
    XSF_OPTION("flag", XSF_OPTION_FLAG, offsetof(knobs, flag), NULL, "a flag"),
    XSF_OPTION("off", XSF_OPTION_SET, offsetof(knobs, flag), NULL, "the flag off", .value = 0),
    XSF_OPTION("mode", XSF_OPTION_CHOICE, offsetof(knobs, mode), "M", "a mode",
               .choices = "ten|twenty", .values = modes),
    XSF_OPTION("list", XSF_OPTION_INTS, offsetof(knobs, list), "L", "a list", .lo = 0, .hi = 9,
               .max_items = 4, .count_offset = offsetof(knobs, count)),
    XSF_OPTION("d", XSF_OPTION_DOUBLE, offsetof(knobs, d), "D", "a number above 0", .lo = 0,
               .hi = 2, .flags = XSF_OPTION_ABOVE_LO),
    XSF_OPTION_TABLE_END,
};

static void test_options(void)
{
    knobs k = {0};
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(table, &k, "n=3 flag mode=twenty list=1,2,9 d=0.5", "tests", &err) ==
              XSF_OK,
          "apply: %s", err.msg);
    CHECK(k.n == 3 && k.flag == 1 && k.mode == 20 && k.count == 3 && k.list[2] == 9 && k.d == 0.5,
          "applied: n %d flag %d mode %d count %d d %g", k.n, k.flag, k.mode, k.count, k.d);
    CHECK(xsf_options_apply(table, &k, "  flag\toff  ", "tests", &err) == XSF_OK && k.flag == 0,
          "a later knob wins");
    CHECK(xsf_options_apply(table, &k, NULL, "tests", &err) == XSF_OK, "no text is no knob");
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(table, &k, "n=2 frobnicate=1", "Tests", &err) == XSF_ERR_ARG &&
              !strcmp(err.msg, "Tests have no option 'frobnicate'") && k.n == 2,
          "unknown knob: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(table, &k, "n=9", "tests", &err) == XSF_ERR_ARG &&
              !strcmp(err.msg, "n: '9' is not a whole number from 1 to 8"),
          "bounds: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_option_set(xsf_option_find(table, "mode"), &k, "eleven", &err) == XSF_ERR_ARG &&
              !strcmp(err.msg, "'eleven' is not ten or twenty"),
          "choice: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_option_set(xsf_option_find(table, "d"), &k, "0", &err) == XSF_ERR_ARG, "above lo");
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(table, &k, "flag=yes", "tests", &err) == XSF_ERR_ARG,
          "a flag takes no value");
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(table, &k, "n", "tests", &err) == XSF_ERR_ARG, "n needs a value");
    CHECK(!xsf_option_find(table, "heading:") && xsf_option_is_flag(xsf_option_find(table, "off")),
          "find");
    char buf[16] = "";
    xsf_error_clear(&err);
    CHECK(xsf_options_append(buf, sizeof buf, "n", "4", &err) == XSF_OK &&
              xsf_options_append(buf, sizeof buf, "flag", NULL, &err) == XSF_OK &&
              !strcmp(buf, "n=4 flag"),
          "append: '%s'", buf);
    CHECK(xsf_options_append(buf, sizeof buf, "list", "1,2,3,4", &err) == XSF_ERR_ARG &&
              !strcmp(buf, "n=4 flag"),
          "append past the end refused, text kept: '%s'", buf);
    CHECK(xsf_options_append(buf, sizeof buf, "n", "a b", &err) == XSF_ERR_ARG,
          "no spaces in values");
}

/* ---- JPEG XS ---- */

/* The bytes of xs_encode for a configuration. */
static uint8_t *xs_direct(const xs_encoder_config *cfg, const xsf_picture *pic, size_t *len)
{
    xs_encoder *enc = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_encoder_create(&enc, cfg, &err) != XSF_OK) {
        CHECK(0, "xs_encoder_create: %s", err.msg);
        return NULL;
    }
    uint8_t *cs = malloc(xs_encoder_max_bytes(enc));
    const xsf_status st = xs_encode(enc, pic, cs, xs_encoder_max_bytes(enc), len);
    CHECK(st == XSF_OK, "xs_encode: %s", xs_encoder_error(enc));
    xs_encoder_destroy(enc);
    return cs;
}

static void test_xs(const xsf_codec *xs, int gpu)
{
    xsf_picture pic;
    make_picture(&pic, 3, 128, 64, 2, 10, 7); /* 4:2:2 10-bit */
    xsf_encode_settings s;
    xsf_encode_settings_init(&s);
    s.format = pic.fmt;
    s.bpp = 3;
    s.options = "nlx=4 quant=uniform slice-height=32 modes=raw,nopred";
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *cs = NULL;
    size_t len = 0;
    CHECK(table_encode(xs, &s, -1, &pic, &cs, &len, &err) == XSF_OK,
          "JPEG XS through the table: %s", err.msg);
    CHECK(len == 3 * 128 * 64 / 8, "JPEG XS: %zu bytes at 3 bpp", len);

    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    xs_encoder_config_format(&cfg, "422", 128, 64, 10);
    cfg.bpp = 3;
    cfg.nlx = 4;
    cfg.qpih = 1;
    cfg.slice_lines = 32;
    cfg.gcli_modes = XS_GCLI_RAW | XS_GCLI_NOPRED;
    size_t dlen = 0;
    uint8_t *direct = xs_direct(&cfg, &pic, &dlen);
    CHECK(direct && dlen == len && !memcmp(direct, cs, len),
          "JPEG XS: the table's bytes are xs_encode's");

    /* The header the settings give is the codestream's. */
    xsf_codec_frame parsed, announced;
    xsf_error_clear(&err);
    CHECK(xs->parse_header(cs, len, &parsed, &err) == XSF_OK &&
              xs->encoder->header(&s, &announced, &err) == XSF_OK,
          "JPEG XS header of the settings: %s", err.msg);
    const xs_header *ph = (const xs_header *)(const void *)parsed.header.bytes,
                    *ah = (const xs_header *)(const void *)announced.header.bytes;
    CHECK(announced.codec == xs && xsf_format_equal(&announced.format, &parsed.format) &&
              announced.codestream_bytes == len && announced.header_bytes == parsed.header_bytes &&
              ah->wf == ph->wf && ah->hf == ph->hf && ah->nlx == 4 && ah->nlx == ph->nlx &&
              ah->nly == ph->nly && ah->qpih == 1 && ah->hsl == ph->hsl && ah->ppih == ph->ppih &&
              ah->plev == ph->plev && ah->cpih == ph->cpih,
          "JPEG XS: the header of the settings is the codestream's (%zu of %zu bytes)",
          announced.codestream_bytes, len);
    xsf_encode_settings none = s;
    none.format.nc = 0;
    xsf_error_clear(&err);
    CHECK(xs->encoder->header(&none, &announced, &err) == XSF_ERR_ARG,
          "no header without a format");

    xsf_picture out, ref;
    xsf_error_clear(&err);
    CHECK(table_decode(xs, NULL, cs, len, &out, &err) == XSF_OK,
          "JPEG XS decode through the table: %s", err.msg);
    xs_decoder *dec = NULL;
    xs_decoder_create(&dec, NULL);
    size_t used;
    const xsf_picture *img = NULL;
    CHECK(xs_decode(dec, cs, len, &used, &img) == XSF_OK, "xs_decode");
    if (img) {
        copy_view(&ref, img);
        CHECK(same_samples(&out, &ref), "JPEG XS: the table's picture is xs_decode's");
        xsf_picture_unref(&ref);
    }
    xs_decoder_destroy(dec);
    xsf_picture_unref(&out);

    xsf_encode_info info;
    xs->encoder->describe(&s, &info);
    CHECK(!strcmp(info.transform, "5/3") && info.levels_h == 4 && info.levels_v == 2 &&
              !strcmp(info.colour, "none"),
          "JPEG XS describe: %s %d/%d %s", info.transform, info.levels_h, info.levels_v,
          info.colour);

    if (gpu) {
        uint8_t *gcs = NULL;
        size_t glen = 0;
        xsf_error_clear(&err);
        CHECK(table_encode(xs, &s, 0, &pic, &gcs, &glen, &err) == XSF_OK && glen == len &&
                  !memcmp(gcs, cs, len),
              "JPEG XS GPU encoder through the table: the C encoder's bytes (%s)", err.msg);
        free(gcs);
    }
    free(direct);
    free(cs);

    /* Lossless RGB: the RCT by default for RGB, the picture back exactly. */
    xsf_picture rgb;
    make_picture(&rgb, 3, 96, 40, 1, 8, 3);
    xsf_encode_settings_init(&s);
    s.format = rgb.fmt;
    s.rgb = 1;
    s.lossless = 1;
    xsf_error_clear(&err);
    CHECK(table_encode(xs, &s, -1, &rgb, &cs, &len, &err) == XSF_OK, "JPEG XS lossless: %s",
          err.msg);
    xs->encoder->describe(&s, &info);
    CHECK(!strcmp(info.colour, "RCT") && info.levels_h == 5, "RGB takes the RCT: %s", info.colour);
    CHECK(table_decode(xs, NULL, cs, len, &out, &err) == XSF_OK && same_samples(&out, &rgb),
          "JPEG XS lossless round trip through the table");
    xsf_picture_unref(&out);
    free(cs);

    /* Refusals: a knob JPEG XS does not have, a value it does not take, no rate. */
    void *enc = NULL;
    s.options = "passes=2";
    xsf_error_clear(&err);
    CHECK(xs->encoder->create(&enc, &s, -1, NULL, &err) == XSF_ERR_ARG && !enc &&
              strstr(err.msg, "no option 'passes'"),
          "a BPC-PaCo knob refused by JPEG XS: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xs->encoder->check_option("nlx", "9", &err) == XSF_ERR_ARG && strstr(err.msg, "'9'"),
          "nlx=9 refused: %s", err.msg);
    CHECK(xs->encoder->check_option("long-headers", NULL, &err) == XSF_OK, "a flag checks");
    xsf_encode_settings_init(&s);
    xsf_error_clear(&err);
    CHECK(xs->encoder->check(&s, &err) == XSF_ERR_ARG && strstr(err.msg, "no rate"), "no rate: %s",
          err.msg);
    s.options = "gains=1,2 priorities=0";
    s.lossless = 1;
    xsf_error_clear(&err);
    CHECK(xs->encoder->check(&s, &err) == XSF_ERR_ARG &&
              strstr(err.msg, "2 gains but 1 priorities"),
          "gains without their priorities: %s", err.msg);
    xsf_picture_unref(&rgb);
    xsf_picture_unref(&pic);
}

/* ---- BPC-PaCo ---- */

static void test_bpc(const xsf_codec *bpc, int gpu)
{
    xsf_picture pic;
    make_picture(&pic, 3, 96, 72, 1, 8, 11);
    xsf_encode_settings s;
    xsf_encode_settings_init(&s);
    s.format = pic.fmt;
    s.rgb = 1;
    s.bpp = 2;
    s.options = "passes=3 filter=97 qstep=0.5 levels=4";
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *cs = NULL;
    size_t len = 0;
    CHECK(table_encode(bpc, &s, -1, &pic, &cs, &len, &err) == XSF_OK,
          "BPC-PaCo through the table: %s", err.msg);
    CHECK(len > 0 && len <= 2 * 96 * 72 / 8, "BPC-PaCo: %zu bytes at 2 bpp", len);

    bpc_params p;
    bpc_params_default(&p);
    p.variant = BPC_VARIANT_3PASS;
    p.filter = BPC_FILTER_97;
    p.qstep = 0.5f;
    p.levels = 4;
    bpc_params_set_bpp(&p, 2, 96, 72);
    const size_t cap = bpc_encode_bound(&p, &pic.fmt);
    uint8_t *direct = malloc(cap);
    size_t dlen = 0;
    bpc_encoder *enc = NULL;
    CHECK(bpc_encoder_create(&enc, &p, NULL) == XSF_OK &&
              bpc_encode(enc, &pic, direct, cap, &dlen) == XSF_OK,
          "bpc_encode");
    bpc_encoder_destroy(enc);
    CHECK(dlen == len && !memcmp(direct, cs, len), "BPC-PaCo: the table's bytes are bpc_encode's");

    xsf_picture out, ref;
    xsf_error_clear(&err);
    CHECK(table_decode(bpc, NULL, cs, len, &out, &err) == XSF_OK,
          "BPC-PaCo decode through the table: %s", err.msg);
    bpc_decoder *dec = NULL;
    bpc_decoder_create(&dec, NULL);
    size_t used;
    const xsf_picture *dimg = NULL;
    CHECK(bpc_decode(dec, cs, len, &used, &dimg) == XSF_OK, "bpc_decode");
    if (dimg) {
        copy_view(&ref, dimg);
        CHECK(same_samples(&out, &ref), "BPC-PaCo: the table's picture is bpc_decode's");
        xsf_picture_unref(&ref);
    }
    bpc_decoder_destroy(dec);
    xsf_picture_unref(&out);

    xsf_encode_info info;
    bpc->encoder->describe(&s, &info);
    CHECK(!strcmp(info.transform, "9/7") && info.levels_h == 4 && !strcmp(info.colour, "ICT") &&
              info.qstep == 0.5,
          "BPC-PaCo describe: %s %d %s %g", info.transform, info.levels_h, info.colour, info.qstep);

    if (gpu) {
        uint8_t *gcs = NULL;
        size_t glen = 0;
        xsf_error_clear(&err);
        CHECK(table_encode(bpc, &s, 0, &pic, &gcs, &glen, &err) == XSF_OK && glen == len &&
                  !memcmp(gcs, cs, len),
              "BPC-PaCo GPU encoder through the table: the C encoder's bytes (%s)", err.msg);
        free(gcs);
    }
    free(direct);
    free(cs);

    /* Lossless: the 5/3 with every pass, the RCT off when asked. */
    xsf_encode_settings_init(&s);
    s.format = pic.fmt;
    s.lossless = 1;
    s.colour_transform = 0;
    xsf_error_clear(&err);
    CHECK(table_encode(bpc, &s, -1, &pic, &cs, &len, &err) == XSF_OK, "BPC-PaCo lossless: %s",
          err.msg);
    CHECK(table_decode(bpc, NULL, cs, len, &out, &err) == XSF_OK && same_samples(&out, &pic),
          "BPC-PaCo lossless round trip through the table");
    bpc->encoder->describe(&s, &info);
    CHECK(!strcmp(info.transform, "5/3") && !strcmp(info.colour, "none") && info.qstep == 0,
          "lossless describe");
    xsf_picture_unref(&out);
    free(cs);

    /* Refusals. */
    void *e = NULL;
    s.options = "nlx=4";
    xsf_error_clear(&err);
    CHECK(bpc->encoder->create(&e, &s, -1, NULL, &err) == XSF_ERR_ARG && !e &&
              strstr(err.msg, "no option 'nlx'"),
          "a JPEG XS knob refused by BPC-PaCo: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(bpc->encoder->check_option("levels", "7", &err) == XSF_ERR_ARG &&
              !strcmp(err.msg, "'7' is not a level count from 0 to 6"),
          "levels=7: %s", err.msg);
    s.options = "filter=97";
    xsf_error_clear(&err);
    CHECK(bpc->encoder->check(&s, &err) == XSF_ERR_ARG, "lossless with the 9/7 refused");
    xsf_picture_unref(&pic);
}

#if XSF_HAVE_CUDA
static int current_device(void)
{
    int d = -1;
    return cudaGetDevice(&d) == cudaSuccess ? d : -2;
}

/* BPC-PaCo's GPU encoder and decoder through the table, made for device 1
 * by a caller on device 0: a lossless round trip, device 0 current after
 * every call. */
static void test_bpc_device(const xsf_codec *bpc)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
        printf("fewer than two GPUs: the device rule through the table is not checked\n");
        return;
    }
    CHECK(cudaSetDevice(0) == cudaSuccess, "device 0 current");
    xsf_picture pic, out;
    make_picture(&pic, 3, 96, 72, 1, 8, 5);
    xsf_encode_settings s;
    xsf_encode_settings_init(&s);
    s.format = pic.fmt;
    s.lossless = 1;
    xsf_error err;
    xsf_error_clear(&err);
    void *enc = NULL, *dec = NULL;
    uint8_t *cs = NULL;
    size_t len = 0;
    CHECK(bpc->encoder->create(&enc, &s, 1, NULL, &err) == XSF_OK, "GPU encoder on device 1: %s",
          err.msg);
    CHECK(current_device() == 0, "after the encoder's create: device %d", current_device());
    if (enc && (cs = malloc(bpc->encoder->max_bytes(enc))))
        CHECK(bpc->encoder->encode(enc, &pic, cs, bpc->encoder->max_bytes(enc), &len, &err) ==
                  XSF_OK,
              "GPU encode on device 1: %s", err.msg);
    CHECK(current_device() == 0, "after encode: device %d", current_device());
    bpc->encoder->destroy(enc);
    CHECK(current_device() == 0, "after the encoder's destroy: device %d", current_device());

    xsf_codec_frame frame;
    xsf_picture_init(&out);
    if (len && bpc->parse_header(cs, len, &frame, &err) == XSF_OK) {
        out.fmt = frame.format;
        CHECK(xsf_picture_alloc(&out, NULL, &err) == XSF_OK, "a host picture: %s", err.msg);
        CHECK(bpc->gpu_create(&dec, 1, NULL, &err) == XSF_OK, "GPU decoder on device 1: %s",
              err.msg);
    }
    CHECK(current_device() == 0, "after gpu_create: device %d", current_device());
    if (dec) {
        int from[XSF_MAX_COMPONENTS] = {0}, to[XSF_MAX_COMPONENTS] = {0};
        for (int c = 0; c < frame.format.nc; c++)
            to[c] = frame.format.height[c];
        CHECK(bpc->gpu_decode(dec, &frame, NULL, cs, len, NULL, &err) == XSF_OK,
              "GPU decode on device 1: %s", err.msg);
        CHECK(current_device() == 0, "after gpu_decode: device %d", current_device());
        CHECK(bpc->gpu_download_rows(dec, &out, from, to, &err) == XSF_OK &&
                  bpc->gpu_sync(dec, &err) == XSF_OK,
              "the rows from device 1: %s", err.msg);
        CHECK(current_device() == 0, "after the download: device %d", current_device());
        CHECK(same_samples(&out, &pic), "lossless through the GPU codec on device 1");
        bpc->gpu_destroy(dec);
        CHECK(current_device() == 0, "after gpu_destroy: device %d", current_device());
    }
    xsf_picture_unref(&out);
    xsf_picture_unref(&pic);
    free(cs);
}
#endif

int main(void)
{
    test_options();
    const xsf_codec *xs = xsf_codec_find("jpeg-xs"), *bpc = xsf_codec_find("bpc-paco");
    CHECK(xs && xs->encoder && bpc && bpc->encoder, "both codecs have encoders");
    if (!xs || !bpc || !xs->encoder || !bpc->encoder)
        return xsf_test_finish();
    const int gpu =
        xs->encoder->gpu_available() == XSF_OK && bpc->encoder->gpu_available() == XSF_OK;
    if (!gpu)
        printf("no usable GPU: the GPU encoders are not compared\n");
    test_xs(xs, gpu);
    test_bpc(bpc, gpu);
#if XSF_HAVE_CUDA
    if (gpu)
        test_bpc_device(bpc);
#endif
    return xsf_test_finish();
}
