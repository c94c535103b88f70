/* The colour vocabulary and the conversion to R'G'B' (xsf_colour.h). */
#define _POSIX_C_SOURCE 200809L /* strncasecmp */
#include "xsf_colour.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The Y'CbCr families: matrix, primaries, transfer (H.273), Kr, Kb. */
static const struct family {
    const char *name, *alias;
    uint8_t matrix, primaries, transfer;
    double kr, kb;
} families[] = {
    {"709", "bt709", XSF_MATRIX_BT709, XSF_PRIMARIES_BT709, XSF_TRANSFER_BT709, 0.2126, 0.0722},
    {"601", "bt601", XSF_MATRIX_BT601, XSF_PRIMARIES_BT601, XSF_TRANSFER_BT601, 0.299, 0.114},
    /* BT.2020's SDR transfer is BT.709's (H.273 says 14 and 15 are the same function). */
    {"2020", "bt2020", XSF_MATRIX_BT2020_NCL, XSF_PRIMARIES_BT2020, XSF_TRANSFER_BT709, 0.2627,
     0.0593},
};
#define NFAMILIES (sizeof families / sizeof families[0])

static int word_is(const char *s, size_t n, const char *word)
{
    return word && strlen(word) == n && !strncasecmp(s, word, n);
}

xsf_status xsf_colour_parse(const char *text, xsf_colour *colour, xsf_error *err)
{
    if (!text || !colour)
        return xsf_error_set(err, XSF_ERR_ARG, "no colour");
    const size_t n = strcspn(text, ",-");
    xsf_colour c;
    xsf_colour_default(&c);
    c.source = XSF_COLOUR_USER;
    if (word_is(text, n, "rgb") || word_is(text, n, "gbr")) {
        c.matrix = XSF_MATRIX_IDENTITY;
        c.rgb_order = (text[0] | 0x20) == 'r';
        c.range = XSF_RANGE_FULL;
    } else {
        size_t i = 0;
        while (i < NFAMILIES && !word_is(text, n, families[i].name) &&
               !word_is(text, n, families[i].alias))
            i++;
        if (i == NFAMILIES)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a colour: " XSF_COLOUR_WORDS, text);
        c.matrix = families[i].matrix;
        c.primaries = families[i].primaries;
        c.transfer = families[i].transfer;
        c.range = XSF_RANGE_NARROW;
    }
    if (text[n]) {
        const char *r = text + n + 1;
        if (!strcasecmp(r, "full"))
            c.range = XSF_RANGE_FULL;
        else if (!strcasecmp(r, "narrow"))
            c.range = XSF_RANGE_NARROW;
        else
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a colour: " XSF_COLOUR_WORDS, text);
    }
    *colour = c;
    return XSF_OK;
}

const char *xsf_colour_name(const xsf_colour *colour, char *buf, size_t cap)
{
    if (colour->source == XSF_COLOUR_DEFAULT) {
        snprintf(buf, cap, "default");
        return buf;
    }
    const xsf_colour c = xsf_colour_effective(colour);
    const char *m = c.matrix == XSF_MATRIX_IDENTITY ? (c.rgb_order ? "rgb" : "gbr") : "?";
    for (size_t i = 0; i < NFAMILIES; i++)
        if (families[i].matrix == c.matrix)
            m = families[i].name;
    snprintf(buf, cap, "%s,%s", m, c.range == XSF_RANGE_FULL ? "full" : "narrow");
    return buf;
}

void xsf_colour_from_sdp(xsf_colour *colour, const char *colorimetry, const char *range)
{
    const size_t f = !strcmp(colorimetry, "BT601") ? 1 : !strcmp(colorimetry, "BT2020") ? 2 : 0;
    xsf_colour_default(colour);
    colour->matrix = families[f].matrix;
    colour->primaries = families[f].primaries;
    colour->transfer = families[f].transfer;
    colour->range = !strcmp(range, "FULL") ? XSF_RANGE_FULL : XSF_RANGE_NARROW;
    colour->source = XSF_COLOUR_SDP;
}

void xsf_colour_rgb(xsf_colour *colour, xsf_colour_source source)
{
    xsf_colour_default(colour);
    colour->matrix = XSF_MATRIX_IDENTITY;
    colour->rgb_order = 1;
    colour->range = XSF_RANGE_FULL;
    colour->source = (uint8_t)source;
}

xsf_colour xsf_colour_effective(const xsf_colour *c)
{
    xsf_colour e = *c;
    int known = e.matrix == XSF_MATRIX_IDENTITY;
    for (size_t i = 0; i < NFAMILIES; i++)
        known |= families[i].matrix == e.matrix;
    if (e.source == XSF_COLOUR_DEFAULT || !known) {
        xsf_colour_default(&e);
        e.matrix = XSF_MATRIX_BT709;
        e.primaries = XSF_PRIMARIES_BT709;
        e.transfer = XSF_TRANSFER_BT709;
        e.range = XSF_RANGE_NARROW;
        e.source = c->source;
    }
    if (e.range != XSF_RANGE_NARROW && e.range != XSF_RANGE_FULL)
        e.range = e.matrix == XSF_MATRIX_IDENTITY ? XSF_RANGE_FULL : XSF_RANGE_NARROW;
    return e;
}

void xsf_rgb_transform_make(xsf_rgb_transform *t, const xsf_colour *colour, int depth, int nc)
{
    memset(t, 0, sizeof *t);
    const xsf_colour c = xsf_colour_effective(colour);
    const double maxv = ldexp(1.0, depth) - 1, unit = ldexp(1.0, depth - 8);
    const int narrow = c.range == XSF_RANGE_NARROW;
    const int ycc = nc >= 3 && c.matrix != XSF_MATRIX_IDENTITY;
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
        /* R G B from components 0 1 2; G B R: R from 2, G from 0, B from 1. */
        static const int from[2][3] = {{2, 0, 1}, {0, 1, 2}};
        for (int r = 0; r < 3; r++)
            t->m[r][from[c.rgb_order ? 1 : 0][r]] = 1;
        return;
    }
    double kr = families[0].kr, kb = families[0].kb;
    for (size_t i = 0; i < NFAMILIES; i++)
        if (families[i].matrix == c.matrix)
            kr = families[i].kr, kb = families[i].kb;
    const double kg = 1 - kr - kb;
    /* R' = Y' + 2(1-Kr) Pr; B' = Y' + 2(1-Kb) Pb; G' = (Y' - Kr R' - Kb B') / Kg. */
    t->m[0][0] = 1, t->m[0][2] = 2 * (1 - kr);
    t->m[2][0] = 1, t->m[2][1] = 2 * (1 - kb);
    t->m[1][0] = 1, t->m[1][1] = -2 * (1 - kb) * kb / kg, t->m[1][2] = -2 * (1 - kr) * kr / kg;
}

xsf_status xsf_rgb_fixed_make(xsf_rgb_fixed *f, const xsf_format *decoded, const xsf_colour *colour,
                              xsf_container target, xsf_error *err)
{
    if (!xsf_container_is_rgb(target))
        return xsf_error_set(err, XSF_ERR_ARG, "%s is not an R'G'B' pixel format",
                             xsf_container_name(target));
    xsf_format out;
    xsf_status st = xsf_format_convert(decoded, colour, target, &out, err);
    if (st != XSF_OK)
        return st;
    xsf_rgb_transform t;
    xsf_rgb_transform_make(&t, colour, decoded->depth[0], decoded->nc >= 3 ? 3 : 1);
    memset(f, 0, sizeof *f);
    f->bits = target == XSF_RGBA8 || target == XSF_BGRA8 ? 8 : 16;
    f->depth = decoded->depth[0];
    const double unit = ldexp(1.0, f->bits) - 1, one = ldexp(1.0, XSF_RGB_FIXED_SHIFT);
    for (int k = 0; k < 3; k++) {
        double bias = 0;
        for (int j = 0; j < 3; j++) {
            f->a[k][j] = llround(t.m[k][j] * t.in_scale[j] * unit * one);
            bias += t.m[k][j] * t.in_bias[j];
        }
        f->c[k] = llround(unit * bias * one) + (1 << (XSF_RGB_FIXED_SHIFT - 1));
    }
    return XSF_OK;
}
