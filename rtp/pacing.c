/* Send times after SMPTE ST 2110-21 (traffic shaping of video over IP),
 * which RFC 9134 5 recommends; the SDP then says so with TP.
 *
 * Compressed video has no vertical blanking to leave out, so packets are
 * spread over the whole frame period (RACTIVE = 1, the "linear" model):
 * TRS = TFRAME / NPACKETS. A narrow sender sends one packet every TRS
 * (narrow linear, TP=2110TPNL); a wide sender (TP=2110TPW) may send in
 * bursts, here of CMAX - 1 packets every (CMAX - 1) x TRS, which keeps its
 * instantaneous count below the wide CMAX. The CMAX bounds are those of
 * ST 2110-21's network compatibility model as we know them (the standard's
 * text was not at hand): narrow MAX(4, NPACKETS / (43200 x RACTIVE x
 * TFRAME)), wide MAX(16, NPACKETS / (21600 x TFRAME)).
 *
 * Bursts: a sender may hand the network B packets at once every B x TRS
 * (one system call, one GSO message) and stay within its type as long as the
 * network model's bucket, drained at one packet per TRS, never holds CMAX:
 * right after a burst it holds B, so B <= CMAX - 1 (narrow UHD60 3 bpp: 2160
 * packets a frame, CMAX 4, bursts of 3). rtp_pacing_burst_default gives that
 * bound for narrow and wide; 1 is strict one-by-one linear sending. */
#include "rtp_internal.h"

unsigned rtp_pacing_cmax(rtp_pacing pacing, size_t npackets, uint64_t frame_ns)
{
    if (!frame_ns)
        return 0;
    const double tframe = (double)frame_ns / 1e9;
    if (pacing == RTP_PACING_NARROW) {
        const double c = (double)npackets / (43200.0 * tframe);
        return c > 4 ? (unsigned)c : 4;
    }
    const double c = (double)npackets / (21600.0 * tframe);
    return c > 16 ? (unsigned)c : 16;
}

const char *rtp_pacing_tp(rtp_pacing pacing)
{
    return pacing == RTP_PACING_NARROW ? "2110TPNL" : pacing == RTP_PACING_WIDE ? "2110TPW" : NULL;
}

unsigned rtp_pacing_burst_default(rtp_pacing pacing, size_t npackets, uint64_t frame_ns)
{
    if (pacing == RTP_PACING_NONE || pacing == RTP_PACING_FRAME)
        return npackets > 0xffffffffu ? 0xffffffffu : (unsigned)(npackets ? npackets : 1);
    const unsigned cmax = rtp_pacing_cmax(pacing, npackets, frame_ns);
    return cmax > 1 ? cmax - 1 : 1;
}

uint64_t rtp_pacing_burst_offset_ns(rtp_pacing pacing, size_t index, size_t npackets,
                                    uint64_t frame_ns, unsigned burst)
{
    if (pacing == RTP_PACING_NONE || pacing == RTP_PACING_FRAME || !npackets || index >= npackets)
        return 0;
    if (!burst)
        burst = rtp_pacing_burst_default(pacing, npackets, frame_ns);
    index = index / burst * burst; /* a burst leaves at the time of its first packet */
    /* index x TFRAME / NPACKETS without overflow for any realistic frame */
    return (uint64_t)index * frame_ns / npackets; /* < 2^22 x 10^10: fits */
}

uint64_t rtp_pacing_offset_ns(rtp_pacing pacing, size_t index, size_t npackets, uint64_t frame_ns)
{
    return rtp_pacing_burst_offset_ns(pacing, index, npackets, frame_ns,
                                      pacing == RTP_PACING_NARROW ? 1 : 0);
}

uint32_t rtp_frame_timestamp(uint32_t base, uint64_t n, unsigned num, unsigned den)
{
    if (!num)
        return base;
    /* 90 kHz x n x den / num, exact in integers (RFC 9134: 90 kHz clock). */
    const uint64_t ticks = n * RTP_CLOCK_HZ * den / num; /* fits for 10^9 frames at den 1001 */
    return base + (uint32_t)ticks;
}
