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

/* A stream's request (service.h) and whether --format named its output's kind. */
typedef struct stream_args {
    svc_stream_request r;
    int kind_given;
} stream_args;

typedef struct recv_args {
    stream_args s[MAX_STREAMS];
    int n;
    svc_recv_options o; /* the decoder, limits, display and logs as the options give them */
    int quiet;
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
        s->r.payload_type = -1; /* the SDP's, or any */
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
    CLI_KNOB_ITEM_TABLE(svc_stream_request_knobs, offsetof(stream_args, r)),
    CLI_HEAD("options:"),
    CLI_KNOB_TABLE(svc_recv_knobs, &args.o),
    CLI_OPT("quiet", 'q', CLI_FLAG, &args.quiet, NULL,
            "print only the final statistics (and errors)"),
    CLI_TABLE_END};

static int parse_args(int argc, char **argv, recv_args *a)
{
    memset(a, 0, sizeof *a);
    svc_recv_options_init(&a->o); /* pinned -1, delay 40 ms, vsync; timeout 5 s, reorder 512 */
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
    if (a->o.cfg.slices > 0 && a->o.cfg.pl.engine == PL_ENGINE_CPU) {
        cli_error("--slices", "sub-frame decoding runs on the GPU engine only; --cpu decodes whole "
                              "frames (drop --slices or --cpu)");
        return 2;
    }
    for (int k = 0; k < a->n; k++) {
        stream_args *s = &a->s[k];
        char what[32];
        snprintf(what, sizeof what, "stream %d", k + 1);
        svc_failure f;
        if (svc_stream_request_check(&s->r, a->o.display, s->kind_given ? (int)s->r.output : -1,
                                     what, &f) != XSF_OK) {
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
    return svc_recv_setup(&a->o.cfg, req, a->n, &a->o.lim, &f) == XSF_OK ? 0 : failed(&f);
}

static void warn(const svc_failure *w)
{
    cli_error(w->subject, "warning: %s", w->err.msg);
}

/* The streams stopped and finished (svc_recv_finish): what became of them. */
static int finish(const recv_args *a, svc_recv *s, int status)
{
    static svc_recv_end e;
    svc_recv_finish(s, a->o.stats_json, &e);
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
    svc_recv_end_format(stderr, &e, &a->o.cfg);
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
    if (svc_recv_create(&s, &args.o.cfg, &f) != XSF_OK)
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
                                      args.o.cfg.stream[k].leg_name);
        }
        if (args.o.stats_json && svc_recv_started(s) == args.n &&
            svc_recv_write_json(s, args.o.stats_json, &f) != XSF_OK)
            status = failed(&f);
    }
    return finish(&args, s, status);
}
