/* Colour descriptions, chroma formats and the C reference of the display's
 * conversion to R'G'B'. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "colour.h"

static const struct {
    const char *name;
    dsp_matrix matrix;
} matrix_names[] = {
    {"709", DSP_MATRIX_BT709},   {"bt709", DSP_MATRIX_BT709},   {"601", DSP_MATRIX_BT601},
    {"bt601", DSP_MATRIX_BT601}, {"2020", DSP_MATRIX_BT2020},   {"bt2020", DSP_MATRIX_BT2020},
    {"rgb", DSP_MATRIX_RGB},     {"gbr", DSP_MATRIX_GBR},
};

xsf_status dsp_colour_parse(const char *text, dsp_colour *colour)
{
    if (!text || !colour)
        return XSF_ERR_ARG;
    char name[16];
    const char *comma = strchr(text, ',');
    size_t n = comma ? (size_t)(comma - text) : strlen(text);
    if (n == 0 || n >= sizeof name)
        return XSF_ERR_ARG;
    memcpy(name, text, n);
    name[n] = 0;
    dsp_colour c = {DSP_MATRIX_BT709, DSP_RANGE_NARROW};
    size_t i = 0;
    for (; i < sizeof matrix_names / sizeof matrix_names[0]; i++)
        if (!strcasecmp(name, matrix_names[i].name))
            break;
    if (i == sizeof matrix_names / sizeof matrix_names[0])
        return XSF_ERR_ARG;
    c.matrix = matrix_names[i].matrix;
    /* R'G'B' is taken as it is, full range, unless the text says narrow: the
     * meaning of `decode --colour rgb|gbr` (README), so that both commands
     * show one picture. Y'CbCr is narrow unless it says full. */
    if (c.matrix == DSP_MATRIX_RGB || c.matrix == DSP_MATRIX_GBR)
        c.range = DSP_RANGE_FULL;
    if (comma) {
        if (!strcasecmp(comma + 1, "full"))
            c.range = DSP_RANGE_FULL;
        else if (!strcasecmp(comma + 1, "narrow"))
            c.range = DSP_RANGE_NARROW;
        else
            return XSF_ERR_ARG;
    }
    *colour = c;
    return XSF_OK;
}

const char *dsp_colour_name(dsp_colour colour, char *buf, size_t cap)
{
    static const char *const names[] = {"BT.709", "BT.601", "BT.2020", "RGB", "GBR"};
    const char *m = (unsigned)colour.matrix < 5 ? names[colour.matrix] : "?";
    snprintf(buf, cap, "%s %s", m, colour.range == DSP_RANGE_FULL ? "full" : "narrow");
    return buf;
}

void dsp_colour_describe(dsp_colour colour, xsf_colour *out)
{
    xsf_colour_default(out);
    out->source = XSF_COLOUR_USER;
    out->range = colour.range == DSP_RANGE_FULL ? XSF_RANGE_FULL : XSF_RANGE_NARROW;
    switch (colour.matrix) {
    case DSP_MATRIX_BT709: out->matrix = XSF_MATRIX_BT709; break;
    case DSP_MATRIX_BT601: out->matrix = XSF_MATRIX_BT601; break;
    case DSP_MATRIX_BT2020: out->matrix = XSF_MATRIX_BT2020_NCL; break;
    case DSP_MATRIX_RGB:
    case DSP_MATRIX_GBR:
        out->matrix = XSF_MATRIX_IDENTITY;
        out->rgb_order = colour.matrix == DSP_MATRIX_RGB;
        break;
    }
}

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
        xsf_error_set(err, XSF_ERR_UNSUPPORTED, "picture container %d (planar 16-bit expected)",
                      (int)f->container);
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
            xsf_error_set(err, XSF_ERR_ARG, "plane %d: %dx%d, pitch %zu bytes", c, f->width[c], f->height[c],
                          pic->stride[c]);
            return DSP_CHROMA_INVALID;
        }
    }
    if (f->nc == 1)
        return DSP_CHROMA_GRAY;
    const int sx = factor(f->width[0], f->width[1]), sy = factor(f->height[0], f->height[1]);
    if (f->width[2] != f->width[1] || f->height[2] != f->height[1] || !sx || !sy || (sx == 1 && sy == 2)) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED, "planes %dx%d, %dx%d, %dx%d are not 4:2:0, 4:2:2 or 4:4:4",
                      f->width[0], f->height[0], f->width[1], f->height[1], f->width[2], f->height[2]);
        return DSP_CHROMA_INVALID;
    }
    if (sx == 1)
        return DSP_CHROMA_444;
    return sy == 2 ? DSP_CHROMA_420 : DSP_CHROMA_422;
}

void dsp_transform_make(dsp_transform *t, const xsf_colour *colour, int depth, int nc)
{
    memset(t, 0, sizeof *t);
    /* What display.h says of the description: nothing said is BT.709
     * narrow; an unspecified range is full for R'G'B', narrow for Y'CbCr. */
    const int said = colour->source != XSF_COLOUR_DEFAULT;
    const int identity = said && colour->matrix == XSF_MATRIX_IDENTITY;
    const int matrix = said ? colour->matrix : XSF_MATRIX_BT709;
    const int range = said ? colour->range : XSF_RANGE_NARROW;
    const double maxv = ldexp(1.0, depth) - 1, unit = ldexp(1.0, depth - 8);
    const int narrow = range == XSF_RANGE_NARROW || (range == XSF_RANGE_UNSPECIFIED && !identity);
    const int ycc = nc >= 3 && !identity;
    for (int k = 0; k < 3; k++) {
        const int chroma = ycc && k > 0;
        if (narrow) {
            t->in_scale[k] = 1.0 / ((chroma ? 224 : 219) * unit);
            t->in_bias[k] = -(chroma ? 128 : 16) * unit * t->in_scale[k];
        } else {
            t->in_scale[k] = 1.0 / maxv;
            t->in_bias[k] = chroma ? -ldexp(1.0, depth - 1) / maxv : 0;
        }
    }
    if (nc < 3) {
        for (int r = 0; r < 3; r++)
            t->m[r][0] = 1;
        return;
    }
    if (!ycc) {
        /* RGB: R G B from components 0 1 2; GBR: R from 2, G from 0, B from 1. */
        const int from[2][3] = {{0, 1, 2}, {2, 0, 1}};
        const int g = !colour->rgb_order;
        for (int r = 0; r < 3; r++)
            t->m[r][from[g][r]] = 1;
        return;
    }
    double kr = 0.2126, kb = 0.0722;
    if (matrix == XSF_MATRIX_BT601)
        kr = 0.299, kb = 0.114;
    else if (matrix == XSF_MATRIX_BT2020_NCL)
        kr = 0.2627, kb = 0.0593;
    const double kg = 1 - kr - kb;
    /* R' = Y' + 2(1-Kr) Pr; B' = Y' + 2(1-Kb) Pb; G' = (Y' - Kr R' - Kb B') / Kg. */
    t->m[0][0] = 1, t->m[0][2] = 2 * (1 - kr);
    t->m[2][0] = 1, t->m[2][1] = 2 * (1 - kb);
    t->m[1][0] = 1, t->m[1][1] = -2 * (1 - kb) * kb / kg, t->m[1][2] = -2 * (1 - kr) * kr / kg;
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
    dsp_transform t;
    dsp_transform_make(&t, &pic->colour, pic->fmt.depth[0], nc);
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
