/* The decoder service behind an NMOS node: an IS-05 activation of a
 * receiver becomes an RTP source feeding a stream of a running pipeline;
 * another activation retargets it (old stream stopped and removed, new one
 * started), a deactivation stops it. Streams of other receivers go on
 * untouched: streams are added and removed one by one (pl_stream_remove). */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "nmos.h"
#include "xsf_clock.h"

typedef struct svc_stream {
    int running;
    pl_rtp_source *src;
    int sid;
    pl_writer *w;
    nmos_stream_info info;
} svc_stream;

typedef struct svc_sender {
    nmos_service *owner;
    uint8_t *clip;
    size_t len;
    pthread_t thread;
    int running;
    atomic_int stop;       /* asks the sending thread to end after its pass */
    rtp_udp *sock, *sock2; /* the legs enabled in IS-05, in its order (sock2: a second) */
    rtp_clip walked;       /* the clip's codestreams */
    rtp_sender_config cfg;
    nmos_sender_info info; /* frames and packets: written by the thread under the service's lock */
} svc_sender;

struct nmos_service {
    nmos_service_config cfg;
    svc_sender tx[NMOS_MAX_SENDERS];
    char output[512];
    pl_write_kind kind;
    imgio_format format;
    int null_output;
    pthread_mutex_t mu;
    svc_stream s[NMOS_MAX_RECEIVERS];
};

xsf_status nmos_service_create(nmos_service **out, const nmos_service_config *cfg, xsf_error *err)
{
    *out = NULL;
    if (!cfg->pipeline)
        return xsf_error_set(err, XSF_ERR_ARG, "the service needs a pipeline");
    nmos_service *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    s->cfg = *cfg;
    s->null_output = !cfg->output || !strcmp(cfg->output, "null");
    if (!s->null_output) {
        const char *o = cfg->output;
        const size_t len = strlen(o);
        const char *pct = strchr(o, '%');
        if (len >= sizeof s->output || (pct && (pct[1] != 'u' || strchr(pct + 2, '%')))) {
            free(s);
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "output '%s': expected a path with at most one %%u", o);
        }
        const char *ext = len >= 4 ? o + len - 4 : "";
        if (!strcmp(ext, ".jxs")) {
            s->kind = PL_WRITE_JXS;
        } else if (!strcmp(ext, ".yuv") || !strcmp(ext, ".y4m")) {
            s->kind = PL_WRITE_PICTURE;
            s->format = !strcmp(ext, ".yuv") ? IMGIO_FORMAT_YUV : IMGIO_FORMAT_Y4M;
        } else {
            free(s);
            return xsf_error_set(err, XSF_ERR_ARG, "output '%s': expected .jxs, .yuv, .y4m or null",
                                 o);
        }
        snprintf(s->output, sizeof s->output, "%s", o);
    }
    if (!s->null_output && s->kind == PL_WRITE_JXS && cfg->pix_fmt != XSF_PLANAR_U16) {
        free(s);
        return xsf_error_set(err, XSF_ERR_ARG,
                             "pixel format %s: .jxs output takes the codestreams (nothing "
                             "decoded)",
                             xsf_container_name(cfg->pix_fmt));
    }
    pthread_mutex_init(&s->mu, NULL);
    for (unsigned i = 0; i < NMOS_MAX_SENDERS; i++)
        s->tx[i].owner = s;
    *out = s;
    return XSF_OK;
}

/* Stops a receiver's stream and keeps its figures (caller holds mu). */
static void stop(nmos_service *s, svc_stream *st)
{
    if (!st->running)
        return;
    xsf_error err;
    xsf_error_clear(&err);
    pl_rtp_source_stop(st->src);
    pl_rtp_source_join(st->src, &err);
    rtp_stats r;
    uint64_t kd;
    pl_rtp_source_stats(st->src, &r, &kd);
    /* The source first: its depacketizer holds a frame until destroyed. */
    pl_rtp_source_destroy(st->src);
    st->src = NULL;
    pl_stream_stats ps;
    pl_stream_remove(s->cfg.pipeline, st->sid, &ps); /* every frame delivered and given back */
    st->info.frames = ps.delivered;
    st->info.packets = r.packets;
    if (st->w) {
        if (s->cfg.md5)
            pl_writer_md5(st->w, st->info.md5);
        pl_writer_close(st->w, &err);
        st->w = NULL;
    }
    st->running = 0;
    st->info.running = 0;
}

/* One enabled leg's socket. */
static xsf_status leg_socket(const nmos_rx_leg *l, rtp_udp_config *u, xsf_error *err)
{
    if (!l->destination_port)
        return xsf_error_set(err, XSF_ERR_ARG, "no destination port");
    rtp_addr local;
    memset(&local, 0, sizeof local);
    if (l->multicast_ip[0]) {
        if (rtp_addr_parse(l->multicast_ip, 0, &local, err) != XSF_OK)
            return XSF_ERR_ARG;
        if (l->source_ip[0]) {
            if (rtp_addr_parse(l->source_ip, 0, &u->source, err) != XSF_OK)
                return XSF_ERR_ARG;
            u->has_source = 1;
        }
    } else {
        /* Unicast: the port on every local address of the interface's family. */
        rtp_addr itf;
        if (rtp_addr_parse(l->interface_ip, 0, &itf, err) != XSF_OK)
            return XSF_ERR_ARG;
        local.family = itf.family;
    }
    local.port = (uint16_t)l->destination_port;
    u->local = local;
    u->timestamps = 1;
    return XSF_OK;
}

/* The legs of an activation as the RTP source's input: the socket of each
 * enabled leg, in IS-05's order; two or more are merged (ST 2022-7, rtp_merge.h)
 * before frame assembly. *used: the first enabled leg (its SDP). */
static xsf_status legs_input(const nmos_activation *a, pl_rtp_config *rc, const nmos_rx_leg **used,
                             xsf_error *err)
{
    *used = NULL;
    unsigned n = 0;
    for (unsigned k = 0; k < NMOS_LEGS && n < RTP_LEGS_MAX; k++) {
        if (!a->leg[k].enable)
            continue;
        const xsf_status st = leg_socket(&a->leg[k], &rc->legs.leg[n].udp, err);
        if (st != XSF_OK)
            return st;
        if (!n)
            *used = &a->leg[k];
        n++;
    }
    if (!n)
        return xsf_error_set(err, XSF_ERR_ARG, "no leg enabled");
    rc->kind = PL_RTP_SOCKET;
    rc->udp = rc->legs.leg[0].udp;
    rc->legs.n = n >= 2 ? n : 0;
    return XSF_OK;
}

static xsf_status start(nmos_service *s, svc_stream *st, const nmos_activation *a, xsf_error *err)
{
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    const nmos_rx_leg *l = NULL;
    if (legs_input(a, &rc, &l, err) != XSF_OK)
        return err->status;
    /* The SDP's payload type, picture bound and interlace (the same setup as xsflow recv);
     * the transport parameters came with the activation. */
    rtp_receiver_options ro;
    rtp_receiver_options_init(&ro);
    if (s->cfg.reorder_packets)
        ro.reorder_packets = s->cfg.reorder_packets;
    if (s->cfg.reorder_ms)
        ro.reorder_ms = s->cfg.reorder_ms;
    rtp_receiver_setup rs;
    xsf_status stt = rtp_receiver_setup_from_sdp(l->has_sdp ? &l->parsed : NULL, &ro, &rs, err);
    if (stt != XSF_OK)
        return stt;
    rc.depacketizer = rs.depacketizer;
    rc.depacketizer.validate = !s->null_output && s->kind == PL_WRITE_JXS;
    if (rc.legs.n)
        rtp_receiver_cover_skew(&rc.depacketizer, &rc.legs.merge);
    rc.interlaced = rs.interlaced;
    stt = pl_rtp_source_open(&st->src, &rc, err);
    if (stt != XSF_OK)
        return stt;
    pl_sink sink = pl_null_sink(PL_PICTURE_HOST);
    if (!s->null_output || s->cfg.md5) {
        char path[600];
        snprintf(path, sizeof path, s->output[0] ? s->output : "null", a->receiver);
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.kind = s->null_output ? PL_WRITE_PICTURE : s->kind;
        wo.image.format = s->null_output ? IMGIO_FORMAT_YUV : s->format;
        wo.image.fps_num = l->has_sdp && l->parsed.rate_num ? l->parsed.rate_num : 25;
        wo.image.fps_den = l->has_sdp && l->parsed.rate_num ? l->parsed.rate_den : 1;
        wo.md5 = s->cfg.md5;
        stt = pl_writer_open(&st->w, s->null_output ? NULL : path, &wo, err);
        if (stt != XSF_OK) {
            pl_rtp_source_destroy(st->src);
            st->src = NULL;
            return stt;
        }
        sink = pl_writer_sink(st->w);
    }
    char name[96];
    rtp_addr_format(&rc.udp.local, 1, st->info.source, sizeof st->info.source);
    snprintf(name, sizeof name, "nmos receiver %u %s", a->receiver, st->info.source);
    pl_stream_config sc = {.name = name,
                           .codec = RTP_JXS_CODEC,
                           .backpressure = PL_DROP_OLDEST,
                           .max_frame_bytes = rs.max_frame_bytes,
                           .sink = sink,
                           .pix_fmt = s->cfg.pix_fmt};
    /* The picture request's colour: the SDP's (RFC 9134 7.1: colorimetry, RANGE). */
    if (l->has_sdp && (l->parsed.colorimetry[0] || l->parsed.range[0]))
        xsf_colour_from_sdp(&sc.pix_colour, l->parsed.colorimetry, l->parsed.range);
    stt = pl_stream_add(s->cfg.pipeline, &sc, &st->sid, err);
    if (stt == XSF_OK)
        stt = pl_rtp_source_start(st->src, s->cfg.pipeline, st->sid, err);
    if (stt != XSF_OK) {
        pl_rtp_source_destroy(st->src);
        st->src = NULL;
        if (st->w)
            pl_writer_close(st->w, err);
        st->w = NULL;
        return stt;
    }
    st->running = 1;
    st->info.running = 1;
    st->info.activations++;
    st->info.frames = st->info.packets = 0;
    st->info.md5[0] = 0;
    return XSF_OK;
}

xsf_status nmos_service_activate(void *service, const nmos_activation *a, xsf_error *err)
{
    nmos_service *s = service;
    if (a->receiver >= NMOS_MAX_RECEIVERS)
        return xsf_error_set(err, XSF_ERR_ARG, "receiver %u out of range", a->receiver);
    pthread_mutex_lock(&s->mu);
    svc_stream *st = &s->s[a->receiver];
    stop(s, st);
    xsf_status r = a->enable ? start(s, st, a, err) : XSF_OK;
    pthread_mutex_unlock(&s->mu);
    return r;
}

void nmos_service_stream(nmos_service *s, unsigned receiver, nmos_stream_info *info)
{
    memset(info, 0, sizeof *info);
    if (receiver >= NMOS_MAX_RECEIVERS)
        return;
    pthread_mutex_lock(&s->mu);
    svc_stream *st = &s->s[receiver];
    *info = st->info;
    if (st->running) {
        pl_stream_stats ps;
        pl_stream_stats_get(s->cfg.pipeline, st->sid, &ps);
        rtp_stats r;
        uint64_t kd;
        pl_rtp_source_stats(st->src, &r, &kd);
        info->frames = ps.delivered;
        info->packets = r.packets;
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- senders ---- */

xsf_status nmos_service_add_clip(nmos_service *s, unsigned sender, const uint8_t *clip, size_t len,
                                 xsf_error *err)
{
    if (sender >= NMOS_MAX_SENDERS)
        return xsf_error_set(err, XSF_ERR_ARG, "sender %u out of range", sender);
    if (!len)
        return xsf_error_set(err, XSF_ERR_ARG, "sender %u: an empty clip", sender);
    uint8_t *copy = malloc(len);
    if (!copy)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a %zu-byte clip", len);
    memcpy(copy, clip, len);
    rtp_clip walked;
    xsf_error e;
    xsf_error_clear(&e);
    if (rtp_clip_open(&walked, copy, len, &e) != XSF_OK) {
        free(copy);
        return xsf_error_set(err, XSF_ERR_INVALID, "sender %u: %s", sender, e.msg);
    }
    pthread_mutex_lock(&s->mu);
    svc_sender *t = &s->tx[sender];
    rtp_clip_free(&t->walked);
    free(t->clip);
    t->clip = copy;
    t->len = len;
    t->walked = walked;
    pthread_mutex_unlock(&s->mu);
    return XSF_OK;
}

static int stop_asked(void *ctx)
{
    const svc_sender *t = ctx;
    return atomic_load(&t->stop);
}

/* Passes of the clip until stopped: one sender, so sequence numbers, timestamps, F
 * counters and frame times run on from pass to pass. */
static void *sender_main(void *arg)
{
    svc_sender *t = arg;
    nmos_service *s = t->owner;
    rtp_sender *snd = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    t->cfg.stop = stop_asked;
    t->cfg.stop_ctx = t;
    if (rtp_sender_create(&snd, &t->cfg, &err) != XSF_OK)
        return NULL;
    uint64_t frames = 0, packets = 0;
    while (!t->stop) {
        if (rtp_sender_send_clip(snd, &t->walked, 1, &err) != XSF_OK)
            break;
        const rtp_sender_stats *st = rtp_sender_get_stats(snd);
        pthread_mutex_lock(&s->mu);
        t->info.frames += st->segments - frames;
        t->info.packets += st->packets - packets;
        pthread_mutex_unlock(&s->mu);
        frames = st->segments;
        packets = st->packets;
    }
    rtp_sender_destroy(snd);
    return NULL;
}

static void stop_sender(svc_sender *t)
{
    if (!t->running)
        return;
    t->stop = 1;
    pthread_join(t->thread, NULL);
    rtp_udp_close(t->sock);
    rtp_udp_close(t->sock2);
    t->sock = t->sock2 = NULL;
    t->running = 0;
    t->info.running = 0;
}

/* Where an activation sends: each enabled leg's destination in IS-05's order,
 * at most two (SMPTE ST 2022-7: the same packets on both, rtp_sender's sock2). */
static xsf_status leg_destinations(const nmos_sender_activation *a, rtp_addr to[2], unsigned *n,
                                   xsf_error *err)
{
    *n = 0;
    for (unsigned k = 0; k < a->legs && k < NMOS_LEGS && *n < 2; k++) {
        if (!a->leg[k].enable)
            continue;
        if (rtp_addr_parse(a->leg[k].destination_ip, 0, &to[*n], err) != XSF_OK)
            return XSF_ERR_ARG;
        to[*n].port = (uint16_t)a->leg[k].destination_port;
        ++*n;
    }
    if (*n == 0)
        return xsf_error_set(err, XSF_ERR_ARG, "sender %u: no leg enabled", a->sender);
    return XSF_OK;
}

xsf_status nmos_service_activate_sender(void *service, const nmos_sender_activation *a,
                                        xsf_error *err)
{
    nmos_service *s = service;
    if (a->sender >= NMOS_MAX_SENDERS)
        return xsf_error_set(err, XSF_ERR_ARG, "sender %u out of range", a->sender);
    pthread_mutex_lock(&s->mu);
    svc_sender *t = &s->tx[a->sender];
    pthread_mutex_unlock(&s->mu);
    stop_sender(t); /* not under the lock: the thread takes it */
    if (!a->enable)
        return XSF_OK;
    if (!t->clip)
        return xsf_error_set(err, XSF_ERR_ARG, "sender %u has nothing to send", a->sender);
    rtp_addr to[2];
    unsigned legs;
    if (leg_destinations(a, to, &legs, err) != XSF_OK)
        return err->status;
    rtp_udp_config uc;
    memset(&uc, 0, sizeof uc);
    xsf_status st = rtp_udp_open_sender(&t->sock, &to[0], &uc, err);
    if (st == XSF_OK && legs == 2 &&
        (st = rtp_udp_open_sender(&t->sock2, &to[1], &uc, err)) != XSF_OK) {
        rtp_udp_close(t->sock);
        t->sock = NULL;
    }
    if (st != XSF_OK)
        return st;
    memset(&t->cfg, 0, sizeof t->cfg);
    t->cfg.packetizer.payload_type =
        (uint8_t)(a->sdp && a->sdp->payload_type ? a->sdp->payload_type : 112);
    t->cfg.packetizer.ssrc = 0x58534e30u + a->sender; /* "XSN0" + index */
    t->cfg.packetizer.boxes = 1;
    t->cfg.pacing = RTP_PACING_FRAME; /* each frame's packets at once, at its time */
    t->cfg.tai = 1; /* timestamps on the TAI grid, as the SDP's a=ts-refclk and mediaclk say */
    t->cfg.rate_num = a->sdp && a->sdp->rate_num ? a->sdp->rate_num : 25;
    t->cfg.rate_den = a->sdp && a->sdp->rate_num ? a->sdp->rate_den : 1;
    const rtp_stream_desc d = {.rate_num = t->cfg.rate_num,
                               .rate_den = t->cfg.rate_den,
                               .max_codestream_bytes = t->walked.max_bytes};
    rtp_jxs_boxes_for_stream(&t->cfg.packetizer.box_template, &t->walked.first, &d);
    t->cfg.sock = t->sock;
    t->cfg.sock2 = t->sock2;
    t->stop = 0;
    pthread_mutex_lock(&s->mu);
    t->info.frames = t->info.packets = 0;
    t->info.activations++;
    rtp_addr_format(&to[0], 1, t->info.destination, sizeof t->info.destination);
    if (legs == 2) {
        const size_t used = strlen(t->info.destination);
        t->info.destination[used] = ',';
        rtp_addr_format(&to[1], 1, t->info.destination + used + 1,
                        sizeof t->info.destination - used - 1);
    }
    pthread_mutex_unlock(&s->mu);
    if (pthread_create(&t->thread, NULL, sender_main, t)) {
        rtp_udp_close(t->sock);
        rtp_udp_close(t->sock2);
        t->sock = t->sock2 = NULL;
        return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the sending thread");
    }
    t->running = 1;
    t->info.running = 1;
    return XSF_OK;
}

void nmos_service_sender(nmos_service *s, unsigned sender, nmos_sender_info *info)
{
    memset(info, 0, sizeof *info);
    if (sender >= NMOS_MAX_SENDERS)
        return;
    pthread_mutex_lock(&s->mu);
    *info = s->tx[sender].info;
    pthread_mutex_unlock(&s->mu);
}

void nmos_service_destroy(nmos_service *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < NMOS_MAX_SENDERS; i++) {
        stop_sender(&s->tx[i]);
        rtp_clip_free(&s->tx[i].walked);
        free(s->tx[i].clip);
    }
    pthread_mutex_lock(&s->mu);
    for (unsigned i = 0; i < NMOS_MAX_RECEIVERS; i++)
        stop(s, &s->s[i]);
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
