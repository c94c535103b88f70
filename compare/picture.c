/* Pictures of xsflow compare: owned copies and the synthetic test picture. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

void cmp_picture_free(xsf_picture *pic)
{
    if (pic)
        xsf_picture_unref(pic);
}

/* The session's pictures: every plane tightly packed, one after the other
 * in one zeroed block, so that the pinned and device copies are one copy
 * of the block (compare.c, make_source). */
static xsf_status packed_alloc(void *opaque, xsf_picture *p, void **alloc_data, xsf_error *err)
{
    (void)opaque;
    size_t total = 0;
    for (int c = 0; c < p->fmt.nc; c++) {
        const size_t n = (size_t)p->fmt.width[c] * (size_t)p->fmt.height[c];
        if (n > IMGIO_MAX_SAMPLES - total)
            return xsf_error_set(err, XSF_ERR_ARG, "picture of more than %zu samples",
                                 IMGIO_MAX_SAMPLES);
        total += n;
    }
    uint16_t *buf = calloc(total, sizeof *buf);
    if (!buf)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a picture of %zu samples", total);
    size_t off = 0;
    for (int c = 0; c < p->fmt.nc; c++) {
        p->stride[c] = xsf_format_row_bytes(&p->fmt, c);
        p->data[c] = (uint8_t *)(buf + off);
        off += (size_t)p->fmt.width[c] * (size_t)p->fmt.height[c];
    }
    *alloc_data = buf;
    return XSF_OK;
}

static void packed_release(void *opaque, xsf_picture *p, void *alloc_data)
{
    (void)opaque;
    (void)p;
    free(alloc_data);
}

static const xsf_picture_allocator packed_allocator = {NULL, packed_alloc, packed_release};

/* Allocates tightly packed planes for the format already in *pic. */
static xsf_status alloc_planes(xsf_picture *pic, xsf_error *err)
{
    for (int c = 0; c < pic->fmt.nc; c++)
        if (pic->fmt.width[c] < 1 || pic->fmt.height[c] < 1)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d is %dx%d", c, pic->fmt.width[c],
                                 pic->fmt.height[c]);
    pic->memory = XSF_MEMORY_HOST;
    pic->device = -1;
    return xsf_picture_alloc(pic, &packed_allocator, err);
}

xsf_status cmp_picture_copy(xsf_picture *dst, const xsf_picture *src, xsf_error *err)
{
    xsf_picture_init(dst);
    if (src->fmt.nc < 1 || src->fmt.nc > IMGIO_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "%d components", src->fmt.nc);
    dst->fmt = src->fmt;
    xsf_status st = alloc_planes(dst, err);
    if (st)
        return st;
    st = xsf_picture_copy(dst, src, err);
    if (st)
        xsf_picture_unref(dst);
    return st;
}

/* A fixed pseudo-random sequence (xorshift32), so the picture is the same
 * on every machine. */
static uint32_t next_random(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

xsf_status cmp_synthetic_picture(xsf_picture *pic, int width, int height, int nc, int depth,
                                 xsf_error *err)
{
    xsf_picture_init(pic);
    if (width < 16 || width > 16384 || height < 16 || height > 16384)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "synthetic picture %dx%d: expected 16..16384 each way", width, height);
    if ((nc != 1 && nc != 3) || depth < 8 || depth > 16)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "synthetic picture: %d components of %d bits (1 or 3, 8..16)", nc,
                             depth);
    pic->fmt.container = XSF_PLANAR_U16;
    pic->fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        pic->fmt.width[c] = width;
        pic->fmt.height[c] = height;
        pic->fmt.depth[c] = depth;
    }
    xsf_status st = alloc_planes(pic, err);
    if (st)
        return st;
    const double peak = (double)((1u << depth) - 1u);
    const double pi = 3.14159265358979323846;
    uint32_t seed = 0x2545f491u;
    /* Four regions a codec finds hard in different ways: a smooth colour
     * ramp (top left), a zone plate (top right: every frequency), sharp
     * edges of a checkerboard and disc (bottom left), and texture, a
     * low-passed noise field (bottom right), with mild noise everywhere. */
    double *noise = malloc(sizeof(double) * (size_t)width),
           *field = calloc((size_t)width, sizeof(double));
    if (!noise || !field) {
        free(noise);
        free(field);
        cmp_picture_free(pic);
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory");
    }
    for (int c = 0; c < nc; c++) {
        memset(field, 0, sizeof(double) * (size_t)width);
        for (int y = 0; y < height; y++) {
            uint16_t *row = xsf_picture_row16(pic, c, y);
            /* Noise low-passed along the row and down the columns: a grainy
             * texture, not white noise. */
            double acc = 0;
            for (int x = 0; x < width; x++) {
                acc = 0.9 * acc + 0.1 * ((double)(next_random(&seed) & 0xffff) / 65535.0 - 0.5);
                noise[x] = acc;
                field[x] = 0.9 * field[x] + 0.1 * acc;
            }
            for (int x = 0; x < width; x++) {
                const double u = (double)x / width, v = (double)y / height;
                double val;
                if (u < 0.5 && v < 0.5) {
                    val = 0.15 + 0.7 * (c == 0 ? u * 2 : (c == 1 ? v * 2 : (u + v)));
                } else if (v < 0.5) {
                    const double dx = u - 0.75, dy = v - 0.25;
                    val = 0.5 + 0.4 * cos(pi * 60.0 * (dx * dx + dy * dy) + c * 0.7);
                } else if (u < 0.5) {
                    const int check = ((x / 8) + (y / 8)) & 1;
                    const double dx = u - 0.25, dy = v - 0.75;
                    val =
                        dx * dx + dy * dy < 0.012 ? 0.85 - 0.2 * c : (check ? 0.25 + 0.1 * c : 0.6);
                } else {
                    val = 0.45 + 8.0 * field[x] +
                          0.15 * sin(2 * pi * 5 * u + c) * cos(2 * pi * 3 * v);
                }
                val += 0.02 * noise[x];
                val = val < 0 ? 0 : (val > 1 ? 1 : val);
                row[x] = (uint16_t)lround(val * peak);
            }
        }
    }
    free(field);
    free(noise);
    return XSF_OK;
}
