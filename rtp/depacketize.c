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
 *     (RFC 9134 4.1 allows empty packets) and is passed over. */
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"
#include "xs.h"

enum { SLOT_EMPTY = 0, SLOT_FILLED, SLOT_CONSUMED, SLOT_LOST };
enum { UNIT_NONE = -2, UNIT_HEADER = -1 };

/* RFC 3550 A.1: the largest forward jump of the sequence number taken as loss. */
#define MAX_DROPOUT 3000

typedef struct seq_meta {
    uint64_t ext;
    uint8_t state;
} seq_meta;

typedef struct slot {
    uint32_t timestamp;
    uint8_t marker;
    uint32_t bytes; /* payload bytes (RFC 9134 header included) */
    uint64_t arrival_ns;
} slot;

typedef struct assembly {
    int open;
    int hole;  /* codestream mode: a packet of it is missing */
    int ended; /* its last packet (L or M) was seen */
    uint32_t timestamp;
    uint8_t f, scan, mode;
    uint8_t *buf;
    size_t bytes, cap;
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
    /* slice mode, T=0: packets kept as they come (ooo_entry table) */
    int ooo;
    size_t npk;
    int last_slice;     /* the unit of the packet with the marker, -1 before */
    size_t units_ended; /* packets with L */
    size_t p_sum;       /* sum of P + 1 over the packets with L */
} assembly;

/* One packet of a T=0 segment: its unit (-1: header segment, else the slice
 * index, SEP), its P counter, and where its data sits in the frame buffer. */
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
    int have_ssrc;
    uint32_t ssrc;
    /* stage 1 */
    unsigned window;
    size_t slot_bytes;
    uint8_t *slot_data;
    slot *slots;
    seq_meta *meta; /* 2 x window */
    int started;
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
    int after_gap;
    int last_seg_valid;
    unsigned last_seg; /* f (progressive) or 2f + second field */
    int orphan_valid;
    uint32_t orphan_ts;
    uint8_t orphan_f;
    rtp_jxs_slice *slices;
    /* T=0 assembly: the packet table, the buffer the segment is put in order
     * into, and the segment last finished (its late packets are passed over) */
    ooo_entry *ooo_pk;
    uint8_t *ooo_buf;
    size_t ooo_buf_cap;
    int done_valid;
    uint32_t done_ts;
    uint8_t done_f, done_i;
};

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
    if (!d->cfg.max_slices)
        d->cfg.max_slices = 4096;
    d->slot_data = malloc((size_t)d->window * d->slot_bytes);
    d->slots = calloc(d->window, sizeof *d->slots);
    d->meta = malloc(sizeof *d->meta * 2 * d->window);
    d->slices = malloc(sizeof *d->slices * d->cfg.max_slices);
    if (!d->slot_data || !d->slots || !d->meta || !d->slices) {
        const unsigned window = d->window;
        const size_t slot_bytes = d->slot_bytes;
        rtp_depacketizer_destroy(d);
        return xsf_error_set(err, XSF_ERR_NOMEM,
                             "out of memory for a reorder window of %u packets of %zu bytes",
                             window, slot_bytes);
    }
    for (size_t i = 0; i < 2 * (size_t)d->window; i++) {
        d->meta[i].ext = UINT64_MAX;
        d->meta[i].state = SLOT_EMPTY;
    }
    *out = d;
    return XSF_OK;
}

void rtp_depacketizer_destroy(rtp_depacketizer *d)
{
    if (!d)
        return;
    free(d->slot_data);
    free(d->slots);
    free(d->meta);
    free(d->slices);
    free(d->a.buf);
    free(d->ooo_pk);
    free(d->ooo_buf);
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

/* ---- stage 2: assembly ---- */

static int append(rtp_depacketizer *d, const uint8_t *p, size_t n)
{
    assembly *a = &d->a;
    if (!n)
        return 0; /* an empty payload adds nothing (and a->buf may still be NULL) */
    if (n > d->cfg.max_frame_bytes - a->bytes)
        return -1;
    if (a->bytes + n > a->cap) {
        size_t cap = a->cap ? a->cap : 65536;
        while (cap < a->bytes + n)
            cap = cap > d->cfg.max_frame_bytes / 2 ? d->cfg.max_frame_bytes : 2 * cap;
        uint8_t *b = realloc(a->buf, cap);
        if (!b)
            return -1;
        a->buf = b;
        a->cap = cap;
    }
    memcpy(a->buf + a->bytes, p, n);
    a->bytes += n;
    return 0;
}

static unsigned segment_index(uint8_t f, uint8_t scan)
{
    return scan == RTP_JXS_PROGRESSIVE ? f : 2u * f + (scan == RTP_JXS_FIELD_SECOND);
}

static int valid_codestream(const rtp_depacketizer *d, const uint8_t *cs, size_t n, size_t nslices)
{
    if (!d->cfg.validate)
        return 1;
    xs_layout layout;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_scan_layout(cs, n, &layout, &err) != XSF_OK)
        return 0;
    const int ok = layout.codestream_bytes == n && (!nslices || layout.nslices == nslices);
    xs_layout_free(&layout);
    return ok;
}

/* Passes on (or counts) a finished segment whose bytes are buf[0, bytes):
 * whole, or in slice mode with the header segment and the slices listed in
 * d->slices (offsets into buf). */
static void deliver(rtp_depacketizer *d, rtp_frame *fr, const uint8_t *buf, size_t bytes, int whole,
                    int header_whole, size_t nslices)
{
    size_t cs_off = 0;
    xsf_error err;
    xsf_error_clear(&err);
    const int boxes_ok =
        bytes && rtp_jxs_boxes_parse(buf, bytes, &cs_off, &fr->boxes, &err) == XSF_OK;
    if (whole && boxes_ok) {
        fr->data = buf + cs_off;
        fr->bytes = bytes - cs_off;
        if (!valid_codestream(d, fr->data, fr->bytes, fr->mode == RTP_JXS_SLICE ? nslices : 0)) {
            d->st.frames_dropped++;
            d->st.frames_invalid++;
            return;
        }
        fr->complete = 1;
        fr->header_whole = 1;
        d->st.frames_complete++;
        if (d->cfg.on_frame)
            d->cfg.on_frame(d->cfg.ctx, fr);
        return;
    }
    if (whole && !boxes_ok) { /* no hole, but the data is not boxes + codestream */
        d->st.frames_dropped++;
        d->st.frames_invalid++;
        return;
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
        if (d->cfg.on_frame)
            d->cfg.on_frame(d->cfg.ctx, fr);
        return;
    }
    d->st.frames_dropped++;
}

static int ooo_cmp(const void *x, const void *y)
{
    const ooo_entry *a = x, *b = y;
    if (a->unit != b->unit)
        return a->unit < b->unit ? -1 : 1; /* the header segment (-1) first */
    return a->p < b->p ? -1 : a->p > b->p;
}

/* T=0: puts the packets of the segment in order (header segment, then the
 * slices by index, each by P) into d->ooo_buf, keeping the units that are
 * whole (P from 0 without a gap, L on the last packet only). Lists the whole
 * slices in d->slices; returns 1 when the whole segment is there. */
static int ooo_gather(rtp_depacketizer *d, size_t *bytes, int *header_whole, size_t *nslices)
{
    assembly *a = &d->a;
    *bytes = 0;
    *header_whole = 0;
    *nslices = 0;
    if (a->bytes > d->ooo_buf_cap) {
        uint8_t *b = realloc(d->ooo_buf, a->bytes);
        if (!b)
            return 0;
        d->ooo_buf = b;
        d->ooo_buf_cap = a->bytes;
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
                memcpy(d->ooo_buf + *bytes, a->buf + d->ooo_pk[k].offset, d->ooo_pk[k].bytes);
                *bytes += d->ooo_pk[k].bytes;
            }
            if (unit < 0) {
                *header_whole = 1;
            } else {
                rtp_jxs_slice *sl = &d->slices[(*nslices)++];
                sl->index = (uint32_t)unit;
                sl->offset = start;
                sl->bytes = *bytes - start;
            }
        } else {
            all = 0;
        }
        i = j;
    }
    return all && expect == a->last_slice + 1 && a->ended;
}

static void finish_segment(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    if (!a->open)
        return;
    a->open = 0;
    d->last_seg_valid = 1;
    d->last_seg = segment_index(a->f, a->scan);
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
    if (a->ooo) {
        d->done_valid = 1;
        d->done_ts = a->timestamp;
        d->done_f = a->f;
        d->done_i = a->scan;
        size_t bytes, nslices;
        int header_whole;
        const int whole = ooo_gather(d, &bytes, &header_whole, &nslices);
        deliver(d, &fr, d->ooo_buf, bytes, whole, header_whole, nslices);
        return;
    }
    int whole;
    if (a->mode == RTP_JXS_CODESTREAM) {
        whole = !a->hole && a->ended;
    } else {
        whole = !a->any_broken && a->ended && a->unit == UNIT_NONE && a->header_whole;
        for (size_t i = 0; whole && i < a->nslices; i++)
            whole = d->slices[i].index == i;
    }
    deliver(d, &fr, a->buf, a->bytes, whole, a->header_whole, a->nslices);
}

static void open_segment(rtp_depacketizer *d, const slot *s, const rtp_jxs_header *h, uint64_t ext)
{
    assembly *a = &d->a;
    /* Picture segments lost whole show as a jump of the F counter (and field). */
    const unsigned seg = segment_index(h->f, h->i), mod = h->i == RTP_JXS_PROGRESSIVE ? 32 : 64;
    if (d->after_gap && d->last_seg_valid)
        d->st.frames_dropped += (seg + mod - d->last_seg - 1) % mod;
    a->open = 1;
    a->hole = 0;
    a->ended = 0;
    a->timestamp = s->timestamp;
    a->f = h->f;
    a->scan = h->i;
    a->mode = h->k;
    a->bytes = 0;
    a->first_seq = ext;
    a->first_arrival = s->arrival_ns;
    a->next_pcount = 0;
    a->unit = UNIT_NONE;
    a->unit_broken = 0;
    a->unit_start = 0;
    a->unit_next_p = 0;
    a->next_slice = 0;
    a->any_broken = 0;
    a->last_l = 0;
    a->header_whole = 0;
    a->nslices = 0;
    a->ooo = h->k == RTP_JXS_SLICE && !h->t;
    a->npk = 0;
    a->last_slice = -1;
    a->units_ended = 0;
    a->p_sum = 0;
    d->orphan_valid = 0;
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
            a->bytes = a->unit_start;
        }
        if (id >= 0 && (uint32_t)id != a->next_slice)
            a->any_broken = 1; /* whole slices in between were lost */
        a->unit = id;
        a->unit_broken = 0;
        a->unit_start = a->bytes;
        a->unit_next_p = 0;
    } else if (id != a->unit || h->p != (a->unit_next_p & 0x7ff)) {
        if (a->unit != UNIT_NONE && !a->unit_broken)
            a->bytes = a->unit_start;
        a->any_broken = 1;
        a->unit = id;
        a->unit_broken = 1;
        a->unit_start = a->bytes;
    }
    if (!a->unit_broken && append(d, data, n)) {
        a->unit_broken = 1;
        a->any_broken = 1;
        a->bytes = a->unit_start;
    }
    a->unit_next_p = h->p + 1u;
    a->last_l = h->l;
    if (!h->l)
        return;
    if (!a->unit_broken) {
        if (id == UNIT_HEADER) {
            a->header_whole = a->nslices == 0;
        } else if (a->nslices < d->cfg.max_slices) {
            rtp_jxs_slice *sl = &d->slices[a->nslices++];
            sl->index = (uint32_t)id;
            sl->offset = a->unit_start;
            sl->bytes = a->bytes - a->unit_start;
        } else {
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
    if (!d->ooo_pk && !(d->ooo_pk = malloc(sizeof *d->ooo_pk * OOO_MAX_PACKETS))) {
        a->any_broken = 1;
        return;
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
        if (h.l || s->marker) {
            a->ended = 1;
            finish_segment(d);
        }
    } else {
        slice_packet(d, &h, data, n);
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
        a->bytes = a->unit_start;
    }
}

/* ---- stage 1: reorder window ---- */

static void release(rtp_depacketizer *d, uint64_t ext)
{
    seq_meta *m = &d->meta[ext % (2 * (uint64_t)d->window)];
    const size_t i = (size_t)(ext % d->window);
    if (m->ext == ext && m->state == SLOT_FILLED) {
        m->state = SLOT_CONSUMED;
        assemble(d, &d->slots[i], d->slot_data + i * d->slot_bytes, ext);
    } else {
        m->ext = ext;
        m->state = SLOT_LOST;
        d->st.lost++;
        gap(d);
    }
}

static void drain(rtp_depacketizer *d, uint64_t now_ns)
{
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
    if (!d->hole_since_ns)
        d->hole_since_ns = now_ns ? now_ns : 1;
}

static void give_up_until(rtp_depacketizer *d, uint64_t target)
{
    while (d->next < target)
        release(d, d->next++);
}

void rtp_depacketizer_poll(rtp_depacketizer *d, uint64_t now_ns)
{
    if (!d->started || !d->cfg.reorder_ns || !d->hole_since_ns || now_ns < d->hole_since_ns ||
        now_ns - d->hole_since_ns < d->cfg.reorder_ns)
        return;
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

void rtp_depacketizer_flush(rtp_depacketizer *d)
{
    if (d->started)
        give_up_until(d, d->highest + 1);
    d->hole_since_ns = 0;
    finish_segment(d);
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
    if (!d->have_ssrc) {
        d->have_ssrc = 1;
        d->ssrc = d->cfg.ssrc_given ? d->cfg.ssrc : h.ssrc;
        d->st.ssrc = d->ssrc;
    }
    if (h.ssrc != d->ssrc) {
        d->st.wrong_ssrc++;
        return;
    }
    d->st.packets++;
    d->st.bytes += len;
    if (arrival_ns) {
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
        const int16_t delta = (int16_t)(uint16_t)(h.seq - (uint16_t)d->seqx.highest);
        if (delta > MAX_DROPOUT) {
            if (!d->probation || h.seq != d->probation_seq) {
                d->probation = 1;
                d->probation_seq = (uint16_t)(h.seq + 1);
                d->st.invalid++;
                d->st.packets--;
                d->st.bytes -= len;
                return;
            }
            rtp_depacketizer_flush(d);
            d->started = 0;
            d->seqx.started = 0;
            d->hole_since_ns = 0;
        }
        d->probation = 0;
    }
    const uint64_t ext = rtp_seq_extend(&d->seqx, h.seq);
    if (!d->started) {
        d->started = 1;
        d->next = ext;
        d->highest = ext - 1;
    }
    if (ext < d->next) {
        const seq_meta *m = &d->meta[ext % (2 * (uint64_t)d->window)];
        if (m->ext == ext && m->state == SLOT_CONSUMED)
            d->st.duplicated++;
        else
            d->st.late++;
        return;
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
        update_jitter(d, h.timestamp, arrival_ns);
    const size_t i = (size_t)(ext % d->window);
    slot *s = &d->slots[i];
    s->timestamp = h.timestamp;
    s->marker = h.marker;
    s->bytes = (uint32_t)h.payload_bytes;
    s->arrival_ns = arrival_ns;
    memcpy(d->slot_data + i * d->slot_bytes, h.payload, h.payload_bytes);
    m->ext = ext;
    m->state = SLOT_FILLED;
    if (ext > d->highest)
        d->highest = ext;
    d->st.highest_seq = d->highest;
    drain(d, arrival_ns);
    rtp_depacketizer_poll(d, arrival_ns);
}
