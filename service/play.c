/* The .jxs player source (service.h): the codestreams of a file decoded one
 * picture at a time, by the C decoder into host memory or by the GPU
 * decoder into device memory, as the display takes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        } else if ((st = xs_gpu_decoder_create(&s->gpu, 0, NULL)) != XSF_OK) {
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
