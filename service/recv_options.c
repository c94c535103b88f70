/* The receive service's knobs (service.h): the limits every stream shares and the
 * display's, as `xsflow recv` takes them. */
#include <stddef.h>

#include "service.h"

#define AT(field) offsetof(svc_recv_limits, field)
const xsf_option svc_recv_limit_knobs[] = {
    XSF_OPTION("frames", XSF_OPTION_INT, AT(frames), "N", "stop each stream after N whole frames",
               .lo = 1, .hi = (double)(1LL << 40), .size = sizeof(long)),
    XSF_OPTION("duration", XSF_OPTION_DOUBLE, AT(duration_s), "S", "stop after S seconds", .lo = 0,
               .hi = 1e7),
    XSF_OPTION(
        "timeout", XSF_OPTION_DOUBLE, AT(timeout_s), "S",
        "stop a stream after S seconds without a packet, once one came\n(default 5; 0: never)",
        .lo = 0, .hi = 1e7),
    XSF_OPTION("wait", XSF_OPTION_DOUBLE, AT(wait_s), "S",
               "stop a stream that has no packet after S seconds (0: never;\n"
               "default: --timeout's with --frames, else never)",
               .lo = 0, .hi = 1e7),
    XSF_OPTION("reorder", XSF_OPTION_INT, AT(reorder), "N",
               "reorder window in packets (default 512)", .lo = 1, .hi = 65536,
               .size = sizeof(long)),
    XSF_OPTION("reorder-ms", XSF_OPTION_INT, AT(reorder_ms), "MS",
               "give up on a missing packet after MS ms (default 20; with two\n"
               "legs at least --dup-window)",
               .lo = 0, .hi = 10000, .size = sizeof(long)),
    XSF_OPTION("dup-window", XSF_OPTION_INT, AT(dup_window_ms), "MS",
               "two legs (ST 2022-7): the path skew tolerated, 1 to 450 ms\n"
               "(default 50: ST 2022-7 moderate skew; 450: high skew)",
               .lo = 1, .hi = RTP_MERGE_WINDOW_MS_MAX, .size = sizeof(long)),
    XSF_OPTION("rcvbuf", XSF_OPTION_BYTES, AT(rcvbuf), "BYTES",
               "socket receive buffer, e.g. 64M (default 32 MiB)", .lo = 0,
               .hi = (double)(1ULL << 31)),
    XSF_OPTION("no-gro", XSF_OPTION_FLAG, AT(no_gro), NULL,
               "take datagrams one by one from the kernel (default: UDP GRO,\n"
               "bursts of a sender with GSO in one buffer, cut apart here)"),
    XSF_OPTION("max-frame-bytes", XSF_OPTION_BYTES, AT(max_frame_bytes), "N",
               "the largest codestream a frame may hold (default: the bound of\n"
               "the SDP's picture, else 64 MiB); larger frames are dropped\n"
               "(counted as too large)",
               .lo = 4096, .hi = (double)(1ULL << 32)),
    XSF_OPTION_TABLE_END};
#undef AT

static xsf_status parse_colour(void *obj, const char *value, xsf_error *err)
{
    return xsf_colour_parse(value, &((svc_recv_config *)obj)->colour, err);
}

#define AT(field) offsetof(svc_recv_config, field)
const xsf_option svc_recv_display_knobs[] = {
    XSF_OPTION("delay", XSF_OPTION_INT, AT(delay_ms), "MS",
               "playout delay after the stream's RTP clock (default 40)", .lo = 0, .hi = 10000),
    XSF_OPTION("no-vsync", XSF_OPTION_SET, AT(vsync), NULL,
               "show pictures as they come, not at their time", .value = 0),
    XSF_OPTION("convert", XSF_OPTION_CHOICE, AT(convert), "WHERE",
               "auto (default), shader (OpenGL) or cuda: where pictures become RGB",
               .choices = "auto|shader|cuda"),
    XSF_OPTION("colour", XSF_OPTION_CALL, AT(colour), "C",
               "what the components are: " XSF_COLOUR_WORDS ";\n"
               "default: the SDP's colorimetry and RANGE, else 709 (narrow),\n"
               "or rgb for RCT codestreams; the same picture as decode's .ppm",
               .parse = parse_colour),
    XSF_OPTION("color", XSF_OPTION_CALL, AT(colour), "C", NULL, .flags = XSF_OPTION_HIDDEN,
               .parse = parse_colour),
    XSF_OPTION_TABLE_END};
