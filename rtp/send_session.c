/* A send session (rtp_send_session.h): a clip, its addresses, configuration
 * and SDP, then the output and the paced stream, and the --stats-json text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rtp.h"
#include "xsf_output.h"

struct rtp_send_session {
    rtp_send_session_config cfg;
    rtp_clip clip;
    int clip_open;
    rtp_addr dest, src;
    rtp_sender_config sc;
    rtp_udp *sock;
    rtp_pcap_writer *pw;
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
                               .max_codestream_bytes = s->clip.max_bytes,
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
    rtp_jxs_boxes_for_stream(&pc->box_template, &s->clip.first, &d);
    sc->pacing = c->pacing;
    sc->burst = c->burst;
    sc->rate_num = c->rate_num;
    sc->rate_den = c->rate_den;
    sc->interlaced = c->interlaced;
    sc->first_timestamp = rtp_random32();
    sc->impaired = c->impaired;
    sc->impair = c->impair;
    sc->stop = c->stop;
    sc->stop_ctx = c->stop_ctx;
    sc->on_segment = c->on_segment;
    sc->ctx = c->ctx;
}

/* The destination and the sender's address, with their defaults. */
static xsf_status addresses(rtp_send_session *s, rtp_send_failure *f)
{
    const rtp_send_session_config *c = &s->cfg;
    xsf_status st;
    if (c->to && (st = rtp_addr_parse(c->to, 1, &s->dest, &f->err)) != XSF_OK)
        return fail(f, "--to", 1, st);
    if (!c->to)
        rtp_addr_parse(RTP_SEND_DEFAULT_DEST, 1, &s->dest, &f->err);
    if (c->source && (st = rtp_addr_parse(c->source, 0, &s->src, &f->err)) != XSF_OK)
        return fail(f, "--source", 1, st);
    if (!c->source)
        rtp_addr_parse(s->dest.family == AF_INET6 ? RTP_SEND_DEFAULT_SOURCE6
                                                  : RTP_SEND_DEFAULT_SOURCE4,
                       0, &s->src, &f->err);
    s->src.port = RTP_SEND_SOURCE_PORT;
    return XSF_OK;
}

static xsf_status write_sdp(const rtp_send_session *s, rtp_send_failure *f)
{
    const rtp_send_session_config *c = &s->cfg;
    const rtp_stream_desc d = stream_desc(s, 0);
    const rtp_sdp_route route = {
        .dest = s->dest, .origin = s->src, .source_filter = c->source != NULL, .ttl = c->ttl};
    rtp_sdp sdp;
    rtp_sdp_for_stream(&sdp, &s->clip.first, &d, &s->sc.packetizer, c->pacing, &route);
    char text[4096];
    rtp_sdp_write(&sdp, text, sizeof text);
    FILE *file = fopen(c->sdp, "w");
    const int bad = !file || fputs(text, file) == EOF;
    if ((file && fclose(file)) || bad) {
        xsf_error_set(&f->err, XSF_ERR_IO, "cannot write the SDP file");
        return fail(f, c->sdp, 0, XSF_ERR_IO);
    }
    return XSF_OK;
}

xsf_status rtp_send_session_open(rtp_send_session **out, const rtp_send_session_config *cfg,
                                 const uint8_t *data, size_t len, rtp_send_failure *f)
{
    *out = NULL;
    memset(f, 0, sizeof *f);
    rtp_send_session *s = calloc(1, sizeof *s);
    if (!s) {
        xsf_error_set(&f->err, XSF_ERR_NOMEM, "out of memory");
        return fail(f, cfg->in, 0, XSF_ERR_NOMEM);
    }
    s->cfg = *cfg;
    xsf_status st = rtp_clip_open(&s->clip, data, len, &f->err);
    if (st != XSF_OK) {
        free(s);
        return fail(f, cfg->in, 0, st);
    }
    s->clip_open = 1;
    st = addresses(s, f);
    sender_config(s);
    if (st == XSF_OK && cfg->sdp)
        st = write_sdp(s, f);
    if (st != XSF_OK) {
        rtp_send_session_close(s);
        return st;
    }
    *out = s;
    return XSF_OK;
}

/* The socket to send to (`to`), or the capture file. */
static xsf_status open_output(rtp_send_session *s, rtp_send_failure *f)
{
    const rtp_send_session_config *c = &s->cfg;
    xsf_status st;
    if (c->to && !c->pcap) {
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        uc.ttl = c->ttl;
        uc.gso_segments = c->no_gso ? 0 : RTP_UDP_GSO_MAX; /* bursts are bounded by burst */
        if (c->source) {                                   /* send from that address */
            uc.has_source = 1;
            uc.source = s->src;
        }
        if (c->iface)
            snprintf(uc.iface, sizeof uc.iface, "%s", c->iface);
        if ((st = rtp_udp_open_sender(&s->sock, &s->dest, &uc, &f->err)) != XSF_OK)
            return fail(f, c->to, 0, st);
    } else if ((st = rtp_pcap_writer_open(&s->pw, c->pcap, &f->err)) != XSF_OK) {
        return fail(f, c->pcap, 0, st);
    }
    return XSF_OK;
}

xsf_status rtp_send_session_run(rtp_send_session *s, uint64_t loops, rtp_send_failure *f)
{
    memset(f, 0, sizeof *f);
    const rtp_send_session_config *c = &s->cfg;
    xsf_status st = open_output(s, f);
    if (st != XSF_OK)
        return st;
    s->sc.sock = s->sock;
    s->sc.pcap = s->pw;
    s->sc.pcap_src = s->src;
    s->sc.pcap_dst = s->dest;
    if ((st = rtp_sender_create(&s->snd, &s->sc, &f->err)) != XSF_OK) {
        fail(f, c->impaired ? "--loss" : c->in, 1, st);
    } else if ((st = rtp_sender_send_clip(s->snd, &s->clip, loops, &f->err)) != XSF_OK) {
        fail(f,
             !rtp_sender_get_stats(s->snd)->output_failed ? c->in
             : c->pcap                                    ? c->pcap
                                                          : c->to,
             0, st);
    }
    if (s->pw) {
        xsf_error err;
        xsf_error_clear(&err);
        const xsf_status cst = rtp_pcap_writer_close(s->pw, &err);
        s->pw = NULL;
        if (cst != XSF_OK && st == XSF_OK) {
            f->err = err;
            st = fail(f, c->pcap, 0, cst);
        }
        if (st != XSF_OK)
            xsf_output_remove(c->pcap);
    }
    return st;
}

void rtp_send_session_report(const rtp_send_session *s, rtp_send_report *r)
{
    memset(r, 0, sizeof *r);
    if (s->snd) {
        r->stats = *rtp_sender_get_stats(s->snd);
        r->impair = rtp_sender_impair_counts(s->snd);
    }
    r->codestreams = s->clip.count;
    r->dest = s->dest;
    r->source = s->src;
    r->first_timestamp = s->sc.first_timestamp;
    r->socket = s->sock != NULL;
    if (s->sock)
        r->gso = rtp_udp_gso(s->sock, &r->gso_refused);
}

int rtp_send_session_stats_json(const rtp_send_session *s, int complete, char *out, size_t cap)
{
    rtp_send_report r;
    rtp_send_session_report(s, &r);
    rtp_impair_counts none;
    memset(&none, 0, sizeof none);
    const rtp_impair_counts *c = r.impair ? r.impair : &none;
    const rtp_impair_config *im = &s->cfg.impair;
    const uint64_t segments = r.stats.segments;
    return snprintf(out, cap,
                    "{\"segments\": %llu, \"frames\": %llu, \"datagrams\": %llu, \"bytes\": %llu, "
                    "\"first_timestamp\": %lu, "
                    "\"complete\": %s, \"impairment\": {\"loss\": %g, \"reorder\": %g, "
                    "\"duplicate\": %g, \"seed\": %llu, \"packets\": %llu, \"lost\": %llu, "
                    "\"reordered\": %llu, \"duplicated\": %llu, \"segments_with_loss\": %llu}}\n",
                    (unsigned long long)segments,
                    (unsigned long long)(s->cfg.interlaced ? segments / 2 : segments),
                    (unsigned long long)r.stats.packets, (unsigned long long)r.stats.bytes,
                    (unsigned long)r.first_timestamp, complete ? "true" : "false", im->loss,
                    im->reorder, im->duplicate, (unsigned long long)im->seed,
                    (unsigned long long)c->packets, (unsigned long long)c->lost,
                    (unsigned long long)c->reordered, (unsigned long long)c->duplicated,
                    (unsigned long long)c->segments_with_loss);
}

xsf_status rtp_send_session_write_stats(const rtp_send_session *s, const char *path, int complete,
                                        xsf_error *err)
{
    char text[1024];
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
    if (s->pw) {
        xsf_error err;
        rtp_pcap_writer_close(s->pw, &err);
    }
    rtp_udp_close(s->sock);
    if (s->clip_open)
        rtp_clip_free(&s->clip);
    free(s);
}
