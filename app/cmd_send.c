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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xsflow send IN.jxs (--to ADDR:PORT | --pcap OUT.pcap) [options]\n"
            "\n"
            "Sends the JPEG XS codestreams of IN.jxs, one per frame, as an ST 2110-22 stream:\n"
            "RTP with the RFC 9134 payload format, each codestream preceded by the picture\n"
            "segment boxes (video support, colour specification), paced after ST 2110-21.\n"
            "With --pcap nothing is sent: the packets go to a capture file, stamped with the\n"
            "times the pacing gives them.\n"
            "\n"
            "options:\n"
            "  --to ADDR:PORT        destination, IPv4 or [IPv6], unicast or multicast\n"
            "  --pcap OUT.pcap       write the packets to a capture file instead (to --to's\n"
            "                        address, default 239.0.0.1:5004)\n"
            "  --sdp OUT.sdp         write the session description (RFC 9134 / ST 2110-22)\n"
            "  --mode M              codestream (default) or slice packetization\n"
            "  --fps N[/D]           frame rate, e.g. 50 or 60000/1001 (default 25)\n"
            "  --pacing P            narrow (default: one packet every TFRAME/NPACKETS, SDP\n"
            "                        TP=2110TPNL), wide (bursts within the wide CMAX,\n"
            "                        TP=2110TPW) or none (no TP)\n"
            "  --burst N             packets handed to the network at once, every N x TRS\n"
            "                        (default: the pacing's CMAX - 1, the largest burst within\n"
            "                        its ST 2110-21 sender type: 3 for narrow at UHD60, 15 for\n"
            "                        wide; 1: one packet every TRS)\n"
            "  --no-gso              one system call message per packet: no UDP segmentation\n"
            "                        offload of the bursts (default: GSO where the kernel has it).\n"
            "                        Packet captures on this host, or on virtual links (lo, veth)\n"
            "                        that pass bursts unsegmented, show a GSO burst as one\n"
            "                        oversize datagram: send with --no-gso for those\n"
            "  --packet-size N       largest RTP packet in bytes (default 1440)\n"
            "  --pt N                RTP payload type, 96..127 (default 112)\n"
            "  --ssrc N              RTP SSRC (default: random)\n"
            "  --seq N               first sequence number (default: random)\n"
            "  --loop N              send the file N times (default 1)\n"
            "  --interlaced          the codestreams are fields, two per frame, each with its\n"
            "                        own RTP timestamp (RFC 9134 erratum 6752)\n"
            "  --no-boxes            send bare codestreams, without the picture segment boxes:\n"
            "                        not RFC 9134 (which requires them), for testing receivers\n"
            "  --iface NAME          interface for multicast\n"
            "  --ttl N               multicast TTL / hop limit (default 16)\n"
            "  --source ADDR         the sender's address: sent from (with --to), for the SDP's\n"
            "                        source filter and the .pcap (default there: 192.0.2.1 or\n"
            "                        2001:db8::1)\n"
            "  --loss P              impairments (soak tests): lose each packet with probability\n"
            "  --reorder P           P, hold it back behind the next packet sent, send it twice;\n"
            "  --duplicate P         the first and the last frame go out unimpaired. Counted,\n"
            "  --seed N              printed and in --stats-json (seed: default 1)\n"
            "  --stats-json FILE     what was sent and what the impairments did, as JSON (with\n"
            "                        first_timestamp, the RTP timestamp of the first frame)\n"
            "  --sampling S          SDP sampling (default from the codestream, e.g. YCbCr-4:2:2)\n"
            "  --colorimetry C       SDP colorimetry (default BT709)\n"
            "  --tcs T               SDP transfer characteristic system (default SDR)\n"
            "  --range R             SDP range: NARROW (default) or FULL\n"
            "  -q, --quiet           print nothing but errors\n");
}

typedef struct send_args {
    const char *in, *to, *pcap, *sdp, *source, *iface;
    const char *sampling, *colorimetry, *tcs, *range;
    rtp_jxs_mode mode;
    rtp_pacing pacing;
    unsigned fps_num, fps_den;
    long packet_size, pt, ttl, loop, burst;
    unsigned long ssrc, seq;
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

static int parse_rate(const char *s, unsigned *num, unsigned *den)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *slash = strchr(buf, '/');
    if (!slash)
        slash = strchr(buf, ':');
    long n, d = 1;
    if (slash)
        *slash = '\0';
    if (cli_parse_long(buf, 1, 1000000, &n) || (slash && cli_parse_long(slash + 1, 1, 1000000, &d)))
        return -1;
    *num = (unsigned)n;
    *den = (unsigned)d;
    return 0;
}

static int parse_args(int argc, char **argv, send_args *a)
{
    memset(a, 0, sizeof *a);
    a->fps_num = 25;
    a->fps_den = 1;
    a->packet_size = 1440;
    a->pt = 112;
    a->ttl = 16;
    a->loop = 1;
    a->boxes = 1;
    a->impair.seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v = NULL;
        long n;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(arg, "--to")) {
            CLI_VALUE();
            a->to = v;
        } else if (!strcmp(arg, "--pcap")) {
            CLI_VALUE();
            a->pcap = v;
        } else if (!strcmp(arg, "--sdp")) {
            CLI_VALUE();
            a->sdp = v;
        } else if (!strcmp(arg, "--mode")) {
            CLI_VALUE();
            if (!strcmp(v, "codestream"))
                a->mode = RTP_JXS_CODESTREAM;
            else if (!strcmp(v, "slice"))
                a->mode = RTP_JXS_SLICE;
            else {
                cli_error(arg, "'%s' is not codestream or slice", v);
                return 2;
            }
        } else if (!strcmp(arg, "--fps")) {
            CLI_VALUE();
            if (parse_rate(v, &a->fps_num, &a->fps_den)) {
                cli_error(arg, "'%s' is not a rate N or N/D", v);
                return 2;
            }
        } else if (!strcmp(arg, "--pacing")) {
            CLI_VALUE();
            if (!strcmp(v, "narrow"))
                a->pacing = RTP_PACING_NARROW;
            else if (!strcmp(v, "wide"))
                a->pacing = RTP_PACING_WIDE;
            else if (!strcmp(v, "none"))
                a->pacing = RTP_PACING_NONE;
            else {
                cli_error(arg, "'%s' is not narrow, wide or none", v);
                return 2;
            }
        } else if (!strcmp(arg, "--burst")) {
            CLI_VALUE();
            if (cli_parse_long(v, 1, RTP_UDP_GSO_MAX, &a->burst)) {
                cli_error(arg, "'%s' is not a burst of 1 to %d packets", v, RTP_UDP_GSO_MAX);
                return 2;
            }
        } else if (!strcmp(arg, "--no-gso")) {
            a->no_gso = 1;
        } else if (!strcmp(arg, "--packet-size")) {
            CLI_VALUE();
            if (cli_parse_long(v, 32, 65507, &a->packet_size)) {
                cli_error(arg, "'%s' is not a packet size of 32 to 65507 bytes", v);
                return 2;
            }
        } else if (!strcmp(arg, "--pt")) {
            CLI_VALUE();
            if (cli_parse_long(v, 96, 127, &a->pt)) {
                cli_error(arg, "'%s' is not a dynamic payload type (96 to 127)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--ssrc") || !strcmp(arg, "--seq")) {
            CLI_VALUE();
            char *end;
            const unsigned long x = strtoul(v, &end, 0);
            const unsigned long max = arg[2] == 's' && arg[3] == 's' ? 0xffffffffUL : 0xffffUL;
            if (!*v || *end || x > max) {
                cli_error(arg, "'%s' is not a number of 0 to %lu", v, max);
                return 2;
            }
            if (arg[3] == 's') {
                a->ssrc = x;
                a->ssrc_given = 1;
            } else {
                a->seq = x;
                a->seq_given = 1;
            }
        } else if (!strcmp(arg, "--loop")) {
            CLI_VALUE();
            if (cli_parse_long(v, 1, 1L << 30, &a->loop)) {
                cli_error(arg, "'%s' is not a count (1 or more)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--ttl")) {
            CLI_VALUE();
            if (cli_parse_long(v, 1, 255, &a->ttl)) {
                cli_error(arg, "'%s' is not a TTL of 1 to 255", v);
                return 2;
            }
        } else if (!strcmp(arg, "--interlaced")) {
            a->interlaced = 1;
        } else if (!strcmp(arg, "--no-boxes")) {
            a->boxes = 0;
        } else if (!strcmp(arg, "--iface")) {
            CLI_VALUE();
            a->iface = v;
        } else if (!strcmp(arg, "--source")) {
            CLI_VALUE();
            a->source = v;
        } else if (!strcmp(arg, "--loss") || !strcmp(arg, "--reorder") ||
                   !strcmp(arg, "--duplicate")) {
            CLI_VALUE();
            char *end;
            const double p = strtod(v, &end);
            if (!*v || *end || !(p >= 0 && p <= 1)) {
                cli_error(arg, "'%s' is not a probability of 0 to 1", v);
                return 2;
            }
            *(arg[2] == 'l'   ? &a->impair.loss
              : arg[2] == 'r' ? &a->impair.reorder
                              : &a->impair.duplicate) = p;
            a->impaired |= p > 0;
        } else if (!strcmp(arg, "--seed")) {
            CLI_VALUE();
            char *end;
            const unsigned long long x = strtoull(v, &end, 0);
            if (!*v || *end || *v == '-') {
                cli_error(arg, "'%s' is not a seed (0 or more)", v);
                return 2;
            }
            a->impair.seed = x;
        } else if (!strcmp(arg, "--stats-json")) {
            CLI_VALUE();
            a->stats_json = v;
        } else if (!strcmp(arg, "--sampling")) {
            CLI_VALUE();
            a->sampling = v;
        } else if (!strcmp(arg, "--colorimetry")) {
            CLI_VALUE();
            a->colorimetry = v;
        } else if (!strcmp(arg, "--tcs")) {
            CLI_VALUE();
            a->tcs = v;
        } else if (!strcmp(arg, "--range")) {
            CLI_VALUE();
            a->range = v;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow send' (see --help)");
            return 2;
        } else if (!a->in) {
            a->in = arg;
        } else {
            cli_error(arg, "one input only (see --help)");
            return 2;
        }
        (void)n;
    }
    if (!a->in) {
        usage(stderr);
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
