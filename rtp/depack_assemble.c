/* The depacketizer's stage 2 (see depacketize.c): picture segments opened
 * over the in-order packets, bounded by their picture header, ended and
 * passed on (rtp_frame) or counted; progress reports; loss at the edges of
 * the stream. Slice mode's units are depack_slice.c's. */
#include "depack_internal.h"

/* Reads the picture header at the start of a segment's data (boxes, then
 * SOC .. the first SLH; `hdr_bytes` of it at `buf`, possibly without the
 * SLH): fills *h and *cs_off. 0 when it does not parse. */
int rtp_dp_read_header(rtp_depacketizer *d, const uint8_t *buf, size_t bytes, xs_header *h,
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
        rtp_dp_account(d);
    }
    memcpy(d->scratch, buf + *cs_off, n);
    d->scratch[n] = 0xff;
    d->scratch[n + 1] = 0x20;
    return xs_parse_header(d->scratch, n + 2, h, &err) == XSF_OK;
}

/* A segment (T=1) may hold no more than its picture header allows: Lcod
 * when signalled, else rtp_jxs_codestream_bound of its samples, and never
 * more than max_frame_bytes. Until its header has been read it may hold
 * RTP_JXS_HEADER_SCAN_BYTES (open_segment). Slice mode reads it from the
 * header segment, codestream mode from the first bytes. */
void rtp_dp_limit_by_header(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    xs_header h;
    size_t cs_off;
    if (!rtp_dp_read_header(d, d->asmb.data, a->bytes, &h, &cs_off))
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
    a->header = h;
    a->has_header = 1;
    if (d->cfg.max_picture_samples && samples > d->cfg.max_picture_samples)
        a->too_large = 1; /* a larger picture than the stream's: never decoded */
    if (a->bytes > a->limit)
        a->too_large = 1;
}

static unsigned segment_index(uint8_t f, uint8_t scan)
{
    return scan == RTP_JXS_PROGRESSIVE ? f : 2u * f + (scan == RTP_JXS_FIELD_SECOND);
}

/* Picture segments lost whole between the last one seen and segment `seg` (at RTP time
 * ts): the jump of the F counter (and field), modulo `mod`; where the segments' time step
 * is known, the count of that residue nearest what the timestamps say (a cut of 32
 * frames or more wraps the counter). */
static uint64_t segments_skipped(const rtp_depacketizer *d, unsigned seg, unsigned mod, uint32_t ts)
{
    uint64_t n = (seg + mod - d->last_seg - 1) % mod;
    const uint32_t dts = ts - d->last_seg_ts;
    if (mod == 32 && d->seg_ticks && dts < 0x80000000u) { /* fields may share a time */
        const double est = (double)dts / d->seg_ticks - 1;
        while ((double)n + mod / 2.0 < est)
            n += mod;
    }
    return n;
}

/* The segment seen last (its index and time), and the segments' time step where it
 * follows the one before directly. */
static void seg_seen(rtp_depacketizer *d, unsigned seg, unsigned mod, uint32_t ts, int direct)
{
    const uint32_t dts = ts - d->last_seg_ts;
    if (direct && d->last_seg_valid && seg == (d->last_seg + 1) % mod && dts && dts < RTP_CLOCK_HZ)
        d->seg_ticks = dts;
    d->last_seg_valid = 1;
    d->last_seg = seg;
    d->last_seg_ts = ts;
}

static int valid_codestream(rtp_depacketizer *d, const uint8_t *cs, size_t n, size_t nslices)
{
    if (!d->cfg.validate)
        return 1;
    rtp_dp_make_copies(d);
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

/* The picture header that goes with a frame passed on (rtp_frame.header): the one read
 * while the segment grew (T=1), else read now (T=0; not with copies pending); only when
 * it is the whole header: xs_parse_header read up to an SLH marker that read_header put
 * after the bytes it had, so the header is whole when the codestream has an SLH right
 * there (or, a partial slice-mode segment of no whole slice, ends there). */
static void frame_header(rtp_depacketizer *d, rtp_frame *fr, const uint8_t *buf, size_t bytes,
                         size_t cs_off)
{
    const assembly *a = &d->a;
    size_t off = cs_off;
    const xs_header *h = &a->header;
    xs_header now;
    if (!a->has_header) {
        if (d->npend || !rtp_dp_read_header(d, buf, bytes, &now, &off) || off != cs_off)
            return;
        h = &now;
    }
    const size_t hb = h->header_bytes;
    size_t readable = fr->bytes;
    if (d->npend) /* past the prefix, bytes may not be there yet */
        readable = RTP_DEFER_PREFIX_BYTES <= cs_off             ? 0
                   : RTP_DEFER_PREFIX_BYTES - cs_off < readable ? RTP_DEFER_PREFIX_BYTES - cs_off
                                                                : readable;
    if (hb == fr->bytes ||
        (hb + 2 <= readable && fr->data[hb] == 0xff && fr->data[hb + 1] == 0x20)) {
        fr->header = *h;
        fr->has_header = 1;
    }
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
        rtp_dp_make_copies(d);
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
        frame_header(d, fr, buf, bytes, cs_off);
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
        frame_header(d, fr, buf, bytes, cs_off);
        d->st.frames_partial++;
        pass_on(d, fr);
        return SEG_PARTIAL;
    }
    d->st.frames_dropped++;
    return SEG_DROPPED;
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
        rtp_dp_make_copies(d);
        if (a->first_data_bytes && rtp_dp_read_header(d, d->asmb.data, a->bytes, &h, &cs_off) &&
            h.lcod) {
            const uint64_t total =
                ((uint64_t)cs_off + h.lcod + a->first_data_bytes - 1) / a->first_data_bytes;
            if (total > a->next_pcount)
                missing = total - a->next_pcount;
        }
    } else if (a->expected_slices) {
        /* the unit under way, then each slice after it, one packet at least */
        const size_t after = a->unit >= 0             ? (size_t)a->unit + 1
                             : a->unit == UNIT_HEADER ? 0
                                                      : a->next_slice;
        missing =
            (a->unit != UNIT_NONE) + (a->expected_slices > after ? a->expected_slices - after : 0);
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

void rtp_dp_finish_segment(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    if (!a->open)
        return;
    const int edge = d->flushing;
    a->open = 0;
    seg_seen(d, segment_index(a->f, a->scan), a->scan == RTP_JXS_PROGRESSIVE ? 32 : 64,
             a->timestamp, a->direct);
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
        const int whole = a->no_buffer ? 0 : rtp_dp_ooo_gather(d, &bytes, &header_whole, &nslices);
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
        if (a->mode == RTP_JXS_SLICE && a->expected_slices && a->last_l && a->unit == UNIT_NONE &&
            a->next_slice == a->expected_slices && !a->any_broken)
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
    const int direct = !d->after_gap;
    if (d->after_gap && d->last_seg_valid)
        d->st.frames_dropped += segments_skipped(d, seg, mod, s->timestamp);
    memset(a, 0, sizeof *a);
    a->direct = direct;
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

void rtp_dp_assemble(rtp_depacketizer *d, const slot *s, const uint8_t *payload, uint64_t ext)
{
    assembly *a = &d->a;
    rtp_jxs_header h;
    rtp_jxs_header_read(payload, &h); /* checked when stored (4 bytes at least) */
    const uint8_t *data = payload + RTP_JXS_HEADER_BYTES;
    const size_t n = s->bytes - RTP_JXS_HEADER_BYTES;
    const int ooo = h.k == RTP_JXS_SLICE && !h.t;
    if (ooo) {
        /* T=0: a segment is every packet of one timestamp, F counter and I
         * field, whatever their order. */
        const int same =
            a->open && a->ooo && s->timestamp == a->timestamp && h.f == a->f && h.i == a->scan;
        if (a->open && !same)
            rtp_dp_finish_segment(d);
        if (!a->open) {
            if (!n || (d->done_valid && s->timestamp == d->done_ts && h.f == d->done_f &&
                       h.i == d->done_i))
                return; /* padding, or a straggler of the segment just passed on */
            open_segment(d, s, &h, ext);
        }
        d->after_gap = 0;
        a->last_seq = ext;
        a->last_arrival = s->arrival_ns;
        rtp_dp_ooo_packet(d, &h, s->marker, data, n);
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
        rtp_dp_finish_segment(d);
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
                    d->st.frames_dropped += segments_skipped(d, seg, mod, s->timestamp);
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
                seg_seen(d, segment_index(h.f, h.i), h.i == RTP_JXS_PROGRESSIVE ? 32 : 64,
                         s->timestamp, 0);
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
        if (!a->hole && rtp_dp_append(d, data, n))
            a->hole = 1;
        report_progress(d);
        if (h.l || s->marker) {
            a->ended = 1;
            rtp_dp_finish_segment(d);
        }
    } else {
        rtp_dp_slice_packet(d, &h, data, n);
        report_progress(d);
        if (s->marker) {
            a->ended = 1;
            rtp_dp_finish_segment(d);
        }
    }
}

void rtp_dp_gap(rtp_depacketizer *d)
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
        rtp_dp_cut_back(d, a->unit_start);
    }
}
