/* The codec seam: BPC-PaCo through the codec table and the pipeline.
 *   test_bpc_decode XSFLOW WORKDIR cpu|gpu     (XSFLOW "-": the program is not run)
 * Encodes pictures with the BPC-PaCo C encoder (lossless 5/3 with the RCT,
 * 9/7 at a rate, three passes, 4:2:2 at 10 bits), decodes the files through
 * the pipeline (pl_jxs_source_run, the stream's codec probed from the file)
 * and through `xsflow decode` on the engine asked for, and checks both
 * against the BPC-PaCo C decoder's pictures, byte for byte in .yuv layout.
 * Also the registry (find, probe, iterate) and the codec's table
 * (parse_header, codestream_size, params). gpu: exits 77 without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "image_io.h"
#include "pipeline.h"
#include "test.h"
#include "xsf_codecs.h"

typedef struct buf {
    uint8_t *data;
    size_t len, cap;
} buf;

static int buf_sink(void *ctx, const uint8_t *data, size_t len)
{
    buf *b = ctx;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len)
            cap *= 2;
        uint8_t *n = realloc(b->data, cap);
        if (!n)
            return 1;
        b->data = n;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

/* A smooth picture with some texture: nc components, component c of w/sx x h. */
static void make_picture(xsf_picture *img, uint16_t *planes[3], int w, int h, int sx, int depth,
                         unsigned seed)
{
    xsf_picture_init(img);
    img->fmt.nc = 3;
    for (int c = 0; c < 3; c++) {
        const int cw = c ? w / sx : w;
        img->fmt.width[c] = cw;
        img->fmt.height[c] = h;
        img->fmt.depth[c] = depth;
        img->stride[c] = (size_t)cw * sizeof(uint16_t);
        planes[c] = malloc((size_t)cw * (size_t)h * sizeof(uint16_t));
        img->data[c] = (uint8_t *)planes[c];
        const unsigned max = (1u << depth) - 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < cw; x++) {
                seed = seed * 1103515245u + 12345u;
                const unsigned v =
                    (unsigned)((x * 3 + y * 5 + c * 40) * (max + 1) / 1024) + ((seed >> 16) & 7);
                planes[c][(size_t)y * cw + x] = (uint16_t)(v % (max + 1));
            }
    }
}

/* Appends the codestream of img under params p to the file's bytes. */
static void encode_into(buf *file, const xsf_picture *img, bpc_params *p)
{
    bpc_encoder *enc = NULL;
    CHECK(bpc_encoder_create(&enc, p, NULL) == XSF_OK, "encoder");
    const size_t cap = bpc_encode_bound(p, &img->fmt);
    uint8_t *cs = malloc(cap ? cap : 1);
    size_t len = 0;
    CHECK(cs && bpc_encode(enc, img, cs, cap, &len) == XSF_OK, "encode: %s",
          bpc_encoder_error(enc));
    buf_sink(file, cs, len);
    free(cs);
    bpc_encoder_destroy(enc);
}

/* The C decoder's pictures of every codestream of the file, in .yuv layout. */
static void reference(const buf *file, buf *yuv, unsigned *frames)
{
    bpc_decoder *dec = NULL;
    CHECK(bpc_decoder_create(&dec, NULL) == XSF_OK, "decoder");
    size_t off = 0;
    *frames = 0;
    while (off < file->len) {
        size_t used = 0;
        const xsf_picture *img;
        if (bpc_decode(dec, file->data + off, file->len - off, &used, &img) != XSF_OK || !used) {
            CHECK(0, "C decoder: %s", bpc_decoder_error(dec));
            break;
        }
        imgio_yuv_serialize(img, buf_sink, yuv);
        off += used;
        (*frames)++;
    }
    bpc_decoder_destroy(dec);
}

typedef struct collect {
    buf yuv;
    unsigned frames, not_bpc, rgb_frames, device_frames;
} collect;

static void collect_deliver(void *ctx, pl_frame *f)
{
    collect *c = ctx; /* one stream: one frame at a time */
    xsf_picture none; /* a frame without a host picture: no samples */
    xsf_picture_init(&none);
    const xsf_picture *pic =
        f->picture[0].memory != XSF_MEMORY_DEVICE && f->picture[0].data[0] ? &f->picture[0] : &none;
    imgio_yuv_serialize(pic, buf_sink, &c->yuv);
    c->frames++;
    c->not_bpc +=
        !(f->described & 1u) || !f->desc[0].codec || strcmp(f->desc[0].codec->name, "bpc-paco");
    c->rgb_frames += f->picture[0].colour.matrix == XSF_MATRIX_IDENTITY;
    c->device_frames += f->device_picture[0].data[0] != NULL;
    pl_frame_release(f);
}

/* The file through a pipeline on `engine` as one stream of configuration sc: frames read,
 * the stream's statistics and the codec it took; the codec before the first frame is
 * checked to be none. 0, or the pipeline could not be made. */
typedef struct run_result {
    uint64_t frames;
    pl_stream_stats ss;
    const xsf_codec *codec;
} run_result;

static int run_file(const char *name, const buf *file, pl_engine engine, const pl_stream_config *sc,
                    run_result *r)
{
    memset(r, 0, sizeof *r);
    pl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = engine;
    cfg.cpu_threads = 2;
    cfg.contexts_per_gpu = 2;
    pl_pipeline *p = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_create(&p, &cfg, &err) != XSF_OK) {
        CHECK(0, "%s: pl_create: %s", name, err.msg);
        return -1;
    }
    int sid = -1;
    CHECK(pl_stream_add(p, sc, &sid, &err) == XSF_OK, "%s: stream: %s", name, err.msg);
    CHECK(pl_stream_codec(p, sid) == NULL, "%s: no codec before the first frame", name);
    CHECK(pl_jxs_source_run(p, sid, file->data, file->len, 0, 0, &r->frames, &err) == XSF_OK,
          "%s: source: %s", name, err.msg);
    pl_stream_finish(p, sid);
    pl_stream_stats_get(p, sid, &r->ss);
    r->codec = pl_stream_codec(p, sid);
    pl_stream_remove(p, sid, NULL);
    pl_destroy(p);
    return 0;
}

/* The file through the pipeline on `engine`, pictures where `where` says. */
static void through_pipeline(const char *name, const buf *file, const buf *ref, unsigned ref_frames,
                             unsigned rgb_expected, pl_engine engine, pl_placement where)
{
    collect c;
    memset(&c, 0, sizeof c);
    pl_stream_config sc = {.name = name, .backpressure = PL_BLOCK};
    sc.sink = (pl_sink){.deliver = collect_deliver, .ctx = &c, .placement = where};
    run_result r;
    if (run_file(name, file, engine, &sc, &r))
        return;
    CHECK(r.codec == xsf_codec_find("bpc-paco"), "%s: the stream took BPC-PaCo", name);
    CHECK(r.frames == ref_frames && c.frames == ref_frames, "%s: %u of %u frames (%llu read)", name,
          c.frames, ref_frames, (unsigned long long)r.frames);
    CHECK(r.ss.dropped_total == 0, "%s: %llu dropped (%s)", name,
          (unsigned long long)r.ss.dropped_total, r.ss.last_error);
    CHECK(c.not_bpc == 0, "%s: %u frames not described as BPC-PaCo", name, c.not_bpc);
    CHECK(c.rgb_frames == rgb_expected, "%s: %u frames said RGB, expected %u", name, c.rgb_frames,
          rgb_expected);
    CHECK(c.device_frames == ((where & PL_PICTURE_DEVICE) ? c.frames : 0),
          "%s: %u frames with device pictures", name, c.device_frames);
    CHECK(c.yuv.len == ref->len && !memcmp(c.yuv.data, ref->data, ref->len),
          "%s: the pipeline's pictures differ from the C decoder's (%zu bytes, %zu expected)", name,
          c.yuv.len, ref->len);
    free(c.yuv.data);
}

/* The C decoder's pictures of `file` in pixel format `to`, raw (the planes' rows, as
 * xsf_picture_convert writes them), with the colour the codestream says. */
static void reference_fmt(const buf *file, xsf_container to, buf *raw)
{
    const xsf_codec *bpc = xsf_codec_find("bpc-paco");
    bpc_decoder *dec = NULL;
    CHECK(bpc_decoder_create(&dec, NULL) == XSF_OK, "decoder");
    size_t off = 0;
    while (dec && off < file->len) {
        size_t used = 0;
        const xsf_picture *img;
        xsf_codec_frame d;
        xsf_error err;
        xsf_error_clear(&err);
        if (bpc->parse_header(file->data + off, file->len - off, &d, &err) != XSF_OK ||
            bpc_decode(dec, file->data + off, file->len - off, &used, &img) != XSF_OK || !used) {
            CHECK(0, "C decoder: %s %s", err.msg, bpc_decoder_error(dec));
            break;
        }
        xsf_picture src = *img, out;
        src.colour = d.colour;
        xsf_picture_init(&out);
        CHECK(xsf_format_convert(&img->fmt, &d.colour, to, &out.fmt, &err) == XSF_OK &&
                  xsf_picture_alloc(&out, NULL, &err) == XSF_OK &&
                  xsf_picture_convert(&out, &src, &err) == XSF_OK,
              "converting the reference: %s", err.msg);
        for (int c = 0; out.data[0] && c < xsf_format_planes(&out.fmt); c++)
            for (int y = 0; y < xsf_format_plane_rows(&out.fmt, c); y++)
                buf_sink(raw, out.data[c] + (size_t)y * out.stride[c],
                         xsf_format_row_bytes(&out.fmt, c));
        xsf_picture_unref(&out);
        off += used;
    }
    bpc_decoder_destroy(dec);
}

static void raw_deliver(void *ctx, pl_frame *f)
{
    collect *c = ctx;
    const xsf_picture *pic = &f->picture[0];
    for (int p = 0; pic->data[0] && p < xsf_format_planes(&pic->fmt); p++)
        for (int y = 0; y < xsf_format_plane_rows(&pic->fmt, p); y++)
            buf_sink(&c->yuv, pic->data[p] + (size_t)y * pic->stride[p],
                     xsf_format_row_bytes(&pic->fmt, p));
    c->frames += pic->data[0] && pic->fmt.container != XSF_PLANAR_U16;
    pl_frame_release(f);
}

/* The file through the pipeline with a picture request in pixel format `to`: on the CPU
 * the pictures are the C decoder's converted (xsf_codec_copy_picture); BPC-PaCo's GPU
 * decoder writes planar16 only, so there each frame is refused and says why. */
static void through_pipeline_fmt(const char *name, const buf *file, unsigned ref_frames,
                                 xsf_container to, pl_engine engine)
{
    collect c;
    memset(&c, 0, sizeof c);
    pl_stream_config sc = {.name = name, .backpressure = PL_BLOCK, .pix_fmt = to};
    sc.sink = (pl_sink){.deliver = raw_deliver, .ctx = &c, .placement = PL_PICTURE_HOST};
    run_result r;
    if (run_file(name, file, engine, &sc, &r))
        return;
    const pl_stream_stats *ss = &r.ss;
    if (engine == PL_ENGINE_GPU) {
        CHECK(c.frames == 0 && ss->dropped_total == ref_frames &&
                  strstr(ss->last_error, "planar16 pictures only"),
              "%s: %u frames in %s, %llu dropped (%s)", name, c.frames, xsf_container_name(to),
              (unsigned long long)ss->dropped_total, ss->last_error);
    } else {
        buf ref = {0};
        reference_fmt(file, to, &ref);
        CHECK(c.frames == ref_frames && ss->dropped_total == 0, "%s: %u of %u frames in %s (%s)",
              name, c.frames, ref_frames, xsf_container_name(to), ss->last_error);
        CHECK(ref.len && c.yuv.len == ref.len && !memcmp(c.yuv.data, ref.data, ref.len),
              "%s: %s pictures differ from the C decoder's converted (%zu bytes, %zu expected)",
              name, xsf_container_name(to), c.yuv.len, ref.len);
        free(ref.data);
    }
    free(c.yuv.data);
}

/* The file through `xsflow decode` on the engine. */
static void through_xsflow(const char *xsflow, const char *work, const char *name, const buf *file,
                           const buf *ref, const char *engine)
{
    char in[4096], out[4096], cmd[9000];
    snprintf(in, sizeof in, "%s/%s.bpc", work, name);
    snprintf(out, sizeof out, "%s/%s-%s.yuv", work, name, engine);
    FILE *f = fopen(in, "wb");
    CHECK(f && fwrite(file->data, 1, file->len, f) == file->len && !fclose(f), "writing %s", in);
    snprintf(cmd, sizeof cmd, "'%s' decode '%s' -o '%s' --%s -q", xsflow, in, out, engine);
    CHECK(system(cmd) == 0, "%s failed", cmd);
    uint8_t *got = NULL;
    size_t len = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_read_file(out, &got, &len, &err) == XSF_OK, "%s: %s", out, err.msg);
    CHECK(got && len == ref->len && !memcmp(got, ref->data, len),
          "xsflow decode %s --%s: differs from the C decoder (%zu bytes, %zu expected)", name,
          engine, len, ref->len);
    free(got);
}

static void registry_checks(const buf *file)
{
    const xsf_codec *bpc = xsf_codec_find("bpc-paco"), *xs = xsf_codec_find("jpeg-xs");
    CHECK(bpc && xs && bpc != xs, "both codecs registered");
    CHECK(xsf_codec_find("bpc") == bpc && xsf_codec_find("xs") == xs && xsf_codec_find("jxs") == xs,
          "aliases and extensions");
    CHECK(xsf_codec_find("h264") == NULL && xsf_codec_find(NULL) == NULL, "unknown names");
    CHECK(xsf_codec_probe(file->data, file->len) == bpc, "a BPC-PaCo file probes as BPC-PaCo");
    const uint8_t soc_cap[4] = {0xff, 0x10, 0xff, 0x50}, junk[4] = {1, 2, 3, 4};
    CHECK(xsf_codec_probe(soc_cap, 4) == xs, "SOC, CAP probes as JPEG XS");
    CHECK(xsf_codec_probe(junk, 4) == NULL, "junk probes as nothing");
    unsigned it = 0, n = 0;
    for (const xsf_codec *c; (c = xsf_codec_iterate(&it)) != NULL; n++)
        CHECK(xsf_codec_index(c) == (int)n && c->parse_header && c->codestream_size &&
                  c->cpu_decode,
              "codec %u (%s) is whole", n, c->name);
    CHECK(n == 2, "two codecs, %u listed", n);
    xsf_codec_frame d;
    xsf_error err;
    xsf_error_clear(&err);
    size_t bytes = 0;
    CHECK(bpc->parse_header(file->data, file->len, &d, &err) == XSF_OK, "parse: %s", err.msg);
    CHECK(d.codec == bpc && d.format.nc == 3 && d.format.width[0] == 200 &&
              d.format.height[0] == 120 && d.format.depth[0] == 8 &&
              d.colour.matrix == XSF_MATRIX_IDENTITY && d.colour.source == XSF_COLOUR_CODESTREAM,
          "the first frame's description");
    CHECK(bpc->codestream_size(file->data, file->len, &bytes, &err) == XSF_OK &&
              bytes == d.codestream_bytes && bytes > 0 && bytes < file->len,
          "codestream size %zu, header says %zu", bytes, d.codestream_bytes);
    CHECK(bpc->parse_header(file->data, 6, &d, &err) != XSF_OK, "a cut header is refused");
    void *params = NULL;
    xsf_error_clear(&err);
    CHECK(bpc->params_set(&params, "colour", junk, 4, &err) == XSF_ERR_ARG && params == NULL,
          "an unknown setting is refused");
    xsf_error_clear(&err);
    CHECK(bpc->params_set(&params, "tables", junk, 4, &err) != XSF_OK && params == NULL,
          "bad tables refused");
    CHECK(xs->params_set == NULL, "JPEG XS takes no settings");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_bpc_decode XSFLOW WORKDIR cpu|gpu\n");
        return 2;
    }
    const int gpu = !strcmp(argv[3], "gpu");
    if (gpu && bpc_gpu_available() != XSF_OK) {
        printf("no usable GPU: skipped\n");
        return XSF_TEST_SKIP;
    }
    /* File A: 4:4:4 8-bit frames, lossless 5/3 with the RCT, 9/7 at 2 bpp, three passes
     * at 1 bpp without a colour transform. File B: 4:2:2 10-bit, 5/3 at 3 bpp. */
    buf a = {0}, b = {0};
    uint16_t *planes[3];
    xsf_picture img;
    bpc_params p;
    make_picture(&img, planes, 200, 120, 1, 8, 1);
    bpc_params_default(&p);
    encode_into(&a, &img, &p);
    bpc_params_default(&p);
    p.filter = BPC_FILTER_97;
    bpc_params_set_bpp(&p, 2.0, 200, 120);
    encode_into(&a, &img, &p);
    bpc_params_default(&p);
    p.variant = BPC_VARIANT_3PASS;
    p.colour = BPC_COLOUR_NONE;
    bpc_params_set_bpp(&p, 1.0, 200, 120);
    encode_into(&a, &img, &p);
    for (int c = 0; c < 3; c++)
        free(planes[c]);
    make_picture(&img, planes, 160, 96, 2, 10, 7);
    for (int k = 0; k < 2; k++) {
        bpc_params_default(&p);
        bpc_params_set_bpp(&p, 3.0, 160, 96);
        encode_into(&b, &img, &p);
    }
    for (int c = 0; c < 3; c++)
        free(planes[c]);

    registry_checks(&a);
    buf ref_a = {0}, ref_b = {0};
    unsigned na = 0, nb = 0;
    reference(&a, &ref_a, &na);
    reference(&b, &ref_b, &nb);
    CHECK(na == 3 && nb == 2, "reference frames %u, %u", na, nb);
    const pl_engine engine = gpu ? PL_ENGINE_GPU : PL_ENGINE_CPU;
    through_pipeline("a", &a, &ref_a, na, 2, engine, PL_PICTURE_HOST);
    through_pipeline("b", &b, &ref_b, nb, 0, engine, PL_PICTURE_HOST);
    /* Output pixel formats: 4:2:2 10-bit as v210 and i420, 4:4:4 RGB as rgba. */
    through_pipeline_fmt("b-v210", &b, nb, XSF_V210, engine);
    through_pipeline_fmt("b-i420", &b, nb, XSF_I420, engine);
    through_pipeline_fmt("a-rgba", &a, na, XSF_RGBA8, engine);
    if (gpu) /* the device picture a copy of the decoder's, the host one downloaded from it */
        through_pipeline("a-both", &a, &ref_a, na, 2, engine, PL_PICTURE_BOTH);
    if (strcmp(argv[1], "-")) {
        through_xsflow(argv[1], argv[2], "a", &a, &ref_a, argv[3]);
        through_xsflow(argv[1], argv[2], "b", &b, &ref_b, argv[3]);
    }
    free(a.data);
    free(b.data);
    free(ref_a.data);
    free(ref_b.data);
    return xsf_test_finish();
}
