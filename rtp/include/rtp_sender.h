/* xsflow RTP, the sender: a .jxs clip, or codestreams one by one, as an SMPTE
 * ST 2110-22 stream (RFC 9134): the frame walk (xs_jxs_next), the picture
 * segment boxes and the SDP written from the stream's description, packets
 * paced after ST 2110-21 (narrow or wide, rtp_pacing_*), handed to a socket
 * in bursts (one GSO message each where the socket has GSO) or written to a
 * .pcap file with their send times. `xsflow send`, `xsflow demo`, the NMOS
 * senders and the tests send through it; the GStreamer payloader takes its
 * boxes from here (its pacing is the pipeline's clock).
 *
 * Included by rtp.h; nothing here prints or exits. */
/* rtp.h first, outside the guard: rtp.h includes rtp_send_session.h, which
 * needs this header's types, so where this header is included first the
 * guard must not be set yet when rtp_send_session.h asks for it. */
#include "rtp.h"

#ifndef XSF_RTP_SENDER_H
#define XSF_RTP_SENDER_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* What a stream is: its boxes and its SDP                              */

typedef struct rtp_stream_desc {
    unsigned rate_num, rate_den;           /* frame rate (of frames, also when the codestreams are
                                              fields); 0: not known */
    int interlaced;                        /* the codestreams are fields, two a frame */
    size_t max_codestream_bytes;           /* the largest codestream (a field when interlaced): the
                                              boxes' brat and the SDP's b=AS; 0: not known */
    const char *sampling;                  /* RFC 9134 sampling; NULL: rtp_jxs_sampling_name of the
                                              first codestream's header */
    const char *colorimetry, *tcs, *range; /* SDP values; NULL: absent (the colour box then
                                              says unspecified, rtp_jxs_colr_from_sdp) */
} rtp_stream_desc;

/* The RFC 9134 sampling name of a codestream's components (YCbCr-4:2:2, RGB, ...),
 * "UNSPECIFIED" when it has none. */
const char *rtp_jxs_sampling_name(const xs_header *h);

/* The video information box's frame rate (ISO/IEC 21122-3 Table A.8): an integer
 * numerator over a denominator of 1 (code 1) or 1.001 (code 2), and the interlace mode.
 * num/den is reduced first; a rate neither N/1 nor N x 1000/1001 with N < 65536 (12.5 fps,
 * say) has no such form and is left unsignalled (numerator and code 0). */
void rtp_jxs_frat(rtp_jxs_boxes *b, unsigned num, unsigned den, int interlaced);

/* The box template of a stream (rtp_packetizer_config.box_template): brat from the
 * largest codestream at the frame rate (Mbit/s, rounded up; 0 when either is not known),
 * frat (rtp_jxs_frat), schar from the sampling and the first codestream's depth (4:2:2,
 * 4:4:4 and RGB; others leave it unset), the colour specification from the SDP values
 * (rtp_jxs_colr_from_sdp). `first` may be NULL (then no schar, and an unspecified
 * sampling). Ppih and Plev are the packetizer's, from each codestream. */
void rtp_jxs_boxes_for_stream(rtp_jxs_boxes *b, const xs_header *first, const rtp_stream_desc *d);

/* Where the stream goes, for its SDP. */
typedef struct rtp_sdp_route {
    rtp_addr dest;     /* c= and m= port */
    rtp_addr origin;   /* o=: the sender's address */
    int source_filter; /* 1: a=source-filter with origin (SSM receivers join it) */
    unsigned ttl;      /* IPv4 multicast: c= /ttl */
} rtp_sdp_route;

/* The session description of a stream (RFC 9134 7, ST 2110-22): the route, payload
 * type and packetization mode of `pc`, the profile, level, sublevel, depth, size and
 * sampling of the first codestream, the rate, interlace, colour values (absent ones
 * written as BT709, SDR and NARROW), TP of the pacing (rtp_pacing_tp) and b=AS from the
 * largest codestream. */
void rtp_sdp_for_stream(rtp_sdp *s, const xs_header *first, const rtp_stream_desc *d,
                        const rtp_packetizer_config *pc, rtp_pacing pacing,
                        const rtp_sdp_route *route);

/* ------------------------------------------------------------------ */
/* Clips                                                                */

/* The codestreams of a .jxs file, walked once (xs_jxs_next). */
typedef struct rtp_clip {
    const uint8_t *data; /* the caller's: it must outlive the clip */
    size_t len;
    size_t count;           /* codestreams */
    size_t *offset, *bytes; /* of each */
    size_t max_bytes;       /* of the largest */
    xs_header first;        /* the first one's picture header */
} rtp_clip;

/* Walks data[0, len): every byte must belong to a codestream. Errors name the
 * codestream and its file byte ("codestream 3 (file byte 81234): ..."); an empty buffer
 * is XSF_ERR_TRUNCATED. */
xsf_status rtp_clip_open(rtp_clip *c, const uint8_t *data, size_t len, xsf_error *err);
void rtp_clip_free(rtp_clip *c);

/* ------------------------------------------------------------------ */
/* Frame sources: where the sender's codestreams come from              */

/* rtp_source_frame.left where the source does not know how many follow. */
#define RTP_FRAMES_LEFT_UNKNOWN UINT64_MAX

/* One codestream a source hands out. */
typedef struct rtp_source_frame {
    const uint8_t *cs; /* the source's: valid until its next call; NULL at the end */
    size_t len;
    size_t index;  /* its number in the source's input ("codestream 3: ..." names it) */
    uint64_t left; /* codestreams after it, where known (a clip); else RTP_FRAMES_LEFT_UNKNOWN */
} rtp_source_frame;

/* A source of codestreams, one a segment: a .jxs clip walked (rtp_clip_source), or an
 * encoder coding pictures as they come (pipeline/include/pl_encode.h). Called from the
 * sender's thread only. */
typedef struct rtp_frame_source {
    /* The next codestream into *f (f->cs NULL after the last). May block (an encoder at
     * work). A failure ends the stream; its message is the source's own and says which
     * frame. */
    xsf_status (*next)(void *ctx, rtp_source_frame *f, xsf_error *err);
    void *ctx;
    /* The largest codestream it hands out (the boxes' brat, the SDP's b=AS); 0: not known,
     * the first one's size is taken (an encoder with a rate gives codestreams of one size). */
    size_t max_bytes;
    /* Optional: the source's own figures as JSON members (`"encoder": {...}`, without a
     * leading comma) into out[cap], NUL ended, for a send session's --stats-json; returns the
     * length snprintf gives (0: none). */
    int (*stats_json)(void *ctx, char *out, size_t cap);
} rtp_frame_source;

/* Where a clip source is: the clip `loops` times (0: once). */
typedef struct rtp_clip_cursor {
    const rtp_clip *clip;
    uint64_t total, k; /* codestreams to hand out, handed out */
} rtp_clip_cursor;
/* The clip as a source (every left known); `cur` holds its place and must outlive it. */
void rtp_clip_source(rtp_frame_source *src, rtp_clip_cursor *cur, const rtp_clip *c,
                     uint64_t loops);

/* ------------------------------------------------------------------ */
/* The sender                                                           */

typedef struct rtp_sender_stats {
    uint64_t segments;   /* codestreams sent (frames, or fields) */
    uint64_t packets;    /* datagrams sent (written) on a leg, impairments' duplicates
                            included */
    uint64_t bytes;      /* their bytes */
    uint64_t dropped;    /* left out by drop_every */
    uint64_t send_calls; /* rtp_udp_send calls */
    uint64_t late_sends; /* paced: calls that sent more than one burst (a late wake-up) */
    uint64_t elapsed_ns; /* from the stream's start (its first segment's time) to now */
    uint32_t first_timestamp;
    uint64_t first_tai_ns;  /* with tai: the first segment's instant (CLOCK_TAI, ns) */
    unsigned legs;          /* 1, or 2 with a second leg; packets and bytes count one leg's */
    uint64_t leg_errors[2]; /* send calls refused on each leg (two legs: the stream went on) */
    char leg_error[128];    /* the last such refusal's message */
    /* Impairments: packets lost on every leg (one leg: all it lost), and segments with such a
     * packet: what a receiver merging the legs loses and drops */
    uint64_t lost_all_legs, segments_lost_all_legs;
    int stopped;       /* the stop callback ended it early */
    int output_failed; /* the last error came from the socket or the file, not the input */
} rtp_sender_stats;

typedef struct rtp_sender_config {
    rtp_packetizer_config packetizer; /* mode, packet size, payload type, SSRC, first
                                         sequence number, boxes and their template */
    rtp_pacing pacing;
    unsigned burst;              /* packets handed over at once, every burst x TRS (at most
                                    RTP_UDP_GSO_MAX); 0: rtp_pacing_burst_default */
    unsigned rate_num, rate_den; /* frame rate; 0: 25/1 */
    int interlaced;              /* the codestreams are fields: two a frame, each its own RTP
                                    timestamp (RFC 9134 4.2, erratum 6752), one F counter */
    uint32_t first_timestamp;    /* the RTP timestamp of the first frame (not with tai) */
    /* Timing on the plant's clock (ST 2110-10, rtp_tai_*): segment n is frame (field)
     * N0 + n of the grid from the TAI epoch, N0 the first at least 1 ms after the first
     * call (after pcap_start_ns on TAI for a capture), its RTP timestamp that frame's, its
     * packets paced from that instant on CLOCK_TAI (ST 2110-21's frame period start),
     * re-anchored to the monotonic clock each segment. 0: first_timestamp, and the stream
     * paced on CLOCK_MONOTONIC from 1 ms after the first call. */
    int tai;
    /* With tai: each segment's packets start this long after its instant, at TVD = N x
     * TFRAME + TROFFSET, where ST 2110-21's receiver model begins to read them (its
     * TRO_DEFAULT for the raster: rtp_tr21_tro_default_ns); 0: at the instant. */
    uint64_t troffset_ns;
    /* Where packets go: a socket (paced on CLOCK_MONOTONIC), or a capture file whose packets
     * are stamped with the times the pacing gives them from pcap_start_ns (wall clock, ns;
     * 0: now), nothing waiting; from pcap_src to pcap_dst. */
    rtp_udp *sock;
    rtp_pcap_writer *pcap;
    rtp_addr pcap_src, pcap_dst;
    uint64_t pcap_start_ns;
    /* A second leg (SMPTE ST 2022-7 seamless protection; optional): the same packets, byte
     * for byte (SSRC, sequence numbers, timestamps), on one pacing schedule: each burst
     * goes to the first leg, then at once to this one (a capture file: the same record
     * times). Of the first leg's kind: sock2 with sock, pcap2 (from pcap2_src to pcap2_dst)
     * with pcap. A socket error on one leg of two is counted (leg_errors) and the stream
     * goes on; it ends when a burst fails on both. */
    rtp_udp *sock2;
    rtp_pcap_writer *pcap2;
    rtp_addr pcap2_src, pcap2_dst;
    /* Impairments (soak tests): with `impaired`, each packet goes through an rtp_impairer
     * of `impair`; rtp_sender_send_clip spares the first and the last frame. With two legs
     * each leg has its own: the second leg's of `impair2` (its seed should differ), and with
     * `impair_exclusive` it never loses a packet the first leg lost, nor the first leg one
     * of a segment the second leg's impairer cuts (never the same packet on both: a
     * receiver merging the legs loses nothing). The packets keep their times: a leg's
     * packets go out in the slots of the packets sent (a lost packet leaves its slot
     * empty, a duplicate goes with its original, a packet held back with the one it
     * follows). */
    int impaired;
    rtp_impair_config impair, impair2;
    int impair_exclusive;
    size_t drop_every; /* N > 0: every Nth packet of the stream is left out (loss injection) */
    /* Optional: asked before each segment and when a wait is interrupted (a signal);
     * non-zero ends the stream there (stats.stopped). */
    int (*stop)(void *ctx);
    void *stop_ctx;
    /* Optional: called after each segment sent, with the counts so far. */
    void (*on_segment)(void *ctx, const rtp_sender_stats *st);
    void *ctx;
} rtp_sender_config;

typedef struct rtp_sender rtp_sender;

/* Creates the packetizer (and impairer). Neither the socket nor the writer becomes the
 * sender's: the caller closes them after rtp_sender_destroy. */
xsf_status rtp_sender_create(rtp_sender **s, const rtp_sender_config *cfg, xsf_error *err);
void rtp_sender_destroy(rtp_sender *s);

/* Flags of rtp_sender_send. */
enum {
    RTP_SEND_SPARE = 1, /* impairments leave this segment whole */
    RTP_SEND_LAST = 2,  /* the stream's last: a packet the impairer still holds goes with it */
};
/* Sends one codestream (one picture segment) at its time: segment n of the stream starts
 * at n frame (field) periods from the stream's start, 1 ms after the first call (with
 * tai: on the TAI grid); its
 * packets leave as the pacing says (narrow, wide: bursts at their times; frame: all at
 * the segment's time; none: at once). Blocks while it waits. */
xsf_status rtp_sender_send(rtp_sender *s, const uint8_t *cs, size_t len, int flags, xsf_error *err);
/* Sends the clip's codestreams `loops` times (0: once), one segment each, going on from
 * where the stream is (timestamps, sequence numbers, F counters and times run on across
 * calls); with impairments, the clip's first and last frame of all the loops go out
 * whole. Errors of a codestream name it ("codestream 3: ..."). */
xsf_status rtp_sender_send_clip(rtp_sender *s, const rtp_clip *c, uint64_t loops, xsf_error *err);
/* Sends the source's codestreams until its end (or the stop callback), one segment each,
 * each as soon as the source hands it out and its time has come, going on from where the
 * stream is. With impairments the first frame (both fields) goes out whole, and the last:
 * a source that does not know what is left is read one codestream ahead (copied) to find
 * it, and of an interlaced stream of unknown length only the last field is spared; without
 * impairments nothing is read ahead. Errors of the sender name the codestream
 * ("codestream 3: ..."), the source's are its own. rtp_sender_send_clip is this with
 * rtp_clip_source. */
xsf_status rtp_sender_send_source(rtp_sender *s, const rtp_frame_source *src, xsf_error *err);
const rtp_sender_stats *rtp_sender_get_stats(const rtp_sender *s);
/* NULL without impairments. */
const rtp_impair_counts *rtp_sender_impair_counts(const rtp_sender *s);
/* Leg 0 or 1's (leg 0's is rtp_sender_impair_counts); NULL without impairments or that leg. */
const rtp_impair_counts *rtp_sender_impair_leg_counts(const rtp_sender *s, unsigned leg);

/* 32 bits that differ from run to run (the wall clock, mixed): default SSRCs, first
 * sequence numbers and timestamps (RFC 3550 5.1: random). */
uint32_t rtp_random32(void);

#ifdef __cplusplus
}
#endif
#endif
