/* Timing on the plant's clock (rtp.h): the frame-rate grid from the TAI
 * epoch and the 90 kHz RTP timestamps of ST 2110-10, both ways. The products
 * (ns x rate, frames x 90000 x den) pass 2^64 at today's times, so they are
 * taken in 128 bits. */
#include "rtp_internal.h"
#include "xsf_clock.h"

__extension__ typedef unsigned __int128 u128;

uint64_t rtp_tai_frame_index(uint64_t tai_ns, unsigned num, unsigned den)
{
    const u128 d = (u128)den * XSF_NS_PER_S;
    return (uint64_t)(((u128)tai_ns * num + d - 1) / d);
}

uint64_t rtp_tai_frame_ns(uint64_t n, unsigned num, unsigned den)
{
    return (uint64_t)((u128)n * den * XSF_NS_PER_S / num);
}

uint32_t rtp_tai_frame_timestamp(uint64_t n, unsigned num, unsigned den)
{
    return (uint32_t)((u128)n * den * RTP_CLOCK_HZ / num);
}

/* Ticks of the 90 kHz clock from the epoch to tai_ns, truncated. */
static uint64_t ticks_of(uint64_t tai_ns)
{
    return (uint64_t)((u128)tai_ns * RTP_CLOCK_HZ / XSF_NS_PER_S);
}

uint32_t rtp_tai_timestamp(uint64_t tai_ns)
{
    return (uint32_t)ticks_of(tai_ns);
}

uint64_t rtp_tai_unwrap_ns(uint32_t ts, uint64_t ref_tai_ns)
{
    const uint64_t ref = ticks_of(ref_tai_ns);
    const int32_t d = (int32_t)(ts - (uint32_t)ref); /* the nearest: within +-2^31 ticks */
    const uint64_t t = d < 0 && (uint64_t) - (int64_t)d > ref ? (uint64_t)(uint32_t)ts
                                                              : ref + (uint64_t)(int64_t)d;
    return (uint64_t)(((u128)t * XSF_NS_PER_S + RTP_CLOCK_HZ - 1) / RTP_CLOCK_HZ);
}
