/* The colour vocabulary of every command (`--colour`) and the one
 * conversion of a picture's components to R'G'B' that every output uses:
 * decode's .ppm (imgio/), the display's C reference, its shader and the
 * CUDA compositor (display/). Both read an xsf_colour (xsf_picture.h) and
 * the coefficients of xsf_rgb_transform_make, so one description gives one
 * picture everywhere.
 *
 * The vocabulary, as `xsflow decode|play|recv --help` documents it:
 *   MATRIX[,RANGE] or MATRIX[-RANGE]
 *   MATRIX  709 (or bt709), 601 (bt601), 2020 (bt2020): Y'CbCr with that
 *           matrix (and its primaries and transfer); rgb: components 0, 1, 2
 *           are R', G', B'; gbr: they are G', B', R' (ST 2110's order, and
 *           that of the rgb vectors of vectors/xs)
 *   RANGE   narrow (16..235, chroma 16..240, at 8 bits, scaled by 2^(B-8)) or
 *           full (0..2^B-1, chroma centred on 2^(B-1)); default narrow for
 *           Y'CbCr, full for rgb and gbr (the components as they are)
 * Case does not matter: "709,full", "bt709-full" and "BT709,FULL" are one. */
#ifndef XSF_COLOUR_H
#define XSF_COLOUR_H

#include <stddef.h>

#include "xsf.h"
#include "xsf_picture.h"
#include "xsf_pixfmt_pack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The vocabulary in one line, for usage texts and messages. */
#define XSF_COLOUR_WORDS "709, 601, 2020, rgb or gbr, optionally ,full or ,narrow (e.g. 709,full)"

/* Parses the vocabulary into *colour with source XSF_COLOUR_USER. */
xsf_status xsf_colour_parse(const char *text, xsf_colour *colour, xsf_error *err);

/* The description in the vocabulary ("709,narrow", "gbr,full"), which
 * xsf_colour_parse reads back; "default" for source XSF_COLOUR_DEFAULT. */
const char *xsf_colour_name(const xsf_colour *colour, char *buf, size_t cap);

/* A description from a session description's colorimetry ("BT601",
 * "BT709", "BT2020"; others BT.709) and RANGE ("FULL"; else narrow), source
 * XSF_COLOUR_SDP. ST 2110-20 7.4 and 7.5. */
void xsf_colour_from_sdp(xsf_colour *colour, const char *colorimetry, const char *range);

/* R'G'B' as they are (rgb_order 1), full range, with the given source: what
 * a reversible colour transform (JPEG XS Cpih 1, BPC-PaCo's RCT) decodes. */
void xsf_colour_rgb(xsf_colour *colour, xsf_colour_source source);

/* What a conversion uses: `c` where something was said (source not
 * XSF_COLOUR_DEFAULT and a matrix named), else BT.709 narrow range; a range
 * left unspecified is narrow for Y'CbCr and full for R'G'B'. */
xsf_colour xsf_colour_effective(const xsf_colour *c);

/* The conversion of components c0, c1, c2 (samples s at `depth` bits):
 *     e_k = s_k * in_scale[k] + in_bias[k]   (Y' Pb Pr, or R' G' B', in 0..1)
 *     out = m * e                            (R' G' B', then clamped to 0..1)
 * A writer at depth B rounds out * (2^B - 1); the display's 8-bit targets
 * out * 255. With nc 1 (gray) every output is component 0. */
typedef struct xsf_rgb_transform {
    double in_scale[3], in_bias[3];
    double m[3][3]; /* rows: R', G', B'; columns: components 0, 1, 2 */
} xsf_rgb_transform;

void xsf_rgb_transform_make(xsf_rgb_transform *t, const xsf_colour *c, int depth, int nc);

/* The integer form of xsf_rgb_transform_make's conversion for the RGB
 * output containers (rgba, bgra: B = 8; rgb48, rgbf32: B = 16), made once on
 * the host and used by the C reference and the GPU (xsf_px_rgb), with
 * t = xsf_rgb_transform_make(colour, decoded->depth[0], nc 1 or 3), S = 16:
 *     a[k][j] = llround(t.m[k][j] * t.in_scale[j] * (2^B - 1) * 2^S)
 *     c[k]    = llround((2^B - 1) * sum_j t.m[k][j] * t.in_bias[j] * 2^S) + 2^(S-1)
 * XSF_ERR_UNSUPPORTED where xsf_format_convert refuses `target` for the
 * picture, XSF_ERR_ARG for a target that is not RGB. */
xsf_status xsf_rgb_fixed_make(xsf_rgb_fixed *f, const xsf_format *decoded, const xsf_colour *colour,
                              xsf_container target, xsf_error *err);

#ifdef __cplusplus
}
#endif

#endif
