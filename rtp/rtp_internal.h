/* Internal helpers of rtp/: big-endian access and time. */
#ifndef XSF_RTP_INTERNAL_H
#define XSF_RTP_INTERNAL_H

#include <stdint.h>

#include "rtp.h"

static inline uint16_t rtp_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t rtp_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void rtp_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void rtp_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t rtp_now_ns(void);

#endif
