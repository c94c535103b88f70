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
    free(f->field_buf);
    free(f->frame_buf);
    f->field_buf = f->frame_buf = NULL;
    f->field_cap = f->frame_cap = 0;
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

/* Decodes the codestream at buf[0..len) with the file's decoder; on error
 * f->msg holds the reason alone. */
static xsf_status decode_at(jxs_file *f, const uint8_t *buf, size_t len, size_t *consumed,
                            imgio_picture *pic, const xs_header **hdr)
{
    const xs_image *img = NULL;
    xsf_status st;
    *consumed = 0;
    if (!f->dec && !f->gpu) {
        snprintf(f->msg, sizeof f->msg, "no decoder");
        return XSF_ERR_ARG;
    }
    if (!buf || !len) {
        snprintf(f->msg, sizeof f->msg, "no codestream");
        return XSF_ERR_TRUNCATED;
    }
    if (f->gpu)
        st = gpu_decode(f, buf, len, consumed, &img);
    else
        st = xs_decode(f->dec, buf, len, consumed, &img);
    if (st == XSF_OK && (*consumed == 0 || *consumed > len || !img)) {
        snprintf(f->msg, sizeof f->msg, "the decoder consumed %zu of %zu bytes", *consumed, len);
        return XSF_ERR_INVALID;
    }
    if (st != XSF_OK) {
        const char *why = f->gpu ? f->msg : xs_decoder_error(f->dec);
        char tmp[XSF_ERRMSG_LEN];
        snprintf(tmp, sizeof tmp, "%.255s", why ? why : "");
        snprintf(f->msg, sizeof f->msg, "%s", tmp[0] ? tmp : xsf_status_name(st));
        return st;
    }
    jxs_picture_from_image(pic, img);
    if (hdr)
        *hdr = f->gpu ? &f->gpu_hdr : xs_decoder_header(f->dec);
    return XSF_OK;
}

/* Puts `prefix` in front of f->msg. */
static void msg_prefix(jxs_file *f, const char *prefix)
{
    char tmp[sizeof f->msg];
    snprintf(tmp, sizeof tmp, "%s", f->msg);
    snprintf(f->msg, sizeof f->msg, "%s%.*s", prefix, (int)(sizeof f->msg / 2), tmp);
}

xsf_status jxs_file_decode(jxs_file *f, imgio_picture *pic, const xs_header **hdr)
{
    if (f->offset >= f->len) {
        snprintf(f->msg, sizeof f->msg, "%s", f->len ? "no codestream left" : "empty file");
        return XSF_ERR_TRUNCATED;
    }
    size_t consumed = 0;
    const xsf_status st =
        decode_at(f, f->data + f->offset, f->len - f->offset, &consumed, pic, hdr);
    if (st != XSF_OK) {
        if (f->frame > 0) {
            char where[96];
            snprintf(where, sizeof where, "frame %lu (file byte %zu): ", f->frame, f->offset);
            msg_prefix(f, where);
        }
        return st;
    }
    f->offset += consumed;
    f->frame++;
    return XSF_OK;
}

xsf_status jxs_decode_codestream(jxs_file *f, const uint8_t *cs, size_t len, imgio_picture *pic,
                                 const xs_header **hdr)
{
    size_t consumed = 0;
    return decode_at(f, cs, len, &consumed, pic, hdr);
}

/* Grows *buf to hold n samples (kept across frames). */
static int reserve(uint16_t **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    uint16_t *nb = realloc(*buf, n * sizeof **buf);
    if (!nb)
        return -1;
    *buf = nb;
    *cap = n;
    return 0;
}

/* The decoder reuses its planes: copies the first field into f->field_buf
 * and points `pic` there. */
static xsf_status keep_field(jxs_file *f, imgio_picture *pic)
{
    size_t n = 0;
    for (int c = 0; c < pic->nc; c++)
        n += (size_t)pic->width[c] * (size_t)pic->height[c];
    if (reserve(&f->field_buf, &f->field_cap, n)) {
        snprintf(f->msg, sizeof f->msg, "out of memory for a field");
        return XSF_ERR_NOMEM;
    }
    size_t off = 0;
    for (int c = 0; c < pic->nc; c++) {
        const size_t w = (size_t)pic->width[c];
        for (int y = 0; y < pic->height[c]; y++)
            memcpy(f->field_buf + off + (size_t)y * w, pic->plane[c] + (size_t)y * pic->pitch[c],
                   w * sizeof *f->field_buf);
        pic->plane[c] = f->field_buf + off;
        pic->pitch[c] = w;
        off += w * (size_t)pic->height[c];
    }
    return XSF_OK;
}

/* Weaves into f->frame_buf; on error f->msg says why. */
static xsf_status weave(jxs_file *f, const imgio_picture *first, const imgio_picture *second,
                        imgio_picture *frame)
{
    xsf_error err;
    xsf_error_clear(&err);
    size_t need = 0;
    xsf_status st = imgio_weave_size(first, second, &need, &err);
    if (st == XSF_OK && reserve(&f->frame_buf, &f->frame_cap, need))
        st = xsf_error_set(&err, XSF_ERR_NOMEM, "out of memory for a woven frame");
    if (st == XSF_OK)
        st = imgio_weave(first, second, f->frame_buf, f->frame_cap, frame, &err);
    if (st != XSF_OK)
        snprintf(f->msg, sizeof f->msg, "%s", err.msg);
    return st;
}

xsf_status jxs_decode_field_pair(jxs_file *f, const uint8_t *first_cs, size_t first_len,
                                 const uint8_t *second_cs, size_t second_len, imgio_picture *frame,
                                 const xs_header **hdr)
{
    imgio_picture first, second;
    xsf_status st = jxs_decode_codestream(f, first_cs, first_len, &first, NULL);
    if (st == XSF_OK)
        st = keep_field(f, &first);
    if (st != XSF_OK) {
        msg_prefix(f, "first field: ");
        return st;
    }
    st = jxs_decode_codestream(f, second_cs, second_len, &second, hdr);
    if (st != XSF_OK) {
        msg_prefix(f, "second field: ");
        return st;
    }
    st = weave(f, &first, &second, frame);
    if (st != XSF_OK)
        msg_prefix(f, "the fields do not weave: ");
    return st;
}

xsf_status jxs_file_decode_fields(jxs_file *f, imgio_picture *frame, const xs_header **hdr)
{
    const size_t start = f->offset;
    const unsigned long first_index = f->frame;
    imgio_picture first, second;
    xsf_status st = jxs_file_decode(f, &first, NULL);
    if (st != XSF_OK)
        return st;
    if (jxs_file_done(f)) {
        snprintf(f->msg, sizeof f->msg,
                 "codestream %lu (file byte %zu) is a first field and the file ends after it: "
                 "an interlaced file holds two codestreams per frame",
                 first_index, start);
        return XSF_ERR_TRUNCATED;
    }
    st = keep_field(f, &first);
    if (st == XSF_OK)
        st = jxs_file_decode(f, &second, hdr);
    if (st != XSF_OK)
        return st;
    st = weave(f, &first, &second, frame);
    if (st != XSF_OK) {
        char where[128];
        snprintf(where, sizeof where,
                 "codestreams %lu and %lu (file byte %zu), two fields: ", first_index,
                 first_index + 1, start);
        msg_prefix(f, where);
    }
    return st;
}

const char *jxs_file_error(const jxs_file *f)
{
    return f->msg;
}

unsigned long jxs_count_frames(const uint8_t *data, size_t len, unsigned long max)
{
    return (unsigned long)xs_jxs_count(data, len, max);
}
