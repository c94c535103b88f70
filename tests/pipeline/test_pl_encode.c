/* Live encoding (pipeline/include/pl_encode.h): the feed's codestreams are
 * imgio_encode_file's of the same file and settings, in order; the coder
 * runs at most one frame ahead of the one handed out, the reader at most one
 * ahead of the coder; with the reader ahead, each codestream is its frame's
 * coded alone (10-bit .y4m, 8-bit .y4m and .yuv); max_frames; a file cut
 * inside a frame fails after the frames before it; the errors of open; the
 * request a command line makes (pl_encode_request, its knobs). With
 * `gpu`, the GPU encoder's feed against the C encoder's file (skipped, 77,
 * without a usable GPU).
 *   test_pl_encode VECTOR_DIR WORKDIR [cpu|gpu] */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "encode_file.h"
#include "picture_source.h"
#include "pl_encode.h"
#include "test.h"
#include "xsf_codecs.h"

static char y4m[1024], ref[1024];

static void pause_ms(long ms)
{
    const struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static uint8_t *read_all(const char *path, size_t *len)
{
    uint8_t *data = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    *len = 0;
    return imgio_read_file(path, &data, len, &err) == XSF_OK ? data : NULL;
}

/* The vector's pictures as a .y4m file, and their codestreams by imgio_encode_file (C). */
static int make_inputs(const char *vectors, const char *dir)
{
    char jxs[1024];
    snprintf(jxs, sizeof jxs, "%s/seq_5f_422_10b.jxs", vectors);
    snprintf(y4m, sizeof y4m, "%s/in.y4m", dir);
    snprintf(ref, sizeof ref, "%s/ref.jxs", dir);
    xsf_error err;
    xsf_error_clear(&err);
    imgio_source *src = NULL;
    imgio_writer *w = NULL;
    const imgio_write_options wo = {.format = IMGIO_FORMAT_Y4M};
    xsf_status st = imgio_source_open(&src, jxs, NULL, &err);
    if (st == XSF_OK)
        st = imgio_writer_open(&w, y4m, &wo, &err);
    for (const xsf_picture *pic; st == XSF_OK;) {
        if ((st = imgio_source_next(src, &pic, &err)) != XSF_OK || !pic)
            break;
        st = imgio_write(w, pic, &err);
    }
    if (w && imgio_writer_close(w, &err) != XSF_OK)
        st = XSF_ERR_IO;
    imgio_source_close(src);
    CHECK(st == XSF_OK, "the .y4m input: %s", err.msg);
    imgio_encode_job job;
    memset(&job, 0, sizeof job);
    job.in = y4m;
    job.out = ref;
    job.format = IMGIO_FORMAT_Y4M;
    job.codec = xsf_codec_find("jpeg-xs");
    xsf_encode_settings_init(&job.settings);
    job.settings.bpp = 3;
    job.device = -1;
    job.max_frames = -1;
    imgio_encode_report rep;
    CHECK(st == XSF_OK && imgio_encode_file(&job, &rep, &err) == XSF_OK && rep.frames == 5,
          "the reference encode: %s", err.msg);
    return st == XSF_OK && rep.frames == 5;
}

static pl_encode_config config(const char *in, int device)
{
    pl_encode_config c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.format = IMGIO_FORMAT_Y4M;
    c.codec = xsf_codec_find("jpeg-xs");
    xsf_encode_settings_init(&c.settings);
    c.settings.bpp = 3;
    c.device = device;
    return c;
}

/* Every codestream, in order, equal to the file's; the thread a frame ahead at most. */
static void test_stream(int device)
{
    size_t ref_len = 0;
    uint8_t *want = read_all(ref, &ref_len);
    const pl_encode_config c = config(y4m, device);
    pl_encode_feed *f = NULL;
    int refused = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_encode_open(&f, &c, &refused, &err) == XSF_OK && f, "open: %s", err.msg);
    if (!f || !want) {
        free(want);
        return;
    }
    pl_encode_stats st;
    /* Nothing handed out: frame 0 and the one ahead, no more. */
    pause_ms(300);
    pl_encode_stats_get(f, &st);
    CHECK(st.frames == 2 && st.rate_bytes == ref_len / 5 && st.device == device,
          "after open: %llu coded (2 expected), rate %zu", (unsigned long long)st.frames,
          st.rate_bytes);
    /* The reader one frame ahead of the coder, which waits for a buffer: frame 2 read. */
    CHECK(st.read.count == 3, "after open: %llu frames read (3 expected)",
          (unsigned long long)st.read.count);
    size_t off = 0;
    for (unsigned n = 0;; n++) {
        rtp_source_frame fr;
        CHECK(pl_encode_next(f, &fr, &err) == XSF_OK, "next %u: %s", n, err.msg);
        if (!fr.cs) {
            CHECK(n == 5, "%u codestreams, 5 expected", n);
            break;
        }
        CHECK(fr.index == n && fr.left == RTP_FRAMES_LEFT_UNKNOWN && off + fr.len <= ref_len &&
                  !memcmp(fr.cs, want + off, fr.len),
              "codestream %u (%zu bytes) differs from imgio_encode_file's", n, fr.len);
        off += fr.len;
        if (n < 2) { /* holding frame n: n + 1 coded, not n + 2 */
            pause_ms(200);
            pl_encode_stats_get(f, &st);
            CHECK(st.frames == n + 2, "holding frame %u: %llu coded (%u expected)", n,
                  (unsigned long long)st.frames, n + 2);
            CHECK(st.read.count == n + 3, "holding frame %u: %llu read (%u expected)", n,
                  (unsigned long long)st.read.count, n + 3);
        }
    }
    CHECK(off == ref_len, "%zu of %zu bytes", off, ref_len);
    pl_encode_stats_get(f, &st);
    CHECK(st.frames == 5 && st.bytes == ref_len && st.encode.count == 5 &&
              st.encode.max_us >= st.encode.p99_us && st.encode.p99_us > 0 &&
              st.encode.mean_us > 0 && st.format.width[0] == 320,
          "stats: %llu frames, %llu bytes, mean %.1f p99 %.1f max %.1f us",
          (unsigned long long)st.frames, (unsigned long long)st.bytes, st.encode.mean_us,
          st.encode.p99_us, st.encode.max_us);
    char json[512];
    pl_encode_stats_json(f, json, sizeof json);
    CHECK(!strncmp(json,
                   device < 0 ? "\"encoder\": {\"engine\": \"cpu\", \"frames\": 5, "
                              : "\"encoder\": {\"engine\": \"gpu\", \"frames\": 5, ",
                   40) &&
              strstr(json, "\"encode_us\": {\"mean\": "),
          "json: %s", json);
    rtp_frame_source src;
    pl_encode_source(f, &src);
    CHECK(src.ctx == f && src.max_bytes == ref_len / 5 && src.next && src.stats_json,
          "the frame source");
    pl_encode_close(f);
    free(want);
}

/* Frame k of the feed's input coded alone: read by imgio_read, a fresh C encoder. */
static uint8_t *code_alone(const pl_encode_config *c, unsigned k, size_t *len)
{
    xsf_error err;
    xsf_error_clear(&err);
    imgio_reader *rd = NULL;
    const xsf_picture *pic = NULL;
    uint8_t *out = NULL;
    void *enc = NULL;
    const xsf_encoder_ops *ops = c->codec->encoder;
    xsf_status st = imgio_reader_open(&rd, c->in, c->format,
                                      c->format == IMGIO_FORMAT_YUV ? &c->raw : NULL, &err);
    for (unsigned n = 0; st == XSF_OK && n <= k; n++)
        st = imgio_read(rd, &pic, &err);
    if (st == XSF_OK && pic) {
        xsf_encode_settings s = c->settings;
        s.format = pic->fmt;
        st = ops->create(&enc, &s, -1, NULL, &err);
    }
    if (enc) {
        const size_t cap = ops->max_bytes(enc);
        if ((out = malloc(cap)) && ops->encode(enc, pic, out, cap, len, &err) != XSF_OK) {
            free(out);
            out = NULL;
        }
        ops->destroy(enc);
    }
    imgio_reader_close(rd);
    CHECK(out != NULL, "frame %u of %s alone: %s", k, c->in, err.msg);
    return out;
}

/* With the reader ahead (the caller slow to take each codestream), every codestream of the
 * feed is its frame's coded alone, byte for byte; every frame read once. */
static void test_alone(const pl_encode_config *c, unsigned frames)
{
    pl_encode_feed *f = NULL;
    int refused = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_encode_open(&f, c, &refused, &err) == XSF_OK && f, "open %s: %s", c->in, err.msg);
    unsigned n = 0;
    for (rtp_source_frame fr; f; n++) {
        pause_ms(40);
        CHECK(pl_encode_next(f, &fr, &err) == XSF_OK, "%s: next %u: %s", c->in, n, err.msg);
        if (!fr.cs)
            break;
        size_t len = 0;
        uint8_t *want = code_alone(c, n, &len);
        CHECK(want && fr.len == len && !memcmp(fr.cs, want, len),
              "%s: codestream %u (%zu bytes) differs from the frame's coded alone (%zu)", c->in, n,
              fr.len, len);
        free(want);
    }
    pl_encode_stats st;
    if (f)
        pl_encode_stats_get(f, &st);
    CHECK(f && n == frames && st.frames == frames && st.read.count == frames, "%s: %u frames",
          c->in, n);
    pl_encode_close(f);
}

/* 4 frames of 8-bit 4:2:0, 96x64, each of its own (gradients, noise): as a .y4m and a .yuv. */
static void make_8bit(const char *dir, char *y4m8, char *yuv8, size_t cap)
{
    snprintf(y4m8, cap, "%s/in8.y4m", dir);
    snprintf(yuv8, cap, "%s/in8.yuv", dir);
    FILE *a = fopen(y4m8, "wb"), *b = fopen(yuv8, "wb");
    CHECK(a && b, "writing %s, %s", y4m8, yuv8);
    if (!a || !b) {
        if (a)
            fclose(a);
        if (b)
            fclose(b);
        return;
    }
    fputs("YUV4MPEG2 W96 H64 F60:1 Ip A1:1 C420jpeg\n", a);
    uint32_t seed = 12345;
    uint8_t frame[96 * 64 * 3 / 2];
    for (unsigned k = 0; k < 4; k++) {
        for (size_t i = 0; i < sizeof frame; i++) {
            seed = seed * 1664525u + 1013904223u;
            frame[i] = (uint8_t)((i * (k + 1) + (seed >> 28)) & 255);
        }
        fputs("FRAME\n", a);
        fwrite(frame, 1, sizeof frame, a);
        fwrite(frame, 1, sizeof frame, b);
    }
    fclose(a);
    fclose(b);
}

/* max_frames, a file cut inside frame 3, and open's failures. */
static void test_limits(const char *dir)
{
    pl_encode_config c = config(y4m, -1);
    c.max_frames = 2;
    pl_encode_feed *f = NULL;
    int refused = 0;
    xsf_error err;
    xsf_error_clear(&err);
    rtp_source_frame fr;
    unsigned n = 0;
    CHECK(pl_encode_open(&f, &c, &refused, &err) == XSF_OK, "open: %s", err.msg);
    while (f && pl_encode_next(f, &fr, &err) == XSF_OK && fr.cs)
        n++;
    CHECK(n == 2, "max_frames 2: %u frames", n);
    pl_encode_close(f);

    /* Cut inside frame 3: frames 0..2, then the reader's error. */
    size_t len = 0;
    uint8_t *data = read_all(y4m, &len);
    char cut[1024];
    snprintf(cut, sizeof cut, "%s/cut.y4m", dir);
    FILE *o = fopen(cut, "wb");
    CHECK(data && o && fwrite(data, 1, len * 7 / 10, o) == len * 7 / 10, "writing %s", cut);
    if (o)
        fclose(o);
    free(data);
    c = config(cut, -1);
    CHECK(pl_encode_open(&f, &c, &refused, &err) == XSF_OK, "open cut: %s", err.msg);
    n = 0;
    xsf_status st = XSF_OK;
    while (f && (st = pl_encode_next(f, &fr, &err)) == XSF_OK && fr.cs)
        n++;
    CHECK(n == 3 && st != XSF_OK && err.msg[0], "cut file: %u frames, then '%s'", n, err.msg);
    pl_encode_close(f);

    /* Open: no file, not a .y4m, a rate the encoder refuses. */
    c = config("/no/such/file.y4m", -1);
    CHECK(pl_encode_open(&f, &c, &refused, &err) != XSF_OK && !f && !refused, "missing file");
    snprintf(cut, sizeof cut, "%s/junk.y4m", dir);
    o = fopen(cut, "wb");
    if (o) {
        fputs("junk\n", o);
        fclose(o);
    }
    c = config(cut, -1);
    CHECK(pl_encode_open(&f, &c, &refused, &err) != XSF_OK && !f && !refused, "junk: %s", err.msg);
    c = config(y4m, -1);
    c.settings.bpp = 0.001;
    CHECK(pl_encode_open(&f, &c, &refused, &err) != XSF_OK && !f && refused, "refused rate: %s",
          err.msg);
    pl_encode_close(NULL);
}

/* Live encoding as a command line asks for it: the request's defaults (the encoder's .yuv
 * picture), its knobs, the input's kind, the feed's configuration it gives. */
static void test_request(void)
{
    const xsf_codec *xs = xsf_codec_find("jpeg-xs");
    pl_encode_request r;
    pl_encode_request_init(&r, xs);
    CHECK(r.codec == xs && r.engine == -1 && r.depth == xs->encoder->yuv_depth &&
              !strcmp(r.sampling, xs->encoder->yuv_sampling) && !r.bpp && !r.frames_given,
          "the request's defaults");
    CHECK(pl_encode_request_format(&r, "a.y4m") == IMGIO_FORMAT_Y4M &&
              pl_encode_request_format(&r, "a.jxs") == IMGIO_FORMAT_NONE &&
              pl_encode_request_format(&r, "-") == IMGIO_FORMAT_NONE,
          "by the name; standard input without a rate: codestreams");
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(pl_encode_knobs, &r, "bpp=2.5 cpu frames=3 size=64x32 depth=8", "send",
                            &err) == XSF_OK,
          "knobs: %s", err.msg);
    CHECK(r.bpp == 2.5 && r.engine == 0 && r.frames == 3 && r.frames_given && r.size[0] == 64 &&
              r.size[1] == 32 && r.depth == 8,
          "each knob in its field");
    CHECK(pl_encode_request_format(&r, "-") == IMGIO_FORMAT_Y4M, "standard input with a rate: y4m");
    CHECK(xsf_options_apply(pl_encode_knobs, &r, "format=yuv gpu", "send", &err) == XSF_OK &&
              r.engine == 1 && pl_encode_request_format(&r, "-") == IMGIO_FORMAT_YUV,
          "--format yuv, --gpu");
    CHECK(xsf_options_apply(pl_encode_knobs, &r, "format=jxs", "send", &err) == XSF_OK &&
              pl_encode_request_format(&r, "-") == IMGIO_FORMAT_NONE,
          "--format jxs: codestreams");
    static const char *const refused[] = {"bpp=0",    "bpp=1025", "frames=0",
                                          "depth=17", "size=8",   "format=png"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK(xsf_options_apply(pl_encode_knobs, &r, refused[i], "send", &err) == XSF_ERR_ARG,
              "%s refused", refused[i]);
    CHECK(pl_encode_knobs[0].kind == XSF_OPTION_HEADING, "under a heading");

    pl_encode_config c;
    r.sampling = "420";
    CHECK(pl_encode_request_config(&r, "in.yuv", IMGIO_FORMAT_YUV, &c, &err) == XSF_OK &&
              !strcmp(c.in, "in.yuv") && c.format == IMGIO_FORMAT_YUV && c.codec == xs &&
              c.device == -1 && c.max_frames == 3 && c.settings.bpp == 2.5 && c.raw.width == 64 &&
              c.raw.height == 32 && c.raw.depth == 8 && c.raw.sy == 2,
          "the feed's configuration: %s", err.msg);
    r.frames_given = 0;
    CHECK(pl_encode_request_config(&r, "in.y4m", IMGIO_FORMAT_Y4M, &c, &err) == XSF_OK &&
              c.max_frames == 0 && !c.settings.options,
          "every frame without --frames; the codec's default tune");
    CHECK(xsf_options_apply(pl_encode_knobs, &r, "tune=visual", "send", &err) == XSF_OK &&
              r.tune == 1 &&
              pl_encode_request_config(&r, "in.y4m", IMGIO_FORMAT_Y4M, &c, &err) == XSF_OK &&
              c.settings.options && !strcmp(c.settings.options, "tune=visual") &&
              xs->encoder->check(&c.settings, &err) == XSF_OK,
          "--tune visual reaches the codec's knobs: %s", err.msg);
    CHECK(xsf_options_apply(pl_encode_knobs, &r, "tune=psnr", "send", &err) == XSF_OK &&
              r.tune == 0 &&
              xsf_options_apply(pl_encode_knobs, &r, "tune=ssim", "send", &err) == XSF_ERR_ARG,
          "--tune psnr; an unknown tune refused");
    r.sampling = "421";
    CHECK(pl_encode_request_config(&r, "in.yuv", IMGIO_FORMAT_YUV, &c, &err) == XSF_ERR_ARG,
          "a .yuv layout refused");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_pl_encode VECTOR_DIR WORKDIR [cpu|gpu]\n");
        return 2;
    }
    const int gpu = argc > 3 && !strcmp(argv[3], "gpu");
    mkdir(argv[2], 0777);
    test_request();
    if (gpu && xsf_codec_find("jpeg-xs")->encoder->gpu_available() != XSF_OK) {
        printf("no usable GPU: skipped\n");
        return 77;
    }
    if (make_inputs(argv[1], argv[2])) {
        test_stream(gpu ? 0 : -1);
        if (!gpu)
            test_limits(argv[2]);
        const pl_encode_config c = config(y4m, gpu ? 0 : -1);
        test_alone(&c, 5);
    }
    char y4m8[1024], yuv8[1024];
    make_8bit(argv[2], y4m8, yuv8, sizeof y4m8);
    pl_encode_config c8 = config(y4m8, gpu ? 0 : -1);
    test_alone(&c8, 4);
    c8 = config(yuv8, gpu ? 0 : -1);
    c8.format = IMGIO_FORMAT_YUV;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_raw_layout_make(&c8.raw, "420", 96, 64, 8, &err) == XSF_OK, "layout: %s", err.msg);
    test_alone(&c8, 4);
    return xsf_test_finish();
}
