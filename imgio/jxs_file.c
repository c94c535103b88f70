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
        xsf_status st = xs_gpu_decoder_create(&f->gpu, 0, NULL, NULL);
        if (st == XSF_ERR_NODEVICE)
            snprintf(f->msg, sizeof f->msg, "no usable GPU%s (use --cpu)",
                     xs_gpu_available() == XSF_OK ? "" : " or no CUDA in this build");
        else if (st != XSF_OK)
            snprintf(f->msg, sizeof f->msg, "cannot create the GPU decoder: %s",
                     xsf_status_name(st));
        return st;
    }
    xsf_status st = xs_decoder_create(&f->dec, NULL);
    if (st != XSF_OK)
        snprintf(f->msg, sizeof f->msg, "cannot create the decoder: %s", xsf_status_name(st));
    return st;
}

void jxs_file_free(jxs_file *f)
{
    xs_decoder_destroy(f->dec);
    xs_gpu_decoder_destroy(f->gpu);
    free(f->gpu_buf);
    f->gpu_buf = NULL;
    f->gpu_cap = 0;
    free(f->field_buf);
    free(f->frame_buf);
    f->field_buf = f->frame_buf = NULL;
    f->field_cap = f->frame_cap = 0;
    f->dec = NULL;
    f->gpu = NULL;
    xsf_picture_init(&f->gpu_pic);
}

const char *jxs_file_engine_name(const jxs_file *f)
{
    return f->gpu ? "GPU" : "CPU";
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

/* A view of `buf` holding a picture of format `fmt`, planes tightly packed
 * one after the other. */
static void wrap_packed(xsf_picture *pic, const xsf_format *fmt, uint16_t *buf)
{
    uint8_t *data[XSF_MAX_COMPONENTS];
    size_t stride[XSF_MAX_COMPONENTS];
    size_t off = 0;
    for (int c = 0; c < fmt->nc; c++) {
        data[c] = (uint8_t *)(buf + off);
        stride[c] = xsf_format_row_bytes(fmt, c);
        off += (size_t)fmt->width[c] * (size_t)fmt->height[c];
    }
    xsf_picture_wrap(pic, fmt, data, stride, XSF_MEMORY_HOST, -1);
}

/* One frame on the GPU, downloaded into host planes kept across frames. */
static xsf_status gpu_decode(jxs_file *f, const uint8_t *buf, size_t len, size_t *consumed,
                             const xsf_picture **img)
{
    xsf_error err = {0};
    xsf_status st = xs_parse_header(buf, len, &f->gpu_hdr, &err);
    if (st == XSF_OK)
        st = xs_gpu_decode(f->gpu, buf, len, consumed);
    const xsf_picture *gi = st == XSF_OK ? xs_gpu_decoder_picture(f->gpu) : NULL;
    if (st == XSF_OK && gi) {
        if (reserve(&f->gpu_buf, &f->gpu_cap, xsf_format_bytes(&gi->fmt) / sizeof(uint16_t)))
            st = XSF_ERR_NOMEM;
        if (st == XSF_OK) {
            wrap_packed(&f->gpu_pic, &gi->fmt, f->gpu_buf);
            f->gpu_pic.colour = gi->colour;
            uint16_t *planes[XS_MAX_COMPONENTS] = {0};
            for (int c = 0; c < gi->fmt.nc; c++)
                planes[c] = xsf_picture_row16(&f->gpu_pic, c, 0);
            st = xs_gpu_download(f->gpu, planes, 1);
        }
        *img = &f->gpu_pic;
    }
    if (st != XSF_OK && !err.msg[0])
        xsf_error_set(&err, st, "%s",
                      st == XSF_ERR_NOMEM ? "out of memory" : xs_gpu_decoder_error(f->gpu));
    if (st != XSF_OK)
        snprintf(f->msg, sizeof f->msg, "%s", err.msg);
    return st;
}

int jxs_file_done(const jxs_file *f)
{
    return f->offset >= f->len;
}

/* Decodes the codestream at buf[0..len) with the file's decoder; on error
 * f->msg holds the reason alone. */
static xsf_status decode_at(jxs_file *f, const uint8_t *buf, size_t len, size_t *consumed,
                            xsf_picture *pic, const xs_header **hdr)
{
    const xsf_picture *img = NULL;
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
    *pic = *img;
    pic->props.index = f->frame;
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

xsf_status jxs_file_decode(jxs_file *f, xsf_picture *pic, const xs_header **hdr)
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

xsf_status jxs_decode_codestream(jxs_file *f, const uint8_t *cs, size_t len, xsf_picture *pic,
                                 const xs_header **hdr)
{
    size_t consumed = 0;
    return decode_at(f, cs, len, &consumed, pic, hdr);
}

/* The decoder reuses its planes: copies the first field into f->field_buf
 * and makes `pic` a view of it. */
static xsf_status keep_field(jxs_file *f, xsf_picture *pic)
{
    if (reserve(&f->field_buf, &f->field_cap, xsf_format_bytes(&pic->fmt) / sizeof(uint16_t))) {
        snprintf(f->msg, sizeof f->msg, "out of memory for a field");
        return XSF_ERR_NOMEM;
    }
    xsf_picture kept;
    wrap_packed(&kept, &pic->fmt, f->field_buf);
    xsf_error err;
    xsf_error_clear(&err);
    if (xsf_picture_copy(&kept, pic, &err) != XSF_OK) {
        snprintf(f->msg, sizeof f->msg, "%s", err.msg);
        return err.status;
    }
    *pic = kept;
    return XSF_OK;
}

/* Weaves into f->frame_buf; on error f->msg says why. */
static xsf_status weave(jxs_file *f, const xsf_picture *first, const xsf_picture *second,
                        xsf_picture *frame)
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
                                 const uint8_t *second_cs, size_t second_len, xsf_picture *frame,
                                 const xs_header **hdr)
{
    xsf_picture first, second;
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

xsf_status jxs_file_decode_fields(jxs_file *f, xsf_picture *frame, const xs_header **hdr)
{
    const size_t start = f->offset;
    const unsigned long first_index = f->frame;
    xsf_picture first, second;
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
