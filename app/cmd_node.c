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

static int parse_args(int argc, char **argv, node_args *a)
{
    memset(a, 0, sizeof *a);
    nmos_host_config_init(&a->h);
    const cli_option options[] = {CLI_KNOB_TABLE(nmos_host_knobs, &a->h),
                                  CLI_OPT("duration", 0, CLI_DOUBLE, &a->duration, "S",
                                          "stop after S seconds (default: at SIGINT or SIGTERM)",
                                          .lo = 0, .hi = 1e7, .flags = CLI_ABOVE_LO),
                                  CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL,
                                          "print only the address, the ids and errors"),
                                  CLI_TABLE_END};
    const cli_command cmd = {
        .name = "node", .synopsis = "[options]", .about = about, .options = options, .ctx = a};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    const char *subject;
    xsf_error err;
    xsf_error_clear(&err);
    if (nmos_host_config_check(&a->h, &subject, &err) != XSF_OK) {
        cli_error(subject, "%s", err.msg);
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
