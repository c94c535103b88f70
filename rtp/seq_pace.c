/* A stream's pace (rtp_internal.h): placing the first packet after a gap that
 * the 16-bit sequence numbers alone cannot measure. */
#include "rtp_internal.h"

uint64_t rtp_seq_pace_expected(const rtp_seq_pace *p, uint64_t arrival_ns)
{
    if (!p->have || !arrival_ns || !p->arrival_ns || arrival_ns <= p->arrival_ns ||
        p->packets_n < RTP_PACE_MIN_PACKETS || !p->ns)
        return 0;
    return (uint64_t)((double)(arrival_ns - p->arrival_ns) * (double)p->packets_n / (double)p->ns);
}

int rtp_seq_pace_place(const rtp_seq_pace *p, uint16_t seq, uint32_t ts, uint64_t arrival_ns,
                       uint64_t *ext)
{
    if (!p->have)
        return 0;
    const int32_t dts = (int32_t)(ts - p->ts);
    if (dts < 0)
        return 0; /* behind in media time: not this stream going on */
    const double media_ns = (double)dts * 1e9 / RTP_CLOCK_HZ;
    const int arrivals = arrival_ns && p->arrival_ns && arrival_ns >= p->arrival_ns;
    if (arrivals) {
        /* The timestamps moved on as the clock did (a path restored), give or take a
         * quarter and 100 ms (pacing, a frame's time, a sender late). */
        const double gap_ns = (double)(arrival_ns - p->arrival_ns);
        const double off = media_ns > gap_ns ? media_ns - gap_ns : gap_ns - media_ns;
        if (off > 1e8 + gap_ns / 4)
            return 0;
    } else if (dts > 60 * RTP_CLOCK_HZ) {
        return 0; /* no clock to hold it to: a minute at most */
    }
    double pred;
    if (p->packets_t >= RTP_PACE_MIN_PACKETS && p->ticks)
        pred = (double)dts * (double)p->packets_t / (double)p->ticks;
    else if (arrivals && p->packets_n >= RTP_PACE_MIN_PACKETS && p->ns)
        pred = (double)(arrival_ns - p->arrival_ns) * (double)p->packets_n / (double)p->ns;
    else
        return 0;
    /* The number of this 16-bit value nearest the prediction, ahead of the highest. */
    const uint64_t target = p->ext + (uint64_t)pred;
    const uint64_t cand = target + (uint64_t)(int64_t)(int16_t)(uint16_t)(seq - (uint16_t)target);
    const double miss = cand > target ? (double)(cand - target) : (double)(target - cand);
    if (cand <= p->ext || miss > pred / 4 + RTP_PACE_STEP_MAX)
        return 0;
    *ext = cand;
    return 1;
}
