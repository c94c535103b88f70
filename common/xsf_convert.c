/* The C reference of the output pixel formats (xsf_picture_convert in
 * xsf_picture.h): a decoded planar 16-bit picture written in another
 * container, row by row. The arithmetic is xsf_pixfmt_pack.h's, shared
 * with the GPU's output kernel; here is only the indexing. */
#include <stdlib.h>
#include <string.h>

#include "xsf_colour.h"
#include "xsf_picture.h"
#include "xsf_pixfmt_pack.h"

/* Row ty of component c of src resampled to tw x th samples (per axis copy,
 * 2:1 down or 1:2 up, xsf_px_axis) and converted to `depth` bits (0: kept),
 * into out[0..tw). A component src does not have (gray's chroma) is the
 * middle value 1 << (depth - 1). */
static void resampled_row(const xsf_picture *src, int c, int tw, int th, int ty, int depth,
                          uint32_t *out)
{
    if (c >= src->fmt.nc) {
        for (int x = 0; x < tw; x++)
            out[x] = 1u << (depth - 1);
        return;
    }
    const int sw = src->fmt.width[c], sh = src->fmt.height[c], d = src->fmt.depth[c];
    const int mx = xsf_px_axis(sw, tw), my = xsf_px_axis(sh, th);
    int y0, x0;
    const int ny = xsf_px_axis_src(my, ty, sh, &y0);
    const uint16_t *r0 = xsf_picture_row16(src, c, y0);
    const uint16_t *r1 = xsf_picture_row16(src, c, ny > 1 ? y0 + 1 : y0);
    for (int x = 0; x < tw; x++) {
        const int nx = xsf_px_axis_src(mx, x, sw, &x0);
        uint32_t sum = r0[x0], n = 1;
        if (nx > 1)
            sum += r0[x0 + 1], n++;
        if (ny > 1) {
            sum += r1[x0], n++;
            if (nx > 1)
                sum += r1[x0 + 1], n++;
        }
        const uint32_t v = xsf_px_mean(sum, n);
        out[x] = depth ? xsf_px_depth(v, d, depth) : v;
    }
}

/* The rows one output row is made of: component k resampled to the
 * output's width[k] (row y, or y of the chroma rows). */
typedef struct rows {
    uint32_t *c[4];
} rows;

static void fill(const xsf_picture *dst, const xsf_picture *src, int y, int ncomp, int depth,
                 rows *r)
{
    for (int k = 0; k < ncomp; k++)
        resampled_row(src, k, dst->fmt.width[k], dst->fmt.height[k], y, depth, r->c[k]);
}

static void convert_planar(xsf_picture *dst, const xsf_picture *src, rows *r)
{
    for (int c = 0; c < src->fmt.nc; c++)
        for (int y = 0; y < src->fmt.height[c]; y++) {
            uint8_t *o = dst->data[c] + (size_t)y * dst->stride[c];
            const uint16_t *s = xsf_picture_row16(src, c, y);
            if (dst->fmt.container == XSF_PLANAR_U16) {
                memcpy(o, s, xsf_format_row_bytes(&src->fmt, c));
                continue;
            }
            for (int x = 0; x < src->fmt.width[c]; x++)
                o[x] = (uint8_t)xsf_px_depth(s[x], src->fmt.depth[c], 8);
        }
    (void)r;
}

/* v210, pgroup, uyvy: one plane of 4:2:2 groups. */
static void convert_packed422(xsf_picture *dst, const xsf_picture *src, rows *r)
{
    const xsf_format *f = &dst->fmt;
    const int w = f->width[0], cw = f->width[1];
    const int depth = f->container == XSF_UYVY ? 8 : 10;
    for (int y = 0; y < f->height[0]; y++) {
        uint8_t *o = dst->data[0] + (size_t)y * dst->stride[0];
        memset(o, 0, xsf_format_row_bytes(f, 0));
        fill(dst, src, y, 3, depth, r);
        const uint32_t *ly = r->c[0], *cb = r->c[1], *cr = r->c[2];
        if (f->container == XSF_V210) {
            for (int g = 0; 6 * g < w; g++) {
                uint32_t yy[6], b[3], rr[3], words[4];
                for (int k = 0; k < 6; k++)
                    yy[k] = 6 * g + k < w ? ly[6 * g + k] : 0;
                for (int k = 0; k < 3; k++) {
                    b[k] = 3 * g + k < cw ? cb[3 * g + k] : 0;
                    rr[k] = 3 * g + k < cw ? cr[3 * g + k] : 0;
                }
                xsf_px_v210(yy, b, rr, words);
                for (int k = 0; k < 4; k++)
                    xsf_px_store_le32(o + 16 * (size_t)g + 4 * (size_t)k, words[k]);
            }
            continue;
        }
        for (int i = 0; i < cw; i++) {
            const uint32_t y1 = 2 * i + 1 < w ? ly[2 * i + 1] : 0;
            if (f->container == XSF_PGROUP10)
                xsf_px_pgroup(cb[i], ly[2 * i], cr[i], y1, o + 5 * (size_t)i);
            else
                xsf_px_uyvy(cb[i], ly[2 * i], cr[i], y1, o + 4 * (size_t)i);
        }
    }
}

/* p210, p010, nv12, i420: a luma plane and chroma planes (interleaved or not). */
static void convert_planes(xsf_picture *dst, const xsf_picture *src, rows *r)
{
    const xsf_format *f = &dst->fmt;
    const int wide = f->container == XSF_P210 || f->container == XSF_P010;
    const int depth = wide ? 10 : 8;
    for (int y = 0; y < f->height[0]; y++) {
        resampled_row(src, 0, f->width[0], f->height[0], y, depth, r->c[0]);
        uint8_t *o = dst->data[0] + (size_t)y * dst->stride[0];
        for (int x = 0; x < f->width[0]; x++) {
            if (wide)
                xsf_px_store_le16(o + 2 * (size_t)x, xsf_px_msb16(r->c[0][x], depth));
            else
                o[x] = (uint8_t)r->c[0][x];
        }
    }
    for (int y = 0; y < f->height[1]; y++) {
        for (int k = 1; k < 3; k++)
            resampled_row(src, k, f->width[k], f->height[k], y, depth, r->c[k]);
        uint8_t *o1 = dst->data[1] + (size_t)y * dst->stride[1];
        for (int x = 0; x < f->width[1]; x++) {
            if (wide) {
                xsf_px_store_le16(o1 + 4 * (size_t)x, xsf_px_msb16(r->c[1][x], depth));
                xsf_px_store_le16(o1 + 4 * (size_t)x + 2, xsf_px_msb16(r->c[2][x], depth));
            } else if (f->container == XSF_NV12) {
                o1[2 * x] = (uint8_t)r->c[1][x];
                o1[2 * x + 1] = (uint8_t)r->c[2][x];
            } else {
                o1[x] = (uint8_t)r->c[1][x];
                dst->data[2][(size_t)y * dst->stride[2] + (size_t)x] = (uint8_t)r->c[2][x];
            }
        }
    }
}

static void convert_rgb(xsf_picture *dst, const xsf_picture *src, const xsf_rgb_fixed *fx, rows *r)
{
    const xsf_format *f = &dst->fmt;
    const int w = f->width[0], nc = src->fmt.nc;
    for (int y = 0; y < f->height[0]; y++) {
        for (int k = 0; k < (nc < 3 ? 1 : 3); k++)
            resampled_row(src, k, w, f->height[0], y, 0, r->c[k]);
        if (nc == 4)
            resampled_row(src, 3, w, f->height[0], y, 8, r->c[3]);
        uint8_t *o = dst->data[0] + (size_t)y * dst->stride[0];
        for (int x = 0; x < w; x++) {
            uint32_t rgb[3];
            const uint32_t s0 = r->c[0][x];
            xsf_px_rgb(fx, s0, nc < 3 ? 0 : r->c[1][x], nc < 3 ? 0 : r->c[2][x], rgb);
            switch (f->container) {
            case XSF_RGBA8:
            case XSF_BGRA8: {
                const int swap = f->container == XSF_BGRA8;
                o[4 * x + 0] = (uint8_t)rgb[swap ? 2 : 0];
                o[4 * x + 1] = (uint8_t)rgb[1];
                o[4 * x + 2] = (uint8_t)rgb[swap ? 0 : 2];
                o[4 * x + 3] = (uint8_t)(nc == 4 ? r->c[3][x] : 255);
                break;
            }
            case XSF_RGB48:
                for (int k = 0; k < 3; k++)
                    xsf_px_store_le16(o + 6 * (size_t)x + 2 * (size_t)k, rgb[k]);
                break;
            default:
                for (int k = 0; k < 3; k++) {
                    const float v = xsf_px_unit_float(rgb[k]);
                    memcpy(dst->data[k] + (size_t)y * dst->stride[k] + 4 * (size_t)x, &v, 4);
                }
                break;
            }
        }
    }
}

xsf_status xsf_picture_convert(xsf_picture *dst, const xsf_picture *src, xsf_error *err)
{
    if (dst->memory == XSF_MEMORY_DEVICE || src->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "xsf_picture_convert converts host pictures only");
    xsf_format want;
    xsf_status st = xsf_format_convert(&src->fmt, &src->colour, dst->fmt.container, &want, err);
    if (st != XSF_OK)
        return st;
    if (!xsf_format_equal(&want, &dst->fmt))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "xsf_picture_convert: the destination is not the %s format of the "
                             "source (xsf_format_convert)",
                             xsf_container_name(dst->fmt.container));
    xsf_rgb_fixed fx;
    if (xsf_container_is_rgb(want.container) &&
        (st = xsf_rgb_fixed_make(&fx, &src->fmt, &src->colour, want.container, err)) != XSF_OK)
        return st;
    rows r;
    uint32_t *mem = malloc(4 * sizeof(uint32_t) * (size_t)want.width[0]);
    if (!mem)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory to convert a picture");
    for (int k = 0; k < 4; k++)
        r.c[k] = mem + (size_t)k * (size_t)want.width[0];
    switch (want.container) {
    case XSF_PLANAR_U16:
    case XSF_PLANAR_U8: convert_planar(dst, src, &r); break;
    case XSF_V210:
    case XSF_PGROUP10:
    case XSF_UYVY: convert_packed422(dst, src, &r); break;
    case XSF_P210:
    case XSF_P010:
    case XSF_NV12:
    case XSF_I420: convert_planes(dst, src, &r); break;
    case XSF_RGBA8:
    case XSF_BGRA8:
    case XSF_RGB48:
    case XSF_RGBF32: convert_rgb(dst, src, &fx, &r); break;
    }
    free(mem);
    dst->colour = xsf_colour_convert(&src->colour, &src->fmt, want.container);
    dst->props = src->props;
    return XSF_OK;
}
