/* xsflow send: a .jxs file, or pictures encoded as they come (live), as an
 * SMPTE ST 2110-22 stream (RTP, RFC 9134), paced after ST 2110-21, to a UDP
 * address or into a .pcap file. The session is rtp/include/rtp_send_session.h's,
 * live encoding pipeline/include/pl_encode.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "image_io.h"
#include "pl_encode.h"
#include "rtp.h"
#include "xsf_cli.h"
#include "xsf_codecs.h"

static const char about[] =
    "Sends the JPEG XS codestreams of IN.jxs, one per frame, as an ST 2110-22 stream:\n"
    "RTP with the RFC 9134 payload format, each codestream preceded by the picture\n"
    "segment boxes (video support, colour specification), paced after ST 2110-21.\n"
    "IN.y4m or IN.yuv (or .ppm, .pgm) with --bpp B: each frame is encoded (JPEG XS, the\n"
    "GPU encoder where a GPU is usable, else the C encoder) and sent at once, the\n"
    "encoding of the next frame overlapping the sending of this one (at most one frame\n"
    "of added latency). IN '-' is standard input (--format says what it holds).\n"
    "With --pcap nothing is sent: the packets go to a capture file, stamped with the\n"
    "times the pacing gives them.\n";

/* The session's knobs fill its configuration (rtp_send_session_knobs), live encoding's
 * the encoding of a picture input (pl_encode_knobs). */
typedef struct send_args {
    rtp_send_session_config cfg;
    int quiet;
    pl_encode_request enc;
    imgio_format format; /* of a picture input; IMGIO_FORMAT_NONE: codestreams */
} send_args;

/* What IN is (a->format: a picture file to encode, or none: codestreams) and whether the
 * options fit it. 0, or 2 after a usage error. */
static int check_input(send_args *a)
{
    const char *in = a->cfg.in;
    a->format = pl_encode_request_format(&a->enc, in);
    if (a->format == IMGIO_FORMAT_NONE) {
        if (a->enc.bpp > 0 || a->enc.frames_given) {
            cli_error(a->enc.bpp > 0 ? "--bpp" : "--frames",
                      "%s holds codestreams, sent as they are: nothing to encode", in);
            return 2;
        }
        return 0;
    }
    if (!(a->enc.bpp > 0)) {
        cli_error(in, "a picture input is encoded as it is sent: give its rate, --bpp B");
        return 2;
    }
    if (a->cfg.loops_given || a->cfg.interlaced) {
        cli_error(a->cfg.loops_given ? "--loop" : "--interlaced", "not with a picture input (%s)",
                  in);
        return 2;
    }
    /* --sampling in the vocabulary of a .yuv's layout (422, not YCbCr-4:2:2) is the layout's;
     * the SDP's then comes from the codestream. */
    imgio_raw_layout probe;
    xsf_error err;
    xsf_error_clear(&err);
    if (a->format == IMGIO_FORMAT_YUV && a->cfg.sampling &&
        imgio_raw_layout_make(&probe, a->cfg.sampling, 16, 16, 8, &err) == XSF_OK) {
        a->enc.sampling = a->cfg.sampling;
        a->cfg.sampling = NULL;
    }
    if (a->format == IMGIO_FORMAT_YUV && (!a->enc.size[0] || !a->enc.size[1])) {
        cli_error(in, "a .yuv input needs --size WxH (and --sampling, --depth)");
        return 2;
    }
    return 0;
}

static int parse_args(int argc, char **argv, send_args *a)
{
    memset(a, 0, sizeof *a);
    rtp_send_session_config_init(&a->cfg);
    pl_encode_request_init(&a->enc, xsf_codec_find(RTP_JXS_CODEC));
    const cli_option options[] = {
        CLI_KNOB_TABLE(rtp_send_session_knobs, &a->cfg),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_KNOB_TABLE(pl_encode_knobs, &a->enc), CLI_TABLE_END};
    const cli_command cmd = {.name = "send",
                             .synopsis = "IN.{jxs,y4m,yuv} (--to ADDR:PORT | --pcap OUT.pcap) "
                                         "[--bpp B] [options]",
                             .about = about,
                             .options = options,
                             .input = &a->cfg.in};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    rtp_send_failure f;
    if (rtp_send_session_config_finish(&a->cfg, &f) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
        return 2;
    }
    if (!a->cfg.in) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    return check_input(a);
}

static int stop_on_signal(void *ctx)
{
    (void)ctx;
    return cmd_interrupted();
}

/* The encoder of a picture input, from the options, with frame 0 coded. 0, or the exit
 * status after an error. */
static int open_feed(const send_args *a, pl_encode_feed **feed)
{
    pl_encode_config ec;
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_encode_request_config(&a->enc, a->cfg.in, a->format, &ec, &err) != XSF_OK) {
        cli_error("--sampling", "%s", err.msg);
        return 2;
    }
    if (pl_encode_pick_device(ec.codec, a->enc.engine, &ec.device, &err) != XSF_OK) {
        cli_error("--gpu", "%s", err.msg);
        return 1;
    }
    int refused = 0;
    if (pl_encode_open(feed, &ec, &refused, &err) != XSF_OK) {
        cli_error(a->cfg.in, "%s", err.msg);
        return refused ? 2 : 1;
    }
    return 0;
}

/* Once a second while sending to a socket: what went out so far (and the encoder's time). */
typedef struct report {
    int on;
    uint64_t last_ns;
    pl_encode_feed *feed;
} report;

static void on_segment(void *ctx, const rtp_sender_stats *st)
{
    report *r = ctx;
    if (!r->on || st->elapsed_ns - r->last_ns < 1000000000u)
        return;
    const double secs = (double)st->elapsed_ns / 1e9;
    char enc[96] = "";
    if (r->feed) {
        pl_encode_stats es;
        pl_encode_stats_get(r->feed, &es);
        snprintf(enc, sizeof enc, ", encode p99 %.2f ms, max %.2f ms", es.encode.p99_us / 1e3,
                 es.encode.max_us / 1e3);
    }
    fprintf(stderr, "send: %llu frames, %llu packets, %.1f Mbit/s%s\n",
            (unsigned long long)st->segments, (unsigned long long)st->packets,
            secs > 0 ? (double)st->bytes * 8 / secs / 1e6 : 0.0, enc);
    r->last_ns = st->elapsed_ns;
}

static void print_summary(const send_args *a, const rtp_send_report *r, pl_encode_feed *feed)
{
    char live[64], enc[300] = "";
    snprintf(live, sizeof live, "encoded live at %g bpp", a->enc.bpp);
    if (feed) {
        pl_encode_stats es;
        pl_encode_stats_get(feed, &es);
        snprintf(enc, sizeof enc,
                 "encoded %llu frames of %dx%d with the %s encoder, %llu bytes; time per frame: "
                 "mean %.2f ms, p99 %.2f ms, max %.2f ms\n",
                 (unsigned long long)es.frames, es.format.width[0], es.format.height[0],
                 es.device < 0 ? "C" : "GPU", (unsigned long long)es.bytes, es.encode.mean_us / 1e3,
                 es.encode.p99_us / 1e3, es.encode.max_us / 1e3);
    }
    rtp_send_report_format(stdout, &a->cfg, r, feed ? live : NULL, enc);
}

int cmd_send(int argc, char **argv)
{
    send_args a;
    int r = cli_exit_status(parse_args(argc, argv, &a));
    if (r >= 0)
        return r;
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *data = NULL;
    size_t len = 0;
    pl_encode_feed *feed = NULL;
    if (a.format != IMGIO_FORMAT_NONE) {
        if ((r = open_feed(&a, &feed)) != 0)
            return r;
    } else if (imgio_read_file(a.cfg.in, &data, &len, &err) != XSF_OK) {
        cli_error(a.cfg.in, "%s", err.msg);
        return 1;
    }
    report rep = {.on = !a.quiet && a.cfg.to && !a.cfg.pcap, .last_ns = 0, .feed = feed};
    a.cfg.stop = stop_on_signal;
    a.cfg.on_segment = on_segment;
    a.cfg.ctx = &rep;
    rtp_send_session *s;
    rtp_send_failure f;
    rtp_frame_source src;
    if (feed)
        pl_encode_source(feed, &src);
    if ((feed ? rtp_send_session_open_source(&s, &a.cfg, &src, &f)
              : rtp_send_session_open(&s, &a.cfg, data, len, &f)) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
        pl_encode_close(feed);
        free(data);
        return f.usage ? 2 : 1;
    }

    cmd_catch_interrupts();

    int status = 0;
    if (rtp_send_session_run(s, a.cfg.loops, &f) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
        status = f.usage ? 2 : 1;
    }
    rtp_send_report rp;
    rtp_send_session_report(s, &rp);
    if (rp.impair && !a.quiet)
        rtp_send_impairments_format(stderr, &a.cfg, &rp);
    if (a.cfg.stats_json &&
        rtp_send_session_write_stats(s, a.cfg.stats_json, !cmd_interrupted(), &err) != XSF_OK) {
        cli_error(a.cfg.stats_json, "%s", err.msg);
        status = status ? status : 1;
    }
    if (!status && !a.quiet)
        print_summary(&a, &rp, feed);
    rtp_send_session_close(s);
    pl_encode_close(feed);
    free(data);
    return status ? status : (cmd_interrupted() ? 130 : 0);
}
