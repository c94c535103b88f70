/* xsflow RTP, receivers: the configuration a session description gives a
 * receiver (one function for `xsflow recv`, the NMOS receivers and the
 * GStreamer depayloader), and the receive transports behind one small ops
 * table (FFmpeg's URLProtocol): a UDP socket, a .pcap file, a live capture.
 * A new transport is one new file with its rtp_transport_ops and one line in
 * the table (transport.c).
 *
 * Included by rtp.h; nothing here prints or exits. */
#ifndef XSF_RTP_RECEIVE_H
#define XSF_RTP_RECEIVE_H

#include "rtp.h"
#include "rtp_merge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* A receiver's configuration from an SDP                               */

/* What the user asked for; rtp_receiver_options_init gives the defaults. */
typedef struct rtp_receiver_options {
    int payload_type;         /* -1: the SDP's (without an SDP: any); else 96..127 */
    unsigned reorder_packets; /* reorder window, 1..65536 (default 512) */
    unsigned reorder_ms;      /* give up on a missing packet after this long, 0..10000 ms
                                 (default 20; 0: only by count) */
    size_t max_frame_bytes;   /* the largest picture segment, 4096..4 GiB; 0 (default): the SDP's
                                 bound (rtp_jxs_codestream_bound of its picture's samples),
                                 else 64 MiB */
} rtp_receiver_options;

void rtp_receiver_options_init(rtp_receiver_options *o);

/* What a receiver takes from the SDP (and the options). */
typedef struct rtp_receiver_setup {
    /* payload_type, reorder_packets, reorder_ns, max_frame_bytes (of one segment: a field
     * or a progressive frame) and max_picture_samples (the SDP's picture: a larger one is
     * dropped before it is decoded); the callbacks, validate and the rest are the caller's */
    rtp_depacketizer_config depacketizer;
    size_t max_frame_bytes; /* of a whole frame: both fields' when interlaced */
    int has_dest;           /* the SDP gave c= and m=: */
    rtp_addr dest;          /* where the stream goes: a group, or a unicast address, and port */
    int has_source;         /* a=source-filter (SSM): the sender's address */
    rtp_addr source;
    int interlaced;              /* fmtp interlace: the segments are fields */
    rtp_jxs_mode mode;           /* packetmode (K) */
    int transmode;               /* T */
    unsigned rate_num, rate_den; /* exactframerate; 0 when not given */
    uint64_t samples;            /* of the picture, rtp_sdp_samples; 0 when not known */
    /* The legs (SMPTE ST 2022-7): 1, or the SDPs given to rtp_receiver_setup_legs; leg 0 is
     * dest and source above. */
    unsigned legs;
    rtp_addr leg_dest[RTP_LEGS_MAX];
    int leg_has_source[RTP_LEGS_MAX];
    rtp_addr leg_source[RTP_LEGS_MAX];
} rtp_receiver_setup;

/* Fills *out from `sdp` (may be NULL: the options alone) and the options. Fails
 * (XSF_ERR_ARG) on an option out of its bounds and (XSF_ERR_INVALID, "c= ...") on an SDP
 * address that does not parse; an a=source-filter that does not parse is ignored. */
xsf_status rtp_receiver_setup_from_sdp(const rtp_sdp *sdp, const rtp_receiver_options *o,
                                       rtp_receiver_setup *out, xsf_error *err);
/* The same for a stream of n legs (1..RTP_LEGS_MAX, rtp_sdp_parse_legs): the
 * configuration of the first, and each leg's c=, m= port and source filter. */
xsf_status rtp_receiver_setup_legs(const rtp_sdp *legs, unsigned n, const rtp_receiver_options *o,
                                   rtp_receiver_setup *out, xsf_error *err);

/* A stream of several legs: a packet lost on the leg ahead waits for the lagging leg's
 * copy in the depacketizer's reorder window, so its time (reorder_ns) is raised to the
 * merge's skew window and its size (reorder_packets) to the skew at RTP_MERGE_REORDER_RATE,
 * where they are smaller; the depacketizer takes the merge's sequence numbers (seq_given:
 * the packets must come through rtp_depacketizer_push_seq with rtp_datagram.seq_ext or
 * rtp_merger_ext), so that the window may span more than the 16-bit numbers tell apart. */
void rtp_receiver_cover_skew(rtp_depacketizer_config *dc, const rtp_merger_config *mc);

/* Reads an SDP whose video media descriptions may be grouped by `a=group:DUP` (RFC 7104,
 * the legs of one stream, SMPTE ST 2022-7), into legs[0..*n) in the group's order: each
 * leg is the session part with its one media description (named by a=mid), read by
 * rtp_sdp_parse. Without a DUP group: one leg, rtp_sdp_parse's. Refused (XSF_ERR_INVALID):
 * a group that names a missing a=mid, more legs than cap, legs that disagree on the payload
 * type or the format (packetmode, transmode, width, height, exactframerate, interlace),
 * more than 64 KiB; a leg's own errors are prefixed with its a=mid. */
xsf_status rtp_sdp_parse_legs(const char *text, size_t len, rtp_sdp *legs, unsigned cap,
                              unsigned *n, xsf_error *err);

/* ------------------------------------------------------------------ */
/* Receive transports                                                   */

/* Which clock a transport's arrival times are on. */
typedef enum rtp_arrival_clock {
    RTP_ARRIVAL_REALTIME = 0, /* the receive time, CLOCK_REALTIME (kernel timestamps) */
    RTP_ARRIVAL_RECORDED,     /* the times a capture file recorded: of another day */
    RTP_ARRIVAL_NONE,         /* none worth keeping: the caller stamps packets as it reads */
} rtp_arrival_clock;

struct rtp_legs_config;

typedef struct rtp_transport_config {
    rtp_udp_config udp; /* "udp": the socket; "capture": buffer_bytes */
    const char *path;   /* "pcap": the file; "capture": the interface */
    const char *filter; /* "pcap", "capture": BPF (NULL: "udp") */
    /* "dup:udp", "dup:pcap", "dup:capture": the legs (read only by open) */
    const struct rtp_legs_config *legs;
} rtp_transport_config;

/* The legs of one stream (SMPTE ST 2022-7), each a transport of one kind, merged by
 * sequence number (rtp_merge.h) into one stream of first copies. */
typedef struct rtp_legs_config {
    unsigned n;                             /* 2..RTP_LEGS_MAX */
    rtp_transport_config leg[RTP_LEGS_MAX]; /* in the order given; .legs unused */
    rtp_merger_config merge;                /* .legs is n */
} rtp_legs_config;

typedef struct rtp_transport_ops {
    const char *name; /* "udp", "pcap", "capture" */
    rtp_arrival_clock clock;
    int live;   /* 1: packets come as the network brings them (a silence is a
                   timeout); 0: as fast as it is read (a file) */
    int gather; /* 1: reads are cheap and may return one datagram at a time
                   (their data is valid until the next read): a caller reads
                   again at once, up to a batch, before it looks at its clock;
                   0: one read is one batch (a socket's recvmmsg) */
    xsf_status (*open)(void **priv, const rtp_transport_config *cfg, xsf_error *err);
    /* Up to `cap` (at least RTP_UDP_BATCH) datagrams into out[] (pointing into the transport's
     * buffers: valid until the next read, or until close where packets_kept says so), waiting up to
     * timeout_ms for the first (it blocks). *count = 0: none came in time. XSF_ERR_TRUNCATED with
     * *count = 0: the end of the input. A read that gathered datagrams and then met the
     * end, a silence or an error returns those first and the rest on the next call. */
    xsf_status (*read)(void *priv, int timeout_ms, rtp_datagram *out, size_t cap, size_t *count,
                       xsf_error *err);
    void (*close)(void *priv);
    /* Optional (NULL: 0). */
    int (*packets_kept)(const void *priv);      /* 1: every datagram read stays valid and
                                                   unchanged until close (a mapped file):
                                                   rtp_depacketizer_config.packets_kept */
    uint64_t (*kernel_drops)(const void *priv); /* rtp_udp_kernel_drops */
    uint16_t (*local_port)(const void *priv);   /* the bound port */
    size_t (*buffer_bytes)(const void *priv);   /* the receive buffer the kernel granted
                                                   (rtp_udp_buffer_bytes) */
    int (*fd)(const void *priv); /* a descriptor poll() says is readable when a read would not
                                    wait, or -1 */
    /* "dup:*": the merge's statistics now (0: none, this transport has one leg) */
    int (*merge_stats)(void *priv, rtp_merge_stats *out);
} rtp_transport_ops;

/* The table; NULL when no transport has that name. */
const rtp_transport_ops *rtp_transport_find(const char *name);
/* The i-th of the table, NULL past its end. */
const rtp_transport_ops *rtp_transport_at(size_t i);

/* An open transport: its ops and its state. */
typedef struct rtp_transport {
    const rtp_transport_ops *ops;
    void *priv;
} rtp_transport;

xsf_status rtp_transport_open(rtp_transport *t, const char *name, const rtp_transport_config *cfg,
                              xsf_error *err);
void rtp_transport_close(rtp_transport *t);
static inline xsf_status rtp_transport_read(rtp_transport *t, int timeout_ms, rtp_datagram *out,
                                            size_t cap, size_t *count, xsf_error *err)
{
    return t->ops->read(t->priv, timeout_ms, out, cap, count, err);
}
static inline int rtp_transport_packets_kept(const rtp_transport *t)
{
    return t->ops && t->ops->packets_kept ? t->ops->packets_kept(t->priv) : 0;
}
static inline uint64_t rtp_transport_kernel_drops(const rtp_transport *t)
{
    return t->ops && t->ops->kernel_drops ? t->ops->kernel_drops(t->priv) : 0;
}
static inline uint16_t rtp_transport_local_port(const rtp_transport *t)
{
    return t->ops && t->ops->local_port ? t->ops->local_port(t->priv) : 0;
}
static inline size_t rtp_transport_buffer_bytes(const rtp_transport *t)
{
    return t->ops && t->ops->buffer_bytes ? t->ops->buffer_bytes(t->priv) : 0;
}

static inline int rtp_transport_merge_stats(const rtp_transport *t, rtp_merge_stats *out)
{
    return t->ops && t->ops->merge_stats ? t->ops->merge_stats(t->priv, out) : 0;
}

/* The transports of the table, each in its own file. */
extern const rtp_transport_ops rtp_transport_udp;     /* udp.c */
extern const rtp_transport_ops rtp_transport_pcap;    /* pcap_io.c: a .pcap or .pcapng file */
extern const rtp_transport_ops rtp_transport_capture; /* pcap_io.c: live capture */
/* legs.c: "dup:udp", "dup:pcap", "dup:capture": the legs of rtp_transport_config.legs, each
 * a transport of that kind, read together (files in the order of their capture times,
 * live legs as they come) and merged (rtp_merge.h): a read hands out first copies only,
 * rtp_datagram.leg saying which leg brought each. */
extern const rtp_transport_ops rtp_transport_dup_udp;
extern const rtp_transport_ops rtp_transport_dup_pcap;
extern const rtp_transport_ops rtp_transport_dup_capture;

#ifdef __cplusplus
}
#endif
#endif
