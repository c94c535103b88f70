#include "jxs_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xsf_status jxs_file_init(jxs_file *f, const uint8_t *data, size_t len, jxs_engine engine)
{
    memset(f, 0, sizeof *f);
    f->data = data;
    f->len = len;
    if (engine == JXS_ENGINE_AUTO)
        engine = xs_gpu_available() == XSF_OK ? JXS_ENGINE_GPU : JXS_ENGINE_CPU;
    if (engine == JXS_ENGINE_GPU) {
        /* The default stream: the program decodes one frame at a time. */
        xsf_status st = xs_gpu_decoder_create(&f->gpu, 0, NULL);
        if (st == XSF_ERR_NODEVICE)
            snprintf(f->msg, sizeof f->msg, "no usable GPU%s (use --cpu)",
                     xs_gpu_available() == XSF_OK ? "" : " or no CUDA in this build");
        else if (st != XSF_OK)
            snprintf(f->msg, sizeof f->msg, "cannot create the GPU decoder: %s", xsf_status_name(st));
        return st;
    }
    xsf_status st = xs_decoder_create(&f->dec);
    if (st != XSF_OK)
        snprintf(f->msg, sizeof f->msg, "cannot create the decoder: %s", xsf_status_name(st));
    return st;
}

void jxs_file_free(jxs_file *f)
{
    xs_decoder_destroy(f->dec);
    xs_gpu_decoder_destroy(f->gpu);
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        free(f->gpu_img.plane[c]);
    f->dec = NULL;
    f->gpu = NULL;
    memset(&f->gpu_img, 0, sizeof f->gpu_img);
}

const char *jxs_file_engine_name(const jxs_file *f)
{
    return f->gpu ? "GPU" : "CPU";
}

/* One frame on the GPU, downloaded into host planes kept across frames. */
static xsf_status gpu_decode(jxs_file *f, const uint8_t *buf, size_t len, size_t *consumed, const xs_image **img)
{
    xsf_error err = {0};
    xsf_status st = xs_parse_header(buf, len, &f->gpu_hdr, &err);
    if (st == XSF_OK)
        st = xs_gpu_decode(f->gpu, buf, len, consumed);
    const xs_gpu_image *gi = st == XSF_OK ? xs_gpu_decoder_image(f->gpu) : NULL;
    if (st == XSF_OK && gi) {
        xs_image *h = &f->gpu_img;
        for (int c = 0; c < gi->nc && st == XSF_OK; c++) {
            if (!h->plane[c] || h->width[c] != gi->width[c] || h->height[c] != gi->height[c]) {
                free(h->plane[c]);
                h->plane[c] = malloc((size_t)gi->width[c] * gi->height[c] * sizeof(uint16_t));
                if (!h->plane[c])
                    st = XSF_ERR_NOMEM;
            }
            h->width[c] = gi->width[c];
            h->height[c] = gi->height[c];
            h->depth[c] = gi->depth[c];
            h->pitch[c] = (size_t)gi->width[c];
        }
        h->nc = gi->nc;
        if (st == XSF_OK)
            st = xs_gpu_download(f->gpu, h->plane, 1);
        *img = h;
    }
    if (st != XSF_OK && !err.msg[0])
        xsf_error_set(&err, st, "%s", st == XSF_ERR_NOMEM ? "out of memory" : xs_gpu_decoder_error(f->gpu));
    if (st != XSF_OK)
        snprintf(f->msg, sizeof f->msg, "%s", err.msg);
    return st;
}

int jxs_file_done(const jxs_file *f)
{
    return f->offset >= f->len;
}

void jxs_picture_from_image(imgio_picture *pic, const xs_image *img)
{
    memset(pic, 0, sizeof *pic);
    pic->nc = img->nc;
    for (int c = 0; c < img->nc && c < IMGIO_MAX_COMPONENTS; c++) {
        pic->width[c] = img->width[c];
        pic->height[c] = img->height[c];
        pic->depth[c] = img->depth[c];
        pic->pitch[c] = img->pitch[c];
        pic->plane[c] = img->plane[c];
    }
}

xsf_status jxs_file_decode(jxs_file *f, imgio_picture *pic, const xs_header **hdr)
{
    const xs_image *img = NULL;
    size_t consumed = 0;
    xsf_status st;
    if (!f->dec && !f->gpu) {
        st = XSF_ERR_ARG;
        snprintf(f->msg, sizeof f->msg, "no decoder");
        return st;
    }
    if (f->offset >= f->len) {
        st = XSF_ERR_TRUNCATED;
        snprintf(f->msg, sizeof f->msg, "%s", f->len ? "no codestream left" : "empty file");
    } else {
        if (f->gpu)
            st = gpu_decode(f, f->data + f->offset, f->len - f->offset, &consumed, &img);
        else
            st = xs_decode(f->dec, f->data + f->offset, f->len - f->offset, &consumed, &img);
        if (st == XSF_OK && (consumed == 0 || consumed > f->len - f->offset || !img)) {
            st = XSF_ERR_INVALID;
            snprintf(f->msg, sizeof f->msg, "the decoder consumed %zu of %zu bytes", consumed,
                     f->len - f->offset);
        } else if (st != XSF_OK) {
            const char *why = f->gpu ? f->msg : xs_decoder_error(f->dec);
            char tmp[XSF_ERRMSG_LEN];
            snprintf(tmp, sizeof tmp, "%.255s", why ? why : "");
            why = tmp;
            if (!why || !*why)
                why = xsf_status_name(st);
            if (f->frame == 0)
                snprintf(f->msg, sizeof f->msg, "%s", why);
            else
                snprintf(f->msg, sizeof f->msg, "frame %lu (file byte %zu): %s", f->frame,
                         f->offset, why);
        }
    }
    if (st != XSF_OK)
        return st;
    jxs_picture_from_image(pic, img);
    if (hdr)
        *hdr = f->gpu ? &f->gpu_hdr : xs_decoder_header(f->dec);
    f->offset += consumed;
    f->frame++;
    return XSF_OK;
}

const char *jxs_file_error(const jxs_file *f)
{
    return f->msg;
}

unsigned long jxs_count_frames(const uint8_t *data, size_t len, unsigned long max)
{
    unsigned long n = 0;
    size_t off = 0;
    while (off < len && n < max) {
        xs_layout layout;
        memset(&layout, 0, sizeof layout);
        xsf_error err;
        xsf_error_clear(&err);
        const xsf_status st = xs_scan_layout(data + off, len - off, &layout, &err);
        const size_t bytes = layout.codestream_bytes;
        xs_layout_free(&layout);
        if (st != XSF_OK || bytes == 0 || bytes > len - off)
            break;
        off += bytes;
        n++;
    }
    return n;
}
