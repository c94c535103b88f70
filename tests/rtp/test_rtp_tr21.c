/* Sender conformance as a receiver sees it (rtp.h, rtp_tr21_*): ST 2110-21's limits
 * for known rasters, and synthetic arrival schedules with known peaks: a perfectly paced
 * narrow sender (Cinst 0, VRX 0 or 1, conforming narrow) with and without the clock,
 * bursts (Cinst exactly burst - 1: within wide but not narrow, then beyond wide), a
 * sender running ahead of its read schedule (VRX), one behind it (underflow), a gapped
 * (2110TPN) sender, NPACKETS counted from the first whole frame after a partial one,
 * and the depacketizer's stats.tr21 fed by real RTP packets. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rtp.h"
#include "test.h"
#include "xsf_clock.h"

/* 50 fps, 2000 packets a frame: TFRAME 20 ms, TRS 10 us exactly, TDRAIN 9090.9 ns. */
#define NUM 50
#define NP 2000
#define TFRAME 20000000ull
#define TRS 10000ull

static rtp_tr21 *make(rtp_tr21_type type, uint32_t npackets, int clock)
{
    rtp_tr21_config c;
    memset(&c, 0, sizeof c);
    c.rate_num = NUM;
    c.rate_den = 1;
    c.type = type;
    c.height = 2160;
    c.npackets = npackets;
    c.clock_known = clock;
    rtp_tr21 *a = NULL;
    xsf_error e;
    xsf_error_clear(&e);
    CHECK(rtp_tr21_create(&a, &c, &e) == XSF_OK, "%s", e.msg);
    return a;
}

/* `frames` frames of NP packets; packet j of frame n at base + n x TFRAME + lead(j),
 * lead = floor(j / burst) x burst x TRS + shift (ns, may be negative); timestamps of
 * frame n: ts0 + n x 1800 (50 fps on the 90 kHz clock). */
static void feed(rtp_tr21 *a, uint64_t base, uint32_t ts0, unsigned frames, unsigned burst,
                 int64_t shift)
{
    for (unsigned n = 0; n < frames; n++)
        for (unsigned j = 0; j < NP; j++) {
            const uint64_t t = base + n * TFRAME + (uint64_t)(j / burst * burst) * TRS;
            rtp_tr21_packet(a, (uint64_t)((int64_t)t + shift), ts0 + n * 1800u, j + 1 == NP, 1440);
        }
}

static void test_limits(void)
{
    /* UHD60, 2160 packets (3 bpp 4:2:2 in 1440-byte packets), linear: CMAX MAX(4, 3),
     * VRX_FULL MAX(8, 4); wide MAX(16, 6), MAX(720, 432). */
    rtp_tr21_limits n = rtp_tr21_limits_of(RTP_TR21_NARROW_LINEAR, 0, 2160, 60, 1, 0, 2160);
    rtp_tr21_limits w = rtp_tr21_limits_of(RTP_TR21_NARROW_LINEAR, 1, 2160, 60, 1, 0, 2160);
    CHECK(n.cmax == 4 && n.vrx_full == 8, "narrow %u %u", n.cmax, n.vrx_full);
    CHECK(w.cmax == 16 && w.vrx_full == 720, "wide %u %u", w.cmax, w.vrx_full);
    /* 1080p59.94 of ST 2110-20 4:2:2 10-bit, 4320 packets, gapped (RACTIVE 1080/1125):
     * 4320 x 60000 / 1001 / (43200 x 0.96) = 6.24 -> 6; linear 5.99 -> 5; VRX_FULL 9. */
    n = rtp_tr21_limits_of(RTP_TR21_NARROW, 0, 4320, 60000, 1001, 0, 1080);
    CHECK(n.cmax == 6 && n.vrx_full == 9, "1080p59.94 gapped %u %u", n.cmax, n.vrx_full);
    n = rtp_tr21_limits_of(RTP_TR21_NARROW_LINEAR, 0, 4320, 60000, 1001, 0, 1080);
    CHECK(n.cmax == 5, "1080p59.94 linear %u", n.cmax);
    /* A large frame: wide CMAX 100000 x 60 / 21600 = 277, VRX_FULL 100000 x 60 / 300. */
    w = rtp_tr21_limits_of(RTP_TR21_WIDE, 1, 100000, 60, 1, 0, 2160);
    CHECK(w.cmax == 277 && w.vrx_full == 20000, "wide large %u %u", w.cmax, w.vrx_full);
    /* TRO_DEFAULT: 43/1125 of 1/60 s; 28/750 of 1/50 s; 22/1125 of 1/25 s (1080i50). */
    CHECK(rtp_tr21_tro_default_ns(2160, 0, 60, 1) == 637037, "%llu",
          (unsigned long long)rtp_tr21_tro_default_ns(2160, 0, 60, 1));
    CHECK(rtp_tr21_tro_default_ns(720, 0, 50, 1) == 746666, "%llu",
          (unsigned long long)rtp_tr21_tro_default_ns(720, 0, 50, 1));
    CHECK(rtp_tr21_tro_default_ns(1080, 1, 25, 1) == 782222, "%llu",
          (unsigned long long)rtp_tr21_tro_default_ns(1080, 1, 25, 1));
    CHECK(rtp_tr21_type_of_tp("2110tpnl") == RTP_TR21_NARROW_LINEAR &&
              rtp_tr21_type_of_tp("2110TPN") == RTP_TR21_NARROW &&
              rtp_tr21_type_of_tp("2110TPW") == RTP_TR21_WIDE &&
              rtp_tr21_type_of_tp("") == RTP_TR21_UNDECLARED,
          "TP names");
    CHECK(!strcmp(rtp_tr21_type_name(RTP_TR21_WIDE), "2110TPW") &&
              !strcmp(rtp_tr21_verdict_name(RTP_TR21_CONFORMS_NOT), "not"),
          "names");
}

/* A narrow linear sender exactly on its schedule, the clock unknown: the first measured
 * frame's first packet anchors it; every packet then arrives at its read instant. */
static void test_paced_narrow(void)
{
    rtp_tr21 *a = make(RTP_TR21_NARROW_LINEAR, NP, 0);
    feed(a, 5000000, 1000, 10, 1, 0);
    rtp_tr21_stats s;
    rtp_tr21_get(a, &s);
    CHECK(s.active && s.npackets == NP && s.frames == 9 && s.packets == 9 * NP,
          "measured %llu frames %llu packets", (unsigned long long)s.frames,
          (unsigned long long)s.packets);
    CHECK(s.cinst_peak == 0 && s.vrx_peak == 0 && s.vrx_min == 0 && !s.underflows,
          "cinst %u vrx %lld..%lld", s.cinst_peak, (long long)s.vrx_min, (long long)s.vrx_peak);
    CHECK(s.narrow.cmax == 4 && s.narrow.vrx_full == 8 && s.cinst_max == 4 && s.vrx_full == 8,
          "limits %u %u", s.cinst_max, s.vrx_full);
    CHECK(s.trs_ns == (double)TRS && s.tdrain_ns > 9090.9 && s.tdrain_ns < 9091.0,
          "trs %.1f tdrain %.3f", s.trs_ns, s.tdrain_ns);
    CHECK(s.conforms == RTP_TR21_CONFORMS_NARROW && s.conforms_declared, "%s",
          rtp_tr21_verdict_name(s.conforms));
    CHECK(!s.tpr0_count, "no TPR0 without the clock");
    rtp_tr21_destroy(a);
}

/* The same sender on the TAI grid, read with the clock: frame n at its grid instant +
 * TROFFSET (cut to the ns: each packet less than 1 ns before its read, so VRX 1), TPR0
 * = TROFFSET for every frame. */
static void test_paced_clock(void)
{
    const uint64_t n0 = rtp_tai_frame_index(1795834293786866666ull, NUM, 1);
    const uint64_t e0 = rtp_tai_frame_ns(n0, NUM, 1);
    const uint64_t tro = rtp_tr21_tro_default_ns(2160, 0, NUM, 1);
    CHECK(tro == 764444, "TRO %llu", (unsigned long long)tro);
    rtp_tr21 *a = make(RTP_TR21_NARROW_LINEAR, 0, 1);
    feed(a, e0 + tro, rtp_tai_frame_timestamp(n0, NUM, 1), 6, 1, 0);
    rtp_tr21_stats s;
    rtp_tr21_get(a, &s);
    /* Frame 0 skipped (it might be partial), frame 1 counted: 4 measured. */
    CHECK(s.npackets == NP && s.frames == 4, "npackets %u frames %llu", s.npackets,
          (unsigned long long)s.frames);
    CHECK(s.cinst_peak == 0 && s.vrx_peak == 1 && s.vrx_min == 1, "cinst %u vrx %lld..%lld",
          s.cinst_peak, (long long)s.vrx_min, (long long)s.vrx_peak);
    CHECK(s.tpr0_count == 4 && s.tpr0_min_ns == (int64_t)tro && s.tpr0_max_ns == (int64_t)tro,
          "tpr0 %llu %lld..%lld", (unsigned long long)s.tpr0_count, (long long)s.tpr0_min_ns,
          (long long)s.tpr0_max_ns);
    CHECK(s.conforms == RTP_TR21_CONFORMS_NARROW, "%s", rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
    /* Sent at the frame's instant instead (no TROFFSET): 76.4 packets early, VRX 77. */
    a = make(RTP_TR21_NARROW_LINEAR, 0, 1);
    feed(a, e0, rtp_tai_frame_timestamp(n0, NUM, 1), 6, 1, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.vrx_peak == 77 && s.vrx_min == 1 && s.tpr0_min_ns == 0, "vrx %lld..%lld tpr0 %lld",
          (long long)s.vrx_min, (long long)s.vrx_peak, (long long)s.tpr0_min_ns);
    CHECK(s.conforms == RTP_TR21_CONFORMS_WIDE && !s.conforms_declared, "%s",
          rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
}

/* Bursts of B packets every B x TRS: each burst meets an empty bucket (B x TRS is 1.1 B
 * drain periods) and leaves B - 1 in it; VRX B - 1 after a burst. */
static void test_bursts(void)
{
    rtp_tr21_stats s;
    /* B = 6: Cinst 5 > narrow CMAX 4, within wide 16: wide, not the narrow declared. */
    rtp_tr21 *a = make(RTP_TR21_NARROW_LINEAR, NP, 0);
    feed(a, 1000, 7, 4, 5 + 1, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.cinst_peak == 5 && s.vrx_peak == 5 && s.vrx_min == 0, "B=6: cinst %u vrx %lld..%lld",
          s.cinst_peak, (long long)s.vrx_min, (long long)s.vrx_peak);
    CHECK(s.conforms == RTP_TR21_CONFORMS_WIDE && !s.conforms_declared, "B=6: %s",
          rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
    /* Declared wide: the same stream meets its type. */
    a = make(RTP_TR21_WIDE, NP, 0);
    feed(a, 1000, 7, 4, 6, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.conforms == RTP_TR21_CONFORMS_WIDE && s.conforms_declared && s.cinst_max == 16 &&
              s.vrx_full == 720,
          "wide declared: %s %u %u", rtp_tr21_verdict_name(s.conforms), s.cinst_max, s.vrx_full);
    rtp_tr21_destroy(a);
    /* B = 3 (narrow CMAX - 1, what xsflow send does): Cinst 2, narrow. */
    a = make(RTP_TR21_NARROW_LINEAR, NP, 0);
    feed(a, 1000, 7, 4, 3, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.cinst_peak == 2 && s.vrx_peak == 2 && s.conforms == RTP_TR21_CONFORMS_NARROW,
          "B=3: cinst %u vrx %lld %s", s.cinst_peak, (long long)s.vrx_peak,
          rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
    /* B = 40: Cinst 39 beyond the wide 16: not conforming, with that exact peak. */
    a = make(RTP_TR21_WIDE, NP, 0);
    feed(a, 1000, 7, 4, 40, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.cinst_peak == 39 && s.vrx_peak == 39, "B=40: cinst %u vrx %lld", s.cinst_peak,
          (long long)s.vrx_peak);
    CHECK(s.conforms == RTP_TR21_CONFORMS_NOT && !s.conforms_declared, "B=40: %s",
          rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
    /* Every frame at once (a frame-paced sender): Cinst NP - 1. */
    a = make(RTP_TR21_NARROW_LINEAR, NP, 0);
    feed(a, 1000, 7, 3, NP, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.cinst_peak == NP - 1 && s.conforms == RTP_TR21_CONFORMS_NOT, "frame: cinst %u %s",
          s.cinst_peak, rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
}

/* A sender ahead of its read schedule and one behind it, with the clock known. */
static void test_early_late(void)
{
    const uint64_t n0 = rtp_tai_frame_index(1795834293786866666ull, NUM, 1);
    const uint64_t e0 = rtp_tai_frame_ns(n0, NUM, 1);
    const uint32_t ts0 = rtp_tai_frame_timestamp(n0, NUM, 1);
    const int64_t tro = (int64_t)rtp_tr21_tro_default_ns(2160, 0, NUM, 1) + 1; /* on the read */
    rtp_tr21_stats s;
    /* 12 packets early: VRX 12 (the frame before still holds 11 when a frame begins),
     * beyond narrow 8, within wide. */
    rtp_tr21 *a = make(RTP_TR21_NARROW_LINEAR, NP, 1);
    feed(a, e0, ts0, 4, 1, tro - 12 * (int64_t)TRS);
    rtp_tr21_get(a, &s);
    CHECK(s.vrx_peak == 12 && s.vrx_min == 1 && s.cinst_peak == 0, "early: vrx %lld..%lld",
          (long long)s.vrx_min, (long long)s.vrx_peak);
    CHECK(s.conforms == RTP_TR21_CONFORMS_WIDE, "early: %s", rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
    /* 2 packets late: each read finds its packet missing, an underflow: not. */
    a = make(RTP_TR21_WIDE, NP, 1);
    feed(a, e0, ts0, 4, 1, tro + 2 * (int64_t)TRS);
    rtp_tr21_get(a, &s);
    /* Each frame's last packet finds the schedule at its end (no read past NPACKETS). */
    CHECK(s.vrx_min == -2 && s.underflows == 3 * (NP - 1) && s.vrx_peak == 0,
          "late: vrx %lld..%lld %llu", (long long)s.vrx_min, (long long)s.vrx_peak,
          (unsigned long long)s.underflows);
    CHECK(s.conforms == RTP_TR21_CONFORMS_NOT, "late: %s", rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
}

/* 2110TPN: the gapped schedule reads NPACKETS over RACTIVE (1080/1125) of the frame, so
 * a sender that spreads them over the whole frame falls behind it; one that sends at the
 * gapped TRS (9600 ns) conforms. */
static void test_gapped(void)
{
    rtp_tr21_stats s;
    rtp_tr21 *a = make(RTP_TR21_NARROW, NP, 0);
    for (unsigned n = 0; n < 4; n++)
        for (unsigned j = 0; j < NP; j++)
            rtp_tr21_packet(a, 1000 + n * TFRAME + j * 9600ull, 7 + n * 1800, j + 1 == NP, 1440);
    rtp_tr21_get(a, &s);
    CHECK(s.trs_ns == 9600.0 && s.vrx_min == 0 && s.vrx_peak == 0 && s.cinst_peak == 0,
          "gapped: trs %.1f vrx %lld..%lld cinst %u", s.trs_ns, (long long)s.vrx_min,
          (long long)s.vrx_peak, s.cinst_peak);
    CHECK(s.conforms == RTP_TR21_CONFORMS_NARROW && s.conforms_declared, "gapped: %s",
          rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
    a = make(RTP_TR21_NARROW, NP, 0);
    feed(a, 1000, 7, 4, 1, 0);
    rtp_tr21_get(a, &s);
    CHECK(s.vrx_min < 0 && s.conforms == RTP_TR21_CONFORMS_NOT, "linear read gapped: %lld %s",
          (long long)s.vrx_min, rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
}

/* NPACKETS counted: a partial first frame (its last 500 packets) is passed over, the next
 * counted up to its marker, the rest measured; late packets of a frame stay in it. */
static void test_counting(void)
{
    rtp_tr21 *a = make(RTP_TR21_NARROW_LINEAR, 0, 0);
    for (unsigned j = NP - 500; j < NP; j++)
        CHECK(!rtp_tr21_packet(a, 1000 + j * TRS, 7, j + 1 == NP, 1440), "partial");
    rtp_tr21_stats s;
    rtp_tr21_get(a, &s);
    CHECK(s.npackets == 0 && s.conforms == RTP_TR21_UNMEASURED, "nothing yet");
    int begun = 0;
    for (unsigned n = 1; n < 5; n++)
        for (unsigned j = 0; j < NP; j++)
            begun +=
                rtp_tr21_packet(a, 1000 + n * TFRAME + j * TRS, 7 + n * 1800, j + 1 == NP, 1440);
    rtp_tr21_get(a, &s);
    CHECK(s.npackets == NP && s.frames == 3 && begun == 3 && s.packets == 3 * NP,
          "npackets %u frames %llu begun %d", s.npackets, (unsigned long long)s.frames, begun);
    CHECK(s.cinst_peak == 0 && s.vrx_peak == 0, "cinst %u vrx %lld", s.cinst_peak,
          (long long)s.vrx_peak);
    /* A packet of frame 4 after frame 5 began: counted in frame 4, no new frame. */
    CHECK(rtp_tr21_packet(a, 1000 + 5 * TFRAME, 7 + 5 * 1800, 0, 1440) == 1, "frame 5");
    CHECK(rtp_tr21_packet(a, 1000 + 5 * TFRAME + 1, 7 + 4 * 1800, 0, 1440) == 0, "late");
    rtp_tr21_get(a, &s);
    CHECK(s.frames == 4 && s.vrx_peak == 1, "late packet: frames %llu vrx %lld",
          (unsigned long long)s.frames, (long long)s.vrx_peak);
    rtp_tr21_destroy(a);
    /* Inactive without a rate. */
    rtp_tr21_config c;
    memset(&c, 0, sizeof c);
    xsf_error e;
    xsf_error_clear(&e);
    CHECK(rtp_tr21_create(&a, &c, &e) == XSF_OK && !rtp_tr21_packet(a, 1, 1, 1, 1), "inactive");
    rtp_tr21_get(a, &s);
    CHECK(!s.active && !s.packets, "inactive stats");
    rtp_tr21_destroy(a);
}

/* Through the depacketizer: RTP packets with RFC 9134 headers, bursts of 6. */
static void test_depacketizer(void)
{
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = -1;
    dc.ssrc_given = 1;
    dc.ssrc = 42;
    dc.tr21.rate_num = NUM;
    dc.tr21.rate_den = 1;
    dc.tr21.type = RTP_TR21_NARROW_LINEAR;
    rtp_depacketizer *d = NULL;
    xsf_error e;
    xsf_error_clear(&e);
    CHECK(rtp_depacketizer_create(&d, &dc, &e) == XSF_OK, "%s", e.msg);
    if (!d)
        return;
    CHECK(rtp_depacketizer_stats(d)->tr21.active &&
              rtp_depacketizer_stats(d)->tr21.declared == RTP_TR21_NARROW_LINEAR,
          "configured");
    uint8_t pkt[64];
    uint16_t seq = 100;
    for (unsigned n = 0; n < 4; n++)
        for (unsigned j = 0; j < NP; j++) {
            rtp_header h;
            memset(&h, 0, sizeof h);
            h.version = 2;
            h.payload_type = 112;
            h.seq = seq++;
            h.timestamp = 7 + n * 1800;
            h.ssrc = 42;
            h.marker = j + 1 == NP;
            const size_t hb = rtp_header_write(&h, pkt, sizeof pkt);
            rtp_jxs_header jh = {
                1, 0, (uint8_t)h.marker, 0, (uint8_t)n, (uint16_t)(j >> 11), (uint16_t)(j & 2047)};
            rtp_jxs_header_write(&jh, pkt + hb);
            memset(pkt + hb + 4, 0, 16);
            rtp_depacketizer_push(d, pkt, hb + 4 + 16, 1000 + n * TFRAME + j / 6 * 6 * TRS);
        }
    rtp_depacketizer_flush(d);
    const rtp_tr21_stats *s = &rtp_depacketizer_stats(d)->tr21;
    CHECK(s->npackets == NP && s->frames == 2 && s->cinst_peak == 5 &&
              s->conforms == RTP_TR21_CONFORMS_WIDE && s->packet_bytes_max == 32,
          "depacketizer: npackets %u frames %llu cinst %u %s bytes %zu", s->npackets,
          (unsigned long long)s->frames, s->cinst_peak, rtp_tr21_verdict_name(s->conforms),
          s->packet_bytes_max);
    rtp_depacketizer_destroy(d);
}

/* An SDP configures the analysis: its rate, TP, height, TROFF and PTP clock. */
static void test_sdp(void)
{
    static const char text[] =
        "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=x\r\nt=0 0\r\nm=video 5004 RTP/AVP 112\r\n"
        "c=IN IP4 239.1.1.1/16\r\na=rtpmap:112 jxsv/90000\r\n"
        "a=fmtp:112 packetmode=0;width=1280;height=720;exactframerate=60000/1001;"
        "TP=2110TPW;TROFF=500\r\na=ts-refclk:ptp=IEEE1588-2008:traceable\r\n"
        "a=mediaclk:direct=0\r\n";
    rtp_sdp sdp;
    xsf_error e;
    xsf_error_clear(&e);
    CHECK(rtp_sdp_parse(text, sizeof text - 1, &sdp, &e) == XSF_OK, "%s", e.msg);
    CHECK(sdp.has_troff && sdp.troff_us == 500, "TROFF %d %u", sdp.has_troff, sdp.troff_us);
    rtp_receiver_options o;
    rtp_receiver_options_init(&o);
    rtp_receiver_setup rs;
    CHECK(rtp_receiver_setup_from_sdp(&sdp, &o, &rs, &e) == XSF_OK, "%s", e.msg);
    const rtp_tr21_config *t = &rs.depacketizer.tr21;
    CHECK(t->rate_num == 60000 && t->rate_den == 1001 && t->type == RTP_TR21_WIDE &&
              t->height == 720 && t->has_troffset && t->troffset_ns == 500000 && t->clock_known &&
              !t->interlaced,
          "setup: %u/%u type %d height %u troff %d %llu clock %d", t->rate_num, t->rate_den,
          (int)t->type, t->height, t->has_troffset, (unsigned long long)t->troffset_ns,
          t->clock_known);
    /* Without TROFF: the default; a TROFF that does not parse is ignored. */
    static const char text2[] =
        "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=x\r\nt=0 0\r\nm=video 5004 RTP/AVP 112\r\n"
        "c=IN IP4 239.1.1.1/16\r\na=rtpmap:112 jxsv/90000\r\n"
        "a=fmtp:112 packetmode=0;exactframerate=50;TROFF=abc\r\n";
    CHECK(rtp_sdp_parse(text2, sizeof text2 - 1, &sdp, &e) == XSF_OK && !sdp.has_troff &&
              rtp_receiver_setup_from_sdp(&sdp, &o, &rs, &e) == XSF_OK &&
              !rs.depacketizer.tr21.has_troffset && !rs.depacketizer.tr21.clock_known &&
              rs.depacketizer.tr21.type == RTP_TR21_UNDECLARED,
          "no TROFF: %s", e.msg);
    /* TROFF measured from: a stream 500 us after its instants reads TPR0 500. */
    rtp_tr21_config c = rs.depacketizer.tr21;
    c.rate_num = NUM;
    c.rate_den = 1;
    c.type = RTP_TR21_NARROW_LINEAR;
    c.has_troffset = 1;
    c.troffset_ns = 500000;
    c.clock_known = 1;
    c.tai_offset_ns = 0;
    c.npackets = NP;
    rtp_tr21 *a = NULL;
    CHECK(rtp_tr21_create(&a, &c, &e) == XSF_OK, "%s", e.msg);
    const uint64_t n0 = rtp_tai_frame_index(1795834293786866666ull, NUM, 1);
    feed(a, rtp_tai_frame_ns(n0, NUM, 1) + 500000, rtp_tai_frame_timestamp(n0, NUM, 1), 4, 1, 0);
    rtp_tr21_stats s;
    rtp_tr21_get(a, &s);
    CHECK(s.troffset_ns == 500000.0 && s.tpr0_min_ns == 500000 && s.vrx_peak == 0 &&
              s.vrx_min == 0 && s.conforms == RTP_TR21_CONFORMS_NARROW,
          "TROFF 500: tpr0 %lld vrx %lld..%lld %s", (long long)s.tpr0_min_ns, (long long)s.vrx_min,
          (long long)s.vrx_peak, rtp_tr21_verdict_name(s.conforms));
    rtp_tr21_destroy(a);
}

int main(void)
{
    test_limits();
    test_paced_narrow();
    test_paced_clock();
    test_bursts();
    test_early_late();
    test_gapped();
    test_counting();
    test_depacketizer();
    test_sdp();
    return xsf_test_finish();
}
