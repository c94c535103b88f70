/* The .jxs player source (service.h): every codestream of a vector taken in
 * order on the C decoder, as the C decoder decodes it, with its size; the
 * end; a start again after a rewind; RGB colour for a codestream with the
 * reversible colour transform; refusals (bad data, the GPU engine where no
 * GPU or interop is usable); svc_play's headless picture and its refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rtp/rtp_test_util.h"
#include "service.h"
#include "test.h"

static void test_sequence(const uint8_t *data, size_t len)
{
    svc_jxs_source *s = NULL;
    xsf_error err = {0};
    CHECK(svc_jxs_source_open(&s, data, len, JXS_ENGINE_CPU, &err) == XSF_OK, "open: %s", err.msg);
    if (!s)
        return;
    CHECK(!strcmp(svc_jxs_source_decoder(s), "CPU"), "decoder %s", svc_jxs_source_decoder(s));
    xs_decoder *ref = NULL;
    CHECK(xs_decoder_create(&ref, NULL) == XSF_OK, "reference decoder");
    size_t off = 0;
    int pictures = 0;
    while (!svc_jxs_source_done(s) && pictures < 10) {
        xsf_picture pic;
        size_t bytes = 0;
        if (svc_jxs_source_next(s, &pic, &bytes, &err) != XSF_OK) {
            CHECK(0, "picture %d: %s", pictures, err.msg);
            break;
        }
        const xsf_picture *img;
        size_t used = 0;
        CHECK(xs_decode(ref, data + off, len - off, &used, &img) == XSF_OK && used == bytes,
              "picture %d: %zu bytes", pictures, bytes);
        int same = pic.fmt.nc == (img->fmt.nc > 3 ? 3 : img->fmt.nc) &&
                   pic.memory != XSF_MEMORY_DEVICE && pic.fmt.depth[0] == img->fmt.depth[0];
        for (int c = 0; same && c < pic.fmt.nc; c++)
            for (int y = 0; same && y < pic.fmt.height[c]; y++)
                same = pic.fmt.width[c] == img->fmt.width[c] &&
                       !memcmp(xsf_picture_row16(&pic, c, y), xsf_picture_row16(img, c, y),
                               (size_t)img->fmt.width[c] * 2);
        CHECK(same, "picture %d equals the C decoder's", pictures);
        off += used;
        pictures++;
    }
    CHECK(pictures == 5 && off == len && svc_jxs_source_frames(s) == 5, "%d pictures", pictures);
    const dsp_player_source p = svc_jxs_source_player(s);
    p.rewind(p.ctx);
    CHECK(!p.done(p.ctx) && svc_jxs_source_frames(s) == 0, "rewound");
    xsf_picture pic;
    size_t bytes;
    CHECK(p.next(p.ctx, &pic, &bytes, &err) == XSF_OK && svc_jxs_source_frames(s) == 1,
          "the first again");
    CHECK(pic.colour.source == XSF_COLOUR_DEFAULT, "a YCbCr codestream says nothing of its colour");
    xs_decoder_destroy(ref);
    svc_jxs_source_close(s);
}

/* A 64x32 RGB codestream with the reversible colour transform (Cpih 1). */
static uint8_t *rct_codestream(size_t *len)
{
    static uint16_t planes[3][64 * 32];
    xsf_picture img;
    xsf_picture_init(&img);
    img.fmt.nc = 3;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 64 * 32; i++)
            planes[c][i] = (uint16_t)((i * (c + 3)) & 255);
        img.data[c] = (uint8_t *)planes[c];
        img.fmt.width[c] = 64;
        img.fmt.height[c] = 32;
        img.fmt.depth[c] = 8;
        img.stride[c] = 64 * sizeof(uint16_t);
    }
    xs_encoder_config c;
    xs_encoder_config_init(&c);
    c.width = 64;
    c.height = 32;
    c.nc = 3;
    for (int k = 0; k < 3; k++) {
        c.depth[k] = 8;
        c.sx[k] = c.sy[k] = 1;
    }
    c.cpih = 1;
    c.bpp = 8;
    xs_encoder *enc = NULL;
    xsf_error err = {0};
    uint8_t *cs = NULL;
    if (xs_encoder_create(&enc, &c, &err) == XSF_OK && (cs = malloc(xs_encoder_max_bytes(enc))) &&
        xs_encode(enc, &img, cs, xs_encoder_max_bytes(enc), len) != XSF_OK) {
        free(cs);
        cs = NULL;
    }
    xs_encoder_destroy(enc);
    return cs;
}

static void test_rgb(void)
{
    size_t len = 0;
    uint8_t *data = rct_codestream(&len);
    CHECK(data, "an RCT codestream");
    if (!data)
        return;
    svc_jxs_source *s = NULL;
    xsf_error err = {0};
    xsf_picture pic;
    size_t bytes;
    CHECK(svc_jxs_source_open(&s, data, len, JXS_ENGINE_CPU, &err) == XSF_OK &&
              svc_jxs_source_next(s, &pic, &bytes, &err) == XSF_OK,
          "RCT codestream: %s", err.msg);
    if (s)
        CHECK(pic.colour.source == XSF_COLOUR_CODESTREAM && bytes == len && svc_jxs_source_done(s),
              "RGB from the codestream's colour transform");
    svc_jxs_source_close(s);
    free(data);
}

static void test_refusals(const uint8_t *data, size_t len)
{
    svc_jxs_source *s = NULL;
    xsf_error err = {0};
    static const uint8_t junk[64] = {0xff, 0x10, 1, 2, 3};
    xsf_picture pic;
    size_t bytes;
    if (svc_jxs_source_open(&s, junk, sizeof junk, JXS_ENGINE_CPU, &err) == XSF_OK) {
        CHECK(svc_jxs_source_next(s, &pic, &bytes, &err) != XSF_OK && err.msg[0], "junk refused");
        svc_jxs_source_close(s);
    }
    if (!dsp_have_interop()) {
        xsf_error_clear(&err);
        CHECK(svc_jxs_source_open(&s, data, len, JXS_ENGINE_GPU, &err) == XSF_ERR_UNSUPPORTED &&
                  !s && strstr(err.msg, "interop"),
              "the GPU engine without interop: %s", err.msg);
    } else if (xs_gpu_available() != XSF_OK) {
        xsf_error_clear(&err);
        CHECK(svc_jxs_source_open(&s, data, len, JXS_ENGINE_GPU, &err) != XSF_OK && !s &&
                  strstr(err.msg, "no usable GPU"),
              "the GPU engine without a GPU: %s", err.msg);
    }
}

/* svc_play without a window: picture 3 of the sequence rendered into a
 * .ppm (where this build renders offscreen), a picture past the last and a
 * .ppm that cannot be made refused, naming what they are about. */
static void test_headless(const uint8_t *data, size_t len, const char *path)
{
    svc_play_options o;
    svc_play_options_init(&o);
    CHECK(o.play.fps == 25 && o.play.vsync && o.engine == JXS_ENGINE_AUTO && !o.headless_ppm,
          "defaults");
    o.engine = JXS_ENGINE_CPU;
    o.play.name = "seq";
    o.headless_ppm = "test_play_3.ppm";
    o.frame = 5;
    svc_play_result r;
    svc_failure f;
    CHECK(svc_play(data, len, &o, &r, &f) == XSF_ERR_ARG && !strcmp(f.subject, "seq") &&
              !strcmp(f.err.msg, "has 5 frames; --frame 5 does not exist"),
          "a picture past the last: %s", f.err.msg);
    /* From the file: the same, where this build has a display. */
    const xsf_status fst = svc_play_file(path, &o, &r, &f);
    CHECK(dsp_have_gl() ? fst == XSF_ERR_ARG && !strcmp(f.subject, "seq")
                        : fst == XSF_ERR_UNSUPPORTED && !strcmp(f.subject, "play"),
          "svc_play_file: %s: %s", f.subject, f.err.msg);
    CHECK(!dsp_have_gl() || (svc_play_file("no-such.jxs", &o, &r, &f) == XSF_ERR_IO &&
                             !strcmp(f.subject, "no-such.jxs")),
          "a missing file: %s", f.err.msg);
    o.frame = 3;
    const xsf_status st = svc_play(data, len, &o, &r, &f);
    if (st != XSF_OK && !dsp_have_gl()) {
        CHECK(!strcmp(f.subject, "seq"), "no offscreen rendering in this build: %s", f.err.msg);
        return;
    }
    if (st != XSF_OK && (st == XSF_ERR_IO || st == XSF_ERR_UNSUPPORTED)) {
        printf("test_play: no offscreen rendering here (%s): headless picture not checked\n",
               f.err.msg);
        return;
    }
    CHECK(st == XSF_OK && r.format.width[0] == 320 && r.format.height[0] == 180 &&
              r.format.depth[0] == 10 && r.chroma == DSP_CHROMA_422 && !r.device &&
              !r.window.opened,
          "picture 3 rendered: %s", f.err.msg);
    size_t n = 0;
    uint8_t *ppm = tu_read_file("test_play_3.ppm", &n);
    CHECK(ppm && n == 15 + 320 * 180 * 3 && !memcmp(ppm, "P6\n320 180\n255\n", 15),
          "the .ppm written (%zu bytes)", n);
    free(ppm);
    o.headless_ppm = "no/such/dir/p.ppm";
    CHECK(svc_play(data, len, &o, &r, &f) != XSF_OK && !strcmp(f.subject, o.headless_ppm),
          "a .ppm that cannot be made: %s", f.err.msg);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_play VECTOR_DIR\n");
        return 2;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/seq_5f_422_10b.jxs", argv[1]);
    size_t len = 0;
    uint8_t *data = tu_read_file(path, &len);
    CHECK(data && len, "cannot read %s", path);
    if (data) {
        test_sequence(data, len);
        test_refusals(data, len);
        test_headless(data, len, path);
    }
    test_rgb();
    free(data);
    return xsf_test_finish();
}
