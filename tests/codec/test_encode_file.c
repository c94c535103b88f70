/* A picture file through a codec's encoder (imgio/include/encode_file.h) and the
 * helpers around it: imgio_encode_file codes every frame of a .yuv file
 * (4:4:4:4 and 4:4:4 layouts) with JPEG XS and BPC-PaCo, and the frames
 * decode back exactly (lossless); it stops at max_frames, and says which
 * file a failure is about and whether the encoder refused; the first frame
 * of a file (imgio_read_picture) and of a codestream buffer
 * (xsf_codec_decode_picture) come back as pictures of their own; every
 * picture of a picture file or of a file of codestreams comes from one
 * source (picture_source.h), in order, with its number, the codec's
 * errors prefixed by the frame's; a codec's parameters read from a file
 * (imgio_codec_params_read) and its refusals.
 *   test_encode_file WORKDIR */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode_file.h"
#include "picture_source.h"
#include "test.h"
#include "xsf_codecs.h"

enum { W = 64, H = 32, FRAMES = 3 };

static char dir[512];

/* A file of the work folder (the result lasts four calls). */
static const char *path_of(const char *name)
{
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static uint16_t sample(int frame, int c, int x, int y, int depth)
{
    return (uint16_t)((x * 13 + y * 7 + c * 101 + frame * 37 + (x * y) % 11) & ((1 << depth) - 1));
}

/* A .yuv file of FRAMES frames of nc full-size components. */
static void write_yuv(const char *path, int nc, int depth)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        exit(1);
    for (int n = 0; n < FRAMES; n++)
        for (int c = 0; c < nc; c++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    const uint16_t v = sample(n, c, x, y, depth);
                    if (depth > 8)
                        fputc(v & 0xff, f), fputc(v >> 8, f);
                    else
                        fputc(v, f);
                }
    fclose(f);
}

static int picture_is_frame(const xsf_picture *p, int frame, int nc, int depth)
{
    if (p->fmt.nc != nc)
        return 0;
    for (int c = 0; c < nc; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (p->fmt.width[c] != W || p->fmt.height[c] != H ||
                    xsf_picture_row16(p, c, y)[x] != sample(frame, c, x, y, depth))
                    return 0;
    return 1;
}

/* Every codestream of the file decodes to its frame. */
static void check_file(const xsf_codec *codec, const char *path, int frames, int nc, int depth)
{
    uint8_t *data = NULL;
    size_t len = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_read_file(path, &data, &len, &err) == XSF_OK, "%s: %s", path, err.msg);
    size_t off = 0;
    int n = 0;
    while (data && off < len) {
        size_t bytes = 0;
        xsf_picture pic;
        xsf_error_clear(&err);
        CHECK(xsf_codec_probe(data + off, len - off) == codec, "%s frame %d is %s's", path, n,
              codec->name);
        if (codec->codestream_size(data + off, len - off, &bytes, &err) != XSF_OK || !bytes) {
            CHECK(0, "%s frame %d: %s", path, n, err.msg);
            break;
        }
        CHECK(xsf_codec_decode_picture(data + off, bytes, &pic, &err) == XSF_OK &&
                  picture_is_frame(&pic, n, nc, depth),
              "%s frame %d decodes to its picture (%s)", path, n, err.msg);
        xsf_picture_unref(&pic);
        off += bytes;
        n++;
    }
    CHECK(n == frames, "%s: %d codestreams, expected %d", path, n, frames);
    free(data);
}

/* Every picture of `path` through imgio_source, each its frame; `frames` of
 * them; rgb: decoded through a colour transform (R'G'B'). */
static void check_source(const char *path, const imgio_raw_layout *raw, int frames, int nc,
                         int depth, int rgb)
{
    imgio_source *src = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_source_open(&src, path, raw, &err) == XSF_OK, "%s: open: %s", path, err.msg);
    int n = 0;
    for (const xsf_picture *pic; src; n++) {
        if (imgio_source_next(src, &pic, &err) != XSF_OK) {
            CHECK(0, "%s picture %d: %s", path, n, err.msg);
            break;
        }
        if (!pic)
            break;
        CHECK(picture_is_frame(pic, n, nc, depth) && pic->props.index == (uint64_t)n,
              "%s picture %d is its frame", path, n);
        CHECK(imgio_source_rgb(src) == rgb, "%s: R'G'B' %d", path, rgb);
    }
    CHECK(n == frames, "%s: %d pictures, expected %d", path, n, frames);
    imgio_source_close(src);
}

/* The kinds of path, a .ppm's R'G'B', refusals, and a codestream that does not decode. */
static void check_source_edges(const char *jxs_path)
{
    char jxs[600];
    snprintf(jxs, sizeof jxs, "%s", jxs_path);
    imgio_format fmt;
    CHECK(imgio_source_kind_of("a/b.Y4M", &fmt) == IMGIO_SOURCE_PICTURES && fmt == IMGIO_FORMAT_Y4M,
          "a .y4m file");
    CHECK(imgio_source_kind_of("x.JXS", &fmt) == IMGIO_SOURCE_CODESTREAMS &&
              imgio_source_kind_of("x.bpc", &fmt) == IMGIO_SOURCE_CODESTREAMS &&
              fmt == IMGIO_FORMAT_NONE,
          "files of codestreams");
    CHECK(imgio_source_kind_of("x.png", &fmt) == IMGIO_SOURCE_NONE &&
              imgio_source_kind_of("x.bpc/y", &fmt) == IMGIO_SOURCE_NONE &&
              imgio_source_kind_of("xs", &fmt) == IMGIO_SOURCE_NONE,
          "neither");
    imgio_source *src = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_source_open(&src, path_of("x.png"), NULL, &err) == XSF_ERR_UNSUPPORTED && !src,
          "a .png refused: %s", err.msg);
    const xsf_picture *pic = NULL;
    FILE *f = fopen(path_of("rgb.ppm"), "wb");
    if (f) {
        fputs("P6\n2 1\n255\n", f);
        fwrite("\x01\x02\x03\x04\x05\x06", 1, 6, f);
        fclose(f);
    }
    xsf_error_clear(&err);
    CHECK(imgio_source_open(&src, path_of("rgb.ppm"), NULL, &err) == XSF_OK &&
              imgio_source_next(src, &pic, &err) == XSF_OK && pic && pic->fmt.nc == 3 &&
              xsf_picture_row16(pic, 2, 0)[1] == 6 && imgio_source_rgb(src),
          "a .ppm: R'G'B' (%s)", err.msg);
    CHECK(src && imgio_source_next(src, &pic, &err) == XSF_OK && !pic, "one picture");
    imgio_source_close(src);
    /* The second codestream cut short: the first decodes, the second says which it is. */
    uint8_t *data = NULL;
    size_t len = 0, first = 0;
    CHECK(imgio_read_file(jxs, &data, &len, &err) == XSF_OK &&
              xsf_codec_find("xs")->codestream_size(data, len, &first, &err) == XSF_OK,
          "%s: %s", jxs, err.msg);
    f = data ? fopen(path_of("cut.jxs"), "wb") : NULL;
    if (f) {
        fwrite(data, 1, first + 40, f);
        fclose(f);
    }
    free(data);
    src = NULL;
    xsf_error_clear(&err);
    CHECK(imgio_source_open(&src, path_of("cut.jxs"), NULL, &err) == XSF_OK &&
              imgio_source_next(src, &pic, &err) == XSF_OK && pic &&
              imgio_source_next(src, &pic, &err) != XSF_OK && !pic &&
              !strncmp(err.msg, "frame 1: ", 9),
          "a codestream cut short: %s", err.msg);
    imgio_source_close(src);
}

static xsf_status encode(const char *codec, const char *in, const char *sampling, int depth,
                         const char *out, const char *knobs, long max_frames,
                         imgio_encode_report *rep, xsf_error *err)
{
    imgio_encode_job job;
    memset(&job, 0, sizeof job);
    job.in = in;
    job.out = out;
    job.format = imgio_format_from_path(in);
    job.codec = xsf_codec_find(codec);
    job.device = -1;
    job.max_frames = max_frames;
    xsf_encode_settings_init(&job.settings);
    job.settings.lossless = 1;
    job.settings.options = knobs;
    xsf_error_clear(err);
    if (job.format == IMGIO_FORMAT_YUV &&
        imgio_raw_layout_make(&job.raw, sampling, W, H, depth, err) != XSF_OK)
        return err->status;
    return imgio_encode_file(&job, rep, err);
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    char four[600], three[600];
    snprintf(four, sizeof four, "%s", path_of("four.yuv"));
    snprintf(three, sizeof three, "%s", path_of("three.yuv"));
    write_yuv(four, 4, 10);
    write_yuv(three, 3, 8);
    imgio_encode_report rep;
    xsf_error err;

    /* 4:4:4:4 10-bit with JPEG XS, 4:4:4 8-bit with BPC-PaCo: every frame, exact. */
    CHECK(encode("jpeg-xs", four, "4444", 10, path_of("four.jxs"), NULL, -1, &rep, &err) == XSF_OK,
          "JPEG XS of a 4:4:4:4 file: %s", err.msg);
    CHECK(rep.frames == FRAMES && rep.format.nc == 4 && rep.format.width[3] == W && rep.bytes > 0,
          "report: %lu frames, %d components", rep.frames, rep.format.nc);
    check_file(xsf_codec_find("xs"), path_of("four.jxs"), FRAMES, 4, 10);
    CHECK(encode("bpc-paco", three, "4:4:4", 8, path_of("three.bpc"), "passes=3", -1, &rep, &err) ==
              XSF_OK,
          "BPC-PaCo of a 4:4:4 file: %s", err.msg);
    check_file(xsf_codec_find("bpc"), path_of("three.bpc"), FRAMES, 3, 8);
    CHECK(encode("bpc-paco", three, "444", 8, path_of("one.bpc"), NULL, 1, &rep, &err) == XSF_OK &&
              rep.frames == 1,
          "max_frames 1: %lu frames", rep.frames);
    check_file(xsf_codec_find("bpc"), path_of("one.bpc"), 1, 3, 8);

    /* The same files as pictures, through one source. */
    imgio_raw_layout raw4;
    CHECK(imgio_raw_layout_make(&raw4, "4444", W, H, 10, &err) == XSF_OK, "4:4:4:4 layout");
    check_source(four, &raw4, FRAMES, 4, 10, 0);
    check_source(path_of("four.jxs"), NULL, FRAMES, 4, 10, 0);
    /* BPC-PaCo's default colour transform for three components of one size and depth. */
    check_source(path_of("three.bpc"), NULL, FRAMES, 3, 8, 1);
    check_source_edges(path_of("four.jxs"));

    /* A codec's parameters from a file: refused by a codec without them, a
     * missing file, bytes that are no table file. */
    void *params = NULL;
    xsf_error_clear(&err);
    CHECK(imgio_codec_params_read(xsf_codec_find("xs"), &params, "tables", four, &err) ==
                  XSF_ERR_ARG &&
              !params,
          "JPEG XS takes no parameters: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(imgio_codec_params_read(xsf_codec_find("bpc"), &params, "tables", path_of("none.bpct"),
                                  &err) == XSF_ERR_IO &&
              !strncmp(err.msg, "cannot open: ", 13) && !params,
          "a missing table file: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(imgio_codec_params_read(xsf_codec_find("bpc"), &params, "tables", four, &err) != XSF_OK &&
              err.msg[0] && !params,
          "not a table file: %s", err.msg);

    /* Failures name their file; refusals by the encoder say so. */
    CHECK(encode("jpeg-xs", path_of("missing.yuv"), "444", 8, path_of("x.jxs"), NULL, -1, &rep,
                 &err) != XSF_OK &&
              rep.failed && strstr(rep.failed, "missing.yuv") && !rep.refused,
          "a missing input: %s", err.msg);
    CHECK(encode("jpeg-xs", four, "4444", 10, path_of("x.jxs"), "passes=2", -1, &rep, &err) ==
                  XSF_ERR_ARG &&
              rep.refused && rep.failed && strstr(rep.failed, "four.yuv") &&
              strstr(err.msg, "passes"),
          "a knob the codec does not have: %s", err.msg);
    CHECK(encode("jpeg-xs", three, "444", 8, path_of("no/such/dir/x.jxs"), NULL, -1, &rep, &err) ==
                  XSF_ERR_IO &&
              rep.failed && strstr(rep.failed, "no/such/dir") && !rep.refused,
          "an output that cannot be made: %s", err.msg);
    FILE *f = fopen(path_of("empty.yuv"), "wb");
    if (f)
        fclose(f);
    CHECK(encode("jpeg-xs", path_of("empty.yuv"), "444", 8, path_of("x.jxs"), NULL, -1, &rep,
                 &err) == XSF_ERR_INVALID &&
              !strcmp(err.msg, "no frame to encode"),
          "an empty input: %s", err.msg);

    /* The first frame of a file, as a picture of its own. */
    imgio_raw_layout raw;
    xsf_picture pic;
    xsf_error_clear(&err);
    CHECK(imgio_raw_layout_make(&raw, "4:4:4:4", W, H, 10, &err) == XSF_OK && raw.nc == 4,
          "4:4:4:4 layout");
    CHECK(imgio_read_picture(four, IMGIO_FORMAT_YUV, &raw, &pic, &err) == XSF_OK &&
              picture_is_frame(&pic, 0, 4, 10),
          "imgio_read_picture: the first frame (%s)", err.msg);
    xsf_picture_unref(&pic);
    CHECK(imgio_read_picture(path_of("empty.yuv"), IMGIO_FORMAT_YUV, &raw, &pic, &err) ==
              XSF_ERR_INVALID,
          "imgio_read_picture of an empty file");
    CHECK(imgio_raw_layout_make(&raw, "400", W, H, 8, &err) == XSF_OK && raw.nc == 1, "400 layout");
    xsf_error_clear(&err);
    CHECK(imgio_raw_layout_make(&raw, "411", W, H, 8, &err) == XSF_ERR_ARG &&
              strstr(err.msg, "4444"),
          "411 refused: %s", err.msg);
    const uint8_t junk[16] = {1, 2, 3};
    xsf_error_clear(&err);
    CHECK(xsf_codec_decode_picture(junk, sizeof junk, &pic, &err) == XSF_ERR_UNSUPPORTED &&
              !pic.data[0],
          "bytes no codec claims: %s", err.msg);
    return xsf_test_finish();
}
