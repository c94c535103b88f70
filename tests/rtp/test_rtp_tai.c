/* Timing on the plant's clock (rtp.h, rtp_tai_*): the frame grid from the TAI
 * epoch and the 90 kHz RTP timestamps of ST 2110-10, against references
 * computed here another way: 59.94 Hz (1501/1502-tick steps, the exact
 * instant, not the one truncated to the ns), integer rates, today's times
 * (whose products pass 2^64), the 2^32 wrap, and reading a timestamp back
 * against the clock (unwrap) on both sides of the wrap. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rtp.h"
#include "test.h"
#include "xsf_clock.h"

/* floor(t x 90000 / 10^9) in 64-bit pieces: another way to the tick of an instant. */
static uint64_t ref_ticks(uint64_t t)
{
    return t / 100000 * 9 + t % 100000 * 9 / 100000;
}

/* The first instant (ns) of tick T: ceil(T x 10^9 / 90000). */
static uint64_t ref_tick_ns(uint64_t T)
{
    return T / 9 * 100000 + (T % 9 * 100000 + 8) / 9;
}

static void test_grid_5994(void)
{
    /* 59.94 Hz: frame n at n x 1001/60000 s, tick floor(n x 1501.5). */
    CHECK(rtp_tai_frame_timestamp(0, 60000, 1001) == 0, "frame 0");
    CHECK(rtp_tai_frame_timestamp(1, 60000, 1001) == 1501, "frame 1: %u",
          rtp_tai_frame_timestamp(1, 60000, 1001));
    /* Frame 2 is at 33,366,666.67 ns: tick 3003 from the exact instant; the instant cut
     * to the ns would give 3002. */
    CHECK(rtp_tai_frame_timestamp(2, 60000, 1001) == 3003, "frame 2: %u",
          rtp_tai_frame_timestamp(2, 60000, 1001));
    CHECK(rtp_tai_frame_ns(2, 60000, 1001) == 33366666, "frame 2 at %llu ns",
          (unsigned long long)rtp_tai_frame_ns(2, 60000, 1001));
    CHECK(rtp_tai_timestamp(rtp_tai_frame_ns(2, 60000, 1001)) == 3002, "the truncated instant");
    CHECK(rtp_tai_frame_ns(60000, 60000, 1001) == 1001 * XSF_NS_PER_S, "1001 s: %llu",
          (unsigned long long)rtp_tai_frame_ns(60000, 60000, 1001));
    /* Steps of 1501 and 1502 alternating, everywhere on the grid (today's frames). */
    const uint64_t today = rtp_tai_frame_index(1795834293786866666ull, 60000, 1001);
    uint64_t bad = 0;
    for (uint64_t n = today; n < today + 1000; n++) {
        const uint32_t a = rtp_tai_frame_timestamp(n, 60000, 1001);
        const uint32_t b = rtp_tai_frame_timestamp(n + 1, 60000, 1001);
        const uint32_t want = (uint32_t)(n * 3003 / 2); /* n x 1501.5, floor; fits */
        bad += a != want || (uint32_t)(b - a) != (n % 2 ? 1502u : 1501u);
        /* The instant's tick agrees with the frame's timestamp within the ns cut. */
        const uint32_t t = rtp_tai_timestamp(rtp_tai_frame_ns(n, 60000, 1001));
        bad += t != a && t != a - 1;
    }
    CHECK(!bad, "%llu frames off the 59.94 grid from frame %llu", (unsigned long long)bad,
          (unsigned long long)today);
    /* The same timestamps as rtp_frame_timestamp from 0 where that does not overflow. */
    for (uint64_t n = 0; n < 5000; n++)
        bad += rtp_tai_frame_timestamp(n, 60000, 1001) != rtp_frame_timestamp(0, n, 60000, 1001);
    CHECK(!bad, "rtp_frame_timestamp disagrees");
    /* Fields of 59.94i: the grid at 2 x 30000/1001. */
    CHECK(rtp_tai_frame_timestamp(1, 60000, 1001) == 1501 &&
              rtp_tai_frame_timestamp(3, 60000, 1001) == 4504,
          "fields");
}

static void test_grid_integer(void)
{
    /* 50 Hz: 1800 ticks, instants whole ms; today's frame index and back. */
    const uint64_t t = 1795834293786866666ull;
    const uint64_t n = rtp_tai_frame_index(t, 50, 1);
    CHECK(n == t / 20000000 + 1, "50 Hz frame after %llu: %llu", (unsigned long long)t,
          (unsigned long long)n);
    CHECK(rtp_tai_frame_ns(n, 50, 1) == n * 20000000, "50 Hz instant");
    CHECK(rtp_tai_frame_timestamp(n, 50, 1) == (uint32_t)(n * 1800), "50 Hz timestamp");
    CHECK(rtp_tai_timestamp(rtp_tai_frame_ns(n, 50, 1)) == rtp_tai_frame_timestamp(n, 50, 1),
          "an integral instant: both ways agree");
    CHECK(rtp_tai_frame_index(n * 20000000, 50, 1) == n &&
              rtp_tai_frame_index(n * 20000000 + 1, 50, 1) == n + 1,
          "at or after");
    /* Index and instant undo each other at 59.94 and 25 today. */
    uint64_t bad = 0;
    const unsigned rates[][2] = {{60000, 1001}, {25, 1}, {30000, 1001}, {120, 1}};
    for (size_t r = 0; r < sizeof rates / sizeof *rates; r++) {
        const unsigned num = rates[r][0], den = rates[r][1];
        const uint64_t f = rtp_tai_frame_index(t, num, den);
        for (uint64_t k = f; k < f + 100; k++)
            bad += rtp_tai_frame_index(rtp_tai_frame_ns(k, num, den), num, den) != k ||
                   rtp_tai_frame_index(rtp_tai_frame_ns(k, num, den) + 1, num, den) != k + 1;
        bad += rtp_tai_frame_ns(f, num, den) < t || rtp_tai_frame_ns(f - 1, num, den) >= t;
    }
    CHECK(!bad, "%llu index/instant mismatches", (unsigned long long)bad);
}

static void test_wrap_unwrap(void)
{
    /* Today's time: the tick count is past 2^32 many times over. */
    const uint64_t t = 1795834293786866666ull;
    CHECK(rtp_tai_timestamp(t) == (uint32_t)ref_ticks(t), "today: %u", rtp_tai_timestamp(t));
    CHECK(rtp_tai_timestamp(1000000000) == 90000, "one second");
    /* The wrap: tick 2^32 - 1 then 2^32 (timestamp 0). */
    const uint64_t w = (uint64_t)1 << 32;
    CHECK(rtp_tai_timestamp(ref_tick_ns(w)) == 0 &&
              rtp_tai_timestamp(ref_tick_ns(w) - 1) == 0xffffffffu,
          "wrap: %u %u", rtp_tai_timestamp(ref_tick_ns(w)), rtp_tai_timestamp(ref_tick_ns(w) - 1));
    /* Unwrap: a tick up to 2^31 - 1 away on either side, around a wrap and today; the
     * instant's timestamp is the one given. */
    const uint64_t bases[] = {37 * w + 5, 37 * w - 5, ref_ticks(t), 12345, w / 2};
    const int64_t deltas[] = {0,
                              1,
                              -1,
                              -16,
                              21,
                              -3003,
                              1501,
                              -900000,
                              900000,
                              (1LL << 31) - 1,
                              -(1LL << 31) + 1,
                              4000000,
                              -4000000};
    uint64_t bad = 0;
    for (size_t b = 0; b < sizeof bases / sizeof *bases; b++) {
        const uint64_t ref_ns = ref_tick_ns(bases[b]) + 7000; /* inside the tick */
        for (size_t d = 0; d < sizeof deltas / sizeof *deltas; d++) {
            if (deltas[d] < 0 && (uint64_t)-deltas[d] > bases[b])
                continue;
            const uint64_t T = bases[b] + (uint64_t)deltas[d];
            const uint32_t ts = (uint32_t)T;
            const uint64_t got = rtp_tai_unwrap_ns(ts, ref_ns);
            if (got != ref_tick_ns(T) || rtp_tai_timestamp(got) != ts) {
                bad++;
                fprintf(stderr, "unwrap %u near tick %llu (+%lld): %llu, want %llu\n", ts,
                        (unsigned long long)bases[b], (long long)deltas[d], (unsigned long long)got,
                        (unsigned long long)ref_tick_ns(T));
            }
        }
    }
    CHECK(!bad, "%llu unwraps wrong", (unsigned long long)bad);
    /* Near the epoch a timestamp "before" it is taken after it. */
    CHECK(rtp_tai_unwrap_ns(0xfffffff0u, 1000) == ref_tick_ns(0xfffffff0u), "near the epoch");
    /* A frame's capture instant read back at its arrival 40 ms later, across the wrap. */
    const uint64_t n = rtp_tai_frame_index(ref_tick_ns(37 * w) - 10000000, 60000, 1001);
    const uint64_t cap = rtp_tai_frame_ns(n, 60000, 1001);
    const uint64_t back =
        rtp_tai_unwrap_ns(rtp_tai_frame_timestamp(n, 60000, 1001), cap + 40000000);
    /* (cap is the exact instant cut to the ns: the tick's start may be 1 ns past it) */
    CHECK(back <= cap + 1 && cap + 1 - back < 11113, "frame %llu at %llu read back as %llu",
          (unsigned long long)n, (unsigned long long)cap, (unsigned long long)back);
}

/* The SDP's clock lines (ST 2110-10, RFC 7273): the media's, else the session's; written
 * back as read; a=mediaclk:direct=0 written when none is set. */
static void test_sdp_clock(void)
{
    static const char head[] = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=x\r\nt=0 0\r\n";
    static const char media[] = "m=video 5004 RTP/AVP 112\r\nc=IN IP4 239.1.1.1/16\r\n"
                                "a=rtpmap:112 jxsv/90000\r\na=fmtp:112 packetmode=0\r\n";
    char text[2048];
    rtp_sdp s;
    xsf_error err;
    xsf_error_clear(&err);
    snprintf(text, sizeof text,
             "%sa=ts-refclk:ptp=IEEE1588-2008:traceable\r\na=mediaclk:direct=0\r\n%s", head, media);
    CHECK(rtp_sdp_parse(text, strlen(text), &s, &err) == XSF_OK &&
              !strcmp(s.ts_refclk, "ptp=IEEE1588-2008:traceable") &&
              !strcmp(s.mediaclk, "direct=0") && rtp_sdp_refclk_is_ptp(s.ts_refclk),
          "session level: '%s' '%s' %s", s.ts_refclk, s.mediaclk, err.msg);
    snprintf(text, sizeof text,
             "%sa=ts-refclk:localmac=CA-FE-01-02-03-04\r\n"
             "m=audio 5006 RTP/AVP 97\r\na=ts-refclk:ptp=IEEE1588-2008:traceable\r\n"
             "%sa=ts-refclk:ptp=IEEE1588-2008:EC-46-70-FF-FE-00-42-6C:127\r\n"
             "a=mediaclk:direct=1234\r\n",
             head, media);
    CHECK(rtp_sdp_parse(text, strlen(text), &s, &err) == XSF_OK &&
              !strcmp(s.ts_refclk, "ptp=IEEE1588-2008:EC-46-70-FF-FE-00-42-6C:127") &&
              !strcmp(s.mediaclk, "direct=1234"),
          "media level over the session's, another media's ignored: '%s' '%s'", s.ts_refclk,
          s.mediaclk);
    snprintf(text, sizeof text, "%sa=ts-refclk:localmac=CA-FE-01-02-03-04\r\n%s", head, media);
    CHECK(rtp_sdp_parse(text, strlen(text), &s, &err) == XSF_OK &&
              !rtp_sdp_refclk_is_ptp(s.ts_refclk) && !s.mediaclk[0],
          "not PTP: '%s'", s.ts_refclk);
    char out[2048];
    rtp_sdp_write(&s, out, sizeof out);
    CHECK(strstr(out, "a=ts-refclk:localmac=CA-FE-01-02-03-04\r\na=mediaclk:direct=0\r\n") != NULL,
          "written back:\n%s", out);
}

int main(void)
{
    test_sdp_clock();
    test_grid_5994();
    test_grid_integer();
    test_wrap_unwrap();
    return xsf_test_finish();
}
