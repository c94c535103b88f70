/* Every picture of a picture file or of a file of codestreams
 * (picture_source.h). */
#include "picture_source.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xsf_codecs.h"

struct imgio_source {
    imgio_reader *rd;       /* a picture file, or */
    imgio_mapped file;      /* a file of codestreams */
    const xsf_codec *named; /* the codec the extension names */
    const xsf_codec *codec; /* the decoder's */
    void *dec;              /* its C decoder */
    xsf_picture pic;        /* the last picture decoded (planes of its own) */
    size_t off;             /* of the next codestream */
    unsigned long frame;    /* codestreams decoded */
    int rgb;
};

/* The codec whose files end as `path` does; NULL: none. */
static const xsf_codec *codec_of_path(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && slash > dot))
        return NULL;
    unsigned it = 0;
    for (const xsf_codec *c; (c = xsf_codec_iterate(&it)) != NULL;)
        if (!strcasecmp(dot + 1, c->extension))
            return c;
    return NULL;
}

imgio_source_kind imgio_source_kind_of(const char *path, imgio_format *format)
{
    *format = imgio_format_from_path(path);
    if (*format != IMGIO_FORMAT_NONE)
        return IMGIO_SOURCE_PICTURES;
    return codec_of_path(path) ? IMGIO_SOURCE_CODESTREAMS : IMGIO_SOURCE_NONE;
}

xsf_status imgio_source_open(imgio_source **out, const char *path, const imgio_raw_layout *raw,
                             xsf_error *err)
{
    *out = NULL;
    imgio_format format;
    const imgio_source_kind kind = imgio_source_kind_of(path, &format);
    if (kind == IMGIO_SOURCE_NONE)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "neither a picture file (.ppm, .pgm, .y4m, .yuv) nor a file of "
                             "codestreams (.jxs, .bpc)");
    imgio_source *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    xsf_picture_init(&s->pic);
    s->named = codec_of_path(path);
    s->rgb = format == IMGIO_FORMAT_PPM;
    const xsf_status st = kind == IMGIO_SOURCE_PICTURES
                              ? imgio_reader_open(&s->rd, path, format, raw, err)
                              : imgio_map_file(path, &s->file, err);
    if (st != XSF_OK) {
        imgio_source_close(s);
        return st;
    }
    *out = s;
    return XSF_OK;
}

/* The codestream at s->off decoded into s->pic; *bytes its size. */
static xsf_status decode_next(imgio_source *s, size_t *bytes, xsf_error *err)
{
    const uint8_t *at = s->file.data + s->off;
    const size_t left = s->file.len - s->off;
    /* The codec that claims the bytes; else the extension's, whose parser says what is wrong. */
    const xsf_codec *codec = xsf_codec_probe(at, left);
    if (!codec)
        codec = s->named;
    xsf_codec_frame frame;
    xsf_status st = codec->codestream_size(at, left, bytes, err);
    if (st == XSF_OK && !*bytes)
        st = xsf_error_set(err, XSF_ERR_INVALID, "an empty codestream");
    if (st == XSF_OK)
        st = codec->parse_header(at, *bytes, &frame, err);
    if (st == XSF_OK && codec != s->codec) {
        if (s->dec)
            s->codec->cpu_destroy(s->dec);
        s->dec = NULL;
        s->codec = codec;
        st = codec->cpu_create(&s->dec, err);
    }
    xsf_picture_unref(&s->pic);
    if (st != XSF_OK)
        return st;
    s->pic.fmt = frame.format;
    if ((st = xsf_picture_alloc(&s->pic, NULL, err)) != XSF_OK)
        return st;
    s->pic.colour = frame.colour;
    s->pic.props.index = s->frame;
    return codec->cpu_decode(s->dec, &frame, NULL, at, *bytes, &s->pic, err);
}

xsf_status imgio_source_next(imgio_source *s, const xsf_picture **pic, xsf_error *err)
{
    *pic = NULL;
    if (s->rd)
        return imgio_read(s->rd, pic, err);
    if (s->off >= s->file.len)
        return XSF_OK;
    size_t bytes = 0;
    xsf_error e;
    xsf_error_clear(&e);
    const xsf_status st = decode_next(s, &bytes, &e);
    if (st != XSF_OK)
        return xsf_error_set(err, st, "frame %lu: %s", s->frame, e.msg);
    s->rgb =
        s->pic.colour.source != XSF_COLOUR_DEFAULT && s->pic.colour.matrix == XSF_MATRIX_IDENTITY;
    s->off += bytes;
    s->frame++;
    *pic = &s->pic;
    return XSF_OK;
}

int imgio_source_rgb(const imgio_source *s)
{
    return s->rgb;
}

void imgio_source_close(imgio_source *s)
{
    if (!s)
        return;
    imgio_reader_close(s->rd);
    if (s->dec)
        s->codec->cpu_destroy(s->dec);
    xsf_picture_unref(&s->pic);
    if (s->file.data)
        imgio_unmap_file(&s->file);
    free(s);
}
