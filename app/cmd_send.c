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

/* What standard input holds (--format). */
enum { INPUT_AUTO, INPUT_JXS, INPUT_Y4M, INPUT_YUV };

/* The option table fills the session's configuration, and these where an option's kind
 * of value is not the configuration's. */
typedef struct send_args {
    rtp_send_session_config cfg;
    xsf_rate fps;
    long packet_size, pt, ttl, loop, burst;
    uint64_t ssrc, seq;
    int quiet;
    const char *stats_json;
    /* live encoding */
    double bpp;
    int size[2], depth, frames, input, engine; /* engine: -1 default, 0 --cpu, 1 --gpu */
    const char *sampling;
    int loop_given, frames_given;
    imgio_format format; /* of a picture input; IMGIO_FORMAT_NONE: codestreams */
} send_args;

/* What IN is (a->format: a picture file to encode, or none: codestreams) and whether the
 * options fit it. 0, or 2 after a usage error. */
static int check_input(send_args *a)
{
    const char *in = a->cfg.in;
    static const imgio_format stdin_format[] = {IMGIO_FORMAT_NONE, IMGIO_FORMAT_NONE,
                                                IMGIO_FORMAT_Y4M, IMGIO_FORMAT_YUV};
    if (strcmp(in, "-"))
        a->format = imgio_format_from_path(in);
    else
        a->format =
            a->input == INPUT_AUTO && a->bpp > 0 ? IMGIO_FORMAT_Y4M : stdin_format[a->input];
    if (a->format == IMGIO_FORMAT_NONE) {
        if (a->bpp > 0 || a->frames_given) {
            cli_error(a->bpp > 0 ? "--bpp" : "--frames",
                      "%s holds codestreams, sent as they are: nothing to encode", in);
            return 2;
        }
        return 0;
    }
    if (!(a->bpp > 0)) {
        cli_error(in, "a picture input is encoded as it is sent: give its rate, --bpp B");
        return 2;
    }
    if (a->loop_given || a->cfg.interlaced) {
        cli_error(a->loop_given ? "--loop" : "--interlaced", "not with a picture input (%s)", in);
        return 2;
    }
    /* --sampling in the vocabulary of a .yuv's layout (422, not YCbCr-4:2:2) is the layout's;
     * the SDP's then comes from the codestream. */
    imgio_raw_layout probe;
    xsf_error err;
    xsf_error_clear(&err);
    if (a->format == IMGIO_FORMAT_YUV && a->cfg.sampling &&
        imgio_raw_layout_make(&probe, a->cfg.sampling, 16, 16, 8, &err) == XSF_OK) {
        a->sampling = a->cfg.sampling;
        a->cfg.sampling = NULL;
    }
    if (a->format == IMGIO_FORMAT_YUV && (!a->size[0] || !a->size[1])) {
        cli_error(in, "a .yuv input needs --size WxH (and --sampling, --depth)");
        return 2;
    }
    return 0;
}

static int parse_args(int argc, char **argv, send_args *a)
{
    memset(a, 0, sizeof *a);
    a->fps = (xsf_rate){25, 1};
    a->packet_size = 1440;
    a->pt = 112;
    a->ttl = 16;
    a->loop = 1;
    a->cfg.boxes = 1;
    a->cfg.impair.seed = 1;
    const xsf_codec *xs = xsf_codec_find("jpeg-xs"); /* RFC 9134 carries JPEG XS */
    a->depth = xs->encoder->yuv_depth;
    a->sampling = xs->encoder->yuv_sampling;
    a->engine = -1;
    const cli_option options[] = {
        CLI_OPT("to", 0, CLI_STRING, &a->cfg.to, "ADDR:PORT",
                "destination, IPv4 or [IPv6], unicast or multicast; two\n"
                "joined by a comma (A:PORT,B:PORT) send the stream on two\n"
                "legs (SMPTE ST 2022-7): the same packets on both, paced\n"
                "together"),
        CLI_OPT("pcap", 0, CLI_STRING, &a->cfg.pcap, "OUT.pcap",
                "write the packets to a capture file instead (to --to's\naddress, default "
                "239.0.0.1:5004); A.pcap,B.pcap: one a leg\n(default 239.0.0.2:5004 for the "
                "second)"),
        CLI_OPT("sdp", 0, CLI_STRING, &a->cfg.sdp, "OUT.sdp",
                "write the session description (RFC 9134 / ST 2110-22); two\n"
                "legs: two media grouped by a=group:DUP (RFC 7104)"),
        CLI_OPT("clock", 0, CLI_CHOICE, &a->cfg.free_clock, "C",
                "tai (default): RTP timestamps and pacing on the frame grid\n"
                "from the TAI epoch (ST 2110-10, CLOCK_TAI: PTP where phc2sys\n"
                "keeps the clock; without a TAI offset set in the kernel it\n"
                "reads as CLOCK_REALTIME), SDP a=ts-refclk; free: a random\n"
                "first timestamp, paced from now, no a=ts-refclk",
                .choices = "tai|free"),
        CLI_OPT("refclk", 0, CLI_STRING, &a->cfg.refclk, "CLOCK",
                "the SDP's a=ts-refclk (RFC 7273) with --clock tai (default\n"
                "ptp=IEEE1588-2008:traceable; a grandmaster and domain:\n"
                "ptp=IEEE1588-2008:EC-46-70-FF-FE-00-42-6C:127)"),
        CLI_OPT("mode", 0, CLI_CHOICE, &a->cfg.mode, "M",
                "codestream (default) or slice packetization", .choices = "codestream|slice"),
        CLI_OPT("fps", 0, CLI_RATE, &a->fps, "RATE",
                "frame rate: N, N/D, N:D or a decimal, e.g. 50, 60000/1001\n"
                "or 59.94 (default 25)"),
        CLI_OPT("pacing", 0, CLI_CHOICE, &a->cfg.pacing, "P",
                "narrow (default: one packet every TFRAME/NPACKETS, SDP\n"
                "TP=2110TPNL), wide (bursts within the wide CMAX,\n"
                "TP=2110TPW) or none (no TP)",
                .choices = "narrow|wide|none"),
        CLI_OPT("burst", 0, CLI_LONG, &a->burst, "N",
                "packets handed to the network at once, every N x TRS\n"
                "(default: the pacing's CMAX - 1, the largest burst within\n"
                "its ST 2110-21 sender type: 3 for narrow at UHD60, 15 for\n"
                "wide; 1: one packet every TRS)",
                .lo = 1, .hi = RTP_UDP_GSO_MAX),
        CLI_OPT("no-gso", 0, CLI_FLAG, &a->cfg.no_gso, NULL,
                "one system call message per packet: no UDP segmentation\n"
                "offload of the bursts (default: GSO where the kernel has it).\n"
                "Packet captures on this host, or on virtual links (lo, veth)\n"
                "that pass bursts unsegmented, show a GSO burst as one\n"
                "oversize datagram: send with --no-gso for those"),
        CLI_OPT("packet-size", 0, CLI_LONG, &a->packet_size, "N",
                "largest RTP packet in bytes (default 1440)", .lo = 32, .hi = 65507),
        CLI_OPT("pt", 0, CLI_LONG, &a->pt, "N", "RTP payload type, 96..127 (default 112)", .lo = 96,
                .hi = 127),
        CLI_OPT("ssrc", 0, CLI_U64, &a->ssrc, "N", "RTP SSRC (default: random)", .lo = 0,
                .hi = 0xffffffffu, .given = &a->cfg.ssrc_given),
        CLI_OPT("seq", 0, CLI_U64, &a->seq, "N", "first sequence number (default: random)", .lo = 0,
                .hi = 0xffff, .given = &a->cfg.seq_given),
        CLI_OPT("loop", 0, CLI_LONG, &a->loop, "N", "send the file N times (default 1)", .lo = 1,
                .hi = 1L << 30, .given = &a->loop_given),
        CLI_OPT("interlaced", 0, CLI_FLAG, &a->cfg.interlaced, NULL,
                "the codestreams are fields, two per frame, each with its\n"
                "own RTP timestamp (RFC 9134 erratum 6752)"),
        CLI_OPT("no-boxes", 0, CLI_SET, &a->cfg.boxes, NULL,
                "send bare codestreams, without the picture segment boxes:\n"
                "not RFC 9134 (which requires them), for testing receivers",
                .value = 0),
        CLI_OPT("iface", 0, CLI_STRING, &a->cfg.iface, "NAME",
                "interface for multicast (IF1,IF2: one a leg)"),
        CLI_OPT("ttl", 0, CLI_LONG, &a->ttl, "N", "multicast TTL / hop limit (default 16)", .lo = 1,
                .hi = 255),
        CLI_OPT("source", 0, CLI_STRING, &a->cfg.source, "ADDR",
                "the sender's address: sent from (with --to), for the SDP's\n"
                "source filter and the .pcap (default there: 192.0.2.1 or\n"
                "2001:db8::1); S1,S2: one a leg"),
        CLI_OPT("loss", 0, CLI_DOUBLE, &a->cfg.impair.loss, "P",
                "impairments (soak tests): lose each packet with probability", .lo = 0, .hi = 1),
        CLI_OPT("reorder", 0, CLI_DOUBLE, &a->cfg.impair.reorder, "P",
                "P, hold it back behind the next packet sent, send it twice;", .lo = 0, .hi = 1),
        CLI_OPT("duplicate", 0, CLI_DOUBLE, &a->cfg.impair.duplicate, "P",
                "the first and the last frame go out unimpaired. Counted,", .lo = 0, .hi = 1),
        CLI_OPT("seed", 0, CLI_U64, &a->cfg.impair.seed, "N",
                "printed and in --stats-json (seed: default 1)", .lo = 0, .hi = (double)INT64_MAX),
        CLI_OPT("stats-json", 0, CLI_STRING, &a->stats_json, "FILE",
                "what was sent and what the impairments did, as JSON (with\n"
                "first_timestamp, the RTP timestamp of the first frame)"),
        CLI_OPT("sampling", 0, CLI_STRING, &a->cfg.sampling, "S",
                "SDP sampling (default from the codestream, e.g. YCbCr-4:2:2);\n"
                "with a .yuv input 400, 420, 422 (default), 444 or 4444 give\n"
                "its layout instead"),
        CLI_OPT("colorimetry", 0, CLI_STRING, &a->cfg.colorimetry, "C",
                "SDP colorimetry (default BT709)"),
        CLI_OPT("tcs", 0, CLI_STRING, &a->cfg.tcs, "T",
                "SDP transfer characteristic system (default SDR)"),
        CLI_OPT("range", 0, CLI_STRING, &a->cfg.range, "R", "SDP range: NARROW (default) or FULL"),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_HEAD("live encoding (IN.y4m, IN.yuv, .ppm, .pgm):"),
        CLI_OPT("bpp", 0, CLI_DOUBLE, &a->bpp, "B",
                "bits per pixel (of component 0's size): codestreams of\n"
                "floor(B*W*H/8) bytes; needed for a picture input",
                .lo = 0, .hi = 1024, .flags = CLI_ABOVE_LO),
        CLI_OPT("cpu", 0, CLI_SET, &a->engine, NULL, "the C encoder", .value = 0),
        CLI_OPT("gpu", 0, CLI_SET, &a->engine, NULL,
                "the CUDA encoder (same bytes; the default where a GPU is usable)", .value = 1),
        CLI_OPT("frames", 0, CLI_INT, &a->frames, "N", "send the first N frames only", .lo = 1,
                .hi = 1 << 30, .given = &a->frames_given),
        CLI_OPT("format", 0, CLI_CHOICE, &a->input, "F",
                "what standard input (IN '-') holds: jxs, y4m or yuv (default:\n"
                "y4m with --bpp, else jxs)",
                .choices = "auto|jxs|y4m|yuv"),
        CLI_OPT("size", 0, CLI_SIZE, a->size, "WxH", "a .yuv input's picture size"),
        CLI_OPT("depth", 0, CLI_INT, &a->depth, "N",
                "a .yuv input's bits per sample, 1..16 (default 10)", .lo = 1, .hi = 16),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "send",
                             .synopsis = "IN.{jxs,y4m,yuv} (--to ADDR:PORT | --pcap OUT.pcap) "
                                         "[--bpp B] [options]",
                             .about = about,
                             .options = options,
                             .input = &a->cfg.in};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    rtp_send_session_config *c = &a->cfg;
    c->rate_num = a->fps.num;
    c->rate_den = a->fps.den;
    c->packet_bytes = (size_t)a->packet_size;
    c->payload_type = (unsigned)a->pt;
    c->ttl = (unsigned)a->ttl;
    c->burst = (unsigned)a->burst;
    c->ssrc = (uint32_t)a->ssrc;
    c->first_seq = (uint16_t)a->seq;
    a->cfg.impaired =
        a->cfg.impair.loss > 0 || a->cfg.impair.reorder > 0 || a->cfg.impair.duplicate > 0;
    if (!a->cfg.in) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    if (!a->cfg.to && !a->cfg.pcap) {
        cli_error(a->cfg.in, "give a destination: --to ADDR:PORT or --pcap OUT.pcap");
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
    memset(&ec, 0, sizeof ec);
    ec.in = a->cfg.in;
    ec.format = a->format;
    ec.codec = xsf_codec_find("jpeg-xs");
    ec.max_frames = a->frames_given ? a->frames : 0;
    xsf_encode_settings_init(&ec.settings);
    ec.settings.bpp = a->bpp;
    xsf_error err;
    xsf_error_clear(&err);
    if (a->format == IMGIO_FORMAT_YUV &&
        imgio_raw_layout_make(&ec.raw, a->sampling, a->size[0], a->size[1], a->depth, &err) !=
            XSF_OK) {
        cli_error("--sampling", "%s", err.msg);
        return 2;
    }
    if (pl_encode_pick_device(ec.codec, a->engine, &ec.device, &err) != XSF_OK) {
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
    const rtp_send_session_config *c = &a->cfg;
    const rtp_sender_stats *st = &r->stats;
    char where[200], second[96], what[160];
    rtp_addr_format(&r->dest, 1, where, sizeof where);
    if (r->legs > 1) {
        rtp_addr_format(&r->dest2, 1, second, sizeof second);
        snprintf(where + strlen(where), sizeof where - strlen(where), " and %s", second);
    }
    snprintf(what, sizeof what, "%zu codestream%s x %ld", r->codestreams,
             r->codestreams == 1 ? "" : "s", a->loop);
    if (feed)
        snprintf(what, sizeof what, "encoded live at %g bpp", a->bpp);
    printf("sent %llu %s%s (%s) as %llu packets, %llu bytes, %s mode, %s pacing, to %s\n",
           (unsigned long long)st->segments, c->interlaced ? "field" : "frame",
           st->segments == 1 ? "" : "s", what, (unsigned long long)st->packets,
           (unsigned long long)st->bytes, c->mode ? "slice" : "codestream",
           c->pacing == RTP_PACING_NARROW ? "narrow"
           : c->pacing == RTP_PACING_WIDE ? "wide"
                                          : "no",
           c->pcap ? c->pcap : where);
    if (feed) {
        pl_encode_stats es;
        pl_encode_stats_get(feed, &es);
        printf("encoded %llu frames of %dx%d with the %s encoder, %llu bytes; time per frame: "
               "mean %.2f ms, p99 %.2f ms, max %.2f ms\n",
               (unsigned long long)es.frames, es.format.width[0], es.format.height[0],
               es.device < 0 ? "C" : "GPU", (unsigned long long)es.bytes, es.encode.mean_us / 1e3,
               es.encode.p99_us / 1e3, es.encode.max_us / 1e3);
    }
    if (r->legs > 1 && (st->leg_errors[0] || st->leg_errors[1]))
        printf("send calls refused: %llu on leg 1, %llu on leg 2 (last: %s)\n",
               (unsigned long long)st->leg_errors[0], (unsigned long long)st->leg_errors[1],
               st->leg_error);
    if (r->socket) {
        printf("%llu send calls (%.1f packets each, %s), %llu of them late (more than one "
               "burst at once)\n",
               (unsigned long long)st->send_calls,
               st->send_calls ? (double)st->packets / (double)st->send_calls : 0.0,
               r->gso           ? "GSO"
               : r->gso_refused ? "GSO refused by the kernel"
                                : "no GSO",
               (unsigned long long)st->late_sends);
    }
}

/* What the impairments did (stderr). */
static void print_impairments(const send_args *a, const rtp_impair_counts *c)
{
    fprintf(stderr,
            "send: impairments (seed %llu): of %llu packets, lost %llu, reordered %llu, "
            "duplicated %llu; %llu of %llu frames lost a packet\n",
            (unsigned long long)a->cfg.impair.seed, (unsigned long long)c->packets,
            (unsigned long long)c->lost, (unsigned long long)c->reordered,
            (unsigned long long)c->duplicated, (unsigned long long)c->segments_with_loss,
            (unsigned long long)c->segments);
}

int cmd_send(int argc, char **argv)
{
    send_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;
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
    if (rtp_send_session_run(s, (uint64_t)a.loop, &f) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
        status = f.usage ? 2 : 1;
    }
    rtp_send_report rp;
    rtp_send_session_report(s, &rp);
    if (rp.impair && !a.quiet)
        print_impairments(&a, rp.impair);
    if (a.stats_json &&
        rtp_send_session_write_stats(s, a.stats_json, !cmd_interrupted(), &err) != XSF_OK) {
        cli_error(a.stats_json, "%s", err.msg);
        status = status ? status : 1;
    }
    if (!status && !a.quiet)
        print_summary(&a, &rp, feed);
    rtp_send_session_close(s);
    pl_encode_close(feed);
    free(data);
    return status ? status : (cmd_interrupted() ? 130 : 0);
}
