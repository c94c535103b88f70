/* SMPTE ST 2022-7: the merger (rtp_merge.h), the legs' transports ("dup:udp",
 * "dup:pcap") and SDP DUP groups (rtp_sdp_parse_legs).
 *
 *   test_rtp_merge unit SEQ.jxs      the merger alone on made-up headers (16-bit wrap,
 *                                    losses on one leg and on both, late copies, the
 *                                    window's bound, silence and return, skew, a lag of
 *                                    more than half the 16-bit space), SDP DUP groups, and
 *                                    two .pcap files with known losses through "dup:pcap"
 *                                    and the depacketizer: every count exact; generated
 *                                    streams at UHD60's packet rate (131,000 a second):
 *                                    one leg cut for 2 s and for 40 ms, two legs cut in
 *                                    turn and together, 450 ms of skew: exactly the frames
 *                                    that lost a packet on every leg dropped; each leg cut
 *                                    2 s and restored with 1 % lost on each, never on
 *                                    both: every frame completed by its own last packet
 *                                    (nothing held back when a leg goes or comes back)
 *   test_rtp_merge loopback SEQ.jxs  two legs over UDP loopback (127.0.0.1) through
 *                                    "dup:udp": loss on each leg (never the same packet
 *                                    on both), reordering and copies inside each, 40 ms
 *                                    skew, one leg cut for 2 s and restored: every frame
 *                                    whole, counted exactly; then independent loss on
 *                                    both legs: exactly the frames that lost a packet on
 *                                    both are dropped
 * The stream: copies of the codestreams of vectors/xs/seq_5f_422_10b.jxs, 1440-byte
 * packets (about 15 a frame). */
#define _GNU_SOURCE /* usleep */

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"
#include "xsf_clock.h"

/* ---- the merger alone ---- */

static void header(uint8_t *p, uint16_t seq, uint32_t ts, uint32_t ssrc)
{
    memset(p, 0, 12);
    p[0] = 0x80;
    p[1] = 112;
    p[2] = (uint8_t)(seq >> 8);
    p[3] = (uint8_t)seq;
    p[4] = (uint8_t)(ts >> 24);
    p[5] = (uint8_t)(ts >> 16);
    p[6] = (uint8_t)(ts >> 8);
    p[7] = (uint8_t)ts;
    p[8] = (uint8_t)(ssrc >> 24);
    p[9] = (uint8_t)(ssrc >> 16);
    p[10] = (uint8_t)(ssrc >> 8);
    p[11] = (uint8_t)ssrc;
}

static rtp_merger *merger(unsigned legs, unsigned window_ms, unsigned rate)
{
    rtp_merger_config c = {.legs = legs, .window_ms = window_ms, .max_packet_rate = rate};
    rtp_merger *m = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_merger_create(&m, &c, &err) != XSF_OK) {
        fprintf(stderr, "merger: %s\n", err.msg);
        exit(1);
    }
    return m;
}

static int offer(rtp_merger *m, unsigned leg, uint16_t seq, uint32_t ts, uint64_t t)
{
    uint8_t p[12];
    header(p, seq, ts, 0x1234);
    return rtp_merger_offer(m, leg, p, sizeof p, t);
}

#define MS 1000000ull
#define T0 (1000 * 1000 * MS)

/* Both legs deliver everything across the 16-bit wrap, the second 5 ms later; the second
 * loses every 7th number, the first every 11th, both every 77th. */
static void test_wrap_and_losses(void)
{
    rtp_merger *m = merger(2, 50, 0);
    const unsigned n = 3000;
    uint64_t passed = 0, lost_a = 0, lost_b = 0, both = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint16_t seq = (uint16_t)(64000u + i);
        const uint64_t t = T0 + i * 10000ull; /* 100,000 packets/s */
        const int la = i && i % 11 == 0, lb = i && i % 7 == 0;
        both += la && lb;
        lost_a += la;
        lost_b += lb;
        if (!la)
            passed += offer(m, 0, seq, i / 10, t);
        if (!lb)
            passed += offer(m, 1, seq, i / 10, t + 5 * MS);
        /* the first leg's later copy of each 13th: dropped */
        if (!la && i % 13 == 0)
            passed += offer(m, 0, seq, i / 10, t + 1000);
    }
    rtp_merger_flush(m);
    const rtp_merge_stats *s = rtp_merger_stats(m);
    CHECK(passed == n - both && s->passed == passed, "passed %llu of %u, %llu lost on both",
          (unsigned long long)passed, n, (unsigned long long)both);
    CHECK(s->packets_lost == both, "lost %llu, expected %llu", (unsigned long long)s->packets_lost,
          (unsigned long long)both);
    CHECK(s->packets_recovered == lost_a + lost_b - 2 * both, "recovered %llu, expected %llu",
          (unsigned long long)s->packets_recovered,
          (unsigned long long)(lost_a + lost_b - 2 * both));
    CHECK(s->leg[0].packets_lost == lost_a && s->leg[1].packets_lost == lost_b,
          "legs lost %llu %llu, expected %llu %llu", (unsigned long long)s->leg[0].packets_lost,
          (unsigned long long)s->leg[1].packets_lost, (unsigned long long)lost_a,
          (unsigned long long)lost_b);
    CHECK(s->leg[0].duplicates > 200 && s->too_old == 0 && s->late == 0 && s->unmerged == 0,
          "duplicates %llu, too old %llu, late %llu, unmerged %llu",
          (unsigned long long)s->leg[0].duplicates, (unsigned long long)s->too_old,
          (unsigned long long)s->late, (unsigned long long)s->unmerged);
    CHECK(s->leg[1].skew_p50_ms > 4.9 && s->leg[1].skew_p50_ms < 5.1 &&
              s->leg[1].skew_max_ms > 4.9 && s->leg[1].skew_max_ms < 5.1 &&
              s->leg[0].skew_samples == 0,
          "skew p50 %.2f max %.2f", s->leg[1].skew_p50_ms, s->leg[1].skew_max_ms);
    rtp_merger_destroy(m);
}

/* A copy later than the window is still known (dropped, charged to nobody twice); one
 * behind the ring is too old; a number lost everywhere, then delivered, is late. */
static void test_late_copies(void)
{
    rtp_merger *m = merger(2, 10, 100000); /* 1000 numbers: a ring of 1024 */
    CHECK(rtp_merger_window(
              &(rtp_merger_config){.legs = 2, .window_ms = 10, .max_packet_rate = 100000}) == 1024,
          "window");
    for (unsigned i = 0; i < 100; i++)
        offer(m, 0, (uint16_t)i, i, T0 + i * 10000ull);
    /* number 5 again on leg 1, 30 ms after its first copy: past the window, still known */
    CHECK(offer(m, 1, 5, 5, T0 + 31 * MS) == 0, "a late copy passed");
    /* 3000 numbers on: number 5 is behind the ring */
    for (unsigned i = 100; i < 3000; i++)
        offer(m, 0, (uint16_t)i, i, T0 + 31 * MS + i * 10000ull);
    CHECK(offer(m, 1, 2990, 2990, T0 + 70 * MS) == 0, "a copy passed");
    const uint64_t old = rtp_merger_stats(m)->too_old;
    CHECK(offer(m, 0, 5, 5, T0 + 80 * MS) == 0 && rtp_merger_stats(m)->too_old == old + 1,
          "a number behind the window passed");
    /* 3100 skipped (lost on both), then delivered after the window */
    for (unsigned i = 3000; i < 3200; i++)
        if (i != 3100)
            offer(m, 0, (uint16_t)i, i, T0 + 100 * MS + i * 1000ull);
    rtp_merger_poll(m, T0 + 200 * MS);
    CHECK(rtp_merger_stats(m)->packets_lost == 1, "lost %llu",
          (unsigned long long)rtp_merger_stats(m)->packets_lost);
    CHECK(offer(m, 1, 3100, 3100, T0 + 201 * MS) == 1 && rtp_merger_stats(m)->late == 1,
          "a late number was not passed on");
    rtp_merger_destroy(m);
}

/* The bound: stated, allocated at create, refused out of bounds. */
static void test_bounds(void)
{
    rtp_merger_config c = {.legs = 2};
    CHECK(rtp_merger_window(&c) == 32768 && rtp_merger_memory_bound(&c) < (size_t)1300 << 10,
          "default: %zu numbers, %zu bytes", rtp_merger_window(&c), rtp_merger_memory_bound(&c));
    c.window_ms = RTP_MERGE_WINDOW_MS_MAX;
    CHECK(rtp_merger_window(&c) == 262144 && rtp_merger_memory_bound(&c) < (size_t)11 << 20,
          "high skew: %zu numbers, %zu bytes", rtp_merger_window(&c), rtp_merger_memory_bound(&c));
    rtp_merger *m = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    c.window_ms = RTP_MERGE_WINDOW_MS_MAX + 1;
    CHECK(rtp_merger_create(&m, &c, &err) == XSF_ERR_ARG && !m, "451 ms accepted");
    c.window_ms = 0;
    c.legs = RTP_LEGS_MAX + 1;
    CHECK(rtp_merger_create(&m, &c, &err) == XSF_ERR_ARG, "too many legs accepted");
    c.legs = 0;
    CHECK(rtp_merger_create(&m, &c, &err) == XSF_ERR_ARG, "no legs accepted");
    /* A flood of numbers far apart never holds more than the window. */
    m = merger(2, 10, 100000);
    const size_t bound = rtp_merger_stats(m)->memory_bytes;
    for (unsigned i = 0; i < 200000; i++)
        offer(m, i & 1, (uint16_t)(i * 7919u), i, T0 + i * 1000ull);
    CHECK(rtp_merger_stats(m)->memory_bytes == bound &&
              bound == rtp_merger_memory_bound(&(rtp_merger_config){
                           .legs = 2, .window_ms = 10, .max_packet_rate = 100000}),
          "memory %zu", bound);
    /* Not RTP, another SSRC while the first is live: passed on, unmerged. */
    uint8_t junk[4] = {1, 2, 3, 4}, other[12];
    header(other, 1, 1, 0x999);
    const uint64_t before = rtp_merger_stats(m)->unmerged;
    CHECK(rtp_merger_offer(m, 0, junk, sizeof junk, T0 + 300 * MS) == 1 &&
              rtp_merger_offer(m, 0, other, sizeof other, T0 + 300 * MS) == 1 &&
              rtp_merger_stats(m)->unmerged == before + 2,
          "junk and another SSRC");
    rtp_merger_destroy(m);
}

/* A leg silent for 3 s (a pulled cable), then back: counted once each way, its numbers
 * placed again at once; what it missed is its loss and recovered. */
static void test_silence(void)
{
    rtp_merger *m = merger(2, 50, 0);
    uint64_t cut = 0;
    for (unsigned i = 0; i < 5000; i++) {
        const uint64_t t = T0 + i * MS; /* 1000 packets/s: 5 s */
        offer(m, 0, (uint16_t)(60000u + i), i, t);
        if (i >= 1000 && i < 4000) {
            cut++;
            continue;
        }
        CHECK(offer(m, 1, (uint16_t)(60000u + i), i, t + 2 * MS) == 0, "copy %u passed", i);
        if (i == 999 || i == 4100) {
            const rtp_merge_stats *s = rtp_merger_stats(m);
            CHECK(!s->leg[1].silent && s->leg[1].silences == (i > 999) &&
                      s->leg[1].returns == (i > 999),
                  "at %u: silent %d, silences %llu, returns %llu", i, s->leg[1].silent,
                  (unsigned long long)s->leg[1].silences, (unsigned long long)s->leg[1].returns);
        }
        if (i == 3990) {
            const rtp_merge_stats *s = rtp_merger_stats(m);
            CHECK(s->leg[1].silent && s->leg[1].last_packet_age_ms > 2900, "silent, age %.0f",
                  s->leg[1].last_packet_age_ms);
        }
    }
    rtp_merger_flush(m);
    const rtp_merge_stats *s = rtp_merger_stats(m);
    CHECK(s->leg[1].packets_lost == cut && s->packets_recovered == cut && s->packets_lost == 0 &&
              s->leg[0].packets_lost == 0 && s->too_old == 0,
          "cut %llu: leg lost %llu, recovered %llu", (unsigned long long)cut,
          (unsigned long long)s->leg[1].packets_lost, (unsigned long long)s->packets_recovered);
    rtp_merger_destroy(m);
}

/* A leg that lags by more than half the 16-bit space (high skew at a high rate): placed
 * by the RTP timestamp of the number a wrap apart. */
static void test_long_lag(void)
{
    rtp_merger *m = merger(2, 450, 200000);
    const unsigned lag = 40000; /* 200 ms at 200,000 packets/s */
    uint64_t passed = 0;
    for (unsigned i = 0; i < 120000; i++) {
        const uint64_t t = T0 + i * 5000ull;
        passed += offer(m, 0, (uint16_t)i, i / 100, t);
        if (i >= lag && (i - lag) % 50 != 7) /* the lagging leg, missing some */
            passed += offer(m, 1, (uint16_t)(i - lag), (i - lag) / 100, t);
    }
    const rtp_merge_stats *s = rtp_merger_stats(m);
    CHECK(passed == 120000 && s->too_old == 0 && s->unmerged == 0 && s->leg[1].duplicates == 0,
          "passed %llu, too old %llu, unmerged %llu", (unsigned long long)passed,
          (unsigned long long)s->too_old, (unsigned long long)s->unmerged);
    CHECK(s->leg[1].skew_p50_ms > 199 && s->leg[1].skew_p50_ms < 201, "skew %.2f ms",
          s->leg[1].skew_p50_ms);
    rtp_merger_destroy(m);
}

/* ---- SDP: a=group:DUP (RFC 7104) ---- */

static const char dup_sdp[] = "v=0\r\n"
                              "o=- 1 1 IN IP4 10.0.0.1\r\n"
                              "s=red and blue\r\n"
                              "t=0 0\r\n"
                              "a=group:DUP red blue\r\n"
                              "m=video 5004 RTP/AVP 112\r\n"
                              "c=IN IP4 239.1.1.1/32\r\n"
                              "a=source-filter: incl IN IP4 239.1.1.1 10.0.0.1\r\n"
                              "a=rtpmap:112 jxsv/90000\r\n"
                              "a=fmtp:112 packetmode=0;width=1920;height=1080\r\n"
                              "a=mid:red\r\n"
                              "m=video 5006 RTP/AVP 112\r\n"
                              "c=IN IP4 239.2.1.1/32\r\n"
                              "a=source-filter: incl IN IP4 239.2.1.1 10.1.0.1\r\n"
                              "a=rtpmap:112 jxsv/90000\r\n"
                              "a=fmtp:112 packetmode=0;width=1920;height=1080\r\n"
                              "a=mid:blue\r\n";

static void test_sdp(void)
{
    rtp_sdp legs[RTP_LEGS_MAX];
    unsigned n = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_sdp_parse_legs(dup_sdp, strlen(dup_sdp), legs, RTP_LEGS_MAX, &n, &err) == XSF_OK &&
              n == 2,
          "DUP: %s", err.msg);
    CHECK(n == 2 && !strcmp(legs[0].dest_addr, "239.1.1.1") && legs[0].port == 5004 &&
              !strcmp(legs[1].dest_addr, "239.2.1.1") && legs[1].port == 5006 &&
              !strcmp(legs[1].source_addr, "10.1.0.1") && legs[1].width == 1920,
          "the legs");
    rtp_receiver_options o;
    rtp_receiver_options_init(&o);
    rtp_receiver_setup rs;
    CHECK(rtp_receiver_setup_legs(legs, n, &o, &rs, &err) == XSF_OK && rs.legs == 2 &&
              rs.leg_dest[1].port == 5006 && rs.leg_has_source[1] && rs.dest.port == 5004,
          "setup: %s", err.msg);
    /* The group's order is the legs' order. */
    char swapped[sizeof dup_sdp + 8];
    snprintf(swapped, sizeof swapped, "%s", dup_sdp);
    memcpy(strstr(swapped, "DUP red blue"), "DUP blue red", 12);
    CHECK(rtp_sdp_parse_legs(swapped, strlen(swapped), legs, RTP_LEGS_MAX, &n, &err) == XSF_OK &&
              n == 2 && legs[0].port == 5006,
          "order: %s", err.msg);
    /* One description, no group: one leg. */
    const char *single = strstr(dup_sdp, "m=video 5006");
    char one[sizeof dup_sdp];
    const size_t head = (size_t)(strstr(dup_sdp, "a=group") - dup_sdp);
    memcpy(one, dup_sdp, head);
    snprintf(one + head, sizeof one - head, "%s", single);
    CHECK(rtp_sdp_parse_legs(one, strlen(one), legs, RTP_LEGS_MAX, &n, &err) == XSF_OK && n == 1 &&
              legs[0].port == 5006,
          "one leg: %s", err.msg);
    /* A group naming a missing description, legs that differ: refused. */
    snprintf(swapped, sizeof swapped, "%s", dup_sdp);
    memcpy(strstr(swapped, "DUP red blue"), "DUP red bluX", 12);
    CHECK(rtp_sdp_parse_legs(swapped, strlen(swapped), legs, RTP_LEGS_MAX, &n, &err) ==
                  XSF_ERR_INVALID &&
              strstr(err.msg, "bluX"),
          "missing mid: %s", err.msg);
    snprintf(swapped, sizeof swapped, "%s", dup_sdp);
    memcpy(strrchr(swapped, 'w') - 5, "width=1280", 10);
    CHECK(rtp_sdp_parse_legs(swapped, strlen(swapped), legs, RTP_LEGS_MAX, &n, &err) ==
              XSF_ERR_INVALID,
          "legs that differ: %s", err.msg);
}

/* ---- two legs end to end ---- */

/* The stream's packets, frame by frame. */
typedef struct stream {
    tu_list pk;
    size_t *frame_of; /* each packet's frame */
    unsigned frames;
} stream;

static void make_stream(stream *s, const uint8_t *file, size_t len, unsigned frames)
{
    memset(s, 0, sizeof *s);
    size_t off[8], n[8], ncs = 0;
    for (size_t o = 0; o < len && ncs < 8; ncs++) {
        n[ncs] = tu_codestream_bytes(file + o, len - o);
        if (!n[ncs])
            break;
        off[ncs] = o;
        o += n[ncs];
    }
    rtp_packetizer_config pc = {.mode = RTP_JXS_CODESTREAM,
                                .payload_type = 112,
                                .ssrc = 0x7ed,
                                .first_seq = 65000,
                                .boxes = 1,
                                .packet_bytes = 1440};
    rtp_packetizer *pz = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (!ncs || rtp_packetizer_create(&pz, &pc, &err) != XSF_OK) {
        fprintf(stderr, "stream: %s\n", err.msg);
        exit(1);
    }
    s->frame_of = malloc(sizeof *s->frame_of * 64 * frames);
    for (unsigned k = 0; k < frames; k++) {
        const size_t c = k % ncs;
        const size_t before = s->pk.n;
        rtp_packetize(pz, file + off[c], n[c], 3600u * k, k, RTP_JXS_PROGRESSIVE, tu_collect,
                      &s->pk, &err);
        for (size_t i = before; i < s->pk.n; i++)
            s->frame_of[i] = k;
    }
    s->frames = frames;
    rtp_packetizer_destroy(pz);
}

/* What each leg sends: datagrams (copies and reordering inside the leg included) with
 * their times from the start. */
typedef struct sendq {
    const uint8_t **data;
    size_t *len;
    uint64_t *at_ns;
    size_t n;
} sendq;

typedef struct plan {
    double loss;               /* per leg */
    int exclusive;             /* never the same packet on both */
    double reorder, copies;    /* inside each leg (rtp_impairer) */
    uint64_t skew_ns;          /* the second leg's delay */
    unsigned cut_from, cut_to; /* frames the second leg does not send */
    uint64_t frame_ns;
    uint64_t seed;
    /* made: */
    uint64_t lost[2], cut, both;
    uint64_t frames_hit_both; /* frames with a packet lost on both */
    uint64_t datagrams[2];
} plan;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The datagram j of leg k: a copy the queue owns. */
static void enqueue(sendq *q, tu_list *store, const uint8_t *data, size_t len, uint64_t at)
{
    tu_push(store, data, len);
    q->data[q->n] = store->p[store->n - 1].data;
    q->len[q->n] = len;
    q->at_ns[q->n++] = at;
}

static void make_plan(const stream *s, plan *p, sendq q[2], tu_list store[2])
{
    uint64_t r = p->seed * 0x9e3779b97f4a7c15ull + 1;
    rtp_impairer *imp[2] = {NULL, NULL};
    xsf_error err;
    xsf_error_clear(&err);
    for (int k = 0; k < 2; k++) {
        rtp_impair_config ic = {.reorder = p->reorder, .duplicate = p->copies, .seed = p->seed + k};
        if (rtp_impairer_create(&imp[k], &ic, &err) != XSF_OK)
            exit(1);
        q[k].data = malloc(sizeof *q[k].data * 2 * (s->pk.n + 4));
        q[k].len = malloc(sizeof *q[k].len * 2 * (s->pk.n + 4));
        q[k].at_ns = malloc(sizeof *q[k].at_ns * 2 * (s->pk.n + 4));
        q[k].n = 0;
        memset(&store[k], 0, sizeof store[k]);
    }
    /* Which packets each leg loses: one draw a packet when never on both. */
    uint8_t *lose = calloc(s->pk.n, 1);
    for (size_t j = 0; j < s->pk.n; j++) {
        const unsigned f = (unsigned)s->frame_of[j];
        const double u = (double)(rnd(&r) >> 11) / 9007199254740992.0;
        const double v = (double)(rnd(&r) >> 11) / 9007199254740992.0;
        if (f == 0 || f + 1 == s->frames)
            continue; /* the edges: nothing lost */
        if (f >= p->cut_from && f < p->cut_to)
            continue; /* the second leg is cut: the first loses nothing meanwhile */
        if (p->exclusive)
            lose[j] = u < p->loss ? 1 : u < 2 * p->loss ? 2 : 0;
        else
            lose[j] = (uint8_t)((u < p->loss) | (v < p->loss) << 1);
    }
    const uint8_t **ptr = malloc(sizeof *ptr * s->pk.n);
    size_t *lens = malloc(sizeof *lens * s->pk.n);
    for (size_t i = 0, first = 0; i <= s->pk.n; i++) {
        if (i < s->pk.n && s->frame_of[i] == s->frame_of[first])
            continue;
        /* frame f: packets [first, i) */
        const unsigned f = (unsigned)s->frame_of[first];
        const int edge = f == 0 || f + 1 == s->frames;
        for (int k = 0; k < 2; k++) {
            const uint64_t at = f * p->frame_ns + (k ? p->skew_ns : 0);
            size_t n = 0;
            for (size_t j = first; j < i; j++) {
                if (k == 1 && f >= p->cut_from && f < p->cut_to) {
                    p->cut++;
                    continue;
                }
                if (lose[j] & (1u << k)) {
                    p->lost[k]++;
                    continue;
                }
                ptr[n] = s->pk.p[j].data;
                lens[n++] = s->pk.p[j].len;
            }
            const uint8_t *out[4096];
            size_t out_len[4096], nout = 0;
            rtp_impair_segment(imp[k], ptr, lens, n, edge, out, out_len, &nout);
            /* What the impairer holds back goes out before the cut (a cable pulled after it). */
            if (f + 1 == s->frames || (k == 1 && f + 1 == p->cut_from)) {
                size_t extra = 0;
                rtp_impair_finish(imp[k], out + nout, out_len + nout, &extra);
                nout += extra;
            }
            for (size_t j = 0; j < nout; j++)
                enqueue(&q[k], &store[k], out[j], out_len[j], at);
        }
        first = i;
    }
    for (int k = 0; k < 2; k++) {
        p->datagrams[k] = q[k].n;
        rtp_impairer_destroy(imp[k]);
    }
    free(lose);
    free(ptr);
    free(lens);
}

static void free_plan(sendq q[2], tu_list store[2])
{
    for (int k = 0; k < 2; k++) {
        free(q[k].data);
        free(q[k].len);
        free(q[k].at_ns);
        tu_free(&store[k]);
    }
}

/* The independent-loss plan decides each leg's losses with separate draws; which packets
 * were lost on both is recomputed here from what each leg sends. */
static void count_both(const stream *s, const sendq q[2], plan *p)
{
    uint8_t *on = calloc(s->pk.n, 1);
    for (int k = 0; k < 2; k++)
        for (size_t j = 0; j < q[k].n; j++) {
            const uint16_t seq = (uint16_t)(q[k].data[j][2] << 8 | q[k].data[j][3]);
            on[(uint16_t)(seq - 65000u)] |= (uint8_t)(1u << k);
        }
    uint8_t *frame_hit = calloc(s->frames, 1);
    p->both = 0;
    for (size_t i = 0; i < s->pk.n; i++)
        if (!on[i]) {
            p->both++;
            frame_hit[s->frame_of[i]] = 1;
        }
    p->frames_hit_both = 0;
    for (unsigned f = 0; f < s->frames; f++)
        p->frames_hit_both += frame_hit[f];
    free(on);
    free(frame_hit);
}

/* What the receiver made of it. */
typedef struct result {
    rtp_stats rtp;
    rtp_merge_stats merge;
} result;

static void receive(rtp_transport *t, int live, result *res, const volatile int *sending)
{
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = 112;
    dc.validate = 1;
    dc.reorder_packets = 4096;
    dc.reorder_ns = 150 * MS;
    dc.packets_kept = rtp_transport_packets_kept(t);
    rtp_depacketizer *d = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK)
        exit(1);
    uint64_t quiet_since = 0;
    for (;;) {
        rtp_datagram dg[RTP_UDP_BATCH];
        size_t n = 0;
        const xsf_status st = rtp_transport_read(t, 20, dg, RTP_UDP_BATCH, &n, &err);
        for (size_t i = 0; i < n; i++)
            rtp_depacketizer_push(d, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
        if (st == XSF_ERR_TRUNCATED)
            break;
        CHECK(st == XSF_OK, "read: %s", err.msg);
        if (st != XSF_OK)
            break;
        if (live && !n) {
            const uint64_t now = xsf_clock_wall_ns();
            rtp_depacketizer_poll(d, now);
            if (!*sending) {
                if (!quiet_since)
                    quiet_since = now;
                else if (now - quiet_since > 500 * MS)
                    break;
            }
        } else if (n) {
            quiet_since = 0;
        }
    }
    rtp_depacketizer_flush(d);
    res->rtp = *rtp_depacketizer_stats(d);
    CHECK(rtp_transport_merge_stats(t, &res->merge) == 1, "no merge statistics");
    rtp_depacketizer_destroy(d);
}

/* Every packet of every leg, by time. */
typedef struct sender {
    sendq *q;
    rtp_udp *sock[2];
    rtp_addr to[2];
    volatile int sending;
} sender;

static void *send_main(void *arg)
{
    sender *s = arg;
    const uint64_t start = xsf_clock_mono_ns() + 50 * MS;
    size_t i[2] = {0, 0};
    xsf_error err;
    xsf_error_clear(&err);
    while (i[0] < s->q[0].n || i[1] < s->q[1].n) {
        int k = i[1] >= s->q[1].n                            ? 0
                : i[0] >= s->q[0].n                          ? 1
                : s->q[0].at_ns[i[0]] <= s->q[1].at_ns[i[1]] ? 0
                                                             : 1;
        const uint64_t at = start + s->q[k].at_ns[i[k]];
        while (xsf_clock_mono_ns() < at)
            usleep(200);
        const uint8_t *p = s->q[k].data[i[k]];
        const size_t len = s->q[k].len[i[k]];
        rtp_udp_send(s->sock[k], &p, &len, 1, &err);
        i[k]++;
    }
    s->sending = 0;
    return NULL;
}

static uint16_t free_port(void)
{
    rtp_udp_config c;
    memset(&c, 0, sizeof c);
    xsf_error err;
    rtp_addr_parse("127.0.0.1:0", 1, &c.local, &err);
    rtp_udp *u = NULL;
    if (rtp_udp_open_receiver(&u, &c, &err) != XSF_OK)
        exit(1);
    const uint16_t port = rtp_udp_local_port(u);
    rtp_udp_close(u);
    return port;
}

static void run_loopback(const stream *s, plan *p, result *res)
{
    sendq q[2];
    tu_list store[2];
    make_plan(s, p, q, store);
    count_both(s, q, p);
    rtp_legs_config lc;
    memset(&lc, 0, sizeof lc);
    lc.n = 2;
    lc.merge.window_ms = 150; /* the skew, and the scheduling of two shared cores */
    sender snd;
    memset(&snd, 0, sizeof snd);
    snd.q = q;
    xsf_error err;
    xsf_error_clear(&err);
    for (int k = 0; k < 2; k++) {
        char a[32];
        snprintf(a, sizeof a, "127.0.0.1:%u", free_port());
        rtp_addr_parse(a, 1, &lc.leg[k].udp.local, &err);
        lc.leg[k].udp.timestamps = 1;
        lc.leg[k].udp.buffer_bytes = 8 << 20;
        snd.to[k] = lc.leg[k].udp.local;
        rtp_udp_config sc;
        memset(&sc, 0, sizeof sc);
        CHECK(rtp_udp_open_sender(&snd.sock[k], &snd.to[k], &sc, &err) == XSF_OK, "sender: %s",
              err.msg);
    }
    rtp_transport_config tc;
    memset(&tc, 0, sizeof tc);
    tc.legs = &lc;
    rtp_transport t;
    CHECK(rtp_transport_open(&t, "dup:udp", &tc, &err) == XSF_OK, "dup:udp: %s", err.msg);
    snd.sending = 1;
    pthread_t th;
    pthread_create(&th, NULL, send_main, &snd);
    receive(&t, 1, res, &snd.sending);
    pthread_join(th, NULL);
    rtp_transport_close(&t);
    for (int k = 0; k < 2; k++)
        rtp_udp_close(snd.sock[k]);
    free_plan(q, store);
}

static void run_pcap(const stream *s, plan *p, const char *dir, result *res)
{
    sendq q[2];
    tu_list store[2];
    make_plan(s, p, q, store);
    count_both(s, q, p);
    char path[2][512];
    xsf_error err;
    xsf_error_clear(&err);
    rtp_legs_config lc;
    memset(&lc, 0, sizeof lc);
    lc.n = 2;
    /* the skew, and a packet held back into the next frame inside a leg (20 ms) */
    lc.merge.window_ms = 100;
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s/dup_leg%d.pcap", dir, k);
        rtp_pcap_writer *w = NULL;
        CHECK(rtp_pcap_writer_open(&w, path[k], &err) == XSF_OK, "%s: %s", path[k], err.msg);
        rtp_addr src, dst;
        rtp_addr_parse(k ? "10.1.0.1:5000" : "10.0.0.1:5000", 1, &src, &err);
        rtp_addr_parse(k ? "239.2.1.1:5004" : "239.1.1.1:5004", 1, &dst, &err);
        for (size_t j = 0; j < q[k].n; j++)
            rtp_pcap_write(w, &src, &dst, q[k].data[j], q[k].len[j],
                           T0 + q[k].at_ns[j] + j * 1000ull, &err);
        CHECK(rtp_pcap_writer_close(w, &err) == XSF_OK, "close: %s", err.msg);
        lc.leg[k].path = path[k];
        lc.leg[k].filter = k ? "udp and dst host 239.2.1.1" : "udp and dst host 239.1.1.1";
    }
    rtp_transport_config tc;
    memset(&tc, 0, sizeof tc);
    tc.legs = &lc;
    rtp_transport t;
    CHECK(rtp_transport_open(&t, "dup:pcap", &tc, &err) == XSF_OK, "dup:pcap: %s", err.msg);
    int zero = 0;
    receive(&t, 0, res, &zero);
    rtp_transport_close(&t);
    for (int k = 0; k < 2; k++)
        remove(path[k]);
    free_plan(q, store);
}

#define EQ(got, want, what)                                                                        \
    CHECK((uint64_t)(got) == (uint64_t)(want), "%s: %s %llu, expected %llu", name, what,           \
          (unsigned long long)(got), (unsigned long long)(want))

/* Loss never on both legs: every frame whole, every count exact. */
static void check_protected(const char *name, const stream *s, const plan *p, const result *r)
{
    const rtp_merge_stats *m = &r->merge;
    EQ(p->both, 0, "lost on both (the plan)");
    EQ(r->rtp.frames_complete, s->frames, "frames whole");
    EQ(r->rtp.frames_dropped, 0, "frames dropped");
    EQ(r->rtp.lost, 0, "packets lost");
    EQ(r->rtp.late, 0, "packets late");
    EQ(m->packets_lost, 0, "merge: lost");
    EQ(m->late + m->too_old, 0, "merge: late or too old");
    EQ(m->leg[0].packets_received, p->datagrams[0], "leg 1 received");
    EQ(m->leg[1].packets_received, p->datagrams[1], "leg 2 received");
    EQ(m->leg[0].packets_lost, p->lost[0], "leg 1 lost");
    EQ(m->leg[1].packets_lost, p->lost[1] + p->cut, "leg 2 lost");
    EQ(m->packets_recovered, p->lost[0] + p->lost[1] + p->cut, "recovered");
    EQ(m->passed, s->pk.n, "passed on");
}

static void test_pcap(const stream *s, const char *dir)
{
    /* exclusive 5 % loss, copies and reordering inside the legs, 40 ms skew, a cut */
    plan p = {.loss = 0.05,
              .exclusive = 1,
              .reorder = 0.02,
              .copies = 0.02,
              .skew_ns = 40 * MS,
              .cut_from = 60,
              .cut_to = 110,
              .frame_ns = 20 * MS,
              .seed = 3};
    result r;
    run_pcap(s, &p, dir, &r);
    const char *name = "pcap, exclusive loss";
    check_protected(name, s, &p, &r);
    EQ(r.merge.leg[1].silences, 1, "leg 2 silences");
    EQ(r.merge.leg[1].returns, 1, "leg 2 returns");
    CHECK(r.merge.leg[1].skew_p50_ms > 39 && r.merge.leg[1].skew_p50_ms < 41.5,
          "pcap: skew p50 %.2f ms", r.merge.leg[1].skew_p50_ms);
    /* independent loss: the frames with a packet lost on both are dropped, no others */
    plan q = {.loss = 0.03, .frame_ns = 20 * MS, .seed = 11};
    run_pcap(s, &q, dir, &r);
    name = "pcap, independent loss";
    CHECK(q.both > 0, "%s: nothing lost on both", name);
    EQ(r.rtp.frames_dropped, q.frames_hit_both, "frames dropped");
    EQ(r.rtp.frames_complete, s->frames - q.frames_hit_both, "frames whole");
    EQ(r.rtp.lost, q.both, "packets lost");
    EQ(r.merge.packets_lost, q.both, "merge: lost");
    EQ(r.merge.packets_recovered, q.lost[0] + q.lost[1] - 2 * q.both, "recovered");
}

static void test_loopback(const stream *s)
{
    plan p = {.loss = 0.05,
              .exclusive = 1,
              .reorder = 0.02,
              .copies = 0.02,
              .skew_ns = 40 * MS,
              .cut_from = 50,
              .cut_to = 150,
              .frame_ns = 20 * MS,
              .seed = 5};
    result r;
    run_loopback(s, &p, &r);
    const char *name = "loopback, exclusive loss";
    check_protected(name, s, &p, &r);
    EQ(r.merge.leg[1].silences, 1, "leg 2 silences");
    EQ(r.merge.leg[1].returns, 1, "leg 2 returns");
    CHECK(r.merge.leg[1].skew_p50_ms > 35 && r.merge.leg[1].skew_p50_ms < 50,
          "loopback: skew p50 %.2f ms", r.merge.leg[1].skew_p50_ms);
    plan q = {.loss = 0.03, .frame_ns = 10 * MS, .seed = 12};
    run_loopback(s, &q, &r);
    name = "loopback, independent loss";
    CHECK(q.both > 0, "%s: nothing lost on both", name);
    EQ(r.rtp.frames_dropped, q.frames_hit_both, "frames dropped");
    EQ(r.rtp.frames_complete, s->frames - q.frames_hit_both, "frames whole");
    EQ(r.rtp.lost, q.both, "packets lost");
    EQ(r.merge.packets_lost, q.both, "merge: lost");
    EQ(r.merge.packets_recovered, q.lost[0] + q.lost[1] - 2 * q.both, "recovered");
}

/* ---- long cuts and high skew at UHD packet rates (generated, not in real time) ----
 *
 * The codestreams of the file, about 16 packets each, sent as 8182 frames a second (11
 * ticks of the 90 kHz clock apart): 131,000 packets a second, UHD60's rate at 3 bpp. Each
 * frame is packetized when its time comes, by one packetizer a leg (the same packets on
 * both); the receiver is the merger (two legs) and the depacketizer given its numbers, or
 * the depacketizer alone (one leg), fed in arrival order. */

#define GEN_TICKS 11u
#define GEN_FRAME_NS (GEN_TICKS * 1000000000ull / 90000)

typedef struct gen_plan {
    unsigned legs, frames;
    unsigned cut_from[2], cut_to[2]; /* frames a leg does not send */
    unsigned all_from, all_to;       /* frames no leg sends */
    unsigned loss_mod;   /* leg k loses packet j where hash(j) % loss_mod == k (0: none) */
    int spare_cut;       /* a leg loses nothing of a frame another leg's cut takes (the
                            sender's --exclusive-loss: never a packet lost on both legs) */
    unsigned watch_from; /* frames from here on are watched (gen_watch); 0: none */
    uint64_t skew_ns;    /* leg 2's delay */
    unsigned window_ms;  /* the merge's (two legs) */
    /* made */
    uint64_t packets, lost_all;
    unsigned frames_whole;
    /* Of the frames watched: those completed after the packet that made them whole had been
     * handled (held back: waiting for a packet, or released in a burst), and the most frames
     * completed by one packet. Work, not time: a receiver that waits for nothing completes
     * each frame as its last packet is pushed, one a packet. */
    unsigned frames_held, most_per_packet;
} gen_plan;

typedef struct gen_leg {
    rtp_packetizer *pz;
    tu_list frame; /* the packets of frame k */
    unsigned k;
    size_t next;
    size_t first_index; /* of frame k's first packet in the stream */
} gen_leg;

typedef struct gen_src {
    const uint8_t *file;
    size_t off[8], n[8], ncs;
} gen_src;

/* The watch of gen_plan.watch_from: the packet being handled (its arrival), frames
 * completed by it. */
typedef struct gen_watch {
    gen_plan *p;
    uint64_t now;
    unsigned this_packet;
} gen_watch;

static void gen_on_frame(void *ctx, const rtp_frame *f)
{
    gen_watch *w = ctx;
    if (f->timestamp / GEN_TICKS < w->p->watch_from)
        return;
    w->p->frames_held += f->last_arrival_ns != w->now;
    if (++w->this_packet > w->p->most_per_packet)
        w->p->most_per_packet = w->this_packet;
}

static uint32_t gen_hash(uint64_t j)
{
    j ^= j >> 33;
    j *= 0xff51afd7ed558ccdull;
    j ^= j >> 33;
    return (uint32_t)j;
}

static void gen_frame(const gen_src *src, gen_leg *g)
{
    tu_free(&g->frame);
    g->next = 0;
    xsf_error err;
    xsf_error_clear(&err);
    const size_t c = g->k % src->ncs;
    rtp_packetize(g->pz, src->file + src->off[c], src->n[c], GEN_TICKS * g->k, g->k,
                  RTP_JXS_PROGRESSIVE, tu_collect, &g->frame, &err);
}

static int gen_sends(const gen_plan *p, unsigned leg, unsigned k, size_t j)
{
    if ((k >= p->cut_from[leg] && k < p->cut_to[leg]) || (k >= p->all_from && k < p->all_to))
        return 0;
    if (k == 0 || k + 1 == p->frames || !p->loss_mod)
        return 1;
    for (unsigned o = 0; p->spare_cut && o < p->legs; o++)
        if (o != leg && k >= p->cut_from[o] && k < p->cut_to[o])
            return 1;
    return gen_hash(j) % p->loss_mod != leg;
}

static void gen_run(const uint8_t *file, size_t len, gen_plan *p, rtp_stats *out,
                    rtp_merge_stats *mout)
{
    gen_src src = {.file = file};
    for (size_t o = 0; o < len && src.ncs < 8; src.ncs++) {
        src.n[src.ncs] = tu_codestream_bytes(file + o, len - o);
        if (!src.n[src.ncs])
            break;
        src.off[src.ncs] = o;
        o += src.n[src.ncs];
    }
    xsf_error err;
    xsf_error_clear(&err);
    rtp_merger *m = NULL;
    rtp_merger_config mc = {.legs = p->legs, .window_ms = p->window_ms};
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = 112;
    dc.validate = 1;
    dc.reorder_packets = 512;
    dc.reorder_ns = 20 * MS;
    gen_watch watch = {.p = p};
    if (p->watch_from) {
        dc.on_frame = gen_on_frame;
        dc.ctx = &watch;
    }
    p->frames_held = p->most_per_packet = 0;
    if (p->legs > 1) {
        CHECK(rtp_merger_create(&m, &mc, &err) == XSF_OK, "merger: %s", err.msg);
        rtp_receiver_cover_skew(&dc, &mc);
    }
    rtp_depacketizer *d = NULL;
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK) {
        fprintf(stderr, "depacketizer: %s\n", err.msg);
        exit(1);
    }
    gen_leg g[2];
    memset(g, 0, sizeof g);
    rtp_packetizer_config pc = {.mode = RTP_JXS_CODESTREAM,
                                .payload_type = 112,
                                .ssrc = 0x7ed,
                                .first_seq = 60000,
                                .boxes = 1,
                                .packet_bytes = 1440};
    for (unsigned k = 0; k < p->legs; k++) {
        if (rtp_packetizer_create(&g[k].pz, &pc, &err) != XSF_OK)
            exit(1);
        gen_frame(&src, &g[k]);
    }
    /* What should come out: frame by frame on leg 0's generator (the same packets). */
    p->packets = p->lost_all = 0;
    p->frames_whole = 0;
    const uint64_t t0 = T0;
    for (;;) {
        /* The leg whose next packet is due first. */
        int best = -1;
        uint64_t best_t = 0;
        for (unsigned k = 0; k < p->legs; k++) {
            if (g[k].k >= p->frames)
                continue;
            const size_t n = g[k].frame.n;
            const uint64_t t = t0 + g[k].k * GEN_FRAME_NS + g[k].next * GEN_FRAME_NS / (n ? n : 1) +
                               (k ? p->skew_ns : 0);
            if (best < 0 || t < best_t) {
                best = (int)k;
                best_t = t;
            }
        }
        if (best < 0)
            break;
        gen_leg *l = &g[best];
        const size_t j = l->first_index + l->next;
        const tu_packet *pk = &l->frame.p[l->next];
        if (best == 0) { /* the plan's account, once a packet */
            int any = 0;
            for (unsigned k = 0; k < p->legs; k++)
                any |= gen_sends(p, k, l->k, j);
            p->packets++;
            p->lost_all += !any;
        }
        watch.now = best_t;
        watch.this_packet = 0;
        if (gen_sends(p, (unsigned)best, l->k, j)) {
            if (!m)
                rtp_depacketizer_push(d, pk->data, pk->len, best_t);
            else if (rtp_merger_offer(m, (unsigned)best, pk->data, pk->len, best_t))
                rtp_depacketizer_push_seq(d, pk->data, pk->len, best_t, rtp_merger_ext(m));
        }
        if (++l->next == l->frame.n) {
            if (best == 0) {
                int whole = 1;
                for (size_t i = 0; i < l->frame.n; i++) {
                    int any = 0;
                    for (unsigned k = 0; k < p->legs; k++)
                        any |= gen_sends(p, k, l->k, l->first_index + i);
                    whole &= any;
                }
                p->frames_whole += (unsigned)whole;
            }
            l->first_index += l->frame.n;
            l->k++;
            if (l->k < p->frames)
                gen_frame(&src, l);
        }
        if (m)
            rtp_merger_poll(m, best_t);
        rtp_depacketizer_poll(d, best_t);
    }
    if (m)
        rtp_merger_flush(m);
    rtp_depacketizer_flush(d);
    *out = *rtp_depacketizer_stats(d);
    if (m)
        *mout = *rtp_merger_stats(m);
    for (unsigned k = 0; k < p->legs; k++) {
        tu_free(&g[k].frame);
        rtp_packetizer_destroy(g[k].pz);
    }
    rtp_depacketizer_destroy(d);
    rtp_merger_destroy(m);
}

/* Exactly the frames that lost a packet on every leg are dropped, and the packets lost on
 * every leg counted lost. */
static void check_gen(const char *name, const gen_plan *p, const rtp_stats *r)
{
    CHECK(r->frames_complete == p->frames_whole && r->frames_dropped == p->frames - p->frames_whole,
          "%s: %llu frames whole, %llu dropped; %u frames of %u kept every packet", name,
          (unsigned long long)r->frames_complete, (unsigned long long)r->frames_dropped,
          p->frames_whole, p->frames);
    CHECK(r->lost == p->lost_all && r->lost_edge == 0,
          "%s: %llu packets lost (%llu at the edges), %llu lost on every leg", name,
          (unsigned long long)r->lost, (unsigned long long)r->lost_edge,
          (unsigned long long)p->lost_all);
    CHECK(r->invalid == 0 && r->late == 0 && r->ssrc_changes == 0,
          "%s: %llu invalid, %llu late, %llu SSRC changes", name, (unsigned long long)r->invalid,
          (unsigned long long)r->late, (unsigned long long)r->ssrc_changes);
}

static void test_long_cuts(const uint8_t *file, size_t len)
{
    rtp_stats r;
    rtp_merge_stats ms;
    /* One leg cut for 2 s (16,364 frames, 262,000 packets: four wraps of the numbers), and
     * for 40 ms (5,200 packets: RFC 3550 A.1's restart, were it not for the pace); 1e-3 of
     * the packets lost besides. */
    const unsigned cuts[2] = {16364, 327};
    for (int c = 0; c < 2; c++) {
        gen_plan p = {.legs = 1, .frames = 40000, .loss_mod = 1000};
        p.cut_from[0] = 12000;
        p.cut_to[0] = 12000 + cuts[c];
        p.cut_from[1] = p.cut_to[1] = 0;
        gen_run(file, len, &p, &r, &ms);
        check_gen(c ? "one leg, a cut of 40 ms" : "one leg, a cut of 2 s", &p, &r);
    }
    /* Two legs: 1e-3 lost on each, never on both; the second cut for 2 s, then the first,
     * then both at once (the sender's side lost): the frames of the last cut alone are
     * lost. */
    gen_plan p = {.legs = 2, .frames = 70000, .loss_mod = 1000, .window_ms = 50};
    p.cut_from[1] = 8000;
    p.cut_to[1] = 8000 + 16364;
    p.cut_from[0] = 30000;
    p.cut_to[0] = 30000 + 16364;
    p.all_from = 50000;
    p.all_to = 50000 + 16364;
    gen_run(file, len, &p, &r, &ms);
    check_gen("two legs, cut 2 s each in turn, then both", &p, &r);
    CHECK(ms.packets_lost == p.lost_all, "two legs: the merge counts %llu lost on both, %llu",
          (unsigned long long)ms.packets_lost, (unsigned long long)p.lost_all);
}

/* A leg cut for 2 s and restored costs the receiver nothing while the other leg delivers
 * every packet: the soak's two legs (1 % lost on each, never on both, the second leg cut 2 s
 * at UHD60's packet rate; here also the first, later). Every frame after the start-up is
 * completed by its own last packet, one frame a packet: nothing waited for a hole, nothing
 * was released in a burst, when a leg went silent or when it came back (a return taken as
 * a jump, a misplaced number or a restart of the merged sequence would hold frames). */
static void test_leg_return(const uint8_t *file, size_t len)
{
    rtp_stats r;
    rtp_merge_stats ms;
    gen_plan p = {.legs = 2,
                  .frames = 50000,
                  .loss_mod = 100,
                  .spare_cut = 1,
                  .window_ms = 50,
                  .watch_from = 1000}; /* past the start-up (a hole before the first packet) */
    p.cut_from[1] = 8000;
    p.cut_to[1] = 8000 + 16364;
    p.cut_from[0] = 30000;
    p.cut_to[0] = 30000 + 16364;
    gen_run(file, len, &p, &r, &ms);
    CHECK(p.frames_whole == p.frames && p.lost_all == 0, "the plan loses a frame");
    check_gen("two legs, each cut 2 s in turn, 1 % lost on each never on both", &p, &r);
    CHECK(p.frames_held == 0 && p.most_per_packet == 1,
          "a leg's silence or return held %u frames back (at most %u completed by one packet)",
          p.frames_held, p.most_per_packet);
    CHECK(ms.leg[0].returns == 1 && ms.leg[1].returns == 1 && ms.packets_lost == 0,
          "returns %llu and %llu, %llu lost", (unsigned long long)ms.leg[0].returns,
          (unsigned long long)ms.leg[1].returns, (unsigned long long)ms.packets_lost);
}

static void test_high_skew(const uint8_t *file, size_t len)
{
    /* 450 ms of skew (59,000 packets: more than half the 16-bit numbers), 1e-2 lost on each
     * leg never on both: every frame whole. */
    rtp_stats r;
    rtp_merge_stats ms;
    gen_plan p = {
        .legs = 2, .frames = 20000, .loss_mod = 100, .window_ms = 450, .skew_ns = 450 * MS};
    gen_run(file, len, &p, &r, &ms);
    CHECK(p.frames_whole == p.frames, "the plan loses a frame");
    check_gen("two legs, 450 ms apart", &p, &r);
    CHECK(ms.leg[1].skew_p50_ms > 449 && ms.leg[1].skew_p50_ms < 451,
          "skew p50 %.2f ms, expected 450", ms.leg[1].skew_p50_ms);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_rtp_merge unit|loopback seq_5f_422_10b.jxs [TMPDIR]\n");
        return 2;
    }
    size_t len;
    uint8_t *file = tu_read_file(argv[2], &len);
    if (!file)
        return 1;
    stream s;
    make_stream(&s, file, len, 200);
    if (!strcmp(argv[1], "unit")) {
        test_wrap_and_losses();
        test_late_copies();
        test_bounds();
        test_silence();
        test_long_lag();
        test_long_cuts(file, len);
        test_leg_return(file, len);
        test_high_skew(file, len);
        test_sdp();
        test_pcap(&s, argc > 3 ? argv[3] : ".");
    } else {
        test_loopback(&s);
    }
    tu_free(&s.pk);
    free(s.frame_of);
    free(file);
    return xsf_test_finish();
}
