/* xsflow RTP, a send session: what `xsflow send` does between its options and
 * its messages. A .jxs file's bytes (the caller's) walked into a clip, or a
 * source of codestreams (rtp_frame_source: an encoder coding pictures as they
 * come, pipeline/include/pl_encode.h), the
 * destination and the sender's address with their defaults, the sender's
 * configuration and box template, the SDP file, the socket or the capture
 * file, the paced stream (rtp_sender.h), and the --stats-json text.
 *
 * Life: rtp_send_session_open (clip, addresses, configuration, SDP file) or
 * rtp_send_session_open_source, rtp_send_session_run (output, sender, the
 * clip `loops` times or the source to its end, capture
 * closed), rtp_send_session_report and rtp_send_session_stats_json at any
 * time after open (counts are zero until the sender exists), then
 * rtp_send_session_close. Errors are an rtp_send_failure: what the message
 * is about (the input, an option, a file) and whether the arguments asked
 * for what cannot be (the program's usage error).
 *
 * Included by rtp.h; nothing here prints or exits, signals are the caller's
 * (its stop callback). */
#ifndef XSF_RTP_SEND_SESSION_H
#define XSF_RTP_SEND_SESSION_H

#include <stdio.h>

#include "rtp.h"
#include "rtp_sender.h"
#include "xsf_option.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults of a session without --to, or without --source. */
#define RTP_SEND_DEFAULT_DEST "239.0.0.1:5004"  /* the capture's destination */
#define RTP_SEND_DEFAULT_DEST2 "239.0.0.2:5004" /* the second leg's, two capture files */
#define RTP_SEND_DEFAULT_REFCLK "ptp=IEEE1588-2008:traceable" /* a=ts-refclk */
#define RTP_SEND_DEFAULT_SOURCE4 "192.0.2.1"                  /* the sender's address (RFC 5737) */
#define RTP_SEND_DEFAULT_SOURCE6 "2001:db8::1"                /* (RFC 3849) */
#define RTP_SEND_SOURCE_PORT 50000 /* the sender's port, in the SDP and the capture */

/* What a command line asks of a send session. Strings are the caller's and must
 * outlive the session; they are also what failures name.
 *
 * Two legs (SMPTE ST 2022-7): `to`, `pcap`, `source` and `iface` may each name two,
 * joined by a comma ("239.1.1.1:5004,239.2.1.1:5004"); the stream then goes out twice,
 * the same packets on one schedule (rtp_sender_config.sock2, pcap2), and its SDP
 * describes both legs in a DUP group (rtp_sdp_write_legs). The legs are as many as `to`
 * or `pcap` names (both naming two, or the other one or none: a capture of two legs
 * without `to` goes to RTP_SEND_DEFAULT_DEST and _DEST2); a single `source` or `iface`
 * is each leg's. */
typedef struct rtp_send_session_config {
    const char *in;     /* the input's name, for messages */
    const char *to;     /* ADDR:PORT (IPv4 or [IPv6]); NULL: RTP_SEND_DEFAULT_DEST */
    const char *pcap;   /* write the packets to this capture file instead of a socket */
    const char *sdp;    /* write the session description here; NULL: none */
    const char *source; /* the sender's address (sent from, with `to`; the SDP's source
                           filter); NULL: RTP_SEND_DEFAULT_SOURCE4 or 6, after dest's family,
                           and no source filter */
    const char *iface;  /* multicast interface; NULL: the kernel's choice */
    /* Timing (ST 2110-10): 0, timestamps and pacing on the TAI grid (rtp_sender_config.tai)
     * and the SDP's a=ts-refclk `refclk` (NULL: RTP_SEND_DEFAULT_REFCLK); 1, a free-running
     * clock: a random first timestamp, paced from now, no a=ts-refclk. */
    int free_clock;
    const char *refclk;
    const char *sampling, *colorimetry, *tcs, *range; /* SDP values (rtp_stream_desc); the
                           box template takes BT709, SDR and NARROW for absent ones */
    rtp_jxs_mode mode;
    rtp_pacing pacing;
    unsigned rate_num, rate_den; /* frame rate */
    size_t packet_bytes;         /* largest RTP packet */
    unsigned payload_type, ttl;
    unsigned burst;     /* 0: rtp_pacing_burst_default */
    uint32_t ssrc;      /* with ssrc_given; else rtp_random32 */
    uint16_t first_seq; /* with seq_given; else rtp_random32 */
    int ssrc_given, seq_given;
    int interlaced, boxes, no_gso;
    /* With impairments `impair` (rtp_sender_config): with two legs, each leg's own, the
     * second's with seed + 1 and the cut on the second leg alone; `impair_exclusive`: never
     * the same packet lost on both. */
    int impaired;
    rtp_impair_config impair;
    int impair_exclusive;
    /* What the command line asks beyond the session's opening: the times a clip is sent
     * (rtp_send_session_run's `loops`; loops_given: set by the knob), the --stats-json file,
     * and a cut of frames "F:N" (rtp_send_session_config_finish makes it impair's). */
    uint64_t loops;
    int loops_given;
    const char *stats_json;
    const char *cut;
    /* rtp_sender_config's stop and on_segment callbacks (optional). */
    int (*stop)(void *ctx);
    void *stop_ctx;
    void (*on_segment)(void *ctx, const rtp_sender_stats *st);
    void *ctx;
} rtp_send_session_config;

typedef struct rtp_send_failure {
    const char *subject; /* the config's in, to, pcap or sdp, or an option ("--to") */
    xsf_error err;
    int usage; /* 1: the arguments ask for what cannot be */
} rtp_send_failure;

/* The defaults: 25 frames/s, packets of 1440 bytes, payload type 112, TTL 16, the clip sent
 * once, the picture segment boxes, impairment seed 1; the rest zero (narrow pacing, the TAI
 * clock, codestream mode, no impairment). */
void rtp_send_session_config_init(rtp_send_session_config *c);

/* The session's knobs (xsf_option.h) on an rtp_send_session_config, as `xsflow send` takes
 * them (--NAME): to, pcap, sdp, clock, refclk, mode, fps, pacing, burst, no-gso,
 * packet-size, pt, ssrc, seq, loop, interlaced, no-boxes, iface, ttl, source, the
 * impairments (loss, reorder, duplicate, seed, loss-burst, cut, exclusive-loss), stats-json
 * and the SDP's sampling, colorimetry, tcs and range, each bounded as the sender requires,
 * with its help. Text knobs keep the caller's strings. */
extern const xsf_option rtp_send_session_knobs[];

/* After the knobs: the cut "F:N" (frames F to F + N - 1; fields with `interlaced`) into
 * impair's segments, `impaired` from the impairments asked for. Refused (usage): a cut that
 * is not F:N with N > 0 (subject "--cut"); with `in` set, neither `to` nor `pcap` (subject
 * `in`). */
xsf_status rtp_send_session_config_finish(rtp_send_session_config *c, rtp_send_failure *f);

typedef struct rtp_send_session rtp_send_session;

/* Walks data[0, len) (the caller's: it must outlive the session) into a clip, parses the
 * destination and the sender's address (its port RTP_SEND_SOURCE_PORT), makes the
 * sender's configuration (random SSRC, first sequence number and first timestamp where
 * not given) and writes the SDP file. On failure *s is NULL: the clip's error names
 * `in`; an address that does not parse names "--to" or "--source" (usage), as do legs
 * that do not agree ("--to", "--pcap", "--source", "--iface": more than two, or two
 * against two's other count); an SDP file that cannot be written names `sdp` ("cannot
 * write the SDP file"). */
xsf_status rtp_send_session_open(rtp_send_session **s, const rtp_send_session_config *cfg,
                                 const uint8_t *data, size_t len, rtp_send_failure *f);

/* The same for codestreams from a source (`src` copied; its ctx must outlive the session):
 * its first codestream is read now (blocking while an encoder codes it), its picture header
 * describes the stream (SDP, boxes; it must be one whole JPEG XS codestream, else "codestream
 * N: ..." naming `in`), and it goes out first. The stream's largest codestream is
 * src->max_bytes, or the first one's size where that is larger. A failure of the source
 * names `in` with the source's message. The session is progressive or interlaced as
 * `cfg` says, as with a clip. */
xsf_status rtp_send_session_open_source(rtp_send_session **s, const rtp_send_session_config *cfg,
                                        const rtp_frame_source *src, rtp_send_failure *f);

/* Room for a source's own --stats-json members (rtp_frame_source.stats_json). */
#define RTP_SEND_SOURCE_JSON_MAX 512

/* Opens the output (a UDP socket to `to`, GSO unless no_gso, from `source` when given;
 * or the capture file; each leg's), sends the clip `loops` times (a source: to its end;
 * `loops` unused) and closes the capture
 * files. On failure the session stays (its report says what went out): an output that
 * does not open names `to` or `pcap` (the leg's, with two); a sender refused names "--loss" with
 * impairments, else `in` (usage); a send error names `in`, or the output when it failed there. A
 * capture file whose run failed is removed (xsf_output_remove: nothing half-written). */
xsf_status rtp_send_session_run(rtp_send_session *s, uint64_t loops, rtp_send_failure *f);

/* What the session is and did. */
typedef struct rtp_send_report {
    rtp_sender_stats stats;           /* zero until the sender exists */
    const rtp_impair_counts *impair;  /* the sender's (valid while the session lives); NULL
                                         without impairments or sender */
    const rtp_impair_counts *impair2; /* the second leg's, with two legs; else NULL */
    size_t codestreams;               /* of the clip; of a source, those it handed out */
    rtp_addr dest, source;
    unsigned legs;            /* 1 or 2 */
    rtp_addr dest2, source2;  /* the second leg's (legs 2) */
    uint32_t first_timestamp; /* the RTP timestamp of the first frame */
    int socket;               /* sent to a socket (not a capture file) */
    int gso, gso_refused;     /* the socket's rtp_udp_gso */
} rtp_send_report;
void rtp_send_session_report(const rtp_send_session *s, rtp_send_report *r);

/* The --stats-json text (one line of JSON and a newline) into out[cap] (truncated, NUL
 * ended): segments, frames (half the segments when interlaced), datagrams (of one leg),
 * bytes, first_timestamp, complete (`complete`), and the impairment settings and counts
 * (zero without impairments); with two legs also legs (2) and leg_errors (send calls
 * refused on each); with a source, its own members (rtp_frame_source.stats_json: an
 * encoder's "encoder" object). Returns the length snprintf gives. */
int rtp_send_session_stats_json(const rtp_send_session *s, int complete, char *out, size_t cap);
/* The same text as the file `path`: "cannot create the file" or "write failed". */
xsf_status rtp_send_session_write_stats(const rtp_send_session *s, const char *path, int complete,
                                        xsf_error *err);

/* What a session sent, as `xsflow send` says it on f: "sent N frames (SOURCE) as P packets,
 * B bytes, MODE mode, PACING pacing, to WHERE" (SOURCE: `source`, or NULL: the clip's
 * codestreams x c->loops; WHERE the capture file or the destinations), then `more` (lines the
 * caller adds, or NULL), each leg's refused send calls (two legs, where any), and for a socket
 * the send calls, packets each, GSO and late sends. */
void rtp_send_report_format(FILE *f, const rtp_send_session_config *c, const rtp_send_report *r,
                            const char *source, const char *more);

/* What the impairments did (r->impair: with impairments), as lines on f: each leg's counts
 * under its seed ("send: impairments of leg K (seed S): ..."), and with two legs what both
 * lost. */
void rtp_send_impairments_format(FILE *f, const rtp_send_session_config *c,
                                 const rtp_send_report *r);

/* Destroys the sender, closes the socket, frees the clip; NULL is fine. */
void rtp_send_session_close(rtp_send_session *s);

#ifdef __cplusplus
}
#endif
#endif
