/* The send session (rtp_send_session.h), `xsflow send` without its options:
 * default and given addresses in the SDP and the capture, the SSRC, sequence
 * number and first timestamp the packets carry, the report and the
 * --stats-json text, and what each failure names.
 *   test_rtp_send_session CLIP.jxs WORKDIR */
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
    char want[512], json[1024];
    snprintf(want, sizeof want,
             "{\"segments\": %llu, \"frames\": %llu, \"datagrams\": %llu, \"bytes\": %llu, "
             "\"first_timestamp\": %lu, \"complete\": false, \"impairment\": {\"loss\": 0, "
             "\"reorder\": 0, \"duplicate\": 0, \"seed\": 1, \"packets\": 0, \"lost\": 0, "
             "\"reordered\": 0, \"duplicated\": 0, \"segments_with_loss\": 0}}\n",
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
    free(data);
    return xsf_test_finish();
}
