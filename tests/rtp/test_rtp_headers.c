/* Unit tests of rtp/: the RTP header (RFC 3550), sequence number extension,
 * the RFC 9134 payload header bit by bit (4.3), the picture segment boxes
 * and their colour specification from the SDP (3.3, 7), SDP writing and
 * reading and the fmtp rules (7.1, 8.1), pacing, TP (5) and timestamps of
 * frames and fields (4.2, erratum 6752). */
#include <string.h>

#include "rtp.h"
#include "test.h"

static void test_rtp_header(void)
{
    xsf_error err;
    rtp_header h;
    /* V=2 P=1 X=1 CC=2 M=1 PT=112, seq 0xabcd, ts 0x01020304, ssrc 0xdeadbeef,
     * CSRCs 1 and 2, extension profile 0xbede with one word, 3 payload
     * bytes, then 2 bytes of padding (count 2). */
    const uint8_t pkt[] = {0xb2, 0xf0, 0xab, 0xcd, 0x01, 0x02, 0x03, 0x04, 0xde, 0xad, 0xbe,
                           0xef, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0xbe, 0xde,
                           0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0xaa, 0xbb, 0xcc, 0x00, 0x02};
    xsf_error_clear(&err);
    CHECK(rtp_header_parse(pkt, sizeof pkt, &h, &err) == XSF_OK, "parse: %s", err.msg);
    CHECK(h.version == 2 && h.padding == 1 && h.extension == 1 && h.csrc_count == 2, "V/P/X/CC");
    CHECK(h.marker == 1 && h.payload_type == 112, "M %u PT %u", h.marker, h.payload_type);
    CHECK(h.seq == 0xabcd && h.timestamp == 0x01020304 && h.ssrc == 0xdeadbeef, "seq/ts/ssrc");
    CHECK(h.csrc[0] == 1 && h.csrc[1] == 2, "CSRCs");
    CHECK(h.ext_profile == 0xbede && h.ext_bytes == 4 && h.ext_data == pkt + 24, "extension");
    CHECK(h.payload == pkt + 28 && h.payload_bytes == 3 && h.padding_bytes == 2,
          "payload %zu padding %zu", h.payload_bytes, h.padding_bytes);

    /* Malformed: each must fail without reading past the packet. */
    uint8_t bad[sizeof pkt];
    memcpy(bad, pkt, sizeof pkt);
    bad[0] = 0x72; /* version 1 */
    CHECK(rtp_header_parse(bad, sizeof bad, &h, &err) == XSF_ERR_INVALID, "version 1");
    CHECK(rtp_header_parse(pkt, 11, &h, &err) == XSF_ERR_TRUNCATED, "11 bytes");
    CHECK(rtp_header_parse(pkt, 16, &h, &err) == XSF_ERR_TRUNCATED, "CSRCs cut");
    CHECK(rtp_header_parse(pkt, 22, &h, &err) == XSF_ERR_TRUNCATED, "extension header cut");
    CHECK(rtp_header_parse(pkt, 26, &h, &err) == XSF_ERR_TRUNCATED, "extension data cut");
    memcpy(bad, pkt, sizeof pkt);
    bad[sizeof bad - 1] = 0; /* padding count 0 */
    CHECK(rtp_header_parse(bad, sizeof bad, &h, &err) == XSF_ERR_INVALID, "padding 0");
    bad[sizeof bad - 1] = 9; /* more padding than payload */
    CHECK(rtp_header_parse(bad, sizeof bad, &h, &err) == XSF_ERR_INVALID, "padding 9");

    /* Write, then read back. */
    rtp_header w;
    memset(&w, 0, sizeof w);
    w.marker = 1;
    w.payload_type = 96;
    w.seq = 65535;
    w.timestamp = 4000000000u;
    w.ssrc = 0x12345678;
    w.csrc_count = 1;
    w.csrc[0] = 77;
    uint8_t out[64];
    const size_t n = rtp_header_write(&w, out, sizeof out);
    CHECK(n == 16, "written %zu", n);
    CHECK(rtp_header_write(&w, out, 15) == 0, "too small");
    CHECK(rtp_header_parse(out, n, &h, &err) == XSF_OK && h.marker && h.payload_type == 96 &&
              h.seq == 65535 && h.timestamp == 4000000000u && h.ssrc == 0x12345678 &&
              h.csrc_count == 1 && h.csrc[0] == 77 && h.payload_bytes == 0,
          "round trip");
}

static void test_seq_extension(void)
{
    rtp_seq_extender x = {0};
    const uint64_t a = rtp_seq_extend(&x, 65534);
    CHECK(rtp_seq_extend(&x, 65535) == a + 1, "65535");
    CHECK(rtp_seq_extend(&x, 0) == a + 2, "wrap to 0");
    CHECK(rtp_seq_extend(&x, 1) == a + 3, "1");
    CHECK(rtp_seq_extend(&x, 65535) == a + 1, "late 65535 after the wrap");
    CHECK(x.highest == a + 3, "highest unchanged by a late packet");
    /* Many wraps. */
    uint64_t last = a + 3;
    uint16_t s = 1;
    int ok = 1;
    for (int i = 0; i < 300000; i++) {
        s++;
        const uint64_t e = rtp_seq_extend(&x, s);
        ok &= e == last + 1;
        last = e;
    }
    CHECK(ok, "300000 in a row across 4 wraps");
    CHECK(last - a == 300003, "extended by %llu", (unsigned long long)(last - a));
}

static void test_payload_header(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    /* Every field at its maximum, one at a time, against the RFC 9134 4.3
     * layout |T|K|L| I |F counter (5)|SEP counter (11)|P counter (11)|, MSB
     * first. T=1 throughout but in the K=1 case: T=0 needs K=1. */
    struct {
        rtp_jxs_header h;
        uint32_t word;
    } cases[] = {
        {{.t = 1}, 0x80000000u},
        {{.k = 1}, 0x40000000u},
        {{.t = 1, .l = 1}, 0xa0000000u},
        {{.t = 1, .i = 3}, 0x98000000u},
        {{.t = 1, .i = 2}, 0x90000000u},
        {{.t = 1, .f = 31}, 0x87c00000u},
        {{.t = 1, .f = 1}, 0x80400000u},
        {{.t = 1, .sep = 2047}, 0x803ff800u},
        {{.t = 1, .sep = 1}, 0x80000800u},
        {{.t = 1, .p = 2047}, 0x800007ffu},
        {{.t = 1, .k = 1, .l = 1, .i = 3, .f = 21, .sep = 1234, .p = 567},
         1u << 31 | 1u << 30 | 1u << 29 | 3u << 27 | 21u << 22 | 1234u << 11 | 567u},
        {{.k = 1, .l = 1, .i = 2, .f = 9, .sep = 0x7ff, .p = 3},
         1u << 30 | 1u << 29 | 2u << 27 | 9u << 22 | 0x7ffu << 11 | 3u},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t b[4];
        rtp_jxs_header_write(&cases[c].h, b);
        const uint32_t w = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        CHECK(w == cases[c].word, "case %zu: wrote %08x, expected %08x", c, w, cases[c].word);
        rtp_jxs_header r;
        CHECK(rtp_jxs_header_parse(b, 4, &r, &err) == XSF_OK && r.t == cases[c].h.t &&
                  r.k == cases[c].h.k && r.l == cases[c].h.l && r.i == cases[c].h.i &&
                  r.f == cases[c].h.f && r.sep == cases[c].h.sep && r.p == cases[c].h.p,
              "case %zu: read back", c);
    }
    const uint8_t reserved[4] = {0x88, 0, 0, 0}; /* T = 1, I = 01 */
    rtp_jxs_header r;
    CHECK(rtp_jxs_header_parse(reserved, 4, &r, &err) == XSF_ERR_INVALID, "I=01 is reserved");
    CHECK(rtp_jxs_header_parse(reserved, 3, &r, &err) == XSF_ERR_TRUNCATED, "3 bytes");
    /* RFC 9134 4.3: T=0 (out of order) requires K=1. */
    const uint8_t t0k0[4] = {0x20, 0, 0, 0}, t0k1[4] = {0x60, 0, 0, 0};
    CHECK(rtp_jxs_header_parse(t0k0, 4, &r, &err) == XSF_ERR_INVALID, "T=0 with K=0 accepted");
    CHECK(rtp_jxs_header_parse(t0k1, 4, &r, &err) == XSF_OK && !r.t && r.k && r.l,
          "T=0 with K=1 refused");
}

static void test_boxes(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_jxs_boxes b = {.brat_mbps = 1234,
                       .frat_den_code = 2,
                       .frat_num = 60,
                       .schar = 0x8090,
                       .tcod = 0x01020304,
                       .ppih = 0x3540,
                       .plev = 0x2080,
                       .colr_meth = 5,
                       .primaries = 1,
                       .transfer = 1,
                       .matrix = 1,
                       .full_range = 1};
    uint8_t buf[RTP_JXS_BOXES_BYTES + 4];
    CHECK(rtp_jxs_boxes_write(&b, buf, sizeof buf) == RTP_JXS_BOXES_BYTES, "write");
    CHECK(!memcmp(buf + 4, "jpvs", 4) && !memcmp(buf + 12, "jpvi", 4) &&
              !memcmp(buf + 34, "jxpl", 4) && !memcmp(buf + 46, "colr", 4),
          "box types in place");
    buf[60] = 0xff;
    buf[61] = 0x10;
    size_t off = 0;
    rtp_jxs_boxes r;
    CHECK(rtp_jxs_boxes_parse(buf, 64, &off, &r, &err) == XSF_OK, "parse: %s", err.msg);
    CHECK(off == 60 && r.present && r.brat_mbps == 1234 && r.frat_den_code == 2 &&
              r.frat_num == 60 && r.schar == 0x8090 && r.tcod == 0x01020304 && r.ppih == 0x3540 &&
              r.plev == 0x2080 && r.colr_meth == 5 && r.primaries == 1 && r.full_range == 1,
          "fields read back");
    CHECK(rtp_jxs_boxes_parse(buf + 60, 4, &off, &r, &err) == XSF_OK && off == 0 && !r.present,
          "bare codestream");
    CHECK(rtp_jxs_boxes_parse(buf, 30, &off, &r, &err) != XSF_OK, "cut inside a box");
    uint8_t loop[8] = {0, 0, 0, 0, 'j', 'p', 'v', 's'}; /* LBox 0: not allowed here */
    CHECK(rtp_jxs_boxes_parse(loop, 8, &off, &r, &err) != XSF_OK, "LBox 0");
}

/* The colour specification box agrees with the SDP's colorimetry, TCS and
 * RANGE (RFC 9134 7, 8.1), in H.273 code points. */
static void test_colr_from_sdp(void)
{
    struct {
        const char *colorimetry, *tcs, *range, *sampling;
        unsigned depth;
        uint16_t primaries, transfer, matrix;
        uint8_t full;
    } cases[] = {
        {"BT709", "SDR", "NARROW", "YCbCr-4:2:2", 10, 1, 1, 1, 0},
        {"BT709", "SDR", "FULL", "RGB", 8, 1, 1, 0, 1},
        {"BT709", "SDR", NULL, "YCbCr-4:2:2", 10, 1, 1, 1, 0}, /* RANGE absent: NARROW */
        {"BT2020", "SDR", "NARROW", "YCbCr-4:2:2", 10, 9, 14, 9, 0},
        {"BT2020", "SDR", "NARROW", "CLYCbCr-4:2:2", 12, 9, 15, 10, 0},
        {"BT2100", "PQ", "NARROW", "YCbCr-4:2:2", 10, 9, 16, 9, 0},
        {"BT2100", "HLG", "FULL", "ICtCp-4:2:2", 10, 9, 18, 14, 1},
        {"SMPTE240M", "SDR", "NARROW", "YCbCr-4:2:2", 10, 7, 7, 7, 0},
        {"BT601", "SDR", "NARROW", "YCbCr-4:2:2", 8, 2, 6, 6, 0},
        {"XYZ", "UNSPECIFIED", "FULL", "XYZ", 12, 10, 2, 0, 1},
        {"UNSPECIFIED", "UNSPECIFIED", NULL, "UNSPECIFIED", 8, 2, 2, 2, 1}, /* FULL assumed */
        {NULL, NULL, NULL, NULL, 8, 2, 2, 2, 0},
        {"bt709", "sdr", "narrow", "YCbCr-4:4:4", 8, 1, 1, 1, 0}, /* case-insensitive */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rtp_jxs_boxes b;
        memset(&b, 0, sizeof b);
        rtp_jxs_colr_from_sdp(&b, cases[c].colorimetry, cases[c].tcs, cases[c].range,
                              cases[c].sampling, cases[c].depth);
        CHECK(b.colr_meth == 5 && b.primaries == cases[c].primaries &&
                  b.transfer == cases[c].transfer && b.matrix == cases[c].matrix &&
                  b.full_range == cases[c].full,
              "case %zu (%s %s): colr %u/%u/%u full %u", c,
              cases[c].colorimetry ? cases[c].colorimetry : "-", cases[c].tcs ? cases[c].tcs : "-",
              b.primaries, b.transfer, b.matrix, b.full_range);
    }
}

static void test_sdp(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_sdp s;
    rtp_sdp_init(&s);
    snprintf(s.dest_addr, sizeof s.dest_addr, "239.10.20.30");
    snprintf(s.source_addr, sizeof s.source_addr, "10.0.0.1");
    s.ttl = 32;
    s.port = 20000;
    s.payload_type = 98;
    s.packetmode = 1;
    snprintf(s.profile, sizeof s.profile, "Main422.10");
    snprintf(s.level, sizeof s.level, "2k-1");
    snprintf(s.sublevel, sizeof s.sublevel, "Sublev3bpp");
    s.depth = 10;
    s.width = 1920;
    s.height = 1080;
    s.rate_num = 60000;
    s.rate_den = 1001;
    snprintf(s.sampling, sizeof s.sampling, "YCbCr-4:2:2");
    snprintf(s.colorimetry, sizeof s.colorimetry, "BT709");
    snprintf(s.tcs, sizeof s.tcs, "SDR");
    snprintf(s.range, sizeof s.range, "NARROW");
    s.interlace = 1;
    snprintf(s.tp, sizeof s.tp, "2110TPNL");
    char text[2048];
    const size_t n = rtp_sdp_write(&s, text, sizeof text);
    CHECK(n > 0 && n < sizeof text, "written %zu", n);
    CHECK(strstr(text, "a=rtpmap:98 jxsv/90000\r\n") != NULL, "rtpmap");
    CHECK(strstr(text, "c=IN IP4 239.10.20.30/32\r\n") != NULL, "c= with TTL");
    CHECK(strstr(text, "a=source-filter: incl IN IP4 239.10.20.30 10.0.0.1\r\n") != NULL,
          "source filter");
    CHECK(strstr(
              text,
              "a=fmtp:98 "
              "packetmode=1;transmode=1;profile=Main422.10;level=2k-1;sublevel=Sublev3bpp;depth=10;"
              "width=1920;height=1080;exactframerate=60000/"
              "1001;sampling=YCbCr-4:2:2;colorimetry=BT709;"
              "interlace;TCS=SDR;RANGE=NARROW;SSN=ST2110-22:2019;TP=2110TPNL\r\n") != NULL,
          "fmtp: %s", text);
    rtp_sdp r;
    CHECK(rtp_sdp_parse(text, n, &r, &err) == XSF_OK, "parse: %s", err.msg);
    CHECK(!strcmp(r.dest_addr, "239.10.20.30") && r.ttl == 32 && r.port == 20000 &&
              r.payload_type == 98 && !strcmp(r.source_addr, "10.0.0.1"),
          "addresses");
    CHECK(r.packetmode == 1 && r.transmode == 1 && !strcmp(r.profile, "Main422.10") &&
              !strcmp(r.level, "2k-1") && !strcmp(r.sublevel, "Sublev3bpp") && r.depth == 10 &&
              r.width == 1920 && r.height == 1080 && r.rate_num == 60000 && r.rate_den == 1001 &&
              !strcmp(r.sampling, "YCbCr-4:2:2") && !strcmp(r.colorimetry, "BT709") &&
              !strcmp(r.tcs, "SDR") && !strcmp(r.range, "NARROW") &&
              !strcmp(r.ssn, "ST2110-22:2019") && !strcmp(r.tp, "2110TPNL") && r.interlace == 1,
          "fmtp read back");

    /* A description written by hand: LF line ends, an audio section first,
     * the session-level c=, upper-case encoding name, IPv6. */
    const char *hand =
        "v=0\no=- 123 456 IN IP6 ::1\ns=cam 1\nc=IN IP6 ff15::1234\nt=0 0\n"
        "m=audio 5000 RTP/AVP 97\na=rtpmap:97 L24/48000/2\n"
        "m=video 5006 RTP/AVP 112 113\na=rtpmap:113 JXSV/90000\n"
        "a=fmtp:113 packetmode=0; sampling=YCbCr-4:4:4; exactframerate=50; depth=12\n";
    CHECK(rtp_sdp_parse(hand, strlen(hand), &r, &err) == XSF_OK, "hand-written: %s", err.msg);
    CHECK(r.ipv6 && !strcmp(r.dest_addr, "ff15::1234") && r.port == 5006 && r.payload_type == 113 &&
              r.packetmode == 0 && r.depth == 12 && r.rate_num == 50 && r.rate_den == 1 &&
              !strcmp(r.sampling, "YCbCr-4:4:4"),
          "hand-written fields");

    const char *bad[] = {
        "v=0\nm=video 5004 RTP/AVP 96\nc=IN IP4 1.2.3.4\na=rtpmap:96 raw/90000\n",  /* no jxsv */
        "v=0\nm=video 5004 RTP/AVP 96\nc=IN IP4 1.2.3.4\na=rtpmap:97 jxsv/90000\n", /* PT not listed
                                                                                     */
        "v=0\nm=video 5004 RTP/AVP 96\nc=IN IP4 1.2.3.4\na=rtpmap:96 jxsv/48000\n", /* clock */
        "v=0\nm=video 70000 RTP/AVP 96\nc=IN IP4 1.2.3.4\na=rtpmap:96 jxsv/90000\n", /* port */
        "v=0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 jxsv/90000\n",                    /* no c= */
        "v=0\nm=video 5004 RTP/AVP 96\nc=IN IP4 1.2.3.4\na=rtpmap:96 jxsv/90000\na=fmtp:96 "
        "depth=17\n",
        "v=0\nm=video 5004 RTP/AVP 96\nc=IN IP4 1.2.3.4\na=rtpmap:96 jxsv/90000\na=fmtp:96 "
        "exactframerate=0\n",
        "v=0\ngarbage\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xsf_error_clear(&err);
        CHECK(rtp_sdp_parse(bad[i], strlen(bad[i]), &r, &err) != XSF_OK, "bad SDP %zu accepted", i);
        CHECK(err.msg[0] != '\0', "bad SDP %zu: no message", i);
    }
    char name[32];
    CHECK(rtp_sdp_profile_name(0x3540, name, sizeof name) && !strcmp(name, "Main422.10"),
          "profile name %s", name);
    CHECK(rtp_sdp_profile_name(0x2500, name, sizeof name) && !strcmp(name, "Light-Subline422.10"),
          "profile name %s", name);
    CHECK(rtp_sdp_profile_name(0x1234, name, sizeof name) == NULL, "unknown profile named %s",
          name);
    CHECK(rtp_sdp_level_name(0x2080, name, sizeof name) && !strcmp(name, "4k-1"), "level %s", name);
    CHECK(rtp_sdp_sublevel_name(0x2004, name, sizeof name) && !strcmp(name, "Sublev3bpp"),
          "sublevel %s", name);
    CHECK(rtp_sdp_level_name(0x9900, name, sizeof name) == NULL, "unknown level named");
    CHECK(rtp_sdp_sublevel_name(0x2077, name, sizeof name) == NULL, "unknown sublevel named");
}

/* The RFC 9134 7.1 / 8.1 rules of the fmtp parameters. */
static void test_sdp_rules(void)
{
    xsf_error err;
    rtp_sdp s, r;
    char text[2048];
    rtp_sdp_init(&s);
    CHECK(s.tp[0] == '\0' && s.transmode == 1, "defaults: no TP, transmode 1");
    snprintf(s.dest_addr, sizeof s.dest_addr, "192.0.2.7");
    /* exactframerate: an integer rate as one number, another as the ratio
     * with the smallest numerator. */
    struct {
        unsigned num, den;
        const char *want;
    } rates[] = {{50, 1, "exactframerate=50;"},
                 {100, 2, "exactframerate=50;"},
                 {60000, 1001, "exactframerate=60000/1001;"},
                 {120000, 2002, "exactframerate=60000/1001;"},
                 {25, 0, "exactframerate=25;"}};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        s.rate_num = rates[i].num;
        s.rate_den = rates[i].den;
        rtp_sdp_write(&s, text, sizeof text);
        CHECK(strstr(text, rates[i].want) != NULL, "rate %u/%u: %s", rates[i].num, rates[i].den,
              text);
    }
    /* segmented only with interlace. */
    s.segmented = 1;
    rtp_sdp_write(&s, text, sizeof text);
    CHECK(strstr(text, "segmented") == NULL, "segmented written without interlace");
    s.interlace = 1;
    rtp_sdp_write(&s, text, sizeof text);
    CHECK(strstr(text, ";interlace;segmented") != NULL, "interlace;segmented: %s", text);

    const char *head = "v=0\no=- 1 1 IN IP4 192.0.2.1\ns=x\nt=0 0\nm=video 30002 RTP/AVP 100\n"
                       "c=IN IP4 233.252.0.9/64\n";
    struct {
        const char *tail;
        int ok;
    } cases[] = {
        /* The fmtp line may come before the rtpmap; unknown parameters are ignored. */
        {"a=fmtp:100 packetmode=1;MAXUDP=8960;exactframerate=50/1;foo\n"
         "a=rtpmap:100 jxsv/90000\n",
         1},
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 transmode=0;packetmode=1\n", 1},
        {"a=rtpmap:100 jxsv/90000\n", 0},                                  /* no fmtp */
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 sampling=YCbCr-4:2:2\n", 0}, /* no packetmode */
        {"a=rtpmap:100 jxsv/90000\na=fmtp:101 packetmode=0\n", 0},         /* another PT's */
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 packetmode=0;transmode=0\n", 0},
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 packetmode=0;segmented\n", 0},
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 packetmode=0;interlace;segmented\n", 1},
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 packetmode=2\n", 0},
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 packetmode=0;width=32768\n", 0},
        {"a=rtpmap:100 jxsv/90000\na=fmtp:100 packetmode=0;height=0\n", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sdp[1024];
        snprintf(sdp, sizeof sdp, "%s%s", head, cases[i].tail);
        xsf_error_clear(&err);
        const xsf_status st = rtp_sdp_parse(sdp, strlen(sdp), &r, &err);
        CHECK((st == XSF_OK) == cases[i].ok, "case %zu: %s (%s)", i,
              st == XSF_OK ? "accepted" : "refused", err.msg);
        if (!cases[i].ok)
            CHECK(err.msg[0] != '\0', "case %zu: no message", i);
    }
    /* Bounds at their edges, each in an otherwise valid description:
     * payload types 0..127 (RFC 3550 5.1), depth 1..16 (RFC 9134 7.1). */
    const struct {
        unsigned pt;
        const char *fmtp;
        int ok;
    } edges[] = {
        {127, "packetmode=0;depth=16", 1},
        {128, "packetmode=0", 0},
        {100, "packetmode=0;depth=17", 0},
        {100, "packetmode=0;depth=0", 0},
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        char sdp[512];
        snprintf(sdp, sizeof sdp,
                 "v=0\ns=x\nt=0 0\nm=video 30002 RTP/AVP %u\nc=IN IP4 233.252.0.9\n"
                 "a=rtpmap:%u jxsv/90000\na=fmtp:%u %s\n",
                 edges[i].pt, edges[i].pt, edges[i].pt, edges[i].fmtp);
        xsf_error_clear(&err);
        const xsf_status st = rtp_sdp_parse(sdp, strlen(sdp), &r, &err);
        CHECK((st == XSF_OK) == edges[i].ok, "PT %u %s: %s (%s)", edges[i].pt, edges[i].fmtp,
              st == XSF_OK ? "accepted" : "refused", err.msg);
        if (edges[i].ok)
            CHECK(r.payload_type == edges[i].pt && r.depth == 16, "PT %u depth %u read back",
                  r.payload_type, r.depth);
    }
    snprintf(text, sizeof text, "%s%s", head, cases[0].tail);
    CHECK(rtp_sdp_parse(text, strlen(text), &r, &err) == XSF_OK && r.packetmode == 1 &&
              r.transmode == 1 && r.rate_num == 50 && r.rate_den == 1 && r.port == 30002 &&
              r.ttl == 64,
          "fmtp before rtpmap read");
    /* RANGE in effect (RFC 9134 7.1). */
    CHECK(!strcmp(rtp_sdp_range(&r), "NARROW"), "no colorimetry, no RANGE: %s", rtp_sdp_range(&r));
    snprintf(r.colorimetry, sizeof r.colorimetry, "UNSPECIFIED");
    CHECK(!strcmp(rtp_sdp_range(&r), "FULL"), "UNSPECIFIED colorimetry: %s", rtp_sdp_range(&r));
    snprintf(r.colorimetry, sizeof r.colorimetry, "BT2100");
    CHECK(!strcmp(rtp_sdp_range(&r), "NARROW"), "BT2100: %s", rtp_sdp_range(&r));
    snprintf(r.range, sizeof r.range, "FULL");
    CHECK(!strcmp(rtp_sdp_range(&r), "FULL"), "RANGE given: %s", rtp_sdp_range(&r));
}

static void test_pacing(void)
{
    const uint64_t frame = 20000000; /* 50 Hz */
    CHECK(rtp_pacing_cmax(RTP_PACING_NARROW, 100, frame) == 4, "narrow CMAX floor");
    CHECK(rtp_pacing_cmax(RTP_PACING_WIDE, 100, frame) == 16, "wide CMAX floor");
    /* 1080p50 at ~4320 packets: narrow 4320 / (43200 x 0.02) = 5, wide 4320 / 432 = 10 -> 16 */
    CHECK(rtp_pacing_cmax(RTP_PACING_NARROW, 4320, frame) == 5, "narrow CMAX %u",
          rtp_pacing_cmax(RTP_PACING_NARROW, 4320, frame));
    CHECK(rtp_pacing_offset_ns(RTP_PACING_NARROW, 0, 100, frame) == 0, "first at 0");
    CHECK(rtp_pacing_offset_ns(RTP_PACING_NARROW, 50, 100, frame) == 10000000, "half way");
    CHECK(rtp_pacing_offset_ns(RTP_PACING_WIDE, 14, 100, frame) == 0, "wide: first burst of 15");
    CHECK(rtp_pacing_offset_ns(RTP_PACING_WIDE, 15, 100, frame) == 3000000, "wide: second burst");
    CHECK(rtp_pacing_offset_ns(RTP_PACING_NONE, 99, 100, frame) == 0, "none");
    /* Bursts within CMAX - 1: UHD60 4:2:2 3 bpp is 2160 packets a frame; narrow CMAX =
     * max(4, 2160 / (43200 / 60)) = 4, wide max(16, 2160 / 360) = 16. */
    const uint64_t f60 = 1000000000u / 60;
    CHECK(rtp_pacing_burst_default(RTP_PACING_NARROW, 2160, f60) == 3, "narrow UHD60 burst %u",
          rtp_pacing_burst_default(RTP_PACING_NARROW, 2160, f60));
    CHECK(rtp_pacing_burst_default(RTP_PACING_WIDE, 2160, f60) == 15, "wide UHD60 burst");
    CHECK(rtp_pacing_burst_default(RTP_PACING_NARROW, 4320, frame) == 4, "narrow 1080p50 burst");
    CHECK(rtp_pacing_burst_default(RTP_PACING_NONE, 2160, f60) == 2160, "none: the whole frame");
    CHECK(rtp_pacing_burst_offset_ns(RTP_PACING_NARROW, 2, 100, frame, 3) == 0 &&
              rtp_pacing_burst_offset_ns(RTP_PACING_NARROW, 3, 100, frame, 3) == 600000 &&
              rtp_pacing_burst_offset_ns(RTP_PACING_NARROW, 5, 100, frame, 3) == 600000,
          "narrow bursts of 3 leave at the time of their first packet");
    CHECK(rtp_pacing_burst_offset_ns(RTP_PACING_NARROW, 7, 100, frame, 1) ==
              rtp_pacing_offset_ns(RTP_PACING_NARROW, 7, 100, frame),
          "bursts of 1: the linear narrow sender");
    CHECK(rtp_pacing_burst_offset_ns(RTP_PACING_NARROW, 5, 100, frame, 0) == 600000,
          "burst 0: the default (CMAX 4 -> 3)");
    CHECK(rtp_frame_timestamp(0, 1, 50, 1) == 1800, "50 Hz step");
    CHECK(rtp_frame_timestamp(0, 1000, 60000, 1001) == 1501500, "59.94 Hz, 1000 frames exact");
    CHECK(rtp_frame_timestamp(4294967000u, 1, 25, 1) == (uint32_t)(4294967000u + 3600u), "wraps");
    /* Fields (RFC 9134 4.2, erratum 6752): their own sampling instants, at
     * twice the frame rate, truncated to the 90 kHz clock. 1080i29.97: the
     * second field 1501.5 ticks after the first. */
    CHECK(rtp_frame_timestamp(0, 1, 2 * 30000, 1001) == 1501, "field 1: %u",
          rtp_frame_timestamp(0, 1, 2 * 30000, 1001));
    CHECK(rtp_frame_timestamp(0, 3, 2 * 30000, 1001) == 4504, "field 3: %u",
          rtp_frame_timestamp(0, 3, 2 * 30000, 1001));
    CHECK(rtp_frame_timestamp(0, 2, 2 * 30000, 1001) == rtp_frame_timestamp(0, 1, 30000, 1001),
          "field 2 at frame 1");
    CHECK(rtp_frame_timestamp(0, 1, 2 * 25, 1) == 1800, "1080i25: 1800 ticks between fields");
    /* RFC 9134 5: TP names the ST 2110-21 sender type; none when not paced. */
    CHECK(!strcmp(rtp_pacing_tp(RTP_PACING_NARROW), "2110TPNL"), "narrow linear");
    CHECK(!strcmp(rtp_pacing_tp(RTP_PACING_WIDE), "2110TPW"), "wide");
    CHECK(rtp_pacing_tp(RTP_PACING_NONE) == NULL, "unpaced: no TP");
}

static void test_addr(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_addr a;
    char s[80];
    CHECK(rtp_addr_parse("239.1.2.3:5004", 1, &a, &err) == XSF_OK && a.port == 5004 &&
              rtp_addr_is_multicast(&a),
          "v4 multicast");
    rtp_addr_format(&a, 1, s, sizeof s);
    CHECK(!strcmp(s, "239.1.2.3:5004"), "format %s", s);
    CHECK(rtp_addr_parse("[ff15::1]:6000", 1, &a, &err) == XSF_OK && a.family != 0 &&
              a.port == 6000 && rtp_addr_is_multicast(&a),
          "v6 multicast");
    rtp_addr_format(&a, 1, s, sizeof s);
    CHECK(!strcmp(s, "[ff15::1]:6000"), "format %s", s);
    CHECK(rtp_addr_parse("::1", 0, &a, &err) == XSF_OK && !rtp_addr_is_multicast(&a),
          "v6 without port");
    CHECK(rtp_addr_parse("127.0.0.1", 1, &a, &err) != XSF_OK, "port needed");
    CHECK(rtp_addr_parse("example.com:80", 1, &a, &err) != XSF_OK, "no names");
    CHECK(rtp_addr_parse("1.2.3.4:99999", 1, &a, &err) != XSF_OK, "port range");
}

int main(void)
{
    test_rtp_header();
    test_seq_extension();
    test_payload_header();
    test_boxes();
    test_colr_from_sdp();
    test_sdp();
    test_sdp_rules();
    test_pacing();
    test_addr();
    return xsf_test_finish();
}
