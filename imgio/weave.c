/* Weaving two field pictures into one frame: the first field's rows go to
 * the frame's even lines (0, 2, 4...), the second's to the odd lines, per
 * component (subsampled chroma too: each field is a picture of its own, so
 * its chroma rows belong to its lines). RFC 9134 and SMPTE ST 2110-22 send
 * the field holding the frame's top line first. */
#include <string.h>

#include "image_io.h"

xsf_status imgio_weave_size(const xsf_picture *first, const xsf_picture *second, size_t *samples,
                            xsf_error *err)
{
    const xsf_format *f1 = &first->fmt, *f2 = &second->fmt;
    if (f1->nc != f2->nc || f1->nc < 1 || f1->nc > IMGIO_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "the fields have %d and %d components, expected the same (1..%d)",
                             f1->nc, f2->nc, IMGIO_MAX_COMPONENTS);
    if (f1->container != XSF_PLANAR_U16 || f2->container != XSF_PLANAR_U16 ||
        first->memory == XSF_MEMORY_DEVICE || second->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "fields are woven from planar 16-bit host pictures");
    size_t total = 0;
    for (int c = 0; c < f1->nc; c++) {
        const int w = f1->width[c], h1 = f1->height[c], h2 = f2->height[c];
        if (w < 1 || h1 < 1 || f2->width[c] != w || f1->depth[c] != f2->depth[c] ||
            (h2 != h1 && h2 != h1 - 1) || !first->data[c] || !second->data[c])
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "component %d: first field %dx%d at %d bits, second %dx%d at %d "
                                 "bits; expected the same width and depth and the second field "
                                 "as high or one line less",
                                 c, w, h1, f1->depth[c], f2->width[c], h2, f2->depth[c]);
        if (first->stride[c] < (size_t)w * 2 || second->stride[c] < (size_t)w * 2)
            return xsf_error_set(err, XSF_ERR_INVALID, "component %d: a pitch below the width", c);
        const size_t n = (size_t)w * (size_t)(h1 + h2);
        if (n > IMGIO_MAX_SAMPLES || total > IMGIO_MAX_SAMPLES - n)
            return xsf_error_set(err, XSF_ERR_INVALID, "a woven frame above %zu samples",
                                 (size_t)IMGIO_MAX_SAMPLES);
        total += n;
    }
    *samples = total;
    return XSF_OK;
}

xsf_status imgio_weave(const xsf_picture *first, const xsf_picture *second, uint16_t *buf,
                       size_t buf_samples, xsf_picture *frame, xsf_error *err)
{
    size_t need = 0;
    xsf_status st = imgio_weave_size(first, second, &need, err);
    if (st != XSF_OK)
        return st;
    if (!buf || buf_samples < need)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "a woven frame needs %zu samples, the buffer holds %zu", need,
                             buf ? buf_samples : 0);
    xsf_picture out;
    xsf_picture_init(&out);
    out.fmt = first->fmt;
    out.colour = first->colour;
    out.props = first->props;
    size_t off = 0;
    for (int c = 0; c < out.fmt.nc; c++) {
        const int w = first->fmt.width[c], h = first->fmt.height[c] + second->fmt.height[c];
        out.fmt.height[c] = h;
        out.stride[c] = (size_t)w * sizeof *buf;
        out.data[c] = (uint8_t *)(buf + off);
        for (int y = 0; y < h; y++) {
            const xsf_picture *field = y % 2 ? second : first;
            memcpy(xsf_picture_row16(&out, c, y), xsf_picture_row16(field, c, y / 2),
                   (size_t)w * sizeof *buf);
        }
        off += (size_t)w * (size_t)h;
    }
    *frame = out;
    return XSF_OK;
}
