/* Internal helpers of rtp/: big-endian access and time. */
#ifndef XSF_RTP_INTERNAL_H
#define XSF_RTP_INTERNAL_H

#include <stddef.h>
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

/* The RFC 9134 payload header's fields from its 4 bytes, unchecked: rtp_jxs_header_parse
 * with its checks, and the depacketizer for a packet it checked when it stored it. */
static inline void rtp_jxs_header_read(const uint8_t *p, rtp_jxs_header *h)
{
    h->t = (uint8_t)(p[0] >> 7);
    h->k = (uint8_t)(p[0] >> 6 & 1);
    h->l = (uint8_t)(p[0] >> 5 & 1);
    h->i = (uint8_t)(p[0] >> 3 & 3);
    h->f = (uint8_t)((p[0] & 7) << 2 | p[1] >> 6);
    h->sep = (uint16_t)((p[1] & 0x3f) << 5 | p[2] >> 3);
    h->p = (uint16_t)((p[2] & 7) << 8 | p[3]);
}

/* ---- source validation (source.c): SSRCs on probation, RFC 3550 A.1 ---- */

/* A packet held while its SSRC is on probation: what the depacketizer needs of it. */
typedef struct rtp_held {
    uint16_t seq;
    uint32_t timestamp;
    uint8_t marker;
    size_t len; /* the RTP packet's bytes */
    uint64_t arrival_ns;
    const uint8_t *payload; /* into the store */
    size_t payload_bytes;
} rtp_held;

typedef struct rtp_sources rtp_sources;

/* A store for RTP_SOURCES_MAX SSRCs on probation, each holding up to 2 x `probation`
 * (at most 16) packets of at most `payload_cap` payload bytes. */
#define RTP_SOURCES_MAX 16
xsf_status rtp_sources_create(rtp_sources **s, unsigned probation, size_t payload_cap,
                              xsf_error *err);
void rtp_sources_destroy(rtp_sources *s);
/* Holds packet `h` (h->payload_bytes <= payload_cap) of an SSRC on probation. When that
 * SSRC has now had `probation` packets in sequence, returns how many of its packets are
 * held and points *held at them, in arrival order (valid until the next call); otherwise
 * returns 0. Packets given up on (a source pushed out of the store, a sequence jump that
 * restarts a probation, more packets than a source may hold) are added to *dropped. */
size_t rtp_sources_offer(rtp_sources *s, const rtp_header *h, size_t len, uint64_t arrival_ns,
                         const rtp_held **held, uint64_t *dropped);
/* End of input: the source with the most packets in sequence, when one leads alone (a
 * stream too short to pass probation); returns how many packets it holds (0: none leads)
 * and points *held at them as rtp_sources_offer does; it leaves the store. */
size_t rtp_sources_leader(rtp_sources *s, uint32_t *ssrc, const rtp_held **held);
/* The memory a store holds (for the depacketizer's accounting), and would hold. */
size_t rtp_sources_bytes(const rtp_sources *s);
size_t rtp_sources_bytes_for(unsigned probation, size_t payload_cap);
/* Forgets every source on probation; returns how many packets they held. */
uint64_t rtp_sources_clear(rtp_sources *s);

/* ---- a stream's pace (seq_pace.c): where a packet goes after a long gap ---- */

/* What a stream's in-sequence steps (at most 3000 numbers, under a second) say of its
 * pace: sequence numbers per RTP clock tick and per nanosecond of arrival, over the last
 * million or so packets; and its highest number's timestamp and arrival. A path cut and
 * restored, or a sender silent for a while, leaves a gap of more numbers than the 16-bit
 * field tells apart (2 s of UHD60 is 262,000 packets, four wraps); the pace places the
 * first packet after it, and tells such a gap from a sender's restart (RFC 3550 A.1
 * takes any jump of more than 3000 for one): its RTP timestamp moved on as the arrival
 * clock did, and its number is where the pace puts it. */
typedef struct rtp_seq_pace {
    uint64_t packets_t, ticks; /* numbers and RTP clock ticks over the steps */
    uint64_t packets_n, ns;    /* numbers and arrival nanoseconds over the steps with times */
    int have;
    uint64_t ext; /* the highest number noted, its timestamp and arrival (0: none) */
    uint32_t ts;
    uint64_t arrival_ns;
} rtp_seq_pace;

/* Steps summed before the sums are halved: the pace follows a stream whose rate changes,
 * over the last million or so packets. */
#define RTP_PACE_HALVE_AT ((uint64_t)1 << 21)
/* In-sequence steps: at most this many numbers and this much time. */
#define RTP_PACE_STEP_MAX 3000u
#define RTP_PACE_STEP_NS 1000000000ull
/* Packets the pace must have seen before it places anything. */
#define RTP_PACE_MIN_PACKETS 64u

/* The highest number moved to ext (a number not above the highest is ignored). Called for
 * every packet a receiver takes: inline, a few additions and no division on the way of a
 * stream in sequence. */
static inline void rtp_seq_pace_note(rtp_seq_pace *p, uint64_t ext, uint32_t ts,
                                     uint64_t arrival_ns)
{
    if (p->have && ext <= p->ext)
        return;
    if (p->have && ext - p->ext <= RTP_PACE_STEP_MAX) {
        const uint32_t dts = ts - p->ts;
        if (dts < RTP_CLOCK_HZ) {
            p->packets_t += ext - p->ext;
            p->ticks += dts;
        }
        if (arrival_ns && p->arrival_ns && arrival_ns >= p->arrival_ns &&
            arrival_ns - p->arrival_ns < RTP_PACE_STEP_NS) {
            p->packets_n += ext - p->ext;
            p->ns += arrival_ns - p->arrival_ns;
        }
        if (p->packets_t > RTP_PACE_HALVE_AT) {
            p->packets_t /= 2;
            p->ticks /= 2;
        }
        if (p->packets_n > RTP_PACE_HALVE_AT) {
            p->packets_n /= 2;
            p->ns /= 2;
        }
    }
    p->have = 1;
    p->ext = ext;
    p->ts = ts;
    p->arrival_ns = arrival_ns;
}

/* The numbers the pace expects since the highest's arrival (0: not known). */
uint64_t rtp_seq_pace_expected(const rtp_seq_pace *p, uint64_t arrival_ns);

/* rtp_seq_pace_expected(p, arrival_ns) > n, for every packet a receiver takes: where the
 * exact expectation (arrival - highest's arrival) x packets_n / ns is at most n, so is the
 * rounded one, which is within a few parts in 10^16 of it (n is far below 10^15), so one
 * multiplication decides; only a gap near or past n numbers divides. */
static inline int rtp_seq_pace_beyond(const rtp_seq_pace *p, uint64_t arrival_ns, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    if (!p->have || !arrival_ns || !p->arrival_ns || arrival_ns <= p->arrival_ns ||
        p->packets_n < RTP_PACE_MIN_PACKETS || !p->ns)
        return 0;
    if ((u128)(arrival_ns - p->arrival_ns) * p->packets_n <= (u128)n * p->ns)
        return 0;
    return rtp_seq_pace_expected(p, arrival_ns) > n;
}
/* Where packet (seq, ts, arrival_ns; 0: no arrival time) goes after the highest: 1 and
 * *ext, a number above the highest, when its timestamp moved on by the arrival time
 * elapsed (within a quarter and 100 ms; without arrival times, by at most a minute) and
 * seq is within a quarter of the numbers the pace predicts for that time (and 3000); 0
 * otherwise (a restart, a stray packet, a stream too young to have a pace). */
int rtp_seq_pace_place(const rtp_seq_pace *p, uint16_t seq, uint32_t ts, uint64_t arrival_ns,
                       uint64_t *ext);

#endif
