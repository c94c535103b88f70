/* RTP packets -> JPEG XS picture segments (RFC 9134 4), in bounded memory.
 *
 * Two stages:
 *  1. A reorder window indexed by the extended sequence number. Packets are
 *     stored in a ring of `reorder_packets` slots and released strictly in
 *     sequence order. A missing number is given up on (counted lost) when a
 *     packet arrives that no longer fits in the window, when it has been
 *     missing longer than reorder_ns, or at the end of input. A second ring
 *     of twice the window remembers, for the numbers just behind the window,
 *     whether they were delivered or given up on, which tells a duplicate
 *     from a late packet.
 *  2. Frame assembly over the in-order packets (plus "gap" events): a
 *     picture segment (a progressive frame or one field) starts at the first
 *     packet of its first packetization unit (codestream mode: SEP = P = 0;
 *     slice mode: the header segment, SEP = 0x7ff, P = 0) and ends with the
 *     last packet of its last unit (codestream mode: L, which equals M;
 *     slice mode: the RTP marker). It is passed on whole only if no packet of
 *     it is missing and its bytes are one valid codestream; in slice mode a
 *     segment with holes is passed on with the list of slices that are whole.
 *     Slice mode with T=0 (RFC 9134 4.3: the sender may send packets out of
 *     order) is assembled apart: the packets of one segment (one RTP
 *     timestamp, F counter and I field) are kept as they come, with their
 *     unit (SEP) and P counter, and put in order when the segment ends.
 *     A packet with no payload data outside any segment is CBR padding
 *     (RFC 9134 4.1 allows empty packets) and is passed over.
 *
 * Around them: which SSRC is followed (source.c, RFC 3550 A.1 probation),
 * the start of a stream taken as a hole before its first packet (a packet
 * that comes behind the first one received but inside the window is still
 * put in order), loss at the stream's edges counted from the RFC 9134
 * counters and the picture header, and the frame buffers, the
 * depacketizer's own or the caller's (rtp_depacketizer_config.acquire).
 *
 * Deferred copies (rtp_depacketizer_config.defer_copies): every decision
 * above is taken here, on the headers, exactly as without them; only the
 * copy of payload bytes past a segment's first RTP_DEFER_PREFIX_BYTES into
 * the caller's buffer is not made but listed (offset, source, bytes) and
 * handed to on_frame with the frame, for the caller to make on threads of
 * its own. Whatever reads the assembled bytes (the boxes, the picture
 * header, validation, a buffer that moves) makes the pending copies first,
 * unless it reads inside the prefix, which is always written. */
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
    int hole;  /* codestream mode: a packet of it is missing */
    int ended; /* its last packet (L or M) was seen */
    int no_buffer; /* the buffer source had none: the segment is dropped */
    int too_large; /* it grew past limit: dropped, its later packets passed over */
    int header_read; /* limit is the picture header's bound (else the header scan's) */
    size_t limit;    /* the most bytes it may hold (T=1; T=0: max_frame_bytes) */
    uint32_t timestamp;
    uint8_t f, scan, mode;
    size_t bytes; /* in d->asmb (T=1) or d->stage (T=0) */
    size_t first_data_bytes; /* data bytes of the segment's first packet */
    uint64_t first_seq, last_seq, first_arrival, last_arrival;
    uint32_t next_pcount; /* codestream mode: SEP << 11 | P expected next */
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
    int last_slice;     /* the unit of the packet with the marker, -1 before */
    size_t units_ended; /* packets with L */
    size_t p_sum;       /* sum of P + 1 over the packets with L */
    size_t progress_bytes; /* the final prefix last reported through on_progress */
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
    size_t slot_bytes;
    uint8_t *slot_data;
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
};

static void account(rtp_depacketizer *d);

xsf_status rtp_depacketizer_create(rtp_depacketizer **out, const rtp_depacketizer_config *cfg,
                                   xsf_error *err)
{
    *out = NULL;
    rtp_depacketizer *d = calloc(1, sizeof *d);
    if (!d)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the depacketizer");
    d->cfg = *cfg;
    d->window = cfg->reorder_packets ? cfg->reorder_packets : 512;
    if (d->window > 65536 / 4) /* well inside half the 16-bit sequence space */
        d->window = 65536 / 4;
    d->slot_bytes = cfg->max_packet_bytes ? cfg->max_packet_bytes : 9000;
    if (!d->cfg.max_frame_bytes)
        d->cfg.max_frame_bytes = (size_t)64 << 20;
    if (!d->cfg.max_slices || d->cfg.max_slices > MAX_SLICES)
        d->cfg.max_slices = MAX_SLICES;
    if (!d->cfg.probation_packets)
        d->cfg.probation_packets = RTP_PROBATION_PACKETS;
    if (d->cfg.probation_packets > 8)
        d->cfg.probation_packets = 8;
    if (!d->cfg.ssrc_timeout_ns)
        d->cfg.ssrc_timeout_ns = RTP_SSRC_TIMEOUT_NS;
    d->size_guess = FIRST_BUFFER_GUESS < d->cfg.max_frame_bytes ? FIRST_BUFFER_GUESS
                                                                : d->cfg.max_frame_bytes;
    d->slot_data = malloc((size_t)d->window * d->slot_bytes);
    d->slots = calloc(d->window, sizeof *d->slots);
    d->meta = malloc(sizeof *d->meta * 2 * d->window);
    if (!d->slot_data || !d->slots || !d->meta) {
        const unsigned window = d->window;
        const size_t slot_bytes = d->slot_bytes;
        rtp_depacketizer_destroy(d);
        return xsf_error_set(err, XSF_ERR_NOMEM,
                             "out of memory for a reorder window of %u packets of %zu bytes",
                             window, slot_bytes);
    }
    if (!cfg->ssrc_given) {
        const xsf_status st =
            rtp_sources_create(&d->sources, d->cfg.probation_packets, d->slot_bytes, err);
        if (st != XSF_OK) {
            rtp_depacketizer_destroy(d);
            return st;
        }
    }
    for (size_t i = 0; i < 2 * (size_t)d->window; i++) {
        d->meta[i].ext = UINT64_MAX;
        d->meta[i].state = SLOT_EMPTY;
    }
    account(d);
    *out = d;
    return XSF_OK;
}

static void fbuf_free(rtp_depacketizer *d, fbuf *b)
{
    if (b->pooled) {
        if (d->cfg.release)
            d->cfg.release(d->cfg.buffer_ctx, &b->pool);
    } else {
        free(b->data);
    }
    memset(b, 0, sizeof *b);
}

void rtp_depacketizer_destroy(rtp_depacketizer *d)
{
    if (!d)
        return;
    free(d->slot_data);
    free(d->slots);
    free(d->meta);
    free(d->slices);
    free(d->scratch);
    fbuf_free(d, &d->asmb);
    fbuf_free(d, &d->stage);
    free(d->ooo_pk);
    free(d->pend);
    rtp_sources_destroy(d->sources);
    free(d);
}

const rtp_stats *rtp_depacketizer_stats(const rtp_depacketizer *d)
{
    return &d->st;
}

void rtp_depacketizer_count_truncated(rtp_depacketizer *d)
{
    d->st.truncated++;
}

void rtp_depacketizer_count_foreign_source(rtp_depacketizer *d)
{
    d->st.foreign_source++;
}

/* ---- memory: what is held now, and the most it can be ---- */

static size_t fbuf_own(const fbuf *b)
{
    return b->pooled ? 0 : b->cap;
}

/* Recomputed wherever an allocation changes (stats.memory_bytes). */
static void account(rtp_depacketizer *d)
{
    size_t n = (size_t)d->window * (d->slot_bytes + sizeof *d->slots + 2 * sizeof *d->meta);
    if (d->sources)
        n += rtp_sources_bytes(d->sources);
    n += d->slices_cap * sizeof *d->slices + d->scratch_cap + fbuf_own(&d->asmb) +
         fbuf_own(&d->stage);
    if (d->ooo_pk)
        n += sizeof *d->ooo_pk * OOO_MAX_PACKETS;
    d->st.memory_bytes = n;
}

size_t rtp_depacketizer_memory_bound(const rtp_depacketizer_config *cfg)
{
    unsigned window = cfg->reorder_packets ? cfg->reorder_packets : 512;
    if (window > 65536 / 4)
        window = 65536 / 4;
    const size_t slot_bytes = cfg->max_packet_bytes ? cfg->max_packet_bytes : 9000;
    const size_t frame = cfg->max_frame_bytes ? cfg->max_frame_bytes : (size_t)64 << 20;
    const size_t slices =
        !cfg->max_slices || cfg->max_slices > MAX_SLICES ? MAX_SLICES : cfg->max_slices;
    unsigned probation = cfg->probation_packets ? cfg->probation_packets : RTP_PROBATION_PACKETS;
    if (probation > 8)
        probation = 8;
    size_t n = (size_t)window * (slot_bytes + sizeof(slot) + 2 * sizeof(seq_meta));
    if (!cfg->ssrc_given)
        n += rtp_sources_bytes_for(probation, slot_bytes);
    /* slice table (grown by doubling: at most 2 x slices), the header copy, the T=0
     * table and staging buffer, and the frame buffer when there is no buffer source */
    n += 2 * slices * sizeof(rtp_jxs_slice) + RTP_JXS_HEADER_SCAN_BYTES + 2 +
         sizeof(ooo_entry) * OOO_MAX_PACKETS + frame;
    if (!cfg->acquire)
        n += frame;
    return n;
}

/* ---- frame buffers ---- */

/* Makes room for `need` bytes in b, keeping its first `keep`. With a buffer
 * source (pooled), a first buffer is asked with the size guess and a larger
 * one with half again as much headroom; when the source refuses that, with
 * exactly `need` (a pool of fixed buffers smaller than the guess still
 * serves). */
static int fbuf_reserve(rtp_depacketizer *d, fbuf *b, size_t keep, size_t need, int pooled)
{
    if (need <= b->cap)
        return 0;
    const size_t max = d->cfg.max_frame_bytes;
    if (need > max)
        return APPEND_TOO_BIG;
    if (!pooled) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < need)
            cap = cap > max / 2 ? max : 2 * cap;
        uint8_t *n = realloc(b->data, cap);
        if (!n)
            return APPEND_TOO_BIG;
        b->data = n;
        b->cap = cap;
        account(d);
        return 0;
    }
    /* Never more than the segment may hold (its picture header's bound), so that a
     * sender cannot make the pool's buffers grow past it. */
    const size_t lim =
        d->a.open && d->a.header_read && d->a.limit && d->a.limit < max ? d->a.limit : max;
    size_t want = b->cap ? need + need / 2 : (need > d->size_guess ? need : d->size_guess);
    if (want > lim || want < need)
        want = lim < need ? need : lim;
    rtp_frame_buffer nb;
    memset(&nb, 0, sizeof nb);
    int got = !d->cfg.acquire(d->cfg.buffer_ctx, want, &nb);
    if (got && (!nb.data || nb.capacity < need)) { /* not what was asked: give it back */
        if (d->cfg.release)
            d->cfg.release(d->cfg.buffer_ctx, &nb);
        got = 0;
    }
    if (!got && want > need) {
        memset(&nb, 0, sizeof nb);
        got = !d->cfg.acquire(d->cfg.buffer_ctx, need, &nb);
        if (got && (!nb.data || nb.capacity < need)) {
            if (d->cfg.release)
                d->cfg.release(d->cfg.buffer_ctx, &nb);
            got = 0;
        }
    }
    if (!got)
        return APPEND_NO_BUFFER;
    if (keep)
        memcpy(nb.data, b->data, keep);
    fbuf_free(d, b);
    b->pool = nb;
    b->data = nb.data;
    b->cap = nb.capacity;
    b->pooled = 1;
    account(d);
    return 0;
}

/* ---- deferred copies ---- */

/* Makes the copies still pending into the frame buffer. */
static void make_copies(rtp_depacketizer *d)
{
    for (size_t i = 0; i < d->npend; i++)
        memcpy(d->asmb.data + d->pend[i].offset, d->pend[i].src, d->pend[i].bytes);
    d->npend = 0;
}

/* The segment's bytes end at `bytes` again (a broken slice unit given up):
 * copies at or past it are forgotten (each is one whole append, so none
 * straddles it). */
static void cut_back(rtp_depacketizer *d, size_t bytes)
{
    d->a.bytes = bytes;
    while (d->npend && d->pend[d->npend - 1].offset >= bytes)
        d->npend--;
}

/* Lists the copy of n bytes from p to the frame buffer at the segment's end,
 * when it may wait: deferred copies asked for, into a caller's buffer, past
 * the prefix, from a packet the caller keeps (not one of the depacketizer's
 * copies: packets held on probation). 0 when listed. */
static int defer_copy(rtp_depacketizer *d, const uint8_t *p, size_t n)
{
    const assembly *a = &d->a;
    if (!d->cfg.defer_copies || !d->cfg.packets_kept || a->ooo || !d->asmb.pooled ||
        a->bytes < RTP_DEFER_PREFIX_BYTES)
        return -1;
    const uintptr_t at = (uintptr_t)p, own = (uintptr_t)d->slot_data;
    if (at >= own && at - own < (uintptr_t)d->window * d->slot_bytes)
        return -1;
    if (d->npend == d->pend_cap) {
        const size_t cap = d->pend_cap ? 2 * d->pend_cap : 4096;
        rtp_copy *np = realloc(d->pend, cap * sizeof *np);
        if (!np)
            return -1; /* copied now */
        d->pend = np;
        d->pend_cap = cap;
    }
    rtp_copy *c = &d->pend[d->npend++];
    c->offset = a->bytes;
    c->src = p;
    c->bytes = n;
    return 0;
}

/* ---- stage 2: assembly ---- */

static void limit_by_header(rtp_depacketizer *d);

/* Where the segment under way is kept: T=0 packets as they come in the
 * depacketizer's own staging buffer, T=1 segments in the frame buffer. */
static fbuf *assembly_buffer(rtp_depacketizer *d)
{
    return d->a.ooo ? &d->stage : &d->asmb;
}

static int append(rtp_depacketizer *d, const uint8_t *p, size_t n)
{
    assembly *a = &d->a;
    if (!n)
        return 0; /* an empty payload adds nothing (and the buffer may still be absent) */
    if (a->no_buffer)
        return APPEND_NO_BUFFER;
    if (a->too_large || n > a->limit - a->bytes) {
        a->too_large = 1;
        return APPEND_TOO_BIG;
    }
    fbuf *b = assembly_buffer(d);
    if (d->npend && a->bytes + n > b->cap)
        make_copies(d); /* the buffer may move, with what it holds */
    const int r = fbuf_reserve(d, b, a->bytes, a->bytes + n, !a->ooo && d->cfg.acquire);
    if (r == APPEND_NO_BUFFER)
        a->no_buffer = 1;
    if (r)
        return r;
    if (defer_copy(d, p, n))
        memcpy(b->data + a->bytes, p, n);
    a->bytes += n;
    if (!a->ooo && !a->header_read)
        limit_by_header(d);
    return 0;
}

/* Room for n entries in the slice table (n <= max_slices). */
static int reserve_slices(rtp_depacketizer *d, size_t n)
{
    if (n <= d->slices_cap)
        return 0;
    if (n > d->cfg.max_slices)
        return -1;
    size_t cap = d->slices_cap ? d->slices_cap : 64;
    while (cap < n)
        cap = cap > d->cfg.max_slices / 2 ? d->cfg.max_slices : 2 * cap;
    rtp_jxs_slice *s = realloc(d->slices, cap * sizeof *s);
    if (!s)
        return -1;
    d->slices = s;
    d->slices_cap = cap;
    account(d);
    return 0;
}

static int add_slice(rtp_depacketizer *d, size_t *nslices, uint32_t index, size_t offset,
                     size_t bytes)
{
    if (reserve_slices(d, *nslices + 1))
        return -1;
    rtp_jxs_slice *sl = &d->slices[(*nslices)++];
    sl->index = index;
    sl->offset = offset;
    sl->bytes = bytes;
    return 0;
}

/* Reads the picture header at the start of a segment's data (boxes, then
 * SOC .. the first SLH; `hdr_bytes` of it at `buf`, possibly without the
 * SLH): fills *h and *cs_off. 0 when it does not parse. */
static int read_header(rtp_depacketizer *d, const uint8_t *buf, size_t bytes, xs_header *h,
                       size_t *cs_off)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_jxs_boxes boxes;
    if (bytes > RTP_JXS_HEADER_SCAN_BYTES)
        bytes = RTP_JXS_HEADER_SCAN_BYTES; /* the header ends before (rtp.h): a bounded copy */
    if (!bytes || rtp_jxs_boxes_parse(buf, bytes, cs_off, &boxes, &err) != XSF_OK)
        return 0;
    /* xs_parse_header ends at an SLH marker: the header segment of slice
     * mode stops right before it, so parse a copy with one after it. */
    const size_t n = bytes - *cs_off;
    if (n + 2 > d->scratch_cap) {
        uint8_t *s = realloc(d->scratch, n + 2);
        if (!s)
            return 0;
        d->scratch = s;
        d->scratch_cap = n + 2;
        account(d);
    }
    memcpy(d->scratch, buf + *cs_off, n);
    d->scratch[n] = 0xff;
    d->scratch[n + 1] = 0x20;
    return xs_parse_header(d->scratch, n + 2, h, &err) == XSF_OK;
}

/* 21122-1: slices of Hsl precincts of 2^NLy lines over Hf lines. */
static size_t header_slices(const xs_header *h)
{
    if (!h->hsl)
        return 0;
    const size_t rows = ((size_t)h->hf + ((size_t)1 << h->nly) - 1) >> h->nly;
    return (rows + h->hsl - 1) / h->hsl;
}

/* A segment (T=1) may hold no more than its picture header allows: Lcod
 * when signalled, else rtp_jxs_codestream_bound of its samples, and never
 * more than max_frame_bytes. Until its header has been read it may hold
 * RTP_JXS_HEADER_SCAN_BYTES (open_segment). Slice mode reads it from the
 * header segment, codestream mode from the first bytes. */
static void limit_by_header(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    xs_header h;
    size_t cs_off;
    if (!read_header(d, d->asmb.data, a->bytes, &h, &cs_off))
        return;
    uint64_t samples = 0;
    for (int c = 0; c < h.nc && c < XS_MAX_COMPONENTS; c++) {
        const uint64_t sx = h.sx[c] ? h.sx[c] : 1, sy = h.sy[c] ? h.sy[c] : 1;
        samples += ((h.wf + sx - 1) / sx) * ((h.hf + sy - 1) / sy);
    }
    size_t lim = rtp_jxs_codestream_bound(samples);
    if (h.lcod && (uint64_t)cs_off + h.lcod < lim)
        lim = cs_off + (size_t)h.lcod; /* 21122-1 A.7: the codestream's exact length */
    a->limit = lim < d->cfg.max_frame_bytes ? lim : d->cfg.max_frame_bytes;
    a->header_read = 1;
    if (d->cfg.max_picture_samples && samples > d->cfg.max_picture_samples)
        a->too_large = 1; /* a larger picture than the stream's: never decoded */
    if (a->bytes > a->limit)
        a->too_large = 1;
}

static unsigned segment_index(uint8_t f, uint8_t scan)
{
    return scan == RTP_JXS_PROGRESSIVE ? f : 2u * f + (scan == RTP_JXS_FIELD_SECOND);
}

static int valid_codestream(rtp_depacketizer *d, const uint8_t *cs, size_t n, size_t nslices)
{
    if (!d->cfg.validate)
        return 1;
    make_copies(d);
    xs_layout layout;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_scan_layout(cs, n, &layout, &err) != XSF_OK)
        return 0;
    const int ok = layout.codestream_bytes == n && (!nslices || layout.nslices == nslices);
    xs_layout_free(&layout);
    return ok;
}

/* Calls on_frame with the frame in d->asmb; with a buffer source the buffer
 * goes with it. */
static void pass_on(rtp_depacketizer *d, rtp_frame *fr)
{
    if (!d->cfg.on_frame)
        return;
    if (d->asmb.pooled) {
        fr->buffer = d->asmb.pool;
        memset(&d->asmb, 0, sizeof d->asmb); /* the caller's now */
    }
    fr->copies = d->npend ? d->pend : NULL;
    fr->ncopies = d->npend;
    d->cfg.on_frame(d->cfg.ctx, fr);
    d->npend = 0;
}

/* Passes on (or counts) a finished segment whose bytes are d->asmb.data[0,
 * bytes): whole, or in slice mode with the header segment and the slices
 * listed in d->slices (offsets into the buffer). Returns SEG_*. */
static int deliver(rtp_depacketizer *d, rtp_frame *fr, size_t bytes, int whole, int header_whole,
                   size_t nslices)
{
    const uint8_t *buf = d->asmb.data;
    size_t cs_off = 0;
    xsf_error err;
    xsf_error_clear(&err);
    /* With copies pending, the boxes are read in the prefix first: when they
     * parse there, they parse the same way in the whole segment. */
    const size_t prefix =
        d->npend && bytes > RTP_DEFER_PREFIX_BYTES ? RTP_DEFER_PREFIX_BYTES : bytes;
    int boxes_ok = prefix && rtp_jxs_boxes_parse(buf, prefix, &cs_off, &fr->boxes, &err) == XSF_OK;
    if (!boxes_ok && prefix < bytes) {
        make_copies(d);
        xsf_error_clear(&err);
        boxes_ok = rtp_jxs_boxes_parse(buf, bytes, &cs_off, &fr->boxes, &err) == XSF_OK;
    }
    if (whole && boxes_ok) {
        fr->data = buf + cs_off;
        fr->bytes = bytes - cs_off;
        if (!valid_codestream(d, fr->data, fr->bytes, fr->mode == RTP_JXS_SLICE ? nslices : 0)) {
            d->st.frames_dropped++;
            d->st.frames_invalid++;
            return SEG_DROPPED;
        }
        fr->complete = 1;
        fr->header_whole = 1;
        d->st.frames_complete++;
        pass_on(d, fr);
        return SEG_WHOLE;
    }
    if (whole && !boxes_ok) { /* no hole, but the data is not boxes + codestream */
        d->st.frames_dropped++;
        d->st.frames_invalid++;
        return SEG_DROPPED;
    }
    if (fr->mode == RTP_JXS_SLICE && header_whole && boxes_ok) {
        fr->data = buf + cs_off;
        fr->bytes = bytes - cs_off;
        fr->header_whole = 1;
        for (size_t i = 0; i < nslices; i++)
            d->slices[i].offset -= cs_off;
        fr->nslices = nslices;
        fr->slices = d->slices;
        d->st.frames_partial++;
        pass_on(d, fr);
        return SEG_PARTIAL;
    }
    d->st.frames_dropped++;
    return SEG_DROPPED;
}

static int ooo_cmp(const void *x, const void *y)
{
    const ooo_entry *a = x, *b = y;
    if (a->unit != b->unit)
        return a->unit < b->unit ? -1 : 1; /* the header segment (-1) first */
    return a->p < b->p ? -1 : a->p > b->p;
}

/* T=0: puts the packets of the segment in order (header segment, then the
 * slices by index, each by P) from the staging buffer into d->asmb (from the
 * buffer source, when there is one: the one copy of this path), keeping the
 * units that are whole (P from 0 without a gap, L on the last packet only).
 * Lists the whole slices in d->slices; returns 1 when the whole segment is
 * there. SEP numbers slices modulo 2047 (RFC 9134 4.3): a T=0 segment of
 * more slices cannot be told apart and is not whole. */
static int ooo_gather(rtp_depacketizer *d, size_t *bytes, int *header_whole, size_t *nslices)
{
    assembly *a = &d->a;
    *bytes = 0;
    *header_whole = 0;
    *nslices = 0;
    const int r = fbuf_reserve(d, &d->asmb, 0, a->bytes, d->cfg.acquire != NULL);
    if (r) {
        if (r == APPEND_NO_BUFFER)
            a->no_buffer = 1;
        return 0;
    }
    qsort(d->ooo_pk, a->npk, sizeof *d->ooo_pk, ooo_cmp);
    int all = !a->any_broken && a->last_slice >= 0;
    int32_t expect = -1; /* the unit that should come next for the segment to be whole */
    for (size_t i = 0; i < a->npk;) {
        const int32_t unit = d->ooo_pk[i].unit;
        size_t j = i;
        while (j < a->npk && d->ooo_pk[j].unit == unit)
            j++;
        int ok = 1;
        for (size_t k = i; k < j; k++)
            ok &= d->ooo_pk[k].p == k - i && d->ooo_pk[k].l == (k + 1 == j);
        all &= ok && unit == expect;
        expect = unit + 1;
        if (ok && (unit < 0 || (*header_whole && *nslices < d->cfg.max_slices))) {
            const size_t start = *bytes;
            for (size_t k = i; k < j; k++) {
                if (!d->ooo_pk[k].bytes)
                    continue;
                memcpy(d->asmb.data + *bytes, d->stage.data + d->ooo_pk[k].offset,
                       d->ooo_pk[k].bytes);
                *bytes += d->ooo_pk[k].bytes;
            }
            if (unit < 0) {
                *header_whole = 1;
            } else if (add_slice(d, nslices, (uint32_t)unit, start, *bytes - start)) {
                *bytes = start;
                all = 0;
            }
        } else {
            all = 0;
        }
        i = j;
    }
    return all && expect == a->last_slice + 1 && a->ended;
}

/* At the end of input: the packets of the segment under way that never
 * came after its last one received, counted as lost at the edge (see
 * rtp_depacketizer_flush in rtp.h). */
static void count_lost_after(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    uint64_t missing = 1;
    if (a->mode == RTP_JXS_CODESTREAM) {
        xs_header h;
        size_t cs_off;
        make_copies(d);
        if (a->first_data_bytes && read_header(d, d->asmb.data, a->bytes, &h, &cs_off) &&
            h.lcod) {
            const uint64_t total =
                ((uint64_t)cs_off + h.lcod + a->first_data_bytes - 1) / a->first_data_bytes;
            if (total > a->next_pcount)
                missing = total - a->next_pcount;
        }
    } else if (a->expected_slices) {
        /* the unit under way, then each slice after it, one packet at least */
        const size_t after = a->unit >= 0 ? (size_t)a->unit + 1
                             : a->unit == UNIT_HEADER ? 0
                                                      : a->next_slice;
        missing = (a->unit != UNIT_NONE) + (a->expected_slices > after ? a->expected_slices - after : 0);
    }
    d->st.lost += missing;
    d->st.lost_edge += missing;
}

static void fill_progress(const rtp_depacketizer *d, rtp_progress *pr)
{
    const assembly *a = &d->a;
    memset(pr, 0, sizeof *pr);
    pr->timestamp = a->timestamp;
    pr->f_counter = a->f;
    pr->scan = a->scan;
    pr->mode = a->mode;
    pr->buffer = d->asmb.pool;
    pr->first_arrival_ns = a->first_arrival;
    pr->last_arrival_ns = a->last_arrival;
}

/* Reports the final prefix of the T=1 segment under way when it grew. */
static void report_progress(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    if (!d->cfg.on_progress || !a->open || a->ooo || a->no_buffer || !d->asmb.pooled)
        return;
    size_t n;
    if (a->mode == RTP_JXS_CODESTREAM) {
        if (a->hole)
            return;
        n = a->bytes;
    } else {
        if (a->any_broken)
            return; /* a slice is missing: the segment cannot be whole */
        n = a->unit == UNIT_NONE ? a->bytes : a->unit_start; /* a unit under way may still break */
    }
    if (n <= a->progress_bytes)
        return;
    a->progress_bytes = n;
    rtp_progress pr;
    fill_progress(d, &pr);
    pr.bytes = n;
    d->cfg.on_progress(d->cfg.ctx, &pr);
}

/* A segment that reported progress ended without being passed on: its
 * buffer goes to the caller (who handed its prefix on), not to the next
 * segment. */
static void progress_dropped(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    if (!d->cfg.on_progress || !a->progress_bytes || !d->asmb.pooled)
        return;
    rtp_progress pr;
    fill_progress(d, &pr);
    pr.bytes = a->progress_bytes;
    pr.dropped = 1;
    memset(&d->asmb, 0, sizeof d->asmb); /* the caller's now */
    d->cfg.on_progress(d->cfg.ctx, &pr);
}

static void finish_segment(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    if (!a->open)
        return;
    const int edge = d->flushing;
    a->open = 0;
    d->last_seg_valid = 1;
    d->last_seg = segment_index(a->f, a->scan);
    if (a->bytes > d->size_guess && !a->too_large)
        d->size_guess = a->bytes < d->cfg.max_frame_bytes ? a->bytes : d->cfg.max_frame_bytes;
    rtp_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.timestamp = a->timestamp;
    fr.ssrc = d->ssrc;
    fr.f_counter = a->f;
    fr.scan = a->scan;
    fr.mode = a->mode;
    fr.first_seq = a->first_seq;
    fr.last_seq = a->last_seq;
    fr.first_arrival_ns = a->first_arrival;
    fr.last_arrival_ns = a->last_arrival;
    int result;
    if (a->ooo) {
        d->done_valid = 1;
        d->done_ts = a->timestamp;
        d->done_f = a->f;
        d->done_i = a->scan;
        size_t bytes = 0, nslices = 0;
        int header_whole = 0;
        if (a->too_large) {
            d->st.frames_dropped++;
            d->st.frames_too_large++;
            return;
        }
        const int whole = a->no_buffer ? 0 : ooo_gather(d, &bytes, &header_whole, &nslices);
        if (a->no_buffer) {
            d->st.frames_dropped++;
            d->st.frames_dropped_no_buffer++;
            return;
        }
        deliver(d, &fr, bytes, whole, header_whole, nslices);
        return;
    }
    if (a->no_buffer) {
        d->st.frames_dropped++;
        d->st.frames_dropped_no_buffer++;
        progress_dropped(d);
        return;
    }
    if (a->too_large) {
        d->st.frames_dropped++;
        d->st.frames_too_large++;
        return;
    }
    if (a->too_many_slices) {
        d->st.frames_dropped++;
        d->st.frames_invalid++;
        progress_dropped(d);
        return;
    }
    if (edge && !a->ended) {
        /* A slice-mode segment whose slices are all there by its picture
         * header, with only the marker missing, ends whole. */
        if (a->mode == RTP_JXS_SLICE && a->expected_slices && a->last_l &&
            a->unit == UNIT_NONE && a->next_slice == a->expected_slices && !a->any_broken)
            a->ended = 1;
        else
            count_lost_after(d);
    }
    int whole;
    if (a->mode == RTP_JXS_CODESTREAM) {
        whole = !a->hole && a->ended;
    } else {
        whole = !a->any_broken && a->ended && a->unit == UNIT_NONE && a->header_whole;
        for (size_t i = 0; whole && i < a->nslices; i++)
            whole = d->slices[i].index == i;
    }
    result = deliver(d, &fr, a->bytes, whole, a->header_whole, a->nslices);
    if (edge && !a->ended && result == SEG_DROPPED)
        d->st.frames_dropped_edge++;
    if (result == SEG_DROPPED)
        progress_dropped(d);
}

static void open_segment(rtp_depacketizer *d, const slot *s, const rtp_jxs_header *h, uint64_t ext)
{
    assembly *a = &d->a;
    /* Picture segments lost whole show as a jump of the F counter (and field). */
    const unsigned seg = segment_index(h->f, h->i), mod = h->i == RTP_JXS_PROGRESSIVE ? 32 : 64;
    if (d->after_gap && d->last_seg_valid)
        d->st.frames_dropped += (seg + mod - d->last_seg - 1) % mod;
    memset(a, 0, sizeof *a);
    d->npend = 0; /* of a segment dropped earlier */
    a->open = 1;
    a->timestamp = s->timestamp;
    a->f = h->f;
    a->scan = h->i;
    a->mode = h->k;
    a->first_seq = ext;
    a->first_arrival = s->arrival_ns;
    a->unit = UNIT_NONE;
    a->ooo = h->k == RTP_JXS_SLICE && !h->t;
    a->last_slice = -1;
    a->first_data_bytes = s->bytes - RTP_JXS_HEADER_BYTES;
    /* T=0 segments are kept unordered: only max_frame_bytes holds them. */
    a->limit = a->ooo || d->cfg.max_frame_bytes < RTP_JXS_HEADER_SCAN_BYTES
                   ? d->cfg.max_frame_bytes
                   : RTP_JXS_HEADER_SCAN_BYTES;
    d->orphan_valid = 0;
    d->at_edge = 0;
}

/* Slice mode: the slice index of SEP counter `sep` (RFC 9134 4.3: the slice
 * index modulo 2047), taken as the one nearest the slice expected next: up to
 * 1023 ahead (slices lost whole) or behind. */
static uint32_t slice_index(const assembly *a, uint16_t sep)
{
    const uint32_t base = a->next_slice, ahead = (sep + 2047 - base % 2047) % 2047;
    if (ahead > 1023 && base >= 2047 - ahead)
        return base + ahead - 2047;
    return base + ahead;
}

/* Slice mode: the header segment is whole: its picture header says how many
 * slices follow, which sizes the slice table (up to max_slices). */
static void header_segment_done(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    xs_header h;
    size_t cs_off;
    make_copies(d);
    if (!read_header(d, d->asmb.data, a->bytes, &h, &cs_off))
        return; /* not a codestream header: the segment fails validation or stays partial */
    a->expected_slices = header_slices(&h);
    if (a->expected_slices > d->cfg.max_slices || reserve_slices(d, a->expected_slices))
        a->too_many_slices = 1;
}

static void slice_packet(rtp_depacketizer *d, const rtp_jxs_header *h, const uint8_t *data,
                         size_t n)
{
    assembly *a = &d->a;
    const int id = h->sep == RTP_JXS_SEP_HEADER_SEGMENT ? UNIT_HEADER : (int)slice_index(a, h->sep);
    /* P counts modulo 2048 (RFC 9134 4.3): P = 0 after 2047 in the unit under
     * way, before its L, continues it. */
    const int p_wraps = id == a->unit && a->unit_next_p == 2048;
    if (h->p == 0 && !p_wraps) {
        if (a->unit != UNIT_NONE) { /* the unit under way lost its last packets */
            a->any_broken = 1;
            cut_back(d, a->unit_start);
        }
        if (id >= 0 && (uint32_t)id != a->next_slice)
            a->any_broken = 1; /* whole slices in between were lost */
        a->unit = id;
        a->unit_broken = 0;
        a->unit_start = a->bytes;
        a->unit_next_p = 0;
    } else if (id != a->unit || h->p != (a->unit_next_p & 0x7ff)) {
        if (a->unit != UNIT_NONE && !a->unit_broken)
            cut_back(d, a->unit_start);
        a->any_broken = 1;
        a->unit = id;
        a->unit_broken = 1;
        a->unit_start = a->bytes;
    }
    if (!a->unit_broken && append(d, data, n)) {
        a->unit_broken = 1;
        a->any_broken = 1;
        cut_back(d, a->unit_start);
    }
    a->unit_next_p = h->p + 1u;
    a->last_l = h->l;
    if (!h->l)
        return;
    if (!a->unit_broken) {
        if (id == UNIT_HEADER) {
            a->header_whole = a->nslices == 0;
            if (a->header_whole)
                header_segment_done(d);
        } else if (add_slice(d, &a->nslices, (uint32_t)id, a->unit_start,
                             a->bytes - a->unit_start)) {
            a->any_broken = 1;
        }
    }
    if (id >= 0)
        a->next_slice = (uint32_t)id + 1;
    a->unit = UNIT_NONE;
}

/* Slice mode, T=0: keeps the packet for ooo_gather. The segment may end
 * before its last packet comes only when every unit is whole by the counts:
 * L seen for the header segment and each slice up to the marker's, and as
 * many packets as those L packets' P counters say. */
static void ooo_packet(rtp_depacketizer *d, const rtp_jxs_header *h, int marker,
                       const uint8_t *data, size_t n)
{
    assembly *a = &d->a;
    if (!d->ooo_pk) {
        if (!(d->ooo_pk = malloc(sizeof *d->ooo_pk * OOO_MAX_PACKETS))) {
            a->any_broken = 1;
            return;
        }
        account(d);
    }
    const size_t offset = a->bytes;
    if (a->npk == OOO_MAX_PACKETS || append(d, data, n)) {
        a->any_broken = 1;
        return;
    }
    ooo_entry *e = &d->ooo_pk[a->npk++];
    e->unit = h->sep == RTP_JXS_SEP_HEADER_SEGMENT ? -1 : (int32_t)h->sep;
    e->p = h->p;
    e->l = h->l;
    e->bytes = (uint32_t)n;
    e->offset = offset;
    if (h->l) {
        a->units_ended++;
        a->p_sum += h->p + 1u;
    }
    if (marker && e->unit >= 0) {
        a->ended = 1;
        a->last_slice = e->unit;
    }
    if (a->ended && a->units_ended == (size_t)a->last_slice + 2 && a->p_sum == a->npk)
        finish_segment(d);
}

/* The first packet received of a stream belongs to a segment whose first
 * packets never came: how many came before it, by its counters (codestream
 * mode, SEP x 2048 + P, exact; slice mode, the header segment's P, or for a
 * slice unit its P plus one packet at least for the header segment and for
 * each slice before it). */
static uint64_t packets_before(const rtp_jxs_header *h)
{
    if (h->k == RTP_JXS_CODESTREAM)
        return (uint64_t)h->sep << 11 | h->p;
    if (h->sep == RTP_JXS_SEP_HEADER_SEGMENT)
        return h->p;
    return 1u + h->sep + h->p;
}

static void assemble(rtp_depacketizer *d, const slot *s, const uint8_t *payload, uint64_t ext)
{
    assembly *a = &d->a;
    rtp_jxs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    (void)rtp_jxs_header_parse(payload, s->bytes, &h, &err); /* checked when stored */
    const uint8_t *data = payload + RTP_JXS_HEADER_BYTES;
    const size_t n = s->bytes - RTP_JXS_HEADER_BYTES;
    const int ooo = h.k == RTP_JXS_SLICE && !h.t;
    if (ooo) {
        /* T=0: a segment is every packet of one timestamp, F counter and I
         * field, whatever their order. */
        const int same =
            a->open && a->ooo && s->timestamp == a->timestamp && h.f == a->f && h.i == a->scan;
        if (a->open && !same)
            finish_segment(d);
        if (!a->open) {
            if (!n || (d->done_valid && s->timestamp == d->done_ts && h.f == d->done_f &&
                       h.i == d->done_i))
                return; /* padding, or a straggler of the segment just passed on */
            open_segment(d, s, &h, ext);
        }
        d->after_gap = 0;
        a->last_seq = ext;
        a->last_arrival = s->arrival_ns;
        ooo_packet(d, &h, s->marker, data, n);
        return;
    }
    const int is_start =
        h.p == 0 && (h.k == RTP_JXS_CODESTREAM ? h.sep == 0 : h.sep == RTP_JXS_SEP_HEADER_SEGMENT);
    if (a->open &&
        (a->ooo || is_start || s->timestamp != a->timestamp || h.f != a->f || h.k != a->mode)) {
        /* The segment under way did not end. In slice mode a segment whose
         * last unit ended (L) may end without the marker: the first field of
         * an interlaced frame, from senders that mark frames, not fields. */
        if (a->mode == RTP_JXS_SLICE && !a->ooo && is_start && a->last_l && a->unit == UNIT_NONE)
            a->ended = 1;
        finish_segment(d);
    }
    if (!a->open) {
        if (!n)
            return; /* no payload data outside a segment: CBR padding (RFC 9134 4.1) */
        if (!is_start) {
            /* A segment whose first packets were lost: count it once. */
            if (!d->orphan_valid || d->orphan_ts != s->timestamp || d->orphan_f != h.f) {
                if (d->after_gap && d->last_seg_valid) {
                    const unsigned seg = segment_index(h.f, h.i),
                                   mod = h.i == RTP_JXS_PROGRESSIVE ? 32 : 64;
                    d->st.frames_dropped += (seg + mod - d->last_seg - 1) % mod;
                }
                d->st.frames_dropped++;
                if (d->at_edge) { /* the stream starts inside this segment */
                    const uint64_t before = packets_before(&h);
                    d->st.frames_dropped_edge++;
                    d->st.lost += before;
                    d->st.lost_edge += before;
                    d->at_edge = 0;
                }
                d->orphan_valid = 1;
                d->orphan_ts = s->timestamp;
                d->orphan_f = h.f;
                d->last_seg_valid = 1;
                d->last_seg = segment_index(h.f, h.i);
            }
            d->after_gap = 0;
            return;
        }
        open_segment(d, s, &h, ext);
    }
    d->after_gap = 0;
    a->last_seq = ext;
    a->last_arrival = s->arrival_ns;
    if (h.k == RTP_JXS_CODESTREAM) {
        const uint32_t pcount = (uint32_t)h.sep << 11 | h.p;
        if (pcount != a->next_pcount)
            a->hole = 1; /* a packet of the unit is missing, or came out of order */
        a->next_pcount = pcount + 1;
        if (!a->hole && append(d, data, n))
            a->hole = 1;
        report_progress(d);
        if (h.l || s->marker) {
            a->ended = 1;
            finish_segment(d);
        }
    } else {
        slice_packet(d, &h, data, n);
        report_progress(d);
        if (s->marker) {
            a->ended = 1;
            finish_segment(d);
        }
    }
}

static void gap(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    d->after_gap = 1;
    if (!a->open || a->ooo) /* T=0: what is missing shows when the segment ends */
        return;
    if (a->mode == RTP_JXS_CODESTREAM) {
        a->hole = 1;
        return;
    }
    a->any_broken = 1;
    if (a->unit != UNIT_NONE && !a->unit_broken) {
        a->unit_broken = 1;
        cut_back(d, a->unit_start);
    }
}

/* ---- stage 1: reorder window ---- */

static void release(rtp_depacketizer *d, uint64_t ext)
{
    seq_meta *m = &d->meta[ext % (2 * (uint64_t)d->window)];
    const size_t i = (size_t)(ext % d->window);
    if (m->ext == ext && m->state == SLOT_FILLED) {
        m->state = SLOT_CONSUMED;
        assemble(d, &d->slots[i], d->slots[i].data, ext);
    } else {
        m->ext = ext;
        m->state = SLOT_LOST;
        d->st.lost++;
        gap(d);
    }
}

static void drain(rtp_depacketizer *d, uint64_t now_ns)
{
    if (d->startup)
        return;
    for (;;) {
        const seq_meta *m = &d->meta[d->next % (2 * (uint64_t)d->window)];
        if (m->ext != d->next || m->state != SLOT_FILLED)
            break;
        release(d, d->next++);
    }
    if (d->highest < d->next) {
        d->hole_since_ns = 0;
        return;
    }
    if (d->hole_since_ns)
        return;
    /* A hole is as old as the first packet received behind it: one found
     * behind a hole just given up on has been missing since that packet
     * came, not since now (else each of several holes in a row would wait
     * reorder_ns after the one before it, and the stream with them). */
    uint64_t since = now_ns;
    for (uint64_t e = d->next + 1; e <= d->highest; e++) {
        const seq_meta *m = &d->meta[e % (2 * (uint64_t)d->window)];
        if (m->ext == e && m->state == SLOT_FILLED) {
            const uint64_t a = d->slots[e % d->window].arrival_ns;
            if (a && (!since || a < since))
                since = a;
            break;
        }
    }
    d->hole_since_ns = since ? since : 1;
}

static void give_up_until(rtp_depacketizer *d, uint64_t target)
{
    d->startup = 0;
    while (d->next < target)
        release(d, d->next++);
}

void rtp_depacketizer_poll(rtp_depacketizer *d, uint64_t now_ns)
{
    if (!d->started || !d->cfg.reorder_ns)
        return;
    if (d->startup) {
        /* The hole before the first packet is given up on like any other. */
        if (now_ns < d->startup_ns || now_ns - d->startup_ns < d->cfg.reorder_ns)
            return;
        d->startup = 0;
        drain(d, now_ns);
    }
    /* Every hole at the front that has waited long enough, one after the other. */
    while (d->hole_since_ns && now_ns >= d->hole_since_ns && now_ns - d->hole_since_ns >= d->cfg.reorder_ns) {
        /* Give up on the hole at the front, release what follows it. */
        while (d->next <= d->highest) {
            const seq_meta *m = &d->meta[d->next % (2 * (uint64_t)d->window)];
            if (m->ext == d->next && m->state == SLOT_FILLED)
                break;
            release(d, d->next++);
        }
        d->hole_since_ns = 0;
        drain(d, now_ns);
    }
}

/* Ends the stream followed: every hole given up on, the segment under way
 * finished as cut by the end of input. */
static void end_stream(rtp_depacketizer *d)
{
    if (d->started)
        give_up_until(d, d->highest + 1);
    d->hole_since_ns = 0;
    d->flushing = 1;
    finish_segment(d);
    d->flushing = 0;
}

/* Forgets the stream followed (a restart or another SSRC): the next packet
 * starts a new one. */
static void restart_stream(rtp_depacketizer *d)
{
    end_stream(d);
    d->started = 0;
    d->startup = 0;
    d->seqx.started = 0;
    d->probation = 0;
    d->after_gap = 0;
    d->last_seg_valid = 0;
    d->orphan_valid = 0;
    d->done_valid = 0;
    d->jitter_started = 0;
    d->hole_since_ns = 0;
    /* The new stream's numbers may repeat the old one's. */
    for (size_t i = 0; i < 2 * (size_t)d->window; i++) {
        d->meta[i].ext = UINT64_MAX;
        d->meta[i].state = SLOT_EMPTY;
    }
}

static void update_jitter(rtp_depacketizer *d, uint32_t ts, uint64_t arrival_ns)
{
    /* All packets of a frame carry one timestamp, so the jitter is taken on
     * the first packet of each frame (RFC 3550 A.8 over frames). */
    if (!arrival_ns || (d->jitter_started && ts == d->jitter_ts))
        return;
    const double arrival = (double)arrival_ns * (RTP_CLOCK_HZ / 1e9);
    const double transit = arrival - (double)ts;
    if (d->jitter_started) {
        double delta = transit - d->transit;
        if (delta < 0)
            delta = -delta;
        d->jitter += (delta - d->jitter) / 16.0;
        d->st.jitter_ms = d->jitter * 1000.0 / RTP_CLOCK_HZ;
    }
    d->jitter_started = 1;
    d->jitter_ts = ts;
    d->transit = transit;
}

/* A packet of the SSRC followed: into the reorder window. */
static void take(rtp_depacketizer *d, uint16_t seq, uint32_t timestamp, uint8_t marker,
                 const uint8_t *payload, size_t payload_bytes, size_t len, uint64_t arrival_ns,
                 int kept)
{
    d->st.packets++;
    d->st.bytes += len;
    if (arrival_ns) {
        d->ssrc_last_ns = arrival_ns;
        if (!d->st.first_arrival_ns)
            d->st.first_arrival_ns = arrival_ns;
        if (arrival_ns > d->st.last_arrival_ns)
            d->st.last_arrival_ns = arrival_ns;
        const uint64_t span = d->st.last_arrival_ns - d->st.first_arrival_ns;
        if (span)
            d->st.bitrate_bps = (double)d->st.bytes * 8e9 / (double)span;
    }
    if (d->started) {
        /* RFC 3550 A.1: a jump of more than MAX_DROPOUT is taken as a
         * restart of the sender only when the next packet follows it;
         * until then it is not let into the window (which it would empty). */
        const int16_t delta = (int16_t)(uint16_t)(seq - (uint16_t)d->seqx.highest);
        if (delta > MAX_DROPOUT) {
            if (!d->probation || seq != d->probation_seq) {
                d->probation = 1;
                d->probation_seq = (uint16_t)(seq + 1);
                d->st.invalid++;
                d->st.packets--;
                d->st.bytes -= len;
                return;
            }
            restart_stream(d);
        }
        d->probation = 0;
    }
    const uint64_t ext = rtp_seq_extend(&d->seqx, seq);
    if (!d->started) {
        d->started = 1;
        d->startup = 1;
        d->startup_ns = arrival_ns ? arrival_ns : 1;
        d->at_edge = 1;
        d->next = ext;
        d->highest = ext - 1;
    }
    if (ext < d->next) {
        const seq_meta *m = &d->meta[ext % (2 * (uint64_t)d->window)];
        if (d->startup && d->highest - ext < d->window &&
            !(m->ext == ext && m->state == SLOT_FILLED)) {
            d->next = ext; /* behind the first packet, inside the window: taken in order */
        } else {
            if (m->ext == ext && (m->state == SLOT_CONSUMED || m->state == SLOT_FILLED))
                d->st.duplicated++;
            else
                d->st.late++;
            return;
        }
    }
    if (ext - d->next >= d->window)
        give_up_until(d, ext - d->window + 1);
    seq_meta *m = &d->meta[ext % (2 * (uint64_t)d->window)];
    if (m->ext == ext && m->state == SLOT_FILLED) {
        d->st.duplicated++;
        return;
    }
    if (ext < d->highest)
        d->st.reordered++;
    else
        update_jitter(d, timestamp, arrival_ns);
    const size_t i = (size_t)(ext % d->window);
    slot *s = &d->slots[i];
    s->timestamp = timestamp;
    s->marker = marker;
    s->bytes = (uint32_t)payload_bytes;
    s->arrival_ns = arrival_ns;
    if (kept && d->cfg.packets_kept) {
        s->data = payload;
    } else {
        memcpy(d->slot_data + i * d->slot_bytes, payload, payload_bytes);
        s->data = d->slot_data + i * d->slot_bytes;
    }
    m->ext = ext;
    m->state = SLOT_FILLED;
    if (ext > d->highest)
        d->highest = ext;
    d->st.highest_seq = d->highest;
    /* Nothing behind the first packet fits in the window any more: the
     * stream's start is settled. */
    if (d->startup && d->highest - d->next + 1 >= d->window)
        d->startup = 0;
    drain(d, arrival_ns);
    rtp_depacketizer_poll(d, arrival_ns);
}

/* A source passed probation: it is followed from now on, starting with its
 * packets held meanwhile; the others on probation are refused. */
static void follow(rtp_depacketizer *d, uint32_t ssrc, const rtp_held *held, size_t n)
{
    if (d->have_ssrc) {
        restart_stream(d);
        d->st.ssrc_changes++;
    }
    d->have_ssrc = 1;
    d->ssrc = ssrc;
    d->st.ssrc = ssrc;
    for (size_t i = 0; i < n; i++)
        take(d, held[i].seq, held[i].timestamp, held[i].marker, held[i].payload,
             held[i].payload_bytes, held[i].len, held[i].arrival_ns, 0);
    d->st.on_probation += rtp_sources_clear(d->sources);
}

void rtp_depacketizer_flush(rtp_depacketizer *d)
{
    if (d->sources && !d->have_ssrc) {
        /* A stream too short to pass probation: the source that leads alone. */
        uint32_t ssrc;
        const rtp_held *held;
        const size_t n = rtp_sources_leader(d->sources, &ssrc, &held);
        if (n)
            follow(d, ssrc, held, n);
    }
    end_stream(d);
    if (d->sources)
        d->st.on_probation += rtp_sources_clear(d->sources);
}

void rtp_depacketizer_push(rtp_depacketizer *d, const uint8_t *pkt, size_t len, uint64_t arrival_ns)
{
    rtp_header h;
    rtp_jxs_header jh;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_header_parse(pkt, len, &h, &err) != XSF_OK ||
        rtp_jxs_header_parse(h.payload, h.payload_bytes, &jh, &err) != XSF_OK ||
        h.payload_bytes > d->slot_bytes) {
        d->st.invalid++;
        return;
    }
    if (d->cfg.payload_type >= 0 && h.payload_type != d->cfg.payload_type) {
        d->st.wrong_pt++;
        return;
    }
    if (d->cfg.ssrc_given) {
        if (!d->have_ssrc) {
            d->have_ssrc = 1;
            d->ssrc = d->cfg.ssrc;
            d->st.ssrc = d->ssrc;
        }
        if (h.ssrc != d->ssrc) {
            d->st.wrong_ssrc++;
            return;
        }
    } else if (!d->have_ssrc || h.ssrc != d->ssrc) {
        /* Another SSRC: refused while the one followed is live; otherwise
         * on probation until enough of its packets came in sequence. */
        const int silent = arrival_ns && d->ssrc_last_ns && arrival_ns >= d->ssrc_last_ns &&
                           arrival_ns - d->ssrc_last_ns >= d->cfg.ssrc_timeout_ns;
        if (d->have_ssrc && !silent) {
            d->st.wrong_ssrc++;
            return;
        }
        const rtp_held *held;
        const size_t n =
            rtp_sources_offer(d->sources, &h, len, arrival_ns, &held, &d->st.on_probation);
        if (n)
            follow(d, h.ssrc, held, n);
        return;
    }
    take(d, h.seq, h.timestamp, h.marker, h.payload, h.payload_bytes, len, arrival_ns, 1);
}
