/* The clocks of xsflow, and the conversions between their units, written
 * once. Nothing here prints or allocates.
 *
 * Two clocks, each with one job:
 *
 * - The monotonic clock (CLOCK_MONOTONIC), xsf_clock_mono_ns: every
 *   interval, timeout, deadline and pacing schedule (the sender's packet
 *   times, the display's presentation times, a benchmark's seconds). It
 *   never jumps; its zero is arbitrary (boot), so its values mean nothing
 *   outside the process.
 *
 * - The packet clock (CLOCK_REALTIME, ns since the Unix epoch),
 *   xsf_clock_wall_ns: the clock of the kernel's receive timestamps
 *   (SO_TIMESTAMPNS) and of .pcap records, and so of every time the receive
 *   path stamps on a packet or a frame: rtp_packet.arrival_ns, the
 *   pipeline's pl_times (pl_now_ns is this clock) and the frame log. One
 *   clock from a frame's first packet to its picture, so that a latency is
 *   one subtraction. It may jump (settimeofday, an NTP step): never sleep
 *   or time out on it; pthread_cond_timedwait with a default condition
 *   variable is the one wait that takes it (xsf_clock_wall_deadline).
 *
 * A time of one clock is never compared with a time of the other: where a
 * packet-clock time must be placed on the monotonic clock (the display
 * paces pictures by their arrival), xsf_clock_wall_to_mono converts it.
 *
 * NMOS TAI times are the packet clock plus the TAI-UTC offset (nmos/).
 *
 * The plant's clock (CLOCK_TAI), xsf_clock_tai_ns: what ST 2110-10 times a
 * stream by, the PTP time (SMPTE ST 2059) that linuxptp's phc2sys keeps the
 * system clock on in a plant. The sender's RTP timestamps and its pacing
 * schedule are instants on it; the receiver reads a frame's RTP timestamp
 * against it (capture-to-picture latency). CLOCK_TAI is CLOCK_REALTIME plus
 * the kernel's TAI offset, which is 0 until something sets it (adjtimex
 * ADJ_TAI, as time daemons do: chronyd with leapsectz, for one): on a host where
 * nothing did, CLOCK_TAI reads the same as CLOCK_REALTIME (UTC, 37 s behind
 * TAI), so timestamps are then UTC instants, consistent between hosts with
 * the same setting only. xsf_clock_tai_offset_ns says which it is.
 */
#ifndef XSF_CLOCK_H
#define XSF_CLOCK_H

#include <stdint.h>
#include <time.h> /* struct timespec (C11) */

#ifdef __cplusplus
extern "C" {
#endif

#define XSF_NS_PER_US 1000ull
#define XSF_NS_PER_MS 1000000ull
#define XSF_NS_PER_S 1000000000ull

/* The monotonic clock, ns. */
uint64_t xsf_clock_mono_ns(void);
/* The monotonic clock in seconds (for rates and printed times). */
double xsf_clock_mono_s(void);
/* The packet clock (CLOCK_REALTIME), ns since the epoch. */
uint64_t xsf_clock_wall_ns(void);

/* The plant's clock (CLOCK_TAI), ns since the epoch (1970-01-01 TAI). */
uint64_t xsf_clock_tai_ns(void);
/* CLOCK_TAI - CLOCK_REALTIME now, in whole seconds as ns (the kernel's TAI
 * offset: 37 s where set, 0 where nothing set it). Adding it to a
 * packet-clock time gives the TAI time. */
int64_t xsf_clock_tai_offset_ns(void);

/* A packet-clock time seen on the monotonic clock: the monotonic time that
 * was `wall_ns` by the offset between the two clocks now (signed: a time
 * before the monotonic clock's zero is negative). */
int64_t xsf_clock_wall_to_mono(uint64_t wall_ns);

/* Sleeps `ns` on the monotonic clock (not at all when ns <= 0). Returns 0
 * after the whole time, or non-zero when a signal handler ran first (the
 * caller decides whether to sleep again: a command's loop stops on SIGINT
 * this way). */
int xsf_clock_sleep_ns(int64_t ns);
/* Sleeps until the monotonic clock reads `deadline_ns` (at once when it has
 * passed). Returns 0 at the deadline, non-zero when a signal handler ran
 * first. */
int xsf_clock_sleep_until_ns(uint64_t deadline_ns);

/* The absolute time `in_ns` from now on the packet clock, for
 * pthread_cond_timedwait on a condition variable with the default clock. */
struct timespec xsf_clock_wall_deadline(uint64_t in_ns);

/* ---- conversions ---- */

static inline struct timespec xsf_ns_to_timespec(uint64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / XSF_NS_PER_S);
    ts.tv_nsec = (long)(ns % XSF_NS_PER_S);
    return ts;
}

/* A timespec of a non-negative time (either clock's readings are). */
static inline uint64_t xsf_timespec_to_ns(struct timespec ts)
{
    return (uint64_t)ts.tv_sec * XSF_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds as seconds and milliseconds, for printing and statistics. */
static inline double xsf_ns_to_s(int64_t ns)
{
    return (double)ns / 1e9;
}
static inline double xsf_ns_to_ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* Ticks of a `rate_hz` clock (RTP: 90 kHz for video) as nanoseconds,
 * truncated toward zero, without overflow for any count of ticks whose
 * time fits in 63 bits of ns (292 years). rate_hz > 0. */
static inline int64_t xsf_ticks_to_ns(int64_t ticks, uint32_t rate_hz)
{
    const int64_t sec = ticks / (int64_t)rate_hz, rem = ticks % (int64_t)rate_hz;
    return sec * (int64_t)XSF_NS_PER_S + rem * (int64_t)XSF_NS_PER_S / (int64_t)rate_hz;
}

#ifdef __cplusplus
}
#endif
#endif
