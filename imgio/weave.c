/* Weaving two field pictures into one frame: the first field's rows go to
 * the frame's even lines (0, 2, 4...), the second's to the odd lines, per
 * component (subsampled chroma too: each field is a picture of its own, so
 * its chroma rows belong to its lines). RFC 9134 and SMPTE ST 2110-22 send
 * the field holding the frame's top line first. */
#include <string.h>

#include "image_io.h"

xsf_status imgio_weave_size(const imgio_picture *first, const imgio_picture *second,
                            size_t *samples, xsf_error *err)
{
    if (first->nc != second->nc || first->nc < 1 || first->nc > IMGIO_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "the fields have %d and %d components, expected the same (1..%d)",
                             first->nc, second->nc, IMGIO_MAX_COMPONENTS);
    size_t total = 0;
    for (int c = 0; c < first->nc; c++) {
        const int w = first->width[c], h1 = first->height[c], h2 = second->height[c];
        if (w < 1 || h1 < 1 || second->width[c] != w || first->depth[c] != second->depth[c] ||
            (h2 != h1 && h2 != h1 - 1) || !first->plane[c] || !second->plane[c])
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "component %d: first field %dx%d at %d bits, second %dx%d at %d "
                                 "bits; expected the same width and depth and the second field "
                                 "as high or one line less",
                                 c, w, h1, first->depth[c], second->width[c], h2, second->depth[c]);
        if (first->pitch[c] < (size_t)w || second->pitch[c] < (size_t)w)
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

xsf_status imgio_weave(const imgio_picture *first, const imgio_picture *second, uint16_t *buf,
                       size_t buf_samples, imgio_picture *frame, xsf_error *err)
{
    size_t need = 0;
    xsf_status st = imgio_weave_size(first, second, &need, err);
    if (st != XSF_OK)
        return st;
    if (!buf || buf_samples < need)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "a woven frame needs %zu samples, the buffer holds %zu", need,
                             buf ? buf_samples : 0);
    imgio_picture out;
    memset(&out, 0, sizeof out);
    out.nc = first->nc;
    size_t off = 0;
    for (int c = 0; c < first->nc; c++) {
        const int w = first->width[c], h = first->height[c] + second->height[c];
        out.width[c] = w;
        out.height[c] = h;
        out.depth[c] = first->depth[c];
        out.pitch[c] = (size_t)w;
        out.plane[c] = buf + off;
        for (int y = 0; y < h; y++) {
            const imgio_picture *field = y % 2 ? second : first;
            memcpy(out.plane[c] + (size_t)y * (size_t)w,
                   field->plane[c] + (size_t)(y / 2) * field->pitch[c], (size_t)w * sizeof *buf);
        }
        off += (size_t)w * (size_t)h;
    }
    *frame = out;
    return XSF_OK;
}
