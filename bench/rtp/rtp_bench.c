/* RTP receive throughput on loopback: packets and Gbit/s received without
 * loss through the whole receive path (recvmmsg, kernel timestamps, reorder
 * window, frame assembly with codestream checks), by number of streams,
 * each with its own sender thread, receiving thread, socket and port.
 *
 * For each thread count: one unpaced run (senders as fast as they can),
 * then a bisection on the offered rate for the highest one at which no
 * packet is lost (each trial `seconds` long, at most 7 trials). Timings
 * never decide a test. Traffic goes to 127.0.0.1 only.
 *
 * usage: rtp_bench [--vector FILE.jxs] [--threads 1,2,4] [--seconds S] [--packet-size N]
 * (--help) */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "image_io.h"
#include "rtp.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

#define MAX_THREADS 16

typedef struct packets {
    uint8_t *data;
    size_t *off, *len, n, bytes;
} packets;

static int collect(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    packets *p = ctx;
    p->off = realloc(p->off, (p->n + 1) * sizeof *p->off);
    p->len = realloc(p->len, (p->n + 1) * sizeof *p->len);
    p->data = realloc(p->data, p->bytes + len);
    if (!p->off || !p->len || !p->data)
        return 1;
    memcpy(p->data + p->bytes, pkt, len);
    p->off[p->n] = p->bytes;
    p->len[p->n++] = len;
    p->bytes += len;
    return 0;
}

typedef struct stream {
    /* set up once */
    rtp_udp *rx, *tx;
    rtp_packetizer *pk;
    const uint8_t *cs;
    size_t cs_len;
    /* per trial */
    double rate_bps; /* 0: unpaced */
    uint64_t duration_ns;
    volatile int sender_done;
    uint64_t sent_packets, sent_bytes;
    rtp_stats st;
    uint64_t kernel_drops;
    double recv_seconds;
} stream;

static void *sender(void *arg)
{
    stream *s = arg;
    xsf_error err;
    xsf_error_clear(&err);
    packets p;
    memset(&p, 0, sizeof p);
    const uint64_t t0 = xsf_clock_mono_ns();
    uint64_t frame = 0;
    double sent_bits = 0;
    while (xsf_clock_mono_ns() - t0 < s->duration_ns) {
        p.n = p.bytes = 0;
        if (rtp_packetize(s->pk, s->cs, s->cs_len, (uint32_t)(frame * 1800), (unsigned)frame,
                          RTP_JXS_PROGRESSIVE, collect, &p, &err) != XSF_OK)
            break;
        frame++;
        for (size_t i = 0; i < p.n; i += 32) {
            const size_t k = p.n - i < 32 ? p.n - i : 32;
            if (s->rate_bps > 0) { /* the absolute schedule of the offered rate */
                const uint64_t due = t0 + (uint64_t)(sent_bits / s->rate_bps * 1e9);
                const uint64_t t = xsf_clock_mono_ns();
                if (due > t)
                    xsf_clock_sleep_ns(due - t);
            }
            const uint8_t *ptr[32];
            for (size_t j = 0; j < k; j++) {
                ptr[j] = p.data + p.off[i + j];
                sent_bits += 8.0 * (double)p.len[i + j];
                s->sent_bytes += p.len[i + j];
            }
            if (rtp_udp_send(s->tx, ptr, p.len + i, k, &err) != XSF_OK)
                break;
            s->sent_packets += k;
        }
    }
    free(p.data);
    free(p.off);
    free(p.len);
    s->sender_done = 1;
    return NULL;
}

static void *receiver(void *arg)
{
    stream *s = arg;
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = 112;
    dc.reorder_packets = 512;
    dc.validate = 1;
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK)
        return NULL;
    rtp_datagram dg[RTP_UDP_BATCH];
    uint64_t idle_since = 0;
    const uint64_t t0 = xsf_clock_mono_ns();
    uint64_t last = t0;
    for (;;) {
        size_t n = 0;
        if (rtp_udp_receive(s->rx, 10, dg, &n, &err) != XSF_OK)
            break;
        for (size_t i = 0; i < n; i++)
            rtp_depacketizer_push(d, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
        const uint64_t t = xsf_clock_mono_ns();
        if (n) {
            idle_since = 0;
            last = t;
        } else if (s->sender_done) {
            if (!idle_since)
                idle_since = t;
            else if (t - idle_since > 100000000u)
                break;
        }
    }
    rtp_depacketizer_flush(d);
    s->st = *rtp_depacketizer_stats(d);
    s->kernel_drops = rtp_udp_kernel_drops(s->rx);
    s->recv_seconds = (double)(last - t0) / 1e9;
    rtp_depacketizer_destroy(d);
    return NULL;
}

typedef struct trial {
    double offered_gbps, received_gbps, packets_per_s;
    uint64_t sent, received, lost;
} trial;

static trial run_trial(stream *s, int n, double rate_bps_per_stream, double seconds)
{
    pthread_t tx[MAX_THREADS], rx[MAX_THREADS];
    for (int i = 0; i < n; i++) {
        s[i].rate_bps = rate_bps_per_stream;
        s[i].duration_ns = (uint64_t)(seconds * 1e9);
        s[i].sender_done = 0;
        s[i].sent_packets = s[i].sent_bytes = 0;
        pthread_create(&rx[i], NULL, receiver, &s[i]);
    }
    const uint64_t t0 = xsf_clock_mono_ns();
    for (int i = 0; i < n; i++)
        pthread_create(&tx[i], NULL, sender, &s[i]);
    for (int i = 0; i < n; i++)
        pthread_join(tx[i], NULL);
    const double send_s = (double)(xsf_clock_mono_ns() - t0) / 1e9;
    for (int i = 0; i < n; i++)
        pthread_join(rx[i], NULL);
    trial t;
    memset(&t, 0, sizeof t);
    uint64_t sent_bytes = 0, recv_bytes = 0;
    for (int i = 0; i < n; i++) {
        t.sent += s[i].sent_packets;
        t.received += s[i].st.packets;
        /* Packets sent but never seen count as lost too (e.g. at the tail). */
        t.lost += s[i].sent_packets -
                  (s[i].st.packets < s[i].sent_packets ? s[i].st.packets : s[i].sent_packets);
        sent_bytes += s[i].sent_bytes;
        recv_bytes += s[i].st.bytes;
    }
    t.offered_gbps = (double)sent_bytes * 8 / send_s / 1e9;
    t.received_gbps = (double)recv_bytes * 8 / send_s / 1e9;
    t.packets_per_s = (double)t.received / send_s;
    return t;
}

int main(int argc, char **argv)
{
    const char *vector = "vectors/xs/hd_422_10b_bpp3.jxs";
    int threads[MAX_THREADS] = {1, 2, 4}, nthreads = 3;
    double seconds = 0.5;
    long packet_size = 1440;
    const cli_option options[] = {
        CLI_OPT("vector", 0, CLI_STRING, &vector, "FILE.jxs",
                "the codestream sent, its first frame (default\n"
                "vectors/xs/hd_422_10b_bpp3.jxs, from the repository root)"),
        CLI_OPT("threads", 0, CLI_INTS, threads, "N,N",
                "the stream counts measured, each its sender and receiver\n"
                "threads (default 1,2,4)",
                .lo = 1, .hi = MAX_THREADS, .max_items = MAX_THREADS, .count = &nthreads),
        CLI_OPT("seconds", 0, CLI_DOUBLE, &seconds, "S", "each trial's length (default 0.5)",
                .lo = 0, .hi = 3600, .flags = CLI_ABOVE_LO),
        CLI_OPT("packet-size", 0, CLI_LONG, &packet_size, "N",
                "largest RTP packet in bytes (default 1440)", .lo = 32, .hi = 65507),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "RTP receive throughput on loopback by stream count: the "
                                      "highest loss-free rate.\n",
                             .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *buf = NULL;
    size_t len = 0, cs_len = 0;
    if (imgio_read_file(vector, &buf, &len, &err) != XSF_OK) {
        fprintf(stderr, "rtp_bench: %s: %s (run from the repository root or give --vector)\n",
                vector, err.msg);
        return 1;
    }
    if (xs_jxs_next(buf, len, 0, &cs_len, NULL, &err) != XSF_OK) {
        fprintf(stderr, "rtp_bench: %s: %s\n", vector, err.msg);
        free(buf);
        return 1;
    }

    printf("RTP receive on loopback: %s (%zu bytes a frame), %ld-byte packets, codestream mode, "
           "%.1f s trials\n",
           vector, cs_len, packet_size, seconds);
    printf("%-8s %-14s %-12s | %-16s %-16s %-8s\n", "threads", "loss-free pkt/s", "Gbit/s",
           "unpaced offered", "unpaced received", "lost");
    for (int k = 0; k < nthreads; k++) {
        const int n = threads[k];
        stream s[MAX_THREADS];
        memset(s, 0, sizeof s);
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            rtp_udp_config uc;
            memset(&uc, 0, sizeof uc);
            rtp_addr_parse("127.0.0.1:0", 1, &uc.local, &err);
            uc.timestamps = 1;
            ok = rtp_udp_open_receiver(&s[i].rx, &uc, &err) == XSF_OK;
            rtp_addr dest = uc.local;
            if (ok) {
                dest.port = rtp_udp_local_port(s[i].rx);
                ok = rtp_udp_open_sender(&s[i].tx, &dest, &uc, &err) == XSF_OK;
            }
            rtp_packetizer_config pc = {.mode = RTP_JXS_CODESTREAM,
                                        .packet_bytes = (size_t)packet_size,
                                        .payload_type = 112,
                                        .ssrc = 0x1000u + (unsigned)i,
                                        .boxes = 1};
            if (ok)
                ok = rtp_packetizer_create(&s[i].pk, &pc, &err) == XSF_OK;
            s[i].cs = buf;
            s[i].cs_len = cs_len;
        }
        if (!ok) {
            fprintf(stderr, "rtp_bench: %s\n", err.msg);
            return 1;
        }
        const trial blast = run_trial(s, n, 0, seconds);
        /* Bisection between 0 and the unpaced received rate, per stream. */
        double lo = 0, hi = blast.received_gbps * 1e9 / n * 1.05, best_pps = 0, best_gbps = 0;
        if (blast.lost == 0) {
            lo = hi;
            best_pps = blast.packets_per_s;
            best_gbps = blast.received_gbps;
        }
        for (int it = 0; it < 7 && blast.lost; it++) {
            const double mid = it == 0 ? hi * 0.5 : (lo + hi) / 2;
            const trial t = run_trial(s, n, mid, seconds);
            if (t.lost == 0) {
                lo = mid;
                if (t.received_gbps > best_gbps) {
                    best_gbps = t.received_gbps;
                    best_pps = t.packets_per_s;
                }
            } else {
                hi = mid;
            }
        }
        printf("%-8d %-14.0f %-12.2f | %-16.2f %-16.2f %.2f%%\n", n, best_pps, best_gbps,
               blast.offered_gbps, blast.received_gbps,
               blast.sent ? 100.0 * (double)blast.lost / (double)blast.sent : 0.0);
        fflush(stdout);
        for (int i = 0; i < n; i++) {
            rtp_udp_close(s[i].rx);
            rtp_udp_close(s[i].tx);
            rtp_packetizer_destroy(s[i].pk);
        }
    }
    free(buf);
    return 0;
}
