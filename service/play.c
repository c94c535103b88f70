/* The .jxs player source (service.h): the codestreams of a file decoded one
 * picture at a time, by the C decoder into host memory or by the GPU
 * decoder into device memory, as the display takes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "service.h"

struct svc_jxs_source {
    const uint8_t *data;
    size_t len, offset;
    unsigned long frame;
    jxs_file file;       /* the C decoder (host pictures) */
    xs_gpu_decoder *gpu; /* or the GPU decoder (device pictures) */
};

xsf_status svc_jxs_source_open(svc_jxs_source **out, const uint8_t *data, size_t len,
                               jxs_engine engine, xsf_error *err)
{
    *out = NULL;
    svc_jxs_source *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    s->data = data;
    s->len = len;
    xsf_status st;
    /* Device pictures need the interop; without it the C decoder's host
     * pictures are uploaded instead. */
    if (engine == JXS_ENGINE_AUTO)
        engine =
            xs_gpu_available() == XSF_OK && dsp_have_interop() ? JXS_ENGINE_GPU : JXS_ENGINE_CPU;
    if (engine == JXS_ENGINE_GPU) {
        if (!dsp_have_interop()) {
            st = xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                               "this build has no CUDA-GL interop (use --cpu)");
        } else if ((st = xs_gpu_decoder_create(&s->gpu, 0, NULL, NULL)) != XSF_OK) {
            xsf_error_set(err, st, "no usable GPU (use --cpu): %s", xsf_status_name(st));
            s->gpu = NULL;
        }
        if (st != XSF_OK) {
            free(s);
            return st;
        }
    } else if ((st = jxs_file_init(&s->file, data, len, JXS_ENGINE_CPU)) != XSF_OK) {
        xsf_error_set(err, st, "%s", jxs_file_error(&s->file));
        jxs_file_free(&s->file);
        free(s);
        return st;
    }
    *out = s;
    return XSF_OK;
}

void svc_jxs_source_close(svc_jxs_source *s)
{
    if (!s)
        return;
    xs_gpu_decoder_destroy(s->gpu);
    if (!s->gpu)
        jxs_file_free(&s->file);
    free(s);
}

int svc_jxs_source_done(const svc_jxs_source *s)
{
    return s->gpu ? s->offset >= s->len : jxs_file_done(&s->file);
}

unsigned long svc_jxs_source_frames(const svc_jxs_source *s)
{
    return s->frame;
}

const char *svc_jxs_source_decoder(const svc_jxs_source *s)
{
    return s->gpu ? "GPU" : "CPU";
}

static void source_rewind(svc_jxs_source *s)
{
    s->offset = 0;
    s->frame = 0;
    s->file.offset = 0;
    s->file.frame = 0;
}

xsf_status svc_jxs_source_next(svc_jxs_source *s, xsf_picture *pic, size_t *bytes, xsf_error *err)
{
    /* The decoders' pictures carry what the codestream says of its colour
     * (R'G'B' after a reversible colour transform). */
    if (s->gpu) {
        size_t consumed = 0;
        xsf_status st = xs_gpu_decode(s->gpu, s->data + s->offset, s->len - s->offset, &consumed);
        const xsf_picture *gi = st == XSF_OK ? xs_gpu_decoder_picture(s->gpu) : NULL;
        if (st != XSF_OK || !gi)
            return xsf_error_set(err, st != XSF_OK ? st : XSF_ERR_INVALID, "frame %lu: %s",
                                 s->frame, xs_gpu_decoder_error(s->gpu));
        *pic = *gi; /* ready on the decoder's stream, the default one */
        s->offset += consumed;
        *bytes = consumed;
    } else {
        const size_t before = s->file.offset;
        xsf_status st = jxs_file_decode(&s->file, pic, NULL);
        if (st != XSF_OK)
            return xsf_error_set(err, st, "%s", jxs_file_error(&s->file));
        *bytes = s->file.offset - before;
    }
    if (pic->fmt.nc > 3)
        pic->fmt.nc = 3;
    const int *depth = pic->fmt.depth;
    for (int c = 1; c < pic->fmt.nc; c++)
        if (depth[c] != depth[0])
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                 "components of %d and %d bits cannot be shown", depth[0],
                                 depth[c]);
    s->frame++;
    return XSF_OK;
}

static xsf_status player_next(void *ctx, xsf_picture *pic, size_t *bytes, xsf_error *err)
{
    return svc_jxs_source_next(ctx, pic, bytes, err);
}

static int player_done(void *ctx)
{
    return svc_jxs_source_done(ctx);
}

static void player_rewind(void *ctx)
{
    source_rewind(ctx);
}

dsp_player_source svc_jxs_source_player(svc_jxs_source *s)
{
    const dsp_player_source p = {.ctx = s,
                                 .next = player_next,
                                 .done = player_done,
                                 .rewind = player_rewind,
                                 .decoder = svc_jxs_source_decoder(s)};
    return p;
}

void svc_play_options_init(svc_play_options *o)
{
    memset(o, 0, sizeof *o);
    dsp_play_options_init(&o->play);
    o->engine = JXS_ENGINE_AUTO;
}

static xsf_status play_failed(svc_failure *f, const char *subject, xsf_status st)
{
    f->subject = subject;
    f->usage = 0;
    return st;
}

/* Picture o->frame rendered offscreen into o->headless_ppm. */
static xsf_status headless(svc_jxs_source *src, const svc_play_options *o, svc_play_result *r,
                           svc_failure *f)
{
    const char *name = o->play.name;
    xsf_picture pic;
    size_t bytes;
    xsf_status st;
    do {
        if (svc_jxs_source_done(src))
            return play_failed(f, name,
                               xsf_error_set(&f->err, XSF_ERR_ARG,
                                             "has %lu frames; --frame %lu does not exist",
                                             svc_jxs_source_frames(src), o->frame));
        if ((st = svc_jxs_source_next(src, &pic, &bytes, &f->err)) != XSF_OK)
            return play_failed(f, name, st);
    } while (svc_jxs_source_frames(src) <= o->frame);
    if (o->play.colour.source != XSF_COLOUR_DEFAULT)
        pic.colour = o->play.colour;
    uint8_t *rgb;
    int w, h;
    if ((st = dsp_render_rgb(&pic, o->play.convert, &rgb, &w, &h, &f->err)) != XSF_OK)
        return play_failed(f, name, st);
    st = dsp_write_ppm(o->headless_ppm, rgb, w, h, &f->err);
    free(rgb);
    if (st != XSF_OK)
        return play_failed(f, o->headless_ppm, st);
    r->format = pic.fmt;
    r->chroma = dsp_picture_chroma(&pic, NULL);
    r->colour = pic.colour;
    r->device = pic.memory == XSF_MEMORY_DEVICE;
    return XSF_OK;
}

xsf_status svc_play(const uint8_t *data, size_t len, const svc_play_options *o, svc_play_result *r,
                    svc_failure *f)
{
    memset(r, 0, sizeof *r);
    memset(f, 0, sizeof *f);
    svc_jxs_source *src;
    xsf_status st = svc_jxs_source_open(&src, data, len, o->engine, &f->err);
    if (st != XSF_OK)
        return play_failed(f, o->play.name, st);
    if (o->headless_ppm) {
        st = headless(src, o, r, f);
    } else {
        const dsp_player_source ps = svc_jxs_source_player(src);
        if ((st = dsp_play(&ps, &o->play, &r->window, &f->err)) != XSF_OK)
            play_failed(f, o->play.name, st);
    }
    svc_jxs_source_close(src);
    return st;
}

xsf_status svc_play_file(const char *path, const svc_play_options *o, svc_play_result *r,
                         svc_failure *f)
{
    memset(r, 0, sizeof *r);
    memset(f, 0, sizeof *f);
    if (!dsp_have_gl())
        return play_failed(f, "play",
                           xsf_error_set(&f->err, XSF_ERR_UNSUPPORTED,
                                         "this build has no display (install libepoxy-dev, "
                                         "libegl-dev and libglfw3-dev, then configure again)"));
    imgio_mapped m;
    xsf_status st = imgio_map_file(path, &m, &f->err);
    if (st != XSF_OK)
        return play_failed(f, path, st);
    st = svc_play(m.data, m.len, o, r, f);
    imgio_unmap_file(&m);
    return st;
}
