/* Test pictures shared by the wavelet tests and the benchmark: a fixed-seed
 * generator, random samples and a photographic-like picture (smooth shading,
 * texture, sharp edges and sensor noise), never zeros. */
#ifndef XSF_WAV_TEST_DATA_H
#define XSF_WAV_TEST_DATA_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "wavelet.h"

typedef struct wav_rng {
    uint64_t s;
} wav_rng;

static inline uint32_t wav_rng_next(wav_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

/* Uniform in [-range, range]. */
static inline int32_t wav_rng_range(wav_rng *r, int32_t range)
{
    return (int32_t)(wav_rng_next(r) % (2u * (uint32_t)range + 1u)) - range;
}

/* A 12-bit picture minus its mid level (JPEG XS and JPEG 2000 DC shift): a
 * shaded background, a sinusoidal texture, a few rectangles with sharp edges
 * and +-8 noise. (x, y) are picture coordinates, so that crops look alike. */
static inline int32_t wav_photo_sample(wav_rng *r, size_t x, size_t y, size_t w, size_t h)
{
    const double u = (double)x / (double)(w > 1 ? w - 1 : 1);
    const double v = (double)y / (double)(h > 1 ? h - 1 : 1);
    double s = 1400.0 * u + 900.0 * v * v + 300.0 * sin(0.07 * (double)x) * cos(0.05 * (double)y);
    if (((x / 97) + (y / 61)) % 5 == 0)
        s += 1200.0;
    if ((x * 3 + y * 7) % 211 < 9)
        s -= 700.0;
    s += (double)wav_rng_range(r, 8);
    int32_t q = (int32_t)s;
    if (q < 0)
        q = 0;
    if (q > 4095)
        q = 4095;
    return q - 2048;
}

/* Whether the coefficient at Mallat position (x, y) of a plane is final when
 * the coefficients of image rows [0, rows_in) are, by the definition of
 * wav_inverse_rows_final (wavelet.h), written out independently of the
 * library: a band of vertical level l (1..levels_v) holds its rows
 * [0, rows_in >> l), the bands of the horizontal-only levels and the final
 * LL band their rows [0, rows_in >> levels_v), every band all of its rows
 * when rows_in >= height. A level l <= levels_v whose band is already 1 row
 * high (tiny heights) splits only horizontally: its HL band is rows
 * [0, lh(l)) = [0, 1), its LH and HH bands are empty, and it still counts as
 * vertical level l. The row of a coefficient within its band is y for the HL
 * and LL bands, y - lh(l) for the LH and HH bands. */
static inline int wav_test_coefficient_final(const wav_plan_desc *d, size_t rows_in, size_t x,
                                             size_t y)
{
    if (rows_in >= d->height)
        return 1;
    for (int l = 1; l <= d->levels_h; l++) {
        const int vl = l < d->levels_v ? l : d->levels_v; /* rows split so far */
        const size_t lw = wav_low_len(d->width, l), lh = wav_low_len(d->height, vl);
        if (x < lw && y < lh)
            continue; /* in the low band that the next levels split */
        const size_t row = y >= lh ? y - lh : y;
        return row < (rows_in >> vl);
    }
    return y < (rows_in >> d->levels_v); /* LL */
}

/* The rows_in values tried on a picture of height h: all of 0..h + 5 for short
 * pictures; otherwise 0, multiples of 2^lv in growing steps (1, 1, 2, 3, 5, 8,
 * ... units of 2^lv), after each a value that is not a multiple, then h - 1,
 * h and h + 5. Growing; cap >= 8. */
static inline size_t wav_test_rows_sequence(size_t h, int lv, size_t r[], size_t cap)
{
    const size_t unit = (size_t)1 << lv;
    size_t n = 0;
    if (h <= 40) {
        for (size_t v = 0; v <= h + 5 && n < cap; v++)
            r[n++] = v;
        return n;
    }
    size_t step = 1, next = 1;
    for (size_t v = 0; v + 1 < h && n + 5 < cap; v += step * unit) {
        r[n++] = v;
        const size_t odd = (n & 1) ? 1 : unit - 1; /* 1..unit-1: not a multiple */
        if (unit > 1 && v + odd + 1 < h)
            r[n++] = v + odd;
        const size_t t = step + next;
        step = next;
        next = t;
    }
    r[n++] = h - 1;
    r[n++] = h;
    r[n++] = h + 5;
    return n;
}

#endif
