/* Internal header of the depacketizer (rtp/depacketize*.c): its state and the
 * functions its files share. The design is described in depacketize.c:
 *   depacketize.c        create and destroy, memory, stage 1 (the reorder window, the SSRC
 *                        followed, jitter), push, poll and flush
 *   depack_buffers.c     frame buffers (own or the caller's), deferred copies, appending
 *                        payload bytes to the segment under way, the slice table
 *   depack_assemble.c    stage 2: segments opened, bounded by their picture header, ended,
 *                        passed on (rtp_frame) or counted; progress; loss at the edges
 *   depack_slice.c       slice mode: units, slices and the header segment; T=0 segments
 *                        gathered and put in order */
#ifndef XSF_RTP_DEPACK_INTERNAL_H
#define XSF_RTP_DEPACK_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"
#include "xs.h"

enum { SLOT_EMPTY = 0, SLOT_FILLED, SLOT_CONSUMED, SLOT_LOST };
enum { UNIT_NONE = -2, UNIT_HEADER = -1 };
/* What became of a finished segment. */
enum { SEG_DROPPED = 0, SEG_WHOLE, SEG_PARTIAL };
/* append's failures */
enum { APPEND_TOO_BIG = -1, APPEND_NO_BUFFER = -2 };

/* RFC 3550 A.1: the largest forward jump of the sequence number taken as loss. */
#define MAX_DROPOUT 3000
/* 21122-1: Hf and so the slice count are 16-bit. */
#define MAX_SLICES 65535u
/* The first buffer asked of a buffer source, before any segment was seen. */
#define FIRST_BUFFER_GUESS ((size_t)1 << 20)

typedef struct seq_meta {
    uint64_t ext;
    uint8_t state;
} seq_meta;

typedef struct slot {
    uint32_t timestamp;
    uint8_t marker;
    uint32_t bytes; /* payload bytes (RFC 9134 header included) */
    uint64_t arrival_ns;
    const uint8_t *data; /* the payload: in slot_data, or the caller's (packets_kept) */
} slot;

/* A frame buffer: the depacketizer's own (realloc) or one from the caller's
 * buffer source (pooled). */
typedef struct fbuf {
    uint8_t *data;
    size_t cap;
    int pooled;
    rtp_frame_buffer pool;
} fbuf;

typedef struct assembly {
    int open;
    int hole;        /* codestream mode: a packet of it is missing */
    int ended;       /* its last packet (L or M) was seen */
    int no_buffer;   /* the buffer source had none: the segment is dropped */
    int too_large;   /* it grew past limit: dropped, its later packets passed over */
    int header_read; /* limit is the picture header's bound (else the header scan's) */
    size_t limit;    /* the most bytes it may hold (T=1; T=0: max_frame_bytes) */
    uint32_t timestamp;
    uint8_t f, scan, mode;
    size_t bytes;            /* in d->asmb (T=1) or d->stage (T=0) */
    size_t first_data_bytes; /* data bytes of the segment's first packet */
    uint64_t first_seq, last_seq, first_arrival, last_arrival;
    uint32_t next_pcount; /* codestream mode: SEP << 11 | P expected next */
    int direct;           /* it began with no gap since the segment before */
    /* slice mode */
    int unit; /* UNIT_NONE, UNIT_HEADER, or the slice index */
    int unit_broken;
    size_t unit_start;
    uint32_t unit_next_p;
    uint32_t next_slice;
    int any_broken, last_l;
    int header_whole;
    size_t nslices;
    size_t expected_slices; /* from the picture header; 0 = not known */
    int too_many_slices;    /* the picture header has more than max_slices */
    /* slice mode, T=0: packets kept as they come (ooo_entry table) */
    int ooo;
    size_t npk;
    int last_slice;        /* the unit of the packet with the marker, -1 before */
    size_t units_ended;    /* packets with L */
    size_t p_sum;          /* sum of P + 1 over the packets with L */
    size_t progress_bytes; /* the final prefix last reported through on_progress */
    int has_header;        /* the picture header was read (limit_by_header, header_segment_done): */
    xs_header header;      /* passed on with the frame (rtp_frame.header) */
} assembly;

/* One packet of a T=0 segment: its unit (-1: header segment, else the slice
 * index, SEP), its P counter, and where its data sits in the staging buffer. */
typedef struct ooo_entry {
    int32_t unit;
    uint16_t p;
    uint8_t l;
    uint32_t bytes;
    size_t offset;
} ooo_entry;

/* T=0: the most packets one segment may have (the table is allocated on the
 * first T=0 packet, then kept). */
#define OOO_MAX_PACKETS 65536

struct rtp_depacketizer {
    rtp_depacketizer_config cfg;
    rtp_stats st;
    rtp_seq_extender seqx;
    /* the SSRC followed */
    int have_ssrc;
    uint32_t ssrc;
    uint64_t ssrc_last_ns; /* arrival of its last packet */
    rtp_sources *sources;  /* SSRCs on probation (without ssrc_given) */
    /* stage 1 */
    unsigned window;
    /* window - 1 and 2 x window - 1 where window is a power of two (the default 512), so
     * that a packet's slot and record are found by a mask, not a division; else 0 */
    uint64_t slot_mask, meta_mask;
    size_t slot_bytes;
    uint8_t *slot_data;
    unsigned window_copies; /* packets copied into slot_data, counted up to window */
    slot *slots;
    seq_meta *meta; /* 2 x window */
    int started;
    int startup; /* nothing released yet: the hole before the first packet may still fill */
    uint64_t startup_ns;
    uint64_t next;    /* next extended sequence number to release */
    uint64_t highest; /* highest extended sequence number stored */
    uint64_t hole_since_ns;
    int probation;
    uint16_t probation_seq;
    /* The packet that began a jump (A.1), held until the next one says whether it was a
     * restart (then it is taken first) or a stray (then counted invalid). */
    int holding;
    rtp_held held;
    uint8_t *held_data; /* slot_bytes */
    rtp_seq_pace pace;  /* the numbers' pace: a long gap placed (rtp_internal.h) */
    /* seq_given: the depacketizer's number of a packet is the caller's plus this */
    int given_started;
    uint64_t given_offset;
    /* jitter (RFC 3550 A.8), in RTP clock units */
    int jitter_started;
    uint32_t jitter_ts;
    double transit, jitter;
    /* stage 2 */
    assembly a;
    int at_edge;  /* no segment met since the stream started */
    int flushing; /* the segment under way ends at the end of input */
    int after_gap;
    int last_seg_valid;
    unsigned last_seg; /* f (progressive) or 2f + second field */
    uint32_t last_seg_ts;
    uint32_t seg_ticks; /* RTP time from one segment to the next (0: not seen yet) */
    int orphan_valid;
    uint32_t orphan_ts;
    uint8_t orphan_f;
    rtp_jxs_slice *slices;
    size_t slices_cap;
    uint8_t *scratch; /* a header segment with an SLH marker after it, for xs_parse_header */
    size_t scratch_cap;
    /* frame buffers: segments are assembled (T=1) or put in order (T=0) in
     * asmb; T=0 packets are kept as they come in stage */
    fbuf asmb, stage;
    size_t size_guess; /* largest segment seen: what a buffer source is asked for */
    /* T=0 assembly: the packet table and the segment last finished (its late
     * packets are passed over) */
    ooo_entry *ooo_pk;
    int done_valid;
    uint32_t done_ts;
    uint8_t done_f, done_i;
    /* defer_copies: the copies into asmb not made yet, in offset order */
    rtp_copy *pend;
    size_t npend, pend_cap;
    /* cfg.tr21: the sender's ST 2110-21 conformance (tr21.c) */
    rtp_tr21 *tr21;
};

/* depacketize.c */
void rtp_dp_account(rtp_depacketizer *d); /* stats.memory_bytes, after an allocation changed */

/* depack_buffers.c */
void rtp_dp_fbuf_free(rtp_depacketizer *d, fbuf *b);
int rtp_dp_fbuf_reserve(rtp_depacketizer *d, fbuf *b, size_t keep, size_t need, int pooled);
void rtp_dp_make_copies(rtp_depacketizer *d);
void rtp_dp_cut_back(rtp_depacketizer *d, size_t bytes);
int rtp_dp_append(rtp_depacketizer *d, const uint8_t *p, size_t n);
int rtp_dp_reserve_slices(rtp_depacketizer *d, size_t n);
int rtp_dp_add_slice(rtp_depacketizer *d, size_t *nslices, uint32_t index, size_t offset,
                     size_t bytes);

/* depack_assemble.c */
int rtp_dp_read_header(rtp_depacketizer *d, const uint8_t *buf, size_t bytes, xs_header *h,
                       size_t *cs_off);
void rtp_dp_limit_by_header(rtp_depacketizer *d);
void rtp_dp_finish_segment(rtp_depacketizer *d);
void rtp_dp_assemble(rtp_depacketizer *d, const slot *s, const uint8_t *payload, uint64_t ext);
void rtp_dp_gap(rtp_depacketizer *d);

/* depack_slice.c */
int rtp_dp_ooo_gather(rtp_depacketizer *d, size_t *bytes, int *header_whole, size_t *nslices);
void rtp_dp_slice_packet(rtp_depacketizer *d, const rtp_jxs_header *h, const uint8_t *data,
                         size_t n);
void rtp_dp_ooo_packet(rtp_depacketizer *d, const rtp_jxs_header *h, int marker,
                       const uint8_t *data, size_t n);

#endif
