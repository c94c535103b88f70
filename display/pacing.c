/* The RTP clock of a stream and the pacing of a tile: plain arithmetic,
 * no GL, so that the tests check it alone. */
#include <string.h>

#include "display.h"
#include "xsf_clock.h"

int64_t dsp_now_ns(void)
{
    return (int64_t)xsf_clock_mono_ns();
}

void dsp_clock_init(dsp_clock *clk, uint32_t rate, int delay_ms)
{
    memset(clk, 0, sizeof *clk);
    clk->rate = rate ? rate : 90000;
    clk->delay_ns = (int64_t)(delay_ms < 0 ? 0 : delay_ms) * 1000000;
}

int64_t dsp_clock_map(dsp_clock *clk, uint32_t ts, int64_t arrival_ns)
{
    const int64_t jump_limit = (int64_t)clk->rate * 10;
    if (clk->anchored) {
        /* Serial-number arithmetic (RFC 3550): the difference modulo 2^32,
         * read as signed, handles the wrap in either direction. */
        const int64_t diff = (int32_t)(ts - clk->last_ts);
        if (diff > jump_limit || diff < -jump_limit) {
            clk->anchored = 0;
            clk->reanchors++;
        } else {
            clk->ext_ts += diff;
        }
    }
    if (!clk->anchored) {
        /* Media time counts from this timestamp; the offset is set below. */
        clk->anchored = 1;
        clk->ext_ts = 0;
        clk->offset_ns = arrival_ns;
        clk->last_ts = ts;
        return arrival_ns + clk->delay_ns;
    }
    clk->last_ts = ts;
    const int64_t media_ns = xsf_ticks_to_ns(clk->ext_ts, clk->rate);
    if (arrival_ns - media_ns < clk->offset_ns)
        clk->offset_ns = arrival_ns - media_ns;
    return media_ns + clk->offset_ns + clk->delay_ns;
}

void dsp_pacer_init(dsp_pacer *p)
{
    memset(p, 0, sizeof *p);
    p->shown = -1;
    p->next_seq = 1;
}

int dsp_pacer_push(dsp_pacer *p, int64_t pts, int *evicted)
{
    int slot = -1, oldest = -1;
    for (int i = 0; i < DSP_PACER_SLOTS; i++) {
        if (i == p->shown)
            continue;
        if (!p->seq[i]) {
            slot = i;
            break;
        }
        if (oldest < 0 || p->seq[i] < p->seq[oldest])
            oldest = i;
    }
    *evicted = slot < 0;
    if (slot < 0) {
        slot = oldest;
        p->dropped_full++;
    }
    p->seq[slot] = p->next_seq++;
    p->pts[slot] = pts;
    p->pushed++;
    return slot;
}

int dsp_pacer_pick(dsp_pacer *p, int64_t deadline, int paced)
{
    /* The newest waiting picture that is due (every one without pacing). */
    int best = -1;
    for (int i = 0; i < DSP_PACER_SLOTS; i++) {
        if (i == p->shown || !p->seq[i] || (paced && p->pts[i] > deadline))
            continue;
        if (best < 0 || p->seq[i] > p->seq[best])
            best = i;
    }
    if (best < 0)
        return -1;
    /* The other due pictures (older in push order) missed their slot. */
    for (int i = 0; i < DSP_PACER_SLOTS; i++) {
        if (i == p->shown || i == best || !p->seq[i] || p->seq[i] > p->seq[best] ||
            (paced && p->pts[i] > deadline))
            continue;
        p->seq[i] = 0;
        p->dropped_late++;
    }
    if (p->shown >= 0)
        p->seq[p->shown] = 0;
    p->shown = best;
    p->presented++;
    return best;
}

void dsp_pacer_flush(dsp_pacer *p)
{
    for (int i = 0; i < DSP_PACER_SLOTS; i++)
        if (i != p->shown)
            p->seq[i] = 0;
}
