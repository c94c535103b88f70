/* MSB-first bit reader over a bounded buffer. Reading past the end never
 * touches memory beyond it: it sets `overrun` and yields zeros. */
#ifndef XS_BITREADER_H
#define XS_BITREADER_H

#include <stddef.h>
#include <stdint.h>

typedef struct xs_bits {
    const uint8_t *buf;
    size_t len_bytes;
    size_t len_bits;
    size_t pos_bits;
    int overrun;
} xs_bits;

static inline void xs_bits_init(xs_bits *b, const uint8_t *buf, size_t len_bytes)
{
    b->buf = buf;
    b->len_bytes = len_bytes;
    b->len_bits = len_bytes * 8;
    b->pos_bits = 0;
    b->overrun = 0;
}

/* Eight bytes starting at `byte`, big-endian, zeros past the end. */
static inline uint64_t xs_bits_load64(const xs_bits *b, size_t byte)
{
    const uint8_t *p = b->buf + byte;
    if (byte + 8 <= b->len_bytes) {
        return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
               ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
               ((uint64_t)p[6] << 8) | (uint64_t)p[7];
    }
    uint64_t v = 0;
    for (size_t i = 0; i < 8; i++)
        v = (v << 8) | (byte + i < b->len_bytes ? p[i] : 0);
    return v;
}

/* Reads n bits, 1 <= n <= 32. */
static inline uint32_t xs_bits_get(xs_bits *b, unsigned n)
{
    if (n > b->len_bits - b->pos_bits) {
        b->overrun = 1;
        b->pos_bits = b->len_bits;
        return 0;
    }
    uint64_t w = xs_bits_load64(b, b->pos_bits >> 3) << (b->pos_bits & 7);
    b->pos_bits += n;
    return (uint32_t)(w >> (64 - n));
}

/* Unary code of 21122-1 C.7: a run of 1 bits ended by a 0; returns the run
 * length, or -1 if it is longer than `max` or runs past the end. */
static inline int xs_bits_unary(xs_bits *b, int max)
{
    uint64_t w = xs_bits_load64(b, b->pos_bits >> 3) << (b->pos_bits & 7);
    uint64_t inv = ~w;
    int ones = inv ? __builtin_clzll(inv) : 64;
    if (ones > max || (size_t)ones + 1 > b->len_bits - b->pos_bits) {
        b->overrun = 1;
        b->pos_bits = b->len_bits;
        return -1;
    }
    b->pos_bits += (size_t)ones + 1;
    return ones;
}

static inline void xs_bits_align(xs_bits *b)
{
    b->pos_bits = (b->pos_bits + 7) & ~(size_t)7;
    if (b->pos_bits > b->len_bits) {
        b->pos_bits = b->len_bits;
        b->overrun = 1;
    }
}

static inline size_t xs_bits_bytes_used(const xs_bits *b)
{
    return (b->pos_bits + 7) >> 3;
}

#endif
