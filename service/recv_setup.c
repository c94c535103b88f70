/* A stream of the receive service from its description as a command line
 * gives it (service.h, svc_stream_setup, svc_output_from_name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "service.h"

/* SDP files are small: a larger one is not a session description. */
#define SDP_MAX_BYTES 65536

/* The SDP's legs: one, or those of its a=group:DUP (rtp_sdp_parse_legs). */
static xsf_status read_sdp(const char *path, rtp_sdp *legs, unsigned *n, xsf_error *err)
{
    uint8_t *text;
    size_t len;
    xsf_status st = imgio_read_file(path, &text, &len, err);
    if (st != XSF_OK)
        return st;
    st = len > SDP_MAX_BYTES
             ? xsf_error_set(err, XSF_ERR_INVALID, "larger than 64 KiB")
             : rtp_sdp_parse_legs((const char *)text, len, legs, RTP_LEGS_MAX, n, err);
    free(text);
    return st;
}

/* A list joined by commas (the legs of a stream) into items: their count (0 for NULL), or
 * -1 for more than RTP_LEGS_MAX, an empty item or one too long. */
static int split_list(const char *list, char item[RTP_LEGS_MAX][256])
{
    if (!list)
        return 0;
    int n = 0;
    for (const char *p = list;; n++) {
        const char *c = strchr(p, ',');
        const size_t len = c ? (size_t)(c - p) : strlen(p);
        if (n == RTP_LEGS_MAX || !len || len >= 256)
            return -1;
        memcpy(item[n], p, len);
        item[n][len] = '\0';
        if (!c)
            return n + 1;
        p = c + 1;
    }
}

static xsf_status fail(svc_failure *f, const char *subject, int usage, const xsf_error *err)
{
    f->subject = subject;
    f->usage = usage;
    f->err = *err;
    return err->status ? err->status : XSF_ERR_INVALID;
}

/* The capture filter: the request's, else UDP to the address (from the source). */
static void capture_filter(char *buf, size_t cap, const char *given, const rtp_addr *addr,
                           const rtp_addr *source)
{
    if (given) {
        snprintf(buf, cap, "%s", given);
    } else if (addr) {
        char host[80];
        rtp_addr_format(addr, 0, host, sizeof host);
        snprintf(buf, cap, "udp and dst port %u and dst host %s", addr->port, host);
        if (source) {
            char src[80];
            rtp_addr_format(source, 0, src, sizeof src);
            snprintf(buf + strlen(buf), cap - strlen(buf), " and src host %s", src);
        }
    } else {
        snprintf(buf, cap, "udp");
    }
}

/* The i-th of a list of n items for a stream of `legs` legs: one item serves every leg. */
static const char *leg_item(char item[RTP_LEGS_MAX][256], int n, unsigned i)
{
    return n <= 0 ? NULL : n == 1 ? item[0] : item[i];
}

xsf_status svc_stream_setup(svc_stream_config *sc, const svc_stream_request *req,
                            const rtp_receiver_options *ro, const pl_rtp_config *shared,
                            svc_failure *f)
{
    xsf_error err;
    xsf_error_clear(&err);
    memset(sc, 0, sizeof *sc);
    sc->name = req->sdp ? req->sdp : req->addr;
    sc->addr = req->addr;
    sc->output = req->output;
    sc->out = req->out;
    sc->path = req->output == SVC_OUT_MD5 && req->out ? req->out + 4 : req->out;
    sc->fps = req->fps;
    sc->pix_fmt = req->pix_fmt;
    sc->packets = req->packets;
    /* The legs: lists joined by commas, or the SDP's DUP group. */
    char addrs[RTP_LEGS_MAX][256], files[RTP_LEGS_MAX][256], ifaces[RTP_LEGS_MAX][256],
        sources[RTP_LEGS_MAX][256];
    const char *file_list = req->pcap ? req->pcap : req->capture;
    const int na = split_list(req->addr, addrs), nf = split_list(file_list, files),
              ni = split_list(req->iface, ifaces), ns = split_list(req->source, sources);
    if (na < 0 || nf < 0 || ni < 0 || ns < 0) {
        xsf_error_set(&err, XSF_ERR_ARG,
                      "the legs of a stream: at most %d, joined by commas, none empty",
                      RTP_LEGS_MAX);
        return fail(f,
                    na < 0   ? req->addr
                    : nf < 0 ? file_list
                    : ni < 0 ? "--iface"
                             : "--source",
                    1, &err);
    }
    rtp_sdp sdp_legs[RTP_LEGS_MAX];
    unsigned nsdp = 0;
    if (req->sdp && read_sdp(req->sdp, sdp_legs, &nsdp, &err) != XSF_OK)
        return fail(f, req->sdp, 0, &err);
    const rtp_sdp *sdp = req->sdp ? &sdp_legs[0] : NULL;
    unsigned legs = 1;
    if ((unsigned)na > legs)
        legs = (unsigned)na;
    if ((unsigned)nf > legs)
        legs = (unsigned)nf;
    if (nsdp > legs)
        legs = nsdp;
    /* Every list has one item a leg, or (addresses, interfaces, sources) one for all. */
    if ((na > 1 && (unsigned)na != legs) || (nf && (unsigned)nf != legs) ||
        (ni > 1 && (unsigned)ni != legs) || (ns > 1 && (unsigned)ns != legs)) {
        xsf_error_set(&err, XSF_ERR_ARG,
                      "%u legs, but %d addresses, %d files or interfaces to read, %d --iface "
                      "and %d --source: give one a leg (or one address, --iface, --source "
                      "for all)",
                      legs, na, nf, ni, ns);
        return fail(f, req->sdp ? req->sdp : req->addr ? req->addr : file_list, 1, &err);
    }
    /* The receiver's configuration, with its bounds, from the SDP and the options. */
    rtp_receiver_options o = *ro;
    o.payload_type = req->payload_type;
    rtp_receiver_setup rs;
    if ((req->sdp ? rtp_receiver_setup_legs(sdp_legs, nsdp, &o, &rs, &err)
                  : rtp_receiver_setup_from_sdp(NULL, &o, &rs, &err)) != XSF_OK)
        return fail(f, req->sdp ? req->sdp : "recv", err.status == XSF_ERR_ARG, &err);
    pl_rtp_config *rc = &sc->rtp;
    *rc = *shared;
    if (req->sdp) {
        rc->interlaced = rs.interlaced;
        /* RFC 9134 7.1 / ST 2110-20: colorimetry and RANGE pick the display's matrix. */
        if (sdp->colorimetry[0] || sdp->range[0])
            xsf_colour_from_sdp(&sc->colour, sdp->colorimetry, sdp->range);
        if (!sc->fps.num && rs.rate_num) {
            sc->fps.num = rs.rate_num;
            sc->fps.den = rs.rate_den;
        }
        sc->has_sdp = 1;
        sc->sdp = *sdp;
    }
    sc->max_frame_bytes = rs.depacketizer.max_frame_bytes;
    rtp_depacketizer_config *dc = &rc->depacketizer;
    *dc = rs.depacketizer;
    dc->ssrc_given = req->ssrc_given;
    dc->ssrc = req->ssrc;
    /* Decoded streams are checked by the decoder itself (a refusal is counted
     * as "decode"); codestreams written as they are get the structural check. */
    dc->validate = req->output == SVC_OUT_JXS;
    rc->kind = req->pcap ? PL_RTP_PCAP : req->capture ? PL_RTP_CAPTURE : PL_RTP_SOCKET;
    for (unsigned i = 0; i < legs; i++) {
        /* c= is where the stream goes: a group, or this host's unicast address, which is
         * bound as it is (not every local address). */
        rtp_addr addr = rs.leg_dest[i], source = rs.leg_source[i];
        int have_addr = req->sdp && rs.has_dest, have_source = req->sdp && rs.leg_has_source[i];
        const char *a = leg_item(addrs, na, i), *src = leg_item(sources, ns, i),
                   *iface = leg_item(ifaces, ni, i);
        if (a) {
            if (rtp_addr_parse(a, 1, &addr, &err) != XSF_OK)
                return fail(f, req->addr, 1, &err);
            have_addr = 1;
        }
        if (src) {
            if (rtp_addr_parse(src, 0, &source, &err) != XSF_OK)
                return fail(f, "--source", 1, &err);
            have_source = 1;
        }
        rtp_transport_config *leg = &rc->legs.leg[i];
        memset(leg, 0, sizeof *leg);
        if (rc->kind != PL_RTP_SOCKET) {
            snprintf(sc->leg_path[i], sizeof sc->leg_path[i], "%s", files[i]);
            snprintf(sc->leg_name[i], sizeof sc->leg_name[i], "%s", files[i]);
            capture_filter(sc->leg_filter[i], sizeof sc->leg_filter[i], req->filter,
                           have_addr ? &addr : NULL, have_source ? &source : NULL);
            leg->udp.buffer_bytes = shared->udp.buffer_bytes;
        } else {
            leg->udp = shared->udp;
            leg->udp.local = addr;
            leg->udp.has_source = have_source;
            leg->udp.source = source;
            leg->udp.timestamps = 1;
            if (iface) {
                size_t n = strlen(iface);
                if (n >= sizeof leg->udp.iface)
                    n = sizeof leg->udp.iface - 1;
                memcpy(leg->udp.iface, iface, n);
                leg->udp.iface[n] = '\0';
            }
            rtp_addr_format(&addr, 1, sc->leg_name[i], sizeof sc->leg_name[i]);
        }
    }
    /* Leg 0 is the stream's own configuration (one leg: the only one). */
    if (rc->kind != PL_RTP_SOCKET) {
        rc->path = legs > 1 ? file_list : req->pcap ? req->pcap : req->capture;
        snprintf(sc->filter, sizeof sc->filter, "%s", sc->leg_filter[0]);
        rc->filter = NULL; /* svc_recv_create points it at sc->filter */
    } else {
        rc->udp = rc->legs.leg[0].udp;
    }
    if (legs > 1) {
        rc->legs.n = legs;
        rc->legs.merge.window_ms = shared->legs.merge.window_ms;
        rtp_receiver_cover_skew(dc, &rc->legs.merge);
    } else {
        rc->legs.n = 0;
    }
    return XSF_OK;
}

xsf_status svc_output_from_name(const char *out, int format, svc_output *kind)
{
    static const char *const ext[] = {".jxs", ".yuv", ".y4m"};
    static const svc_output kinds[] = {SVC_OUT_JXS, SVC_OUT_YUV, SVC_OUT_Y4M};
    if (!strcmp(out, "null")) {
        *kind = SVC_OUT_NULL;
    } else if (!strcmp(out, "null:device")) {
        *kind = SVC_OUT_NULL_DEVICE;
    } else if (!strncmp(out, "md5:", 4) && out[4]) {
        *kind = SVC_OUT_MD5;
    } else if (format >= 0) {
        *kind = (svc_output)format;
    } else {
        const size_t n = strlen(out);
        for (int i = 0; i < 3; i++)
            if (n >= 4 && !strcmp(out + n - 4, ext[i])) {
                *kind = kinds[i];
                return XSF_OK;
            }
        return XSF_ERR_ARG;
    }
    return XSF_OK;
}

static xsf_status refuse(svc_failure *f, const char *subject, const char *msg)
{
    f->subject = subject;
    f->usage = 1;
    xsf_error_clear(&f->err);
    return xsf_error_set(&f->err, XSF_ERR_ARG, "%s", msg);
}

xsf_status svc_stream_request_check(svc_stream_request *r, int display, int format,
                                    const char *what, svc_failure *f)
{
    if (!r->addr && !r->sdp && !r->pcap && !r->capture)
        return refuse(f, what,
                      "no source: give ADDR:PORT, --sdp FILE, --pcap FILE or --capture IFACE "
                      "before its options");
    if (r->sdp && r->addr)
        return refuse(f, what, "give ADDR:PORT or --sdp, not both");
    char why[160];
    if (display) {
        r->output = SVC_OUT_DISPLAY;
        if (r->out)
            return refuse(f, what, "--display shows the streams: give no -o");
        snprintf(why, sizeof why,
                 "--pix-fmt %s: the display shows planar16 pictures (it converts them "
                 "itself); the other pixel formats go to files, md5: or null",
                 xsf_container_name(r->pix_fmt));
        return r->pix_fmt != XSF_PLANAR_U16 ? refuse(f, what, why) : XSF_OK;
    }
    if (!r->out)
        return refuse(f, what,
                      "no output: give -o OUT.jxs, OUT.yuv, OUT.y4m or null after its source (or "
                      "--display)");
    if (svc_output_from_name(r->out, format, &r->output) != XSF_OK)
        return refuse(f, r->out,
                      "unknown output format: name it .jxs, .yuv or .y4m, or give --format");
    snprintf(why, sizeof why, "--pix-fmt %s: .jxs output takes the codestreams (nothing decoded)",
             xsf_container_name(r->pix_fmt));
    if (r->output == SVC_OUT_JXS && r->pix_fmt != XSF_PLANAR_U16)
        return refuse(f, r->out, why);
    return XSF_OK;
}

void svc_recv_limits_init(svc_recv_limits *l)
{
    *l = (svc_recv_limits){
        .timeout_s = 5, .wait_s = -1, .reorder = 512, .reorder_ms = 20, .copy_threads = -1};
}

int svc_stream_slices(const svc_recv_config *cfg, const svc_stream_config *sc)
{
    if (cfg->slices)
        return cfg->slices > 0;
    /* By default where it pays: a live stream (a capture file is read as fast as it reads,
     * its frames whole at once), pictures wanted, the GPU engine possible. One UHD stream's
     * p99 from last packet to picture: 375-410 us by slices, 780 us whole (BENCHMARKS.md,
     * session 23). */
    return sc->rtp.kind != PL_RTP_PCAP && sc->output != SVC_OUT_JXS &&
           cfg->pl.engine != PL_ENGINE_CPU;
}

xsf_status svc_recv_setup(svc_recv_config *cfg, const svc_stream_request *const *req, int n,
                          const svc_recv_limits *l, svc_failure *f)
{
    rtp_receiver_options ro;
    rtp_receiver_options_init(&ro);
    ro.reorder_packets = (unsigned)l->reorder;
    ro.reorder_ms = (unsigned)l->reorder_ms;
    ro.max_frame_bytes = (size_t)l->max_frame_bytes;
    pl_rtp_config shared;
    memset(&shared, 0, sizeof shared);
    shared.max_frames = l->frames > 0 ? (uint64_t)l->frames : 0;
    shared.slices = cfg->slices > 0;
    shared.duration_s = l->duration_s;
    shared.timeout_s = l->timeout_s;
    /* The source's convention: 0 the timeout's value, < 0 never. */
    shared.wait_s = l->wait_s > 0 ? l->wait_s : l->wait_s == 0 || l->frames <= 0 ? -1 : 0;
    /* The source's convention: 0 its choice, -1 none. */
    shared.copy_threads = l->copy_threads < 0 ? 0 : l->copy_threads ? (int)l->copy_threads : -1;
    shared.udp.buffer_bytes = (size_t)l->rcvbuf;
    shared.udp.gro = !l->no_gro;
    shared.legs.merge.window_ms = (unsigned)l->dup_window_ms;
    for (int k = 0; k < n; k++) {
        const xsf_status st = svc_stream_setup(&cfg->stream[k], req[k], &ro, &shared, f);
        if (st != XSF_OK)
            return st;
        cfg->stream[k].rtp.slices = svc_stream_slices(cfg, &cfg->stream[k]);
    }
    cfg->nstreams = n;
    cfg->gpu_sync_auto = !l->gpu_sync_given;
    cfg->queue = (unsigned)l->queue;
    return XSF_OK;
}
