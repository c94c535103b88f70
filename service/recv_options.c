/* The receive service's knobs (service.h): each stream's, the limits every stream
 * shares, the decoder's, the display's, as `xsflow recv` takes them. */
#include <stddef.h>
#include <string.h>

#include "service.h"

void svc_recv_options_init(svc_recv_options *o)
{
    memset(o, 0, sizeof *o);
    svc_recv_config_init(&o->cfg);
    svc_recv_limits_init(&o->lim);
}

static xsf_status parse_fps(void *obj, const char *value, xsf_error *err)
{
    return xsf_parse_rate(value, &((svc_stream_request *)obj)->fps, err);
}

static xsf_status parse_pix_fmt(void *obj, const char *value, xsf_error *err)
{
    return xsf_container_parse(value, &((svc_stream_request *)obj)->pix_fmt, err);
}

#define AT(field) offsetof(svc_stream_request, field)
const xsf_option svc_stream_request_knobs[] = {
    XSF_OPTION("filter", XSF_OPTION_STRING, AT(filter), "BPF",
               "capture filter (default: udp, and the address and port)"),
    XSF_OPTION("source", XSF_OPTION_STRING, AT(source), "ADDR",
               "accept this sender only: a source-specific multicast join, or\n"
               "with unicast every other sender's datagrams dropped (counted)"),
    XSF_OPTION("iface", XSF_OPTION_STRING, AT(iface), "NAME", "interface to join the group on"),
    XSF_OPTION("pt", XSF_OPTION_INT, AT(payload_type), "N",
               "accept this payload type only (default: the SDP's, or any)", .lo = 0, .hi = 127),
    XSF_OPTION("ssrc", XSF_OPTION_UINT, AT(ssrc), "N",
               "accept this SSRC only (default: the first to send 4 packets in\n"
               "sequence; another once it has been silent for 1 s)",
               .lo = 0, .hi = 0xffffffffu, .size = sizeof(uint32_t), .flags = XSF_OPTION_GIVEN,
               .given_offset = AT(ssrc_given)),
    XSF_OPTION("fps", XSF_OPTION_CALL, AT(fps), "RATE",
               "Y4M frame rate: N, N/D, N:D or a decimal (default: the SDP's, or 25)",
               .parse = parse_fps),
    XSF_OPTION("pix-fmt", XSF_OPTION_CALL, AT(pix_fmt), "F",
               "the pictures' pixel format, as the decoder writes it (default\n"
               "planar16, as decoded):\n" XSF_CONTAINER_WORDS,
               .parse = parse_pix_fmt),
    XSF_OPTION("packets", XSF_OPTION_STRING, AT(packets), "FILE",
               "one CSV line per packet: its RTP and RFC 9134 header fields"),
    XSF_OPTION_TABLE_END};
#undef AT

static xsf_status parse_colour(void *obj, const char *value, xsf_error *err)
{
    return xsf_colour_parse(value, &((svc_recv_options *)obj)->cfg.colour, err);
}

/* --headless: the display, offscreen. */
static xsf_status parse_headless(void *obj, const char *value, xsf_error *err)
{
    svc_recv_options *o = obj;
    (void)err;
    o->cfg.headless_ppm = value;
    o->display = 1;
    return XSF_OK;
}

#define AT(field) offsetof(svc_recv_options, field)
const xsf_option svc_recv_knobs[] = {
    XSF_OPTION("frames", XSF_OPTION_INT, AT(lim.frames), "N",
               "stop each stream after N whole frames", .lo = 1, .hi = (double)(1LL << 40),
               .size = sizeof(long)),
    XSF_OPTION("duration", XSF_OPTION_DOUBLE, AT(lim.duration_s), "S", "stop after S seconds",
               .lo = 0, .hi = 1e7),
    XSF_OPTION(
        "timeout", XSF_OPTION_DOUBLE, AT(lim.timeout_s), "S",
        "stop a stream after S seconds without a packet, once one came\n(default 5; 0: never)",
        .lo = 0, .hi = 1e7),
    XSF_OPTION("wait", XSF_OPTION_DOUBLE, AT(lim.wait_s), "S",
               "stop a stream that has no packet after S seconds (0: never;\n"
               "default: --timeout's with --frames, else never)",
               .lo = 0, .hi = 1e7),
    XSF_OPTION("reorder", XSF_OPTION_INT, AT(lim.reorder), "N",
               "reorder window in packets (default 512)", .lo = 1, .hi = 65536,
               .size = sizeof(long)),
    XSF_OPTION("reorder-ms", XSF_OPTION_INT, AT(lim.reorder_ms), "MS",
               "give up on a missing packet after MS ms (default 20; with two\n"
               "legs at least --dup-window)",
               .lo = 0, .hi = 10000, .size = sizeof(long)),
    XSF_OPTION("dup-window", XSF_OPTION_INT, AT(lim.dup_window_ms), "MS",
               "two legs (ST 2022-7): the path skew tolerated, 1 to 450 ms\n"
               "(default 50: ST 2022-7 moderate skew; 450: high skew)",
               .lo = 1, .hi = RTP_MERGE_WINDOW_MS_MAX, .size = sizeof(long)),
    XSF_OPTION("rcvbuf", XSF_OPTION_BYTES, AT(lim.rcvbuf), "BYTES",
               "socket receive buffer, e.g. 64M (default 32 MiB)", .lo = 0,
               .hi = (double)(1ULL << 31)),
    XSF_OPTION("no-gro", XSF_OPTION_FLAG, AT(lim.no_gro), NULL,
               "take datagrams one by one from the kernel (default: UDP GRO,\n"
               "bursts of a sender with GSO in one buffer, cut apart here)"),
    XSF_OPTION("max-frame-bytes", XSF_OPTION_BYTES, AT(lim.max_frame_bytes), "N",
               "the largest codestream a frame may hold (default: the bound of\n"
               "the SDP's picture, else 64 MiB); larger frames are dropped\n"
               "(counted as too large)",
               .lo = 4096, .hi = (double)(1ULL << 32)),
    XSF_OPTION("cpu", XSF_OPTION_SET, AT(cfg.pl.engine), NULL, "decode on the CPU",
               .value = PL_ENGINE_CPU),
    XSF_OPTION("gpu", XSF_OPTION_SET, AT(cfg.pl.engine), NULL,
               "decode on the GPU (default: GPU where usable)", .value = PL_ENGINE_GPU),
    XSF_OPTION("gpus", XSF_OPTION_INTS, AT(cfg.pl.gpus), "LIST",
               "GPUs to use, e.g. 0,1 (default: all visible); streams are spread", .lo = 0,
               .hi = 255, .max_items = PL_MAX_GPUS, .count_offset = AT(cfg.pl.ngpus)),
    XSF_OPTION("contexts", XSF_OPTION_INT, AT(cfg.pl.contexts_per_gpu), "N",
               "decoder contexts per GPU (default: the streams decoded by slices + 2,\n"
               "at least 3)",
               .lo = 1, .hi = 64),
    XSF_OPTION("gpu-sync", XSF_OPTION_CHOICE, AT(cfg.pl.gpu_sync), "W",
               "how decoder threads wait for the GPU: spin (the lowest latency,\n"
               "a core each while waiting; the default while the decoder\n"
               "contexts are at most a quarter of the cores), block (they\n"
               "sleep; the default with more), yield, or auto (CUDA's choice)",
               .choices = "auto|spin|yield|block", .flags = XSF_OPTION_GIVEN,
               .given_offset = AT(lim.gpu_sync_given)),
    XSF_OPTION("slices", XSF_OPTION_SET, AT(cfg.slices), NULL,
               "sub-frame latency: decode each frame's slices on the GPU as they\n"
               "arrive (progressive streams; the picture is the same). The default\n"
               "for live streams (sockets, live captures) that want pictures,\n"
               "unless --cpu; asked for, the GPU engine only: refused with --cpu or\n"
               "where no GPU is usable (the CPU engine decodes whole frames)",
               .value = 1),
    XSF_OPTION("whole-frames", XSF_OPTION_SET, AT(cfg.slices), NULL,
               "decode each frame once it is whole (no --slices by default)", .value = -1),
    XSF_OPTION("threads", XSF_OPTION_INT, AT(cfg.pl.cpu_threads), "N",
               "CPU decoder threads (default: one per core)", .lo = 1, .hi = 1024),
    XSF_OPTION("queue", XSF_OPTION_INT, AT(lim.queue), "N",
               "frames per stream in flight (default: a live stream 16, with --cpu\n"
               "2 x threads + 4 where more; a capture file 2 x decoders + 2)",
               .lo = 2, .hi = 1024, .size = sizeof(long)),
    XSF_OPTION("pinned", XSF_OPTION_INT, AT(cfg.pinned_mib), "MIB",
               "GPU: host memory pinned at start for frames and pictures; what\n"
               "does not fit is pinned as it is used, in the background\n"
               "(default: 96 MiB a stream + 256 MiB, less for a capture file\n"
               "under 48 MiB: twice its size, pictures 16 times; 0: none)",
               .lo = 0, .hi = 1 << 20, .size = sizeof(long)),
    XSF_OPTION("copy-threads", XSF_OPTION_INT, AT(lim.copy_threads), "N",
               ".pcap files: threads copying payloads into frames while the\n"
               "receiving thread reads headers (default: cores - 2, at most 4;\n"
               "0: the receiving thread copies)",
               .lo = 0, .hi = 64, .size = sizeof(long)),
    XSF_OPTION("stats-json", XSF_OPTION_STRING, AT(stats_json), "FILE",
               "the figures per stream as JSON, rewritten once a second\n(whole, by rename) and "
               "at the end"),
    XSF_OPTION("frame-log", XSF_OPTION_STRING, AT(cfg.frame_log), "FILE",
               "one CSV line per frame delivered: its stage times (first and\n"
               "last packet, queued, decode start, device and host picture\n"
               "ready, delivered; ns on one clock; with --ptp the capture\n"
               "instant), every stream in one file"),
    XSF_OPTION("ptp", XSF_OPTION_FLAG, AT(cfg.ptp), NULL,
               "this host's clock is locked to the senders' PTP (CLOCK_TAI,\n"
               "phc2sys): read RTP timestamps as capture instants (ST 2110-10)\n"
               "and report each frame's capture-to-picture latency beside the\n"
               "last-packet-to-picture one"),
    XSF_OPTION("warmup", XSF_OPTION_DOUBLE, AT(cfg.warmup_s), "S",
               "latencies leave out the first S seconds (start-up)", .lo = 0, .hi = 1e7),
    XSF_OPTION("display", XSF_OPTION_FLAG, AT(display), NULL,
               "show the streams in a window (one tile each, a multiviewer)\n"
               "instead of writing them (no -o then); keys: space pause,\n"
               "f fullscreen, s screenshot, i statistics overlay, q quit"),
    XSF_OPTION("delay", XSF_OPTION_INT, AT(cfg.delay_ms), "MS",
               "playout delay after the stream's RTP clock (default 40)", .lo = 0, .hi = 10000),
    XSF_OPTION("no-vsync", XSF_OPTION_SET, AT(cfg.vsync), NULL,
               "show pictures as they come, not at their time", .value = 0),
    XSF_OPTION("convert", XSF_OPTION_CHOICE, AT(cfg.convert), "WHERE",
               "auto (default), shader (OpenGL) or cuda: where pictures become RGB",
               .choices = "auto|shader|cuda"),
    XSF_OPTION("colour", XSF_OPTION_CALL, AT(cfg.colour), "C",
               "what the components are: " XSF_COLOUR_WORDS ";\n"
               "default: the SDP's colorimetry and RANGE, else 709 (narrow),\n"
               "or rgb for RCT codestreams; the same picture as decode's .ppm",
               .parse = parse_colour),
    XSF_OPTION("color", XSF_OPTION_CALL, AT(cfg.colour), "C", NULL, .flags = XSF_OPTION_HIDDEN,
               .parse = parse_colour),
    XSF_OPTION("headless", XSF_OPTION_CALL, AT(cfg.headless_ppm), "OUT.ppm",
               "render offscreen (EGL) and write the last picture shown", .parse = parse_headless),
    XSF_OPTION_TABLE_END};
#undef AT
