/* Test pictures shared by the wavelet tests and the benchmark: a fixed-seed
 * generator, random samples and a photographic-like picture (smooth shading,
 * texture, sharp edges and sensor noise), never zeros. */
#ifndef XSF_WAV_TEST_DATA_H
#define XSF_WAV_TEST_DATA_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
