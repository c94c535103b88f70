/* The sender (rtp_sender.h): a stream's boxes and SDP from its description,
 * clips walked once, and codestreams sent as a paced ST 2110-22 stream.
 *
 * Pacing: segment n starts n x TFRAME (or the field's period) after the
 * stream's start (with tai, troffset_ns later: at ST 2110-21's TVD); its packets leave in bursts of
 * `burst` every burst x TRS (rtp_pacing_burst_offset_ns). The loop sleeps until a burst is due,
 * then hands over every packet due by then in one call (one GSO message per burst where the socket
 * has GSO): a late wake-up sends the bursts it missed together, counted in late_sends. It never
 * spins. */
#define _POSIX_C_SOURCE 200809L /* clock_nanosleep */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "rtp_internal.h"
#include "xsf_clock.h"
#include "xsf_parse.h"

/* Most packets one send call takes (a late wake-up's backlog is sent in pieces). */
#define SEND_MAX 1024

/* ---- what a stream is ---- */

const char *rtp_jxs_sampling_name(const xs_header *h)
{
    if (h->nc == 3 && h->sx[1] == 2 && h->sy[1] == 2)
        return "YCbCr-4:2:0";
    if (h->nc == 3 && h->sx[1] == 2 && h->sy[1] == 1)
        return "YCbCr-4:2:2";
    if (h->nc == 3 && h->sx[1] == 1 && h->sy[1] == 1)
        return h->cpih == 1 ? "RGB" : "YCbCr-4:4:4";
    return "UNSPECIFIED";
}

void rtp_jxs_frat(rtp_jxs_boxes *b, unsigned num, unsigned den, int interlaced)
{
    b->frat_interlace = (uint8_t)(interlaced ? 1 : 0);
    b->frat_num = 0;
    b->frat_den_code = 0;
    if (!num || !den)
        return;
    xsf_rate_reduce(&num, &den);
    if (den == 1 && num <= 0xffff) {
        b->frat_num = (uint16_t)num;
        b->frat_den_code = 1;
    } else if (den == 1001 && num % 1000 == 0 && num / 1000 <= 0xffff) {
        b->frat_num = (uint16_t)(num / 1000);
        b->frat_den_code = 2;
    }
}

/* Bits a second of the stream's largest codestreams take. */
static double peak_bits(const rtp_stream_desc *d)
{
    if (!d->rate_num || !d->rate_den)
        return 0;
    return (double)d->max_codestream_bytes * 8 * (d->interlaced ? 2 : 1) * d->rate_num /
           d->rate_den;
}

void rtp_jxs_boxes_for_stream(rtp_jxs_boxes *b, const xs_header *first, const rtp_stream_desc *d)
{
    memset(b, 0, sizeof *b);
    if (d->max_codestream_bytes && d->rate_num && d->rate_den)
        b->brat_mbps = (uint32_t)(peak_bits(d) / 1e6 + 0.999999);
    rtp_jxs_frat(b, d->rate_num, d->rate_den, d->interlaced);
    const char *samp = d->sampling ? d->sampling : first ? rtp_jxs_sampling_name(first) : NULL;
    const unsigned depth = first ? first->depth[0] : 0;
    /* schar's sampling codes as intoPIX's ST 2110-22 dissector reads them
     * (ISO/IEC 21122-3 was not at hand); for others (4:2:0) schar is left
     * unset (its valid bit 0) rather than guessed. */
    const int scode = !samp                   ? -1
                      : strstr(samp, "4:2:2") ? 0
                      : strstr(samp, "4:4:4") ? 1
                      : !strcmp(samp, "RGB")  ? 2
                                              : -1;
    if (scode >= 0 && depth >= 1)
        b->schar = (uint16_t)(0x8000 | ((depth - 1) & 15) << 4 | scode);
    /* The colour specification box says what the SDP says (RFC 9134 7, 8.1). */
    rtp_jxs_colr_from_sdp(b, d->colorimetry, d->tcs, d->range, samp, depth);
}

void rtp_sdp_for_stream(rtp_sdp *s, const xs_header *first, const rtp_stream_desc *d,
                        const rtp_packetizer_config *pc, rtp_pacing pacing,
                        const rtp_sdp_route *route)
{
    rtp_sdp_init(s);
    rtp_addr_format(&route->dest, 0, s->dest_addr, sizeof s->dest_addr);
    s->ipv6 = route->dest.family == AF_INET6;
    s->port = route->dest.port;
    s->payload_type = pc->payload_type;
    s->ttl = rtp_addr_is_multicast(&route->dest) && !s->ipv6 ? route->ttl : 0;
    rtp_addr_format(&route->origin, 0, s->origin_addr, sizeof s->origin_addr);
    if (route->source_filter)
        rtp_addr_format(&route->origin, 0, s->source_addr, sizeof s->source_addr);
    s->packetmode = pc->mode;
    s->transmode = 1;
    /* RFC 9134 7.1: 21122-2's names without spaces; none for unknown codes. */
    if (!rtp_sdp_profile_name(first->ppih, s->profile, sizeof s->profile))
        s->profile[0] = '\0';
    if (!rtp_sdp_level_name(first->plev, s->level, sizeof s->level))
        s->level[0] = '\0';
    if (!rtp_sdp_sublevel_name(first->plev, s->sublevel, sizeof s->sublevel))
        s->sublevel[0] = '\0';
    s->depth = first->depth[0];
    s->width = first->wf;
    s->height = d->interlaced ? 2u * first->hf : first->hf;
    s->rate_num = d->rate_num;
    s->rate_den = d->rate_den;
    s->interlace = d->interlaced;
    snprintf(s->sampling, sizeof s->sampling, "%s",
             d->sampling ? d->sampling : rtp_jxs_sampling_name(first));
    snprintf(s->colorimetry, sizeof s->colorimetry, "%s",
             d->colorimetry ? d->colorimetry : "BT709");
    snprintf(s->tcs, sizeof s->tcs, "%s", d->tcs ? d->tcs : "SDR");
    snprintf(s->range, sizeof s->range, "%s", d->range ? d->range : "NARROW");
    /* RFC 9134 5: TP says which ST 2110-21 sender type the pacing is; none unpaced. */
    const char *tp = rtp_pacing_tp(pacing);
    snprintf(s->tp, sizeof s->tp, "%s", tp ? tp : "");
    s->max_bitrate_kbps = (uint64_t)(peak_bits(d) / 1000 + 1);
}

/* ---- clips ---- */

xsf_status rtp_clip_open(rtp_clip *c, const uint8_t *data, size_t len, xsf_error *err)
{
    memset(c, 0, sizeof *c);
    c->data = data;
    c->len = len;
    if (!len)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "no codestream in the file");
    size_t cap = 0;
    for (size_t off = 0, n; off < len; off += n) {
        xsf_error e;
        xsf_error_clear(&e);
        const xsf_status st = xs_jxs_next(data, len, off, &n, c->count ? NULL : &c->first, &e);
        if (st != XSF_OK) {
            xsf_error_set(err, st, "codestream %zu (file byte %zu): %s", c->count, off, e.msg);
            rtp_clip_free(c);
            return st;
        }
        if (c->count == cap) {
            cap = cap ? 2 * cap : 64;
            size_t *no = realloc(c->offset, cap * sizeof *no);
            if (no)
                c->offset = no;
            size_t *nb = no ? realloc(c->bytes, cap * sizeof *nb) : NULL;
            if (!nb) {
                rtp_clip_free(c);
                return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
            }
            c->bytes = nb;
        }
        c->offset[c->count] = off;
        c->bytes[c->count++] = n;
        if (n > c->max_bytes)
            c->max_bytes = n;
    }
    return XSF_OK;
}

void rtp_clip_free(rtp_clip *c)
{
    free(c->offset);
    free(c->bytes);
    c->offset = c->bytes = NULL;
    c->count = 0;
}

/* ---- the sender ---- */

/* What one leg sends of a segment: datagrams, their lengths and their slots (the index of the
 * packet whose time they go out at). */
typedef struct leg_list {
    const uint8_t **p;
    size_t *l, *at, n;
} leg_list;

struct rtp_sender {
    rtp_sender_config cfg;
    rtp_packetizer *pk;
    rtp_impairer *imp[2]; /* each leg's, with impairments (the second with two legs) */
    rtp_sender_stats st;
    uint64_t frame_ns, segment_ns;
    unsigned seg_num; /* segments a second: rate_num, or 2 x rate_num for fields (/ rate_den) */
    int started;
    uint64_t t0;        /* CLOCK_MONOTONIC: the stream's start */
    uint64_t pcap_t0;   /* the capture's time of the start */
    uint64_t tai_n0;    /* with tai: the first segment's index on the grid from the epoch */
    int64_t tai_offset; /* with tai: CLOCK_TAI - CLOCK_REALTIME (the capture's times) */
    uint64_t index;     /* packets produced (drop_every) */
    /* the packets of one segment, back to back */
    uint8_t *data;
    size_t used, cap;
    size_t *off, *len, n, cap_pk;
    /* what goes out of a segment: the packets made (ip, il), each leg's list (2 x n + 4:
     * room for the impairer's; without impairments list 0 serves both legs) and the packets
     * each leg lost (keep: those the first leg must not lose) */
    const uint8_t **ip;
    size_t *il;
    leg_list out[2];
    uint8_t *lost[2], *keep;
    size_t out_cap;
};

xsf_status rtp_sender_create(rtp_sender **out, const rtp_sender_config *cfg, xsf_error *err)
{
    *out = NULL;
    if (!cfg->sock == !cfg->pcap)
        return xsf_error_set(err, XSF_ERR_ARG, "a sender needs a socket or a capture file");
    if ((cfg->sock2 && !cfg->sock) || (cfg->pcap2 && !cfg->pcap))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "a sender's second leg is of its first's kind (socket or capture)");
    rtp_sender *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the sender");
    s->cfg = *cfg;
    if (!s->cfg.rate_num || !s->cfg.rate_den) {
        s->cfg.rate_num = 25;
        s->cfg.rate_den = 1;
    }
    s->frame_ns = (uint64_t)1000000000u * s->cfg.rate_den / s->cfg.rate_num;
    s->segment_ns = s->cfg.interlaced ? s->frame_ns / 2 : s->frame_ns;
    s->seg_num = s->cfg.interlaced ? 2 * s->cfg.rate_num : s->cfg.rate_num;
    s->st.first_timestamp = cfg->first_timestamp;
    s->st.legs = cfg->sock2 || cfg->pcap2 ? 2 : 1;
    xsf_status st = rtp_packetizer_create(&s->pk, &cfg->packetizer, err);
    if (st == XSF_OK && cfg->impaired)
        st = rtp_impairer_create(&s->imp[0], &cfg->impair, err);
    if (st == XSF_OK && cfg->impaired && s->st.legs > 1)
        st = rtp_impairer_create(&s->imp[1], &cfg->impair2, err);
    if (st != XSF_OK) {
        rtp_sender_destroy(s);
        return st;
    }
    *out = s;
    return XSF_OK;
}

void rtp_sender_destroy(rtp_sender *s)
{
    if (!s)
        return;
    rtp_packetizer_destroy(s->pk);
    for (int k = 0; k < 2; k++) {
        rtp_impairer_destroy(s->imp[k]);
        free(s->out[k].p);
        free(s->out[k].l);
        free(s->out[k].at);
        free(s->lost[k]);
    }
    free(s->data);
    free(s->off);
    free(s->len);
    free(s->ip);
    free(s->il);
    free(s->keep);
    free(s);
}

const rtp_sender_stats *rtp_sender_get_stats(const rtp_sender *s)
{
    return &s->st;
}

const rtp_impair_counts *rtp_sender_impair_counts(const rtp_sender *s)
{
    return rtp_sender_impair_leg_counts(s, 0);
}

const rtp_impair_counts *rtp_sender_impair_leg_counts(const rtp_sender *s, unsigned leg)
{
    return leg < 2 && s->imp[leg] ? rtp_impairer_counts(s->imp[leg]) : NULL;
}

uint32_t rtp_random32(void)
{
    const struct timespec ts = xsf_ns_to_timespec(xsf_clock_wall_ns());
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(x >> 32);
}

/* rtp_packet_cb: keeps the packet (copied: the packetizer reuses its buffer). */
static int keep_packet(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    rtp_sender *s = ctx;
    s->index++;
    if (s->cfg.drop_every && s->index % s->cfg.drop_every == 0) {
        s->st.dropped++;
        return 0;
    }
    if (s->n == s->cap_pk) {
        const size_t c = s->cap_pk ? 2 * s->cap_pk : 1024;
        size_t *o = realloc(s->off, c * sizeof *o);
        if (o)
            s->off = o;
        size_t *l = o ? realloc(s->len, c * sizeof *l) : NULL;
        if (!l)
            return 1;
        s->len = l;
        s->cap_pk = c;
    }
    if (s->used + len > s->cap) {
        size_t c = s->cap ? 2 * s->cap : (size_t)1 << 20;
        while (c < s->used + len)
            c *= 2;
        uint8_t *d = realloc(s->data, c);
        if (!d)
            return 1;
        s->data = d;
        s->cap = c;
    }
    memcpy(s->data + s->used, pkt, len);
    s->off[s->n] = s->used;
    s->len[s->n++] = len;
    s->used += len;
    return 0;
}

static int stop_asked(const rtp_sender *s)
{
    return s->cfg.stop && s->cfg.stop(s->cfg.stop_ctx);
}

/* Sleeps until t_ns (CLOCK_MONOTONIC); a signal ends the wait only when the stop
 * callback then asks to stop. */
static void sleep_until(const rtp_sender *s, uint64_t t_ns)
{
    while (xsf_clock_sleep_until_ns(t_ns) && !stop_asked(s)) {
    }
}

/* ptr grown to n elements (kept as it was when that fails: bad set). */
#define GROW_TO(ptr, n, bad)                                                                       \
    do {                                                                                           \
        void *grown_ = realloc((ptr), (n) * sizeof *(ptr));                                        \
        if (grown_)                                                                                \
            (ptr) = grown_;                                                                        \
        else                                                                                       \
            (bad) = 1;                                                                             \
    } while (0)

/* Room for a segment of s->n packets in the lists; 0, or 1 out of memory. */
static int grow_lists(rtp_sender *s)
{
    const size_t c = 2 * s->n + 4;
    if (c <= s->out_cap)
        return 0;
    int bad = 0;
    GROW_TO(s->ip, c, bad);
    GROW_TO(s->il, c, bad);
    GROW_TO(s->keep, c, bad);
    for (int k = 0; k < 2; k++) {
        GROW_TO(s->out[k].p, c, bad);
        GROW_TO(s->out[k].l, c, bad);
        GROW_TO(s->out[k].at, c, bad);
        GROW_TO(s->lost[k], c, bad);
    }
    if (!bad)
        s->out_cap = c;
    return bad;
}

/* A leg's list after its impairer (and with `last`, what it still held) from the packets. */
static void impair_leg(rtp_sender *s, unsigned k, int flags, const uint8_t *keep)
{
    leg_list *o = &s->out[k];
    rtp_impair_segment_leg(s->imp[k], s->ip, s->il, s->n, (flags & RTP_SEND_SPARE) != 0, keep,
                           s->lost[k], o->p, o->l, o->at, &o->n);
    if (flags & RTP_SEND_LAST) {
        size_t extra;
        rtp_impair_finish(s->imp[k], o->p + o->n, o->l + o->n, &extra);
        for (size_t j = 0; j < extra; j++)
            o->at[o->n + j] = s->n ? s->n - 1 : 0;
        o->n += extra;
    }
}

/* Each leg's list of the segment's packets (or what its impairer makes of them). */
static xsf_status out_lists(rtp_sender *s, int flags, xsf_error *err)
{
    if (grow_lists(s))
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    for (size_t j = 0; j < s->n; j++) {
        s->ip[j] = s->data + s->off[j];
        s->il[j] = s->len[j];
    }
    if (!s->imp[0]) {
        leg_list *o = &s->out[0];
        for (size_t j = 0; j < s->n; j++) {
            o->p[j] = s->ip[j];
            o->l[j] = s->il[j];
            o->at[j] = j;
        }
        o->n = s->n;
        return XSF_OK;
    }
    const int two = s->imp[1] != NULL, exclusive = two && s->cfg.impair_exclusive;
    /* Never on both: the first leg loses nothing of a segment the second's cut takes, the
     * second nothing the first lost. */
    const int spare = (flags & RTP_SEND_SPARE) != 0;
    const int cut2 = exclusive && !spare && rtp_impair_cut_next(s->imp[1]);
    if (cut2)
        memset(s->keep, 1, s->n);
    impair_leg(s, 0, flags, cut2 ? s->keep : NULL);
    if (two)
        impair_leg(s, 1, flags, exclusive ? s->lost[0] : NULL);
    uint64_t all = 0;
    for (size_t j = 0; j < s->n; j++)
        all += s->lost[0][j] && (!two || s->lost[1][j]);
    s->st.lost_all_legs += all;
    s->st.segments_lost_all_legs += all > 0;
    return XSF_OK;
}

static xsf_status output_error(rtp_sender *s, xsf_status st)
{
    s->st.output_failed = 1;
    return st;
}

/* The stream's start on the TAI grid: the first segment at least 1 ms from now (a capture:
 * at or after pcap_start_ns), the monotonic time of it, and the capture's. */
static void start_tai(rtp_sender *s)
{
    const rtp_sender_config *c = &s->cfg;
    s->tai_offset = xsf_clock_tai_offset_ns();
    const uint64_t tai_now = xsf_clock_tai_ns(), mono_now = xsf_clock_mono_ns();
    const uint64_t from = c->pcap && c->pcap_start_ns ? c->pcap_start_ns + (uint64_t)s->tai_offset
                          : c->pcap                   ? tai_now
                                                      : tai_now + XSF_NS_PER_MS;
    /* A frame begins on the frame grid: fields are numbered from a first field. */
    const uint64_t n = rtp_tai_frame_index(from, c->rate_num, c->rate_den);
    s->tai_n0 = c->interlaced ? 2 * n : n;
    const uint64_t first = rtp_tai_frame_ns(s->tai_n0, s->seg_num, c->rate_den);
    s->st.first_tai_ns = first;
    s->st.first_timestamp = rtp_tai_frame_timestamp(s->tai_n0, s->seg_num, c->rate_den);
    s->t0 = mono_now + (first - tai_now);
    s->pcap_t0 = first - (uint64_t)s->tai_offset;
}

/* With tai, segment k's start from the stream's: on the grid (a capture), or for a socket
 * the monotonic time of its TAI instant now, so that the schedule follows CLOCK_TAI (a
 * step of the PTP-disciplined clock moves it, the monotonic clock's drift does not). */
static uint64_t tai_segment_start(const rtp_sender *s, uint64_t k)
{
    const rtp_sender_config *c = &s->cfg;
    const uint64_t first = s->st.first_tai_ns;
    const uint64_t at = rtp_tai_frame_ns(s->tai_n0 + k, s->seg_num, c->rate_den);
    if (c->pcap)
        return at - first;
    const uint64_t tai_now = xsf_clock_tai_ns(), mono_now = xsf_clock_mono_ns();
    const int64_t rel = (int64_t)(mono_now - s->t0) + (int64_t)(at - tai_now);
    return rel > 0 ? (uint64_t)rel : 0;
}

/* Leg k's list: its own with impairments, else the one both legs share. */
static const leg_list *leg_out(const rtp_sender *s, unsigned k)
{
    return &s->out[s->imp[0] ? k : 0];
}

/* Datagrams [from[k], to[k]) of each leg's list on its socket, one leg after the other. With
 * two legs a refusal on one is counted and the stream goes on; an error only when both
 * refuse. */
static xsf_status send_legs(rtp_sender *s, const size_t *from, const size_t *to, xsf_error *err)
{
    const rtp_sender_config *c = &s->cfg;
    rtp_udp *const leg[2] = {c->sock, c->sock2};
    unsigned failed = 0;
    xsf_status st = XSF_OK;
    for (unsigned i = 0; i < s->st.legs; i++) {
        if (to[i] == from[i])
            continue; /* the impairments left this leg nothing to send now */
        const leg_list *o = leg_out(s, i);
        xsf_error e;
        xsf_error_clear(&e);
        const xsf_status r =
            rtp_udp_send(leg[i], o->p + from[i], o->l + from[i], to[i] - from[i], &e);
        s->st.send_calls++;
        if (r == XSF_OK)
            continue;
        failed++;
        st = r;
        *err = e;
        if (s->st.legs > 1) {
            s->st.leg_errors[i]++;
            snprintf(s->st.leg_error, sizeof s->st.leg_error, "leg %u: %.110s", i + 1, e.msg);
        }
    }
    return failed && failed == s->st.legs ? st : XSF_OK;
}

/* Datagrams [from[k], to[k]) of each leg's list into its capture file, stamped `at`. */
static xsf_status write_legs(rtp_sender *s, const size_t *from, const size_t *to, uint64_t at,
                             xsf_error *err)
{
    const rtp_sender_config *c = &s->cfg;
    rtp_pcap_writer *const w[2] = {c->pcap, c->pcap2};
    const rtp_addr *const src[2] = {&c->pcap_src, &c->pcap2_src};
    const rtp_addr *const dst[2] = {&c->pcap_dst, &c->pcap2_dst};
    for (unsigned i = 0; i < s->st.legs; i++) {
        const leg_list *o = leg_out(s, i);
        for (size_t j = from[i]; j < to[i]; j++) {
            const xsf_status st = rtp_pcap_write(w[i], src[i], dst[i], o->p[j], o->l[j], at, err);
            if (st != XSF_OK)
                return st;
        }
    }
    return XSF_OK;
}

xsf_status rtp_sender_send(rtp_sender *s, const uint8_t *cs, size_t len, int flags, xsf_error *err)
{
    const rtp_sender_config *c = &s->cfg;
    if (!s->started) {
        s->started = 1;
        if (c->tai) {
            start_tai(s);
        } else {
            s->t0 = xsf_clock_mono_ns() + 1000000; /* 1 ms from now */
            if (c->pcap)
                s->pcap_t0 = c->pcap_start_ns ? c->pcap_start_ns : xsf_clock_wall_ns();
        }
    }
    s->st.output_failed = 0;
    const uint64_t k = s->st.segments;
    const uint64_t frame_no = c->interlaced ? k / 2 : k;
    const rtp_jxs_scan scan = !c->interlaced ? RTP_JXS_PROGRESSIVE
                              : k % 2        ? RTP_JXS_FIELD_SECOND
                                             : RTP_JXS_FIELD_FIRST;
    /* RFC 9134 4.2 with erratum 6752: the sampling instant of the frame, or of
     * each field (fields at twice the frame rate); one F counter for both
     * fields of a frame (4.3). */
    const uint32_t ts = c->tai
                            ? rtp_tai_frame_timestamp(s->tai_n0 + k, s->seg_num, c->rate_den)
                            : rtp_frame_timestamp(c->first_timestamp, k, s->seg_num, c->rate_den);
    s->n = s->used = 0;
    xsf_status st =
        rtp_packetize(s->pk, cs, len, ts, (unsigned)(frame_no % 32), scan, keep_packet, s, err);
    if (st != XSF_OK)
        return st;
    if ((st = out_lists(s, flags, err)) != XSF_OK)
        return st;
    /* The packets' slots are paced; each leg sends what its list has in them. */
    const size_t sn = s->n ? s->n : 1;
    const uint64_t seg_start =
        c->tai ? tai_segment_start(s, k) + c->troffset_ns : k * s->segment_ns;
    const unsigned burst =
        c->burst ? c->burst : rtp_pacing_burst_default(c->pacing, sn, s->segment_ns);
    const int waits = !c->pcap && c->pacing != RTP_PACING_NONE;
    const size_t most = c->pacing == RTP_PACING_FRAME ? (size_t)-1 : SEND_MAX;
    size_t from[2] = {0, 0}, to[2];
    for (size_t p = 0; p < sn;) {
        const uint64_t at =
            seg_start + rtp_pacing_burst_offset_ns(c->pacing, p, sn, s->segment_ns, burst);
        if (waits && xsf_clock_mono_ns() < s->t0 + at)
            sleep_until(s, s->t0 + at);
        const uint64_t due = c->pcap ? at : xsf_clock_mono_ns() - s->t0;
        size_t q = p + 1;
        while (q < sn && q - p < most &&
               seg_start + rtp_pacing_burst_offset_ns(c->pacing, q, sn, s->segment_ns, burst) <=
                   due)
            q++;
        for (unsigned i = 0; i < s->st.legs; i++) {
            const leg_list *o = leg_out(s, i);
            for (to[i] = from[i]; to[i] < o->n && (q == sn || o->at[to[i]] < q);)
                to[i]++;
        }
        if (c->pcap) {
            if ((st = write_legs(s, from, to, s->pcap_t0 + at, err)) != XSF_OK)
                return output_error(s, st);
        } else {
            st = send_legs(s, from, to, err);
            s->st.late_sends +=
                c->pacing != RTP_PACING_NONE && c->pacing != RTP_PACING_FRAME && q - p > burst;
        }
        const leg_list *o = leg_out(s, 0);
        for (size_t j = from[0]; j < to[0]; j++)
            s->st.bytes += o->l[j];
        s->st.packets += to[0] - from[0];
        if (st != XSF_OK)
            return output_error(s, st);
        from[0] = to[0];
        from[1] = to[1];
        p = q;
    }
    s->st.segments++;
    const uint64_t now = xsf_clock_mono_ns();
    s->st.elapsed_ns = now > s->t0 ? now - s->t0 : 0;
    if (c->on_segment)
        c->on_segment(c->ctx, &s->st);
    return XSF_OK;
}

/* ---- frame sources ---- */

static xsf_status clip_next(void *ctx, rtp_source_frame *f, xsf_error *err)
{
    (void)err;
    rtp_clip_cursor *cur = ctx;
    memset(f, 0, sizeof *f);
    if (cur->k >= cur->total)
        return XSF_OK;
    const rtp_clip *c = cur->clip;
    const size_t i = (size_t)(cur->k % c->count);
    f->cs = c->data + c->offset[i];
    f->len = c->bytes[i];
    f->index = i;
    f->left = cur->total - ++cur->k;
    return XSF_OK;
}

void rtp_clip_source(rtp_frame_source *src, rtp_clip_cursor *cur, const rtp_clip *c, uint64_t loops)
{
    cur->clip = c;
    cur->total = (uint64_t)c->count * (loops ? loops : 1);
    cur->k = 0;
    *src = (rtp_frame_source){.next = clip_next, .ctx = cur, .max_bytes = c->max_bytes};
}

/* The codestream after `cur` read ahead (with impairments, a source that does not say
 * what is left): cur copied into *copy first, since the source's bytes last only until
 * its next call; cur->left then 0 when none follows. A failure to read it is kept for
 * after cur is sent. */
typedef struct read_ahead {
    rtp_source_frame next;
    int have; /* next holds a codestream */
    uint8_t *copy;
    size_t cap;
    xsf_status st;
    xsf_error err;
} read_ahead;

static xsf_status look_ahead(const rtp_frame_source *src, rtp_source_frame *cur, read_ahead *a,
                             xsf_error *err)
{
    if (cur->len > a->cap) {
        uint8_t *c = realloc(a->copy, cur->len);
        if (!c)
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        a->copy = c;
        a->cap = cur->len;
    }
    memcpy(a->copy, cur->cs, cur->len);
    cur->cs = a->copy;
    xsf_error_clear(&a->err);
    a->st = src->next(src->ctx, &a->next, &a->err);
    a->have = a->st == XSF_OK && a->next.cs;
    if (!a->have)
        cur->left = 0;
    return XSF_OK;
}

xsf_status rtp_sender_send_source(rtp_sender *s, const rtp_frame_source *src, xsf_error *err)
{
    const uint64_t per = s->cfg.interlaced ? 2 : 1;
    read_ahead a;
    memset(&a, 0, sizeof a);
    xsf_status st = XSF_OK;
    for (uint64_t k = 0;; k++) {
        if (stop_asked(s)) {
            s->st.stopped = 1;
            break;
        }
        rtp_source_frame cur;
        xsf_error e;
        xsf_error_clear(&e);
        if (a.have) {
            cur = a.next;
            a.have = 0;
        } else if ((st = src->next(src->ctx, &cur, &e)) != XSF_OK) {
            *err = e;
            break;
        }
        if (!cur.cs)
            break;
        if (s->imp[0] && cur.left == RTP_FRAMES_LEFT_UNKNOWN &&
            (st = look_ahead(src, &cur, &a, err)) != XSF_OK)
            break;
        /* The first and the last frame (both fields) go out whole: see rtp_impairer. */
        const int flags =
            (k < per || cur.left < per ? RTP_SEND_SPARE : 0) | (cur.left == 0 ? RTP_SEND_LAST : 0);
        st = rtp_sender_send(s, cur.cs, cur.len, flags, &e);
        if (st != XSF_OK) {
            if (s->st.output_failed)
                *err = e;
            else
                xsf_error_set(err, st, "codestream %zu: %s", cur.index, e.msg);
            break;
        }
        if ((st = a.st) != XSF_OK) { /* the read ahead failed: after the frame before it */
            *err = a.err;
            break;
        }
    }
    free(a.copy);
    return st;
}

xsf_status rtp_sender_send_clip(rtp_sender *s, const rtp_clip *c, uint64_t loops, xsf_error *err)
{
    rtp_clip_cursor cur;
    rtp_frame_source src;
    rtp_clip_source(&src, &cur, c, loops);
    return rtp_sender_send_source(s, &src, err);
}
