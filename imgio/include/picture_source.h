/* Every picture a file holds, whatever kind of file it is: the frames of a
 * picture file (.ppm, .pgm, .y4m, .yuv: image_io.h's readers) or the
 * codestreams of a file of codestreams (an extension a codec of the table
 * has: .jxs, .bpc; codec/include/xsf_codecs.h), each decoded by the C decoder of
 * the codec that claims its bytes. What `xsflow compare` and `xsflow
 * bpc-train` read their pictures from.
 *
 * Nothing here prints; messages do not repeat the file's name. */
#ifndef XSF_IMGIO_PICTURE_SOURCE_H
#define XSF_IMGIO_PICTURE_SOURCE_H

#include "image_io.h"

typedef enum imgio_source_kind {
    IMGIO_SOURCE_NONE = 0,    /* neither: the extension names no reader and no codec */
    IMGIO_SOURCE_PICTURES,    /* a picture file (*format says which) */
    IMGIO_SOURCE_CODESTREAMS, /* codestreams one after the other */
} imgio_source_kind;

/* What a path's extension (case-insensitive) names; *format is the picture
 * file's format (IMGIO_FORMAT_NONE for the other kinds). */
imgio_source_kind imgio_source_kind_of(const char *path, imgio_format *format);

typedef struct imgio_source imgio_source;

/* Opens `path` as its kind says; `raw` describes a .yuv file (ignored for
 * the others). XSF_ERR_UNSUPPORTED for a path of kind NONE; a file of
 * codestreams is mapped whole. */
xsf_status imgio_source_open(imgio_source **s, const char *path, const imgio_raw_layout *raw,
                             xsf_error *err);
/* The next picture: a view (ref NULL) valid until the next call or the
 * close, props.index its number from 0, its colour what the file or the
 * codestream says. NULL with XSF_OK after the last. A codestream that does
 * not decode fails with "frame N: " before the codec's message; a picture
 * file fails as imgio_read does. */
xsf_status imgio_source_next(imgio_source *s, const xsf_picture **pic, xsf_error *err);
/* 1 when the last picture's components 0..2 are R', G', B': a .ppm file, or
 * a codestream decoded through its codec's colour transform. */
int imgio_source_rgb(const imgio_source *s);
void imgio_source_close(imgio_source *s);

#endif
