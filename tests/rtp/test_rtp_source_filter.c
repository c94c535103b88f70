/* Where the receiver listens and whom it hears, over loopback:
 *   1. a receiver bound to 127.0.0.1 gets nothing sent to 127.0.0.2 (it binds
 *      the address it is given, not every address);
 *   2. with a source given (--source), datagrams from 127.0.0.2 are used and
 *      those from 127.0.0.1 are marked foreign_source, every one of them;
 *   3. through the pipeline's socket source: the other sender's packets are
 *      counted (stats.foreign_source) and never reach the depacketizer, even
 *      when it starts first and would otherwise pass probation.
 * Skips (77) where 127.0.0.2 cannot be bound. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <time.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

static rtp_addr addr(const char *text)
{
    rtp_addr a;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_addr_parse(text, 0, &a, &err) != XSF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return a;
}

static rtp_udp *sender(const char *from, const rtp_addr *to)
{
    rtp_udp_config c;
    memset(&c, 0, sizeof c);
    c.has_source = 1;
    c.source = addr(from);
    rtp_udp *u = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_udp_open_sender(&u, to, &c, &err) != XSF_OK) {
        fprintf(stderr, "skipped: cannot send from %s: %s\n", from, err.msg);
        exit(XSF_TEST_SKIP);
    }
    return u;
}

static void send_n(rtp_udp *u, char tag, int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t b[32];
        memset(b, tag, sizeof b);
        const uint8_t *p = b;
        const size_t len = sizeof b;
        xsf_error err;
        CHECK(rtp_udp_send(u, &p, &len, 1, &err) == XSF_OK, "send");
    }
}

/* Receives for up to `ms`, until `want` datagrams; counts them by tag and flag. */
static int receive(rtp_udp *u, int want, int ms, int *a, int *b, int *foreign_a, int *foreign_b)
{
    int got = 0;
    *a = *b = *foreign_a = *foreign_b = 0;
    for (int t = 0; t < ms / 20 && got < want; t++) {
        rtp_datagram dg[RTP_UDP_BATCH];
        size_t n = 0;
        xsf_error err;
        if (rtp_udp_receive(u, 20, dg, &n, &err) != XSF_OK)
            break;
        for (size_t i = 0; i < n; i++, got++) {
            const int is_a = dg[i].bytes && dg[i].data[0] == 'A';
            *(is_a ? a : b) += 1;
            if (dg[i].foreign_source)
                *(is_a ? foreign_a : foreign_b) += 1;
        }
    }
    return got;
}

/* An RTP stream of one codestream per frame, from `from`, `frames` frames. */
static void send_stream(rtp_udp *u, uint32_t ssrc, const uint8_t *cs, size_t len, int frames)
{
    rtp_sender_config c;
    memset(&c, 0, sizeof c);
    c.packetizer.mode = RTP_JXS_CODESTREAM;
    c.packetizer.payload_type = 112;
    c.packetizer.ssrc = ssrc;
    c.packetizer.first_seq = (uint16_t)(ssrc * 7);
    c.packetizer.boxes = 1;
    c.pacing = RTP_PACING_FRAME;
    c.rate_num = 200;
    c.rate_den = 1;
    rtp_sender_stats r;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(tu_send_clip(u, c, cs, len, (unsigned)frames, &r, &err) == XSF_OK, "send clip: %s",
          err.msg);
}

int main(int argc, char **argv)
{
    xsf_error err;
    xsf_error_clear(&err);
    /* 1. The bound address only. */
    rtp_udp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.local = addr("127.0.0.1");
    rtp_udp *rx = NULL;
    CHECK(rtp_udp_open_receiver(&rx, &rc, &err) == XSF_OK, "receiver: %s", err.msg);
    if (!rx)
        return xsf_test_finish();
    rtp_addr to = addr("127.0.0.2");
    to.port = rtp_udp_local_port(rx);
    rtp_udp *tx = sender("127.0.0.1", &to);
    send_n(tx, 'A', 5);
    int a, b, fa, fb;
    CHECK(receive(rx, 1, 300, &a, &b, &fa, &fb) == 0,
          "a receiver bound to 127.0.0.1 got %d datagrams sent to 127.0.0.2", a + b);
    rtp_udp_close(tx);
    rtp_udp_close(rx);

    /* 2. Only the source given. */
    rc.has_source = 1;
    rc.source = addr("127.0.0.2");
    CHECK(rtp_udp_open_receiver(&rx, &rc, &err) == XSF_OK, "receiver: %s", err.msg);
    to = addr("127.0.0.1");
    to.port = rtp_udp_local_port(rx);
    rtp_udp *good = sender("127.0.0.2", &to), *other = sender("127.0.0.1", &to);
    send_n(other, 'B', 20);
    send_n(good, 'A', 10);
    const int got = receive(rx, 30, 2000, &a, &b, &fa, &fb);
    CHECK(got == 30 && a == 10 && b == 20, "received %d (%d from the source, %d other)", got, a, b);
    CHECK(fa == 0, "%d datagrams of the source given marked foreign", fa);
    CHECK(fb == 20, "%d of 20 datagrams of another sender marked foreign", fb);
    rtp_udp_close(good);
    rtp_udp_close(other);
    rtp_udp_close(rx);

    /* 3. Through the depacketizer: two RTP streams, the other one first. */
    if (argc > 1) {
        size_t len;
        uint8_t *cs = tu_read_file(argv[1], &len);
        CHECK(cs != NULL, "cannot read %s", argv[1]);
        if (cs) {
            len = tu_codestream_bytes(cs, len);
            CHECK(rtp_udp_open_receiver(&rx, &rc, &err) == XSF_OK, "receiver: %s", err.msg);
            to.port = rtp_udp_local_port(rx);
            rtp_depacketizer_config dc;
            memset(&dc, 0, sizeof dc);
            dc.payload_type = 112;
            dc.validate = 1;
            rtp_depacketizer *d = NULL;
            CHECK(rtp_depacketizer_create(&d, &dc, &err) == XSF_OK, "depacketizer: %s", err.msg);
            good = sender("127.0.0.2", &to);
            other = sender("127.0.0.1", &to);
            send_stream(other, 0xbad, cs, len, 6);
            send_stream(good, 0x600d, cs, len, 6);
            size_t other_packets = 0, total = 0;
            rtp_packetizer_config pc = {
                .mode = RTP_JXS_CODESTREAM, .payload_type = 112, .boxes = 1};
            rtp_packetizer *pk = NULL;
            CHECK(rtp_packetizer_create(&pk, &pc, &err) == XSF_OK, "packetizer");
            CHECK(rtp_packetize_count(pk, cs, len, &other_packets, &err) == XSF_OK, "count");
            rtp_packetizer_destroy(pk);
            other_packets *= 6;
            for (int t = 0; t < 100 && total < 2 * other_packets; t++) {
                rtp_datagram dg[RTP_UDP_BATCH];
                size_t n = 0;
                if (rtp_udp_receive(rx, 20, dg, &n, &err) != XSF_OK)
                    break;
                for (size_t i = 0; i < n; i++, total++) {
                    if (dg[i].foreign_source) /* what pipeline/source_rtp.c does */
                        rtp_depacketizer_count_foreign_source(d);
                    else
                        rtp_depacketizer_push(d, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
                }
            }
            rtp_depacketizer_flush(d);
            const rtp_stats *st = rtp_depacketizer_stats(d);
            CHECK(st->foreign_source == other_packets, "foreign_source %llu, the other sent %zu",
                  (unsigned long long)st->foreign_source, other_packets);
            CHECK(st->ssrc == 0x600d, "followed SSRC 0x%x, expected the source's 0x600d", st->ssrc);
            CHECK(st->frames_complete == 6 && st->frames_dropped == 0 && st->wrong_ssrc == 0 &&
                      st->on_probation == 0,
                  "frames whole %llu dropped %llu, other SSRC %llu, on probation %llu",
                  (unsigned long long)st->frames_complete, (unsigned long long)st->frames_dropped,
                  (unsigned long long)st->wrong_ssrc, (unsigned long long)st->on_probation);
            rtp_depacketizer_destroy(d);
            rtp_udp_close(good);
            rtp_udp_close(other);
            rtp_udp_close(rx);
            free(cs);
        }
    }
    return xsf_test_finish();
}
