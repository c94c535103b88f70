/* Every vector of vectors/xs, packetized in codestream and in slice mode,
 * sent over loopback UDP (IPv4 127.0.0.1 and IPv6 ::1) and received with
 * recvmmsg, then written to a .pcap file and read back through libpcap:
 * each must give back its codestreams byte for byte, with no loss.
 *
 * The sender waits for each frame to arrive before the next (at most 5 s),
 * so one frame at most is in flight and the socket buffer never overflows.
 * The receiver gives up on holes after 20 ms, polling when the socket is
 * idle, as `xsflow recv` does: the start of a stream is such a hole (a
 * packet may still come behind the first one received), and a lone frame
 * is released only when it is given up on.
 * Traffic goes to loopback only. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"
#include "vector_manifest.h"

typedef struct vec {
    char name[256];
    uint8_t *data;
    size_t len;
    size_t nframes;
    size_t frame_off[64], frame_len[64];
} vec;

typedef struct rx {
    rtp_udp *sock;
    rtp_depacketizer *dep;
    tu_sink sink;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t frames_done; /* complete + dropped + partial */
    int stop;
} rx;

static void rx_on_frame(void *ctx, const rtp_frame *f)
{
    rx *r = ctx;
    tu_on_frame(&r->sink, f);
}

static void *rx_main(void *arg)
{
    rx *r = arg;
    rtp_datagram dg[RTP_UDP_BATCH];
    xsf_error err;
    xsf_error_clear(&err);
    for (;;) {
        pthread_mutex_lock(&r->mu);
        const int stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            break;
        size_t n = 0;
        if (rtp_udp_receive(r->sock, 20, dg, &n, &err) != XSF_OK)
            break;
        for (size_t i = 0; i < n; i++)
            rtp_depacketizer_push(r->dep, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
        if (!n) { /* the clock of the kernel's receive timestamps */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            rtp_depacketizer_poll(r->dep, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
        }
        const rtp_stats *st = rtp_depacketizer_stats(r->dep);
        pthread_mutex_lock(&r->mu);
        r->frames_done = st->frames_complete + st->frames_dropped + st->frames_partial;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    return NULL;
}

static int wait_frames(rx *r, size_t want, int ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&r->mu);
    while (r->frames_done < want)
        if (pthread_cond_timedwait(&r->cv, &r->mu, &dl))
            break;
    const int ok = r->frames_done >= want;
    pthread_mutex_unlock(&r->mu);
    return ok;
}

static rtp_packetizer *make_packetizer(rtp_jxs_mode mode)
{
    rtp_packetizer_config pc = {.mode = mode,
                                .packet_bytes = 1440,
                                .payload_type = 112,
                                .ssrc = 0xc0ffee,
                                .first_seq = 65000,
                                .boxes = 1};
    rtp_packetizer *p = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_packetizer_create(&p, &pc, &err) != XSF_OK)
        fprintf(stderr, "packetizer: %s\n", err.msg);
    return p;
}

/* ssrc_given: the sender over UDP waits for each frame, and a frame of fewer
 * packets than the probation of a new SSRC (RFC 3550 A.1) would wait for the
 * next; through .pcap the SSRC is found (the stream ends: its only source). */
static rtp_depacketizer *make_depacketizer(int ssrc_given, rtp_frame_cb cb, void *ctx)
{
    rtp_depacketizer_config dc = {.payload_type = 112,
                                  .ssrc_given = ssrc_given,
                                  .ssrc = 0xc0ffee,
                                  .reorder_packets = 512,
                                  .reorder_ns = 20000000,
                                  .max_packet_bytes = 2048,
                                  .validate = 1,
                                  .on_frame = cb,
                                  .ctx = ctx};
    rtp_depacketizer *d = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK)
        fprintf(stderr, "depacketizer: %s\n", err.msg);
    return d;
}

static int check_result(const vec *v, const char *how, const rtp_stats *st, const tu_sink *sink)
{
    int ok = st->frames_complete == v->nframes && st->lost == 0 && sink->len == v->len &&
             !memcmp(sink->data, v->data, v->len);
    CHECK(ok, "%s %s: %llu of %zu frames, %llu lost, %llu dropped, %zu of %zu bytes%s", v->name,
          how, (unsigned long long)st->frames_complete, v->nframes, (unsigned long long)st->lost,
          (unsigned long long)st->frames_dropped, sink->len, v->len,
          sink->len == v->len ? " (bytes differ)" : "");
    return ok;
}

typedef struct tx_ctx {
    rtp_udp *sock;
    int failed;
} tx_ctx;

static int tx_packet(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    tx_ctx *t = ctx;
    xsf_error err;
    xsf_error_clear(&err);
    const uint8_t *p[1] = {pkt};
    if (rtp_udp_send(t->sock, p, &len, 1, &err) != XSF_OK) {
        fprintf(stderr, "send: %s\n", err.msg);
        t->failed = 1;
        return 1;
    }
    return 0;
}

/* Returns 77 when the address family is unavailable (no IPv6 loopback). */
static int over_udp(const vec *v, rtp_jxs_mode mode, const char *loopback)
{
    char how[64];
    snprintf(how, sizeof how, "%s over UDP %s", mode ? "slice" : "codestream", loopback);
    xsf_error err;
    xsf_error_clear(&err);
    rx r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    rtp_udp_config uc;
    memset(&uc, 0, sizeof uc);
    uc.timestamps = 1;
    char local[64];
    snprintf(local, sizeof local, strchr(loopback, ':') ? "[%s]:0" : "%s:0", loopback);
    if (rtp_addr_parse(local, 1, &uc.local, &err) != XSF_OK ||
        rtp_udp_open_receiver(&r.sock, &uc, &err) != XSF_OK) {
        fprintf(stderr, "%s: receiver: %s\n", how, err.msg);
        return strchr(loopback, ':') ? 77 : 1;
    }
    rtp_addr dest = uc.local;
    dest.port = rtp_udp_local_port(r.sock);
    tx_ctx t = {0};
    if (rtp_udp_open_sender(&t.sock, &dest, &uc, &err) != XSF_OK) {
        fprintf(stderr, "%s: sender: %s\n", how, err.msg);
        rtp_udp_close(r.sock);
        return 1;
    }
    r.dep = make_depacketizer(1, rx_on_frame, &r);
    rtp_packetizer *p = make_packetizer(mode);
    pthread_t th;
    pthread_create(&th, NULL, rx_main, &r);
    for (size_t f = 0; f < v->nframes && !t.failed; f++) {
        if (rtp_packetize(p, v->data + v->frame_off[f], v->frame_len[f], (uint32_t)(f * 1800),
                          (unsigned)f, RTP_JXS_PROGRESSIVE, tx_packet, &t, &err) != XSF_OK) {
            fprintf(stderr, "%s: %s: packetize: %s\n", v->name, how, err.msg);
            break;
        }
        if (!wait_frames(&r, f + 1, 5000))
            break;
    }
    pthread_mutex_lock(&r.mu);
    r.stop = 1;
    pthread_mutex_unlock(&r.mu);
    pthread_join(th, NULL);
    rtp_depacketizer_flush(r.dep);
    check_result(v, how, rtp_depacketizer_stats(r.dep), &r.sink);
    rtp_packetizer_destroy(p);
    rtp_depacketizer_destroy(r.dep);
    rtp_udp_close(t.sock);
    rtp_udp_close(r.sock);
    free(r.sink.data);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    return 0;
}

typedef struct pcap_tx {
    rtp_pcap_writer *w;
    rtp_addr src, dst;
    uint64_t t;
} pcap_tx;

static int pcap_packet(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    pcap_tx *c = ctx;
    xsf_error err;
    xsf_error_clear(&err);
    c->t += 10000; /* 10 us apart */
    return rtp_pcap_write(c->w, &c->src, &c->dst, pkt, len, c->t, &err) != XSF_OK;
}

static void through_pcap(const vec *v, rtp_jxs_mode mode, const char *dir)
{
    char how[64], path[4096];
    snprintf(how, sizeof how, "%s through .pcap", mode ? "slice" : "codestream");
    snprintf(path, sizeof path, "%s/%s-%s.pcap", dir, v->name, mode ? "slice" : "codestream");
    xsf_error err;
    xsf_error_clear(&err);
    pcap_tx c;
    memset(&c, 0, sizeof c);
    c.t = 1700000000ull * 1000000000ull;
    rtp_addr_parse("192.0.2.1:40000", 1, &c.src, &err);
    rtp_addr_parse("239.0.0.1:5004", 1, &c.dst, &err);
    if (rtp_pcap_writer_open(&c.w, path, &err) != XSF_OK) {
        CHECK(0, "%s: %s: %s", v->name, how, err.msg);
        return;
    }
    rtp_packetizer *p = make_packetizer(mode);
    for (size_t f = 0; f < v->nframes; f++)
        if (rtp_packetize(p, v->data + v->frame_off[f], v->frame_len[f], (uint32_t)(f * 1800),
                          (unsigned)f, RTP_JXS_PROGRESSIVE, pcap_packet, &c, &err) != XSF_OK)
            fprintf(stderr, "%s: %s: %s\n", v->name, how, err.msg);
    rtp_packetizer_destroy(p);
    CHECK(rtp_pcap_writer_close(c.w, &err) == XSF_OK, "%s: close: %s", v->name, err.msg);

    tu_sink sink;
    memset(&sink, 0, sizeof sink);
    rtp_depacketizer *d = make_depacketizer(0, tu_on_frame, &sink);
    rtp_pcap_reader *r;
    if (rtp_pcap_open_file(&r, path, "udp dst port 5004", &err) != XSF_OK) {
        CHECK(0, "%s: %s: %s", v->name, how, err.msg);
    } else {
        rtp_pcap_packet pk;
        while (rtp_pcap_next(r, &pk, &err) == XSF_OK) {
            if (pk.truncated)
                rtp_depacketizer_count_truncated(d);
            else
                rtp_depacketizer_push(d, pk.udp_payload, pk.bytes, pk.arrival_ns);
        }
        rtp_pcap_close(r);
    }
    rtp_depacketizer_flush(d);
    check_result(v, how, rtp_depacketizer_stats(d), &sink);
    rtp_depacketizer_destroy(d);
    free(sink.data);
    remove(path);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "vectors/xs";
    const char *work = argc > 2 ? argv[2] : ".";
    /* The vectors MANIFEST.tsv lists; a missing or empty one fails. */
    static vm_list names;
    if (vm_read(dir, &names) <= 0) {
        fprintf(stderr, "no vectors: cannot read %s/MANIFEST.tsv\n", dir);
        return 1;
    }
    int v6 = 1, tested = 0;
    for (int i = 0; i < names.n; i++) {
        vec v;
        memset(&v, 0, sizeof v);
        snprintf(v.name, sizeof v.name, "%s", names.name[i]);
        char path[4096];
        if (!vm_check_file(dir, names.name[i], path, sizeof path))
            continue;
        v.data = tu_read_file(path, &v.len);
        size_t off = 0;
        while (v.data && off < v.len && v.nframes < 64) {
            const size_t n = tu_codestream_bytes(v.data + off, v.len - off);
            if (!n)
                break;
            v.frame_off[v.nframes] = off;
            v.frame_len[v.nframes++] = n;
            off += n;
        }
        CHECK(v.data && off == v.len, "%s: unreadable, or not a sequence of whole codestreams",
              v.name);
        if (!v.data || off != v.len) {
            free(v.data);
            continue;
        }
        for (int mode = 0; mode < 2; mode++) {
            over_udp(&v, (rtp_jxs_mode)mode, "127.0.0.1");
            if (v6 && over_udp(&v, (rtp_jxs_mode)mode, "::1") == 77) {
                printf("no IPv6 loopback here: IPv6 skipped\n");
                v6 = 0;
            }
            through_pcap(&v, (rtp_jxs_mode)mode, work);
        }
        tested++;
        free(v.data);
    }
    printf("%d vectors of %s/MANIFEST.tsv tested\n", tested, dir);
    return xsf_test_finish();
}
