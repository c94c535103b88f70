/* xsflow send: a .jxs file as an SMPTE ST 2110-22 stream (RTP, RFC 9134),
 * paced after ST 2110-21, to a UDP address or into a .pcap file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "image_io.h"
#include "rtp.h"
#include "xsf_cli.h"

static const char about[] =
    "Sends the JPEG XS codestreams of IN.jxs, one per frame, as an ST 2110-22 stream:\n"
    "RTP with the RFC 9134 payload format, each codestream preceded by the picture\n"
    "segment boxes (video support, colour specification), paced after ST 2110-21.\n"
    "With --pcap nothing is sent: the packets go to a capture file, stamped with the\n"
    "times the pacing gives them.\n";

/* The option table fills the session's configuration, and these where an option's kind
 * of value is not the configuration's. */
typedef struct send_args {
    rtp_send_session_config cfg;
    xsf_rate fps;
    long packet_size, pt, ttl, loop, burst;
    uint64_t ssrc, seq;
    int quiet;
    const char *stats_json;
} send_args;

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
                .hi = 1L << 30),
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
                "SDP sampling (default from the codestream, e.g. YCbCr-4:2:2)"),
        CLI_OPT("colorimetry", 0, CLI_STRING, &a->cfg.colorimetry, "C",
                "SDP colorimetry (default BT709)"),
        CLI_OPT("tcs", 0, CLI_STRING, &a->cfg.tcs, "T",
                "SDP transfer characteristic system (default SDR)"),
        CLI_OPT("range", 0, CLI_STRING, &a->cfg.range, "R", "SDP range: NARROW (default) or FULL"),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "send",
                             .synopsis = "IN.jxs (--to ADDR:PORT | --pcap OUT.pcap) [options]",
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
    return 0;
}

static int stop_on_signal(void *ctx)
{
    (void)ctx;
    return cmd_interrupted();
}

/* Once a second while sending to a socket: what went out so far. */
typedef struct report {
    int on;
    uint64_t last_ns;
} report;

static void on_segment(void *ctx, const rtp_sender_stats *st)
{
    report *r = ctx;
    if (!r->on || st->elapsed_ns - r->last_ns < 1000000000u)
        return;
    const double secs = (double)st->elapsed_ns / 1e9;
    fprintf(stderr, "send: %llu frames, %llu packets, %.1f Mbit/s\n",
            (unsigned long long)st->segments, (unsigned long long)st->packets,
            secs > 0 ? (double)st->bytes * 8 / secs / 1e6 : 0.0);
    r->last_ns = st->elapsed_ns;
}

static void print_summary(const send_args *a, const rtp_send_report *r)
{
    const rtp_send_session_config *c = &a->cfg;
    const rtp_sender_stats *st = &r->stats;
    char where[200], second[96];
    rtp_addr_format(&r->dest, 1, where, sizeof where);
    if (r->legs > 1) {
        rtp_addr_format(&r->dest2, 1, second, sizeof second);
        snprintf(where + strlen(where), sizeof where - strlen(where), " and %s", second);
    }
    printf("sent %llu %s%s (%zu codestream%s x %ld) as %llu packets, %llu bytes, %s mode, %s "
           "pacing, to %s\n",
           (unsigned long long)st->segments, c->interlaced ? "field" : "frame",
           st->segments == 1 ? "" : "s", r->codestreams, r->codestreams == 1 ? "" : "s", a->loop,
           (unsigned long long)st->packets, (unsigned long long)st->bytes,
           c->mode ? "slice" : "codestream",
           c->pacing == RTP_PACING_NARROW ? "narrow"
           : c->pacing == RTP_PACING_WIDE ? "wide"
                                          : "no",
           c->pcap ? c->pcap : where);
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
    uint8_t *data;
    size_t len;
    if (imgio_read_file(a.cfg.in, &data, &len, &err) != XSF_OK) {
        cli_error(a.cfg.in, "%s", err.msg);
        return 1;
    }
    report rep = {.on = !a.quiet && a.cfg.to && !a.cfg.pcap, .last_ns = 0};
    a.cfg.stop = stop_on_signal;
    a.cfg.on_segment = on_segment;
    a.cfg.ctx = &rep;
    rtp_send_session *s;
    rtp_send_failure f;
    if (rtp_send_session_open(&s, &a.cfg, data, len, &f) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
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
        print_summary(&a, &rp);
    rtp_send_session_close(s);
    free(data);
    return status ? status : (cmd_interrupted() ? 130 : 0);
}
