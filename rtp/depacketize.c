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
 * unless it reads inside the prefix, which is always written.
 *
 * The code: see depack_internal.h for which file holds what. */
#include "depack_internal.h"

/* The reorder window: well inside half the 16-bit sequence space where the numbers are
 * extended here; the caller's bound where it extends them. */
static unsigned window_of(const rtp_depacketizer_config *cfg)
{
    const unsigned w = cfg->reorder_packets ? cfg->reorder_packets : 512;
    const unsigned cap = cfg->seq_given ? RTP_REORDER_GIVEN_MAX : RTP_REORDER_OWN_MAX;
    return w > cap ? cap : w;
}

/* The slot of extended number ext in the window's ring, and its record in the ring of twice
 * the window (seq_meta): taken for every packet several times, by a mask where the window is
 * a power of two (a 64-bit division costs tens of cycles). */
static inline size_t slot_of(const rtp_depacketizer *d, uint64_t ext)
{
    return (size_t)(d->slot_mask ? ext & d->slot_mask : ext % d->window);
}
static inline seq_meta *meta_of(const rtp_depacketizer *d, uint64_t ext)
{
    return &d->meta[d->meta_mask ? ext & d->meta_mask : ext % (2 * (uint64_t)d->window)];
}

xsf_status rtp_depacketizer_create(rtp_depacketizer **out, const rtp_depacketizer_config *cfg,
                                   xsf_error *err)
{
    *out = NULL;
    rtp_depacketizer *d = calloc(1, sizeof *d);
    if (!d)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the depacketizer");
    d->cfg = *cfg;
    d->window = window_of(cfg);
    if (!(d->window & (d->window - 1))) {
        d->slot_mask = d->window - 1u;
        d->meta_mask = 2u * (uint64_t)d->window - 1u;
    }
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
    d->size_guess =
        FIRST_BUFFER_GUESS < d->cfg.max_frame_bytes ? FIRST_BUFFER_GUESS : d->cfg.max_frame_bytes;
    d->slot_data = malloc((size_t)d->window * d->slot_bytes);
    d->slots = calloc(d->window, sizeof *d->slots);
    d->meta = malloc(sizeof *d->meta * 2 * d->window);
    d->held_data = malloc(d->slot_bytes);
    if (!d->slot_data || !d->slots || !d->meta || !d->held_data) {
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
    if (cfg->tr21.rate_num) {
        const xsf_status st = rtp_tr21_create(&d->tr21, &cfg->tr21, err);
        if (st != XSF_OK) {
            rtp_depacketizer_destroy(d);
            return st;
        }
        rtp_tr21_get(d->tr21, &d->st.tr21);
    }
    rtp_dp_account(d);
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
    free(d->held_data);
    free(d->slices);
    free(d->scratch);
    rtp_dp_fbuf_free(d, &d->asmb);
    rtp_dp_fbuf_free(d, &d->stage);
    free(d->ooo_pk);
    free(d->pend);
    rtp_sources_destroy(d->sources);
    rtp_tr21_destroy(d->tr21);
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

static size_t fbuf_own(const fbuf *b)
{
    return b->pooled ? 0 : b->cap;
}

/* Recomputed wherever an allocation changes (stats.memory_bytes). */
void rtp_dp_account(rtp_depacketizer *d)
{
    size_t n = (size_t)d->window * (d->slot_bytes + sizeof *d->slots + 2 * sizeof *d->meta) +
               d->slot_bytes; /* the packet held on a jump */
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
    const unsigned window = window_of(cfg);
    const size_t slot_bytes = cfg->max_packet_bytes ? cfg->max_packet_bytes : 9000;
    const size_t frame = cfg->max_frame_bytes ? cfg->max_frame_bytes : (size_t)64 << 20;
    const size_t slices =
        !cfg->max_slices || cfg->max_slices > MAX_SLICES ? MAX_SLICES : cfg->max_slices;
    unsigned probation = cfg->probation_packets ? cfg->probation_packets : RTP_PROBATION_PACKETS;
    if (probation > 8)
        probation = 8;
    size_t n = (size_t)window * (slot_bytes + sizeof(slot) + 2 * sizeof(seq_meta)) + slot_bytes;
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

static void release(rtp_depacketizer *d, uint64_t ext)
{
    seq_meta *m = meta_of(d, ext);
    const size_t i = slot_of(d, ext);
    if (m->ext == ext && m->state == SLOT_FILLED) {
        m->state = SLOT_CONSUMED;
        rtp_dp_assemble(d, &d->slots[i], d->slots[i].data, ext);
    } else {
        m->ext = ext;
        m->state = SLOT_LOST;
        d->st.lost++;
        rtp_dp_gap(d);
    }
}

static void drain(rtp_depacketizer *d, uint64_t now_ns)
{
    if (d->startup)
        return;
    int released = 0;
    for (;;) {
        const seq_meta *m = meta_of(d, d->next);
        if (m->ext != d->next || m->state != SLOT_FILLED)
            break;
        release(d, d->next++);
        released = 1;
    }
    /* The hole at the front was filled: the next one's age is its own (a hole does not
     * inherit the age of one filled before it: with two legs a skew apart, the lagging
     * leg fills each hole in turn, and none would otherwise wait its own reorder_ns). */
    if (d->highest < d->next || released)
        d->hole_since_ns = 0;
    if (d->highest < d->next)
        return;
    if (d->hole_since_ns)
        return;
    /* A hole is as old as the first packet received behind it: one found
     * behind a hole just given up on has been missing since that packet
     * came, not since now (else each of several holes in a row would wait
     * reorder_ns after the one before it, and the stream with them). */
    uint64_t since = now_ns;
    for (uint64_t e = d->next + 1; e <= d->highest; e++) {
        const seq_meta *m = meta_of(d, e);
        if (m->ext == e && m->state == SLOT_FILLED) {
            const uint64_t a = d->slots[slot_of(d, e)].arrival_ns;
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
    while (d->hole_since_ns && now_ns >= d->hole_since_ns &&
           now_ns - d->hole_since_ns >= d->cfg.reorder_ns) {
        /* Give up on the hole at the front, release what follows it. */
        while (d->next <= d->highest) {
            const seq_meta *m = meta_of(d, d->next);
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
    rtp_dp_finish_segment(d);
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
    d->seg_ticks = 0;
    d->given_started = 0;
    memset(&d->pace, 0, sizeof d->pace);
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

/* The packet held on a jump is let go (a stray after all): counted invalid. */
static void drop_held(rtp_depacketizer *d)
{
    if (d->holding)
        d->st.invalid++;
    d->holding = 0;
}

static void hold(rtp_depacketizer *d, uint16_t seq, uint32_t timestamp, uint8_t marker,
                 const uint8_t *payload, size_t payload_bytes, size_t len, uint64_t arrival_ns)
{
    drop_held(d);
    memcpy(d->held_data, payload, payload_bytes);
    d->held = (rtp_held){.seq = seq,
                         .timestamp = timestamp,
                         .marker = marker,
                         .len = len,
                         .arrival_ns = arrival_ns,
                         .payload = d->held_data,
                         .payload_bytes = payload_bytes};
    d->holding = 1;
}

static void take(rtp_depacketizer *d, uint16_t seq, uint32_t timestamp, uint8_t marker,
                 const uint8_t *payload, size_t payload_bytes, size_t len, uint64_t arrival_ns,
                 int kept, uint64_t given);

/* The packet's extended number, or 0: held, or dropped (a jump on probation). Where the
 * caller gives numbers, its steps; else the 16-bit number against the highest, a long gap
 * placed by the pace, and RFC 3550 A.1 for a jump the pace does not explain. */
static uint64_t extend(rtp_depacketizer *d, uint16_t seq, uint32_t timestamp, uint8_t marker,
                       const uint8_t *payload, size_t payload_bytes, size_t len,
                       uint64_t arrival_ns, uint64_t given)
{
    if (given && d->cfg.seq_given) {
        if (!d->given_started || !d->started) {
            /* One cycle up, as rtp_seq_extend starts. */
            const uint64_t first = (uint64_t)1 << 16 | seq;
            d->given_offset = first - given;
            d->given_started = 1;
        }
        const uint64_t ext = given + d->given_offset;
        if (!d->seqx.started || ext > d->seqx.highest) {
            d->seqx.started = 1;
            d->seqx.highest = ext;
        }
        return ext;
    }
    if (d->started) {
        const int16_t delta = (int16_t)(uint16_t)(seq - (uint16_t)d->seqx.highest);
        /* A gap longer in time than the 16-bit numbers measure may show any delta. */
        const int long_gap = rtp_seq_pace_beyond(&d->pace, arrival_ns, RTP_REORDER_OWN_MAX);
        uint64_t placed;
        if ((delta > MAX_DROPOUT || long_gap) &&
            rtp_seq_pace_place(&d->pace, seq, timestamp, arrival_ns, &placed)) {
            drop_held(d);
            d->probation = 0;
            d->seqx.highest = placed;
            return placed;
        }
        /* RFC 3550 A.1: a jump of more than MAX_DROPOUT is taken as a restart of the
         * sender only when the next packet follows it; until then it is held, not let
         * into the window (which it would empty). */
        if (delta > MAX_DROPOUT) {
            if (!d->probation || seq != d->probation_seq || !d->holding) {
                d->probation = 1;
                d->probation_seq = (uint16_t)(seq + 1);
                hold(d, seq, timestamp, marker, payload, payload_bytes, len, arrival_ns);
                return 0;
            }
            const rtp_held h = d->held;
            d->holding = 0;
            restart_stream(d);
            take(d, h.seq, h.timestamp, h.marker, h.payload, h.payload_bytes, h.len, h.arrival_ns,
                 0, 0);
        } else {
            drop_held(d);
        }
        d->probation = 0;
    }
    return rtp_seq_extend(&d->seqx, seq);
}

/* The payload (RFC 9134 header first) is the first packet of a frame: the first of its
 * first packetization unit (codestream mode: SEP and P 0; slice mode: the header
 * segment's first, SEP 0x7ff), of a progressive frame or a first field, sent in order
 * (T=1: with T=0 a packet numbered before it may still belong to the frame). */
static int begins_frame(const uint8_t *payload, size_t bytes)
{
    rtp_jxs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_jxs_header_parse(payload, bytes, &h, &err) != XSF_OK)
        return 0;
    return h.t == 1 && h.p == 0 && h.sep == (h.k == RTP_JXS_SLICE ? 0x7ff : 0) &&
           h.i != RTP_JXS_FIELD_SECOND;
}

/* A packet of the SSRC followed: into the reorder window (given: the caller's extended
 * number, 0: none). */
static void take(rtp_depacketizer *d, uint16_t seq, uint32_t timestamp, uint8_t marker,
                 const uint8_t *payload, size_t payload_bytes, size_t len, uint64_t arrival_ns,
                 int kept, uint64_t given)
{
    d->st.packets++;
    d->st.bytes += len;
    /* ST 2110-21: each packet as it arrived, in arrival order (before the reorder window). */
    if (d->tr21 && rtp_tr21_packet(d->tr21, arrival_ns, timestamp, marker, len))
        rtp_tr21_get(d->tr21, &d->st.tr21);
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
    const uint64_t ext =
        extend(d, seq, timestamp, marker, payload, payload_bytes, len, arrival_ns, given);
    if (!ext) { /* held: counted when it is taken or let go */
        d->st.packets--;
        d->st.bytes -= len;
        return;
    }
    if (!d->started) {
        d->started = 1;
        /* Packets that arrive behind the first are taken in order while the start is
         * unsettled (reorder_ns, or the window full). A first packet that begins a frame
         * settles it at once: what comes before it belongs to a frame already cut, which
         * no wait makes whole, and the first picture need not wait reorder_ns. */
        d->startup = !begins_frame(payload, payload_bytes);
        d->startup_ns = arrival_ns ? arrival_ns : 1;
        d->at_edge = 1;
        d->next = ext;
        d->highest = ext - 1;
    }
    if (ext < d->next) {
        const seq_meta *m = meta_of(d, ext);
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
    seq_meta *m = meta_of(d, ext);
    if (m->ext == ext && m->state == SLOT_FILLED) {
        d->st.duplicated++;
        return;
    }
    if (ext < d->highest)
        d->st.reordered++;
    else
        update_jitter(d, timestamp, arrival_ns);
    const size_t i = slot_of(d, ext);
    slot *s = &d->slots[i];
    s->timestamp = timestamp;
    s->marker = marker;
    s->bytes = (uint32_t)payload_bytes;
    s->arrival_ns = arrival_ns;
    if (kept &&
        (d->cfg.packets_kept || (!d->startup && ext == d->next && d->window_copies >= d->window))) {
        /* A packet the caller keeps; or the caller's packet that is the next number with
         * the start settled, which the drain below releases (assembles, copying what it
         * keeps) before push returns: no copy into the window (the common case, a stream
         * in order, saves a copy of every payload). The first window's packets are still
         * copied, so that the window's memory is resident from the start, as it was when
         * every packet was copied, not page by page as packets come out of order. */
        s->data = payload;
    } else {
        memcpy(d->slot_data + i * d->slot_bytes, payload, payload_bytes);
        s->data = d->slot_data + i * d->slot_bytes;
        if (d->window_copies < d->window)
            d->window_copies++;
    }
    m->ext = ext;
    m->state = SLOT_FILLED;
    if (ext > d->highest)
        d->highest = ext;
    rtp_seq_pace_note(&d->pace, ext, timestamp, arrival_ns);
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
             held[i].payload_bytes, held[i].len, held[i].arrival_ns, 0, 0);
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
    drop_held(d);
    end_stream(d);
    if (d->sources)
        d->st.on_probation += rtp_sources_clear(d->sources);
    if (d->tr21)
        rtp_tr21_get(d->tr21, &d->st.tr21);
}

void rtp_depacketizer_push(rtp_depacketizer *d, const uint8_t *pkt, size_t len, uint64_t arrival_ns)
{
    rtp_depacketizer_push_seq(d, pkt, len, arrival_ns, 0);
}

void rtp_depacketizer_push_seq(rtp_depacketizer *d, const uint8_t *pkt, size_t len,
                               uint64_t arrival_ns, uint64_t seq_ext)
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
    take(d, h.seq, h.timestamp, h.marker, h.payload, h.payload_bytes, len, arrival_ns, 1, seq_ext);
}
