/* xsflow node: the decoder service as an AMWA NMOS node (nmos/): IS-04
 * Node API and registration, IS-05 Connection API; each activated receiver
 * becomes a stream of the running pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "nmos.h"
#include "pipeline.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

static const char about[] =
    "Runs an AMWA NMOS node: the IS-04 v1.3 Node API and the IS-05 v1.1 Connection API\n"
    "on http://HOST:PORT/x-nmos/. The node has one JPEG XS receiver (video/jxsv) per\n"
    "decoding slot and one sender per --sender; a controller connects a receiver by\n"
    "PATCHing its staged parameters (with the sender's SDP as transport_file) and\n"
    "activating them: the stream then joins the running decoder, alone, without\n"
    "disturbing the others; deactivating stops it. The node registers with a registry\n"
    "(--registry, or one found through DNS-SD) and sends heartbeats; with --p2p it\n"
    "advertises itself through DNS-SD (_nmos-node._tcp) for peer-to-peer control.\n";

typedef struct node_args {
    nmos_host_config h;
    double duration;
    int quiet;
} node_args;

static int add_sender(void *ctx, const cli_option *o, const char *v)
{
    node_args *a = ctx;
    (void)o;
    if (a->h.node.nsenders == NMOS_MAX_SENDERS) {
        cli_error("--sender", "at most %d senders", NMOS_MAX_SENDERS);
        return 2;
    }
    a->h.sender_sdp[a->h.node.nsenders++] = v;
    return 0;
}

static int add_clip(void *ctx, const cli_option *o, const char *v)
{
    node_args *a = ctx;
    (void)o;
    if (!a->h.node.nsenders || a->h.sender_clip[a->h.node.nsenders - 1]) {
        cli_error("--send", "give the stream's --sender FILE.sdp first (one clip each)");
        return 2;
    }
    a->h.sender_clip[a->h.node.nsenders - 1] = v;
    a->h.node.senders[a->h.node.nsenders - 1].controlled = 1;
    return 0;
}

/* --ptp GMID[:DOMAIN]: the host's clock is locked to this PTP grandmaster. */
static int set_ptp(void *ctx, const cli_option *o, const char *v)
{
    node_args *a = ctx;
    nmos_clock *c = &a->h.node.clock;
    const char *colon = strchr(v, ':');
    const size_t glen = colon ? (size_t)(colon - v) : strlen(v);
    char *end = NULL;
    const unsigned long domain = colon ? strtoul(colon + 1, &end, 10) : 127;
    if (glen != 23 || (colon && (end == colon + 1 || *end || domain > 255))) {
        cli_error(o->name, "'%s': expected GMID[:DOMAIN], e.g. ec-46-70-ff-fe-00-ce-de:127", v);
        return 2;
    }
    c->ptp = 1;
    for (size_t i = 0; i < glen; i++)
        c->gmid[i] = (char)(v[i] >= 'A' && v[i] <= 'F' ? v[i] - 'A' + 'a' : v[i]);
    c->gmid[glen] = 0;
    c->domain = (unsigned)domain;
    return 0;
}

static int parse_args(int argc, char **argv, node_args *a)
{
    memset(a, 0, sizeof *a);
    int port = 8080;
    a->h.node.receivers = 4;
    const cli_option options[] = {
        CLI_OPT("host", 0, CLI_STRING, &a->h.node.host, "ADDR",
                "address to serve and advertise (default 127.0.0.1)"),
        CLI_OPT("port", 0, CLI_INT, &port, "N",
                "HTTP port (default 8080; 0: any free port, printed)", .lo = 0, .hi = 65535),
        CLI_OPT("label", 0, CLI_STRING, &a->h.node.label, "TEXT",
                "the node's label (default xsflow)"),
        CLI_OPT("seed", 0, CLI_STRING, &a->h.node.seed, "TEXT",
                "the ids derive from it (default: host name, address, port)"),
        CLI_OPT("receivers", 0, CLI_INT, &a->h.node.receivers, "N",
                "decoding slots, one receiver each (default 4, at most " CLI_STR(
                    NMOS_MAX_RECEIVERS) ")",
                .lo = 0, .hi = NMOS_MAX_RECEIVERS),
        CLI_OPT("sender", 0, CLI_CALL, NULL, "FILE.sdp",
                "a stream this machine sends (e.g. xsflow send --sdp): a\n"
                "source, flow and sender; repeatable (at most " CLI_STR(NMOS_MAX_SENDERS) ")",
                .call = add_sender),
        CLI_OPT("send", 0, CLI_CALL, NULL, "CLIP.jxs",
                "the node sends the last --sender's stream itself: this\n"
                "clip in a loop, where and when IS-05 activates it (each\n"
                "frame in one burst: no ST 2110-21 pacing)",
                .call = add_clip),
        CLI_OPT("output", 'o', CLI_STRING, &a->h.output, "OUT",
                "where received pictures go: null (default: decode, drop),\n"
                "or a path with %u for the receiver number (from 0), ending\n"
                ".yuv, .y4m or .jxs; each activation starts its file anew"),
        CLI_OPT("pix-fmt", 0, CLI_PIX_FMT, &a->h.pix_fmt, "F",
                "every receiver's pictures in this pixel format, as the\n"
                "decoder writes it (default planar16, as decoded):\n" XSF_CONTAINER_WORDS),
        CLI_OPT("registry", 0, CLI_STRING, &a->h.node.registry_url, "URL",
                "register with this registry (http://HOST:PORT)"),
        CLI_OPT("discover", 0, CLI_FLAG, &a->h.node.discover, NULL,
                "find a registry through DNS-SD (_nmos-register._tcp)"),
        CLI_OPT("domain", 0, CLI_STRING, &a->h.node.dnssd_domain, "NAME",
                "unicast DNS-SD in this domain (default: mDNS, .local)"),
        CLI_OPT("p2p", 0, CLI_FLAG, &a->h.node.p2p, NULL,
                "advertise _nmos-node._tcp (peer-to-peer, no registry)"),
        CLI_OPT("heartbeat", 0, CLI_DOUBLE, &a->h.node.heartbeat_s, "S",
                "seconds between heartbeats (default 5)", .lo = 0, .hi = 1e7,
                .flags = CLI_ABOVE_LO),
        CLI_OPT("ptp", 0, CLI_CALL, NULL, "GMID[:DOMAIN]",
                "the host's clock is locked to this PTP grandmaster (e.g.\n"
                "by linuxptp's phc2sys; domain default 127): IS-04's clock and\n"
                "the senders' a=ts-refclk say so (default: internal, localmac)",
                .call = set_ptp),
        CLI_OPT("ptp-traceable", 0, CLI_FLAG, &a->h.node.clock.traceable, NULL,
                "with --ptp: the grandmaster is traceable to TAI\n"
                "(a=ts-refclk:ptp=IEEE1588-2008:traceable)"),
        CLI_OPT("cpu", 0, CLI_SET, &a->h.pl.engine, NULL, "decode on the CPU",
                .value = PL_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &a->h.pl.engine, NULL,
                "decode on the GPU (default: GPU where usable)", .value = PL_ENGINE_GPU),
        CLI_OPT("threads", 0, CLI_INT, &a->h.pl.cpu_threads, "N",
                "CPU decoder threads (default: one per core)", .lo = 1, .hi = 1024),
        CLI_OPT("duration", 0, CLI_DOUBLE, &a->duration, "S",
                "stop after S seconds (default: at SIGINT or SIGTERM)", .lo = 0, .hi = 1e7,
                .flags = CLI_ABOVE_LO),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL,
                "print only the address, the ids and errors"),
        CLI_TABLE_END};
    const cli_command cmd = {
        .name = "node", .synopsis = "[options]", .about = about, .options = options, .ctx = a};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    a->h.node.port = (uint16_t)port;
    if (a->h.node.clock.traceable && !a->h.node.clock.ptp) {
        cli_error("--ptp-traceable", "give --ptp GMID too");
        return 2;
    }
    if (a->h.node.registry_url && a->h.node.discover) {
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

/* Every 5 s: registration, heartbeats, activations and the receivers' streams. */
static void print_status(const node_args *a, nmos_host *h)
{
    nmos_status st;
    nmos_node_status(nmos_host_node(h), &st);
    fprintf(stderr, "node: %s%s; heartbeats %llu; activations %llu",
            st.registered                                  ? "registered with "
            : a->h.node.registry_url || a->h.node.discover ? "not registered yet"
                                                           : "no registry",
            st.registered ? st.registry : "", (unsigned long long)st.heartbeats,
            (unsigned long long)st.activations);
    for (unsigned i = 0; i < a->h.node.receivers; i++) {
        nmos_stream_info info;
        nmos_service_stream(nmos_host_service(h), i, &info);
        if (info.running)
            fprintf(stderr, "; receiver %u %s: %llu frames", i, info.source,
                    (unsigned long long)info.frames);
    }
    fputc('\n', stderr);
}

int cmd_node(int argc, char **argv)
{
    static node_args a;
    const int pr = parse_args(argc, argv, &a);
    if (pr)
        return pr == 1 ? 0 : pr;
    xsf_error err;
    xsf_error_clear(&err);
    const char *subject = NULL;
    nmos_host *h;
    if (nmos_host_create(&h, &a.h, &subject, &err) != XSF_OK) {
        cli_error(subject, "%s", err.msg);
        return 1;
    }
    nmos_node *node = nmos_host_node(h);
    printf("node %s at %s/x-nmos/ (decoding: %s)\n", nmos_node_id(node), nmos_node_url(node),
           pl_describe(nmos_host_pipeline(h)));
    for (unsigned i = 0; i < a.h.node.receivers; i++)
        printf("receiver %u %s\n", i, nmos_node_receiver_id(node, i));
    for (unsigned i = 0; i < a.h.node.nsenders; i++)
        printf("sender %u %s (%s%s%s)\n", i, nmos_node_sender_id(node, i), a.h.sender_sdp[i],
               a.h.sender_clip[i] ? ", sends " : "", a.h.sender_clip[i] ? a.h.sender_clip[i] : "");
    fflush(stdout);

    cmd_catch_interrupts();
    const uint64_t start = xsf_clock_mono_ns();
    uint64_t last_report = start;
    while (!cmd_interrupted()) {
        xsf_clock_sleep_ns(100 * XSF_NS_PER_MS);
        print_log(node);
        const uint64_t now = xsf_clock_mono_ns();
        if (a.duration > 0 && (double)(now - start) / 1e9 >= a.duration)
            break;
        if (!a.quiet && now - last_report >= 5000000000u) {
            last_report = now;
            print_status(&a, h);
        }
    }
    print_log(node);
    nmos_host_destroy(h);
    return 0;
}
