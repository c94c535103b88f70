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

dsp_chroma dsp_picture_chroma(const dsp_picture *pic, xsf_error *err)
{
    if (!pic || (pic->nc != 1 && pic->nc != 3 && pic->nc != 4)) {
        xsf_error_set(err, XSF_ERR_ARG, "%d components (1, 3 or 4 expected)", pic ? pic->nc : 0);
        return DSP_CHROMA_INVALID;
    }
    if (pic->depth < 8 || pic->depth > 16) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED, "depth %d (8..16 expected)", pic->depth);
        return DSP_CHROMA_INVALID;
    }
    const int planes = pic->nc == 1 ? 1 : 3;
    for (int c = 0; c < planes; c++) {
        if (pic->width[c] <= 0 || pic->height[c] <= 0 || pic->width[c] > 16384 || pic->height[c] > 16384 ||
            !pic->plane[c] || pic->pitch_bytes[c] % 2 || pic->pitch_bytes[c] < 2 * (size_t)pic->width[c]) {
            xsf_error_set(err, XSF_ERR_ARG, "plane %d: %dx%d, pitch %zu bytes", c, pic->width[c],
                          pic->height[c], pic->pitch_bytes[c]);
            return DSP_CHROMA_INVALID;
        }
    }
    if (pic->nc == 1)
        return DSP_CHROMA_GRAY;
    const int sx = factor(pic->width[0], pic->width[1]), sy = factor(pic->height[0], pic->height[1]);
    if (pic->width[2] != pic->width[1] || pic->height[2] != pic->height[1] || !sx || !sy ||
        (sx == 1 && sy == 2)) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED, "planes %dx%d, %dx%d, %dx%d are not 4:2:0, 4:2:2 or 4:4:4",
                      pic->width[0], pic->height[0], pic->width[1], pic->height[1], pic->width[2],
                      pic->height[2]);
        return DSP_CHROMA_INVALID;
    }
    if (sx == 1)
        return DSP_CHROMA_444;
    return sy == 2 ? DSP_CHROMA_420 : DSP_CHROMA_422;
}

xsf_status dsp_convert_rgb8(const dsp_picture *pic, uint8_t *rgb, size_t cap, xsf_error *err)
{
    const dsp_chroma chroma = dsp_picture_chroma(pic, err);
    if (chroma == DSP_CHROMA_INVALID)
        return err && err->status ? err->status : XSF_ERR_ARG;
    if (pic->on_device)
        return xsf_error_set(err, XSF_ERR_ARG, "the C conversion reads host pictures only");
    const int w = pic->width[0], h = pic->height[0];
    if (!rgb || cap / 3 / (size_t)w < (size_t)h)
        return xsf_error_set(err, XSF_ERR_ARG, "output of %zu bytes for %dx%d", cap, w, h);
    const int nc = pic->nc == 1 ? 1 : 3;
    const int sx = chroma == DSP_CHROMA_420 || chroma == DSP_CHROMA_422 ? 2 : 1;
    const int sy = chroma == DSP_CHROMA_420 ? 2 : 1;
    xsf_rgb_transform t;
    xsf_rgb_transform_make(&t, &pic->colour, pic->depth, nc);
    for (int y = 0; y < h; y++) {
        const uint16_t *row[3];
        for (int c = 0; c < nc; c++) {
            const int cy = c ? y / sy : y;
            row[c] = (const uint16_t *)((const uint8_t *)pic->plane[c] + (size_t)cy * pic->pitch_bytes[c]);
        }
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

xsf_status dsp_write_ppm(const char *path, const uint8_t *rgb, int width, int height, xsf_error *err)
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
