/* xsflow RTP, receivers: SMPTE ST 2022-7 seamless protection. The legs of one
 * stream (the same RTP packets sent over two separate networks, "red" and
 * "blue") are merged packet by packet by RTP sequence number before the
 * depacketizer: the first copy of a number is passed on, every later copy
 * is dropped before its payload is looked at. A frame is then whole when
 * each of its packets came on at least one leg.
 *
 * The merger decides nothing about frames and holds no packet: it only
 * remembers, for the last `window` numbers, which legs delivered each one
 * and when. The wait for a copy that a lagging leg still has to deliver is
 * the depacketizer's reorder window (its reorder_ns and reorder_packets must
 * cover the skew: rtp_merger_reorder_packets).
 *
 * Sequence numbers: each leg's 16-bit numbers are extended to 32 bits
 * across wraps by that leg's own history (RFC 3550 A.1), so a leg that lags
 * the other by more than half the 16-bit space is still placed right. A leg
 * that starts, or comes back after a silence, is placed by the number
 * nearest the merged sequence's highest; where the window holds more than
 * 32768 numbers, the candidate a wrap apart whose recorded RTP timestamp is
 * the packet's wins.
 *
 * Memory (bounded, allocated at create, nothing per packet):
 *   window = the power of two >= window_ms x max_packet_rate / 1000, at
 *            least 1024 (numbers remembered)
 *   bytes  = window x (24 + 8 x legs) + legs x 4 x (40 x window_ms + 1)
 *            + a few hundred bytes (rtp_merger_memory_bound).
 * With the defaults (50 ms, 500,000 packets/s: 10 Gb/s of 2.5 kB packets,
 * UHD60 JPEG XS at 3 bpp is about 131,000 packets/s) and two legs: a window
 * of 32768 numbers, 1.25 MiB. At 450 ms (ST 2022-7:2019 high skew):
 * 262144 numbers, 10 MiB.
 *
 * A leg that is silent costs nothing but its counts: every number it misses
 * is charged to it (packets_lost) and the copy another leg delivered is
 * counted recovered. A leg that comes back is taken again at once.
 *
 * Nothing here prints; one thread uses a merger. */
#ifndef XSF_RTP_MERGE_H
#define XSF_RTP_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RTP_LEGS_MAX 4
#define RTP_MERGE_WINDOW_MS_DEFAULT 50  /* ST 2022-7:2019 moderate skew (class B) */
#define RTP_MERGE_WINDOW_MS_MAX 450     /* ST 2022-7:2019 high skew (class C) */
#define RTP_MERGE_RATE_DEFAULT 500000u  /* packets per second the window is sized for */
#define RTP_LEG_SILENT_NS 1000000000ull /* a leg without a packet this long is silent */

typedef struct rtp_merger_config {
    unsigned legs;            /* 1..RTP_LEGS_MAX */
    unsigned window_ms;       /* the path skew tolerated, 1..RTP_MERGE_WINDOW_MS_MAX (0: 50) */
    unsigned max_packet_rate; /* packets per second the window must hold (0: 500,000) */
} rtp_merger_config;

typedef struct rtp_leg_stats {
    uint64_t packets_received; /* RTP packets of the stream on this leg, copies included */
    uint64_t packets_lost;     /* numbers of the merged sequence this leg did not deliver
                                  within the window, counted from its first packet */
    uint64_t duplicates;       /* a number this leg had delivered already */
    uint64_t first_arrival_ns, last_arrival_ns; /* 0: none yet */
    double last_packet_age_ms; /* the merger's clock minus last_arrival_ns (since the first
                                  packet of any leg when it has none) */
    /* This leg's arrival minus the first leg's, of the same number (ms; negative: this leg
     * is ahead); over every number both delivered. The first leg's are 0. */
    uint64_t skew_samples;
    double skew_p50_ms; /* to 0.05 ms */
    double skew_max_ms; /* the largest in magnitude, with its sign */
    int silent;         /* no packet for RTP_LEG_SILENT_NS (by the merger's clock) */
    uint64_t silences;  /* times it fell silent */
    uint64_t returns;   /* times it came back after a silence */
} rtp_leg_stats;

typedef struct rtp_merge_stats {
    unsigned legs;
    uint64_t passed;            /* first copies, passed on */
    uint64_t dropped;           /* later copies, dropped (duplicates between and in legs) */
    uint64_t packets_recovered; /* numbers a counting leg missed and another delivered */
    uint64_t packets_lost;      /* numbers no leg delivered within the window */
    uint64_t too_old;           /* copies of numbers behind the window: dropped */
    uint64_t late;              /* a number given up on (lost), then delivered: passed on */
    uint64_t unmerged;          /* not RTP, or of another SSRC: passed on unmerged */
    uint64_t ssrc_changes;      /* the merged SSRC changed (the old silent 1 s): restarted */
    uint32_t ssrc;
    uint64_t window;       /* numbers remembered */
    uint64_t memory_bytes; /* held, rtp_merger_memory_bound */
    uint64_t now_ns;       /* the merger's clock: the latest arrival or poll */
    rtp_leg_stats leg[RTP_LEGS_MAX];
} rtp_merge_stats;

typedef struct rtp_merger rtp_merger;

/* XSF_ERR_ARG for legs or window_ms out of bounds, XSF_ERR_NOMEM. */
xsf_status rtp_merger_create(rtp_merger **m, const rtp_merger_config *c, xsf_error *err);
void rtp_merger_destroy(rtp_merger *m);
/* The bytes a merger of this configuration holds (all of it allocated at create). */
size_t rtp_merger_memory_bound(const rtp_merger_config *c);
/* Numbers the window remembers. */
size_t rtp_merger_window(const rtp_merger_config *c);
/* A depacketizer reorder window (packets) that covers the skew at `packet_rate`
 * packets per second (0: the merger's max_packet_rate), at least 512, at most
 * RTP_REORDER_GIVEN_MAX (the depacketizer given the merge's numbers, seq_given). */
unsigned rtp_merger_reorder_packets(const rtp_merger_config *c, unsigned packet_rate);
/* The packet rate a receiver of several legs sizes its reorder window for (UHD60 JPEG XS at
 * about 4.5 bpp; 3 bpp is 131,000): 8001 packets at 50 ms, 72001 at 450 ms. The window holds
 * each packet in a slot of max_packet_bytes (9000 by default): 72 MiB a stream at 50 ms,
 * 650 MiB at 450 ms (rtp_depacketizer_memory_bound; pages of slots never used are never
 * touched). */
#define RTP_MERGE_REORDER_RATE 160000u

/* A datagram of leg `leg` that arrived at arrival_ns (one clock for every leg). Returns 1:
 * pass it on (the first copy of its number; or not RTP, or of another SSRC than the one
 * merged, left to the depacketizer to count), 0: drop it (a copy already passed on, or
 * behind the window). Reads the 12-byte RTP header only. */
int rtp_merger_offer(rtp_merger *m, unsigned leg, const uint8_t *pkt, size_t len,
                     uint64_t arrival_ns);
/* The extended number of the packet offered last, when it was passed on merged (0
 * otherwise): numbers only step on, across wraps, silences and restarts, and a
 * depacketizer given them (rtp_depacketizer_push_seq) may hold more packets than the
 * 16-bit numbers tell apart (a skew of 450 ms at UHD rates). */
uint64_t rtp_merger_ext(const rtp_merger *m);
/* The clock moved on without a packet (a live source's idle read): numbers older than the
 * window are settled, silent legs noticed. */
void rtp_merger_poll(rtp_merger *m, uint64_t now_ns);
/* The end of the input: every number is settled (a leg's missing tail is its loss). */
void rtp_merger_flush(rtp_merger *m);
/* The statistics now (last_packet_age_ms by the merger's clock). */
const rtp_merge_stats *rtp_merger_stats(rtp_merger *m);

#ifdef __cplusplus
}
#endif
#endif
