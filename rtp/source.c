/* Which SSRC a receiver follows: sources on probation (RFC 3550 A.1).
 *
 * A new SSRC is followed only once `probation` of its packets came in
 * sequence (each a new highest number, at most MAX_STEP ahead). Until then its packets are held,
 * so that a source that passes loses nothing of its start. A stray or
 * hostile datagram (one packet of a random SSRC) cannot capture the
 * receiver: it stays on probation until it is pushed out.
 *
 * The store keeps RTP_SOURCES_MAX sources. When it is full, a new SSRC
 * pushes out the source with the fewest packets in sequence, the least
 * recently heard of those: single stray packets go first, a real sender
 * that already has two in sequence stays. */
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"

/* RFC 3550 A.1: packets this far behind the highest are reordering, not a restart. */
#define MAX_MISORDER 100
/* A.1 counts only the next number as in sequence; a few ahead count too, so
 * that a stream whose first packets come out of order passes as quickly
 * (what is held is taken in order by the reorder window). */
#define MAX_STEP 16

typedef struct source {
    int used;
    uint32_t ssrc;
    uint16_t max_seq;
    unsigned in_sequence;
    uint64_t last_use;
    size_t n; /* held packets */
    rtp_held *held;
    uint8_t *data; /* keep x payload_cap */
} source;

struct rtp_sources {
    unsigned probation, keep;
    size_t payload_cap;
    uint64_t tick;
    source src[RTP_SOURCES_MAX];
    rtp_held *held_all;
    uint8_t *data_all;
};

xsf_status rtp_sources_create(rtp_sources **out, unsigned probation, size_t payload_cap,
                              xsf_error *err)
{
    *out = NULL;
    rtp_sources *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the source store");
    s->probation = probation ? probation : 1;
    s->keep = 2 * s->probation > 16 ? 16 : 2 * s->probation;
    s->payload_cap = payload_cap;
    s->held_all = calloc((size_t)RTP_SOURCES_MAX * s->keep, sizeof *s->held_all);
    if (payload_cap > SIZE_MAX / ((size_t)RTP_SOURCES_MAX * s->keep) ||
        !(s->data_all = malloc((size_t)RTP_SOURCES_MAX * s->keep * payload_cap)) || !s->held_all) {
        rtp_sources_destroy(s);
        return xsf_error_set(err, XSF_ERR_NOMEM,
                             "out of memory for %u sources on probation of %u packets",
                             (unsigned)RTP_SOURCES_MAX, 2 * probation);
    }
    for (size_t i = 0; i < RTP_SOURCES_MAX; i++) {
        s->src[i].held = s->held_all + i * s->keep;
        s->src[i].data = s->data_all + i * s->keep * payload_cap;
    }
    *out = s;
    return XSF_OK;
}

void rtp_sources_destroy(rtp_sources *s)
{
    if (!s)
        return;
    free(s->held_all);
    free(s->data_all);
    free(s);
}

/* The source a new SSRC takes: a free one, else the one pushed out. */
static source *take_slot(rtp_sources *s, uint64_t *dropped)
{
    source *best = NULL;
    for (size_t i = 0; i < RTP_SOURCES_MAX; i++) {
        source *c = &s->src[i];
        if (!c->used)
            return c;
        if (!best || c->in_sequence < best->in_sequence ||
            (c->in_sequence == best->in_sequence && c->last_use < best->last_use))
            best = c;
    }
    *dropped += best->n;
    best->used = 0;
    return best;
}

size_t rtp_sources_offer(rtp_sources *s, const rtp_header *h, size_t len, uint64_t arrival_ns,
                         const rtp_held **held, uint64_t *dropped)
{
    *held = NULL;
    source *c = NULL;
    for (size_t i = 0; i < RTP_SOURCES_MAX && !c; i++)
        if (s->src[i].used && s->src[i].ssrc == h->ssrc)
            c = &s->src[i];
    if (!c) {
        c = take_slot(s, dropped);
        c->used = 1;
        c->ssrc = h->ssrc;
        c->max_seq = h->seq;
        c->in_sequence = 1;
        c->n = 0;
    } else {
        const int16_t delta = (int16_t)(uint16_t)(h->seq - c->max_seq);
        if (delta > 0 && delta <= MAX_STEP) {
            c->in_sequence++;
            c->max_seq = h->seq;
        } else if (delta > 0 || delta <= -MAX_MISORDER) {
            /* A jump: the probation starts again from this packet. */
            *dropped += c->n;
            c->n = 0;
            c->in_sequence = 1;
            c->max_seq = h->seq;
        } /* else reordered or repeated: held, the count unchanged */
    }
    c->last_use = ++s->tick;
    if (c->n == s->keep) { /* the oldest goes */
        (*dropped)++;
        memmove(c->held, c->held + 1, (c->n - 1) * sizeof *c->held);
        c->n--;
    }
    /* Payload storage: the slot of each held entry is fixed by its position,
     * so after the shift the data is re-pointed below. */
    rtp_held *e = &c->held[c->n];
    e->seq = h->seq;
    e->timestamp = h->timestamp;
    e->marker = h->marker;
    e->len = len;
    e->arrival_ns = arrival_ns;
    e->payload_bytes = h->payload_bytes;
    e->payload = NULL;
    c->n++;
    /* Storage positions: find one no held entry uses. */
    for (size_t k = 0; k < s->keep; k++) {
        uint8_t *slot = c->data + k * s->payload_cap;
        int busy = 0;
        for (size_t j = 0; j + 1 < c->n && !busy; j++)
            busy = c->held[j].payload == slot;
        if (!busy) {
            if (h->payload_bytes)
                memcpy(slot, h->payload, h->payload_bytes);
            e->payload = slot;
            break;
        }
    }
    if (c->in_sequence < s->probation)
        return 0;
    *held = c->held;
    const size_t n = c->n;
    c->used = 0; /* passed: it leaves the store (the caller now follows it) */
    c->n = 0;
    return n;
}

size_t rtp_sources_leader(rtp_sources *s, uint32_t *ssrc, const rtp_held **held)
{
    *held = NULL;
    source *best = NULL;
    int alone = 0;
    for (size_t i = 0; i < RTP_SOURCES_MAX; i++) {
        source *c = &s->src[i];
        if (!c->used || !c->n)
            continue;
        if (!best || c->in_sequence > best->in_sequence) {
            best = c;
            alone = 1;
        } else if (c->in_sequence == best->in_sequence) {
            alone = 0;
        }
    }
    if (!best || !alone)
        return 0;
    *ssrc = best->ssrc;
    *held = best->held;
    const size_t n = best->n;
    best->used = 0;
    best->n = 0;
    return n;
}

uint64_t rtp_sources_clear(rtp_sources *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < RTP_SOURCES_MAX; i++) {
        if (s->src[i].used)
            n += s->src[i].n;
        s->src[i].used = 0;
        s->src[i].n = 0;
    }
    return n;
}

size_t rtp_sources_bytes_for(unsigned probation, size_t payload_cap)
{
    const size_t p = probation ? probation : 1;
    const size_t keep = 2 * p > 16 ? 16 : 2 * p;
    return sizeof(rtp_sources) + (size_t)RTP_SOURCES_MAX * keep * (sizeof(rtp_held) + payload_cap);
}

size_t rtp_sources_bytes(const rtp_sources *s)
{
    return rtp_sources_bytes_for(s->probation, s->payload_cap);
}
