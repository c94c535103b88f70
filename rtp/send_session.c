/* A send session (rtp_send_session.h): a clip, its addresses, configuration
 * and SDP, then the output and the paced stream, and the --stats-json text. */
#define _POSIX_C_SOURCE 200809L /* strndup */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rtp.h"
#include "xsf_output.h"

#define LEGS RTP_SDP_MAX_LEGS

/* One option's values, one a leg: "A" or "A,B" (copies). */
typedef struct leg_values {
    char *v[LEGS];
    unsigned n; /* 0: the option was not given */
} leg_values;

struct rtp_send_session {
    rtp_send_session_config cfg;
    rtp_clip clip; /* a .jxs file's, or */
    int clip_open;
    rtp_frame_source feed;  /* the caller's source (live), whose first codestream */
    rtp_source_frame first; /* was read at open and goes first */
    int first_pending;
    uint64_t handed;  /* codestreams the source handed out */
    xs_header header; /* the first codestream's picture header */
    size_t max_bytes; /* the largest codestream (the clip's, or the source's) */
    unsigned legs;
    leg_values to, pcap, source, iface;
    rtp_addr dest[LEGS], src[LEGS];
    rtp_sender_config sc;
    rtp_udp *sock[LEGS];
    rtp_pcap_writer *pw[LEGS];
    rtp_sender *snd;
};

static xsf_status fail(rtp_send_failure *f, const char *subject, int usage, xsf_status st)
{
    f->subject = subject;
    f->usage = usage;
    return st;
}

/* The stream's description: SDP values as given, or (for the boxes) with their defaults. */
static rtp_stream_desc stream_desc(const rtp_send_session *s, int defaults)
{
    const rtp_send_session_config *c = &s->cfg;
    const rtp_stream_desc d = {.rate_num = c->rate_num,
                               .rate_den = c->rate_den,
                               .interlaced = c->interlaced,
                               .max_codestream_bytes = s->max_bytes,
                               .sampling = c->sampling,
                               .colorimetry =
                                   c->colorimetry || !defaults ? c->colorimetry : "BT709",
                               .tcs = c->tcs || !defaults ? c->tcs : "SDR",
                               .range = c->range || !defaults ? c->range : "NARROW"};
    return d;
}

/* The sender's configuration (the stream is the clip's). */
static void sender_config(rtp_send_session *s)
{
    const rtp_send_session_config *c = &s->cfg;
    rtp_sender_config *sc = &s->sc;
    memset(sc, 0, sizeof *sc);
    rtp_packetizer_config *pc = &sc->packetizer;
    pc->mode = c->mode;
    pc->packet_bytes = c->packet_bytes;
    pc->payload_type = (uint8_t)c->payload_type;
    pc->ssrc = c->ssrc_given ? c->ssrc : rtp_random32();
    pc->first_seq = c->seq_given ? c->first_seq : (uint16_t)rtp_random32();
    pc->boxes = c->boxes;
    const rtp_stream_desc d = stream_desc(s, 1);
    rtp_jxs_boxes_for_stream(&pc->box_template, &s->header, &d);
    sc->pacing = c->pacing;
    sc->burst = c->burst;
    sc->rate_num = c->rate_num;
    sc->rate_den = c->rate_den;
    sc->interlaced = c->interlaced;
    sc->first_timestamp = rtp_random32();
    sc->tai = !c->free_clock;
    /* ST 2110-21: a frame's packets from TVD, its instant + TRO_DEFAULT (the receiver
     * model's first read; rtp/README.md), so that a narrow receiver's buffer holds no more
     * than a burst. */
    sc->troffset_ns = rtp_tr21_tro_default_ns(s->header.hf * (c->interlaced ? 2u : 1u),
                                              c->interlaced, c->rate_num, c->rate_den);
    sc->impaired = c->impaired;
    sc->impair = c->impair;
    if (s->legs > 1) { /* each leg its own: the second's seed the next, the cut on it alone */
        sc->impair2 = c->impair;
        sc->impair2.seed = c->impair.seed + 1;
        sc->impair.cut_segments = 0;
        sc->impair_exclusive = c->impair_exclusive;
    }
    sc->stop = c->stop;
    sc->stop_ctx = c->stop_ctx;
    sc->on_segment = c->on_segment;
    sc->ctx = c->ctx;
}

/* Splits an option's value at its comma into copies: one or two legs. */
static xsf_status split_legs(const char *text, const char *option, leg_values *lv,
                             rtp_send_failure *f)
{
    if (!text)
        return XSF_OK;
    const char *comma = strchr(text, ',');
    if (comma && strchr(comma + 1, ',')) {
        xsf_error_set(&f->err, XSF_ERR_ARG, "'%s': at most %d legs, joined by a comma", text, LEGS);
        return fail(f, option, 1, XSF_ERR_ARG);
    }
    const size_t n0 = comma ? (size_t)(comma - text) : strlen(text);
    lv->v[0] = strndup(text, n0);
    lv->v[1] = comma ? strdup(comma + 1) : NULL;
    lv->n = comma ? 2 : 1;
    if (!lv->v[0] || (comma && !lv->v[1])) {
        xsf_error_set(&f->err, XSF_ERR_NOMEM, "out of memory");
        return fail(f, option, 0, XSF_ERR_NOMEM);
    }
    if (!*lv->v[0] || (comma && !*lv->v[1])) {
        xsf_error_set(&f->err, XSF_ERR_ARG, "'%s': an empty leg", text);
        return fail(f, option, 1, XSF_ERR_ARG);
    }
    return XSF_OK;
}

static void free_legs(leg_values *lv)
{
    for (unsigned i = 0; i < LEGS; i++)
        free(lv->v[i]);
}

/* Leg i's value of an option: its own, or the one value given for every leg; NULL. */
static const char *leg_value(const leg_values *lv, unsigned i)
{
    return lv->n == 0 ? NULL : lv->v[i < lv->n ? i : 0];
}

/* How many legs: as many as --to or --pcap name, the two agreeing; --source and --iface
 * name one for all or one each. */
static xsf_status count_legs(rtp_send_session *s, rtp_send_failure *f)
{
    const rtp_send_session_config *c = &s->cfg;
    xsf_status st;
    if ((st = split_legs(c->to, "--to", &s->to, f)) != XSF_OK ||
        (st = split_legs(c->pcap, "--pcap", &s->pcap, f)) != XSF_OK ||
        (st = split_legs(c->source, "--source", &s->source, f)) != XSF_OK ||
        (st = split_legs(c->iface, "--iface", &s->iface, f)) != XSF_OK)
        return st;
    s->legs = s->to.n > s->pcap.n ? s->to.n : s->pcap.n;
    if (!s->legs)
        s->legs = 1;
    if (s->to.n && s->pcap.n && s->to.n != s->pcap.n) {
        xsf_error_set(&f->err, XSF_ERR_ARG, "%u capture files for %u destinations (--to)",
                      s->pcap.n, s->to.n);
        return fail(f, "--pcap", 1, XSF_ERR_ARG);
    }
    const leg_values *other[] = {&s->source, &s->iface};
    static const char *const name[] = {"--source", "--iface"};
    for (int k = 0; k < 2; k++)
        if (other[k]->n > s->legs) {
            xsf_error_set(&f->err, XSF_ERR_ARG, "%u values for %u leg%s", other[k]->n, s->legs,
                          s->legs == 1 ? "" : "s");
            return fail(f, name[k], 1, XSF_ERR_ARG);
        }
    return XSF_OK;
}

/* The destinations and the sender's addresses, with their defaults. */
static xsf_status addresses(rtp_send_session *s, rtp_send_failure *f)
{
    xsf_status st = count_legs(s, f);
    if (st != XSF_OK)
        return st;
    for (unsigned i = 0; i < s->legs; i++) {
        const char *to = leg_value(&s->to, i), *source = leg_value(&s->source, i);
        if (to && (st = rtp_addr_parse(to, 1, &s->dest[i], &f->err)) != XSF_OK)
            return fail(f, "--to", 1, st);
        if (!to)
            rtp_addr_parse(i ? RTP_SEND_DEFAULT_DEST2 : RTP_SEND_DEFAULT_DEST, 1, &s->dest[i],
                           &f->err);
        if (source && (st = rtp_addr_parse(source, 0, &s->src[i], &f->err)) != XSF_OK)
            return fail(f, "--source", 1, st);
        if (!source)
            rtp_addr_parse(s->dest[i].family == AF_INET6 ? RTP_SEND_DEFAULT_SOURCE6
                                                         : RTP_SEND_DEFAULT_SOURCE4,
                           0, &s->src[i], &f->err);
        s->src[i].port = RTP_SEND_SOURCE_PORT;
    }
    return XSF_OK;
}

static xsf_status write_sdp(const rtp_send_session *s, rtp_send_failure *f)
{
    const rtp_send_session_config *c = &s->cfg;
    const rtp_stream_desc d = stream_desc(s, 0);
    rtp_sdp sdp[LEGS];
    for (unsigned i = 0; i < s->legs; i++) {
        const rtp_sdp_route route = {.dest = s->dest[i],
                                     .origin = s->src[i],
                                     .source_filter = c->source != NULL,
                                     .ttl = c->ttl};
        rtp_sdp_for_stream(&sdp[i], &s->header, &d, &s->sc.packetizer, c->pacing, &route);
        if (!c->free_clock) /* ST 2110-10: the timestamps' clock */
            snprintf(sdp[i].ts_refclk, sizeof sdp[i].ts_refclk, "%s",
                     c->refclk ? c->refclk : RTP_SEND_DEFAULT_REFCLK);
    }
    char text[8192];
    rtp_sdp_write_legs(sdp, s->legs, text, sizeof text);
    FILE *file = fopen(c->sdp, "w");
    const int bad = !file || fputs(text, file) == EOF;
    if ((file && fclose(file)) || bad) {
        xsf_error_set(&f->err, XSF_ERR_IO, "cannot write the SDP file");
        return fail(f, c->sdp, 0, XSF_ERR_IO);
    }
    return XSF_OK;
}

/* A session of `cfg` (copied), nothing open yet; NULL when out of memory. */
static rtp_send_session *session_new(const rtp_send_session_config *cfg, rtp_send_failure *f)
{
    memset(f, 0, sizeof *f);
    rtp_send_session *s = calloc(1, sizeof *s);
    if (!s) {
        xsf_error_set(&f->err, XSF_ERR_NOMEM, "out of memory");
        fail(f, cfg->in, 0, XSF_ERR_NOMEM);
        return NULL;
    }
    s->cfg = *cfg;
    return s;
}

/* Once the stream's first picture header is known: addresses, configuration, SDP file. */
static xsf_status session_setup(rtp_send_session **out, rtp_send_session *s, rtp_send_failure *f)
{
    xsf_status st = addresses(s, f);
    sender_config(s);
    if (st == XSF_OK && s->cfg.sdp)
        st = write_sdp(s, f);
    if (st != XSF_OK) {
        rtp_send_session_close(s);
        return st;
    }
    *out = s;
    return XSF_OK;
}

xsf_status rtp_send_session_open(rtp_send_session **out, const rtp_send_session_config *cfg,
                                 const uint8_t *data, size_t len, rtp_send_failure *f)
{
    *out = NULL;
    rtp_send_session *s = session_new(cfg, f);
    if (!s)
        return XSF_ERR_NOMEM;
    xsf_status st = rtp_clip_open(&s->clip, data, len, &f->err);
    if (st != XSF_OK) {
        free(s);
        return fail(f, cfg->in, 0, st);
    }
    s->clip_open = 1;
    s->header = s->clip.first;
    s->max_bytes = s->clip.max_bytes;
    return session_setup(out, s, f);
}

xsf_status rtp_send_session_open_source(rtp_send_session **out, const rtp_send_session_config *cfg,
                                        const rtp_frame_source *src, rtp_send_failure *f)
{
    *out = NULL;
    rtp_send_session *s = session_new(cfg, f);
    if (!s)
        return XSF_ERR_NOMEM;
    s->feed = *src;
    xsf_error e;
    xsf_error_clear(&e);
    xsf_status st = src->next(src->ctx, &s->first, &f->err);
    if (st == XSF_OK && !s->first.cs)
        st = xsf_error_set(&f->err, XSF_ERR_INVALID, "no codestream to send");
    /* The first codestream's header describes the stream (SDP, boxes): it must be one
     * whole JPEG XS codestream. */
    size_t n = 0;
    if (st == XSF_OK &&
        (st = xs_jxs_next(s->first.cs, s->first.len, 0, &n, &s->header, &e)) == XSF_OK &&
        n != s->first.len)
        st = xsf_error_set(&e, XSF_ERR_INVALID, "%zu bytes after the codestream's end",
                           s->first.len - n);
    if (st != XSF_OK && e.msg[0])
        xsf_error_set(&f->err, st, "codestream %zu: %s", s->first.index, e.msg);
    if (st != XSF_OK) {
        free(s);
        return fail(f, cfg->in, 0, st);
    }
    s->first_pending = 1;
    s->handed = 1;
    s->max_bytes = src->max_bytes > s->first.len ? src->max_bytes : s->first.len;
    return session_setup(out, s, f);
}

/* The session's source for the sender: the first codestream read at open, then the
 * caller's. */
static xsf_status session_next(void *ctx, rtp_source_frame *f, xsf_error *err)
{
    rtp_send_session *s = ctx;
    if (s->first_pending) {
        s->first_pending = 0;
        *f = s->first;
        return XSF_OK;
    }
    const xsf_status st = s->feed.next(s->feed.ctx, f, err);
    s->handed += st == XSF_OK && f->cs;
    return st;
}

/* What a failure of leg i's output names: the option's value as given with one leg,
 * the leg's with two. */
static const char *leg_subject(const rtp_send_session *s, const leg_values *lv, const char *given,
                               unsigned i)
{
    return s->legs > 1 && lv->n > 1 ? lv->v[i] : given;
}

/* Each leg's socket to send to (`to`), or its capture file. */
static xsf_status open_output(rtp_send_session *s, rtp_send_failure *f)
{
    const rtp_send_session_config *c = &s->cfg;
    xsf_status st;
    for (unsigned i = 0; i < s->legs; i++) {
        if (c->to && !c->pcap) {
            rtp_udp_config uc;
            memset(&uc, 0, sizeof uc);
            uc.ttl = c->ttl;
            uc.gso_segments = c->no_gso ? 0 : RTP_UDP_GSO_MAX; /* bursts are bounded by burst */
            if (c->source) {                                   /* send from that address */
                uc.has_source = 1;
                uc.source = s->src[i];
            }
            const char *iface = leg_value(&s->iface, i);
            if (iface)
                snprintf(uc.iface, sizeof uc.iface, "%s", iface);
            if ((st = rtp_udp_open_sender(&s->sock[i], &s->dest[i], &uc, &f->err)) != XSF_OK)
                return fail(f, leg_subject(s, &s->to, c->to, i), 0, st);
        } else if ((st = rtp_pcap_writer_open(&s->pw[i], s->pcap.v[i], &f->err)) != XSF_OK) {
            return fail(f, leg_subject(s, &s->pcap, c->pcap, i), 0, st);
        }
    }
    return XSF_OK;
}

/* Closes the capture files; the first error (named) where the run had none. After a
 * failure the files opened are removed (nothing half-written). */
static xsf_status close_captures(rtp_send_session *s, xsf_status st, rtp_send_failure *f)
{
    int opened[LEGS];
    for (unsigned i = 0; i < s->legs; i++) {
        opened[i] = s->pw[i] != NULL;
        if (!s->pw[i])
            continue;
        xsf_error err;
        xsf_error_clear(&err);
        const xsf_status cst = rtp_pcap_writer_close(s->pw[i], &err);
        s->pw[i] = NULL;
        if (cst != XSF_OK && st == XSF_OK) {
            f->err = err;
            st = fail(f, leg_subject(s, &s->pcap, s->cfg.pcap, i), 0, cst);
        }
    }
    for (unsigned i = 0; i < s->legs && st != XSF_OK; i++)
        if (opened[i])
            xsf_output_remove(s->pcap.v[i]);
    return st;
}

/* The clip `loops` times, or the source's codestreams. */
static xsf_status send_stream(rtp_send_session *s, uint64_t loops, xsf_error *err)
{
    if (s->clip_open)
        return rtp_sender_send_clip(s->snd, &s->clip, loops, err);
    const rtp_frame_source src = {.next = session_next, .ctx = s};
    return rtp_sender_send_source(s->snd, &src, err);
}

xsf_status rtp_send_session_run(rtp_send_session *s, uint64_t loops, rtp_send_failure *f)
{
    memset(f, 0, sizeof *f);
    const rtp_send_session_config *c = &s->cfg;
    xsf_status st = open_output(s, f);
    if (st != XSF_OK)
        return close_captures(s, st, f);
    s->sc.sock = s->sock[0];
    s->sc.pcap = s->pw[0];
    s->sc.pcap_src = s->src[0];
    s->sc.pcap_dst = s->dest[0];
    if (s->legs > 1) {
        s->sc.sock2 = s->sock[1];
        s->sc.pcap2 = s->pw[1];
        s->sc.pcap2_src = s->src[1];
        s->sc.pcap2_dst = s->dest[1];
    }
    if ((st = rtp_sender_create(&s->snd, &s->sc, &f->err)) != XSF_OK) {
        fail(f, c->impaired ? "--loss" : c->in, 1, st);
    } else if ((st = send_stream(s, loops, &f->err)) != XSF_OK) {
        fail(f,
             !rtp_sender_get_stats(s->snd)->output_failed ? c->in
             : c->pcap                                    ? c->pcap
                                                          : c->to,
             0, st);
    }
    return close_captures(s, st, f);
}

void rtp_send_session_report(const rtp_send_session *s, rtp_send_report *r)
{
    memset(r, 0, sizeof *r);
    if (s->snd) {
        r->stats = *rtp_sender_get_stats(s->snd);
        r->impair = rtp_sender_impair_counts(s->snd);
        r->impair2 = rtp_sender_impair_leg_counts(s->snd, 1);
    }
    r->codestreams = s->clip_open ? s->clip.count : (size_t)s->handed;
    r->dest = s->dest[0];
    r->source = s->src[0];
    r->legs = s->legs;
    if (s->legs > 1) {
        r->dest2 = s->dest[1];
        r->source2 = s->src[1];
    }
    /* With TAI timing the first timestamp is the first frame's on the grid, known once
     * the stream started. */
    r->first_timestamp = s->snd ? r->stats.first_timestamp : s->sc.first_timestamp;
    r->socket = s->sock[0] != NULL;
    if (s->sock[0])
        r->gso = rtp_udp_gso(s->sock[0], &r->gso_refused);
}

/* An impairer's counts as JSON members (without braces). */
static int impair_counts_json(const rtp_impair_counts *c, char *out, size_t cap)
{
    return snprintf(out, cap,
                    "\"packets\": %llu, \"datagrams\": %llu, \"lost\": %llu, \"reordered\": %llu, "
                    "\"duplicated\": %llu, \"segments_with_loss\": %llu, \"bursts\": %llu, "
                    "\"segments_cut\": %llu, \"packets_cut\": %llu, \"kept\": %llu",
                    (unsigned long long)c->packets, (unsigned long long)c->datagrams,
                    (unsigned long long)c->lost, (unsigned long long)c->reordered,
                    (unsigned long long)c->duplicated, (unsigned long long)c->segments_with_loss,
                    (unsigned long long)c->bursts, (unsigned long long)c->cut_segments,
                    (unsigned long long)c->cut_packets, (unsigned long long)c->kept);
}

int rtp_send_session_stats_json(const rtp_send_session *s, int complete, char *out, size_t cap)
{
    rtp_send_report r;
    rtp_send_session_report(s, &r);
    rtp_impair_counts none;
    memset(&none, 0, sizeof none);
    const rtp_impair_config *im = &s->cfg.impair;
    const uint64_t segments = r.stats.segments;
    char legs[96] = "", own[RTP_SEND_SOURCE_JSON_MAX] = "", counts[2][400];
    for (unsigned k = 0; k < 2; k++) {
        const rtp_impair_counts *c = s->snd ? rtp_sender_impair_leg_counts(s->snd, k) : NULL;
        impair_counts_json(c ? c : &none, counts[k], sizeof counts[k]);
    }
    if (s->legs > 1)
        snprintf(legs, sizeof legs, ", \"legs\": %u, \"leg_errors\": [%llu, %llu]", s->legs,
                 (unsigned long long)r.stats.leg_errors[0],
                 (unsigned long long)r.stats.leg_errors[1]);
    if (!s->clip_open && s->feed.stats_json) { /* the source's own figures (an encoder's) */
        own[0] = ',';
        own[1] = ' ';
        if (s->feed.stats_json(s->feed.ctx, own + 2, sizeof own - 2) <= 0)
            own[0] = '\0';
    }
    /* The impairment: its settings, the first leg's counts, what was lost on every leg, and
     * with two legs impaired each leg's counts. */
    const int each = r.impair2 != NULL;
    return snprintf(out, cap,
                    "{\"segments\": %llu, \"frames\": %llu, \"datagrams\": %llu, \"bytes\": %llu, "
                    "\"first_timestamp\": %lu, "
                    "\"complete\": %s, \"impairment\": {\"loss\": %g, \"reorder\": %g, "
                    "\"duplicate\": %g, \"seed\": %llu, \"burst_max\": %u, \"cut_from\": %llu, "
                    "\"cut_segments\": %llu, \"exclusive\": %s, %s, \"lost_all_legs\": %llu, "
                    "\"segments_lost_all_legs\": %llu%s%s%s%s%s}%s%s}\n",
                    (unsigned long long)segments,
                    (unsigned long long)(s->cfg.interlaced ? segments / 2 : segments),
                    (unsigned long long)r.stats.packets, (unsigned long long)r.stats.bytes,
                    (unsigned long)r.first_timestamp, complete ? "true" : "false", im->loss,
                    im->reorder, im->duplicate, (unsigned long long)im->seed, im->burst_max,
                    (unsigned long long)im->cut_from, (unsigned long long)im->cut_segments,
                    s->cfg.impair_exclusive && s->legs > 1 ? "true" : "false", counts[0],
                    (unsigned long long)r.stats.lost_all_legs,
                    (unsigned long long)r.stats.segments_lost_all_legs, each ? ", \"leg\": [{" : "",
                    each ? counts[0] : "", each ? "}, {" : "", each ? counts[1] : "",
                    each ? "}]" : "", legs, own);
}

xsf_status rtp_send_session_write_stats(const rtp_send_session *s, const char *path, int complete,
                                        xsf_error *err)
{
    char text[2400 + RTP_SEND_SOURCE_JSON_MAX];
    rtp_send_session_stats_json(s, complete, text, sizeof text);
    FILE *f = fopen(path, "w");
    if (!f)
        return xsf_error_set(err, XSF_ERR_IO, "cannot create the file");
    fputs(text, f);
    if (fclose(f))
        return xsf_error_set(err, XSF_ERR_IO, "write failed");
    return XSF_OK;
}

void rtp_send_session_close(rtp_send_session *s)
{
    if (!s)
        return;
    rtp_sender_destroy(s->snd);
    for (unsigned i = 0; i < LEGS; i++) {
        if (s->pw[i]) {
            xsf_error err;
            rtp_pcap_writer_close(s->pw[i], &err);
        }
        rtp_udp_close(s->sock[i]);
    }
    leg_values *lv[] = {&s->to, &s->pcap, &s->source, &s->iface};
    for (size_t k = 0; k < sizeof lv / sizeof *lv; k++)
        free_legs(lv[k]);
    if (s->clip_open)
        rtp_clip_free(&s->clip);
    free(s);
}
