/* What every codec's table functions do alike (xsf_codec.h, "for the
 * codecs"): passing a library's message on, a frame description started
 * from a parsed header and the header found in it again, a decoder's picture
 * copied out. */
#include <string.h>

#include "xsf_codec.h"

xsf_status xsf_codec_fail(xsf_error *err, xsf_status st, const char *msg)
{
    return xsf_error_set(err, st, "%s", msg && msg[0] ? msg : xsf_status_name(st));
}

xsf_status xsf_codec_frame_start(xsf_codec_frame *out, const xsf_codec *codec, const void *parsed,
                                 size_t size, size_t header_size, xsf_error *err)
{
    if (size != header_size || header_size > XSF_CODEC_HEADER_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "a %s header is %zu bytes, not %zu", codec->name,
                             header_size, size);
    memset(out, 0, offsetof(xsf_codec_frame, header));
    out->codec = codec;
    out->format.container = XSF_PLANAR_U16;
    out->field = XSF_FIELD_NONE;
    memcpy(out->header.bytes, parsed, header_size);
    return XSF_OK;
}

const void *xsf_codec_frame_header(const xsf_codec_frame *frame, const xsf_codec *codec)
{
    return frame && frame->codec == codec ? frame->header.bytes : NULL;
}

xsf_status xsf_codec_copy_picture(xsf_picture *out, const xsf_picture *img, xsf_error *err)
{
    const int convert =
        out->fmt.container != img->fmt.container && img->fmt.container == XSF_PLANAR_U16;
    if ((!convert && !xsf_format_equal(&out->fmt, &img->fmt)) || out->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "the picture given is not one of the codestream's");
    const xsf_colour colour = out->colour;
    const xsf_picture_props props = out->props;
    /* Another pixel format: xsf_picture_convert checks that out's is the one of img's. */
    const xsf_status st =
        convert ? xsf_picture_convert(out, img, err) : xsf_picture_copy(out, img, err);
    out->colour = colour;
    out->props = props;
    return st;
}
