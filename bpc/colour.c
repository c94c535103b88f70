/* Front end and back end of the C codec: samples to the planes the DWT
 * transforms (level shift, colour transform) and back (inverse colour
 * transform, level shift, clamp). Planes are `width` elements per row. */
#include "bpc_internal.h"
#include "colour_rules.h"
#include "xsf_colour.h"

/* Planes hold int32 for the 5/3, float for the 9/7; the RCT goes with the
 * 5/3 and the ICT with the 9/7 (the header reader and the layout hold to it). */

void bpc_front(const bpc_layout *lay, const xsf_picture *img, void *const *planes)
{
    const int is_float = lay->filter == BPC_FILTER_97;
    for (int c = 0; c < lay->nc; c++) {
        const size_t w = (size_t)lay->width[c], h = (size_t)lay->height[c];
        const int32_t shift = 1 << (lay->depth[c] - 1);
        int32_t *ip = planes[c];
        float *fp = planes[c];
        for (size_t y = 0; y < h; y++) {
            const uint16_t *row = xsf_picture_row16(img, c, (int)y);
            for (size_t x = 0; x < w; x++) {
                const int32_t v = (int32_t)row[x] - shift; /* exact in a float too: |v| < 2^16 */
                if (is_float)
                    fp[y * w + x] = (float)v;
                else
                    ip[y * w + x] = v;
            }
        }
    }
    const size_t n = (size_t)lay->width[0] * lay->height[0];
    if (lay->colour == BPC_COLOUR_RCT) {
        int32_t *const *p = (int32_t *const *)planes;
        for (size_t i = 0; i < n; i++)
            bpc_rct_forward(p[0][i], p[1][i], p[2][i], &p[0][i], &p[1][i], &p[2][i]);
    } else if (lay->colour == BPC_COLOUR_ICT) {
        float *const *p = (float *const *)planes;
        for (size_t i = 0; i < n; i++)
            bpc_ict_forward(p[0][i], p[1][i], p[2][i], &p[0][i], &p[1][i], &p[2][i]);
    }
}

void bpc_back(const bpc_layout *lay, void *const *planes, const xsf_picture *out)
{
    const size_t n = (size_t)lay->width[0] * lay->height[0];
    if (lay->colour == BPC_COLOUR_RCT) {
        int32_t *const *p = (int32_t *const *)planes;
        for (size_t i = 0; i < n; i++)
            bpc_rct_inverse(p[0][i], p[1][i], p[2][i], &p[0][i], &p[1][i], &p[2][i]);
    } else if (lay->colour == BPC_COLOUR_ICT) {
        float *const *p = (float *const *)planes;
        for (size_t i = 0; i < n; i++)
            bpc_ict_inverse(p[0][i], p[1][i], p[2][i], &p[0][i], &p[1][i], &p[2][i]);
    }
    const int is_float = lay->filter == BPC_FILTER_97;
    for (int c = 0; c < lay->nc; c++) {
        const size_t w = (size_t)lay->width[c], h = (size_t)lay->height[c];
        const int32_t *ip = planes[c];
        const float *fp = planes[c];
        for (size_t y = 0; y < h; y++) {
            uint16_t *row = xsf_picture_row16(out, c, (int)y);
            for (size_t x = 0; x < w; x++)
                row[x] = is_float ? bpc_to_sample_float(fp[y * w + x], lay->depth[c])
                                  : bpc_to_sample_int(ip[y * w + x], lay->depth[c]);
        }
    }
}

void bpc_transform_colour(bpc_colour transform, xsf_colour *colour)
{
    if (transform == BPC_COLOUR_RCT || transform == BPC_COLOUR_ICT)
        xsf_colour_rgb(colour, XSF_COLOUR_CODESTREAM);
    else
        xsf_colour_default(colour);
}
