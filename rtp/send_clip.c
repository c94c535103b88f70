/* A simple sender of a .jxs clip over a socket: each codestream becomes one
 * frame, its packets go out in one batch at the frame's time. No ST 2110-21
 * pacing (that is `xsflow send`): this is for loopback, tests and the demo. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtp.h"
#include "xs.h"
#include "xsf_clock.h"

typedef struct batch {
    uint8_t *data;
    size_t cap, used, n, max_packets;
    const uint8_t **pkts;
    size_t *lens;
    size_t drop_every, index; /* loss injection: every Nth packet of the stream */
    uint64_t dropped;
} batch;

static int add_packet(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    batch *b = ctx;
    b->index++;
    if (b->drop_every && b->index % b->drop_every == 0) {
        b->dropped++;
        return 0;
    }
    if (b->n == b->max_packets || b->used + len > b->cap)
        return 1;
    memcpy(b->data + b->used, pkt, len);
    b->pkts[b->n] = b->data + b->used;
    b->lens[b->n++] = len;
    b->used += len;
    return 0;
}

xsf_status rtp_send_clip(rtp_udp *u, const rtp_send_clip_config *cfg, const uint8_t *data,
                         size_t len, rtp_send_clip_result *res, xsf_error *err)
{
    memset(res, 0, sizeof *res);
    rtp_packetizer *pk;
    xsf_status st = rtp_packetizer_create(&pk, &cfg->packetizer, err);
    if (st != XSF_OK)
        return st;
    batch b;
    memset(&b, 0, sizeof b);
    b.drop_every = cfg->drop_every;
    const unsigned num = cfg->fps_num ? cfg->fps_num : 25, den = cfg->fps_num ? cfg->fps_den : 1;
    const uint64_t frame_ns = (uint64_t)1000000000u * den / num;
    const uint64_t start = xsf_clock_mono_ns();
    uint64_t frame = 0;
    for (unsigned loop = 0; loop < (cfg->loops ? cfg->loops : 1) && st == XSF_OK; loop++) {
        size_t off = 0;
        while (off < len && st == XSF_OK) {
            xs_layout layout;
            memset(&layout, 0, sizeof layout);
            st = xs_scan_layout(data + off, len - off, &layout, err);
            const size_t bytes = layout.codestream_bytes;
            xs_layout_free(&layout);
            if (st != XSF_OK)
                break;
            if (!bytes || bytes > len - off) {
                st = xsf_error_set(err, XSF_ERR_INVALID, "codestream at byte %zu is empty", off);
                break;
            }
            size_t npk;
            st = rtp_packetize_count(pk, data + off, bytes, &npk, err);
            if (st != XSF_OK)
                break;
            const size_t pkt_max = cfg->packetizer.packet_bytes ? cfg->packetizer.packet_bytes : 1440;
            if (npk > b.max_packets || npk * pkt_max > b.cap) {
                free(b.data);
                free(b.pkts);
                free(b.lens);
                b.max_packets = npk;
                b.cap = npk * pkt_max;
                b.data = malloc(b.cap);
                b.pkts = malloc(npk * sizeof *b.pkts);
                b.lens = malloc(npk * sizeof *b.lens);
                if (!b.data || !b.pkts || !b.lens) {
                    st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for %zu packets", npk);
                    break;
                }
            }
            b.n = b.used = 0;
            const uint32_t ts = rtp_frame_timestamp(cfg->first_timestamp, frame, num, den);
            st = rtp_packetize(pk, data + off, bytes, ts, (unsigned)(frame % 32),
                               RTP_JXS_PROGRESSIVE, add_packet, &b, err);
            if (st != XSF_OK)
                break;
            /* The frame's time on the sender's clock. */
            const uint64_t due = start + frame * frame_ns;
            for (;;) {
                const uint64_t now = xsf_clock_mono_ns();
                if (now >= due)
                    break;
                xsf_clock_sleep_ns((int64_t)(due - now));
            }
            /* The whole frame in one call: GSO runs where the socket has GSO. */
            st = rtp_udp_send(u, b.pkts, b.lens, b.n, err);
            res->packets += b.n;
            res->frames++;
            frame++;
            off += bytes;
        }
    }
    res->packets_dropped = b.dropped;
    free(b.data);
    free(b.pkts);
    free(b.lens);
    rtp_packetizer_destroy(pk);
    return st;
}
