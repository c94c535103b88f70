/* xsflow node: the decoder service as an AMWA NMOS node (nmos/): IS-04
 * Node API and registration, IS-05 Connection API; each activated receiver
 * becomes a stream of the running pipeline. */
#define _POSIX_C_SOURCE 200809L /* sigaction, nanosleep */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "nmos.h"
#include "pipeline.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xsflow node [options]\n"
            "\n"
            "Runs an AMWA NMOS node: the IS-04 v1.3 Node API and the IS-05 v1.1 Connection API\n"
            "on http://HOST:PORT/x-nmos/. The node has one JPEG XS receiver (video/jxsv) per\n"
            "decoding slot and one sender per --sender; a controller connects a receiver by\n"
            "PATCHing its staged parameters (with the sender's SDP as transport_file) and\n"
            "activating them: the stream then joins the running decoder, alone, without\n"
            "disturbing the others; deactivating stops it. The node registers with a registry\n"
            "(--registry, or one found through DNS-SD) and sends heartbeats; with --p2p it\n"
            "advertises itself through DNS-SD (_nmos-node._tcp) for peer-to-peer control.\n"
            "\n"
            "options:\n"
            "  --host ADDR           address to serve and advertise (default 127.0.0.1)\n"
            "  --port N              HTTP port (default 8080; 0: any free port, printed)\n"
            "  --label TEXT          the node's label (default xsflow)\n"
            "  --seed TEXT           the ids derive from it (default: host name, address, port)\n"
            "  --receivers N         decoding slots, one receiver each (default 4, at most %d)\n"
            "  --sender FILE.sdp     a stream this machine sends (e.g. xsflow send --sdp): a\n"
            "                        source, flow and sender; repeatable (at most %d)\n"
            "  --send CLIP.jxs       the node sends the last --sender's stream itself: this\n"
            "                        clip in a loop, where and when IS-05 activates it (each\n"
            "                        frame in one burst: no ST 2110-21 pacing)\n"
            "  -o, --output OUT      where received pictures go: null (default: decode, drop),\n"
            "                        or a path with %%u for the receiver number (from 0), ending\n"
            "                        .yuv, .y4m or .jxs; each activation starts its file anew\n"
            "  --registry URL        register with this registry (http://HOST:PORT)\n"
            "  --discover            find a registry through DNS-SD (_nmos-register._tcp)\n"
            "  --domain NAME         unicast DNS-SD in this domain (default: mDNS, .local)\n"
            "  --p2p                 advertise _nmos-node._tcp (peer-to-peer, no registry)\n"
            "  --heartbeat S         seconds between heartbeats (default 5)\n"
            "  --cpu | --gpu         decode on the CPU / on the GPU (default: GPU where usable)\n"
            "  --threads N           CPU decoder threads (default: one per core)\n"
            "  --duration S          stop after S seconds (default: at SIGINT or SIGTERM)\n"
            "  -q, --quiet           print only the address, the ids and errors\n",
            NMOS_MAX_RECEIVERS, NMOS_MAX_SENDERS);
}

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct node_args {
    nmos_config nc;
    const char *sender_paths[NMOS_MAX_SENDERS];
    const char *clip_paths[NMOS_MAX_SENDERS];
    const char *output;
    pl_config pl;
    double duration;
    int quiet;
} node_args;

static int parse_args(int argc, char **argv, node_args *a)
{
    memset(a, 0, sizeof *a);
    a->nc.port = 8080;
    a->nc.receivers = 4;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v = NULL;
        long n;
#define NUMBER(lo, hi)                                                                             \
    do {                                                                                           \
        CLI_VALUE();                                                                                   \
        if (cli_parse_long(v, lo, hi, &n)) {                                                       \
            cli_error(arg, "'%s' is not a number from %ld to %ld", v, (long)(lo), (long)(hi));     \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(arg, "--host")) {
            CLI_VALUE();
            a->nc.host = v;
        } else if (!strcmp(arg, "--port")) {
            NUMBER(0, 65535);
            a->nc.port = (uint16_t)n;
        } else if (!strcmp(arg, "--label")) {
            CLI_VALUE();
            a->nc.label = v;
        } else if (!strcmp(arg, "--seed")) {
            CLI_VALUE();
            a->nc.seed = v;
        } else if (!strcmp(arg, "--receivers")) {
            NUMBER(0, NMOS_MAX_RECEIVERS);
            a->nc.receivers = (unsigned)n;
        } else if (!strcmp(arg, "--sender")) {
            CLI_VALUE();
            if (a->nc.nsenders == NMOS_MAX_SENDERS) {
                cli_error(arg, "at most %d senders", NMOS_MAX_SENDERS);
                return 2;
            }
            a->sender_paths[a->nc.nsenders++] = v;
        } else if (!strcmp(arg, "--send")) {
            CLI_VALUE();
            if (!a->nc.nsenders || a->clip_paths[a->nc.nsenders - 1]) {
                cli_error(arg, "give the stream's --sender FILE.sdp first (one clip each)");
                return 2;
            }
            a->clip_paths[a->nc.nsenders - 1] = v;
            a->nc.senders[a->nc.nsenders - 1].controlled = 1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            CLI_VALUE();
            a->output = v;
        } else if (!strcmp(arg, "--registry")) {
            CLI_VALUE();
            a->nc.registry_url = v;
        } else if (!strcmp(arg, "--discover")) {
            a->nc.discover = 1;
        } else if (!strcmp(arg, "--domain")) {
            CLI_VALUE();
            a->nc.dnssd_domain = v;
        } else if (!strcmp(arg, "--p2p")) {
            a->nc.p2p = 1;
        } else if (!strcmp(arg, "--heartbeat") || !strcmp(arg, "--duration")) {
            CLI_VALUE();
            char *end;
            const double x = strtod(v, &end);
            if (!*v || *end || x <= 0 || x > 1e7) {
                cli_error(arg, "'%s' is not a positive number of seconds", v);
                return 2;
            }
            if (!strcmp(arg, "--heartbeat"))
                a->nc.heartbeat_s = x;
            else
                a->duration = x;
        } else if (!strcmp(arg, "--cpu")) {
            a->pl.engine = PL_ENGINE_CPU;
        } else if (!strcmp(arg, "--gpu")) {
            a->pl.engine = PL_ENGINE_GPU;
        } else if (!strcmp(arg, "--threads")) {
            NUMBER(1, 1024);
            a->pl.cpu_threads = (unsigned)n;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else {
            cli_error(arg, "unknown option of 'xsflow node' (see --help)");
            return 2;
        }
#undef NUMBER
    }
    if (a->nc.registry_url && a->nc.discover) {
        cli_error("--discover", "give --registry URL or --discover, not both");
        return 2;
    }
    return 0;
}

static void print_log(nmos_node *node)
{
    char line[200];
    while (nmos_node_log(node, line, sizeof line))
        fprintf(stderr, "node: %s\n", line);
}

int cmd_node(int argc, char **argv)
{
    node_args a;
    const int pr = parse_args(argc, argv, &a);
    if (pr)
        return pr == 1 ? 0 : pr;
    xsf_error err;
    xsf_error_clear(&err);
    char *sdp_text[NMOS_MAX_SENDERS] = {0};
    pl_pipeline *p = NULL;
    nmos_service *svc = NULL;
    nmos_node *node = NULL;
    int rc = 1;
    for (unsigned i = 0; i < a.nc.nsenders; i++) {
        uint8_t *text;
        size_t len;
        if (imgio_read_file(a.sender_paths[i], &text, &len, &err) != XSF_OK) {
            cli_error(a.sender_paths[i], "%s", err.msg);
            goto out;
        }
        sdp_text[i] = realloc(text, len + 1);
        if (!sdp_text[i]) {
            free(text);
            cli_error(a.sender_paths[i], "out of memory");
            goto out;
        }
        sdp_text[i][len] = 0;
        a.nc.senders[i].sdp = sdp_text[i];
        a.nc.senders[i].label = a.sender_paths[i];
    }

    if (pl_create(&p, &a.pl, &err) != XSF_OK) {
        cli_error("pipeline", "%s", err.msg);
        goto out;
    }
    nmos_service_config sc = {.pipeline = p, .output = a.output};
    if (nmos_service_create(&svc, &sc, &err) != XSF_OK) {
        cli_error("-o", "%s", err.msg);
        goto out;
    }
    for (unsigned i = 0; i < a.nc.nsenders; i++) {
        if (!a.clip_paths[i])
            continue;
        uint8_t *clip;
        size_t len;
        xsf_status st = imgio_read_file(a.clip_paths[i], &clip, &len, &err);
        if (st == XSF_OK) {
            st = nmos_service_add_clip(svc, i, clip, len, &err);
            free(clip);
        }
        if (st != XSF_OK) {
            cli_error(a.clip_paths[i], "%s", err.msg);
            goto out;
        }
    }
    a.nc.activate = nmos_service_activate;
    a.nc.activate_sender = nmos_service_activate_sender;
    a.nc.activate_ctx = svc;
    if (nmos_node_create(&node, &a.nc, &err) != XSF_OK) {
        cli_error("node", "%s", err.msg);
        goto out;
    }
    printf("node %s at %s/x-nmos/ (decoding: %s)\n", nmos_node_id(node), nmos_node_url(node),
           pl_describe(p));
    for (unsigned i = 0; i < a.nc.receivers; i++)
        printf("receiver %u %s\n", i, nmos_node_receiver_id(node, i));
    for (unsigned i = 0; i < a.nc.nsenders; i++)
        printf("sender %u %s (%s%s%s)\n", i, nmos_node_sender_id(node, i), a.sender_paths[i],
               a.clip_paths[i] ? ", sends " : "", a.clip_paths[i] ? a.clip_paths[i] : "");
    fflush(stdout);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const uint64_t start = pl_now_ns();
    uint64_t last_report = start;
    while (!interrupted) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        print_log(node);
        const uint64_t now = pl_now_ns();
        if (a.duration > 0 && (double)(now - start) / 1e9 >= a.duration)
            break;
        if (!a.quiet && now - last_report >= 5000000000u) {
            last_report = now;
            nmos_status st;
            nmos_node_status(node, &st);
            fprintf(stderr, "node: %s%s; heartbeats %llu; activations %llu",
                    st.registered                        ? "registered with "
                    : a.nc.registry_url || a.nc.discover ? "not registered yet"
                                                         : "no registry",
                    st.registered ? st.registry : "", (unsigned long long)st.heartbeats,
                    (unsigned long long)st.activations);
            for (unsigned i = 0; i < a.nc.receivers; i++) {
                nmos_stream_info info;
                nmos_service_stream(svc, i, &info);
                if (info.running)
                    fprintf(stderr, "; receiver %u %s: %llu frames", i, info.source,
                            (unsigned long long)info.frames);
            }
            fputc('\n', stderr);
        }
    }
    rc = 0;
out:
    if (node)
        print_log(node);
    nmos_node_destroy(node); /* no more activations: then the streams stop */
    nmos_service_destroy(svc);
    pl_destroy(p);
    for (unsigned i = 0; i < NMOS_MAX_SENDERS; i++)
        free(sdp_text[i]);
    return rc;
}
