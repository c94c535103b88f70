/* xsflow send: a .jxs file as an SMPTE ST 2110-22 stream (RTP, RFC 9134),
 * paced after ST 2110-21, to a UDP address or into a .pcap file. */
#define _POSIX_C_SOURCE 200809L /* clock_nanosleep, sigaction */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "rtp.h"
#include "xs.h"

static const char about[] =
    "Sends the JPEG XS codestreams of IN.jxs, one per frame, as an ST 2110-22 stream:\n"
    "RTP with the RFC 9134 payload format, each codestream preceded by the picture\n"
    "segment boxes (video support, colour specification), paced after ST 2110-21.\n"
    "With --pcap nothing is sent: the packets go to a capture file, stamped with the\n"
    "times the pacing gives them.\n";

typedef struct send_args {
    const char *in, *to, *pcap, *sdp, *source, *iface;
    const char *sampling, *colorimetry, *tcs, *range;
    rtp_jxs_mode mode;
    rtp_pacing pacing;
    unsigned fps_num, fps_den;
    long packet_size, pt, ttl, loop, burst;
    uint64_t ssrc, seq;
    int ssrc_given, seq_given, interlaced, boxes, quiet, no_gso;
    rtp_impair_config impair;
    int impaired;
    const char *stats_json;
} send_args;

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int parse_args(int argc, char **argv, send_args *a)
{
    memset(a, 0, sizeof *a);
    xsf_rate fps = {25, 1};
    a->packet_size = 1440;
    a->pt = 112;
    a->ttl = 16;
    a->loop = 1;
    a->boxes = 1;
    a->impair.seed = 1;
    const cli_option options[] = {
        CLI_OPT("to", 0, CLI_STRING, &a->to, "ADDR:PORT", "destination, IPv4 or [IPv6], unicast or multicast"),
        CLI_OPT("pcap", 0, CLI_STRING, &a->pcap, "OUT.pcap",
                "write the packets to a capture file instead (to --to's\naddress, default 239.0.0.1:5004)"),
        CLI_OPT("sdp", 0, CLI_STRING, &a->sdp, "OUT.sdp", "write the session description (RFC 9134 / ST 2110-22)"),
        CLI_OPT("mode", 0, CLI_CHOICE, &a->mode, "M", "codestream (default) or slice packetization",
                .choices = "codestream|slice"),
        CLI_OPT("fps", 0, CLI_RATE, &fps, "RATE", "frame rate: N, N/D, N:D or a decimal, e.g. 50, 60000/1001\n"
                "or 59.94 (default 25)"),
        CLI_OPT("pacing", 0, CLI_CHOICE, &a->pacing, "P",
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
        CLI_OPT("no-gso", 0, CLI_FLAG, &a->no_gso, NULL,
                "one system call message per packet: no UDP segmentation\n"
                "offload of the bursts (default: GSO where the kernel has it).\n"
                "Packet captures on this host, or on virtual links (lo, veth)\n"
                "that pass bursts unsegmented, show a GSO burst as one\n"
                "oversize datagram: send with --no-gso for those"),
        CLI_OPT("packet-size", 0, CLI_LONG, &a->packet_size, "N", "largest RTP packet in bytes (default 1440)",
                .lo = 32, .hi = 65507),
        CLI_OPT("pt", 0, CLI_LONG, &a->pt, "N", "RTP payload type, 96..127 (default 112)", .lo = 96, .hi = 127),
        CLI_OPT("ssrc", 0, CLI_U64, &a->ssrc, "N", "RTP SSRC (default: random)", .lo = 0, .hi = 0xffffffffu,
                .given = &a->ssrc_given),
        CLI_OPT("seq", 0, CLI_U64, &a->seq, "N", "first sequence number (default: random)", .lo = 0, .hi = 0xffff,
                .given = &a->seq_given),
        CLI_OPT("loop", 0, CLI_LONG, &a->loop, "N", "send the file N times (default 1)", .lo = 1, .hi = 1L << 30),
        CLI_OPT("interlaced", 0, CLI_FLAG, &a->interlaced, NULL,
                "the codestreams are fields, two per frame, each with its\n"
                "own RTP timestamp (RFC 9134 erratum 6752)"),
        CLI_OPT("no-boxes", 0, CLI_SET, &a->boxes, NULL,
                "send bare codestreams, without the picture segment boxes:\n"
                "not RFC 9134 (which requires them), for testing receivers",
                .value = 0),
        CLI_OPT("iface", 0, CLI_STRING, &a->iface, "NAME", "interface for multicast"),
        CLI_OPT("ttl", 0, CLI_LONG, &a->ttl, "N", "multicast TTL / hop limit (default 16)", .lo = 1, .hi = 255),
        CLI_OPT("source", 0, CLI_STRING, &a->source, "ADDR",
                "the sender's address: sent from (with --to), for the SDP's\n"
                "source filter and the .pcap (default there: 192.0.2.1 or\n"
                "2001:db8::1)"),
        CLI_OPT("loss", 0, CLI_DOUBLE, &a->impair.loss, "P",
                "impairments (soak tests): lose each packet with probability", .lo = 0, .hi = 1),
        CLI_OPT("reorder", 0, CLI_DOUBLE, &a->impair.reorder, "P",
                "P, hold it back behind the next packet sent, send it twice;", .lo = 0, .hi = 1),
        CLI_OPT("duplicate", 0, CLI_DOUBLE, &a->impair.duplicate, "P",
                "the first and the last frame go out unimpaired. Counted,", .lo = 0, .hi = 1),
        CLI_OPT("seed", 0, CLI_U64, &a->impair.seed, "N", "printed and in --stats-json (seed: default 1)", .lo = 0,
                .hi = (double)INT64_MAX),
        CLI_OPT("stats-json", 0, CLI_STRING, &a->stats_json, "FILE",
                "what was sent and what the impairments did, as JSON (with\n"
                "first_timestamp, the RTP timestamp of the first frame)"),
        CLI_OPT("sampling", 0, CLI_STRING, &a->sampling, "S", "SDP sampling (default from the codestream, e.g. YCbCr-4:2:2)"),
        CLI_OPT("colorimetry", 0, CLI_STRING, &a->colorimetry, "C", "SDP colorimetry (default BT709)"),
        CLI_OPT("tcs", 0, CLI_STRING, &a->tcs, "T", "SDP transfer characteristic system (default SDR)"),
        CLI_OPT("range", 0, CLI_STRING, &a->range, "R", "SDP range: NARROW (default) or FULL"),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "send", .synopsis = "IN.jxs (--to ADDR:PORT | --pcap OUT.pcap) [options]",
                             .about = about, .options = options, .input = &a->in};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    a->fps_num = fps.num;
    a->fps_den = fps.den;
    a->impaired = a->impair.loss > 0 || a->impair.reorder > 0 || a->impair.duplicate > 0;
    if (!a->in) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    if (!a->to && !a->pcap) {
        cli_error(a->in, "give a destination: --to ADDR:PORT or --pcap OUT.pcap");
        return 2;
    }
    return 0;
}

static int stop_on_signal(void *ctx)
{
    (void)ctx;
    return interrupted != 0;
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

/* --stats-json: what was sent and what the impairments did (rtp_impairer's rules say
 * what a receiver must count from it). */
static int write_stats(const char *path, const send_args *a, uint64_t segments, uint64_t datagrams,
                       uint64_t bytes, const rtp_impair_counts *c, int interrupted_early,
                       uint32_t first_timestamp)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error(path, "cannot create the file");
        return 1;
    }
    rtp_impair_counts none;
    memset(&none, 0, sizeof none);
    if (!c)
        c = &none;
    fprintf(f,
            "{\"segments\": %llu, \"frames\": %llu, \"datagrams\": %llu, \"bytes\": %llu, "
            "\"first_timestamp\": %lu, "
            "\"complete\": %s, \"impairment\": {\"loss\": %g, \"reorder\": %g, "
            "\"duplicate\": %g, \"seed\": %llu, \"packets\": %llu, \"lost\": %llu, "
            "\"reordered\": %llu, \"duplicated\": %llu, \"segments_with_loss\": %llu}}\n",
            (unsigned long long)segments,
            (unsigned long long)(a->interlaced ? segments / 2 : segments),
            (unsigned long long)datagrams, (unsigned long long)bytes,
            (unsigned long)first_timestamp, interrupted_early ? "false" : "true", a->impair.loss, a->impair.reorder,
            a->impair.duplicate, (unsigned long long)a->impair.seed, (unsigned long long)c->packets,
            (unsigned long long)c->lost, (unsigned long long)c->reordered,
            (unsigned long long)c->duplicated, (unsigned long long)c->segments_with_loss);
    if (fclose(f)) {
        cli_error(path, "write failed");
        return 1;
    }
    return 0;
}

/* The sender's configuration from the arguments (the stream is the clip's). */
static void sender_config(const send_args *a, const rtp_clip *clip, rtp_sender_config *sc)
{
    memset(sc, 0, sizeof *sc);
    rtp_packetizer_config *pc = &sc->packetizer;
    pc->mode = a->mode;
    pc->packet_bytes = (size_t)a->packet_size;
    pc->payload_type = (uint8_t)a->pt;
    pc->ssrc = a->ssrc_given ? (uint32_t)a->ssrc : rtp_random32();
    pc->first_seq = a->seq_given ? (uint16_t)a->seq : (uint16_t)rtp_random32();
    pc->boxes = a->boxes;
    const rtp_stream_desc d = {.rate_num = a->fps_num,
                               .rate_den = a->fps_den,
                               .interlaced = a->interlaced,
                               .max_codestream_bytes = clip->max_bytes,
                               .sampling = a->sampling,
                               .colorimetry = a->colorimetry ? a->colorimetry : "BT709",
                               .tcs = a->tcs ? a->tcs : "SDR",
                               .range = a->range ? a->range : "NARROW"};
    rtp_jxs_boxes_for_stream(&pc->box_template, &clip->first, &d);
    sc->pacing = a->pacing;
    sc->burst = (unsigned)a->burst;
    sc->rate_num = a->fps_num;
    sc->rate_den = a->fps_den;
    sc->interlaced = a->interlaced;
    sc->first_timestamp = rtp_random32();
    sc->impaired = a->impaired;
    sc->impair = a->impair;
    sc->stop = stop_on_signal;
}

static int write_sdp(const send_args *a, const rtp_clip *clip, const rtp_sender_config *sc,
                     const rtp_addr *dest, const rtp_addr *src)
{
    const rtp_stream_desc d = {.rate_num = a->fps_num,
                               .rate_den = a->fps_den,
                               .interlaced = a->interlaced,
                               .max_codestream_bytes = clip->max_bytes,
                               .sampling = a->sampling,
                               .colorimetry = a->colorimetry,
                               .tcs = a->tcs,
                               .range = a->range};
    const rtp_sdp_route route = {.dest = *dest,
                                 .origin = *src,
                                 .source_filter = a->source != NULL,
                                 .ttl = (unsigned)a->ttl};
    rtp_sdp s;
    rtp_sdp_for_stream(&s, &clip->first, &d, &sc->packetizer, a->pacing, &route);
    char text[4096];
    rtp_sdp_write(&s, text, sizeof text);
    FILE *f = fopen(a->sdp, "w");
    if (!f || fputs(text, f) == EOF || fclose(f)) {
        cli_error(a->sdp, "cannot write the SDP file");
        return 1;
    }
    return 0;
}

static void print_summary(const send_args *a, const rtp_clip *clip, const rtp_addr *dest,
                          const rtp_sender_stats *st, rtp_udp *sock)
{
    char where[96];
    rtp_addr_format(dest, 1, where, sizeof where);
    printf("sent %llu %s%s (%zu codestream%s x %ld) as %llu packets, %llu bytes, %s mode, %s "
           "pacing, to %s\n",
           (unsigned long long)st->segments, a->interlaced ? "field" : "frame",
           st->segments == 1 ? "" : "s", clip->count, clip->count == 1 ? "" : "s", a->loop,
           (unsigned long long)st->packets, (unsigned long long)st->bytes,
           a->mode ? "slice" : "codestream",
           a->pacing == RTP_PACING_NARROW ? "narrow"
           : a->pacing == RTP_PACING_WIDE ? "wide"
                                          : "no",
           a->pcap ? a->pcap : where);
    if (sock) {
        int gso_refused = 0;
        const int gso_on = rtp_udp_gso(sock, &gso_refused);
        printf("%llu send calls (%.1f packets each, %s), %llu of them late (more than one "
               "burst at once)\n",
               (unsigned long long)st->send_calls,
               st->send_calls ? (double)st->packets / (double)st->send_calls : 0.0,
               gso_on        ? "GSO"
               : gso_refused ? "GSO refused by the kernel"
                             : "no GSO",
               (unsigned long long)st->late_sends);
    }
}

/* The socket to send to (--to), or the capture file (--pcap); 0 or 1 after a message. */
static int open_output(const send_args *a, const rtp_addr *dest, const rtp_addr *src,
                       rtp_udp **sock, rtp_pcap_writer **pw)
{
    xsf_error err;
    xsf_error_clear(&err);
    if (a->to && !a->pcap) {
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        uc.ttl = (unsigned)a->ttl;
        uc.gso_segments = a->no_gso ? 0 : RTP_UDP_GSO_MAX; /* bursts are bounded by --burst */
        if (a->source) { /* send from that address */
            uc.has_source = 1;
            uc.source = *src;
        }
        if (a->iface)
            snprintf(uc.iface, sizeof uc.iface, "%s", a->iface);
        if (rtp_udp_open_sender(sock, dest, &uc, &err) != XSF_OK) {
            cli_error(a->to, "%s", err.msg);
            return 1;
        }
    } else if (rtp_pcap_writer_open(pw, a->pcap, &err) != XSF_OK) {
        cli_error(a->pcap, "%s", err.msg);
        return 1;
    }
    return 0;
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
    if (imgio_read_file(a.in, &data, &len, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        return 1;
    }
    rtp_clip clip;
    if (rtp_clip_open(&clip, data, len, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        free(data);
        return 1;
    }
    rtp_addr dest, src;
    memset(&dest, 0, sizeof dest);
    memset(&src, 0, sizeof src);
    int status = 0;
    if (a.to && rtp_addr_parse(a.to, 1, &dest, &err) != XSF_OK) {
        cli_error("--to", "%s", err.msg);
        status = 2;
    } else if (!a.to) {
        rtp_addr_parse("239.0.0.1:5004", 1, &dest, &err); /* the capture's destination */
    }
    if (!status && a.source && rtp_addr_parse(a.source, 0, &src, &err) != XSF_OK) {
        cli_error("--source", "%s", err.msg);
        status = 2;
    } else if (!status && !a.source) {
        rtp_addr_parse(dest.family == AF_INET6 ? "2001:db8::1" : "192.0.2.1", 0, &src, &err);
    }
    src.port = 50000;
    rtp_sender_config sc;
    sender_config(&a, &clip, &sc);
    if (!status && a.sdp)
        status = write_sdp(&a, &clip, &sc, &dest, &src);
    if (status) {
        rtp_clip_free(&clip);
        free(data);
        return status;
    }

    rtp_udp *sock = NULL;
    rtp_pcap_writer *pw = NULL;
    status = open_output(&a, &dest, &src, &sock, &pw);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    report rep = {.on = !a.quiet && sock != NULL, .last_ns = 0};
    sc.sock = sock;
    sc.pcap = pw;
    sc.pcap_src = src;
    sc.pcap_dst = dest;
    sc.on_segment = on_segment;
    sc.ctx = &rep;
    rtp_sender *snd = NULL;
    if (!status && rtp_sender_create(&snd, &sc, &err) != XSF_OK) {
        cli_error(a.impaired ? "--loss" : a.in, "%s", err.msg);
        status = 2;
    }
    if (!status && rtp_sender_send_clip(snd, &clip, (uint64_t)a.loop, &err) != XSF_OK) {
        cli_error(!rtp_sender_get_stats(snd)->output_failed ? a.in : a.pcap ? a.pcap : a.to,
                  "%s", err.msg);
        status = 1;
    }
    if (pw && rtp_pcap_writer_close(pw, &err) != XSF_OK && !status) {
        cli_error(a.pcap, "%s", err.msg);
        status = 1;
    }
    rtp_sender_stats st;
    memset(&st, 0, sizeof st);
    if (snd)
        st = *rtp_sender_get_stats(snd);
    const rtp_impair_counts *c = snd ? rtp_sender_impair_counts(snd) : NULL;
    if (c && !a.quiet) {
        fprintf(stderr,
                "send: impairments (seed %llu): of %llu packets, lost %llu, reordered %llu, "
                "duplicated %llu; %llu of %llu frames lost a packet\n",
                (unsigned long long)a.impair.seed, (unsigned long long)c->packets,
                (unsigned long long)c->lost, (unsigned long long)c->reordered,
                (unsigned long long)c->duplicated, (unsigned long long)c->segments_with_loss,
                (unsigned long long)c->segments);
    }
    if (a.stats_json && write_stats(a.stats_json, &a, st.segments, st.packets, st.bytes, c,
                                    interrupted != 0, sc.first_timestamp))
        status = status ? status : 1;
    if (!status && !a.quiet)
        print_summary(&a, &clip, &dest, &st, sock);
    rtp_sender_destroy(snd);
    rtp_udp_close(sock);
    rtp_clip_free(&clip);
    free(data);
    return status ? status : (interrupted ? 130 : 0);
}
