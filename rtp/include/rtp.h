/* xsflow RTP: SMPTE ST 2110-22 transport of JPEG XS (RFC 9134 payload format)
 * over RTP (RFC 3550), from UDP sockets and libpcap captures, and back.
 *
 * Layers, lowest first:
 *   headers      RTP fixed header, CSRCs, extension, padding; the RFC 9134
 *                payload header; 16-bit sequence numbers extended to 64 bits
 *   boxes        the ISO/IEC 21122-3 boxes that open an RFC 9134 picture
 *                segment (video support box, colour specification box)
 *   depacketizer packets (in any order) -> whole codestreams, with loss,
 *                reordering and duplicate handling in bounded memory
 *   packetizer   codestreams -> packets, codestream or slice mode
 *   pacer        ST 2110-21-style send times (narrow or wide)
 *   fields       the two fields of an interlaced frame paired, or the frame
 *                dropped whole when one is lost
 *   sdp          the ST 2110-22 / RFC 9134 session description
 *   udp, pcap    sources and sinks: sockets (IPv4/IPv6, unicast/multicast,
 *                recvmmsg batches, kernel timestamps) and libpcap
 *
 * Nothing here prints or exits. Calls that may block say so. */
#ifndef XSF_RTP_H
#define XSF_RTP_H

#include <stddef.h>
#include <stdint.h>

#include "xs.h"
#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* RTP header (RFC 3550 5.1)                                           */

#define RTP_HEADER_BYTES 12
#define RTP_MAX_CSRC 15
#define RTP_CLOCK_HZ 90000      /* RFC 9134: the RTP clock of JPEG XS video */
#define RTP_JXS_CODEC "jpeg-xs" /* the codec (xsf_codec_find) of what RFC 9134 carries */

typedef struct rtp_header {
    uint8_t version;      /* always 2 once parsed */
    uint8_t padding;      /* P bit */
    uint8_t extension;    /* X bit */
    uint8_t csrc_count;   /* CC */
    uint8_t marker;       /* M bit */
    uint8_t payload_type; /* PT, 7 bits */
    uint16_t seq;
    uint32_t timestamp;
    uint32_t ssrc;
    uint32_t csrc[RTP_MAX_CSRC];
    /* Header extension (RFC 3550 5.3.1), when extension is set. */
    uint16_t ext_profile;    /* "defined by profile" 16 bits */
    size_t ext_bytes;        /* extension data bytes (length field x 4) */
    const uint8_t *ext_data; /* into the packet */
    size_t padding_bytes;    /* the count in the last octet, when padding is set */
    const uint8_t *payload;  /* into the packet, after header, CSRCs and extension */
    size_t payload_bytes;    /* without the padding */
} rtp_header;

/* Parses an RTP packet of `len` bytes. Errors name the field and byte. */
xsf_status rtp_header_parse(const uint8_t *pkt, size_t len, rtp_header *h, xsf_error *err);

/* Writes the 12-byte fixed header plus h->csrc_count CSRCs (no extension, no
 * padding); returns the bytes written or 0 when `cap` is too small. */
size_t rtp_header_write(const rtp_header *h, uint8_t *out, size_t cap);

/* Extends 16-bit sequence numbers to 64 bits across wraps (RFC 3550 A.1):
 * each number is placed within 32767 of the highest seen so far. */
typedef struct rtp_seq_extender {
    int started;
    uint64_t highest; /* highest extended number seen */
} rtp_seq_extender;
uint64_t rtp_seq_extend(rtp_seq_extender *x, uint16_t seq);

/* ------------------------------------------------------------------ */
/* RFC 9134 payload header (4 bytes after the RTP header)              */
/*
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  |T|K|L| I |F counter|     SEP counter     |     P counter       |
 */

#define RTP_JXS_HEADER_BYTES 4
#define RTP_JXS_SEP_HEADER_SEGMENT 0x7ff /* slice mode: the header segment's SEP */

typedef enum rtp_jxs_mode {
    RTP_JXS_CODESTREAM = 0, /* K=0: one packetization unit per picture segment */
    RTP_JXS_SLICE = 1,      /* K=1: the header segment, then one unit per slice */
} rtp_jxs_mode;

typedef enum rtp_jxs_scan {
    RTP_JXS_PROGRESSIVE = 0,  /* I=00 */
    RTP_JXS_FIELD_FIRST = 2,  /* I=10 */
    RTP_JXS_FIELD_SECOND = 3, /* I=11 (01 is reserved) */
} rtp_jxs_scan;

typedef struct rtp_jxs_header {
    uint8_t t;    /* transmission mode: 1 sequential, 0 out of order allowed (then K=1) */
    uint8_t k;    /* packetization mode (rtp_jxs_mode) */
    uint8_t l;    /* last packet of a packetization unit (set whenever M is; = M when K=0) */
    uint8_t i;    /* interlace information (rtp_jxs_scan) */
    uint8_t f;    /* frame counter, modulo 32: one value for both fields of a frame */
    uint16_t sep; /* 11 bits: K=1, slice index modulo 2047, 0x7ff for the header
                     segment; K=0, the count of P's overruns in the unit */
    uint16_t p;   /* 11 bits: packet index within the packetization unit, modulo 2048 */
} rtp_jxs_header;

/* Fails (INVALID) on the reserved I value 01 and on T=0 with K=0 (RFC 9134
 * 4.3: out-of-order sending requires slice mode). */
xsf_status rtp_jxs_header_parse(const uint8_t *p, size_t len, rtp_jxs_header *h, xsf_error *err);
void rtp_jxs_header_write(const rtp_jxs_header *h, uint8_t out[RTP_JXS_HEADER_BYTES]);

/* ------------------------------------------------------------------ */
/* Picture segment boxes. RFC 9134 3.4 and 4.1: every picture segment  */
/* (and so every codestream-mode unit and every slice-mode header       */
/* segment) is the video support box, the colour specification box     */
/* (their layouts: ISO/IEC 21122-3), then the codestream.               */

typedef struct rtp_jxs_boxes {
    int present;
    uint32_t brat_mbps;                   /* jpvi: maximum bit rate, Mbit/s */
    uint8_t frat_interlace;               /* jpvi: 0 progressive */
    uint8_t frat_den_code;                /* jpvi: 1 = integer rate, 2 = rate / 1.001 */
    uint16_t frat_num;                    /* jpvi: frame rate numerator */
    uint16_t schar;                       /* jpvi: sample characteristics, 0 = not given */
    uint32_t tcod;                        /* jpvi: time code hh:mm:ss:ff, one byte each */
    uint16_t ppih, plev;                  /* jxpl */
    uint8_t colr_meth;                    /* colr: 5 = ITU-T H.273 code points */
    uint16_t primaries, transfer, matrix; /* colr, H.273 */
    uint8_t full_range;
} rtp_jxs_boxes;

/* Bytes of the boxes rtp_jxs_boxes_write produces (jpvs 42 + colr 18). */
#define RTP_JXS_BOXES_BYTES 60

size_t rtp_jxs_boxes_write(const rtp_jxs_boxes *b, uint8_t *out, size_t cap);

/* Sets the colour specification of `b` (METH 5, ITU-T H.273 code points) to
 * agree with the SDP's colorimetry, TCS and RANGE (RFC 9134 7: the SDP's
 * values SHALL agree with the payload's); `sampling` tells BT.2020 constant
 * luminance (CLYCbCr) and ICtCp apart, `depth` the BT.2020 transfer (10 or 12
 * bits). Unknown or absent values give H.273's "unspecified" (2). The range
 * follows rtp_sdp_range's defaults. */
void rtp_jxs_colr_from_sdp(rtp_jxs_boxes *b, const char *colorimetry, const char *tcs,
                           const char *range, const char *sampling, unsigned depth);

/* Walks the boxes in front of a codestream (at most 16, 4096 bytes); sets
 * *codestream_offset to where SOC starts and fills `b` from the boxes it
 * knows. Data that starts with SOC has no boxes (b->present = 0). */
xsf_status rtp_jxs_boxes_parse(const uint8_t *buf, size_t len, size_t *codestream_offset,
                               rtp_jxs_boxes *b, xsf_error *err);

/* The most bytes a JPEG XS codestream of a picture of `samples` samples (summed over its
 * components, each at its own subsampled size) can take, picture header included, so that
 * a receiver can refuse a segment that grows past it (see the reasoning in boxes.c). A
 * bound, not an estimate: 6 bytes a sample + 256 KiB; real codestreams are far below it
 * (e.g. 3 bpp is 0.2 bytes a sample of 4:2:2). Saturates at SIZE_MAX. */
size_t rtp_jxs_codestream_bound(uint64_t samples);
/* A picture header must end within a segment's first bytes: until it has been read, a
 * segment may not grow past this. */
#define RTP_JXS_HEADER_SCAN_BYTES ((size_t)64 << 10)

/* ------------------------------------------------------------------ */
/* Sender conformance as a receiver sees it (SMPTE ST 2110-21)          */
/*
 * The packets' arrival times of one stream measured against ST 2110-21's two models of a
 * sender of the type its SDP declares (TP), as EBU LIST analyses a capture; ST 2110-22
 * applies them to compressed video. The formulas, their parameters and where they come
 * from are in tr21.c and rtp/README.md. In short, with TFRAME the frame (field) period and
 * NPACKETS its packets:
 *   - network compatibility model: a bucket drained one packet every TDRAIN = TFRAME /
 *     NPACKETS / 1.1 from the first packet on; Cinst, the packets it holds after each
 *     arrival (a packet meeting a drain instant leaves at once), may not exceed CMAX;
 *   - virtual receiver buffer: frame n's packets read one every TRS from TVD = its instant
 *     on the frame grid + TROFFSET; VRX, the packets arrived and not read yet, may not
 *     exceed VRX_FULL, and no packet may come after its read time (an underflow).
 * The narrow and the wide limits are both computed; `conforms` is the tighter type met.
 * Fed per packet, O(1), no allocation after create. */
typedef enum rtp_tr21_type {
    RTP_TR21_UNDECLARED = 0, /* no TP: measured on the linear schedule, as -22 senders send */
    RTP_TR21_NARROW,         /* 2110TPN: narrow, gapped read schedule (RACTIVE of the raster) */
    RTP_TR21_NARROW_LINEAR,  /* 2110TPNL: narrow, linear (TRS = TFRAME / NPACKETS) */
    RTP_TR21_WIDE,           /* 2110TPW: wide, linear */
} rtp_tr21_type;

/* The type an SDP TP value names (case-insensitive); UNDECLARED for "" or another value. */
rtp_tr21_type rtp_tr21_type_of_tp(const char *tp);
/* "2110TPN", "2110TPNL", "2110TPW", or "none". */
const char *rtp_tr21_type_name(rtp_tr21_type t);

typedef enum rtp_tr21_verdict {
    RTP_TR21_UNMEASURED = 0, /* no whole frame measured yet */
    RTP_TR21_CONFORMS_NARROW,
    RTP_TR21_CONFORMS_WIDE,
    RTP_TR21_CONFORMS_NOT,
} rtp_tr21_verdict;
/* "unmeasured", "narrow", "wide", "not". */
const char *rtp_tr21_verdict_name(rtp_tr21_verdict v);

typedef struct rtp_tr21_config {
    unsigned rate_num, rate_den; /* frame rate; 0: nothing is analysed */
    rtp_tr21_type type;          /* declared (the SDP's TP) */
    int interlaced;              /* segments are fields: TFRAME is the field period */
    unsigned height;             /* of the frame (TRO_DEFAULT, gapped RACTIVE); 0: 1080 */
    int has_troffset;            /* the SDP's TROFF: TROFFSET given, else TRO_DEFAULT */
    uint64_t troffset_ns;
    uint32_t npackets; /* NPACKETS; 0: the count of the first whole frame received */
    /* 1: the RTP timestamps are on the arrival clock's TAI (ST 2110-10: the receiver's clock
     * locked to the sender's PTP, or a capture of a sender on this host's clock): frame n is
     * read from TVD = N x TFRAME + TROFFSET, N its frame on the grid from the epoch, and the
     * first packet's offset from the timestamp's instant (TPR0) is measured. 0: the first
     * frame's first packet is taken as on time (at its TVD) and later frames follow it by
     * their timestamps (clock drift between the two hosts then adds up). */
    int clock_known;
    int64_t tai_offset_ns; /* with clock_known: CLOCK_TAI - the arrival clock */
} rtp_tr21_config;

typedef struct rtp_tr21_limits {
    unsigned cmax;     /* network compatibility model: most packets in the bucket */
    unsigned vrx_full; /* virtual receiver buffer: most packets held */
} rtp_tr21_limits;

typedef struct rtp_tr21_stats {
    int active;             /* configured with a frame rate */
    rtp_tr21_type declared; /* the configuration's type */
    int clock_known;
    uint32_t npackets;         /* NPACKETS used (0 while still counting the first frame) */
    uint64_t packets, frames;  /* measured (from the first frame after NPACKETS is known) */
    size_t packet_bytes_max;   /* the largest packet measured (RTP header and payload) */
    unsigned cinst_peak;       /* highest Cinst */
    int64_t vrx_peak, vrx_min; /* highest VRX; lowest level of a frame after an arrival
                                  (negative: packets came after their read time) */
    uint64_t underflows;       /* arrivals after their read time */
    rtp_tr21_limits narrow, wide;
    unsigned cinst_max, vrx_full; /* the declared type's limits (narrow when undeclared) */
    double trs_ns, tdrain_ns, troffset_ns;
    /* clock_known: the first packet of each frame against its RTP timestamp's instant */
    uint64_t tpr0_count;
    int64_t tpr0_min_ns, tpr0_max_ns;
    double tpr0_mean_ns;
    rtp_tr21_verdict conforms; /* narrow: both models within the narrow limits and no
                                  underflow; wide: within the wide ones; else not */
    int conforms_declared;     /* met the declared type (W: narrow or wide; undeclared: 0) */
} rtp_tr21_stats;

/* The limits of a sender type for NPACKETS packets a frame (field) at num/den frames a
 * second: CMAX (narrow with the type's RACTIVE: the raster's for 2110TPN, 1 otherwise) and
 * VRX_FULL; `wide` selects the wide limits. */
rtp_tr21_limits rtp_tr21_limits_of(rtp_tr21_type t, int wide, uint32_t npackets, unsigned num,
                                   unsigned den, int interlaced, unsigned height);
/* TRO_DEFAULT of a raster (ST 2110-21's default TROFFSET), ns: a fraction of the frame
 * period (43/1125 for progressive 1080 lines and more, 28/750 below; interlaced 22/1125,
 * 26/625, 20/525). */
uint64_t rtp_tr21_tro_default_ns(unsigned height, int interlaced, unsigned num, unsigned den);

typedef struct rtp_tr21 rtp_tr21;
xsf_status rtp_tr21_create(rtp_tr21 **a, const rtp_tr21_config *cfg, xsf_error *err);
void rtp_tr21_destroy(rtp_tr21 *a);
/* One packet of the stream as it arrived: its arrival time (ns, on the clock of
 * clock_known), RTP timestamp, marker and size. Packets of the stream's first, maybe
 * partial, frame (and with npackets 0 of the frame counted) are not measured. Returns 1
 * when the packet began a frame measured (the moment to refresh a copy of the figures). */
int rtp_tr21_packet(rtp_tr21 *a, uint64_t arrival_ns, uint32_t timestamp, int marker, size_t bytes);
/* The figures and the verdict now. */
void rtp_tr21_get(const rtp_tr21 *a, rtp_tr21_stats *out);

/* ------------------------------------------------------------------ */
/* Statistics of one received stream                                   */

typedef struct rtp_stats {
    uint64_t packets;         /* valid RTP packets of the stream, duplicates included */
    uint64_t bytes;           /* their RTP packet bytes */
    uint64_t invalid;         /* not RTP, or a bad RFC 9134 payload header */
    uint64_t truncated;       /* cut short by the capture or the socket buffer */
    uint64_t wrong_ssrc;      /* valid RTP from another SSRC than the one followed (dropped) */
    uint64_t on_probation;    /* valid RTP from an SSRC that never passed probation (dropped) */
    uint64_t ssrc_changes;    /* times the receiver moved to a new SSRC after the old fell silent */
    uint64_t wrong_pt;        /* valid RTP with another payload type (dropped) */
    uint64_t lost;            /* sequence numbers given up on (never arrived in time), lost_edge
                                 included */
    uint64_t lost_edge;       /* of lost: packets of the stream's first frame before its first
                                 packet received, and of the frame under way after the last one
                                 (at flush), counted from the RFC 9134 P and SEP counters and
                                 the picture header (see rtp_depacketizer_flush) */
    uint64_t reordered;       /* arrived after a higher sequence number, still in time */
    uint64_t duplicated;      /* a sequence number already received */
    uint64_t late;            /* arrived after its sequence number was given up on */
    uint64_t frames_complete; /* picture segments passed on whole */
    uint64_t frames_dropped;  /* with a hole, or invalid, or wholly lost: not passed on */
    uint64_t frames_partial;  /* slice mode: passed on with the list of whole slices */
    uint64_t frames_invalid;  /* of frames_dropped: no hole, but not a valid codestream (or
                                 more slices than max_slices) */
    uint64_t frames_dropped_edge;      /* of frames_dropped: cut by the start of the stream (its
                                          first packets came before the receiver's first) or
                                          by the end of input (flush inside the frame) */
    uint64_t frames_dropped_no_buffer; /* of frames_dropped: the buffer source had no buffer */
    uint64_t frames_too_large; /* of frames_dropped: more bytes than the segment may hold (its
                                  picture header's bound, rtp_jxs_codestream_bound, or Lcod,
                                  or max_frame_bytes; no picture header in its first
                                  RTP_JXS_HEADER_SCAN_BYTES), stopped there; or a picture
                                  larger than max_picture_samples */
    uint64_t foreign_source;   /* datagrams from another sender than the one given (--source),
                                  dropped before they were parsed */
    uint64_t memory_bytes;     /* what the depacketizer holds now (reorder window, probation
                                  store, its own buffers and tables; not a buffer source's
                                  buffers), at most rtp_depacketizer_memory_bound */
    double jitter_ms;          /* RFC 3550 A.8 interarrival jitter, first packet of each frame */
    double bitrate_bps;        /* bits of RTP packets over the arrival span */
    uint64_t first_arrival_ns, last_arrival_ns;
    uint32_t ssrc;        /* the SSRC followed (0 before one is accepted) */
    uint64_t highest_seq; /* extended */
    rtp_tr21_stats tr21;  /* with rtp_depacketizer_config.tr21: the sender's conformance, as
                             of the last frame begun (and at flush) */
} rtp_stats;

/* ------------------------------------------------------------------ */
/* Depacketizer: packets in, whole codestreams out                      */

/* One picture segment: a progressive frame or one field. */
typedef struct rtp_jxs_slice {
    uint32_t index; /* slice index from 0 */
    size_t offset;  /* in rtp_frame.data */
    size_t bytes;
} rtp_jxs_slice;

/* A frame buffer the caller provides (e.g. pinned host memory from a pool). */
typedef struct rtp_frame_buffer {
    uint8_t *data;
    size_t capacity;
    void *handle; /* the caller's: which pool slot this is */
} rtp_frame_buffer;
/* Returns 0 and fills *buf with a buffer of at least `min_bytes` (the caller may give more);
 * non-zero when none is free: the frame under assembly is then dropped and counted
 * (stats.frames_dropped_no_buffer). */
typedef int (*rtp_buffer_acquire_cb)(void *ctx, size_t min_bytes, rtp_frame_buffer *buf);
/* Gives back a buffer the depacketizer no longer needs (not called for buffers handed over
 * through on_frame). */
typedef void (*rtp_buffer_release_cb)(void *ctx, rtp_frame_buffer *buf);

/* A copy of payload bytes into a frame buffer that the depacketizer left to
 * its caller (rtp_depacketizer_config.defer_copies). */
typedef struct rtp_copy {
    size_t offset;      /* into the frame's buffer (rtp_frame.buffer.data) */
    const uint8_t *src; /* in a packet the caller keeps (packets_kept) */
    size_t bytes;
} rtp_copy;

/* With deferred copies, the first bytes of each segment that are always
 * written by the depacketizer itself (the boxes and the picture header are
 * read there). */
#define RTP_DEFER_PREFIX_BYTES 16384

typedef struct rtp_frame {
    uint32_t timestamp;
    uint32_t ssrc;
    uint8_t f_counter;
    uint8_t scan;        /* rtp_jxs_scan */
    uint8_t mode;        /* rtp_jxs_mode */
    int complete;        /* 1: data is the whole codestream */
    const uint8_t *data; /* the codestream (boxes removed): into `buffer` when the config has a
                            buffer source, else into the depacketizer's own memory, valid
                            during the callback */
    size_t bytes;
    rtp_jxs_boxes boxes;
    uint64_t first_seq, last_seq; /* extended sequence numbers */
    uint64_t first_arrival_ns, last_arrival_ns;
    /* complete == 0 (slice mode only): data holds the header segment, then
     * the whole slices listed here, one after the other. */
    int header_whole;
    size_t nslices;
    const rtp_jxs_slice *slices; /* valid during the callback */
    /* With a buffer source (rtp_depacketizer_config.acquire): the buffer `data` points into
     * (at an offset: the boxes are removed). It is the callback's from then on, for whole
     * and partial frames alike: the caller gives it back to its pool itself (release is not
     * called for it). All zero without a buffer source. */
    rtp_frame_buffer buffer;
    /* defer_copies: the copies into `buffer` still to be made, in offset order, none inside
     * its first RTP_DEFER_PREFIX_BYTES and none overlapping another; the bytes they write
     * are not there yet (data, slices). Valid during the callback. NULL, 0 otherwise. */
    const rtp_copy *copies;
    size_t ncopies;
    /* The segment's picture header (ISO/IEC 21122-1: SOC up to the first SLH), as the
     * depacketizer parsed it to bound the segment (rtp_jxs_codestream_bound): has_header
     * says it is there (whole frames whose codestream starts with a header that parses, and
     * partial ones whose header segment is whole), so that a receiver passes it on with the
     * codestream instead of parsing it again. header.header_bytes counts from `data`. */
    int has_header;
    xs_header header;
} rtp_frame;

typedef void (*rtp_frame_cb)(void *ctx, const rtp_frame *frame);

/* The segment under way, as it grows (sub-frame latency): buffer.data[0,
 * bytes) (boxes, then the codestream's start) is final: those bytes are not
 * written again while the segment lasts. Codestream mode: every byte up to
 * the first hole; slice mode: the header segment and the whole slices up to
 * the first broken one. With `dropped`, the segment ended without being
 * passed on (a hole; no more bytes come) and its buffer is the callback's
 * from then on, as with on_frame (the depacketizer keeps no hold on it). */
typedef struct rtp_progress {
    uint32_t timestamp;
    uint8_t f_counter, scan, mode;
    rtp_frame_buffer buffer; /* the buffer filled (it may move to a larger one: the old one is then
                                released through the buffer source's release) */
    size_t bytes;
    uint64_t first_arrival_ns, last_arrival_ns;
    int dropped;
} rtp_progress;
typedef void (*rtp_progress_cb)(void *ctx, const rtp_progress *progress);

/* Source validation (RFC 3550 A.1): without ssrc_given, a new SSRC is followed only once
 * `probation_packets` of its packets came in sequence; its packets are held meanwhile (up
 * to 16 sources, 2 x probation_packets packets each) and taken as they came once it passes,
 * so nothing of the stream's start is lost; those of sources that never pass are counted
 * in stats.on_probation. While the SSRC followed is live, other SSRCs are refused
 * (stats.wrong_ssrc); once it has been silent for ssrc_timeout_ns (by the arrival times
 * given to push), another may pass probation and is followed from then on (a sender that
 * restarts with a new SSRC; stats.ssrc_changes): the old stream's frame under way ends as
 * at flush. Without arrival times (0) the SSRC followed never changes. */
#define RTP_PROBATION_PACKETS 4 /* default probation_packets */
/* The reorder window's bound: a quarter of the 16-bit sequence space where the depacketizer
 * extends the numbers itself; where the caller does (seq_given), 2^18 packets (450 ms of
 * 580,000 packets a second). */
#define RTP_REORDER_OWN_MAX 16384u
#define RTP_REORDER_GIVEN_MAX 262144u
#define RTP_SSRC_TIMEOUT_NS 1000000000ull /* default ssrc_timeout_ns: 1 s */

typedef struct rtp_depacketizer_config {
    int payload_type; /* -1: any */
    int ssrc_given;   /* 1: only `ssrc`; 0: the first SSRC that passes probation */
    uint32_t ssrc;
    unsigned probation_packets; /* 0 = RTP_PROBATION_PACKETS; 1 = the first packet's SSRC at
                                   once; at most 8 */
    uint64_t ssrc_timeout_ns;   /* 0 = RTP_SSRC_TIMEOUT_NS */
    unsigned reorder_packets;   /* reorder window; 0 = 512; at most RTP_REORDER_OWN_MAX, or
                                   with seq_given RTP_REORDER_GIVEN_MAX */
    uint64_t reorder_ns;        /* give up on a hole after this long (0 = only by count) */
    int seq_given; /* 1: the caller extends the sequence numbers (the merge of several legs,
                      rtp_merger_ext) and gives each packet's to rtp_depacketizer_push_seq: the
                      window may then span more than the 16-bit numbers tell apart */
    size_t max_packet_bytes;      /* largest RTP packet kept; 0 = 9000 */
    size_t max_frame_bytes;       /* largest picture segment; 0 = 64 MiB. A segment is further held
                                     to what its own picture header allows (see frames_too_large) */
    uint64_t max_picture_samples; /* a segment whose picture header has more samples (all
                                     components) is dropped as too large before it is decoded
                                     (T=1 segments); 0 = no limit (the decoder's own) */
    unsigned max_slices;          /* slice mode: most slices of a segment; 0 = 65535, all that JPEG
                                     XS allows (the table is sized from each picture header) */
    int validate;     /* 1: check that a whole frame is one valid codestream (xs_scan_layout) */
    int packets_kept; /* 1: every packet given to push stays valid and unchanged until flush or
                         destroy (a mapped capture file, rtp_pcap_mapped): the reorder window
                         points at the packets instead of copying them */
    int defer_copies; /* with packets_kept and a buffer source: payload bytes past a segment's
                         first RTP_DEFER_PREFIX_BYTES are not copied into the buffer but listed
                         in rtp_frame.copies for the caller to copy (on other threads); every
                         count and decision is the same as without */
    rtp_frame_cb on_frame; /* called for whole frames and, in slice mode, partial ones */
    void *ctx;
    /* Optional buffer source: when `acquire` is set, each picture segment is assembled
     * directly in a buffer from it (no copy between packets and that buffer), which passes to
     * on_frame with the frame (rtp_frame.buffer). The depacketizer asks for the largest
     * segment seen so far (the first time 1 MiB, at most max_frame_bytes), and when that is
     * refused, for exactly what it needs then; a segment that outgrows its buffer moves to a
     * larger one (half again what it needs; one copy; the old one is released). The
     * buffer of a dropped segment is kept for the next one; the one held is released at
     * destroy. T=0 (out-of-order) segments are gathered in the depacketizer's own memory and
     * put in order into an acquired buffer when they end (one copy, as without a source).
     * Without `acquire`, frames are assembled in the depacketizer's own memory. */
    rtp_buffer_acquire_cb acquire;
    rtp_buffer_release_cb release; /* may be NULL when buffers need no giving back */
    void *buffer_ctx;
    /* Optional, with a buffer source: called (with ctx) from inside push each time the
     * final prefix of a T=1 segment grows, and once with `dropped` for a segment that
     * reported progress and then failed (see rtp_progress). T=0 segments report none. */
    rtp_progress_cb on_progress;
    /* Optional: with a frame rate (tr21.rate_num), each packet of the SSRC followed, as it
     * arrives, is measured against ST 2110-21 (rtp_tr21_*; stats.tr21). */
    rtp_tr21_config tr21;
} rtp_depacketizer_config;

typedef struct rtp_depacketizer rtp_depacketizer;

/* Allocates its buffers; memory is bounded by reorder_packets x
 * max_packet_bytes + max_frame_bytes (unless a buffer source gives the frame
 * buffers) + a slice table (24 bytes a slice) + the probation store (16 x 2 x
 * probation_packets x max_packet_bytes, without ssrc_given), and, once a
 * slice-mode stream with T=0 (out-of-order sending) is seen, a table of 65536
 * packets and a second frame buffer of up to max_frame_bytes to put segments
 * in order. */
xsf_status rtp_depacketizer_create(rtp_depacketizer **d, const rtp_depacketizer_config *cfg,
                                   xsf_error *err);
/* The most a depacketizer of this configuration ever holds itself (stats.memory_bytes), the
 * formula above with its defaults filled in, T=0 included; buffers from a buffer source
 * are not in it (the caller bounds them: at most max_frame_bytes each). */
size_t rtp_depacketizer_memory_bound(const rtp_depacketizer_config *cfg);
void rtp_depacketizer_destroy(rtp_depacketizer *d);

/* Feeds one UDP payload. `arrival_ns` is its receive time (any monotonic
 * clock; 0 when unknown). Frames are passed to on_frame from inside this
 * call. Never fails on bad input: it is counted in the statistics.
 * The start of a stream is a hole like any other: packets are held until
 * reorder_packets later numbers arrived, reorder_ns passed (poll) or flush,
 * so that a packet that arrives behind the first one received but inside
 * the window is still taken in order. */
void rtp_depacketizer_push(rtp_depacketizer *d, const uint8_t *pkt, size_t len,
                           uint64_t arrival_ns);
/* The same with the packet's sequence number as the caller extended it (seq_given: the
 * merge's, rtp_merger_ext; only its steps matter, not its origin); seq_ext 0: not known,
 * the depacketizer extends it as push does.
 *
 * A gap of more than 3000 numbers (RFC 3550 A.1's MAX_DROPOUT), or one longer in time
 * than the 16-bit numbers measure, is taken as loss when the stream's pace places the
 * packet after it (rtp_seq_pace in rtp_internal.h: its timestamp moved on with the clock;
 * a path cut and restored): every number in between counts lost, nothing that arrived is
 * dropped. Otherwise it is taken as a restart of the sender once the next packet follows
 * it, and the packet that began the jump is held meanwhile and taken first. */
void rtp_depacketizer_push_seq(rtp_depacketizer *d, const uint8_t *pkt, size_t len,
                               uint64_t arrival_ns, uint64_t seq_ext);
/* Counts a packet that arrived cut short (pcap caplen < len, MSG_TRUNC). */
void rtp_depacketizer_count_truncated(rtp_depacketizer *d);
/* Counts a datagram from another sender than the one given (stats.foreign_source). */
void rtp_depacketizer_count_foreign_source(rtp_depacketizer *d);
/* Gives up on holes older than reorder_ns at time now_ns (call it when no
 * packet arrives for a while). */
void rtp_depacketizer_poll(rtp_depacketizer *d, uint64_t now_ns);
/* End of input: gives up on every hole and finishes the frame under way;
 * its packets after the last one received count in lost_edge: codestream
 * mode, as many as the picture header's Lcod leaves for packets of the
 * size of its first (at least one); slice mode, one for the unit under way
 * and one for each slice the picture header has after it (each at least
 * one packet: a lower bound). Packets of sources still on probation are
 * dropped (on_probation). */
void rtp_depacketizer_flush(rtp_depacketizer *d);
const rtp_stats *rtp_depacketizer_stats(const rtp_depacketizer *d);

/* ------------------------------------------------------------------ */
/* Packetizer: codestreams in, packets out                              */

typedef struct rtp_packetizer_config {
    rtp_jxs_mode mode;
    size_t packet_bytes;  /* largest RTP packet (RTP header + payload); 0 = 1440 */
    uint8_t payload_type; /* 96..127 */
    uint32_t ssrc;
    uint16_t first_seq;
    int boxes; /* 1: put the picture segment boxes in front of each codestream, as RFC 9134
                  3.4 and 4.1 require; 0 sends bare codestreams, which is not RFC 9134 (for
                  testing receivers only) */
    rtp_jxs_boxes box_template; /* brat/frat/schar/colr; ppih/plev are taken from each codestream */
} rtp_packetizer_config;

typedef struct rtp_packetizer rtp_packetizer;

/* Called once per packet, in order; a non-zero return stops packetization
 * and is returned by rtp_packetize. */
typedef int (*rtp_packet_cb)(void *ctx, const uint8_t *pkt, size_t len, int last_of_segment);

xsf_status rtp_packetizer_create(rtp_packetizer **p, const rtp_packetizer_config *cfg,
                                 xsf_error *err);
void rtp_packetizer_destroy(rtp_packetizer *p);

/* Packet count rtp_packetize will produce for this codestream. */
xsf_status rtp_packetize_count(rtp_packetizer *p, const uint8_t *cs, size_t len, size_t *packets,
                               xsf_error *err);

/* Packetizes one picture segment (codestream `cs` of `len` bytes, which
 * must be exactly one codestream). `scan` is the I field; `f_counter` the
 * frame number (mod 32; both fields of a frame share it). `timestamp` is the
 * sampling instant of the segment: of the frame, or of the field (each field
 * its own, RFC 9134 4.2 as corrected by erratum 6752). */
xsf_status rtp_packetize(rtp_packetizer *p, const uint8_t *cs, size_t len, uint32_t timestamp,
                         unsigned f_counter, rtp_jxs_scan scan, rtp_packet_cb cb, void *ctx,
                         xsf_error *err);
uint16_t rtp_packetizer_next_seq(const rtp_packetizer *p);

/* ------------------------------------------------------------------ */
/* Pacing (after SMPTE ST 2110-21)                                      */

typedef enum rtp_pacing {
    RTP_PACING_NARROW = 0, /* one packet every TRS = TFRAME / NPACKETS (linear) */
    RTP_PACING_WIDE,       /* bursts of up to the wide sender's CMAX - 1 packets */
    RTP_PACING_NONE,       /* as fast as possible */
    RTP_PACING_FRAME,      /* each segment's packets at once, at the segment's time (no ST
                              2110-21 sender type, no TP): loopback, tests, the demo */
} rtp_pacing;

/* ST 2110-21 network-compatibility bound CMAX for a frame of `npackets`
 * sent over `frame_ns` (RACTIVE = 1, as for compressed video). */
unsigned rtp_pacing_cmax(rtp_pacing pacing, size_t npackets, uint64_t frame_ns);

/* The SDP TP value of a pacing (RFC 9134 5: signalled when the sender
 * shapes its traffic after ST 2110-21): "2110TPNL" for our narrow pacing,
 * which is linear, "2110TPW" for wide, NULL for none (no TP). */
const char *rtp_pacing_tp(rtp_pacing pacing);

/* Send time of packet `index` of `npackets` from the start of the frame:
 * narrow one packet every TRS, wide in bursts of rtp_pacing_burst_default. */
uint64_t rtp_pacing_offset_ns(rtp_pacing pacing, size_t index, size_t npackets, uint64_t frame_ns);

/* The largest burst (packets handed over at once, every burst x TRS) that
 * keeps the pacing within its sender type's CMAX: CMAX - 1 (see pacing.c);
 * for RTP_PACING_NONE and RTP_PACING_FRAME the whole frame. */
unsigned rtp_pacing_burst_default(rtp_pacing pacing, size_t npackets, uint64_t frame_ns);
/* Send time of packet `index` when packets leave in bursts of `burst`
 * (0: rtp_pacing_burst_default): the time of the burst's first packet. */
uint64_t rtp_pacing_burst_offset_ns(rtp_pacing pacing, size_t index, size_t npackets,
                                    uint64_t frame_ns, unsigned burst);

/* RTP timestamp of frame `n` at rate num/den from `base`: the sampling
 * instant on the 90 kHz clock, truncated to an integer (RFC 9134 4.2), exact
 * (no drift). For interlaced video, field n at 2 x num/den. */
uint32_t rtp_frame_timestamp(uint32_t base, uint64_t n, unsigned num, unsigned den);

/* Timing on the plant's clock (ST 2110-10; SMPTE ST 2059 PTP, CLOCK_TAI:
 * xsf_clock.h). Frame n of a stream at num/den frames a second is the instant
 * n x den / num s after the TAI epoch (1970-01-01 00:00:00 TAI), the frame-rate
 * grid every sender of the plant shares; its RTP timestamp is that instant on
 * the 90 kHz media clock whose zero is the epoch (a=mediaclk:direct=0),
 * truncated to a tick, modulo 2^32. The timestamp is taken from the exact
 * instant (59.94 Hz: frame 2 at 33,366,666.67 ns is tick 3003), not from the
 * instant truncated to the ns (which would give 3002). Interlaced fields: the
 * grid at 2 x num/den. num > 0, den > 0; exact for any time before year 2500. */
/* The first frame of the grid at or after tai_ns. */
uint64_t rtp_tai_frame_index(uint64_t tai_ns, unsigned num, unsigned den);
/* Frame n's instant, ns since the epoch, truncated. */
uint64_t rtp_tai_frame_ns(uint64_t n, unsigned num, unsigned den);
/* Frame n's RTP timestamp: floor(n x den x 90000 / num) mod 2^32. */
uint32_t rtp_tai_frame_timestamp(uint64_t n, unsigned num, unsigned den);
/* The RTP timestamp of an instant: floor(tai_ns x 90000 / 10^9) mod 2^32. */
uint32_t rtp_tai_timestamp(uint64_t tai_ns);
/* The instant (ns since the epoch, the tick's start rounded up to the ns) of the
 * 90 kHz tick whose low 32 bits are `ts` nearest to ref_tai_ns (within half the
 * wrap, +-6.6 hours): an RTP timestamp read back against the clock, e.g. at its
 * frame's arrival. Never before the epoch. */
uint64_t rtp_tai_unwrap_ns(uint32_t ts, uint64_t ref_tai_ns);

/* ------------------------------------------------------------------ */
/* Field pairing: picture segments in, frames out                      */
/*
 * An interlaced frame travels as two picture segments, the first field
 * (I=10, the frame's top line and every other line below it) then the
 * second (I=11), with one F counter (RFC 9134 4.3). The pairer takes the
 * segments the depacketizer delivers (call rtp_field_pairer_push from its
 * on_frame) and passes on frames: a progressive segment as it is, an
 * interlaced frame only with both fields' codestreams. A frame one of whose
 * fields was lost, cut short (a partial slice-mode segment) or does not match
 * (F counter, SSRC, order, timestamp) is dropped whole and counted once.
 * Weaving the decoded fields: imgio_weave (imgio/include/image_io.h). */

typedef struct rtp_field_frame {
    int interlaced; /* 0: a progressive frame (data[0]); 1: two fields */
    uint8_t f_counter;
    uint32_t ssrc;
    uint32_t timestamp[2]; /* of each segment: the frame's, or each field's */
    /* The codestreams (boxes removed): the frame, or the first and the second
     * field. Valid during the callback only. */
    const uint8_t *data[2];
    size_t bytes[2];
    rtp_jxs_boxes boxes;          /* of the first segment */
    uint64_t first_seq, last_seq; /* extended, from the first segment to the last */
    uint64_t first_arrival_ns, last_arrival_ns;
} rtp_field_frame;

typedef void (*rtp_field_frame_cb)(void *ctx, const rtp_field_frame *frame);

typedef struct rtp_field_pairer_config {
    size_t max_segment_bytes;     /* largest first field kept; 0 = 64 MiB */
    uint32_t max_field_gap_ticks; /* largest RTP timestamp step from a first field to its
                                     second (90 kHz); 0 = 9000 (100 ms) */
    rtp_field_frame_cb on_frame;  /* called from inside push for each frame passed on */
    void *ctx;
} rtp_field_pairer_config;

typedef struct rtp_field_stats {
    uint64_t frames;           /* passed on: progressive + interlaced */
    uint64_t progressive;      /* progressive frames passed on */
    uint64_t interlaced;       /* field pairs passed on */
    uint64_t frames_dropped;   /* interlaced frames dropped: a field lost, cut short or not
                                  matching (frames whose two fields were both lost never reach
                                  the pairer: see the depacketizer's frames_dropped) */
    uint64_t fields_discarded; /* whole or partial fields thrown away with those frames */
    uint64_t too_large;        /* of frames_dropped: a first field above max_segment_bytes */
    uint64_t no_memory;        /* of frames_dropped: no memory to hold a first field */
} rtp_field_stats;

typedef struct rtp_field_pairer rtp_field_pairer;

/* Allocates the handle; the first-field buffer grows with the largest first
 * field seen (at most max_segment_bytes) and is then reused. */
xsf_status rtp_field_pairer_create(rtp_field_pairer **p, const rtp_field_pairer_config *cfg,
                                   xsf_error *err);
void rtp_field_pairer_destroy(rtp_field_pairer *p);
/* One picture segment as rtp_depacketizer delivers it (whole or partial). */
void rtp_field_pairer_push(rtp_field_pairer *p, const rtp_frame *segment);
/* End of input: a first field still waiting for its second is dropped (counted). */
void rtp_field_pairer_flush(rtp_field_pairer *p);
const rtp_field_stats *rtp_field_pairer_stats(const rtp_field_pairer *p);

/* ------------------------------------------------------------------ */
/* SDP (RFC 8866) for ST 2110-22 / RFC 9134                             */

typedef struct rtp_sdp {
    char session_name[64];
    char origin_addr[64];  /* o= unicast address of the sender */
    int ipv6;              /* address family of c= */
    char dest_addr[64];    /* c= */
    unsigned ttl;          /* c= /ttl for IPv4 multicast (0: none) */
    char source_addr[64];  /* a=source-filter: incl (SSM), "" when none */
    unsigned port;         /* m= */
    unsigned payload_type; /* m= and a=rtpmap */
    /* a=fmtp (RFC 9134 7.1; SSN is ST 2110-22's, TP ST 2110-21's) */
    int packetmode; /* K; required in a=fmtp */
    int transmode;  /* T (default 1; 0 requires packetmode 1) */
    char profile[32], level[16], sublevel[24];
    unsigned depth, width, height;
    unsigned rate_num, rate_den; /* exactframerate; 0 = not given */
    int interlace, segmented;    /* name-only parameters; segmented only with interlace */
    char sampling[32], colorimetry[32], tcs[24], range[24], ssn[32], tp[16]; /* "" = absent */
    uint64_t max_bitrate_kbps;                                               /* b=AS:, 0 = none */
    /* ST 2110-10 (RFC 7273): the reference clock of the timestamps, a=ts-refclk's value
     * ("ptp=IEEE1588-2008:traceable", "ptp=IEEE1588-2008:GMID:DOMAIN", "localmac=...";
     * "" = none), and the media clock, a=mediaclk's ("direct=0"; written as that when "").
     * Read from the media section, else the session's. */
    char ts_refclk[96], mediaclk[32];
    /* ST 2110-21's TROFF (fmtp, us): the sender's TROFFSET when not the default */
    int has_troff;
    unsigned troff_us;
} rtp_sdp;

/* Fills defaults: transmode 1, port 5004, payload type 112, SSN ST2110-22:2019,
 * no TP (set it when the sender paces: rtp_pacing_tp). */
void rtp_sdp_init(rtp_sdp *s);
/* Writes the description; returns the length, or the size needed when it exceeds cap. */
size_t rtp_sdp_write(const rtp_sdp *s, char *out, size_t cap);
/* The legs of one stream sent twice (SMPTE ST 2022-7) as one description: the session
 * lines of legs[0], "a=group:DUP primary secondary" (RFC 7104), then each leg's media
 * section as rtp_sdp_write writes it with "a=mid:primary" / "a=mid:secondary". One leg
 * (n = 1): exactly rtp_sdp_write. n is 1 or 2 (RTP_SDP_MAX_LEGS); returns as
 * rtp_sdp_write. */
#define RTP_SDP_MAX_LEGS 2
size_t rtp_sdp_write_legs(const rtp_sdp *legs, size_t n, char *out, size_t cap);
/* Whether an a=ts-refclk value names a PTP clock ("ptp=..."). */
int rtp_sdp_refclk_is_ptp(const char *ts_refclk);
/* Reads the first video m= section with a jxsv rtpmap. Its a=fmtp (before or
 * after the rtpmap) must have packetmode; transmode=0 needs packetmode=1 and
 * segmented needs interlace (RFC 9134 7.1); other parameters are ignored.
 * exactframerate is kept reduced. Errors name the line. */
xsf_status rtp_sdp_parse(const char *text, size_t len, rtp_sdp *s, xsf_error *err);

/* The RFC 9134 names of a codestream's profile, level and sublevel ("High444.12", "2k-1",
 * "Sublev3bpp": ISO/IEC 21122-2's without white space), from Ppih and Plev; NULL when
 * unknown. */
const char *rtp_sdp_profile_name(uint16_t ppih, char *buf, size_t cap);
const char *rtp_sdp_level_name(uint16_t plev, char *buf, size_t cap);
const char *rtp_sdp_sublevel_name(uint16_t plev, char *buf, size_t cap);

/* Samples of one picture (all components) by the SDP's width, height and sampling
 * (RFC 9134 7.1 / ST 2110-20 names: 4:2:2, 4:2:0, 4:4:4, RGB, KEY, ...); 0 when width or
 * height is not given. An unknown sampling counts 4 full components (an upper bound).
 * Interlaced: of the frame (each field is half). */
uint64_t rtp_sdp_samples(const rtp_sdp *s);

/* The RANGE in effect: the parameter, else NARROW, or FULL with UNSPECIFIED
 * colorimetry (RFC 9134 7.1). */
const char *rtp_sdp_range(const rtp_sdp *s);

/* Whether a stream agrees with its SDP (RFC 9134 7.1: the SDP's values SHALL agree with the
 * payload's): the width, height, sampling and depth of `picture` (a frame's, an interlaced
 * frame's two fields woven) and the frame rate its RTP timestamps step by (step_ticks of the
 * 90 kHz clock from one frame to the next, within one tick; 0: not known). What the SDP
 * does not give is not compared. XSF_OK, or XSF_ERR_INVALID naming each that differs with
 * both values ("size 1920x1080 in the SDP, 320x180 in the stream; ..."). */
xsf_status rtp_sdp_compare(const rtp_sdp *s, const xsf_format *picture, uint32_t step_ticks,
                           xsf_error *err);

/* ------------------------------------------------------------------ */
/* UDP sockets                                                          */

/* "239.1.1.1:5004", "[ff15::1]:5004", "127.0.0.1:5004", "[::1]:5004". */
typedef struct rtp_addr {
    int family;       /* AF_INET or AF_INET6 */
    uint8_t addr[16]; /* network order */
    uint16_t port;
    uint32_t scope_id; /* IPv6 link-local scope */
} rtp_addr;

xsf_status rtp_addr_parse(const char *text, int need_port, rtp_addr *a, xsf_error *err);
void rtp_addr_format(const rtp_addr *a, int with_port, char *out, size_t cap);
int rtp_addr_is_multicast(const rtp_addr *a);

typedef struct rtp_udp_config {
    rtp_addr local; /* receiver: group or unicast address (any: all zero) and port */
    int has_source; /* receiver: only this sender's datagrams are used; multicast joins
                       source-specific (SSM), unicast marks the others foreign_source.
                       Sender: the local address to send from (bind, port 0) */
    rtp_addr source;
    char iface[32];        /* interface for joins / sending, "" = default */
    size_t buffer_bytes;   /* SO_RCVBUF / SO_SNDBUF wanted (forced when privileged); 0 = 32 MiB */
    unsigned ttl;          /* sender: multicast TTL / hop limit; 0 = 16 */
    int timestamps;        /* receiver: kernel receive timestamps (SO_TIMESTAMPNS) */
    int reuse_port;        /* receiver: SO_REUSEPORT (several receiving threads) */
    int gro;               /* receiver: UDP_GRO, several datagrams of a flow in one buffer (cut
                              apart again by rtp_udp_receive); ignored where the kernel refuses */
    unsigned gso_segments; /* sender: UDP segmentation offload, up to this many equal-size
                              datagrams of one rtp_udp_send as one message (at most
                              RTP_UDP_GSO_MAX); 0 or 1: one message per datagram */
} rtp_udp_config;

typedef struct rtp_udp rtp_udp;

/* One received datagram of a batch: points into buffers the socket owns,
 * valid until the next receive call. */
typedef struct rtp_datagram {
    const uint8_t *data;
    size_t bytes;
    int truncated;       /* larger than the buffer (MSG_TRUNC) */
    int foreign_source;  /* with rtp_udp_config.has_source: from another sender (drop it) */
    uint64_t arrival_ns; /* kernel timestamp, or without one the time of receipt: CLOCK_REALTIME */
    rtp_addr from;
    unsigned leg;     /* of a stream's legs (SMPTE ST 2022-7), the one it came on; 0: the first */
    uint64_t seq_ext; /* the legs' merge: the sequence number it extended (for
                         rtp_depacketizer_push_seq); 0: none */
} rtp_datagram;

#define RTP_UDP_BATCH 64
#define RTP_UDP_GSO_MAX 64 /* datagrams per GSO message (the kernel's UDP_MAX_SEGMENTS) */

/* What a socket did, for tests and benchmarks. */
typedef struct rtp_udp_counters {
    uint64_t send_calls;         /* sendmmsg calls */
    uint64_t sent_datagrams;     /* datagrams sent */
    uint64_t gso_messages;       /* messages sent as one GSO run of several datagrams */
    uint64_t receive_calls;      /* recvmmsg calls that returned buffers */
    uint64_t received_buffers;   /* buffers received: a datagram, or a GRO run of them */
    uint64_t received_datagrams; /* datagrams handed out by rtp_udp_receive */
    uint64_t gro_buffers;        /* buffers that held several datagrams (UDP_GRO) */
} rtp_udp_counters;

xsf_status rtp_udp_open_receiver(rtp_udp **u, const rtp_udp_config *cfg, xsf_error *err);
/* dest: where packets go. */
xsf_status rtp_udp_open_sender(rtp_udp **u, const rtp_addr *dest, const rtp_udp_config *cfg,
                               xsf_error *err);
void rtp_udp_close(rtp_udp *u);
/* Waits up to timeout_ms (-1: forever; it blocks) for datagrams and
 * receives up to RTP_UDP_BATCH of them with one recvmmsg. *count = 0 on timeout.
 * With UDP_GRO, one recvmmsg may bring more than RTP_UDP_BATCH datagrams: the
 * next calls hand out the rest first, without waiting; the datagrams of one
 * GRO buffer share its kernel timestamp. The data of every datagram handed
 * out stays valid until a call that receives again (one that returns
 * datagrams of a new recvmmsg). */
xsf_status rtp_udp_receive(rtp_udp *u, int timeout_ms, rtp_datagram *out, size_t *count,
                           xsf_error *err);
/* Sends datagrams (sendmmsg), all of them in as few calls as it can: with GSO
 * (rtp_udp_config.gso_segments), runs of equal-size datagrams (the last may be
 * shorter) go as one message each, which on the wire is the same datagrams
 * back to back. Pacing is the caller's: what one call gets leaves at once.
 * Blocks while the socket buffer is full. Where the kernel refuses GSO
 * (EINVAL, EIO), the socket turns it off (rtp_udp_gso) and sends again
 * datagram by datagram: nothing is lost or sent twice. */
xsf_status rtp_udp_send(rtp_udp *u, const uint8_t *const *pkts, const size_t *lens, size_t n,
                        xsf_error *err);
/* Buffer size the kernel granted, the local port (after binding port 0). */
size_t rtp_udp_buffer_bytes(const rtp_udp *u);
uint16_t rtp_udp_local_port(const rtp_udp *u);
/* Datagrams the kernel dropped for lack of buffer (SO_RXQ_OVFL), when known. With UDP_GRO
 * the kernel counts buffers, each of which may have held several datagrams. */
uint64_t rtp_udp_kernel_drops(const rtp_udp *u);
/* Receiver: 1 when UDP_GRO is on. */
int rtp_udp_gro(const rtp_udp *u);
/* Sender: 1 while GSO is on; after the kernel refused it, 0 and *refused_errno (may be
 * NULL) says why (0 when it was never asked for or never refused). */
int rtp_udp_gso(const rtp_udp *u, int *refused_errno);
const rtp_udp_counters *rtp_udp_get_counters(const rtp_udp *u);
/* The socket's descriptor, for the caller's own poll or socket options (it stays the
 * handle's: not to be closed). */
int rtp_udp_fd(const rtp_udp *u);

/* ------------------------------------------------------------------ */
/* Impairments of a sender's own (soak tests with exact accounting)    */
/*
 * Each packet, by a seeded generator (splitmix64: one sequence of decisions per seed on
 * every machine), begins a loss with probability `loss` (the packet and, with `burst_max`
 * above 1, the next ones: 1 to burst_max packets in all, uniform, one more draw); else is
 * held back with probability `reorder` (when none is held already) and sent right behind
 * the next packet sent; and sent twice with probability `duplicate` (the copy right behind
 * the original). A packet held back when the input ends goes out last, in its place (not
 * counted as reordered). Segments [cut_from, cut_from + cut_segments) of the stream (0
 * first; a field is a segment) are cut: none of their packets goes out (a cable pulled and
 * put back), a packet held back going out before the cut in its place. Segments marked
 * `spare` go out unimpaired, never cut (a soak spares the first and the last frame, so that
 * the receiver's counts at the stream's edges are exact), though a packet held back before
 * them goes out behind their first packet.
 *
 * What a receiver whose reorder window covers the reordering then counts, exactly:
 *   packets lost       = lost
 *   packets duplicated = duplicated
 *   packets reordered  = reordered
 *   packets received   = datagrams (duplicates included)
 *   frames dropped for a missing packet = segments_with_loss (progressive: a field is a
 *     segment; a frame of two fields is dropped once).
 * (A cut of any length is counted so: the receiver places the first packet after it by
 * the stream's pace, its timestamp, and the frames in between by their timestamps where
 * the F counter wraps; progressive video. Fields of one time may share a timestamp: a cut
 * of 32 frames or more of interlaced video is counted modulo the F counter.)
 *
 * Several legs (SMPTE ST 2022-7: rtp_sender with a second leg) have an impairer each, with
 * seeds of their own; `keep` (rtp_impair_segment_leg) makes a leg spare the packets another
 * leg lost (never the same packet on every leg): it draws as ever, and a loss that falls on
 * a kept packet is counted `kept` instead.
 */
#define RTP_IMPAIR_BURST_MAX 65536u
typedef struct rtp_impair_config {
    double loss, reorder, duplicate; /* probabilities, 0 to 1 (loss: that one begins) */
    uint64_t seed;
    unsigned burst_max;              /* 0 or 1: a loss is one packet; at most 65536 */
    uint64_t cut_from, cut_segments; /* the cut; cut_segments 0: none */
} rtp_impair_config;

typedef struct rtp_impair_counts {
    uint64_t packets;   /* offered */
    uint64_t datagrams; /* sent, duplicates included */
    uint64_t lost, reordered, duplicated;
    uint64_t segments;                  /* offered */
    uint64_t segments_with_loss;        /* of which at least one packet was lost */
    uint64_t bursts;                    /* losses begun (one packet or more) */
    uint64_t cut_segments, cut_packets; /* cut (their packets are among lost) */
    uint64_t kept;                      /* losses not made: another leg lost the packet */
} rtp_impair_counts;

typedef struct rtp_impairer rtp_impairer;
xsf_status rtp_impairer_create(rtp_impairer **m, const rtp_impair_config *cfg, xsf_error *err);
void rtp_impairer_destroy(rtp_impairer *m);
/* One segment's packets in order; *nout packets to send come back in out/out_len (room for
 * 2 x n + 2), valid until the next call (packets held back across calls are copied). */
void rtp_impair_segment(rtp_impairer *m, const uint8_t *const *pkts, const size_t *lens, size_t n,
                        int spare, const uint8_t **out, size_t *out_len, size_t *nout);
/* The same for one leg of several: packets with keep[i] non-zero are not lost here (NULL:
 * none); lost[i] (NULL: not wanted) gets 1 for each packet lost, 0 for the others; out_at
 * (NULL: not wanted) the slot each packet sent goes out in: the index of the packet offered
 * it goes with (a packet held back goes with the one it follows; one sent before a cut, in
 * slot 0), non-decreasing. */
void rtp_impair_segment_leg(rtp_impairer *m, const uint8_t *const *pkts, const size_t *lens,
                            size_t n, int spare, const uint8_t *keep, uint8_t *lost,
                            const uint8_t **out, size_t *out_len, size_t *out_at, size_t *nout);
/* Whether the next segment, unless spared, is cut. */
int rtp_impair_cut_next(const rtp_impairer *m);
/* End of input: the packet still held back, if any (room for 2). */
void rtp_impair_finish(rtp_impairer *m, const uint8_t **out, size_t *out_len, size_t *nout);
const rtp_impair_counts *rtp_impairer_counts(const rtp_impairer *m);

/* ------------------------------------------------------------------ */
/* libpcap: captures in, .pcap out                                      */

typedef struct rtp_pcap_reader rtp_pcap_reader;

typedef struct rtp_pcap_packet {
    const uint8_t *udp_payload; /* into libpcap's buffer, valid until the next call; into
                                   the mapped file, valid until close (rtp_pcap_mapped) */
    size_t bytes;               /* captured UDP payload bytes */
    int truncated;              /* the capture holds fewer bytes than the datagram */
    uint64_t arrival_ns;        /* capture time, ns since the epoch */
    rtp_addr src, dst;          /* with ports */
} rtp_pcap_packet;

/* Opens a .pcap or .pcapng file. `filter` (BPF syntax) may be NULL. */
xsf_status rtp_pcap_open_file(rtp_pcap_reader **r, const char *path, const char *filter,
                              xsf_error *err);
/* Captures live on interface `iface` (needs privileges). */
xsf_status rtp_pcap_open_live(rtp_pcap_reader **r, const char *iface, const char *filter,
                              size_t buffer_bytes, xsf_error *err);
/* Next UDP datagram: XSF_OK with a packet, XSF_ERR_AGAIN when a live
 * capture had nothing within its timeout (about 50 ms; it blocks that
 * long), XSF_ERR_TRUNCATED at the end of a file. Frames that are not
 * IPv4/IPv6 UDP are skipped and counted. */
xsf_status rtp_pcap_next(rtp_pcap_reader *r, rtp_pcap_packet *pkt, xsf_error *err);
uint64_t rtp_pcap_skipped(const rtp_pcap_reader *r);
/* 1 when the reader maps the file (a classic .pcap file): every packet it
 * returned stays valid, unchanged, until rtp_pcap_close. */
int rtp_pcap_mapped(const rtp_pcap_reader *r);
void rtp_pcap_close(rtp_pcap_reader *r);

typedef struct rtp_pcap_writer rtp_pcap_writer;

/* Writes Ethernet II frames (IPv4 or IPv6, UDP with its checksum) to a .pcap file. */
xsf_status rtp_pcap_writer_open(rtp_pcap_writer **w, const char *path, xsf_error *err);
xsf_status rtp_pcap_write(rtp_pcap_writer *w, const rtp_addr *src, const rtp_addr *dst,
                          const uint8_t *payload, size_t len, uint64_t time_ns, xsf_error *err);
xsf_status rtp_pcap_writer_close(rtp_pcap_writer *w, xsf_error *err);

#ifdef __cplusplus
}
#endif

#include "rtp_receive.h"      /* receivers: their configuration from an SDP, transports */
#include "rtp_send_session.h" /* `xsflow send` between its options and its messages */
#include "rtp_sender.h"       /* the sender: clips and codestreams as a paced stream */
#endif
