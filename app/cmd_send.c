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
#include "xsf_clock.h"

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

/* The RFC 9134 sampling name of a codestream's components. */
static const char *sampling_name(const xs_header *h)
{
    if (h->nc == 1)
        return "UNSPECIFIED";
    if (h->nc == 3 && h->sx[1] == 2 && h->sy[1] == 2)
        return "YCbCr-4:2:0";
    if (h->nc == 3 && h->sx[1] == 2 && h->sy[1] == 1)
        return "YCbCr-4:2:2";
    if (h->nc == 3 && h->sx[1] == 1 && h->sy[1] == 1)
        return h->cpih == 1 ? "RGB" : "YCbCr-4:4:4";
    return "UNSPECIFIED";
}

/* Packets of one segment, stored back to back. */
typedef struct arena {
    uint8_t *data;
    size_t *off, *len;
    size_t n, cap_pk, used, cap;
} arena;

static int arena_add(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    arena *a = ctx;
    if (a->n == a->cap_pk) {
        const size_t c = a->cap_pk ? 2 * a->cap_pk : 1024;
        size_t *o = realloc(a->off, c * sizeof *o), *l = o ? realloc(a->len, c * sizeof *l) : NULL;
        if (o)
            a->off = o;
        if (!o || !l)
            return 1;
        a->len = l;
        a->cap_pk = c;
    }
    if (a->used + len > a->cap) {
        size_t c = a->cap ? 2 * a->cap : 1 << 20;
        while (c < a->used + len)
            c *= 2;
        uint8_t *d = realloc(a->data, c);
        if (!d)
            return 1;
        a->data = d;
        a->cap = c;
    }
    memcpy(a->data + a->used, pkt, len);
    a->off[a->n] = a->used;
    a->len[a->n++] = len;
    a->used += len;
    return 0;
}

/* Most packets one send call takes (a late wake-up's backlog is sent in pieces). */
#define SEND_MAX 1024

static void sleep_until(uint64_t t_ns)
{
    while (xsf_clock_sleep_until_ns(t_ns) && !interrupted) {
    }
}

static uint32_t random32(void)
{
    const struct timespec ts = xsf_ns_to_timespec(xsf_clock_wall_ns());
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(x >> 32);
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
    /* Split the file into codestreams. */
    size_t nframes = 0, cap = 0, *off = NULL, *bytes = NULL, max_bytes = 0;
    for (size_t o = 0; o < len;) {
        xs_layout l;
        memset(&l, 0, sizeof l);
        if (xs_scan_layout(data + o, len - o, &l, &err) != XSF_OK) {
            cli_error(a.in, "codestream %zu (file byte %zu): %s", nframes, o, err.msg);
            free(data);
            free(off);
            free(bytes);
            return 1;
        }
        if (nframes == cap) {
            cap = cap ? 2 * cap : 64;
            size_t *no = realloc(off, cap * sizeof *no),
                   *nb = no ? realloc(bytes, cap * sizeof *nb) : NULL;
            if (no)
                off = no;
            if (!no || !nb) {
                cli_error(a.in, "out of memory");
                free(data);
                free(off);
                return 1;
            }
            bytes = nb;
        }
        off[nframes] = o;
        bytes[nframes++] = l.codestream_bytes;
        if (l.codestream_bytes > max_bytes)
            max_bytes = l.codestream_bytes;
        o += l.codestream_bytes;
        xs_layout_free(&l);
    }
    if (!nframes) {
        cli_error(a.in, "no codestream in the file");
        free(data);
        return 1;
    }
    xs_header hdr;
    xs_parse_header(data, bytes[0], &hdr, &err);

    rtp_addr dest, src;
    memset(&dest, 0, sizeof dest);
    memset(&src, 0, sizeof src);
    int status = 0;
    if (a.to && rtp_addr_parse(a.to, 1, &dest, &err) != XSF_OK) {
        cli_error("--to", "%s", err.msg);
        free(data);
        free(off);
        free(bytes);
        return 2;
    }
    if (!a.to)
        rtp_addr_parse("239.0.0.1:5004", 1, &dest, &err); /* the capture's destination */
    if (a.source) {
        if (rtp_addr_parse(a.source, 0, &src, &err) != XSF_OK) {
            cli_error("--source", "%s", err.msg);
            free(data);
            free(off);
            free(bytes);
            return 2;
        }
    } else {
        rtp_addr_parse(dest.family == AF_INET6 ? "2001:db8::1" : "192.0.2.1", 0, &src, &err);
    }
    src.port = 50000;

    const uint64_t frame_ns = (uint64_t)1000000000u * a.fps_den / a.fps_num;
    const uint64_t segment_ns = a.interlaced ? frame_ns / 2 : frame_ns;
    /* SDP */
    if (a.sdp) {
        rtp_sdp s;
        rtp_sdp_init(&s);
        rtp_addr_format(&dest, 0, s.dest_addr, sizeof s.dest_addr);
        s.ipv6 = dest.family == AF_INET6;
        s.port = dest.port;
        s.payload_type = (unsigned)a.pt;
        s.ttl = rtp_addr_is_multicast(&dest) && !s.ipv6 ? (unsigned)a.ttl : 0;
        rtp_addr_format(&src, 0, s.origin_addr, sizeof s.origin_addr);
        if (a.source)
            rtp_addr_format(&src, 0, s.source_addr, sizeof s.source_addr);
        s.packetmode = a.mode;
        s.transmode = 1;
        /* RFC 9134 7.1: 21122-2's names without spaces; none for unknown codes. */
        if (!rtp_sdp_profile_name(hdr.ppih, s.profile, sizeof s.profile))
            s.profile[0] = '\0';
        if (!rtp_sdp_level_name(hdr.plev, s.level, sizeof s.level))
            s.level[0] = '\0';
        if (!rtp_sdp_sublevel_name(hdr.plev, s.sublevel, sizeof s.sublevel))
            s.sublevel[0] = '\0';
        s.depth = hdr.depth[0];
        s.width = hdr.wf;
        s.height = a.interlaced ? 2u * hdr.hf : hdr.hf;
        s.rate_num = a.fps_num;
        s.rate_den = a.fps_den;
        s.interlace = a.interlaced;
        snprintf(s.sampling, sizeof s.sampling, "%s",
                 a.sampling ? a.sampling : sampling_name(&hdr));
        snprintf(s.colorimetry, sizeof s.colorimetry, "%s",
                 a.colorimetry ? a.colorimetry : "BT709");
        snprintf(s.tcs, sizeof s.tcs, "%s", a.tcs ? a.tcs : "SDR");
        snprintf(s.range, sizeof s.range, "%s", a.range ? a.range : "NARROW");
        /* RFC 9134 5: TP says which ST 2110-21 sender type the pacing is; none unpaced. */
        const char *tp = rtp_pacing_tp(a.pacing);
        snprintf(s.tp, sizeof s.tp, "%s", tp ? tp : "");
        s.max_bitrate_kbps = (uint64_t)((double)max_bytes * 8 * (a.interlaced ? 2 : 1) * a.fps_num /
                                            a.fps_den / 1000 +
                                        1);
        char text[4096];
        rtp_sdp_write(&s, text, sizeof text);
        FILE *f = fopen(a.sdp, "w");
        if (!f || fputs(text, f) == EOF || fclose(f)) {
            cli_error(a.sdp, "cannot write the SDP file");
            free(data);
            free(off);
            free(bytes);
            return 1;
        }
    }

    rtp_packetizer_config pc;
    memset(&pc, 0, sizeof pc);
    pc.mode = a.mode;
    pc.packet_bytes = (size_t)a.packet_size;
    pc.payload_type = (uint8_t)a.pt;
    pc.ssrc = a.ssrc_given ? (uint32_t)a.ssrc : random32();
    pc.first_seq = a.seq_given ? (uint16_t)a.seq : (uint16_t)random32();
    pc.boxes = a.boxes;
    pc.box_template.brat_mbps =
        (uint32_t)((double)max_bytes * 8 * (a.interlaced ? 2 : 1) * a.fps_num / a.fps_den / 1e6 +
                   0.999999);
    pc.box_template.frat_interlace = (uint8_t)(a.interlaced ? 1 : 0);
    pc.box_template.frat_den_code = (uint8_t)(a.fps_den == 1001 ? 2 : 1);
    pc.box_template.frat_num =
        (uint16_t)(a.fps_den == 1001 ? (a.fps_num + 500) / 1000
                                     : (a.fps_num + a.fps_den / 2) / a.fps_den);
    const char *samp = a.sampling ? a.sampling : sampling_name(&hdr);
    /* schar's sampling codes as intoPIX's ST 2110-22 dissector reads them
     * (ISO/IEC 21122-3 was not at hand); for others (4:2:0) schar is left
     * unset (its valid bit 0) rather than guessed. */
    const int scode = strstr(samp, "4:2:2")   ? 0
                      : strstr(samp, "4:4:4") ? 1
                      : !strcmp(samp, "RGB")  ? 2
                                              : -1;
    if (scode >= 0 && hdr.depth[0] >= 1)
        pc.box_template.schar = (uint16_t)(0x8000 | ((hdr.depth[0] - 1) & 15) << 4 | scode);
    /* The colour specification box says what the SDP says (RFC 9134 7, 8.1). */
    rtp_jxs_colr_from_sdp(&pc.box_template, a.colorimetry ? a.colorimetry : "BT709",
                          a.tcs ? a.tcs : "SDR", a.range ? a.range : "NARROW", samp, hdr.depth[0]);
    rtp_packetizer *pk;
    if (rtp_packetizer_create(&pk, &pc, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        free(data);
        free(off);
        free(bytes);
        return 2;
    }

    rtp_udp *sock = NULL;
    rtp_pcap_writer *pw = NULL;
    if (a.to && !a.pcap) {
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        uc.ttl = (unsigned)a.ttl;
        uc.gso_segments = a.no_gso ? 0 : RTP_UDP_GSO_MAX; /* bursts are bounded below */
        if (a.source) { /* send from that address */
            uc.has_source = 1;
            uc.source = src;
        }
        if (a.iface)
            snprintf(uc.iface, sizeof uc.iface, "%s", a.iface);
        if (rtp_udp_open_sender(&sock, &dest, &uc, &err) != XSF_OK) {
            cli_error(a.to, "%s", err.msg);
            status = 1;
        }
    } else if (rtp_pcap_writer_open(&pw, a.pcap, &err) != XSF_OK) {
        cli_error(a.pcap, "%s", err.msg);
        status = 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    rtp_impairer *imp = NULL;
    if (!status && a.impaired && rtp_impairer_create(&imp, &a.impair, &err) != XSF_OK) {
        cli_error("--loss", "%s", err.msg);
        status = 2;
    }
    arena ar;
    memset(&ar, 0, sizeof ar);
    /* What goes out of a segment: its packets, or what the impairer makes of them. */
    const uint8_t **sp = NULL;
    size_t *sl = NULL, sp_cap = 0;
    const uint64_t t0 = xsf_clock_mono_ns() + 1000000; /* 1 ms from now */
    const uint64_t pcap_t0 = xsf_clock_wall_ns();
    const uint32_t ts0 = random32();
    uint64_t packets = 0, sent_bytes = 0, segments = 0, last_report = t0, sends = 0, late_sends = 0;
    const uint64_t total = (uint64_t)nframes * (uint64_t)a.loop;
    for (uint64_t k = 0; k < total && !status && !interrupted; k++) {
        const size_t i = (size_t)(k % nframes);
        const uint64_t frame_no = a.interlaced ? k / 2 : k;
        const rtp_jxs_scan scan = !a.interlaced ? RTP_JXS_PROGRESSIVE
                                  : k % 2       ? RTP_JXS_FIELD_SECOND
                                                : RTP_JXS_FIELD_FIRST;
        /* RFC 9134 4.2 with erratum 6752: the sampling instant of the frame,
         * or of each field (fields at twice the frame rate); one F counter
         * for both fields of a frame (4.3). */
        const uint32_t ts = a.interlaced ? rtp_frame_timestamp(ts0, k, 2 * a.fps_num, a.fps_den)
                                         : rtp_frame_timestamp(ts0, k, a.fps_num, a.fps_den);
        ar.n = ar.used = 0;
        if (rtp_packetize(pk, data + off[i], bytes[i], ts, (unsigned)frame_no, scan, arena_add, &ar,
                          &err) != XSF_OK) {
            cli_error(a.in, "codestream %zu: %s", i, err.msg);
            status = 1;
            break;
        }
        /* the packets, then room for the impairer's output (2 x n + 2) */
        if (3 * ar.n + 4 > sp_cap) {
            const size_t c = 3 * ar.n + 4;
            const uint8_t **np = realloc(sp, c * sizeof *np);
            size_t *nl = np ? realloc(sl, c * sizeof *nl) : NULL;
            if (np)
                sp = np;
            if (!np || !nl) {
                cli_error(a.in, "out of memory");
                status = 1;
                break;
            }
            sl = nl;
            sp_cap = c;
        }
        size_t sn = ar.n;
        for (size_t j = 0; j < ar.n; j++) {
            sp[j] = ar.data + ar.off[j];
            sl[j] = ar.len[j];
        }
        if (imp) {
            /* The first and the last frame (both fields) go out whole: see rtp_impairer. */
            const uint64_t per = a.interlaced ? 2 : 1;
            const int spare = k < per || k + per >= total;
            const uint8_t **ip = sp + ar.n;
            size_t *il = sl + ar.n;
            rtp_impair_segment(imp, sp, sl, ar.n, spare, ip, il, &sn);
            memmove(sp, ip, sn * sizeof *sp);
            memmove(sl, il, sn * sizeof *sl);
            if (k + 1 == total) {
                size_t extra;
                rtp_impair_finish(imp, sp + sn, sl + sn, &extra);
                sn += extra;
            }
        }
        const uint64_t seg_start = k * segment_ns;
        /* Bursts of `burst` packets every burst x TRS (rtp/pacing.c). The loop sleeps
         * until a burst is due, then hands over every packet due by then in one call
         * (one GSO message per burst where the kernel has GSO): a late wake-up sends
         * the bursts it missed together, counted in late_sends. It never spins. The
         * packets are the impaired list when impairments are asked for. */
        const unsigned burst =
            a.burst ? (unsigned)a.burst : rtp_pacing_burst_default(a.pacing, sn, segment_ns);
        for (size_t p = 0; p < sn && !status;) {
            const uint64_t at =
                seg_start + rtp_pacing_burst_offset_ns(a.pacing, p, sn, segment_ns, burst);
            if (!pw && a.pacing != RTP_PACING_NONE && xsf_clock_mono_ns() < t0 + at)
                sleep_until(t0 + at);
            const uint64_t due = pw ? at : xsf_clock_mono_ns() - t0;
            size_t q = p + 1;
            while (q < sn && q - p < SEND_MAX &&
                   seg_start + rtp_pacing_burst_offset_ns(a.pacing, q, sn, segment_ns, burst) <= due)
                q++;
            if (pw) {
                for (size_t j = p; j < q && !status; j++)
                    if (rtp_pcap_write(pw, &src, &dest, sp[j], sl[j], pcap_t0 + at, &err) !=
                        XSF_OK) {
                        cli_error(a.pcap, "%s", err.msg);
                        status = 1;
                    }
            } else {
                if (rtp_udp_send(sock, sp + p, sl + p, q - p, &err) != XSF_OK) {
                    cli_error(a.to, "%s", err.msg);
                    status = 1;
                }
                sends++;
                late_sends += a.pacing != RTP_PACING_NONE && q - p > burst;
            }
            for (size_t j = p; j < q; j++)
                sent_bytes += sl[j];
            packets += q - p;
            p = q;
        }
        segments++;
        const uint64_t now = xsf_clock_mono_ns();
        if (!a.quiet && sock && now - last_report >= 1000000000u) {
            const double secs = (double)(now - t0) / 1e9;
            fprintf(stderr, "send: %llu frames, %llu packets, %.1f Mbit/s\n",
                    (unsigned long long)segments, (unsigned long long)packets,
                    secs > 0 ? (double)sent_bytes * 8 / secs / 1e6 : 0.0);
            last_report = now;
        }
    }
    if (pw && rtp_pcap_writer_close(pw, &err) != XSF_OK && !status) {
        cli_error(a.pcap, "%s", err.msg);
        status = 1;
    }
    int gso_refused = 0;
    const int gso_on = sock ? rtp_udp_gso(sock, &gso_refused) : 0;
    rtp_udp_close(sock);
    rtp_packetizer_destroy(pk);
    if (imp && !a.quiet) {
        const rtp_impair_counts *c = rtp_impairer_counts(imp);
        fprintf(stderr,
                "send: impairments (seed %llu): of %llu packets, lost %llu, reordered %llu, "
                "duplicated %llu; %llu of %llu frames lost a packet\n",
                (unsigned long long)a.impair.seed, (unsigned long long)c->packets,
                (unsigned long long)c->lost, (unsigned long long)c->reordered,
                (unsigned long long)c->duplicated, (unsigned long long)c->segments_with_loss,
                (unsigned long long)c->segments);
    }
    if (a.stats_json && write_stats(a.stats_json, &a, segments, packets, sent_bytes,
                                    imp ? rtp_impairer_counts(imp) : NULL, interrupted != 0, ts0))
        status = status ? status : 1;
    rtp_impairer_destroy(imp);
    free(sp);
    free(sl);
    free(ar.data);
    free(ar.off);
    free(ar.len);
    if (!status && !a.quiet) {
        char where[96];
        rtp_addr_format(&dest, 1, where, sizeof where);
        printf("sent %llu %s%s (%zu codestream%s x %ld) as %llu packets, %llu bytes, %s mode, %s "
               "pacing, to %s\n",
               (unsigned long long)segments, a.interlaced ? "field" : "frame",
               segments == 1 ? "" : "s", nframes, nframes == 1 ? "" : "s", a.loop,
               (unsigned long long)packets, (unsigned long long)sent_bytes,
               a.mode ? "slice" : "codestream",
               a.pacing == RTP_PACING_NARROW ? "narrow"
               : a.pacing == RTP_PACING_WIDE ? "wide"
                                             : "no",
               a.pcap ? a.pcap : where);
        if (sock) {
            printf("%llu send calls (%.1f packets each, %s), %llu of them late (more than one "
                   "burst at once)\n",
                   (unsigned long long)sends, sends ? (double)packets / (double)sends : 0.0,
                   gso_on        ? "GSO"
                   : gso_refused ? "GSO refused by the kernel"
                                 : "no GSO",
                   (unsigned long long)late_sends);
        }
    }
    free(data);
    free(off);
    free(bytes);
    return status ? status : (interrupted ? 130 : 0);
}
