/* Sending on two legs (SMPTE ST 2022-7) through the send session: both
 * capture files hold the same packets, byte for byte and at the same times,
 * to each leg's address; the SDP groups the two media by a=group:DUP (RFC
 * 7104) and each parses back; over loopback UDP to two ports of 127.0.0.1
 * both sockets receive the same datagrams. Timestamps and pacing on the TAI
 * grid: each frame's timestamp is its instant's on the grid, its first packet
 * recorded at that instant. Impairments on each leg (its own seed, bursts, a
 * cut of the second leg; never the same packet on both, or independent): the
 * captures' sequence numbers against the counts, lost on both exactly what
 * the sender says, each packet at its slot's time on both legs. Packets go to
 * loopback only.
 *   test_rtp_legs CLIP.jxs WORKDIR */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"
#include "xsf_clock.h"

static const uint8_t *clip_data;
static size_t clip_len;
static const char *dir;

static rtp_send_session_config base(void)
{
    rtp_send_session_config c;
    memset(&c, 0, sizeof c);
    c.in = "clip.jxs";
    c.pacing = RTP_PACING_NARROW;
    c.rate_num = 60000;
    c.rate_den = 1001;
    c.packet_bytes = 1440;
    c.payload_type = 112;
    c.ttl = 16;
    c.boxes = 1;
    c.impair.seed = 1;
    return c;
}

static int read_text(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    const size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    fclose(f);
    return (int)n;
}

/* A capture's packets, with their times and destinations. */
typedef struct capture {
    tu_list pk;
    uint64_t *at;
    char (*dst)[96];
} capture;

static int read_capture(const char *path, capture *c)
{
    memset(c, 0, sizeof *c);
    xsf_error err;
    xsf_error_clear(&err);
    rtp_pcap_reader *rd = NULL;
    if (rtp_pcap_open_file(&rd, path, NULL, &err) != XSF_OK)
        return -1;
    rtp_pcap_packet p;
    size_t cap = 0;
    while (rtp_pcap_next(rd, &p, &err) == XSF_OK) {
        if (c->pk.n == cap) {
            cap = cap ? 2 * cap : 256;
            c->at = realloc(c->at, cap * sizeof *c->at);
            c->dst = realloc(c->dst, cap * sizeof *c->dst);
        }
        c->at[c->pk.n] = p.arrival_ns;
        rtp_addr_format(&p.dst, 1, c->dst[c->pk.n], sizeof c->dst[0]);
        tu_push(&c->pk, p.udp_payload, p.bytes);
    }
    rtp_pcap_close(rd);
    return 0;
}

static void free_capture(capture *c)
{
    tu_free(&c->pk);
    free(c->at);
    free(c->dst);
}

/* Two lists hold the same packets in the same order. */
static int same_packets(const tu_list *a, const tu_list *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->p[i].len != b->p[i].len || memcmp(a->p[i].data, b->p[i].data, a->p[i].len))
            return 0;
    return 1;
}

/* The SDP of two legs: the DUP group, a mid each, and each leg's media parsed back (the
 * second by a description of the session lines and its media alone: the parser reads the
 * first jxsv media). */
static void check_dup_sdp(const char *path, const char *dest1, const char *dest2)
{
    char text[8192];
    const int n = read_text(path, text, sizeof text);
    CHECK(n > 0, "no SDP %s", path);
    if (n <= 0)
        return;
    const char *group = strstr(text, "a=group:DUP primary secondary\r\n");
    const char *m1 = strstr(text, "m=video ");
    const char *m2 = m1 ? strstr(m1 + 1, "m=video ") : NULL;
    CHECK(group && m1 && m2 && group < m1 && !strstr(m2 + 1, "m=video "),
          "a session-level DUP group before two media:\n%s", text);
    if (!m1 || !m2)
        return;
    const char *mid1 = strstr(m1, "a=mid:primary\r\n"), *mid2 = strstr(m2, "a=mid:secondary\r\n");
    CHECK(mid1 && mid1 < m2 && mid2, "a mid in each media:\n%s", text);
    CHECK(strstr(m1, "a=ts-refclk:ptp=IEEE1588-2008:traceable\r\na=mediaclk:direct=0\r\n") &&
              strstr(m2, "a=ts-refclk:ptp=IEEE1588-2008:traceable\r\na=mediaclk:direct=0\r\n"),
          "PTP reference clock and direct media clock in each media:\n%s", text);
    rtp_sdp a, b;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_sdp_parse(text, (size_t)n, &a, &err) == XSF_OK, "leg 1: %s", err.msg);
    char second[8192];
    const size_t head = (size_t)(m1 - text);
    memcpy(second, text, head);
    snprintf(second + head, sizeof second - head, "%s", m2);
    CHECK(rtp_sdp_parse(second, strlen(second), &b, &err) == XSF_OK, "leg 2: %s", err.msg);
    CHECK(!strcmp(a.dest_addr, dest1) && !strcmp(b.dest_addr, dest2) && a.port == b.port &&
              a.payload_type == b.payload_type && a.rate_num == 60000 && b.rate_den == 1001 &&
              a.width == b.width && !strcmp(a.tp, b.tp) &&
              !strcmp(a.ts_refclk, "ptp=IEEE1588-2008:traceable") &&
              !strcmp(b.mediaclk, "direct=0"),
          "legs %s / %s, refclk '%s', mediaclk '%s'", a.dest_addr, b.dest_addr, a.ts_refclk,
          b.mediaclk);
}

/* Two capture files: the same packets at the same times, each to its leg's address; the
 * RTP timestamps and the first packets' times on the TAI grid; the SDP's DUP group. */
static void test_two_captures(void)
{
    char pcaps[2200], sdp[1024], a[1024], b[1024];
    snprintf(a, sizeof a, "%s/leg1.pcap", dir);
    snprintf(b, sizeof b, "%s/leg2.pcap", dir);
    snprintf(pcaps, sizeof pcaps, "%s,%s", a, b);
    snprintf(sdp, sizeof sdp, "%s/legs.sdp", dir);
    rtp_send_session_config c = base();
    c.pcap = pcaps;
    c.to = "239.1.1.1:5004,239.2.1.1:5004";
    c.sdp = sdp;
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK && s, "open: %s",
          f.err.msg);
    if (!s)
        return;
    CHECK(rtp_send_session_run(s, 2, &f) == XSF_OK, "run: %s", f.err.msg);
    rtp_send_report r;
    rtp_send_session_report(s, &r);
    char d1[96], d2[96];
    rtp_addr_format(&r.dest, 1, d1, sizeof d1);
    rtp_addr_format(&r.dest2, 1, d2, sizeof d2);
    CHECK(r.legs == 2 && r.stats.legs == 2 && !strcmp(d1, "239.1.1.1:5004") &&
              !strcmp(d2, "239.2.1.1:5004"),
          "legs %u to %s and %s", r.legs, d1, d2);
    char json[1200];
    rtp_send_session_stats_json(s, 1, json, sizeof json);
    CHECK(strstr(json, "\"legs\": 2, \"leg_errors\": [0, 0]}\n") != NULL, "json: %s", json);
    rtp_send_session_close(s);

    capture ca, cb;
    CHECK(read_capture(a, &ca) == 0 && read_capture(b, &cb) == 0, "captures");
    CHECK(ca.pk.n == r.stats.packets && ca.pk.n > 0 && same_packets(&ca.pk, &cb.pk),
          "%zu and %zu packets (%llu sent), identical %d", ca.pk.n, cb.pk.n,
          (unsigned long long)r.stats.packets, same_packets(&ca.pk, &cb.pk));
    uint64_t bad_time = 0, bad_dst = 0, bad_ts = 0, frames = 0;
    const int64_t off = xsf_clock_tai_offset_ns();
    const uint64_t n0 = rtp_tai_frame_index(r.stats.first_tai_ns, 60000, 1001);
    CHECK(rtp_tai_frame_ns(n0, 60000, 1001) == r.stats.first_tai_ns &&
              r.first_timestamp == rtp_tai_frame_timestamp(n0, 60000, 1001),
          "the first frame on the grid: %llu, timestamp %u", (unsigned long long)n0,
          r.first_timestamp);
    rtp_clip clip;
    xsf_error cerr;
    CHECK(rtp_clip_open(&clip, clip_data, clip_len, &cerr) == XSF_OK, "clip: %s", cerr.msg);
    const uint64_t tro = rtp_tr21_tro_default_ns(clip.first.hf, 0, 60000, 1001);
    rtp_clip_free(&clip);
    for (size_t i = 0; i < ca.pk.n && i < cb.pk.n; i++) {
        bad_time += ca.at[i] != cb.at[i];
        bad_dst += strcmp(ca.dst[i], "239.1.1.1:5004") || strcmp(cb.dst[i], "239.2.1.1:5004");
        rtp_header h;
        xsf_error err;
        if (rtp_header_parse(ca.pk.p[i].data, ca.pk.p[i].len, &h, &err) != XSF_OK) {
            bad_ts++;
            continue;
        }
        /* Frame k's packets carry frame n0 + k's timestamp; its first leaves TROFFSET after
         * its instant, at ST 2110-21's TVD (a capture's times are the packet clock's: TAI
         * less the offset). */
        const uint32_t want = rtp_tai_frame_timestamp(n0 + frames, 60000, 1001);
        const int first = i == 0 || (i > 0 && ca.pk.p[i - 1].len &&
                                     ((const uint8_t *)ca.pk.p[i - 1].data)[1] & 0x80);
        bad_ts += h.timestamp != want;
        if (first)
            bad_time +=
                ca.at[i] != rtp_tai_frame_ns(n0 + frames, 60000, 1001) + tro - (uint64_t)off;
        frames += h.marker;
    }
    CHECK(!bad_time && !bad_dst && !bad_ts && frames == r.stats.segments,
          "%llu times, %llu addresses, %llu timestamps wrong; %llu frames",
          (unsigned long long)bad_time, (unsigned long long)bad_dst, (unsigned long long)bad_ts,
          (unsigned long long)frames);
    free_capture(&ca);
    free_capture(&cb);
    check_dup_sdp(sdp, "239.1.1.1", "239.2.1.1");
}

/* One leg writes the SDP it always wrote: no group, no mid. */
static void test_one_leg_sdp(void)
{
    char pcap[1024], sdp[1024];
    snprintf(pcap, sizeof pcap, "%s/one.pcap", dir);
    snprintf(sdp, sizeof sdp, "%s/one.sdp", dir);
    rtp_send_session_config c = base();
    c.pcap = pcap;
    c.sdp = sdp;
    c.refclk = "ptp=IEEE1588-2008:EC-46-70-FF-FE-00-42-6C:127";
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    rtp_send_session_close(s);
    char text[4096];
    CHECK(read_text(sdp, text, sizeof text) > 0 && !strstr(text, "a=group") &&
              !strstr(text, "a=mid") &&
              strstr(text, "a=ts-refclk:ptp=IEEE1588-2008:EC-46-70-FF-FE-00-42-6C:127\r\n"),
          "one leg:\n%s", text);
    c.free_clock = 1;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    rtp_send_session_close(s);
    CHECK(read_text(sdp, text, sizeof text) > 0 && !strstr(text, "a=ts-refclk") &&
              strstr(text, "a=mediaclk:direct=0\r\n"),
          "free clock:\n%s", text);
}

/* Legs that do not agree are usage errors naming the option. */
static void test_leg_failures(void)
{
    rtp_send_session_config c = base();
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    c.pcap = "a.pcap,b.pcap";
    c.to = "239.1.1.1:5004,239.2.1.1:5004,239.3.1.1:5004";
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_ERR_ARG && !s && f.usage &&
              !strcmp(f.subject, "--to"),
          "three legs: %s: %s", f.subject, f.err.msg);
    c.to = "239.1.1.1:5004";
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_ERR_ARG && !s && f.usage &&
              !strcmp(f.subject, "--pcap"),
          "two files, one destination: %s: %s", f.subject, f.err.msg);
    c.to = "239.1.1.1:5004,";
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_ERR_ARG && !s && f.usage &&
              !strcmp(f.subject, "--to"),
          "an empty leg: %s: %s", f.subject, f.err.msg);
    c.to = NULL;
    c.pcap = "a.pcap";
    c.source = "192.0.2.1,192.0.2.2";
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_ERR_ARG && !s && f.usage &&
              !strcmp(f.subject, "--source"),
          "two sources, one leg: %s: %s", f.subject, f.err.msg);
    /* Two capture files without --to: the default destinations. */
    c.source = NULL;
    char pcaps[2200];
    snprintf(pcaps, sizeof pcaps, "%s/d1.pcap,%s/d2.pcap", dir, dir);
    c.pcap = pcaps;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    if (s) {
        rtp_send_report r;
        rtp_send_session_report(s, &r);
        char d1[96], d2[96];
        rtp_addr_format(&r.dest, 1, d1, sizeof d1);
        rtp_addr_format(&r.dest2, 1, d2, sizeof d2);
        CHECK(r.legs == 2 && !strcmp(d1, RTP_SEND_DEFAULT_DEST) &&
                  !strcmp(d2, RTP_SEND_DEFAULT_DEST2),
              "defaults %s %s", d1, d2);
        rtp_send_session_close(s);
    }
}

/* A receiving socket's datagrams until it is quiet. */
typedef struct rx {
    rtp_udp *u;
    tu_list got;
} rx;

static void *receive_main(void *arg)
{
    rx *r = arg;
    for (;;) {
        rtp_datagram d[RTP_UDP_BATCH];
        size_t n = 0;
        xsf_error err;
        if (rtp_udp_receive(r->u, r->got.n ? 500 : 5000, d, &n, &err) != XSF_OK || !n)
            break;
        for (size_t i = 0; i < n; i++)
            tu_push(&r->got, d[i].data, d[i].bytes);
    }
    return NULL;
}

/* Loopback UDP to two ports: both receive the same datagrams, all that were sent. */
static void test_loopback(void)
{
    rx r[2];
    memset(r, 0, sizeof r);
    xsf_error err;
    xsf_error_clear(&err);
    int ok = 1;
    for (int i = 0; i < 2 && ok; i++) {
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        rtp_addr_parse("127.0.0.1:0", 1, &uc.local, &err);
        uc.buffer_bytes = (size_t)8 << 20;
        ok = rtp_udp_open_receiver(&r[i].u, &uc, &err) == XSF_OK;
    }
    CHECK(ok, "receivers: %s", err.msg);
    if (!ok) {
        rtp_udp_close(r[0].u);
        return;
    }
    char to[96];
    snprintf(to, sizeof to, "127.0.0.1:%u,127.0.0.1:%u", rtp_udp_local_port(r[0].u),
             rtp_udp_local_port(r[1].u));
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, receive_main, &r[i]);
    rtp_send_session_config c = base();
    c.to = to;
    c.source = "127.0.0.1";
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    rtp_send_report rep;
    memset(&rep, 0, sizeof rep);
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    if (s) {
        CHECK(rtp_send_session_run(s, 3, &f) == XSF_OK, "run: %s: %s", f.subject, f.err.msg);
        rtp_send_session_report(s, &rep);
        rtp_send_session_close(s);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK(rep.legs == 2 && rep.socket && r[0].got.n == rep.stats.packets &&
              same_packets(&r[0].got, &r[1].got) && !rep.stats.leg_errors[0] &&
              !rep.stats.leg_errors[1],
          "received %zu and %zu of %llu, identical %d", r[0].got.n, r[1].got.n,
          (unsigned long long)rep.stats.packets, same_packets(&r[0].got, &r[1].got));
    for (int i = 0; i < 2; i++) {
        tu_free(&r[i].got);
        rtp_udp_close(r[i].u);
    }
}

/* The numbers of a capture (first_seq 0: no wrap) with their times and timestamps. */
typedef struct seqs {
    uint8_t *have; /* have[seq]: copies received */
    uint64_t *at;  /* the first copy's time */
    uint32_t *ts;  /* its RTP timestamp */
} seqs;

static void capture_seqs(const capture *c, seqs *q, size_t n)
{
    q->have = calloc(n, 1);
    q->at = calloc(n, sizeof *q->at);
    q->ts = calloc(n, sizeof *q->ts);
    for (size_t i = 0; i < c->pk.n; i++) {
        const uint8_t *d = c->pk.p[i].data;
        const size_t seq = (size_t)d[2] << 8 | d[3];
        if (seq >= n)
            continue;
        if (!q->have[seq]++) {
            q->at[seq] = c->at[i];
            q->ts[seq] = (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 | (uint32_t)d[6] << 8 | d[7];
        }
    }
}

/* The frame of each of the n sequence numbers of the stream test_impaired_legs sends (20
 * loops of the clip from number 0), from a capture of it unimpaired. */
static size_t *frame_numbers(size_t n)
{
    char pcap[1024];
    snprintf(pcap, sizeof pcap, "%s/whole.pcap", dir);
    rtp_send_session_config c = base();
    c.pcap = pcap;
    c.seq_given = 1;
    c.first_seq = 0;
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    size_t *frame = calloc(n, sizeof *frame);
    capture w;
    if (rtp_send_session_open(&s, &c, clip_data, clip_len, &f) != XSF_OK ||
        rtp_send_session_run(s, 20, &f) != XSF_OK || read_capture(pcap, &w) != 0) {
        CHECK(0, "the unimpaired stream: %s", f.err.msg);
        rtp_send_session_close(s);
        return frame;
    }
    rtp_send_session_close(s);
    CHECK(w.pk.n == n, "%zu packets unimpaired, %zu impaired", w.pk.n, n);
    size_t k = 0;
    for (size_t i = 0; i < w.pk.n && i < n; i++) {
        frame[i] = k;
        k += w.pk.p[i].data[1] >> 7; /* the marker ends a frame */
    }
    free_capture(&w);
    return frame;
}

/* Impaired legs: each leg's losses, datagrams and cut seen in its capture; lost on both
 * exactly the sender's count (none when exclusive); a packet's time the same on both. */
static void test_impaired_legs(int exclusive)
{
    char pcaps[2200], a[1024], b[1024];
    snprintf(a, sizeof a, "%s/imp1.pcap", dir);
    snprintf(b, sizeof b, "%s/imp2.pcap", dir);
    snprintf(pcaps, sizeof pcaps, "%s,%s", a, b);
    rtp_send_session_config c = base();
    c.pcap = pcaps;
    c.seq_given = 1;
    c.first_seq = 0;
    c.impaired = 1;
    c.impair = (rtp_impair_config){.loss = 0.02,
                                   .reorder = 0.02,
                                   .duplicate = 0.02,
                                   .seed = 7,
                                   .burst_max = 6,
                                   .cut_from = 30,
                                   .cut_segments = 5};
    c.impair_exclusive = exclusive;
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK && s, "open: %s",
          f.err.msg);
    if (!s)
        return;
    CHECK(rtp_send_session_run(s, 20, &f) == XSF_OK, "run: %s", f.err.msg);
    rtp_send_report r;
    rtp_send_session_report(s, &r);
    const rtp_impair_counts *l1 = r.impair, *l2 = r.impair2;
    CHECK(l1 && l2, "no counts for each leg");
    if (!l1 || !l2) {
        rtp_send_session_close(s);
        return;
    }
    const size_t n = (size_t)l1->packets;
    capture ca, cb;
    CHECK(read_capture(a, &ca) == 0 && read_capture(b, &cb) == 0, "captures not read");
    seqs q[2];
    capture_seqs(&ca, &q[0], n);
    capture_seqs(&cb, &q[1], n);
    /* Each number's frame, from the same stream sent unimpaired. */
    size_t *frame_of = frame_numbers(n);
    uint64_t miss[2] = {0, 0}, both = 0, frames_both = 0, later = 0;
    size_t last_frame = (size_t)-1;
    for (size_t j = 0; j < n; j++) {
        miss[0] += !q[0].have[j];
        miss[1] += !q[1].have[j];
        if (!q[0].have[j] && !q[1].have[j]) {
            both++;
            frames_both += frame_of[j] != last_frame;
            last_frame = frame_of[j];
        }
        if (q[0].have[j] && q[1].have[j] && q[0].at[j] != q[1].at[j])
            later++;
    }
    free(frame_of);
    CHECK(ca.pk.n == l1->datagrams && cb.pk.n == l2->datagrams,
          "datagrams %zu / %zu, the sender says %llu / %llu", ca.pk.n, cb.pk.n,
          (unsigned long long)l1->datagrams, (unsigned long long)l2->datagrams);
    CHECK(miss[0] == l1->lost && miss[1] == l2->lost, "missing %llu / %llu, lost %llu / %llu",
          (unsigned long long)miss[0], (unsigned long long)miss[1], (unsigned long long)l1->lost,
          (unsigned long long)l2->lost);
    CHECK(l1->packets == l2->packets && l1->bursts && l2->bursts && l1->reordered &&
              l2->duplicated && l1->cut_segments == 0 && l2->cut_segments == 5 &&
              l2->cut_packets >= 5,
          "counts: bursts %llu / %llu, cut %llu (%llu packets)", (unsigned long long)l1->bursts,
          (unsigned long long)l2->bursts, (unsigned long long)l2->cut_segments,
          (unsigned long long)l2->cut_packets);
    CHECK(both == r.stats.lost_all_legs && (exclusive ? both == 0 : both > 0),
          "%s: %llu lost on both, the sender says %llu", exclusive ? "exclusive" : "independent",
          (unsigned long long)both, (unsigned long long)r.stats.lost_all_legs);
    CHECK(exclusive ? r.stats.segments_lost_all_legs == 0 && l2->kept > 0
                    : frames_both == r.stats.segments_lost_all_legs && l1->kept + l2->kept == 0,
          "frames hit on both %llu, the sender says %llu (kept %llu)",
          (unsigned long long)frames_both, (unsigned long long)r.stats.segments_lost_all_legs,
          (unsigned long long)l2->kept);
    /* A packet held back on one leg goes out later there; every other at its slot's time. */
    CHECK(later <= l1->reordered + l2->reordered,
          "%llu packets at different times on the legs, %llu reordered", (unsigned long long)later,
          (unsigned long long)(l1->reordered + l2->reordered));
    char json[4096];
    rtp_send_session_stats_json(s, 1, json, sizeof json);
    CHECK(strstr(json, exclusive ? "\"exclusive\": true" : "\"exclusive\": false") &&
              strstr(json, "\"leg\": [{") &&
              strstr(json, "\"burst_max\": 6, \"cut_from\": 30, "
                           "\"cut_segments\": 5"),
          "json: %s", json);
    for (int k = 0; k < 2; k++) {
        free(q[k].have);
        free(q[k].at);
        free(q[k].ts);
    }
    free_capture(&ca);
    free_capture(&cb);
    rtp_send_session_close(s);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_rtp_legs CLIP.jxs WORKDIR\n");
        return 2;
    }
    dir = argv[2];
    mkdir(dir, 0777);
    size_t len = 0;
    uint8_t *data = tu_read_file(argv[1], &len);
    CHECK(data && len, "cannot read %s", argv[1]);
    if (!data)
        return xsf_test_finish();
    clip_data = data;
    clip_len = len;
    test_two_captures();
    test_one_leg_sdp();
    test_leg_failures();
    test_loopback();
    test_impaired_legs(1);
    test_impaired_legs(0);
    free(data);
    return xsf_test_finish();
}
