/* common/xsf_clock: the two clocks, sleeping, deadlines and the
 * conversions (each check fails if its function is broken). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime: the reference readings */
#include <stdint.h>
#include <time.h>

#include "test.h"
#include "xsf_clock.h"

static uint64_t ref(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* |a - b| <= tol */
static int near(int64_t a, int64_t b, int64_t tol)
{
    return a - b <= tol && b - a <= tol;
}

static void test_readings(void)
{
    const int64_t tol = 50 * 1000000; /* a loaded CI machine */
    const uint64_t m0 = ref(CLOCK_MONOTONIC), m = xsf_clock_mono_ns();
    CHECK(m >= m0 && m - m0 < (uint64_t)tol, "mono %llu, CLOCK_MONOTONIC %llu",
          (unsigned long long)m, (unsigned long long)m0);
    const uint64_t w0 = ref(CLOCK_REALTIME), w = xsf_clock_wall_ns();
    CHECK(near((int64_t)w, (int64_t)w0, tol), "wall %llu, CLOCK_REALTIME %llu",
          (unsigned long long)w, (unsigned long long)w0);
    /* After 2020: the packet clock is the epoch's, not the monotonic one. */
    CHECK(w > 1577836800ull * XSF_NS_PER_S, "wall %llu is not since the epoch",
          (unsigned long long)w);
    const double s = xsf_clock_mono_s();
    CHECK(near((int64_t)(s * 1e9), (int64_t)xsf_clock_mono_ns(), tol), "mono_s %.9f", s);
    uint64_t prev = xsf_clock_mono_ns(), back = 0;
    for (int i = 0; i < 100000; i++) {
        const uint64_t t = xsf_clock_mono_ns();
        back += t < prev;
        prev = t;
    }
    CHECK(back == 0, "the monotonic clock went back %llu times", (unsigned long long)back);
}

static void test_wall_to_mono(void)
{
    const uint64_t w = xsf_clock_wall_ns();
    const int64_t m = (int64_t)xsf_clock_mono_ns();
    /* Now on one clock is now on the other; 10 ms ago stays 10 ms ago. */
    CHECK(near(xsf_clock_wall_to_mono(w), m, 20000000), "now: %lld vs %lld",
          (long long)xsf_clock_wall_to_mono(w), (long long)m);
    const int64_t earlier = xsf_clock_wall_to_mono(w - 10 * XSF_NS_PER_MS);
    CHECK(near(m - earlier, 10000000, 20000000), "10 ms earlier: %lld ns",
          (long long)(m - earlier));
    const int64_t a = xsf_clock_wall_to_mono(w), b = xsf_clock_wall_to_mono(w + XSF_NS_PER_S);
    CHECK(near(b - a, 1000000000, 1000000), "1 s apart: %lld ns", (long long)(b - a));
}

static void test_sleep(void)
{
    uint64_t t0 = xsf_clock_mono_ns();
    CHECK(xsf_clock_sleep_ns(20 * (int64_t)XSF_NS_PER_MS) == 0, "sleep interrupted");
    uint64_t dt = xsf_clock_mono_ns() - t0;
    CHECK(dt >= 20 * XSF_NS_PER_MS, "slept %llu ns of 20 ms", (unsigned long long)dt);
    t0 = xsf_clock_mono_ns();
    CHECK(xsf_clock_sleep_ns(0) == 0 && xsf_clock_sleep_ns(-5 * (int64_t)XSF_NS_PER_S) == 0,
          "sleep <= 0");
    dt = xsf_clock_mono_ns() - t0;
    CHECK(dt < 1000 * XSF_NS_PER_MS, "a sleep of <= 0 took %llu ns", (unsigned long long)dt);
    const uint64_t deadline = xsf_clock_mono_ns() + 15 * XSF_NS_PER_MS;
    CHECK(xsf_clock_sleep_until_ns(deadline) == 0, "sleep_until interrupted");
    CHECK(xsf_clock_mono_ns() >= deadline, "woke before the deadline");
    t0 = xsf_clock_mono_ns();
    CHECK(xsf_clock_sleep_until_ns(t0 - XSF_NS_PER_MS) == 0, "past deadline");
    CHECK(xsf_clock_mono_ns() - t0 < 1000 * XSF_NS_PER_MS, "a past deadline slept");
}

static void test_deadline(void)
{
    const uint64_t now = ref(CLOCK_REALTIME);
    const struct timespec d = xsf_clock_wall_deadline(250 * XSF_NS_PER_MS);
    const int64_t in = (int64_t)xsf_timespec_to_ns(d) - (int64_t)now;
    CHECK(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L, "tv_nsec %ld", d.tv_nsec);
    CHECK(near(in, 250000000, 50000000), "deadline %lld ns ahead of CLOCK_REALTIME", (long long)in);
}

static void test_conversions(void)
{
    const uint64_t ns = 1234 * XSF_NS_PER_S + 999999999u;
    const struct timespec ts = xsf_ns_to_timespec(ns);
    CHECK(ts.tv_sec == 1234 && ts.tv_nsec == 999999999L, "%lld.%09ld", (long long)ts.tv_sec,
          ts.tv_nsec);
    CHECK(xsf_timespec_to_ns(ts) == ns, "round trip");
    const struct timespec zero = xsf_ns_to_timespec(0);
    CHECK(zero.tv_sec == 0 && zero.tv_nsec == 0, "zero");
    CHECK(xsf_ns_to_s(1500000000) == 1.5, "1.5 s");
    CHECK(xsf_ns_to_ms(-2500000) == -2.5, "-2.5 ms");
    CHECK(XSF_NS_PER_US * 1000 == XSF_NS_PER_MS && XSF_NS_PER_MS * 1000 == XSF_NS_PER_S, "units");
    /* 90 kHz: one frame at 25 fps, one tick, a day of ticks, the 32-bit wrap;
     * truncated toward zero either way. */
    CHECK(xsf_ticks_to_ns(3600, 90000) == 40000000, "3600 ticks");
    CHECK(xsf_ticks_to_ns(1, 90000) == 11111, "1 tick: %lld", (long long)xsf_ticks_to_ns(1, 90000));
    CHECK(xsf_ticks_to_ns(-1, 90000) == -11111, "-1 tick");
    CHECK(xsf_ticks_to_ns(90000LL * 86400, 90000) == 86400 * (int64_t)XSF_NS_PER_S, "a day");
    CHECK(xsf_ticks_to_ns(4294967295LL, 90000) == 47721858833333LL, "2^32 - 1 ticks: %lld",
          (long long)xsf_ticks_to_ns(4294967295LL, 90000));
    /* Far past 2^63 / 1e9 ticks, where ticks * 1e9 would overflow. */
    const int64_t big = 90000LL * 86400 * 365 * 200 + 45000;
    CHECK(xsf_ticks_to_ns(big, 90000) == 86400LL * 365 * 200 * (int64_t)XSF_NS_PER_S + 500000000,
          "200 years: %lld", (long long)xsf_ticks_to_ns(big, 90000));
    CHECK(xsf_ticks_to_ns(48000, 48000) == (int64_t)XSF_NS_PER_S, "another rate");
}

int main(void)
{
    test_readings();
    test_wall_to_mono();
    test_sleep();
    test_deadline();
    test_conversions();
    return xsf_test_finish();
}
