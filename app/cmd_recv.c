/* xsflow recv: an SMPTE ST 2110-22 stream (RTP, RFC 9134) from a UDP socket,
 * a .pcap/.pcapng file or a live capture, to a .jxs file (each whole frame's
 * codestream, in order) or decoded to .yuv / .y4m. Statistics live. */
#define _POSIX_C_SOURCE 200809L /* sigaction */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "jxs_file.h"
#include "rtp.h"
#include "xs.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: xsflow recv (ADDR:PORT | --sdp FILE | --pcap FILE [ADDR:PORT] | --capture IFACE)\n"
        "                   -o OUT [options]\n"
        "\n"
        "Receives an ST 2110-22 stream (RTP, RFC 9134 payload, JPEG XS) and writes every whole\n"
        "frame: OUT.jxs gets the codestreams one after the other (picture segment boxes\n"
        "removed); OUT.yuv and OUT.y4m get the decoded pictures. Frames with a missing\n"
        "packet are dropped and counted. Statistics go to standard error, once a second.\n"
        "ADDR:PORT is a unicast or multicast address, IPv4 or [IPv6], to bind (and join).\n"
        "\n"
        "options:\n"
        "  -o, --output OUT      .jxs, .yuv or .y4m ('-' with --format: standard output)\n"
        "  --format F            jxs, yuv or y4m (default: OUT's extension)\n"
        "  --sdp FILE            the session description: address, port, payload type, source\n"
        "  --pcap FILE           read a .pcap or .pcapng capture (ADDR:PORT then filters it)\n"
        "  --capture IFACE       capture live on an interface (needs privileges)\n"
        "  --filter BPF          capture filter (default: udp, and the address and port)\n"
        "  --source ADDR         source-specific multicast: accept this sender only\n"
        "  --iface NAME          interface to join the group on\n"
        "  --pt N                accept this payload type only (default: the SDP's, or any)\n"
        "  --ssrc N              accept this SSRC only (default: the first to send 4 packets in\n"
        "                        sequence; another once it has been silent for 1 s)\n"
        "  --frames N            stop after N whole frames\n"
        "  --duration S          stop after S seconds\n"
        "  --timeout S           stop after S seconds without a packet (default 5; 0: never)\n"
        "  --reorder N           reorder window in packets (default 512)\n"
        "  --reorder-ms MS       give up on a missing packet after MS ms (default 20)\n"
        "  --rcvbuf BYTES        socket receive buffer (default 32 MiB)\n"
        "  --fps N[/D]           Y4M frame rate (default: the SDP's, or 25)\n"
        "  --packets FILE        write one CSV line per packet: its RTP and RFC 9134 header "
        "fields\n"
        "  -q, --quiet           print only the final statistics (and errors)\n");
}

typedef enum out_kind { OUT_JXS, OUT_YUV, OUT_Y4M } out_kind;

typedef struct recv_args {
    const char *addr, *sdp, *pcap, *capture, *filter, *source, *iface, *out, *packets;
    out_kind kind;
    int kind_given;
    long pt, frames, reorder, reorder_ms, rcvbuf;
    double duration, timeout;
    unsigned long ssrc;
    int ssrc_given, quiet;
    unsigned fps_num, fps_den;
} recv_args;

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int parse_seconds(const char *s, double *v)
{
    char *end;
    const double x = strtod(s, &end);
    if (!*s || *end || x < 0 || x > 1e7)
        return -1;
    *v = x;
    return 0;
}

static int parse_args(int argc, char **argv, recv_args *a)
{
    memset(a, 0, sizeof *a);
    a->pt = -1;
    a->timeout = 5;
    a->reorder = 512;
    a->reorder_ms = 20;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v = NULL;
#define VALUE()                                                                                    \
    do {                                                                                           \
        if (!(v = cli_option_value(argc, argv, &i)))                                               \
            return 2;                                                                              \
    } while (0)
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            VALUE();
            a->out = v;
        } else if (!strcmp(arg, "--format")) {
            VALUE();
            if (!strcmp(v, "jxs"))
                a->kind = OUT_JXS;
            else if (!strcmp(v, "yuv"))
                a->kind = OUT_YUV;
            else if (!strcmp(v, "y4m"))
                a->kind = OUT_Y4M;
            else {
                cli_error(arg, "'%s' is not jxs, yuv or y4m", v);
                return 2;
            }
            a->kind_given = 1;
        } else if (!strcmp(arg, "--sdp")) {
            VALUE();
            a->sdp = v;
        } else if (!strcmp(arg, "--pcap")) {
            VALUE();
            a->pcap = v;
        } else if (!strcmp(arg, "--packets")) {
            VALUE();
            a->packets = v;
        } else if (!strcmp(arg, "--capture")) {
            VALUE();
            a->capture = v;
        } else if (!strcmp(arg, "--filter")) {
            VALUE();
            a->filter = v;
        } else if (!strcmp(arg, "--source")) {
            VALUE();
            a->source = v;
        } else if (!strcmp(arg, "--iface")) {
            VALUE();
            a->iface = v;
        } else if (!strcmp(arg, "--pt")) {
            VALUE();
            if (cli_parse_long(v, 0, 127, &a->pt)) {
                cli_error(arg, "'%s' is not a payload type (0 to 127)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--ssrc")) {
            VALUE();
            char *end;
            a->ssrc = strtoul(v, &end, 0);
            if (!*v || *end || a->ssrc > 0xffffffffUL) {
                cli_error(arg, "'%s' is not a 32-bit number", v);
                return 2;
            }
            a->ssrc_given = 1;
        } else if (!strcmp(arg, "--frames")) {
            VALUE();
            if (cli_parse_long(v, 1, 1L << 40, &a->frames)) {
                cli_error(arg, "'%s' is not a frame count (1 or more)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--duration") || !strcmp(arg, "--timeout")) {
            VALUE();
            if (parse_seconds(v, arg[2] == 'd' ? &a->duration : &a->timeout)) {
                cli_error(arg, "'%s' is not a number of seconds", v);
                return 2;
            }
        } else if (!strcmp(arg, "--reorder")) {
            VALUE();
            if (cli_parse_long(v, 1, 16384, &a->reorder)) {
                cli_error(arg, "'%s' is not a window of 1 to 16384 packets", v);
                return 2;
            }
        } else if (!strcmp(arg, "--reorder-ms")) {
            VALUE();
            if (cli_parse_long(v, 0, 60000, &a->reorder_ms)) {
                cli_error(arg, "'%s' is not 0 to 60000 ms", v);
                return 2;
            }
        } else if (!strcmp(arg, "--rcvbuf")) {
            VALUE();
            if (cli_parse_long(v, 4096, 1L << 30, &a->rcvbuf)) {
                cli_error(arg, "'%s' is not 4096 bytes to 1 GiB", v);
                return 2;
            }
        } else if (!strcmp(arg, "--fps")) {
            VALUE();
            long n, d = 1;
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            char *sl = strpbrk(buf, "/:");
            if (sl)
                *sl = '\0';
            if (cli_parse_long(buf, 1, 1000000, &n) ||
                (sl && cli_parse_long(sl + 1, 1, 1000000, &d))) {
                cli_error(arg, "'%s' is not a rate N or N/D", v);
                return 2;
            }
            a->fps_num = (unsigned)n;
            a->fps_den = (unsigned)d;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow recv' (see --help)");
            return 2;
        } else if (!a->addr) {
            a->addr = arg;
        } else {
            cli_error(arg, "one address only (see --help)");
            return 2;
        }
#undef VALUE
    }
    if (!!a->sdp + !!a->capture + (a->addr && !a->pcap) > 1 ||
        (!a->sdp && !a->pcap && !a->capture && !a->addr)) {
        if (!a->sdp && !a->pcap && !a->capture && !a->addr)
            usage(stderr);
        else
            cli_error("recv",
                      "give one source: ADDR:PORT, --sdp FILE, --pcap FILE or --capture IFACE");
        return 2;
    }
    if (!a->out) {
        cli_error("recv", "no output: give -o OUT.jxs, OUT.yuv or OUT.y4m");
        return 2;
    }
    if (!a->kind_given) {
        const size_t n = strlen(a->out);
        if (n > 4 && !strcasecmp(a->out + n - 4, ".jxs"))
            a->kind = OUT_JXS;
        else if (n > 4 && !strcasecmp(a->out + n - 4, ".yuv"))
            a->kind = OUT_YUV;
        else if (n > 4 && !strcasecmp(a->out + n - 4, ".y4m"))
            a->kind = OUT_Y4M;
        else {
            cli_error(a->out,
                      "unknown output format: name it .jxs, .yuv or .y4m, or give --format");
            return 2;
        }
    }
    return 0;
}

/* Where whole frames go. */
typedef struct output {
    const recv_args *a;
    FILE *jxs;
    xs_decoder *dec;
    imgio_writer *w;
    unsigned fps_num, fps_den;
    uint64_t written, bytes;
    int failed;
    char msg[512];
} output;

static void on_frame(void *ctx, const rtp_frame *f)
{
    output *o = ctx;
    if (!f->complete || o->failed)
        return; /* partial slice-mode frames: counted, not written */
    if (o->a->kind == OUT_JXS) {
        if (fwrite(f->data, 1, f->bytes, o->jxs) != f->bytes) {
            o->failed = 1;
            snprintf(o->msg, sizeof o->msg, "write failed");
            return;
        }
        o->bytes += f->bytes;
        o->written++;
        return;
    }
    size_t consumed;
    const xs_image *img;
    if (xs_decode(o->dec, f->data, f->bytes, &consumed, &img) != XSF_OK) {
        /* A whole codestream the decoder refuses: say so, keep receiving. */
        fprintf(stderr, "xsflow: frame at RTP timestamp %u: %s\n", f->timestamp,
                xs_decoder_error(o->dec));
        return;
    }
    imgio_picture pic;
    jxs_picture_from_image(&pic, img);
    xsf_error err;
    xsf_error_clear(&err);
    if (!o->w) {
        imgio_write_options opt = {.format =
                                       o->a->kind == OUT_Y4M ? IMGIO_FORMAT_Y4M : IMGIO_FORMAT_YUV,
                                   .fps_num = o->fps_num,
                                   .fps_den = o->fps_den};
        if (imgio_writer_open(&o->w, o->a->out, &opt, &err) != XSF_OK) {
            o->failed = 1;
            snprintf(o->msg, sizeof o->msg, "%s", err.msg);
            return;
        }
    }
    if (imgio_write(o->w, &pic, &err) != XSF_OK) {
        o->failed = 1;
        snprintf(o->msg, sizeof o->msg, "%s", err.msg);
        return;
    }
    o->written++;
}

static void print_stats(const rtp_stats *s, const char *prefix, uint64_t kernel_drops)
{
    fprintf(stderr,
            "%s: %llu packets, %llu bytes, %.2f Mbit/s, lost %llu, reordered %llu, duplicated "
            "%llu, late %llu, "
            "invalid %llu, wrong SSRC %llu; frames %llu whole, %llu dropped, %llu partial; jitter "
            "%.3f ms",
            prefix, (unsigned long long)s->packets, (unsigned long long)s->bytes,
            s->bitrate_bps / 1e6, (unsigned long long)s->lost, (unsigned long long)s->reordered,
            (unsigned long long)s->duplicated, (unsigned long long)s->late,
            (unsigned long long)(s->invalid + s->truncated + s->wrong_pt),
            (unsigned long long)s->wrong_ssrc, (unsigned long long)s->frames_complete,
            (unsigned long long)s->frames_dropped, (unsigned long long)s->frames_partial,
            s->jitter_ms);
    fprintf(stderr,
            "; refused: on probation %llu; SSRC changes %llu; at the edges: lost %llu, dropped "
            "%llu; dropped for want of a buffer %llu",
            (unsigned long long)s->on_probation, (unsigned long long)s->ssrc_changes,
            (unsigned long long)s->lost_edge, (unsigned long long)s->frames_dropped_edge,
            (unsigned long long)s->frames_dropped_no_buffer);
    if (kernel_drops)
        fprintf(stderr, ", kernel drops %llu", (unsigned long long)kernel_drops);
    fputc('\n', stderr);
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One CSV line of header fields per packet (fields tshark names rtp.version,
 * rtp.padding, rtp.ext, rtp.cc, rtp.marker, rtp.p_type, rtp.seq,
 * rtp.timestamp, rtp.ssrc; then T, K, L, I, F, SEP, P of RFC 9134). */
static void log_packet(FILE *f, const uint8_t *p, size_t n)
{
    rtp_header h;
    rtp_jxs_header j;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_header_parse(p, n, &h, &err) != XSF_OK) {
        fprintf(f, "invalid\n");
        return;
    }
    fprintf(f, "%u,%u,%u,%u,%u,%u,%u,%u,0x%08x", h.version, h.padding, h.extension, h.csrc_count,
            h.marker, h.payload_type, h.seq, h.timestamp, h.ssrc);
    if (rtp_jxs_header_parse(h.payload, h.payload_bytes, &j, &err) == XSF_OK)
        fprintf(f, ",%u,%u,%u,%u,%u,%u,%u\n", j.t, j.k, j.l, j.i, j.f, j.sep, j.p);
    else
        fprintf(f, ",invalid\n");
}

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cmd_recv(int argc, char **argv)
{
    recv_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;
    xsf_error err;
    xsf_error_clear(&err);
    rtp_addr addr, source;
    memset(&addr, 0, sizeof addr);
    memset(&source, 0, sizeof source);
    int have_addr = 0, have_source = 0;
    unsigned fps_num = a.fps_num, fps_den = a.fps_den;
    long pt = a.pt;
    if (a.sdp) {
        uint8_t *text;
        size_t len;
        if (imgio_read_file(a.sdp, &text, &len, &err) != XSF_OK) {
            cli_error(a.sdp, "%s", err.msg);
            return 1;
        }
        rtp_sdp s;
        const xsf_status st = len > 65536
                                  ? xsf_error_set(&err, XSF_ERR_INVALID, "larger than 64 KiB")
                                  : rtp_sdp_parse((const char *)text, len, &s, &err);
        free(text);
        if (st != XSF_OK) {
            cli_error(a.sdp, "%s", err.msg);
            return 1;
        }
        if (rtp_addr_parse(s.dest_addr, 0, &addr, &err) != XSF_OK) {
            cli_error(a.sdp, "c= %s", err.msg);
            return 1;
        }
        addr.port = (uint16_t)s.port;
        have_addr = 1;
        if (s.source_addr[0] && rtp_addr_parse(s.source_addr, 0, &source, &err) == XSF_OK)
            have_source = 1;
        if (pt < 0)
            pt = s.payload_type;
        if (!fps_num && s.rate_num) {
            fps_num = s.rate_num;
            fps_den = s.rate_den;
        }
    }
    if (a.addr) {
        if (rtp_addr_parse(a.addr, 1, &addr, &err) != XSF_OK) {
            cli_error(a.addr, "%s", err.msg);
            return 2;
        }
        have_addr = 1;
    }
    if (a.source) {
        if (rtp_addr_parse(a.source, 0, &source, &err) != XSF_OK) {
            cli_error("--source", "%s", err.msg);
            return 2;
        }
        have_source = 1;
    }
    if (!fps_num) {
        fps_num = 25;
        fps_den = 1;
    }

    output o;
    memset(&o, 0, sizeof o);
    o.a = &a;
    o.fps_num = fps_num;
    o.fps_den = fps_den;
    if (a.kind == OUT_JXS) {
        o.jxs = strcmp(a.out, "-") ? fopen(a.out, "wb") : stdout;
        if (!o.jxs) {
            cli_error(a.out, "cannot create the file");
            return 1;
        }
    } else if (xs_decoder_create(&o.dec) != XSF_OK) {
        cli_error(a.out, "out of memory for the decoder");
        return 1;
    }

    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = (int)pt;
    dc.ssrc_given = a.ssrc_given;
    dc.ssrc = (uint32_t)a.ssrc;
    dc.reorder_packets = (unsigned)a.reorder;
    dc.reorder_ns = (uint64_t)a.reorder_ms * 1000000u;
    dc.validate = 1;
    dc.on_frame = on_frame;
    dc.ctx = &o;
    rtp_depacketizer *dep;
    if (rtp_depacketizer_create(&dep, &dc, &err) != XSF_OK) {
        cli_error("recv", "%s", err.msg);
        return 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int status = 0;
    const uint64_t start = monotonic_ns();
    uint64_t last_packet = start, last_report = start;
    const uint64_t max_frames = a.frames > 0 ? (uint64_t)a.frames : UINT64_MAX;
    const rtp_stats *st = rtp_depacketizer_stats(dep);
    rtp_udp *sock = NULL;
    rtp_pcap_reader *pr = NULL;
    char label[128];
    if (a.pcap || a.capture) {
        char filter[512];
        if (a.filter) {
            snprintf(filter, sizeof filter, "%s", a.filter);
        } else if (have_addr) {
            char host[80];
            rtp_addr_format(&addr, 0, host, sizeof host);
            snprintf(filter, sizeof filter, "udp and dst port %u and dst host %s", addr.port, host);
            if (have_source) {
                char s[80];
                rtp_addr_format(&source, 0, s, sizeof s);
                snprintf(filter + strlen(filter), sizeof filter - strlen(filter),
                         " and src host %s", s);
            }
        } else {
            snprintf(filter, sizeof filter, "udp");
        }
        const xsf_status s2 =
            a.pcap ? rtp_pcap_open_file(&pr, a.pcap, filter, &err)
                   : rtp_pcap_open_live(&pr, a.capture, filter, (size_t)a.rcvbuf, &err);
        if (s2 != XSF_OK) {
            cli_error(a.pcap ? a.pcap : a.capture, "%s", err.msg);
            status = 1;
        }
        snprintf(label, sizeof label, "recv %s", a.pcap ? a.pcap : a.capture);
    } else {
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        uc.local = addr;
        if (a.sdp && !a.addr && !rtp_addr_is_multicast(&addr)) {
            /* The SDP's unicast destination may name this host by any of its
             * addresses: bind the wildcard address on that port. */
            memset(uc.local.addr, 0, sizeof uc.local.addr);
        }
        uc.has_source = have_source;
        uc.source = source;
        uc.buffer_bytes = (size_t)a.rcvbuf;
        uc.timestamps = 1;
        if (a.iface)
            snprintf(uc.iface, sizeof uc.iface, "%s", a.iface);
        if (rtp_udp_open_receiver(&sock, &uc, &err) != XSF_OK) {
            cli_error(a.addr ? a.addr : a.sdp, "%s", err.msg);
            status = 1;
        }
        char where[96];
        rtp_addr_format(&addr, 1, where, sizeof where);
        snprintf(label, sizeof label, "recv %s", where);
    }

    FILE *plog = NULL;
    if (!status && a.packets && !(plog = fopen(a.packets, "w"))) {
        cli_error(a.packets, "cannot create the file");
        status = 1;
    }
    rtp_datagram dg[RTP_UDP_BATCH];
    while (!status && !interrupted && st->frames_complete < max_frames && !o.failed) {
        const uint64_t now = monotonic_ns();
        if (a.duration > 0 && (double)(now - start) / 1e9 >= a.duration)
            break;
        if (!a.pcap && a.timeout > 0 && (double)(now - last_packet) / 1e9 >= a.timeout)
            break;
        if (pr) {
            rtp_pcap_packet pk;
            const xsf_status s2 = rtp_pcap_next(pr, &pk, &err);
            if (s2 == XSF_ERR_TRUNCATED)
                break; /* end of the file */
            if (s2 == XSF_ERR_AGAIN) {
                rtp_depacketizer_poll(dep, monotonic_ns());
                continue;
            }
            if (s2 != XSF_OK) {
                cli_error(label, "%s", err.msg);
                status = 1;
                break;
            }
            last_packet = monotonic_ns();
            if (plog)
                log_packet(plog, pk.udp_payload, pk.bytes);
            if (pk.truncated)
                rtp_depacketizer_count_truncated(dep);
            else
                rtp_depacketizer_push(dep, pk.udp_payload, pk.bytes,
                                      a.pcap ? pk.arrival_ns : last_packet);
        } else {
            size_t n = 0;
            if (rtp_udp_receive(sock, 50, dg, &n, &err) != XSF_OK) {
                cli_error(label, "%s", err.msg);
                status = 1;
                break;
            }
            if (n)
                last_packet = monotonic_ns();
            for (size_t i = 0; i < n && st->frames_complete < max_frames; i++) {
                if (plog)
                    log_packet(plog, dg[i].data, dg[i].bytes);
                if (dg[i].truncated)
                    rtp_depacketizer_count_truncated(dep);
                else
                    rtp_depacketizer_push(dep, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
            }
            if (!n)
                rtp_depacketizer_poll(dep, realtime_ns()); /* the clock of the kernel's stamps */
        }
        if (!a.quiet && monotonic_ns() - last_report >= 1000000000u) {
            print_stats(st, label, sock ? rtp_udp_kernel_drops(sock) : 0);
            last_report = monotonic_ns();
        }
    }
    if (st->frames_complete < max_frames)
        rtp_depacketizer_flush(dep);
    print_stats(st, label, sock ? rtp_udp_kernel_drops(sock) : 0);
    if (o.failed) {
        cli_error(a.out, "%s", o.msg);
        status = 1;
    }
    if (plog && fclose(plog) && !status) {
        cli_error(a.packets, "write failed");
        status = 1;
    }
    if (o.jxs && o.jxs != stdout && fclose(o.jxs) && !status) {
        cli_error(a.out, "write failed");
        status = 1;
    }
    if (o.w && imgio_writer_close(o.w, &err) != XSF_OK && !status) {
        cli_error(a.out, "%s", err.msg);
        status = 1;
    }
    if (!status && !a.quiet)
        printf("received %llu whole frame%s into %s\n", (unsigned long long)o.written,
               o.written == 1 ? "" : "s", strcmp(a.out, "-") ? a.out : "standard output");
    rtp_depacketizer_destroy(dep);
    xs_decoder_destroy(o.dec);
    rtp_udp_close(sock);
    rtp_pcap_close(pr);
    return status;
}
