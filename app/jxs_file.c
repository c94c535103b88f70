#include "jxs_file.h"

#include <stdio.h>
#include <string.h>

xsf_status jxs_file_init(jxs_file *f, const uint8_t *data, size_t len, jxs_engine engine)
{
    memset(f, 0, sizeof *f);
    f->data = data;
    f->len = len;
    if (engine == JXS_ENGINE_GPU) {
        snprintf(f->msg, sizeof f->msg, "the GPU decoder is not built yet (use --cpu)");
        return XSF_ERR_NODEVICE;
    }
    xsf_status st = xs_decoder_create(&f->dec);
    if (st != XSF_OK)
        snprintf(f->msg, sizeof f->msg, "cannot create the decoder: %s", xsf_status_name(st));
    return st;
}

void jxs_file_free(jxs_file *f)
{
    xs_decoder_destroy(f->dec);
    f->dec = NULL;
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
    if (!f->dec) {
        st = XSF_ERR_ARG;
        snprintf(f->msg, sizeof f->msg, "no decoder");
        return st;
    }
    if (f->offset >= f->len) {
        st = XSF_ERR_TRUNCATED;
        snprintf(f->msg, sizeof f->msg, "%s", f->len ? "no codestream left" : "empty file");
    } else {
        st = xs_decode(f->dec, f->data + f->offset, f->len - f->offset, &consumed, &img);
        if (st == XSF_OK && (consumed == 0 || consumed > f->len - f->offset || !img)) {
            st = XSF_ERR_INVALID;
            snprintf(f->msg, sizeof f->msg, "the decoder consumed %zu of %zu bytes", consumed,
                     f->len - f->offset);
        } else if (st != XSF_OK) {
            const char *why = xs_decoder_error(f->dec);
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
        *hdr = xs_decoder_header(f->dec);
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
