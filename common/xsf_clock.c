/* The clocks of xsflow (xsf_clock.h says which is for what). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep */
#include "xsf_clock.h"

#include <time.h>

static uint64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return xsf_timespec_to_ns(ts);
}

uint64_t xsf_clock_mono_ns(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

double xsf_clock_mono_s(void)
{
    return xsf_ns_to_s((int64_t)xsf_clock_mono_ns());
}

uint64_t xsf_clock_wall_ns(void)
{
    return read_clock(CLOCK_REALTIME);
}

uint64_t xsf_clock_tai_ns(void)
{
    return read_clock(CLOCK_TAI);
}

int64_t xsf_clock_tai_offset_ns(void)
{
    /* Two readings a few ns apart; the offset itself is whole seconds. */
    const int64_t d = (int64_t)xsf_clock_tai_ns() - (int64_t)xsf_clock_wall_ns();
    const int64_t s = (d >= 0 ? d + (int64_t)XSF_NS_PER_S / 2 : d - (int64_t)XSF_NS_PER_S / 2) /
                      (int64_t)XSF_NS_PER_S;
    return s * (int64_t)XSF_NS_PER_S;
}

int64_t xsf_clock_wall_to_mono(uint64_t wall_ns)
{
    const int64_t now_wall = (int64_t)xsf_clock_wall_ns();
    const int64_t now_mono = (int64_t)xsf_clock_mono_ns();
    return now_mono - (now_wall - (int64_t)wall_ns);
}

int xsf_clock_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return 0;
    const struct timespec ts = xsf_ns_to_timespec((uint64_t)ns);
    return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) != 0;
}

int xsf_clock_sleep_until_ns(uint64_t deadline_ns)
{
    const struct timespec ts = xsf_ns_to_timespec(deadline_ns);
    return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0;
}

struct timespec xsf_clock_wall_deadline(uint64_t in_ns)
{
    return xsf_ns_to_timespec(xsf_clock_wall_ns() + in_ns);
}
