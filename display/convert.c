/* Chroma formats and the C reference of the display's conversion to R'G'B'
 * (the coefficients of xsf_rgb_transform_make, common/xsf_colour.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"

const char *dsp_chroma_name(dsp_chroma c)
{
    switch (c) {
    case DSP_CHROMA_GRAY: return "gray";
    case DSP_CHROMA_420: return "4:2:0";
    case DSP_CHROMA_422: return "4:2:2";
    case DSP_CHROMA_444: return "4:4:4";
    case DSP_CHROMA_INVALID: break;
    }
    return "invalid";
}

/* 1 or 2 when `part` is `full` or `full` halved (rounded up), else 0. */
static int factor(int full, int part)
{
    if (part == full)
        return 1;
    if (part == (full + 1) / 2)
        return 2;
    return 0;
}

dsp_chroma dsp_picture_chroma(const xsf_picture *pic, xsf_error *err)
{
    const xsf_format *f = pic ? &pic->fmt : NULL;
    if (!pic || (f->nc != 1 && f->nc != 3 && f->nc != 4)) {
        xsf_error_set(err, XSF_ERR_ARG, "%d components (1, 3 or 4 expected)", pic ? f->nc : 0);
        return DSP_CHROMA_INVALID;
    }
    if (f->container != XSF_PLANAR_U16) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                      "pixel format %s: the display shows planar16 pictures (it converts them to "
                      "R'G'B' itself)",
                      xsf_container_name(f->container));
        return DSP_CHROMA_INVALID;
    }
    if (f->depth[0] < 8 || f->depth[0] > 16) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED, "depth %d (8..16 expected)", f->depth[0]);
        return DSP_CHROMA_INVALID;
    }
    const int planes = f->nc == 1 ? 1 : 3;
    for (int c = 0; c < planes; c++) {
        if (f->width[c] <= 0 || f->height[c] <= 0 || f->width[c] > 16384 || f->height[c] > 16384 ||
            !pic->data[c] || pic->stride[c] % 2 || pic->stride[c] < 2 * (size_t)f->width[c]) {
            xsf_error_set(err, XSF_ERR_ARG, "plane %d: %dx%d, pitch %zu bytes", c, f->width[c],
                          f->height[c], pic->stride[c]);
            return DSP_CHROMA_INVALID;
        }
    }
    if (f->nc == 1)
        return DSP_CHROMA_GRAY;
    const int sx = factor(f->width[0], f->width[1]), sy = factor(f->height[0], f->height[1]);
    if (f->width[2] != f->width[1] || f->height[2] != f->height[1] || !sx || !sy ||
        (sx == 1 && sy == 2)) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                      "planes %dx%d, %dx%d, %dx%d are not 4:2:0, 4:2:2 or 4:4:4", f->width[0],
                      f->height[0], f->width[1], f->height[1], f->width[2], f->height[2]);
        return DSP_CHROMA_INVALID;
    }
    if (sx == 1)
        return DSP_CHROMA_444;
    return sy == 2 ? DSP_CHROMA_420 : DSP_CHROMA_422;
}

xsf_status dsp_convert_rgb8(const xsf_picture *pic, uint8_t *rgb, size_t cap, xsf_error *err)
{
    const dsp_chroma chroma = dsp_picture_chroma(pic, err);
    if (chroma == DSP_CHROMA_INVALID)
        return err && err->status ? err->status : XSF_ERR_ARG;
    if (pic->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "the C conversion reads host pictures only");
    const int w = pic->fmt.width[0], h = pic->fmt.height[0];
    if (!rgb || cap / 3 / (size_t)w < (size_t)h)
        return xsf_error_set(err, XSF_ERR_ARG, "output of %zu bytes for %dx%d", cap, w, h);
    const int nc = pic->fmt.nc == 1 ? 1 : 3;
    const int sx = chroma == DSP_CHROMA_420 || chroma == DSP_CHROMA_422 ? 2 : 1;
    const int sy = chroma == DSP_CHROMA_420 ? 2 : 1;
    xsf_rgb_transform t;
    xsf_rgb_transform_make(&t, &pic->colour, pic->fmt.depth[0], nc);
    for (int y = 0; y < h; y++) {
        const uint16_t *row[3];
        for (int c = 0; c < nc; c++)
            row[c] = xsf_picture_row16(pic, c, c ? y / sy : y);
        for (int x = 0; x < w; x++) {
            double e[3] = {0, 0, 0};
            for (int c = 0; c < nc; c++) {
                const int cx = c ? x / sx : x;
                e[c] = row[c][cx] * t.in_scale[c] + t.in_bias[c];
            }
            uint8_t *o = rgb + 3 * ((size_t)y * w + x);
            for (int r = 0; r < 3; r++) {
                double v = t.m[r][0] * e[0] + t.m[r][1] * e[1] + t.m[r][2] * e[2];
                v = v < 0 ? 0 : (v > 1 ? 1 : v);
                o[r] = (uint8_t)floor(v * 255 + 0.5);
            }
        }
    }
    return XSF_OK;
}

xsf_status dsp_write_ppm(const char *path, const uint8_t *rgb, int width, int height,
                         xsf_error *err)
{
    if (!path || !rgb || width <= 0 || height <= 0)
        return xsf_error_set(err, XSF_ERR_ARG, "no picture to write");
    FILE *f = fopen(path, "wb");
    if (!f)
        return xsf_error_set(err, XSF_ERR_IO, "cannot create %s", path);
    const size_t n = (size_t)width * height * 3;
    int bad = fprintf(f, "P6\n%d %d\n255\n", width, height) < 0 || fwrite(rgb, 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? xsf_error_set(err, XSF_ERR_IO, "cannot write %s", path) : XSF_OK;
}
