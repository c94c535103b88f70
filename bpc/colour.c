/* Front end and back end of the C codec: samples to the planes the DWT
 * transforms (level shift, colour transform) and back (inverse colour
 * transform, level shift, clamp). Planes are `width` elements per row. */
#include "bpc_internal.h"
#include "colour_rules.h"
#include "xsf_colour.h"

void bpc_front_int(const bpc_layout *lay, const xsf_picture *img, int32_t *const *planes)
{
    for (int c = 0; c < lay->nc; c++) {
        const size_t w = (size_t)lay->width[c], h = (size_t)lay->height[c];
        const int32_t shift = 1 << (lay->depth[c] - 1);
        for (size_t y = 0; y < h; y++) {
            const uint16_t *row = xsf_picture_row16(img, c, (int)y);
            for (size_t x = 0; x < w; x++)
                planes[c][y * w + x] = (int32_t)row[x] - shift;
        }
    }
    if (lay->colour == BPC_COLOUR_RCT) {
        const size_t n = (size_t)lay->width[0] * lay->height[0];
        for (size_t i = 0; i < n; i++)
            bpc_rct_forward(planes[0][i], planes[1][i], planes[2][i], &planes[0][i], &planes[1][i],
                            &planes[2][i]);
    }
}

void bpc_front_float(const bpc_layout *lay, const xsf_picture *img, float *const *planes)
{
    for (int c = 0; c < lay->nc; c++) {
        const size_t w = (size_t)lay->width[c], h = (size_t)lay->height[c];
        const float shift = (float)(1 << (lay->depth[c] - 1));
        for (size_t y = 0; y < h; y++) {
            const uint16_t *row = xsf_picture_row16(img, c, (int)y);
            for (size_t x = 0; x < w; x++)
                planes[c][y * w + x] = (float)row[x] - shift;
        }
    }
    if (lay->colour == BPC_COLOUR_ICT) {
        const size_t n = (size_t)lay->width[0] * lay->height[0];
        for (size_t i = 0; i < n; i++)
            bpc_ict_forward(planes[0][i], planes[1][i], planes[2][i], &planes[0][i], &planes[1][i],
                            &planes[2][i]);
    }
}

void bpc_back_int(const bpc_layout *lay, int32_t *const *planes, const xsf_picture *out)
{
    const int ct = lay->colour == BPC_COLOUR_RCT;
    for (int c = 0; c < lay->nc; c++) {
        const size_t w = (size_t)lay->width[c], h = (size_t)lay->height[c];
        for (size_t y = 0; y < h; y++) {
            uint16_t *row = xsf_picture_row16(out, c, (int)y);
            for (size_t x = 0; x < w; x++) {
                const size_t i = y * w + x;
                int32_t v = planes[c][i];
                if (ct && c < 3) {
                    int32_t r, g, b;
                    bpc_rct_inverse(planes[0][i], planes[1][i], planes[2][i], &r, &g, &b);
                    v = c == 0 ? r : (c == 1 ? g : b);
                }
                row[x] = bpc_to_sample_int(v, lay->depth[c]);
            }
        }
    }
}

void bpc_back_float(const bpc_layout *lay, float *const *planes, const xsf_picture *out)
{
    const int ct = lay->colour == BPC_COLOUR_ICT;
    for (int c = 0; c < lay->nc; c++) {
        const size_t w = (size_t)lay->width[c], h = (size_t)lay->height[c];
        for (size_t y = 0; y < h; y++) {
            uint16_t *row = xsf_picture_row16(out, c, (int)y);
            for (size_t x = 0; x < w; x++) {
                const size_t i = y * w + x;
                float v = planes[c][i];
                if (ct && c < 3) {
                    float r, g, b;
                    bpc_ict_inverse(planes[0][i], planes[1][i], planes[2][i], &r, &g, &b);
                    v = c == 0 ? r : (c == 1 ? g : b);
                }
                row[x] = bpc_to_sample_float(v, lay->depth[c]);
            }
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
