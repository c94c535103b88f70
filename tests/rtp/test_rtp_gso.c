/* UDP segmentation offload (sender) and UDP GRO (receiver) over loopback:
 * every combination gives back the clip's codestreams byte for byte with
 * exact per-packet accounting, and the socket counters show which path the
 * datagrams took:
 *   GSO + GRO   runs of datagrams leave as one message and arrive as one
 *               buffer, cut apart by rtp_udp_receive (also over IPv6, in
 *               slice mode with packets of varying size, and with injected
 *               loss: exactly the packets left out are lost);
 *   GSO, no GRO the kernel cuts the runs itself: one buffer per datagram;
 *   no GSO, GRO a sender without GSO (ours, and a plain send() per packet,
 *               as another implementation sends): one datagram per buffer;
 *   GSO refused the kernel refuses GSO on a socket without UDP checksums
 *               (SO_NO_CHECK): the socket falls back and nothing is lost.
 * Every datagram carries a kernel receive timestamp between the test's start
 * and its end. Traffic goes to loopback only.
 * usage: test_rtp_gso VECTOR.jxs... (clips of whole codestreams) */
#define _GNU_SOURCE /* SO_NO_CHECK */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

#define SSRC 0x5eed0001u
#define LOOPS 3

static const char *vector_name = ""; /* in every message */

typedef struct clip {
    uint8_t *data;
    size_t len;
    size_t nframes;
    size_t off[64], bytes[64];
} clip;

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The receiving side: its own thread until `frames` are accounted for or 3 s pass. */
typedef struct rx {
    rtp_udp *sock;
    rtp_depacketizer *dep;
    tu_sink sink;
    size_t frames;
    uint64_t datagrams, stamps_out_of_range, t_start;
    pthread_t th;
} rx;

static void rx_on_frame(void *ctx, const rtp_frame *f)
{
    tu_on_frame(&((rx *)ctx)->sink, f);
}

static void *rx_main(void *arg)
{
    rx *r = arg;
    rtp_datagram dg[RTP_UDP_BATCH];
    xsf_error err;
    xsf_error_clear(&err);
    const uint64_t give_up = realtime_ns() + 3000000000ull;
    for (;;) {
        const rtp_stats *st = rtp_depacketizer_stats(r->dep);
        if (st->frames_complete + st->frames_dropped + st->frames_partial >= r->frames)
            break;
        const uint64_t now = realtime_ns();
        if (now > give_up)
            break;
        size_t n = 0;
        if (rtp_udp_receive(r->sock, 20, dg, &n, &err) != XSF_OK) {
            fprintf(stderr, "receive: %s\n", err.msg);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            /* A kernel stamp (CLOCK_REALTIME) of this test's time. */
            if (dg[i].arrival_ns < r->t_start || dg[i].arrival_ns > realtime_ns())
                r->stamps_out_of_range++;
            rtp_depacketizer_push(r->dep, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
        }
        r->datagrams += n;
        if (!n)
            rtp_depacketizer_poll(r->dep, realtime_ns());
    }
    return NULL;
}

static int rx_open(rx *r, const char *loopback, int gro, size_t frames)
{
    memset(r, 0, sizeof *r);
    xsf_error err;
    xsf_error_clear(&err);
    rtp_udp_config uc;
    memset(&uc, 0, sizeof uc);
    uc.timestamps = 1;
    uc.gro = gro;
    char local[64];
    snprintf(local, sizeof local, strchr(loopback, ':') ? "[%s]:0" : "%s:0", loopback);
    if (rtp_addr_parse(local, 1, &uc.local, &err) != XSF_OK ||
        rtp_udp_open_receiver(&r->sock, &uc, &err) != XSF_OK) {
        fprintf(stderr, "receiver %s: %s\n", loopback, err.msg);
        return -1;
    }
    rtp_depacketizer_config dc = {.payload_type = 112,
                                  .ssrc_given = 1,
                                  .ssrc = SSRC,
                                  .reorder_packets = 512,
                                  .reorder_ns = 20000000,
                                  .max_packet_bytes = 9000,
                                  .validate = 1,
                                  .on_frame = rx_on_frame,
                                  .ctx = r};
    if (rtp_depacketizer_create(&r->dep, &dc, &err) != XSF_OK) {
        fprintf(stderr, "depacketizer: %s\n", err.msg);
        rtp_udp_close(r->sock);
        return -1;
    }
    r->frames = frames;
    r->t_start = realtime_ns();
    pthread_create(&r->th, NULL, rx_main, r);
    return 0;
}

static void rx_close(rx *r)
{
    pthread_join(r->th, NULL);
    rtp_depacketizer_flush(r->dep);
}

static void rx_free(rx *r)
{
    rtp_depacketizer_destroy(r->dep);
    rtp_udp_close(r->sock);
    free(r->sink.data);
}

static rtp_addr rx_address(const rx *r, const char *loopback)
{
    rtp_addr a;
    xsf_error err;
    char text[64];
    snprintf(text, sizeof text, strchr(loopback, ':') ? "[%s]:0" : "%s:0", loopback);
    rtp_addr_parse(text, 1, &a, &err);
    a.port = rtp_udp_local_port(r->sock);
    return a;
}

static rtp_sender_config clip_config(rtp_jxs_mode mode, size_t packet_bytes, size_t drop_every)
{
    rtp_sender_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.packetizer.mode = mode;
    cfg.packetizer.packet_bytes = packet_bytes;
    cfg.packetizer.payload_type = 112;
    cfg.packetizer.ssrc = SSRC;
    cfg.packetizer.first_seq = 65000; /* wraps within the test */
    cfg.packetizer.boxes = 1;
    cfg.pacing = RTP_PACING_FRAME;
    cfg.rate_num = 100;
    cfg.rate_den = 1;
    cfg.drop_every = drop_every;
    return cfg;
}

/* Packets of each frame as the sender makes them, for the expected loss. */
static size_t frame_packets(const clip *c, size_t f, const rtp_sender_config *cfg)
{
    rtp_packetizer *p = NULL;
    xsf_error err;
    size_t n = 0;
    if (rtp_packetizer_create(&p, &cfg->packetizer, &err) == XSF_OK)
        rtp_packetize_count(p, c->data + c->off[f], c->bytes[f], &n, &err);
    rtp_packetizer_destroy(p);
    return n;
}

typedef struct expect {
    int gso_messages; /* 1: some, 0: none */
    int gro_buffers;  /* 1: some, 0: none */
} expect;

/* One run: `gso` datagrams per GSO message (0: none), GRO on the receiver or not. */
static void run(const clip *c, const char *name, const char *loopback, rtp_jxs_mode mode,
                size_t packet_bytes, unsigned gso, int gro, size_t drop_every, int refuse_gso,
                expect want)
{
    char label[192];
    snprintf(label, sizeof label, "%s: %s", vector_name, name);
    name = label;
    rx r;
    const size_t frames = c->nframes * LOOPS;
    if (rx_open(&r, loopback, gro, frames)) {
        if (strchr(loopback, ':')) {
            printf("%s: no IPv6 loopback here: skipped\n", name);
            return;
        }
        CHECK(0, "%s: receiver", name);
        return;
    }
    xsf_error err;
    xsf_error_clear(&err);
    rtp_udp_config uc;
    memset(&uc, 0, sizeof uc);
    uc.gso_segments = gso;
    rtp_addr to = rx_address(&r, loopback);
    rtp_udp *tx = NULL;
    CHECK(rtp_udp_open_sender(&tx, &to, &uc, &err) == XSF_OK, "%s: sender: %s", name, err.msg);
    if (!tx) {
        rx_close(&r);
        rx_free(&r);
        return;
    }
    if (refuse_gso) {
        const int on = 1;
        CHECK(setsockopt(rtp_udp_fd(tx), SOL_SOCKET, SO_NO_CHECK, &on, sizeof on) == 0,
              "%s: SO_NO_CHECK: %s", name, strerror(errno));
    }
    CHECK(rtp_udp_gro(r.sock) == gro, "%s: GRO %d, asked for %d", name, rtp_udp_gro(r.sock), gro);
    rtp_sender_config cfg = clip_config(mode, packet_bytes, drop_every);
    rtp_sender_stats res;
    CHECK(tu_send_clip(tx, cfg, c->data, c->len, LOOPS, &res, &err) == XSF_OK, "%s: send: %s", name,
          err.msg);
    rx_close(&r);
    const rtp_stats *st = rtp_depacketizer_stats(r.dep);
    const rtp_udp_counters *txc = rtp_udp_get_counters(tx), *rxc = rtp_udp_get_counters(r.sock);

    /* The expected frames: all, or those without a packet left out. */
    size_t want_frames = 0, want_bytes = 0, index = 0;
    uint8_t *expected = malloc(c->len * LOOPS);
    for (unsigned l = 0; l < LOOPS && expected; l++)
        for (size_t f = 0; f < c->nframes; f++) {
            const size_t n = frame_packets(c, f, &cfg);
            const int hit = drop_every && (index + n) / drop_every > index / drop_every;
            index += n;
            if (hit)
                continue;
            memcpy(expected + want_bytes, c->data + c->off[f], c->bytes[f]);
            want_bytes += c->bytes[f];
            want_frames++;
        }
    CHECK(expected && r.sink.len == want_bytes &&
              (!want_bytes || !memcmp(r.sink.data, expected, want_bytes)),
          "%s: %zu bytes received, %zu expected%s", name, r.sink.len, want_bytes,
          r.sink.len == want_bytes ? " (they differ)" : "");
    free(expected);
    CHECK(st->frames_complete == want_frames && st->frames_complete + st->frames_dropped == frames,
          "%s: %llu whole + %llu dropped frames, want %zu whole of %zu", name,
          (unsigned long long)st->frames_complete, (unsigned long long)st->frames_dropped,
          want_frames, frames);
    /* Exact per-packet accounting: every packet sent is received once, the
     * ones left out are lost, and nothing else. */
    CHECK(st->packets == res.packets && st->lost == res.dropped && !st->duplicated &&
              !st->reordered && !st->truncated && !st->invalid,
          "%s: %llu packets received of %llu sent, %llu lost of %llu left out, %llu duplicated, "
          "%llu reordered, %llu truncated, %llu invalid",
          name, (unsigned long long)st->packets, (unsigned long long)res.packets,
          (unsigned long long)st->lost, (unsigned long long)res.dropped,
          (unsigned long long)st->duplicated, (unsigned long long)st->reordered,
          (unsigned long long)st->truncated, (unsigned long long)st->invalid);
    CHECK(r.datagrams == res.packets && rxc->received_datagrams == res.packets &&
              txc->sent_datagrams == res.packets,
          "%s: datagrams %llu handed out (%llu counted), %llu sent, %llu packets", name,
          (unsigned long long)r.datagrams, (unsigned long long)rxc->received_datagrams,
          (unsigned long long)txc->sent_datagrams, (unsigned long long)res.packets);
    CHECK(r.stamps_out_of_range == 0, "%s: %llu datagrams without a kernel stamp of this run", name,
          (unsigned long long)r.stamps_out_of_range);
    CHECK((txc->gso_messages > 0) == want.gso_messages, "%s: %llu GSO messages of %llu sends", name,
          (unsigned long long)txc->gso_messages, (unsigned long long)txc->send_calls);
    CHECK((rxc->gro_buffers > 0) == want.gro_buffers &&
              (rxc->received_buffers < rxc->received_datagrams) == want.gro_buffers,
          "%s: %llu GRO buffers, %llu buffers for %llu datagrams", name,
          (unsigned long long)rxc->gro_buffers, (unsigned long long)rxc->received_buffers,
          (unsigned long long)rxc->received_datagrams);
    if (refuse_gso) {
        int why = 0;
        CHECK(!rtp_udp_gso(tx, &why) && why == EINVAL, "%s: GSO still on (%d) or refused with %d",
              name, rtp_udp_gso(tx, NULL), why);
    } else {
        CHECK(rtp_udp_gso(tx, NULL) == (gso > 1), "%s: GSO %d", name, rtp_udp_gso(tx, NULL));
    }
    printf("%s: %llu packets, %llu send calls (%llu GSO messages), %llu buffers received (%llu "
           "GRO)\n",
           name, (unsigned long long)res.packets, (unsigned long long)txc->send_calls,
           (unsigned long long)txc->gso_messages, (unsigned long long)rxc->received_buffers,
           (unsigned long long)rxc->gro_buffers);
    rtp_udp_close(tx);
    rx_free(&r);
}

/* Another implementation's sender: a plain socket, one send() per packet, no GSO. */
static void plain_sender(const clip *c, int gro)
{
    char name[192];
    snprintf(name, sizeof name, "%s: %s", vector_name,
             gro ? "plain send() into GRO" : "plain send(), no GRO");
    rx r;
    if (rx_open(&r, "127.0.0.1", gro, c->nframes * LOOPS)) {
        CHECK(0, "%s: receiver", name);
        return;
    }
    rtp_addr to = rx_address(&r, "127.0.0.1");
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(to.port);
    memcpy(&sin.sin_addr, to.addr, 4);
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(fd >= 0, "%s: socket", name);
    rtp_sender_config cfg = clip_config(RTP_JXS_CODESTREAM, 1440, 0);
    rtp_packetizer *p = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_packetizer_create(&p, &cfg.packetizer, &err) == XSF_OK, "%s: packetizer", name);
    uint64_t sent = 0;
    int failed = 0;
    for (unsigned l = 0; l < LOOPS && p && fd >= 0; l++)
        for (size_t f = 0; f < c->nframes; f++) {
            tu_list pk;
            memset(&pk, 0, sizeof pk);
            const size_t k = l * c->nframes + f;
            rtp_packetize(p, c->data + c->off[f], c->bytes[f], (uint32_t)(k * 900), (unsigned)k,
                          RTP_JXS_PROGRESSIVE, tu_collect, &pk, &err);
            for (size_t i = 0; i < pk.n; i++) {
                if (sendto(fd, pk.p[i].data, pk.p[i].len, 0, (struct sockaddr *)&sin, sizeof sin) !=
                    (ssize_t)pk.p[i].len)
                    failed++;
                sent++;
            }
            tu_free(&pk);
            struct timespec ts = {0, 10000000L}; /* 100 frames/s */
            nanosleep(&ts, NULL);
        }
    rtp_packetizer_destroy(p);
    if (fd >= 0)
        close(fd);
    rx_close(&r);
    const rtp_stats *st = rtp_depacketizer_stats(r.dep);
    const rtp_udp_counters *rxc = rtp_udp_get_counters(r.sock);
    CHECK(!failed, "%s: %d sends failed", name, failed);
    CHECK(st->frames_complete == c->nframes * LOOPS && st->packets == sent && st->lost == 0,
          "%s: %llu frames, %llu of %llu packets, %llu lost", name,
          (unsigned long long)st->frames_complete, (unsigned long long)st->packets,
          (unsigned long long)sent, (unsigned long long)st->lost);
    int same = r.sink.len == c->len * LOOPS;
    for (unsigned l = 0; l < LOOPS && same; l++)
        same = !memcmp(r.sink.data + l * c->len, c->data, c->len);
    CHECK(same, "%s: %zu bytes received, not the clip %u times", name, r.sink.len, LOOPS);
    CHECK(rxc->received_buffers == sent && rxc->gro_buffers == 0,
          "%s: %llu buffers (%llu GRO) for %llu datagrams sent one by one", name,
          (unsigned long long)rxc->received_buffers, (unsigned long long)rxc->gro_buffers,
          (unsigned long long)sent);
    rx_free(&r);
}

static void test_vector(const char *path)
{
    clip c;
    memset(&c, 0, sizeof c);
    c.data = tu_read_file(path, &c.len);
    for (size_t off = 0; c.data && off < c.len && c.nframes < 64;) {
        const size_t n = tu_codestream_bytes(c.data + off, c.len - off);
        if (!n)
            break;
        c.off[c.nframes] = off;
        c.bytes[c.nframes++] = n;
        off += n;
    }
    CHECK(c.nframes && c.off[c.nframes - 1] + c.bytes[c.nframes - 1] == c.len,
          "%s: not a sequence of whole codestreams", path);
    if (!c.nframes) {
        free(c.data);
        return;
    }
    vector_name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const expect both = {1, 1}, gso_only = {1, 0}, none = {0, 0};
    run(&c, "GSO + GRO", "127.0.0.1", RTP_JXS_CODESTREAM, 1440, RTP_UDP_GSO_MAX, 1, 0, 0, both);
    run(&c, "GSO + GRO, IPv6", "::1", RTP_JXS_CODESTREAM, 1440, RTP_UDP_GSO_MAX, 1, 0, 0, both);
    run(&c, "GSO + GRO, slice mode", "127.0.0.1", RTP_JXS_SLICE, 1440, RTP_UDP_GSO_MAX, 1, 0, 0,
        both);
    run(&c, "GSO of 3 + GRO, 600-byte packets", "127.0.0.1", RTP_JXS_CODESTREAM, 600, 3, 1, 0, 0,
        both);
    run(&c, "GSO + GRO, every 97th packet left out", "127.0.0.1", RTP_JXS_CODESTREAM, 1440,
        RTP_UDP_GSO_MAX, 1, 97, 0, both);
    run(&c, "GSO, no GRO", "127.0.0.1", RTP_JXS_CODESTREAM, 1440, RTP_UDP_GSO_MAX, 0, 0, 0,
        gso_only);
    run(&c, "GSO, no GRO, every 97th packet left out", "127.0.0.1", RTP_JXS_CODESTREAM, 1440,
        RTP_UDP_GSO_MAX, 0, 97, 0, gso_only);
    run(&c, "no GSO, GRO", "127.0.0.1", RTP_JXS_CODESTREAM, 1440, 0, 1, 0, 0, none);
    run(&c, "no GSO, GRO, every 97th packet left out", "127.0.0.1", RTP_JXS_CODESTREAM, 1440, 0, 1,
        97, 0, none);
    run(&c, "no GSO, no GRO", "127.0.0.1", RTP_JXS_CODESTREAM, 1440, 0, 0, 0, 0, none);
    run(&c, "GSO refused (SO_NO_CHECK), GRO", "127.0.0.1", RTP_JXS_CODESTREAM, 1440,
        RTP_UDP_GSO_MAX, 1, 0, 1, none);
    plain_sender(&c, 1);
    plain_sender(&c, 0);
    free(c.data);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_rtp_gso VECTOR.jxs...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        test_vector(argv[i]);
    return xsf_test_finish();
}
