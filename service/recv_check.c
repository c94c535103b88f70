/* What the receive service tells about its streams beyond their figures
 * (recv_internal.h): a stream checked against its SDP, a socket's receive
 * buffer against what was asked, and a stream that fell short. */
#include <stdio.h>
#include <string.h>

#include "recv_internal.h"

/* Frames whose RTP timestamps are compared: the smallest step of 7 is one
 * frame's unless 7 frames in a row were lost. */
#define CHECK_FRAMES 8u

/* The picture of a frame: its first field's, with the second's rows where there are two. */
static int frame_picture(const pl_frame *f, xsf_format *fmt)
{
    if (!(f->described & 1u))
        return 0;
    *fmt = f->desc[0].format;
    if (f->fields == 2 && (f->described & 2u))
        for (int c = 0; c < fmt->nc; c++)
            fmt->height[c] += f->desc[1].format.height[c];
    return 1;
}

/* Compares what was seen with the SDP: a warning, or agreement. */
static void decide(svc_check *c)
{
    if (atomic_load(&c->state) != 0 || !c->first.nc)
        return;
    xsf_error_clear(&c->warning);
    const int differs = rtp_sdp_compare(c->sdp, &c->first, c->min_step, &c->warning) != XSF_OK;
    atomic_store(&c->state, differs ? 2 : 1); /* the message is written before */
}

static void check_deliver(void *ctx, pl_frame *f)
{
    svc_check *c = ctx;
    if (atomic_load(&c->state) == 0) {
        if (!c->first.nc)
            frame_picture(f, &c->first);
        if (c->frames && f->has_rtp_timestamp) {
            const uint32_t step = f->rtp_timestamp - c->last_ts;
            if (step && (!c->min_step || step < c->min_step))
                c->min_step = step;
        }
        c->last_ts = f->rtp_timestamp;
        if (++c->frames >= CHECK_FRAMES)
            decide(c);
    }
    c->next.deliver(c->next.ctx, f);
}

/* The end of the stream: what came decides, however little. */
static void check_finish(void *ctx)
{
    svc_check *c = ctx;
    decide(c);
    if (c->next.finish)
        c->next.finish(c->next.ctx);
}

static void check_refused(void *ctx, const pl_frame *f, const char *why)
{
    svc_check *c = ctx;
    if (c->next.refused)
        c->next.refused(c->next.ctx, f, why);
}

static void check_rows(void *ctx, const pl_frame *f, const int rows[XSF_MAX_COMPONENTS])
{
    svc_check *c = ctx;
    c->next.rows(c->next.ctx, f, rows);
}

pl_sink svc_check_sink(svc_check *c, const rtp_sdp *sdp, pl_sink next)
{
    memset(c, 0, sizeof *c);
    c->sdp = sdp;
    c->next = next;
    atomic_init(&c->state, 0);
    pl_sink s = {check_deliver,
                 check_finish,
                 c,
                 next.placement,
                 next.refused ? check_refused : NULL,
                 next.rows ? check_rows : NULL,
                 next.holds};
    return s;
}

int svc_check_take(svc_check *c, xsf_error *w)
{
    if (atomic_load(&c->state) != 2)
        return 0;
    *w = c->warning;
    atomic_store(&c->state, 3);
    return 1;
}

/* "32 MiB", "208 KiB", "100 bytes". */
static const char *size_text(size_t n, char *buf, size_t cap)
{
    if (n >= ((size_t)1 << 20) && !(n & (((size_t)1 << 20) - 1)))
        snprintf(buf, cap, "%zu MiB", n >> 20);
    else if (n >= 1024)
        snprintf(buf, cap, "%.0f KiB", (double)n / 1024.0);
    else
        snprintf(buf, cap, "%zu bytes", n);
    return buf;
}

xsf_status svc_rcvbuf_check(size_t asked, size_t granted, long long rmem_max, xsf_error *warning)
{
    if (granted >= asked)
        return XSF_OK;
    char a[32], g[32];
    size_text(asked, a, sizeof a);
    size_text(granted, g, sizeof g);
    if (rmem_max >= 0 && (unsigned long long)rmem_max < asked)
        return xsf_error_set(warning, XSF_ERR_IO,
                             "the socket's receive buffer is %s, not the %s asked (--rcvbuf): "
                             "net.core.rmem_max is %lld; raise it (sysctl -w "
                             "net.core.rmem_max=%zu, kept in /etc/sysctl.d) or grant "
                             "CAP_NET_ADMIN",
                             g, a, rmem_max, asked);
    return xsf_error_set(warning, XSF_ERR_IO,
                         "the socket's receive buffer is %s, not the %s asked (--rcvbuf)", g, a);
}

/* The kernel's limit on SO_RCVBUF without CAP_NET_ADMIN; -1 where it cannot be read. */
static long long rmem_max(void)
{
    FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
    long long v = -1;
    if (f && fscanf(f, "%lld", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

xsf_status svc_rcvbuf_warning(size_t asked, size_t granted, xsf_error *w)
{
    return granted >= asked ? XSF_OK : svc_rcvbuf_check(asked, granted, rmem_max(), w);
}

int svc_stream_shortfall(const svc_stream_config *sc, const svc_stream_end *se, int stopped,
                         svc_failure *f)
{
    const pl_rtp_config *rc = &sc->rtp;
    const uint64_t got = se->fig.pl.delivered, want = rc->max_frames;
    if (got && got >= want)
        return 0;
    f->subject = se->label;
    f->usage = 0;
    xsf_error_clear(&f->err);
    xsf_error *e = &f->err;
    const uint64_t packets = se->fig.rtp.packets + se->fig.drops.refused_packets;
    const double wait = rc->wait_s ? rc->wait_s : rc->timeout_s;
    if (got)
        xsf_error_set(e, XSF_ERR_TRUNCATED, "%llu of the %llu frames asked for (--frames) came",
                      (unsigned long long)got, (unsigned long long)want);
    else if (packets)
        xsf_error_set(e, XSF_ERR_TRUNCATED,
                      "no frame: %llu packets came, none of them in a whole frame that decoded "
                      "(the stream's figures say why)",
                      (unsigned long long)packets);
    else if (rc->kind == PL_RTP_PCAP)
        xsf_error_set(e, XSF_ERR_TRUNCATED, "no frame: the capture holds no packet of the stream");
    else if (!stopped && wait > 0)
        xsf_error_set(e, XSF_ERR_TRUNCATED, "no frame: no packet came in %g s (%s)", wait,
                      rc->wait_s ? "--wait" : "--wait: --timeout's with --frames");
    else if (!stopped && rc->duration_s > 0)
        xsf_error_set(e, XSF_ERR_TRUNCATED, "no frame: no packet came in %g s (--duration)",
                      rc->duration_s);
    else
        xsf_error_set(e, XSF_ERR_TRUNCATED, "no frame: no packet came");
    return 1;
}
