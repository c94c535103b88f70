/* The colour conversion shared by the C reference (convert.c) and the
 * fragment shader (gl_render.c), which receives these numbers as uniforms:
 * for components c0, c1, c2 (samples s at the picture's depth)
 *     e_k = s_k * in_scale[k] + in_bias[k]      (to Y' Pb Pr or R' G' B' in 0..1)
 *     out = m * e                               (R' G' B', then clamped to 0..1) */
#ifndef XSF_DISPLAY_COLOUR_H
#define XSF_DISPLAY_COLOUR_H

#include "display.h"

typedef struct dsp_transform {
    double in_scale[3], in_bias[3];
    double m[3][3]; /* rows: R', G', B'; columns: components 0, 1, 2 */
} dsp_transform;

/* nc 1 (gray: every output is component 0) or 3; the colour description
 * read as display.h says. */
void dsp_transform_make(dsp_transform *t, const xsf_colour *colour, int depth, int nc);

#endif
