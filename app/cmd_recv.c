/* xsflow recv: SMPTE ST 2110-22 streams (RTP, RFC 9134) from UDP sockets,
 * .pcap/.pcapng files or live captures, through the pipeline (one receiving
 * thread per stream, one shared decode stage on the GPUs or the CPU) to
 * .jxs, .yuv or .y4m files. Statistics per stream, once a second. */
#define _POSIX_C_SOURCE 200809L /* sigaction, nanosleep */

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "display.h"
#include "image_io.h"
#include "pipeline.h"
#include "rtp.h"
#include "xsf_clock.h"

static const char about[] =
    "  SOURCE: ADDR:PORT | --sdp FILE | --pcap FILE [ADDR:PORT] | --capture IFACE [ADDR:PORT]\n"
    "\n"
    "Receives ST 2110-22 streams (RTP, RFC 9134 payload, JPEG XS), each on a thread of its\n"
    "own, and decodes them on the GPU (or, without one, on every CPU core), each to its own\n"
    "OUT: OUT.jxs gets the codestreams (nothing is decoded); OUT.yuv and OUT.y4m the decoded\n"
    "pictures, in order; 'null' decodes into host memory and writes nothing, 'null:device'\n"
    "leaves the pictures in GPU memory; 'md5:FILE' writes a line a picture: its index, RTP\n"
    "timestamp and the MD5 of the picture in .yuv layout (for tests against the C decoder).\n"
    "Frames with a missing packet are dropped and\n"
    "counted; when the decoder falls behind a live stream, the oldest waiting frame is\n"
    "dropped and counted (captures are read no faster than they decode). Statistics go\n"
    "to standard error once a second, per stream.\n"
    "ADDR:PORT is a unicast or multicast address, IPv4 or [IPv6], to bind (and join); after\n"
    "--pcap or --capture it selects packets.\n";

static const char epilogue[] =
    "Memory: each stream holds at most FRAMES x F + F + R bytes, whatever its senders\n"
    "send: FRAMES frames (--queue), each codestream at most F = --max-frame-bytes (x 2 for\n"
    "an interlaced frame), one more F where a sender sends out of order (T=0), and R the\n"
    "reorder window, probation store and tables (about 10 MiB with the defaults). The\n"
    "figure is printed per stream. With an SDP, F defaults to the bound of a\n"
    "JPEG XS codestream of its picture: 6 bytes a sample + 256 KiB (samples: width x\n"
    "height x 2 for 4:2:2, x 1.5 for 4:2:0, x 3 for 4:4:4/RGB). A frame is also held to\n"
    "the bound of its own picture header (or its Lcod). SECURITY.md says what the\n"
    "receiver trusts.\n";

#define MAX_STREAMS PL_MAX_STREAMS
/* The default pinned reserve (--pinned): a UHD 4:2:2 3 bpp stream's 16 frames at 1.5 x its
 * 3.1 MB codestream take 75 MiB; five UHD 4:4:4 pictures of 16-bit samples, 250 MiB. */
#define PINNED_PER_STREAM_MIB ((size_t)96)
#define PINNED_PICTURES_MIB ((size_t)256)

typedef enum out_kind {
    OUT_JXS,
    OUT_YUV,
    OUT_Y4M,
    OUT_NULL,
    OUT_NULL_DEVICE,
    OUT_DISPLAY,
    OUT_MD5 /* md5:FILE, a line a picture (PL_WRITE_MD5) */
} out_kind;

typedef struct stream_args {
    const char *addr, *sdp, *pcap, *capture, *filter, *source, *iface, *out, *packets;
    out_kind kind;
    int kind_given;
    long pt;
    uint64_t ssrc;
    int ssrc_given;
    xsf_rate fps; /* num 0: the SDP's, or 25 */
} stream_args;

typedef struct recv_args {
    stream_args s[MAX_STREAMS];
    int n;
    long frames, reorder, reorder_ms, queue;
    uint64_t rcvbuf;
    uint64_t max_frame_bytes; /* 0: from the SDP, else 64 MiB */
    long copy_threads;      /* -1: not given (the source's choice) */
    double duration, timeout, warmup;
    int quiet, no_gro, slices;
    const char *stats_json;
    const char *frame_log;
    long pinned_mib; /* -1: not given */
    int gpu_sync_given;
    pl_config pl;
    int display, no_vsync;
    long delay_ms;
    xsf_colour colour; /* --colour (source XSF_COLOUR_USER), else nothing said */
    dsp_convert convert;
    const char *headless;
} recv_args;

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int parse_kind(const char *v, out_kind *k)
{
    static const char *const names[] = {"jxs", "yuv", "y4m"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, names[i])) {
            *k = (out_kind)i;
            return 0;
        }
    return -1;
}

static int has_source(const stream_args *s)
{
    return s->addr || s->sdp || s->pcap || s->capture;
}

/* The stream being described: a source starts a new one once the current
 * has its source (or its output). */
static stream_args *current(recv_args *a, int source_token)
{
    if (a->n == 0 || (source_token && (a->s[a->n - 1].out || has_source(&a->s[a->n - 1])))) {
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
    if (s->out) {
        cli_error("--output", "one output per stream: give the next stream's source first");
        return 2;
    }
    s->out = v;
    return 0;
}

static int headless_option(void *ctx, const cli_option *o, const char *v)
{
    recv_args *a = ctx;
    (void)o;
    a->headless = v;
    a->display = 1;
    return 0;
}

/* ADDR:PORT: a stream's source, or the selector of its capture. */
static int address(void *ctx, const char *arg)
{
    recv_args *a = ctx;
    stream_args *last = a->n ? &a->s[a->n - 1] : NULL;
    if (last && !last->out && (last->pcap || last->capture) && !last->addr) {
        last->addr = arg;
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
    s->addr = arg;
    return 0;
}

#define AT(field) ((void *)offsetof(stream_args, field))
#define GIVEN(field) ((int *)offsetof(stream_args, field))

static const int out_kinds[] = {OUT_JXS, OUT_YUV, OUT_Y4M};

/* Each stream's options, then the receiver's. */
static int parse_options(int argc, char **argv, recv_args *a, cli_command *cmd)
{
    const cli_option options[] = {
        CLI_HEAD("stream options (between a SOURCE and its -o):"),
        CLI_OPT("sdp", 0, CLI_CALL, AT(sdp), "FILE", "the stream an SDP file describes", .call = source_option),
        CLI_OPT("pcap", 0, CLI_CALL, AT(pcap), "FILE", "a .pcap or .pcapng capture", .call = source_option),
        CLI_OPT("capture", 0, CLI_CALL, AT(capture), "IFACE", "a live capture on an interface",
                .call = source_option),
        CLI_OPT("output", 'o', CLI_CALL, NULL, "OUT",
                ".jxs, .yuv, .y4m, null, null:device or md5:FILE ('-': standard\noutput)", .call = output_option),
        CLI_OPT("format", 0, CLI_CHOICE, AT(kind), "F", "jxs, yuv or y4m (default: OUT's extension)",
                .choices = "jxs|yuv|y4m", .values = out_kinds, .flags = CLI_ITEM, .given = GIVEN(kind_given)),
        CLI_OPT("filter", 0, CLI_STRING, AT(filter), "BPF", "capture filter (default: udp, and the address and port)",
                .flags = CLI_ITEM),
        CLI_OPT("source", 0, CLI_STRING, AT(source), "ADDR",
                "accept this sender only: a source-specific multicast join, or\n"
                "with unicast every other sender's datagrams dropped (counted)",
                .flags = CLI_ITEM),
        CLI_OPT("iface", 0, CLI_STRING, AT(iface), "NAME", "interface to join the group on", .flags = CLI_ITEM),
        CLI_OPT("pt", 0, CLI_LONG, AT(pt), "N", "accept this payload type only (default: the SDP's, or any)", .lo = 0,
                .hi = 127, .flags = CLI_ITEM),
        CLI_OPT("ssrc", 0, CLI_U64, AT(ssrc), "N",
                "accept this SSRC only (default: the first to send 4 packets in\n"
                "sequence; another once it has been silent for 1 s)",
                .lo = 0, .hi = 0xffffffffu, .flags = CLI_ITEM, .given = GIVEN(ssrc_given)),
        CLI_OPT("fps", 0, CLI_RATE, AT(fps), "RATE",
                "Y4M frame rate: N, N/D, N:D or a decimal (default: the SDP's, or 25)", .flags = CLI_ITEM),
        CLI_OPT("packets", 0, CLI_STRING, AT(packets), "FILE",
                "one CSV line per packet: its RTP and RFC 9134 header fields", .flags = CLI_ITEM),
        CLI_HEAD("options:"),
        CLI_OPT("frames", 0, CLI_LONG, &a->frames, "N", "stop each stream after N whole frames", .lo = 1,
                .hi = (double)(1LL << 40)),
        CLI_OPT("duration", 0, CLI_DOUBLE, &a->duration, "S", "stop after S seconds", .lo = 0, .hi = 1e7),
        CLI_OPT("timeout", 0, CLI_DOUBLE, &a->timeout, "S",
                "stop a stream after S seconds without a packet (default 5; 0: never)", .lo = 0, .hi = 1e7),
        CLI_OPT("reorder", 0, CLI_LONG, &a->reorder, "N", "reorder window in packets (default 512)", .lo = 1,
                .hi = 65536),
        CLI_OPT("reorder-ms", 0, CLI_LONG, &a->reorder_ms, "MS", "give up on a missing packet after MS ms (default 20)",
                .lo = 0, .hi = 10000),
        CLI_OPT("rcvbuf", 0, CLI_BYTES, &a->rcvbuf, "BYTES", "socket receive buffer, e.g. 64M (default 32 MiB)",
                .lo = 0, .hi = (double)(1ULL << 31)),
        CLI_OPT("no-gro", 0, CLI_FLAG, &a->no_gro, NULL,
                "take datagrams one by one from the kernel (default: UDP GRO,\n"
                "bursts of a sender with GSO in one buffer, cut apart here)"),
        CLI_OPT("max-frame-bytes", 0, CLI_BYTES, &a->max_frame_bytes, "N",
                "the largest codestream a frame may hold (default: the bound of\n"
                "the SDP's picture, else 64 MiB); larger frames are dropped\n"
                "(counted as too large)",
                .lo = 4096, .hi = (double)(1ULL << 32)),
        CLI_OPT("cpu", 0, CLI_SET, &a->pl.engine, NULL, "decode on the CPU", .value = PL_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &a->pl.engine, NULL, "decode on the GPU (default: GPU where usable)",
                .value = PL_ENGINE_GPU),
        CLI_OPT("gpus", 0, CLI_INTS, a->pl.gpus, "LIST", "GPUs to use, e.g. 0,1 (default: all visible); streams are spread",
                .lo = 0, .hi = 255, .max_items = PL_MAX_GPUS, .count = &a->pl.ngpus),
        CLI_OPT("contexts", 0, CLI_INT, &a->pl.contexts_per_gpu, "N",
                "decoder contexts per GPU (default 3; with --slices, streams + 2)", .lo = 1, .hi = 64),
        CLI_OPT("gpu-sync", 0, CLI_CHOICE, &a->pl.gpu_sync, "W",
                "how decoder threads wait for the GPU: spin (the lowest latency,\n"
                "a core each while waiting; the default while the decoder\n"
                "contexts are at most a quarter of the cores), block (they\n"
                "sleep; the default with more), yield, or auto (CUDA's choice)",
                .choices = "auto|spin|yield|block", .given = &a->gpu_sync_given),
        CLI_OPT("slices", 0, CLI_FLAG, &a->slices, NULL,
                "sub-frame latency: decode each frame's slices on the GPU as they\n"
                "arrive (progressive streams; the picture is the same). The GPU\n"
                "engine only: refused with --cpu or where no GPU is usable (the\n"
                "CPU engine decodes whole frames)"),
        CLI_OPT("threads", 0, CLI_INT, &a->pl.cpu_threads, "N", "CPU decoder threads (default: one per core)",
                .lo = 1, .hi = 1024),
        CLI_OPT("queue", 0, CLI_LONG, &a->queue, "N",
                "frames per stream in flight (default: 2 x decoders + 4, at least 16)", .lo = 2, .hi = 1024),
        CLI_OPT("pinned", 0, CLI_LONG, &a->pinned_mib, "MIB",
                "GPU: host memory pinned at start for frames and pictures; what\n"
                "does not fit is pinned as it is used, in the background\n"
                "(default: 96 MiB a stream + 256 MiB; 0: none)",
                .lo = 0, .hi = 1 << 20),
        CLI_OPT("copy-threads", 0, CLI_LONG, &a->copy_threads, "N",
                ".pcap files: threads copying payloads into frames while the\n"
                "receiving thread reads headers (default: cores - 2, at most 4;\n"
                "0: the receiving thread copies)",
                .lo = 0, .hi = 64),
        CLI_OPT("stats-json", 0, CLI_STRING, &a->stats_json, "FILE",
                "the figures per stream as JSON, rewritten once a second\n(whole, by rename) and at the end"),
        CLI_OPT("frame-log", 0, CLI_STRING, &a->frame_log, "FILE",
                "one CSV line per frame delivered: its stage times (first and\n"
                "last packet, queued, decode start, device and host picture\n"
                "ready, delivered; ns on one clock), every stream in one file"),
        CLI_OPT("warmup", 0, CLI_DOUBLE, &a->warmup, "S", "latencies leave out the first S seconds (start-up)",
                .lo = 0, .hi = 1e7),
        CLI_OPT("display", 0, CLI_FLAG, &a->display, NULL,
                "show the streams in a window (one tile each, a multiviewer)\n"
                "instead of writing them (no -o then); keys: space pause,\n"
                "f fullscreen, s screenshot, i statistics overlay, q quit"),
        CLI_OPT("delay", 0, CLI_LONG, &a->delay_ms, "MS", "playout delay after the stream's RTP clock (default 40)",
                .lo = 0, .hi = 10000),
        CLI_OPT("no-vsync", 0, CLI_FLAG, &a->no_vsync, NULL, "show pictures as they come, not at their time"),
        CLI_OPT("convert", 0, CLI_CHOICE, &a->convert, "WHERE",
                "auto (default), shader (OpenGL) or cuda: where pictures become RGB", .choices = "auto|shader|cuda"),
        CLI_OPT("colour", 0, CLI_COLOUR, &a->colour, "C",
                "what the components are: " XSF_COLOUR_WORDS ";\n"
                "default: the SDP's colorimetry and RANGE, else 709 (narrow),\n"
                "or rgb for RCT codestreams; the same picture as decode's .ppm"),
        CLI_OPT("color", 0, CLI_COLOUR, &a->colour, "C", NULL, .flags = CLI_HIDDEN),
        CLI_OPT("headless", 0, CLI_CALL, NULL, "OUT.ppm", "render offscreen (EGL) and write the last picture shown",
                .call = headless_option),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print only the final statistics (and errors)"),
        CLI_TABLE_END};
    cmd->options = options;
    const int r = cli_parse(cmd, argc, argv);
    if (!r && a->n == 0) {
        cli_usage(cmd, stderr);
        return 2;
    }
    return r;
}

static int parse_args(int argc, char **argv, recv_args *a)
{
    memset(a, 0, sizeof *a);
    a->gpu_sync_given = 0; /* the default is chosen once the contexts are known */
    a->pinned_mib = -1;
    a->delay_ms = 40;
    a->timeout = 5;
    a->reorder = 512;
    a->reorder_ms = 20;
    a->copy_threads = -1;
    cli_command cmd = {.name = "recv",
                       .synopsis = "SOURCE [stream options] -o OUT [SOURCE ... -o OUT]... [options]",
                       .about = about, .epilogue = epilogue, .positional = address, .item = stream_of, .ctx = a};
    const int r = parse_options(argc, argv, a, &cmd);
    if (r)
        return r;
    /* The C decoder has no incremental interface: the CPU stage waits for each frame whole,
     * so --slices there would change nothing but the name of what was measured. */
    if (a->slices && a->pl.engine == PL_ENGINE_CPU) {
        cli_error("--slices", "sub-frame decoding runs on the GPU engine only; --cpu decodes whole "
                              "frames (drop --slices or --cpu)");
        return 2;
    }
    for (int k = 0; k < a->n; k++) {
        stream_args *s = &a->s[k];
        char what[32];
        snprintf(what, sizeof what, "stream %d", k + 1);
        if (!has_source(s)) {
            cli_error(what, "no source: give ADDR:PORT, --sdp FILE, --pcap FILE or --capture "
                            "IFACE before its options");
            return 2;
        }
        if (s->sdp && s->addr) {
            cli_error(what, "give ADDR:PORT or --sdp, not both");
            return 2;
        }
        if (a->display) {
            if (s->out) {
                cli_error(what, "--display shows the streams: give no -o");
                return 2;
            }
            s->kind = OUT_DISPLAY;
            continue;
        }
        if (!s->out) {
            cli_error(what, "no output: give -o OUT.jxs, OUT.yuv, OUT.y4m or null after its "
                            "source (or --display)");
            return 2;
        }
        if (!strcmp(s->out, "null")) {
            s->kind = OUT_NULL;
        } else if (!strcmp(s->out, "null:device")) {
            s->kind = OUT_NULL_DEVICE;
        } else if (!strncmp(s->out, "md5:", 4) && s->out[4]) {
            s->kind = OUT_MD5;
        } else if (!s->kind_given) {
            const size_t n = strlen(s->out);
            if (n < 4 || parse_kind(s->out + n - 3, &s->kind) || s->out[n - 4] != '.') {
                cli_error(s->out,
                          "unknown output format: name it .jxs, .yuv or .y4m, or give --format");
                return 2;
            }
        }
    }
    return 0;
}

/* ---- one stream ---- */

typedef struct stream {
    const stream_args *sa;
    char label[160];
    int id;
    pl_writer *w;
    pl_rtp_source *src;
    pl_rtp_config rc;
    char filter[512];
    xsf_colour colour; /* the SDP's colorimetry/RANGE, else nothing said */
    FILE *plog;
    size_t max_frame_bytes; /* of a field or progressive frame */
    /* the previous once-a-second report */
    uint64_t prev_delivered, prev_bytes, prev_ns;
} stream;

static xsf_status read_sdp(const char *path, rtp_sdp *s, xsf_error *err)
{
    uint8_t *text;
    size_t len;
    xsf_status st = imgio_read_file(path, &text, &len, err);
    if (st != XSF_OK)
        return st;
    st = len > 65536 ? xsf_error_set(err, XSF_ERR_INVALID, "larger than 64 KiB")
                     : rtp_sdp_parse((const char *)text, len, s, err);
    free(text);
    return st;
}

/* Fills the receiver's configuration of a stream; 0, or 1/2 after an error message. */
static int configure(const recv_args *a, const stream_args *sa, stream *s)
{
    xsf_error err;
    xsf_error_clear(&err);
    pl_rtp_config *rc = &s->rc;
    memset(rc, 0, sizeof *rc);
    rtp_addr addr, source;
    memset(&addr, 0, sizeof addr);
    memset(&source, 0, sizeof source);
    int have_addr = 0, have_source = 0;
    long pt = sa->pt;
    if (sa->sdp) {
        rtp_sdp sdp;
        if (read_sdp(sa->sdp, &sdp, &err) != XSF_OK) {
            cli_error(sa->sdp, "%s", err.msg);
            return 1;
        }
        if (rtp_addr_parse(sdp.dest_addr, 0, &addr, &err) != XSF_OK) {
            cli_error(sa->sdp, "c= %s", err.msg);
            return 1;
        }
        addr.port = (uint16_t)sdp.port;
        have_addr = 1;
        if (sdp.source_addr[0] && rtp_addr_parse(sdp.source_addr, 0, &source, &err) == XSF_OK)
            have_source = 1;
        if (pt < 0)
            pt = sdp.payload_type;
        rc->interlaced = sdp.interlace;
        /* RFC 9134 7.1 / ST 2110-20: colorimetry and RANGE pick the display's matrix. */
        if (sdp.colorimetry[0] || sdp.range[0])
            xsf_colour_from_sdp(&s->colour, sdp.colorimetry, sdp.range);
        if (!sa->fps.num && sdp.rate_num) {
            ((stream_args *)sa)->fps.num = sdp.rate_num;
            ((stream_args *)sa)->fps.den = sdp.rate_den;
        }
        /* c= is where the stream goes: a group, or this host's unicast address, which is
         * bound as it is (not every local address). */
        const uint64_t samples = rtp_sdp_samples(&sdp);
        if (samples && !a->max_frame_bytes)
            s->max_frame_bytes = rtp_jxs_codestream_bound(samples);
        /* A field has half the frame's lines: the frame's samples bound both. */
        rc->depacketizer.max_picture_samples = samples;
    }
    if (sa->addr) {
        if (rtp_addr_parse(sa->addr, 1, &addr, &err) != XSF_OK) {
            cli_error(sa->addr, "%s", err.msg);
            return 2;
        }
        have_addr = 1;
    }
    if (sa->source) {
        if (rtp_addr_parse(sa->source, 0, &source, &err) != XSF_OK) {
            cli_error("--source", "%s", err.msg);
            return 2;
        }
        have_source = 1;
    }
    if (a->max_frame_bytes)
        s->max_frame_bytes = (size_t)a->max_frame_bytes;
    else if (!s->max_frame_bytes)
        s->max_frame_bytes = (size_t)64 << 20;
    rtp_depacketizer_config *dc = &rc->depacketizer;
    dc->max_frame_bytes = s->max_frame_bytes;
    dc->payload_type = (int)pt;
    dc->ssrc_given = sa->ssrc_given;
    dc->ssrc = (uint32_t)sa->ssrc;
    dc->reorder_packets = (unsigned)a->reorder;
    dc->reorder_ns = (uint64_t)a->reorder_ms * 1000000u;
    /* Decoded streams are checked by the decoder itself (a refusal is counted
     * as "decode"); codestreams written as they are get the structural check. */
    dc->validate = sa->kind == OUT_JXS;
    rc->max_frames = a->frames > 0 ? (uint64_t)a->frames : 0;
    rc->slices = a->slices;
    rc->duration_s = a->duration;
    rc->timeout_s = a->timeout;
    rc->copy_threads = a->copy_threads < 0 ? 0 : a->copy_threads ? (int)a->copy_threads : -1;
    if (sa->pcap || sa->capture) {
        rc->kind = sa->pcap ? PL_RTP_PCAP : PL_RTP_CAPTURE;
        rc->path = sa->pcap ? sa->pcap : sa->capture;
        rc->udp.buffer_bytes = (size_t)a->rcvbuf;
        if (sa->filter) {
            snprintf(s->filter, sizeof s->filter, "%s", sa->filter);
        } else if (have_addr) {
            char host[80];
            rtp_addr_format(&addr, 0, host, sizeof host);
            snprintf(s->filter, sizeof s->filter, "udp and dst port %u and dst host %s", addr.port,
                     host);
            if (have_source) {
                char src[80];
                rtp_addr_format(&source, 0, src, sizeof src);
                snprintf(s->filter + strlen(s->filter), sizeof s->filter - strlen(s->filter),
                         " and src host %s", src);
            }
        } else {
            snprintf(s->filter, sizeof s->filter, "udp");
        }
        rc->filter = s->filter;
    } else {
        rc->kind = PL_RTP_SOCKET;
        rc->udp.local = addr;
        rc->udp.has_source = have_source;
        rc->udp.source = source;
        rc->udp.buffer_bytes = (size_t)a->rcvbuf;
        rc->udp.timestamps = 1;
        rc->udp.gro = !a->no_gro;
        if (sa->iface)
            snprintf(rc->udp.iface, sizeof rc->udp.iface, "%s", sa->iface);
    }
    return 0;
}

/* Frames that did not reach the output, by reason (each frame once). */
typedef struct drops {
    uint64_t missing;  /* a packet never came (the stream's edges included) */
    uint64_t partial;  /* slice mode: slices missing */
    uint64_t invalid;  /* whole, but not a valid codestream */
    uint64_t too_large; /* grew past the bound of its picture (or --max-frame-bytes) */
    uint64_t behind;   /* the oldest waiting frame, dropped for a newer one */
    uint64_t no_frame; /* no free frame to assemble into */
    uint64_t decode;   /* the decoder refused it */
    uint64_t field;    /* interlaced: a field without its sibling */
    uint64_t total;
    uint64_t refused_packets;      /* not RTP, truncated, other payload type or SSRC, on probation,
                                      other sender */
    uint64_t memory, memory_bound; /* bytes the stream holds (pool + depacketizer), its bound */
} drops;

static drops stream_drops(const stream *s, const rtp_stats *r, const pl_stream_stats *ps)
{
    drops d;
    d.invalid = r->frames_invalid;
    d.too_large = r->frames_too_large;
    d.missing =
        r->frames_dropped - r->frames_invalid - r->frames_dropped_no_buffer - r->frames_too_large;
    d.partial = r->frames_partial;
    d.behind = ps->dropped[PL_DROP_QUEUE];
    d.no_frame = ps->dropped[PL_DROP_NO_FRAME] + r->frames_dropped_no_buffer;
    d.decode = ps->dropped[PL_DROP_DECODE];
    d.field = ps->dropped[PL_DROP_FIELD];
    d.total = d.missing + d.partial + d.invalid + d.too_large + d.behind + d.no_frame + d.decode +
              d.field;
    d.refused_packets = r->invalid + r->truncated + r->wrong_pt + r->wrong_ssrc + r->on_probation +
                        r->foreign_source;
    d.memory = ps->pool_bytes + r->memory_bytes;
    d.memory_bound = (uint64_t)ps->frames * ps->max_frame_bytes +
                     rtp_depacketizer_memory_bound(&s->rc.depacketizer);
    return d;
}

static void print_stream(stream *s, pl_pipeline *p, int final)
{
    rtp_stats r;
    uint64_t kdrops;
    pl_rtp_source_stats(s->src, &r, &kdrops);
    pl_stream_stats ps;
    pl_stream_stats_get(p, s->id, &ps);
    const drops d = stream_drops(s, &r, &ps);
    const uint64_t now = xsf_clock_mono_ns();
    double fps, mbps;
    if (final) {
        fps = ps.fps;
        mbps = r.bitrate_bps / 1e6;
    } else {
        const double dt = s->prev_ns ? (double)(now - s->prev_ns) / 1e9 : 0;
        fps = dt > 0 ? (double)(ps.delivered - s->prev_delivered) / dt : 0;
        mbps = dt > 0 ? (double)(r.bytes - s->prev_bytes) * 8 / dt / 1e6 : 0;
    }
    s->prev_delivered = ps.delivered;
    s->prev_bytes = r.bytes;
    s->prev_ns = now;
    fprintf(stderr,
            "%s: %.1f fps, %.1f Mbit/s; packets %llu, lost %llu, reordered %llu, duplicated %llu, "
            "late %llu, refused %llu; frames %llu whole, %llu dropped (missing packets %llu, "
            "partial %llu, invalid %llu, too large %llu, decoder behind %llu, no frame %llu, "
            "decode %llu, field %llu); latency p50 %.0f us, p99 %.0f us, max %.0f us; "
            "memory %.1f MiB of %.1f MiB",
            s->label, fps, mbps, (unsigned long long)r.packets, (unsigned long long)r.lost,
            (unsigned long long)r.reordered, (unsigned long long)r.duplicated,
            (unsigned long long)r.late, (unsigned long long)d.refused_packets,
            (unsigned long long)ps.delivered, (unsigned long long)d.total,
            (unsigned long long)d.missing, (unsigned long long)d.partial,
            (unsigned long long)d.invalid, (unsigned long long)d.too_large,
            (unsigned long long)d.behind, (unsigned long long)d.no_frame,
            (unsigned long long)d.decode, (unsigned long long)d.field, ps.latency.p50_us,
            ps.latency.p99_us, ps.latency.max_us, (double)d.memory / 1048576.0,
            (double)d.memory_bound / 1048576.0);
    /* Each cause of a refused packet under its own name, every second it is not zero. */
    if (d.refused_packets)
        fprintf(stderr,
                "; refused packets: not RTP/RFC 9134 %llu, truncated %llu, payload type %llu, "
                "other SSRC %llu, on probation %llu, other sender %llu",
                (unsigned long long)r.invalid, (unsigned long long)r.truncated,
                (unsigned long long)r.wrong_pt, (unsigned long long)r.wrong_ssrc,
                (unsigned long long)r.on_probation, (unsigned long long)r.foreign_source);
    if (r.on_probation || r.ssrc_changes || r.wrong_ssrc)
        fprintf(stderr, "; SSRC 0x%08x, SSRC changes %llu", r.ssrc,
                (unsigned long long)r.ssrc_changes);
    if (ps.delivered > 1)
        fprintf(stderr, "; longest stall %.1f ms", (double)ps.max_stall_ns / 1e6);
    if (r.lost_edge || r.frames_dropped_edge)
        fprintf(stderr, "; at the stream's edges: lost %llu packets, dropped %llu frames",
                (unsigned long long)r.lost_edge, (unsigned long long)r.frames_dropped_edge);
    if (r.frames_dropped_no_buffer)
        fprintf(stderr, "; dropped for want of a free frame %llu",
                (unsigned long long)r.frames_dropped_no_buffer);
    if (ps.delivered_interlaced || ps.dropped[PL_DROP_FIELD])
        fprintf(stderr, "; interlaced frames %llu whole, %llu dropped with a lost field",
                (unsigned long long)ps.delivered_interlaced,
                (unsigned long long)ps.dropped[PL_DROP_FIELD]);
    if (kdrops)
        fprintf(stderr, "; kernel drops %llu", (unsigned long long)kdrops);
    fputc('\n', stderr);
}

/* The overlay text of a stream's tile: what print_stream says, shorter. */
static void overlay_stream(dsp_view *view, stream *s, pl_pipeline *p)
{
    rtp_stats r;
    pl_rtp_source_stats(s->src, &r, NULL);
    pl_stream_stats ps;
    pl_stream_stats_get(p, s->id, &ps);
    const drops d = stream_drops(s, &r, &ps);
    char text[256];
    snprintf(text, sizeof text,
             "%.2f Mbit/s\nlost %llu packets, dropped %llu frames\nlatency p50 %.0f us p99 %.0f us",
             r.bitrate_bps / 1e6, (unsigned long long)r.lost,
             (unsigned long long)d.total, ps.latency.p50_us,
             ps.latency.p99_us);
    dsp_view_set_stats(view, s->id, text);
}

static void json_latency(FILE *f, const char *key, const pl_latency *l)
{
    fprintf(f, "\"%s\": {\"count\": %llu, \"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f, "
               "\"mean\": %.1f}",
            key, (unsigned long long)l->count, l->p50_us, l->p99_us, l->max_us, l->mean_us);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* Written to PATH.tmp, then renamed over PATH: a reader never sees half a file. */
static int write_json(const char *path, stream *ss, int n, pl_pipeline *p)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        cli_error(path, "the name is too long");
        return 1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cli_error(tmp, "cannot create the file");
        return 1;
    }
    fprintf(f, "{\n  \"engine\": ");
    json_string(f, pl_describe(p));
    fprintf(f, ",\n  \"streams\": [");
    for (int k = 0; k < n; k++) {
        stream *s = &ss[k];
        rtp_stats r;
        uint64_t kdrops;
        pl_rtp_source_stats(s->src, &r, &kdrops);
        pl_stream_stats ps;
        pl_stream_stats_get(p, s->id, &ps);
        const drops d = stream_drops(s, &r, &ps);
        fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
        json_string(f, s->label);
        fprintf(
            f,
            ", \"ssrc\": %u, \"packets\": %llu, \"bytes\": %llu, \"packets_lost\": %llu, "
            "\"packets_reordered\": %llu, \"packets_duplicated\": %llu, \"packets_late\": "
            "%llu, \"packets_refused\": %llu, \"kernel_drops\": %llu, \"frames_received\": "
            "%llu, \"frames_whole\": %llu, \"frames_dropped\": %llu, \"frames_dropped_by_reason\": "
            "{\"missing_packets\": %llu, \"partial\": %llu, \"invalid\": %llu, "
            "\"too_large\": %llu, \"decoder_behind\": %llu, \"no_frame\": %llu, "
            "\"decode\": %llu, \"field\": %llu}, "
            "\"mbps\": %.3f, \"fps\": %.3f, \"jitter_ms\": %.4f, \"packets_on_probation\": "
            "%llu, \"ssrc_changes\": %llu, \"packets_lost_edge\": %llu, "
            "\"frames_dropped_edge\": %llu, \"frames_dropped_no_buffer\": %llu, ",
            r.ssrc, (unsigned long long)r.packets, (unsigned long long)r.bytes,
            (unsigned long long)r.lost, (unsigned long long)r.reordered,
            (unsigned long long)r.duplicated, (unsigned long long)r.late,
            (unsigned long long)d.refused_packets, (unsigned long long)kdrops,
            (unsigned long long)r.frames_complete, (unsigned long long)ps.delivered,
            (unsigned long long)d.total, (unsigned long long)d.missing,
            (unsigned long long)d.partial, (unsigned long long)d.invalid,
            (unsigned long long)d.too_large, (unsigned long long)d.behind,
            (unsigned long long)d.no_frame, (unsigned long long)d.decode,
            (unsigned long long)d.field, r.bitrate_bps / 1e6, ps.fps, r.jitter_ms,
            (unsigned long long)r.on_probation, (unsigned long long)r.ssrc_changes,
            (unsigned long long)r.lost_edge, (unsigned long long)r.frames_dropped_edge,
            (unsigned long long)r.frames_dropped_no_buffer);
        fprintf(f,
                "\"packets_refused_by_reason\": {\"invalid\": %llu, \"truncated\": %llu, "
                "\"payload_type\": %llu, \"other_ssrc\": %llu, \"on_probation\": %llu, "
                "\"other_sender\": %llu}, \"memory_bytes\": %llu, \"memory_bound_bytes\": %llu, "
                "\"pool_bytes\": %llu, \"depacketizer_bytes\": %llu, \"max_frame_bytes\": %llu, "
                "\"frames_in_pool\": %u, \"max_delivery_gap_ms\": %.3f, \"max_stall_ms\": %.3f, "
                "\"frames_delivered\": %llu, ",
                (unsigned long long)r.invalid, (unsigned long long)r.truncated,
                (unsigned long long)r.wrong_pt, (unsigned long long)r.wrong_ssrc,
                (unsigned long long)r.on_probation, (unsigned long long)r.foreign_source,
                (unsigned long long)d.memory, (unsigned long long)d.memory_bound,
                (unsigned long long)ps.pool_bytes, (unsigned long long)r.memory_bytes,
                (unsigned long long)ps.max_frame_bytes, ps.frames,
                (double)ps.max_delivery_gap_ns / 1e6, (double)ps.max_stall_ns / 1e6,
                (unsigned long long)ps.delivered);
        json_latency(f, "latency_us", &ps.latency);
        fprintf(f, ", ");
        json_latency(f, "latency_first_packet_us", &ps.latency_first);
        fprintf(f, ", ");
        json_latency(f, "decode_us", &ps.decode);
        fprintf(f, ", ");
        json_latency(f, "wait_us", &ps.wait);
        fprintf(f, ", ");
        json_latency(f, "latency_device_us", &ps.latency_device);
        fprintf(f, ", ");
        json_latency(f, "latency_host_us", &ps.latency_host);
        fprintf(f, ", \"frames_partial_submitted\": %llu, \"frames_aborted_partial\": %llu",
                (unsigned long long)ps.partial_submitted,
                (unsigned long long)ps.dropped[PL_DROP_INCOMPLETE]);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f)) {
        cli_error(tmp, "write failed");
        return 1;
    }
    if (rename(tmp, path)) {
        cli_error(path, "cannot rename %s to it", tmp);
        return 1;
    }
    return 0;
}

int cmd_recv(int argc, char **argv)
{
    static recv_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;
    static stream ss[MAX_STREAMS];
    memset(ss, 0, sizeof ss);
    xsf_error err;
    xsf_error_clear(&err);
    for (int k = 0; k < a.n; k++) {
        ss[k].sa = &a.s[k];
        if ((r = configure(&a, &a.s[k], &ss[k])))
            return r;
    }
    /* Sockets first: packets wait in their buffers while the GPU starts. */
    int opened = 0, jxs_only = 1;
    for (; opened < a.n; opened++) {
        stream *s = &ss[opened];
        jxs_only &= s->sa->kind == OUT_JXS;
        if (s->sa->packets && !(s->rc.packet_log = s->plog = fopen(s->sa->packets, "w"))) {
            cli_error(s->sa->packets, "cannot create the file");
            for (int k = 0; k < opened; k++)
                pl_rtp_source_destroy(ss[k].src);
            return 1;
        }
        if (pl_rtp_source_open(&s->src, &s->rc, &err) != XSF_OK) {
            const stream_args *sa = s->sa;
            cli_error(sa->sdp ? sa->sdp : sa->addr ? sa->addr : s->rc.path, "%s", err.msg);
            for (int k = 0; k < opened; k++)
                pl_rtp_source_destroy(ss[k].src);
            return 1;
        }
    }
    /* Codestreams alone need no decoder: one thread reads their headers. */
    if (jxs_only && a.pl.engine == PL_ENGINE_AUTO) {
        a.pl.engine = PL_ENGINE_CPU;
        a.pl.cpu_threads = 1;
    }
    pl_pipeline *p;
    /* A decoder holds a partial frame until it is whole: one per stream at
     * least, and some for whole frames. */
    if (a.slices && !a.pl.contexts_per_gpu)
        a.pl.contexts_per_gpu = (unsigned)(a.n + 2 > 3 ? a.n + 2 : 3);
    /* Decoder threads spin on the GPU while they are few: on the H100 machines spinning took
     * one stream's p99 from 1.7-4.0 ms to 1.4-3.2 ms and 16 streams' from 6.8-43 ms to
     * 4.6-30 ms, for about a core (BENCHMARKS.md, "Session 22 runs"). Many threads (--slices
     * with many streams) sleep, leaving the cores to the receiving threads. */
    if (!a.gpu_sync_given) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const unsigned contexts = a.pl.contexts_per_gpu ? a.pl.contexts_per_gpu : 3;
        a.pl.gpu_sync = (long)contexts * 4 <= cores ? PL_GPU_SYNC_SPIN : PL_GPU_SYNC_BLOCK;
    }
    /* Pinning memory while streams run holds the CUDA driver from the decoders (a live
     * stream then drops frames): by default enough for UHD frames and pictures is pinned
     * before the first packet (PINNED_PER_STREAM_MIB a stream, PINNED_PICTURES_MIB), in
     * well under a second. */
    a.pl.pinned_reserve_bytes = a.pinned_mib >= 0 ? (size_t)a.pinned_mib << 20
                                                  : ((size_t)a.n * PINNED_PER_STREAM_MIB + PINNED_PICTURES_MIB) << 20;
    if (pl_create(&p, &a.pl, &err) != XSF_OK) {
        cli_error("recv", "%s", err.msg);
        for (int k = 0; k < a.n; k++)
            pl_rtp_source_destroy(ss[k].src);
        return 1;
    }
    if (a.slices && !pl_uses_gpu(p)) {
        cli_error("--slices",
                  "sub-frame decoding runs on the GPU engine only; the engine here is %s, "
                  "which decodes whole frames (drop --slices)",
                  pl_describe(p));
        pl_destroy(p);
        for (int k = 0; k < a.n; k++)
            pl_rtp_source_destroy(ss[k].src);
        return 2;
    }
    if (!a.quiet)
        fprintf(stderr, "xsflow recv: %d stream%s, decoding on %s\n", a.n, a.n == 1 ? "" : "s",
                pl_describe(p));
    dsp_view *view = NULL;
    if (a.display) {
        static char labels[MAX_STREAMS][160];
        static const char *label_ptr[MAX_STREAMS];
        dsp_view_options vo;
        dsp_view_options_init(&vo);
        vo.display.tiles = a.n;
        vo.display.title = "xsflow recv";
        vo.display.vsync = !a.no_vsync;
        vo.display.convert = a.convert;
        vo.display.headless = a.headless != NULL;
        vo.headless_ppm = a.headless;
        vo.delay_ms = (int)a.delay_ms;
        for (int k = 0; k < a.n; k++) {
            const stream_args *sa = &a.s[k];
            snprintf(labels[k], sizeof labels[k], "%s",
                     sa->sdp ? sa->sdp : sa->addr ? sa->addr : ss[k].rc.path);
            label_ptr[k] = labels[k];
            vo.colour[k] = a.colour.source == XSF_COLOUR_USER ? a.colour : ss[k].colour;
        }
        vo.display.labels = label_ptr;
        if (dsp_view_start(&view, &vo, &err) != XSF_OK) {
            cli_error("--display", "%s", err.msg);
            for (int k = 0; k < a.n; k++)
                pl_rtp_source_destroy(ss[k].src);
            pl_destroy(p);
            return 1;
        }
    }

    int status = 0, started = 0;
    FILE *flog = NULL;
    if (a.frame_log) {
        if (!(flog = fopen(a.frame_log, "w"))) {
            cli_error(a.frame_log, "%s", strerror(errno));
            status = 1;
        } else {
            fprintf(flog, "%s\n", PL_FRAME_LOG_HEADER);
        }
    }
    for (int k = 0; k < a.n && !status; k++) {
        stream *s = &ss[k];
        const stream_args *sa = s->sa;
        if (s->rc.kind != PL_RTP_SOCKET) {
            snprintf(s->label, sizeof s->label, "recv %s", s->rc.path);
        } else {
            char where[96];
            rtp_addr_format(&s->rc.udp.local, 1, where, sizeof where);
            snprintf(s->label, sizeof s->label, "recv %s", sa->addr ? sa->addr : where);
        }
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        pl_sink sink;
        if (sa->kind == OUT_DISPLAY) {
            sink = dsp_view_sink(view, k, pl_uses_gpu(p));
        } else if (sa->kind == OUT_NULL || sa->kind == OUT_NULL_DEVICE) {
            sink = pl_null_sink(sa->kind == OUT_NULL ? PL_PICTURE_HOST : PL_PICTURE_DEVICE);
        } else {
            wo.kind = sa->kind == OUT_JXS   ? PL_WRITE_JXS
                      : sa->kind == OUT_MD5 ? PL_WRITE_MD5
                                            : PL_WRITE_PICTURE;
            wo.image.format = sa->kind == OUT_Y4M ? IMGIO_FORMAT_Y4M : IMGIO_FORMAT_YUV;
            wo.image.fps_num = sa->fps.num ? sa->fps.num : 25;
            wo.image.fps_den = sa->fps.num ? sa->fps.den : 1;
            if (pl_writer_open(&s->w, sa->kind == OUT_MD5 ? sa->out + 4 : sa->out, &wo, &err) !=
                XSF_OK) {
                cli_error(sa->out, "%s", err.msg);
                status = 1;
                break;
            }
            sink = pl_writer_sink(s->w);
        }
        if (sink.placement == PL_PICTURE_DEVICE && !pl_uses_gpu(p)) {
            cli_error(sa->out, "pictures in GPU memory need the GPU engine (%s)", pl_describe(p));
            status = 2;
            break;
        }
        pl_stream_config sc = {
            .name = s->label,
            .backpressure = s->rc.kind == PL_RTP_PCAP ? PL_BLOCK : PL_DROP_OLDEST,
            .frames = (unsigned)a.queue,
            .max_frame_bytes = s->rc.interlaced ? 2 * s->max_frame_bytes : s->max_frame_bytes,
            .sink = sink,
            .frame_log = flog};
        if (pl_stream_add(p, &sc, &s->id, &err) != XSF_OK) {
            cli_error(s->label, "%s", err.msg);
            status = 1;
            break;
        }
        if (pl_rtp_source_start(s->src, p, s->id, &err) != XSF_OK) {
            cli_error(sa->sdp ? sa->sdp : sa->addr ? sa->addr : s->rc.path, "%s", err.msg);
            status = 1;
            break;
        }
        started++;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    uint64_t last_report = xsf_clock_mono_ns();
    const uint64_t warmup_end = last_report + (uint64_t)(a.warmup * 1e9);
    int warm = a.warmup <= 0;
    while (!status && !interrupted) {
        int running = 0;
        for (int k = 0; k < started; k++)
            running += !pl_rtp_source_done(ss[k].src);
        if (!running)
            break;
        xsf_clock_sleep_ns(20 * XSF_NS_PER_MS);
        if (view && dsp_view_quit_requested(view))
            break;
        if (!warm && xsf_clock_mono_ns() >= warmup_end) {
            for (int k = 0; k < started; k++)
                pl_stream_latency_reset(p, ss[k].id);
            warm = 1;
        }
        if (xsf_clock_mono_ns() - last_report >= 1000000000u) {
            for (int k = 0; k < started; k++) {
                if (!a.quiet)
                    print_stream(&ss[k], p, 0);
                if (view)
                    overlay_stream(view, &ss[k], p);
            }
            if (a.stats_json && started == a.n && write_json(a.stats_json, ss, a.n, p))
                status = 1;
            last_report = xsf_clock_mono_ns();
        }
    }
    for (int k = 0; k < started; k++)
        pl_rtp_source_stop(ss[k].src);
    for (int k = 0; k < started; k++) {
        stream *s = &ss[k];
        if (pl_rtp_source_join(s->src, &err) != XSF_OK) {
            cli_error(s->label, "%s", err.msg);
            status = 1;
            xsf_error_clear(&err);
        }
        pl_stream_finish(p, s->id);
    }
    if (view) {
        dsp_tile_stats ts[MAX_STREAMS];
        xsf_error_clear(&err);
        if (dsp_view_stop(view, ts, &err) != XSF_OK) {
            cli_error("--display", "%s", err.msg);
            status = 1;
        }
        for (int k = 0; k < started; k++)
            fprintf(stderr,
                    "%s: display: %llu pictures shown, %llu dropped late, %llu dropped (tile "
                    "full)\n",
                    ss[k].label, (unsigned long long)ts[k].presented,
                    (unsigned long long)ts[k].dropped_late, (unsigned long long)ts[k].dropped_full);
    }
    for (int k = 0; k < started; k++)
        print_stream(&ss[k], p, 1);
    if (pl_uses_gpu(p)) {
        pl_pin_stats pin;
        pl_pin_stats_get(&pin);
        fprintf(stderr,
                "pinned host memory: %.1f MiB now; %llu pins (%.1f MiB) took %.1f ms, the longest "
                "%.1f ms; %llu unpins took %.1f ms, the longest %.1f ms; reserve %.1f MiB, %.1f MiB "
                "of it in use, %llu buffers found no room in it\n",
                (double)pin.pinned_bytes / 1048576.0, (unsigned long long)pin.pins,
                (double)pin.pin_bytes / 1048576.0, (double)pin.pin_ns / 1e6, (double)pin.pin_ns_max / 1e6,
                (unsigned long long)pin.unpins, (double)pin.unpin_ns / 1e6, (double)pin.unpin_ns_max / 1e6,
                (double)pin.reserve_bytes / 1048576.0, (double)pin.reserve_used / 1048576.0,
                (unsigned long long)pin.reserve_misses);
    }
    if (a.stats_json && started == a.n && write_json(a.stats_json, ss, a.n, p))
        status = 1;
    for (int k = 0; k < a.n; k++) {
        stream *s = &ss[k];
        pl_stream_stats ps;
        if (k < started)
            pl_stream_stats_get(p, s->id, &ps);
        if (s->w) {
            const uint64_t frames = pl_writer_frames(s->w);
            xsf_error_clear(&err);
            if (pl_writer_close(s->w, &err) != XSF_OK) {
                cli_error(s->sa->out, "%s", err.msg);
                status = 1;
            } else if (!status && !a.quiet && k < started) {
                printf("%s: %llu whole frame%s into %s\n", s->label, (unsigned long long)frames,
                       frames == 1 ? "" : "s",
                       strcmp(s->sa->out, "-") ? s->sa->out : "standard output");
            }
        }
        if (k < started && ps.dropped[PL_DROP_DECODE] && !a.quiet)
            fprintf(stderr, "xsflow: %s: %llu frame%s refused by the decoder, the last: %s\n",
                    s->label, (unsigned long long)ps.dropped[PL_DROP_DECODE],
                    ps.dropped[PL_DROP_DECODE] == 1 ? "" : "s", ps.last_error);
        if (s->plog && fclose(s->plog) && !status) {
            cli_error(s->sa->packets, "write failed");
            status = 1;
        }
    }
    for (int k = 0; k < a.n; k++)
        pl_rtp_source_destroy(ss[k].src);
    pl_destroy(p);
    if (flog && fclose(flog) && !status) {
        cli_error(a.frame_log, "write failed");
        status = 1;
    }
    return status;
}
