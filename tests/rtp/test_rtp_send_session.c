/* The send session (rtp_send_session.h), `xsflow send` without its options:
 * default and given addresses in the SDP and the capture, the SSRC, sequence
 * number and first timestamp the packets carry, the report and the
 * --stats-json text, and what each failure names.
 *   test_rtp_send_session CLIP.jxs WORKDIR */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

static const uint8_t *clip_data;
static size_t clip_len;
static const char *dir;

static rtp_send_session_config base(const char *pcap)
{
    rtp_send_session_config c;
    memset(&c, 0, sizeof c);
    c.in = "clip.jxs";
    c.pcap = pcap;
    c.pacing = RTP_PACING_NARROW;
    c.rate_num = 50;
    c.rate_den = 1;
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

/* Defaults: 239.0.0.1:5004 from 192.0.2.1:50000, no source filter; the given SSRC and
 * first sequence number, the session's first timestamp, in every packet. */
static void test_defaults(void)
{
    char pcap[1024], sdp[1024];
    snprintf(pcap, sizeof pcap, "%s/defaults.pcap", dir);
    snprintf(sdp, sizeof sdp, "%s/defaults.sdp", dir);
    rtp_send_session_config c = base(pcap);
    c.sdp = sdp;
    c.ssrc = 0x12345678;
    c.ssrc_given = 1;
    c.first_seq = 65530;
    c.seq_given = 1;
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK && s, "open: %s",
          f.err.msg);
    if (!s)
        return;
    CHECK(rtp_send_session_run(s, 2, &f) == XSF_OK, "run: %s", f.err.msg);
    rtp_send_report r;
    rtp_send_session_report(s, &r);
    CHECK(r.codestreams >= 1 && r.stats.segments == 2 * r.codestreams &&
              r.stats.packets >= r.stats.segments && !r.socket && !r.impair,
          "report: %zu codestreams, %llu segments", r.codestreams,
          (unsigned long long)r.stats.segments);
    char a[96], b[96];
    rtp_addr_format(&r.dest, 1, a, sizeof a);
    rtp_addr_format(&r.source, 1, b, sizeof b);
    CHECK(!strcmp(a, "239.0.0.1:5004") && !strcmp(b, "192.0.2.1:50000"), "addresses %s from %s", a,
          b);

    char text[4096];
    rtp_sdp d;
    xsf_error err;
    xsf_error_clear(&err);
    const int n = read_text(sdp, text, sizeof text);
    CHECK(n > 0 && rtp_sdp_parse(text, (size_t)n, &d, &err) == XSF_OK, "SDP: %s", err.msg);
    CHECK(!strcmp(d.dest_addr, "239.0.0.1") && d.port == 5004 &&
              !strcmp(d.origin_addr, "192.0.2.1") && !d.source_addr[0] && d.ttl == 16 &&
              d.payload_type == 112 && d.rate_num == 50 && d.rate_den == 1 &&
              !strcmp(d.tp, "2110TPNL"),
          "SDP: c=%s/%u m=%u o=%s filter '%s' pt %u rate %u/%u tp %s", d.dest_addr, d.ttl, d.port,
          d.origin_addr, d.source_addr, d.payload_type, d.rate_num, d.rate_den, d.tp);

    rtp_pcap_reader *rd = NULL;
    CHECK(rtp_pcap_open_file(&rd, pcap, NULL, &err) == XSF_OK, "pcap: %s", err.msg);
    uint64_t count = 0, bad = 0;
    rtp_pcap_packet p;
    while (rd && rtp_pcap_next(rd, &p, &err) == XSF_OK) {
        rtp_header h;
        rtp_addr_format(&p.src, 1, a, sizeof a);
        rtp_addr_format(&p.dst, 1, b, sizeof b);
        bad += rtp_header_parse(p.udp_payload, p.bytes, &h, &err) != XSF_OK ||
               h.ssrc != 0x12345678 || h.seq != (uint16_t)(65530 + count) ||
               h.payload_type != 112 || (count == 0 && h.timestamp != r.first_timestamp) ||
               strcmp(a, "192.0.2.1:50000") || strcmp(b, "239.0.0.1:5004");
        count++;
    }
    rtp_pcap_close(rd);
    CHECK(count == r.stats.packets && !bad, "%llu packets (%llu sent), %llu wrong",
          (unsigned long long)count, (unsigned long long)r.stats.packets, (unsigned long long)bad);

    /* --stats-json: the counts, first_timestamp, complete, the impairment settings. */
    char want[1024], json[1024];
    snprintf(want, sizeof want,
             "{\"segments\": %llu, \"frames\": %llu, \"datagrams\": %llu, \"bytes\": %llu, "
             "\"first_timestamp\": %lu, \"complete\": false, \"impairment\": {\"loss\": 0, "
             "\"reorder\": 0, \"duplicate\": 0, \"seed\": 1, \"burst_max\": 0, \"cut_from\": 0, "
             "\"cut_segments\": 0, \"exclusive\": false, \"packets\": 0, \"datagrams\": 0, "
             "\"lost\": 0, \"reordered\": 0, \"duplicated\": 0, \"segments_with_loss\": 0, "
             "\"bursts\": 0, \"segments_cut\": 0, \"packets_cut\": 0, \"kept\": 0, "
             "\"lost_all_legs\": 0, \"segments_lost_all_legs\": 0}}\n",
             (unsigned long long)r.stats.segments, (unsigned long long)r.stats.segments,
             (unsigned long long)r.stats.packets, (unsigned long long)r.stats.bytes,
             (unsigned long)r.first_timestamp);
    const int jn = rtp_send_session_stats_json(s, 0, json, sizeof json);
    CHECK(jn == (int)strlen(want) && !strcmp(json, want), "stats json:\n%s want\n%s", json, want);
    char path[1024];
    snprintf(path, sizeof path, "%s/stats.json", dir);
    CHECK(rtp_send_session_write_stats(s, path, 1, &err) == XSF_OK &&
              read_text(path, text, sizeof text) > 0 && strstr(text, "\"complete\": true") &&
              !strncmp(text, want, 40),
          "stats file: %s", text);
    snprintf(path, sizeof path, "%s/no/such/dir/stats.json", dir);
    xsf_error_clear(&err);
    CHECK(rtp_send_session_write_stats(s, path, 1, &err) == XSF_ERR_IO &&
              !strcmp(err.msg, "cannot create the file"),
          "stats file in no folder: %s", err.msg);
    rtp_send_session_close(s);
}

/* IPv6: the default source is 2001:db8::1; a given source is the SDP's filter; fields
 * count half as many frames; impairments are counted in the JSON. */
static void test_ipv6_source(void)
{
    char pcap[1024], sdp[1024];
    snprintf(pcap, sizeof pcap, "%s/v6.pcap", dir);
    snprintf(sdp, sizeof sdp, "%s/v6.sdp", dir);
    rtp_send_session_config c = base(pcap);
    c.to = "[ff15::1]:6000";
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open v6: %s",
          f.err.msg);
    rtp_send_report r;
    char a[96];
    if (s) {
        rtp_send_session_report(s, &r);
        rtp_addr_format(&r.source, 1, a, sizeof a);
        CHECK(!strcmp(a, "[2001:db8::1]:50000"), "v6 default source %s", a);
        rtp_send_session_close(s);
    }
    c.source = "2001:db8::7";
    c.sdp = sdp;
    c.interlaced = 1;
    c.impaired = 1;
    c.impair.loss = 0.01;
    c.impair.seed = 9;
    s = NULL;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open v6 source: %s",
          f.err.msg);
    if (!s)
        return;
    CHECK(rtp_send_session_run(s, 2, &f) == XSF_OK, "run v6: %s", f.err.msg);
    char text[4096];
    rtp_sdp d;
    xsf_error err;
    xsf_error_clear(&err);
    const int n = read_text(sdp, text, sizeof text);
    CHECK(n > 0 && rtp_sdp_parse(text, (size_t)n, &d, &err) == XSF_OK && d.ipv6 && d.port == 6000 &&
              !strcmp(d.source_addr, "2001:db8::7") && !strcmp(d.origin_addr, "2001:db8::7") &&
              d.interlace,
          "v6 SDP: %s", text);
    rtp_send_session_report(s, &r);
    char json[1024], want[128];
    rtp_send_session_stats_json(s, 1, json, sizeof json);
    snprintf(want, sizeof want, "\"frames\": %llu,", (unsigned long long)(r.stats.segments / 2));
    CHECK(r.impair && strstr(json, want) && strstr(json, "\"loss\": 0.01,") &&
              strstr(json, "\"seed\": 9,"),
          "interlaced, impaired json: %s", json);
    snprintf(want, sizeof want, "\"packets\": %llu,",
             (unsigned long long)(r.impair ? r.impair->packets : 0));
    CHECK(r.impair && r.impair->packets && strstr(json, want), "impaired packets in %s", json);
    rtp_send_session_close(s);
}

/* What each failure names, and whether it is a usage error. */
static void test_failures(void)
{
    char pcap[1024], sdp[1024];
    snprintf(pcap, sizeof pcap, "%s/no/such/dir/out.pcap", dir);
    snprintf(sdp, sizeof sdp, "%s/no/such/dir/out.sdp", dir);
    rtp_send_session *s = (rtp_send_session *)&s;
    rtp_send_failure f;
    rtp_send_session_config c = base("x.pcap");
    c.to = "nonsense";
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) != XSF_OK && !s && f.usage &&
              !strcmp(f.subject, "--to"),
          "bad --to: %s", f.subject);
    c.to = NULL;
    c.source = "nonsense";
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) != XSF_OK && !s && f.usage &&
              !strcmp(f.subject, "--source"),
          "bad --source: %s", f.subject);
    c.source = NULL;
    CHECK(rtp_send_session_open(&s, &c, clip_data, 0, &f) == XSF_ERR_TRUNCATED && !s && !f.usage &&
              !strcmp(f.subject, "clip.jxs"),
          "empty clip: %s", f.subject);
    c.sdp = sdp;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_ERR_IO && !s && !f.usage &&
              f.subject == sdp && !strcmp(f.err.msg, "cannot write the SDP file"),
          "SDP in no folder: %s: %s", f.subject, f.err.msg);
    c.sdp = NULL;

    /* Run failures leave the session, with nothing sent. */
    c.pcap = pcap;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    if (s) {
        CHECK(rtp_send_session_run(s, 1, &f) != XSF_OK && !f.usage && f.subject == pcap,
              "pcap in no folder: %s", f.subject);
        rtp_send_report r;
        rtp_send_session_report(s, &r);
        char json[1024];
        rtp_send_session_stats_json(s, 0, json, sizeof json);
        static const char zero[] =
            "{\"segments\": 0, \"frames\": 0, \"datagrams\": 0, \"bytes\": 0, ";
        CHECK(!r.stats.segments && !r.stats.packets && !strncmp(json, zero, sizeof zero - 1),
              "nothing sent: %s", json);
        rtp_send_session_close(s);
    }
    snprintf(pcap, sizeof pcap, "%s/refused.pcap", dir);
    c.pcap = pcap;
    c.packet_bytes = 10;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    if (s) {
        CHECK(rtp_send_session_run(s, 1, &f) == XSF_ERR_ARG && f.usage &&
                  !strcmp(f.subject, "clip.jxs"),
              "packets too small: %s", f.subject);
        rtp_send_session_close(s);
    }
    c.packet_bytes = 1440;
    c.impaired = 1;
    c.impair.loss = 2;
    CHECK(rtp_send_session_open(&s, &c, clip_data, clip_len, &f) == XSF_OK, "open: %s", f.err.msg);
    if (s) {
        CHECK(rtp_send_session_run(s, 1, &f) == XSF_ERR_ARG && f.usage &&
                  !strcmp(f.subject, "--loss"),
              "loss 2: %s", f.subject);
        rtp_send_session_close(s);
    }
    rtp_send_session_close(NULL);
}

/* A live-like source over the clip's codestreams: what is left unknown, a failure at
 * frame `fail_at` (0: none), its own --stats-json member. */
typedef struct test_source {
    rtp_clip clip;
    size_t k, fail_at, limit; /* handed out; fail before this one; how many (clip count) */
} test_source;

static xsf_status test_next(void *ctx, rtp_source_frame *f, xsf_error *err)
{
    test_source *t = ctx;
    memset(f, 0, sizeof *f);
    if (t->fail_at && t->k == t->fail_at)
        return xsf_error_set(err, XSF_ERR_IO, "frame %zu: the camera went away", t->k);
    if (t->k >= t->limit)
        return XSF_OK;
    const size_t i = t->k % t->clip.count;
    f->cs = t->clip.data + t->clip.offset[i];
    f->len = t->clip.bytes[i];
    f->index = t->k++;
    f->left = RTP_FRAMES_LEFT_UNKNOWN;
    return XSF_OK;
}

static int test_json(void *ctx, char *out, size_t cap)
{
    const test_source *t = ctx;
    return snprintf(out, cap, "\"encoder\": {\"frames\": %zu}", t->k);
}

/* The sender into a capture file of fixed times; returns the file's bytes (malloc). */
static uint8_t *send_to_pcap(const char *name, const rtp_clip *clip, const rtp_frame_source *src,
                             size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pcap", dir, name);
    xsf_error err;
    xsf_error_clear(&err);
    rtp_pcap_writer *w = NULL;
    CHECK(rtp_pcap_writer_open(&w, path, &err) == XSF_OK, "%s: %s", path, err.msg);
    if (!w)
        return NULL;
    rtp_sender_config sc;
    memset(&sc, 0, sizeof sc);
    sc.packetizer.payload_type = 112;
    sc.packetizer.ssrc = 0x1234;
    sc.packetizer.boxes = 1;
    sc.pacing = RTP_PACING_NARROW;
    sc.rate_num = 50;
    sc.rate_den = 1;
    sc.first_timestamp = 1000;
    sc.pcap = w;
    sc.pcap_start_ns = 1700000000ull * 1000000000ull;
    sc.impaired = 1;
    sc.impair = (rtp_impair_config){.loss = 0.3, .reorder = 0.2, .duplicate = 0.1, .seed = 7};
    rtp_addr_parse("192.0.2.1:50000", 1, &sc.pcap_src, &err);
    rtp_addr_parse("239.0.0.1:5004", 1, &sc.pcap_dst, &err);
    rtp_sender *s = NULL;
    CHECK(rtp_sender_create(&s, &sc, &err) == XSF_OK, "sender: %s", err.msg);
    if (s)
        CHECK((src ? rtp_sender_send_source(s, src, &err)
                   : rtp_sender_send_clip(s, clip, 3, &err)) == XSF_OK,
              "%s: send: %s", name, err.msg);
    rtp_sender_destroy(s);
    CHECK(rtp_pcap_writer_close(w, &err) == XSF_OK, "close: %s", err.msg);
    return tu_read_file(path, len);
}

/* A source that does not know what is left is read one ahead with impairments: the same
 * packets as the clip's (whose every `left` is known), the first and last frame spared. */
static void test_source_sender(void)
{
    test_source t;
    memset(&t, 0, sizeof t);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_clip_open(&t.clip, clip_data, clip_len, &err) == XSF_OK, "clip: %s", err.msg);
    t.limit = 3 * t.clip.count;
    const rtp_frame_source src = {.next = test_next, .ctx = &t};
    size_t a_len = 0, b_len = 0;
    uint8_t *a = send_to_pcap("clip3", &t.clip, NULL, &a_len);
    uint8_t *b = send_to_pcap("source3", NULL, &src, &b_len);
    CHECK(a && b && a_len > 1000 && a_len == b_len && !memcmp(a, b, a_len),
          "a clip and a source of unknown length: %zu and %zu bytes", a_len, b_len);
    free(a);
    free(b);
    rtp_clip_free(&t.clip);
}

/* A session over a source: the first codestream read at open (its header for the SDP), all
 * of them sent, the source's member in --stats-json; a source's failure names `in`. */
static void test_source_session(void)
{
    test_source t;
    memset(&t, 0, sizeof t);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_clip_open(&t.clip, clip_data, clip_len, &err) == XSF_OK, "clip: %s", err.msg);
    t.limit = 2 * t.clip.count;
    const rtp_frame_source src = {.next = test_next, .ctx = &t, .stats_json = test_json};
    char pcap[1024], sdp[1024];
    snprintf(pcap, sizeof pcap, "%s/source.pcap", dir);
    snprintf(sdp, sizeof sdp, "%s/source.sdp", dir);
    rtp_send_session_config c = base(pcap);
    c.in = "live.y4m";
    c.sdp = sdp;
    rtp_send_session *s = NULL;
    rtp_send_failure f;
    CHECK(rtp_send_session_open_source(&s, &c, &src, &f) == XSF_OK && s && t.k == 1,
          "open: %s (%zu read)", f.err.msg, t.k);
    char text[4096];
    CHECK(read_text(sdp, text, sizeof text) > 0 && strstr(text, "width=") &&
              strstr(text, "a=rtpmap:112 jxsv/90000"),
          "the SDP from the first codestream: %s", text);
    if (s) {
        CHECK(rtp_send_session_run(s, 5, &f) == XSF_OK, "run: %s", f.err.msg);
        rtp_send_report r;
        rtp_send_session_report(s, &r);
        char json[2048], want[64];
        rtp_send_session_stats_json(s, 1, json, sizeof json);
        snprintf(want, sizeof want, "\"encoder\": {\"frames\": %zu}}\n", t.limit);
        CHECK(r.stats.segments == t.limit && r.codestreams == t.limit && strstr(json, want),
              "%llu segments of %zu, %zu handed out; %s", (unsigned long long)r.stats.segments,
              t.limit, r.codestreams, json);
        rtp_send_session_close(s);
    }
    /* A failure after two frames: those went out, the source's message names `in`. */
    t.k = 0;
    t.fail_at = 2;
    c.sdp = NULL;
    CHECK(rtp_send_session_open_source(&s, &c, &src, &f) == XSF_OK && s, "open: %s", f.err.msg);
    if (s) {
        CHECK(rtp_send_session_run(s, 1, &f) == XSF_ERR_IO && !f.usage &&
                  !strcmp(f.subject, "live.y4m") &&
                  !strcmp(f.err.msg, "frame 2: the camera went away"),
              "source failure: %s: %s", f.subject, f.err.msg);
        rtp_send_report r;
        rtp_send_session_report(s, &r);
        CHECK(r.stats.segments == 2, "%llu segments before the failure",
              (unsigned long long)r.stats.segments);
        rtp_send_session_close(s);
    }
    /* Nothing to send, or a first codestream that is none. */
    t.k = 0;
    t.fail_at = 0;
    t.limit = 0;
    CHECK(rtp_send_session_open_source(&s, &c, &src, &f) == XSF_ERR_INVALID && !s &&
              !strcmp(f.subject, "live.y4m") && !strcmp(f.err.msg, "no codestream to send"),
          "empty source: %s: %s", f.subject, f.err.msg);
    static const uint8_t junk[64] = {1, 2, 3};
    rtp_clip saved = t.clip;
    t.clip.data = junk;
    t.clip.offset[0] = 0;
    t.clip.bytes[0] = sizeof junk;
    t.limit = 1;
    CHECK(rtp_send_session_open_source(&s, &c, &src, &f) != XSF_OK && !s &&
              !strncmp(f.err.msg, "codestream 0: ", 14),
          "junk: %s", f.err.msg);
    t.clip = saved;
    rtp_clip_free(&t.clip);
}

/* The command line's side (rtp_send_session_knobs, _config_init, _config_finish) and the
 * report in words: knobs set the fields the session reads, a cut in frames becomes fields
 * of an interlaced stream, the refusals, and the lines of a run with impairments. */
static void test_knobs_and_report(void)
{
    rtp_send_session_config c;
    rtp_send_session_config_init(&c);
    CHECK(c.rate_num == 25 && c.rate_den == 1 && c.packet_bytes == 1440 && c.payload_type == 112 &&
              c.ttl == 16 && c.loops == 1 && c.boxes == 1 && c.impair.seed == 1,
          "defaults");
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(rtp_send_session_knobs, &c,
                            "fps=30000:1001 packet-size=9000 pt=96 ssrc=0xffffffff seq=65535 "
                            "loop=3 pacing=wide mode=slice burst=4 loss=0.5 seed=9 loss-burst=3 "
                            "interlaced no-boxes",
                            "send sessions", &err) == XSF_OK,
          "knobs: %s", err.msg);
    CHECK(c.rate_num == 30000 && c.rate_den == 1001 && c.packet_bytes == 9000 &&
              c.payload_type == 96 && c.ssrc == 0xffffffffu && c.ssrc_given &&
              c.first_seq == 65535 && c.seq_given && c.loops == 3 && c.loops_given &&
              c.pacing == RTP_PACING_WIDE && c.mode == RTP_JXS_SLICE && c.burst == 4 &&
              c.impair.loss == 0.5 && c.impair.seed == 9 && c.impair.burst_max == 3 &&
              c.interlaced && !c.boxes,
          "knob values");
    CHECK(xsf_options_apply(rtp_send_session_knobs, &c, "pt=95", "s", &err) == XSF_ERR_ARG &&
              xsf_options_apply(rtp_send_session_knobs, &c, "seq=65536", "s", &err) ==
                  XSF_ERR_ARG &&
              xsf_options_apply(rtp_send_session_knobs, &c, "burst=0", "s", &err) == XSF_ERR_ARG,
          "bounds refused");
    rtp_send_failure f;
    c.in = "clip.jxs";
    c.cut = "2:3";
    CHECK(rtp_send_session_config_finish(&c, &f) == XSF_ERR_ARG && f.usage &&
              !strcmp(f.subject, "clip.jxs"),
          "no destination: %s", f.err.msg);
    c.pcap = "x.pcap";
    CHECK(rtp_send_session_config_finish(&c, &f) == XSF_OK && c.impaired &&
              c.impair.cut_from == 4 && c.impair.cut_segments == 6,
          "cut of an interlaced stream: %llu %llu", (unsigned long long)c.impair.cut_from,
          (unsigned long long)c.impair.cut_segments);
    c.cut = "2:0";
    CHECK(rtp_send_session_config_finish(&c, &f) == XSF_ERR_ARG && !strcmp(f.subject, "--cut"),
          "empty cut refused");

    char pcap[1024];
    snprintf(pcap, sizeof pcap, "%s/report.pcap", dir);
    rtp_send_session_config b = base(pcap);
    b.impaired = 1;
    b.impair.loss = 0.2;
    b.loops = 2;
    rtp_send_session *s = NULL;
    if (rtp_send_session_open(&s, &b, clip_data, clip_len, &f) != XSF_OK ||
        rtp_send_session_run(s, 2, &f) != XSF_OK) {
        CHECK(0, "session: %s", f.err.msg);
        rtp_send_session_close(s);
        return;
    }
    rtp_send_report r;
    rtp_send_session_report(s, &r);
    char text[2048] = "";
    FILE *m = fmemopen(text, sizeof text - 1, "w");
    rtp_send_report_format(m, &b, &r, NULL, "MORE\n");
    rtp_send_impairments_format(m, &b, &r);
    fclose(m);
    char want[256];
    snprintf(want, sizeof want, "sent %llu frames (%zu codestream%s x 2) as %llu packets",
             (unsigned long long)r.stats.segments, r.codestreams, r.codestreams == 1 ? "" : "s",
             (unsigned long long)r.stats.packets);
    CHECK(!strncmp(text, want, strlen(want)) &&
              strstr(text, "codestream mode, narrow pacing, to ") && strstr(text, pcap) &&
              strstr(text, "\nMORE\nsend: impairments (seed 1): of ") &&
              !strstr(text, "send calls"),
          "report:\n%s", text);
    rtp_send_session_close(s);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_rtp_send_session CLIP.jxs WORKDIR\n");
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
    test_defaults();
    test_ipv6_source();
    test_failures();
    test_source_sender();
    test_source_session();
    test_knobs_and_report();
    free(data);
    return xsf_test_finish();
}
