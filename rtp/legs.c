/* The legs of one stream (SMPTE ST 2022-7) as one receive transport: each leg
 * is a transport of the table ("udp", "pcap", "capture") read on its own, and
 * every datagram goes through the merger (rtp_merge.h) before it is handed
 * out, tagged with its leg; copies of a number already handed out are
 * dropped here, before anybody reads their payload.
 *
 * The design: the merge sits behind the transport seam, so that the RTP
 * source above (pipeline/source_rtp.c) reads a two-leg stream as it reads
 * one socket, and the depacketizer sees one stream of first copies.
 *
 * Files are merged in the order of their capture times: a leg is read again
 * only once its batch is handed out, and a read stops where a leg that has
 * more needs reading, so that no datagram goes out before one of another leg
 * captured earlier. Live legs are polled together (their descriptors), each
 * read when it has something; nothing waits for a silent leg. */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"
#include "xsf_clock.h"

typedef struct leg_queue {
    rtp_datagram dg[RTP_UDP_BATCH];
    size_t n, next;
    int ended; /* the file ended (or the leg failed: err) */
} leg_queue;

typedef struct legs {
    const rtp_transport_ops *kind;
    unsigned n;
    rtp_transport leg[RTP_LEGS_MAX];
    leg_queue q[RTP_LEGS_MAX];
    rtp_merger *m;
    int flushed;
} legs;

static void legs_close(void *priv)
{
    legs *l = priv;
    if (!l)
        return;
    for (unsigned k = 0; k < l->n; k++)
        rtp_transport_close(&l->leg[k]);
    rtp_merger_destroy(l->m);
    free(l);
}

static xsf_status legs_open(const rtp_transport_ops *kind, void **priv,
                            const rtp_transport_config *cfg, xsf_error *err)
{
    *priv = NULL;
    const rtp_legs_config *lc = cfg ? cfg->legs : NULL;
    if (!lc || lc->n < 1 || lc->n > RTP_LEGS_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "%s needs 1 to %d legs", kind->name, RTP_LEGS_MAX);
    legs *l = calloc(1, sizeof *l);
    if (!l)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    l->kind = kind;
    rtp_merger_config mc = lc->merge;
    mc.legs = lc->n;
    xsf_status st = rtp_merger_create(&l->m, &mc, err);
    for (unsigned k = 0; st == XSF_OK && k < lc->n; k++) {
        rtp_transport_config tc = lc->leg[k];
        tc.legs = NULL;
        xsf_error e;
        xsf_error_clear(&e);
        st = rtp_transport_open(&l->leg[k], kind->name, &tc, &e);
        if (st != XSF_OK)
            xsf_error_set(err, st, "leg %u: %s", k + 1, e.msg);
        else
            l->n = k + 1;
    }
    if (st != XSF_OK) {
        legs_close(l);
        return st;
    }
    *priv = l;
    return XSF_OK;
}

/* Reads leg k into its queue (it is empty). */
static xsf_status fill(legs *l, unsigned k, int timeout_ms, xsf_error *err)
{
    leg_queue *q = &l->q[k];
    q->n = q->next = 0;
    xsf_error e;
    xsf_error_clear(&e);
    const xsf_status st =
        rtp_transport_read(&l->leg[k], timeout_ms, q->dg, RTP_UDP_BATCH, &q->n, &e);
    if (st == XSF_ERR_TRUNCATED) {
        q->ended = 1;
        return XSF_OK;
    }
    if (st != XSF_OK)
        return xsf_error_set(err, st, "leg %u: %s", k + 1, e.msg);
    const uint64_t now = l->kind->clock == RTP_ARRIVAL_NONE ? xsf_clock_wall_ns() : 0;
    for (size_t i = 0; i < q->n; i++) {
        q->dg[i].leg = k;
        if (now)
            q->dg[i].arrival_ns = now; /* the merger's clock: one for every leg */
    }
    return XSF_OK;
}

/* Hands out datagram i of leg k when the merger keeps it. */
static void offer(legs *l, unsigned k, rtp_datagram *out, size_t *count)
{
    leg_queue *q = &l->q[k];
    const rtp_datagram *d = &q->dg[q->next++];
    /* Datagrams the depacketizer refuses unparsed (cut short, another sender) pass on. */
    if (d->truncated || d->foreign_source ||
        rtp_merger_offer(l->m, k, d->data, d->bytes, d->arrival_ns)) {
        out[*count] = *d;
        out[(*count)++].seq_ext = d->truncated || d->foreign_source ? 0 : rtp_merger_ext(l->m);
    }
}

static xsf_status read_files(legs *l, rtp_datagram *out, size_t cap, size_t *count, xsf_error *err)
{
    for (unsigned k = 0; k < l->n; k++)
        if (!l->q[k].ended && l->q[k].next == l->q[k].n) {
            const xsf_status st = fill(l, k, 0, err);
            if (st != XSF_OK)
                return st;
        }
    while (*count < cap) {
        int best = -1, refill = 0;
        for (unsigned k = 0; k < l->n; k++) {
            const leg_queue *q = &l->q[k];
            if (q->next < q->n) {
                if (best < 0 ||
                    q->dg[q->next].arrival_ns < l->q[best].dg[l->q[best].next].arrival_ns)
                    best = (int)k;
            } else if (!q->ended) {
                refill = 1; /* its next datagram may come before any held here */
            }
        }
        if (best < 0 || refill)
            break;
        offer(l, (unsigned)best, out, count);
    }
    int ended = 1;
    for (unsigned k = 0; k < l->n; k++)
        ended &= l->q[k].ended && l->q[k].next == l->q[k].n;
    if (ended && !*count) {
        if (!l->flushed)
            rtp_merger_flush(l->m);
        l->flushed = 1;
        return XSF_ERR_TRUNCATED;
    }
    return XSF_OK;
}

static xsf_status read_live(legs *l, int timeout_ms, rtp_datagram *out, size_t cap, size_t *count,
                            xsf_error *err)
{
    int pending = 0;
    for (unsigned k = 0; k < l->n; k++)
        pending |= l->q[k].next < l->q[k].n;
    if (!pending) {
        struct pollfd pfd[RTP_LEGS_MAX];
        int polled = 1;
        for (unsigned k = 0; k < l->n; k++) {
            const rtp_transport *t = &l->leg[k];
            pfd[k].fd = t->ops->fd ? t->ops->fd(t->priv) : -1;
            pfd[k].events = POLLIN;
            pfd[k].revents = 0;
            polled &= pfd[k].fd >= 0;
        }
        /* A leg without a descriptor is read in turn with a share of the wait. */
        if (polled && poll(pfd, l->n, timeout_ms) < 0)
            pfd[0].revents = 0;
        for (unsigned k = 0; k < l->n; k++) {
            if (polled && !(pfd[k].revents & (POLLIN | POLLERR | POLLHUP)))
                continue;
            const xsf_status st = fill(l, k, polled ? 0 : timeout_ms / (int)l->n, err);
            if (st != XSF_OK)
                return st;
        }
    }
    /* Round robin, a datagram a leg at a time: neither leg's batch waits on the other's. */
    for (int any = 1; any && *count < cap;) {
        any = 0;
        for (unsigned k = 0; k < l->n && *count < cap; k++)
            if (l->q[k].next < l->q[k].n) {
                offer(l, k, out, count);
                any = 1;
            }
    }
    rtp_merger_poll(l->m, xsf_clock_wall_ns());
    return XSF_OK;
}

static xsf_status legs_read(void *priv, int timeout_ms, rtp_datagram *out, size_t cap,
                            size_t *count, xsf_error *err)
{
    legs *l = priv;
    *count = 0;
    if (cap < RTP_UDP_BATCH)
        return xsf_error_set(err, XSF_ERR_ARG, "room for %zu datagrams: a read needs %d", cap,
                             RTP_UDP_BATCH);
    return l->kind->live ? read_live(l, timeout_ms, out, cap, count, err)
                         : read_files(l, out, cap, count, err);
}

static int legs_kept(const void *priv)
{
    const legs *l = priv;
    int kept = 1;
    for (unsigned k = 0; k < l->n; k++)
        kept &= rtp_transport_packets_kept(&l->leg[k]);
    return kept;
}

static uint64_t legs_kernel_drops(const void *priv)
{
    const legs *l = priv;
    uint64_t n = 0;
    for (unsigned k = 0; k < l->n; k++)
        n += rtp_transport_kernel_drops(&l->leg[k]);
    return n;
}

static uint16_t legs_local_port(const void *priv)
{
    const legs *l = priv;
    return rtp_transport_local_port(&l->leg[0]);
}

static size_t legs_buffer_bytes(const void *priv)
{
    const legs *l = priv;
    size_t least = 0;
    for (unsigned k = 0; k < l->n; k++) {
        const size_t b = rtp_transport_buffer_bytes(&l->leg[k]);
        if (!k || b < least)
            least = b;
    }
    return least;
}

static int legs_merge_stats(void *priv, rtp_merge_stats *out)
{
    legs *l = priv;
    *out = *rtp_merger_stats(l->m);
    return 1;
}

static xsf_status dup_udp_open(void **priv, const rtp_transport_config *cfg, xsf_error *err)
{
    return legs_open(&rtp_transport_udp, priv, cfg, err);
}

static xsf_status dup_pcap_open(void **priv, const rtp_transport_config *cfg, xsf_error *err)
{
    return legs_open(&rtp_transport_pcap, priv, cfg, err);
}

static xsf_status dup_capture_open(void **priv, const rtp_transport_config *cfg, xsf_error *err)
{
    return legs_open(&rtp_transport_capture, priv, cfg, err);
}

#define LEGS_OPS(ident, kind_name, open_fn, arrival, is_live, gathers)                             \
    const rtp_transport_ops ident = {                                                              \
        .name = kind_name,                                                                         \
        .clock = arrival,                                                                          \
        .live = is_live,                                                                           \
        .gather = gathers,                                                                         \
        .open = open_fn,                                                                           \
        .read = legs_read,                                                                         \
        .close = legs_close,                                                                       \
        .packets_kept = legs_kept,                                                                 \
        .kernel_drops = legs_kernel_drops,                                                         \
        .local_port = legs_local_port,                                                             \
        .buffer_bytes = legs_buffer_bytes,                                                         \
        .merge_stats = legs_merge_stats,                                                           \
    }

/* Each as its legs' kind (udp.c, pcap_io.c): the clock, live, gather. */
LEGS_OPS(rtp_transport_dup_udp, "dup:udp", dup_udp_open, RTP_ARRIVAL_REALTIME, 1, 0);
LEGS_OPS(rtp_transport_dup_pcap, "dup:pcap", dup_pcap_open, RTP_ARRIVAL_RECORDED, 0, 1);
LEGS_OPS(rtp_transport_dup_capture, "dup:capture", dup_capture_open, RTP_ARRIVAL_NONE, 1, 1);
