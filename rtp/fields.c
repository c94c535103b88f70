/* Field pairing: the picture segments of an interlaced RFC 9134 stream
 * (I = 10 first field, I = 11 second field, one F counter for both) put back
 * together as frames; progressive segments pass through. A frame is passed
 * on only with both fields: one whose sibling was lost (never delivered, cut
 * short, or not matching by F counter, SSRC, order or timestamp) is dropped
 * whole and counted once.
 *
 * Only the first field is copied (into a buffer that grows up to
 * max_segment_bytes and is then reused); the second is passed on from the
 * depacketizer's own buffer, inside the call that delivers it. */
#include <stdlib.h>
#include <string.h>

#include "rtp.h"

typedef enum pair_state {
    PAIR_EMPTY = 0,  /* waiting for a frame or a first field */
    PAIR_HAVE_FIRST, /* a whole first field is held */
    PAIR_LOST_FIRST, /* the first field of frame `f` came cut short: already counted */
} pair_state;

struct rtp_field_pairer {
    rtp_field_pairer_config cfg;
    rtp_field_stats stats;
    pair_state state;
    /* The first field held (PAIR_HAVE_FIRST) or the one lost (PAIR_LOST_FIRST), as the
     * depacketizer described it; of its pointers only data is kept (buf, once held). */
    rtp_frame first;
    uint8_t *buf;
    size_t cap;
};

xsf_status rtp_field_pairer_create(rtp_field_pairer **p, const rtp_field_pairer_config *cfg,
                                   xsf_error *err)
{
    *p = NULL;
    if (!cfg || !cfg->on_frame)
        return xsf_error_set(err, XSF_ERR_ARG, "field pairing needs an on_frame callback");
    rtp_field_pairer *n = calloc(1, sizeof *n);
    if (!n)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    n->cfg = *cfg;
    if (!n->cfg.max_segment_bytes)
        n->cfg.max_segment_bytes = (size_t)64 << 20;
    if (!n->cfg.max_field_gap_ticks)
        n->cfg.max_field_gap_ticks = RTP_CLOCK_HZ / 10;
    *p = n;
    return XSF_OK;
}

void rtp_field_pairer_destroy(rtp_field_pairer *p)
{
    if (!p)
        return;
    free(p->buf);
    free(p);
}

const rtp_field_stats *rtp_field_pairer_stats(const rtp_field_pairer *p)
{
    return &p->stats;
}

/* The frame of the held or lost first field is gone. */
static void drop_pending(rtp_field_pairer *p)
{
    if (p->state == PAIR_HAVE_FIRST) {
        p->stats.frames_dropped++;
        p->stats.fields_discarded++;
    }
    p->state = PAIR_EMPTY;
}

/* Whether `second` belongs to the frame whose first field is held or lost:
 * same SSRC and F counter, and its timestamp the first's or at most
 * max_field_gap_ticks later (each field its own timestamp, RFC 9134 4.2 as
 * corrected by erratum 6752; earlier senders gave both the frame's). The
 * timestamp keeps an F counter that wrapped (32 frames lost) from matching. */
static int is_sibling(const rtp_field_pairer *p, const rtp_frame *second)
{
    const uint32_t gap = second->timestamp - p->first.timestamp;
    return second->ssrc == p->first.ssrc && second->f_counter == p->first.f_counter &&
           gap <= p->cfg.max_field_gap_ticks;
}

static void hold_first(rtp_field_pairer *p, const rtp_frame *f)
{
    p->first = *f;
    /* Valid only during the depacketizer's callback: not kept. */
    p->first.data = NULL;
    p->first.slices = NULL;
    p->first.copies = NULL;
    memset(&p->first.buffer, 0, sizeof p->first.buffer);
    p->state = PAIR_LOST_FIRST;
    if (!f->complete) {
        /* Its frame cannot be whole: counted now, its second field discarded. */
        p->stats.frames_dropped++;
        p->stats.fields_discarded++;
        return;
    }
    if (f->bytes > p->cfg.max_segment_bytes) {
        p->stats.frames_dropped++;
        p->stats.fields_discarded++;
        p->stats.too_large++;
        return;
    }
    if (f->bytes > p->cap) {
        /* Grows to the largest field seen, then stays: the steady state allocates nothing. */
        uint8_t *nb = realloc(p->buf, f->bytes);
        if (!nb) {
            p->stats.frames_dropped++;
            p->stats.fields_discarded++;
            p->stats.no_memory++;
            return;
        }
        p->buf = nb;
        p->cap = f->bytes;
    }
    if (f->bytes)
        memcpy(p->buf, f->data, f->bytes);
    p->first.data = p->buf;
    p->state = PAIR_HAVE_FIRST;
}

/* Passes a frame on: `first` a progressive frame (second NULL) or the first
 * field of an interlaced one, `second` its second field. */
static void emit(rtp_field_pairer *p, const rtp_frame *first, const rtp_frame *second)
{
    const rtp_frame *last = second ? second : first;
    rtp_field_frame out = {
        .interlaced = second != NULL,
        .f_counter = first->f_counter,
        .ssrc = first->ssrc,
        .timestamp = {first->timestamp},
        .data = {first->data},
        .bytes = {first->bytes},
        .boxes = first->boxes,
        .first_seq = first->first_seq,
        .last_seq = last->last_seq,
        .first_arrival_ns = first->first_arrival_ns,
        .last_arrival_ns = last->last_arrival_ns,
    };
    if (second) {
        out.timestamp[1] = second->timestamp;
        out.data[1] = second->data;
        out.bytes[1] = second->bytes;
        p->state = PAIR_EMPTY;
        p->stats.interlaced++;
    } else {
        p->stats.progressive++;
    }
    p->stats.frames++;
    p->cfg.on_frame(p->cfg.ctx, &out);
}

void rtp_field_pairer_push(rtp_field_pairer *p, const rtp_frame *f)
{
    switch (f->scan) {
    case RTP_JXS_FIELD_FIRST:
        /* A first field while one waits: the waiting one lost its second. */
        drop_pending(p);
        hold_first(p, f);
        return;
    case RTP_JXS_FIELD_SECOND:
        if (p->state != PAIR_EMPTY && is_sibling(p, f)) {
            if (p->state == PAIR_HAVE_FIRST && f->complete) {
                emit(p, &p->first, f);
                return;
            }
            if (p->state == PAIR_HAVE_FIRST) {
                p->stats.frames_dropped++; /* the second field came cut short */
                p->stats.fields_discarded++;
            }
            p->stats.fields_discarded++; /* this second field */
            p->state = PAIR_EMPTY;
            return;
        }
        /* A second field without its first: the held field (another frame)
         * and this one each lost their sibling. */
        drop_pending(p);
        p->stats.frames_dropped++;
        p->stats.fields_discarded++;
        return;
    default:
        drop_pending(p);
        if (f->complete)
            emit(p, f, NULL);
        return;
    }
}

void rtp_field_pairer_flush(rtp_field_pairer *p)
{
    drop_pending(p);
}
