/* xsflow recv: SMPTE ST 2110-22 streams (RTP, RFC 9134) from UDP sockets,
 * .pcap/.pcapng files or live captures, through the pipeline (one receiving
 * thread per stream, one shared decode stage on the GPUs or the CPU) to
 * .jxs, .yuv or .y4m files. Statistics per stream, once a second. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "service.h"
#include "xsf_cli.h"

static const char about[] =
    "  SOURCE: ADDR:PORT | --sdp FILE | --pcap FILE [ADDR:PORT] | --capture IFACE [ADDR:PORT]\n"
    "  (--sdp FILE with --pcap or --capture: the capture of the stream the SDP describes)\n"
    "\n"
    "Receives ST 2110-22 streams (RTP, RFC 9134 payload, JPEG XS), each on a thread of its\n"
    "own, and decodes them on the GPU (or, without one, on every CPU core), each to its own\n"
    "OUT: OUT.jxs gets the codestreams (nothing is decoded); OUT.yuv and OUT.y4m the decoded\n"
    "pictures, in order; 'null' decodes into host memory and writes nothing, 'null:device'\n"
    "leaves the pictures in GPU memory; 'md5:FILE' writes a line a picture: its index, RTP\n"
    "timestamp and the MD5 of the picture in .yuv layout (for tests against the C decoder).\n"
    "Exits with 1 where a stream delivered no frame, or fewer than --frames, saying so\n"
    "(the frames it did deliver stay written; an output without any is removed).\n"
    "Frames with a missing packet are dropped and\n"
    "counted; when the decoder falls behind a live stream, the oldest waiting frame is\n"
    "dropped and counted (captures are read no faster than they decode). Statistics go\n"
    "to standard error once a second, per stream.\n"
    "ADDR:PORT is a unicast or multicast address, IPv4 or [IPv6], to bind (and join); after\n"
    "--pcap or --capture it selects packets.\n"
    "Two paths (SMPTE ST 2022-7): the legs of one stream joined by commas, in order:\n"
    "ADDR:PORT,ADDR:PORT (--iface IF1,IF2, --source S1,S2: one for all, or one a leg),\n"
    "--pcap A.pcap,B.pcap (read in capture-time order), --capture IF1,IF2 ADDR:PORT,ADDR:PORT,\n"
    "or an SDP whose media descriptions are grouped by a=group:DUP (RFC 7104). Packets are\n"
    "merged by RTP sequence number before frames are assembled: a frame is whole when each\n"
    "packet came on one leg. A silent leg costs nothing and is taken again when it comes\n"
    "back; it is logged once when it goes and once when it comes back.\n";

static const char epilogue[] =
    "Memory: each stream holds at most FRAMES x F + F + R bytes, whatever its senders\n"
    "send: FRAMES frames (--queue), each codestream at most F = --max-frame-bytes (x 2 for\n"
    "an interlaced frame), one more F where a sender sends out of order (T=0), and R the\n"
    "reorder window, probation store and tables (about 10 MiB with the defaults). The\n"
    "figure is printed per stream. With an SDP, F defaults to the bound of a\n"
    "JPEG XS codestream of its picture: 6 bytes a sample + 256 KiB (samples: width x\n"
    "height x 2 for 4:2:2, x 1.5 for 4:2:0, x 3 for 4:4:4/RGB). A frame is also held to\n"
    "the bound of its own picture header (or its Lcod). SECURITY.md says what the\n"
    "receiver trusts. A stream of two legs adds the merge window, 40 bytes a packet of\n"
    "the skew at 500,000 packets/s (1.25 MiB at 50 ms, 10 MiB at 450 ms), and its reorder\n"
    "window holds the skew at 160,000 packets/s (at least 8001 packets at 50 ms, 9000\n"
    "bytes each).\n";

#define MAX_STREAMS SVC_MAX_STREAMS

/* A stream's request (service.h) and the option values that are converted into it. */
typedef struct stream_args {
    svc_stream_request r;
    int kind_given;
    long pt;
    uint64_t ssrc;
} stream_args;

typedef struct recv_args {
    stream_args s[MAX_STREAMS];
    int n;
    svc_recv_limits lim; /* what the streams share */
    int quiet, display;
    const char *stats_json;
    svc_recv_config cfg; /* the decoder, display and logs as the options give them */
} recv_args;

static int has_source(const stream_args *s)
{
    return s->r.addr || s->r.sdp || s->r.pcap || s->r.capture;
}

/* The stream being described: a source starts a new one once the current
 * has its source (or its output). */
static stream_args *current(recv_args *a, int source_token)
{
    if (a->n == 0 || (source_token && (a->s[a->n - 1].r.out || has_source(&a->s[a->n - 1])))) {
        if (a->n == MAX_STREAMS)
            return NULL;
        stream_args *s = &a->s[a->n++];
        memset(s, 0, sizeof *s);
        s->pt = -1;
        return s;
    }
    return &a->s[a->n - 1];
}

/* The stream an option belongs to (cli_command.item); NULL after the error. */
static void *stream_of(void *ctx, const cli_option *o)
{
    stream_args *s = current(ctx, 0);
    if (!s)
        cli_error(o->name, "at most %d streams", MAX_STREAMS);
    return s;
}

/* --sdp, --pcap, --capture: a stream's source (ADDR:PORT: address()). */
static int source_option(void *ctx, const cli_option *o, const char *v)
{
    recv_args *a = ctx;
    /* A capture and the SDP that describes its stream go together (its rate, TP and clock
     * for ST 2110-21, its format): either first. */
    stream_args *last = a->n ? &a->s[a->n - 1] : NULL;
    const int sdp = !strcmp(o->name, "sdp");
    if (last && !last->r.out &&
        (sdp ? !last->r.sdp && (last->r.pcap || last->r.capture)
             : last->r.sdp && !last->r.pcap && !last->r.capture && !last->r.addr)) {
        *(const char **)(void *)((char *)last + (size_t)o->dst) = v;
        return 0;
    }
    stream_args *s = current(a, 1);
    if (!s) {
        cli_error(o->name, "at most %d streams", MAX_STREAMS);
        return 2;
    }
    if (has_source(s)) {
        cli_error(o->name, "one source per stream: give -o OUT for the stream before it");
        return 2;
    }
    *(const char **)(void *)((char *)s + (size_t)o->dst) = v;
    return 0;
}

static int output_option(void *ctx, const cli_option *o, const char *v)
{
    stream_args *s = stream_of(ctx, o);
    if (!s)
        return 2;
    if (s->r.out) {
        cli_error("--output", "one output per stream: give the next stream's source first");
        return 2;
    }
    s->r.out = v;
    return 0;
}

static int headless_option(void *ctx, const cli_option *o, const char *v)
{
    recv_args *a = ctx;
    (void)o;
    a->cfg.headless_ppm = v;
    a->display = 1;
    return 0;
}

/* ADDR:PORT: a stream's source, or the selector of its capture. */
static int address(void *ctx, const char *arg)
{
    recv_args *a = ctx;
    stream_args *last = a->n ? &a->s[a->n - 1] : NULL;
    if (last && !last->r.out && (last->r.pcap || last->r.capture) && !last->r.addr) {
        last->r.addr = arg;
        return 0;
    }
    stream_args *s = current(a, 1);
    if (!s) {
        cli_error(arg, "at most %d streams", MAX_STREAMS);
        return 2;
    }
    if (has_source(s)) {
        cli_error(arg, "one source per stream: give -o OUT for the stream before it");
        return 2;
    }
    s->r.addr = arg;
    return 0;
}

#define AT(field) ((void *)offsetof(stream_args, field))
#define GIVEN(field) ((int *)offsetof(stream_args, field))

static const int out_kinds[] = {SVC_OUT_JXS, SVC_OUT_YUV, SVC_OUT_Y4M};

/* The command line's values (one run a process). */
static recv_args args;

/* Each stream's options, then the receiver's. */
static const cli_option options[] = {
    CLI_HEAD("stream options (between a SOURCE and its -o):"),
    CLI_OPT("sdp", 0, CLI_CALL, AT(r.sdp), "FILE", "the stream an SDP file describes",
            .call = source_option),
    CLI_OPT("pcap", 0, CLI_CALL, AT(r.pcap), "FILE", "a .pcap or .pcapng capture",
            .call = source_option),
    CLI_OPT("capture", 0, CLI_CALL, AT(r.capture), "IFACE", "a live capture on an interface",
            .call = source_option),
    CLI_OPT("output", 'o', CLI_CALL, NULL, "OUT",
            ".jxs, .yuv, .y4m, null, null:device or md5:FILE ('-': standard\noutput)",
            .call = output_option),
    CLI_OPT("format", 0, CLI_CHOICE, AT(r.output), "F",
            "jxs, yuv or y4m (default: OUT's extension)", .choices = "jxs|yuv|y4m",
            .values = out_kinds, .flags = CLI_ITEM, .given = GIVEN(kind_given)),
    CLI_OPT("filter", 0, CLI_STRING, AT(r.filter), "BPF",
            "capture filter (default: udp, and the address and port)", .flags = CLI_ITEM),
    CLI_OPT("source", 0, CLI_STRING, AT(r.source), "ADDR",
            "accept this sender only: a source-specific multicast join, or\n"
            "with unicast every other sender's datagrams dropped (counted)",
            .flags = CLI_ITEM),
    CLI_OPT("iface", 0, CLI_STRING, AT(r.iface), "NAME", "interface to join the group on",
            .flags = CLI_ITEM),
    CLI_OPT("pt", 0, CLI_LONG, AT(pt), "N",
            "accept this payload type only (default: the SDP's, or any)", .lo = 0, .hi = 127,
            .flags = CLI_ITEM),
    CLI_OPT("ssrc", 0, CLI_U64, AT(ssrc), "N",
            "accept this SSRC only (default: the first to send 4 packets in\n"
            "sequence; another once it has been silent for 1 s)",
            .lo = 0, .hi = 0xffffffffu, .flags = CLI_ITEM, .given = GIVEN(r.ssrc_given)),
    CLI_OPT("fps", 0, CLI_RATE, AT(r.fps), "RATE",
            "Y4M frame rate: N, N/D, N:D or a decimal (default: the SDP's, or 25)",
            .flags = CLI_ITEM),
    CLI_OPT("pix-fmt", 0, CLI_PIX_FMT, AT(r.pix_fmt), "F",
            "the pictures' pixel format, as the decoder writes it (default\n"
            "planar16, as decoded):\n" XSF_CONTAINER_WORDS,
            .flags = CLI_ITEM),
    CLI_OPT("packets", 0, CLI_STRING, AT(r.packets), "FILE",
            "one CSV line per packet: its RTP and RFC 9134 header fields", .flags = CLI_ITEM),
    CLI_HEAD("options:"),
    CLI_KNOB_TABLE(svc_recv_limit_knobs, &args.lim),
    CLI_OPT("cpu", 0, CLI_SET, &args.cfg.pl.engine, NULL, "decode on the CPU",
            .value = PL_ENGINE_CPU),
    CLI_OPT("gpu", 0, CLI_SET, &args.cfg.pl.engine, NULL,
            "decode on the GPU (default: GPU where usable)", .value = PL_ENGINE_GPU),
    CLI_OPT("gpus", 0, CLI_INTS, args.cfg.pl.gpus, "LIST",
            "GPUs to use, e.g. 0,1 (default: all visible); streams are spread", .lo = 0, .hi = 255,
            .max_items = PL_MAX_GPUS, .count = &args.cfg.pl.ngpus),
    CLI_OPT("contexts", 0, CLI_INT, &args.cfg.pl.contexts_per_gpu, "N",
            "decoder contexts per GPU (default 3; with --slices, streams + 2)", .lo = 1, .hi = 64),
    CLI_OPT("gpu-sync", 0, CLI_CHOICE, &args.cfg.pl.gpu_sync, "W",
            "how decoder threads wait for the GPU: spin (the lowest latency,\n"
            "a core each while waiting; the default while the decoder\n"
            "contexts are at most a quarter of the cores), block (they\n"
            "sleep; the default with more), yield, or auto (CUDA's choice)",
            .choices = "auto|spin|yield|block", .given = &args.lim.gpu_sync_given),
    CLI_OPT("slices", 0, CLI_FLAG, &args.cfg.slices, NULL,
            "sub-frame latency: decode each frame's slices on the GPU as they\n"
            "arrive (progressive streams; the picture is the same). The GPU\n"
            "engine only: refused with --cpu or where no GPU is usable (the\n"
            "CPU engine decodes whole frames)"),
    CLI_OPT("threads", 0, CLI_INT, &args.cfg.pl.cpu_threads, "N",
            "CPU decoder threads (default: one per core)", .lo = 1, .hi = 1024),
    CLI_OPT("queue", 0, CLI_LONG, &args.lim.queue, "N",
            "frames per stream in flight (default: 2 x decoders + 4, at least 16)", .lo = 2,
            .hi = 1024),
    CLI_OPT("pinned", 0, CLI_LONG, &args.cfg.pinned_mib, "MIB",
            "GPU: host memory pinned at start for frames and pictures; what\n"
            "does not fit is pinned as it is used, in the background\n"
            "(default: 96 MiB a stream + 256 MiB, less for a capture file\n"
            "under 48 MiB: twice its size, pictures 16 times; 0: none)",
            .lo = 0, .hi = 1 << 20),
    CLI_OPT("copy-threads", 0, CLI_LONG, &args.lim.copy_threads, "N",
            ".pcap files: threads copying payloads into frames while the\n"
            "receiving thread reads headers (default: cores - 2, at most 4;\n"
            "0: the receiving thread copies)",
            .lo = 0, .hi = 64),
    CLI_OPT("stats-json", 0, CLI_STRING, &args.stats_json, "FILE",
            "the figures per stream as JSON, rewritten once a second\n(whole, by rename) and "
            "at the end"),
    CLI_OPT("frame-log", 0, CLI_STRING, &args.cfg.frame_log, "FILE",
            "one CSV line per frame delivered: its stage times (first and\n"
            "last packet, queued, decode start, device and host picture\n"
            "ready, delivered; ns on one clock; with --ptp the capture\n"
            "instant), every stream in one file"),
    CLI_OPT("ptp", 0, CLI_FLAG, &args.cfg.ptp, NULL,
            "this host's clock is locked to the senders' PTP (CLOCK_TAI,\n"
            "phc2sys): read RTP timestamps as capture instants (ST 2110-10)\n"
            "and report each frame's capture-to-picture latency beside the\n"
            "last-packet-to-picture one"),
    CLI_OPT("warmup", 0, CLI_DOUBLE, &args.cfg.warmup_s, "S",
            "latencies leave out the first S seconds (start-up)", .lo = 0, .hi = 1e7),
    CLI_OPT("display", 0, CLI_FLAG, &args.display, NULL,
            "show the streams in a window (one tile each, a multiviewer)\n"
            "instead of writing them (no -o then); keys: space pause,\n"
            "f fullscreen, s screenshot, i statistics overlay, q quit"),
    CLI_KNOB_TABLE(svc_recv_display_knobs, &args.cfg),
    CLI_OPT("headless", 0, CLI_CALL, NULL, "OUT.ppm",
            "render offscreen (EGL) and write the last picture shown", .call = headless_option),
    CLI_OPT("quiet", 'q', CLI_FLAG, &args.quiet, NULL,
            "print only the final statistics (and errors)"),
    CLI_TABLE_END};

static int parse_args(int argc, char **argv, recv_args *a)
{
    memset(a, 0, sizeof *a);
    svc_recv_config_init(&a->cfg); /* pinned -1, delay 40 ms, vsync */
    svc_recv_limits_init(&a->lim); /* timeout 5 s, reorder 512 packets and 20 ms */
    const cli_command cmd = {.name = "recv",
                             .synopsis =
                                 "SOURCE [stream options] -o OUT [SOURCE ... -o OUT]... [options]",
                             .about = about,
                             .epilogue = epilogue,
                             .options = options,
                             .positional = address,
                             .item = stream_of,
                             .ctx = a};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    if (a->n == 0) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    /* The C decoder has no incremental interface: the CPU stage waits for each frame whole,
     * so --slices there would change nothing but the name of what was measured. */
    if (a->cfg.slices && a->cfg.pl.engine == PL_ENGINE_CPU) {
        cli_error("--slices", "sub-frame decoding runs on the GPU engine only; --cpu decodes whole "
                              "frames (drop --slices or --cpu)");
        return 2;
    }
    for (int k = 0; k < a->n; k++) {
        stream_args *s = &a->s[k];
        char what[32];
        snprintf(what, sizeof what, "stream %d", k + 1);
        s->r.payload_type = (int)s->pt;
        s->r.ssrc = (uint32_t)s->ssrc;
        svc_failure f;
        if (svc_stream_request_check(&s->r, a->display, s->kind_given ? (int)s->r.output : -1, what,
                                     &f) != XSF_OK) {
            cli_error(f.subject, "%s", f.err.msg);
            return 2;
        }
    }
    return 0;
}

/* Prints the failure; the exit status. */
static int failed(const svc_failure *f)
{
    cli_error(f->subject, "%s", f->err.msg);
    return f->usage ? 2 : 1;
}

/* Each stream's receiver, and the service's configuration; 0 or the exit status. */
static int configure(recv_args *a)
{
    const svc_stream_request *req[MAX_STREAMS];
    for (int k = 0; k < a->n; k++)
        req[k] = &a->s[k].r;
    svc_failure f;
    return svc_recv_setup(&a->cfg, req, a->n, &a->lim, &f) == XSF_OK ? 0 : failed(&f);
}

static void warn(const svc_failure *w)
{
    cli_error(w->subject, "warning: %s", w->err.msg);
}

/* The streams stopped and finished (svc_recv_finish): what became of them. */
static int finish(const recv_args *a, svc_recv *s, int status)
{
    static svc_recv_end e;
    svc_recv_finish(s, a->stats_json, &e);
    for (int k = 0; k < e.started; k++)
        for (int i = 0; i < e.stream[k].nwarnings; i++)
            warn(&e.stream[k].warning[i]);
    for (int k = 0; k < e.started; k++)
        if (e.stream[k].join.status != XSF_OK) {
            cli_error(e.stream[k].label, "%s", e.stream[k].join.msg);
            status = 1;
        }
    if (e.display && e.display_err.status != XSF_OK) {
        cli_error("--display", "%s", e.display_err.msg);
        status = 1;
    }
    svc_recv_end_format(stderr, &e, &a->cfg);
    if (e.json.err.status != XSF_OK)
        status = failed(&e.json);
    for (int k = 0; k < e.nstreams; k++) {
        const svc_stream_end *se = &e.stream[k];
        const char *out = a->s[k].r.out;
        const uint64_t refused = se->fig.pl.dropped[PL_DROP_DECODE];
        if (k < e.started && se->shortfall.err.status != XSF_OK)
            status = failed(&se->shortfall);
        if (se->close.err.status != XSF_OK)
            status = failed(&se->close);
        else if (se->wrote && !status && !a->quiet && k < e.started)
            printf("%s: %llu whole frame%s into %s\n", se->label, (unsigned long long)se->frames,
                   se->frames == 1 ? "" : "s", strcmp(out, "-") ? out : "standard output");
        if (k < e.started && refused && !a->quiet)
            fprintf(stderr, "xsflow: %s: %llu frame%s refused by the decoder, the last: %s\n",
                    se->label, (unsigned long long)refused, refused == 1 ? "" : "s",
                    se->fig.pl.last_error);
        if (se->packets.err.status != XSF_OK && !status)
            status = failed(&se->packets);
    }
    if (e.destroy.err.status != XSF_OK && !status)
        status = failed(&e.destroy);
    return status;
}

int cmd_recv(int argc, char **argv)
{
    int r = cli_exit_status(parse_args(argc, argv, &args));
    if (r >= 0)
        return r;
    if ((r = configure(&args)))
        return r;
    svc_failure f;
    svc_recv *s;
    if (svc_recv_create(&s, &args.cfg, &f) != XSF_OK)
        return failed(&f);
    if (!args.quiet)
        fprintf(stderr, "xsflow recv: %d stream%s, decoding on %s\n", args.n,
                args.n == 1 ? "" : "s", pl_describe(svc_recv_pipeline(s)));
    if (svc_recv_open_display(s, &f) != XSF_OK) {
        r = failed(&f);
        svc_recv_destroy(s, &f);
        return r;
    }
    int status = svc_recv_start(s, &f) != XSF_OK ? failed(&f) : 0;

    cmd_catch_interrupts();

    while (!status && !cmd_interrupted() && svc_recv_wait(s, 20)) {
        while (svc_recv_next_warning(s, &f))
            warn(&f);
        if (!svc_recv_report_due(s))
            continue;
        for (int k = 0; k < svc_recv_started(s) && !args.quiet; k++) {
            svc_stream_figures fig;
            svc_recv_figures(s, k, 1, &fig);
            svc_stream_figures_format(stderr, svc_recv_label(s, k), &fig,
                                      args.cfg.stream[k].leg_name);
        }
        if (args.stats_json && svc_recv_started(s) == args.n &&
            svc_recv_write_json(s, args.stats_json, &f) != XSF_OK)
            status = failed(&f);
    }
    return finish(&args, s, status);
}
