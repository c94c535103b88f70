/* The command line of a node set up from files (nmos.h, nmos_host_knobs): its
 * knobs, defaults and checks, as `xsflow node` takes them. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nmos.h"

void nmos_host_config_init(nmos_host_config *c)
{
    memset(c, 0, sizeof *c);
    c->node.port = 8080;
    c->node.receivers = 4;
}

/* --sender FILE.sdp: one more sender. */
static xsf_status add_sender(void *obj, const char *v, xsf_error *err)
{
    nmos_host_config *c = obj;
    if (c->node.nsenders == NMOS_MAX_SENDERS)
        return xsf_error_set(err, XSF_ERR_ARG, "at most %d senders", NMOS_MAX_SENDERS);
    c->sender_sdp[c->node.nsenders++] = v;
    return XSF_OK;
}

/* --send CLIP.jxs: the last sender's clip, which the node sends itself. */
static xsf_status add_clip(void *obj, const char *v, xsf_error *err)
{
    nmos_host_config *c = obj;
    if (!c->node.nsenders || c->sender_clip[c->node.nsenders - 1])
        return xsf_error_set(err, XSF_ERR_ARG,
                             "give the stream's --sender FILE.sdp first (one clip each)");
    c->sender_clip[c->node.nsenders - 1] = v;
    c->node.senders[c->node.nsenders - 1].controlled = 1;
    return XSF_OK;
}

/* --ptp GMID[:DOMAIN]: the host's clock is locked to this PTP grandmaster. */
static xsf_status set_ptp(void *obj, const char *v, xsf_error *err)
{
    nmos_clock *c = &((nmos_host_config *)obj)->node.clock;
    const char *colon = strchr(v, ':');
    const size_t glen = colon ? (size_t)(colon - v) : strlen(v);
    char *end = NULL;
    const unsigned long domain = colon ? strtoul(colon + 1, &end, 10) : 127;
    if (glen != 23 || (colon && (end == colon + 1 || *end || domain > 255)))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "'%s': expected GMID[:DOMAIN], e.g. ec-46-70-ff-fe-00-ce-de:127", v);
    c->ptp = 1;
    for (size_t i = 0; i < glen; i++)
        c->gmid[i] = (char)(v[i] >= 'A' && v[i] <= 'F' ? v[i] - 'A' + 'a' : v[i]);
    c->gmid[glen] = 0;
    c->domain = (unsigned)domain;
    return XSF_OK;
}

/* --pix-fmt F: every receiver's pictures in this pixel format. */
static xsf_status set_pix_fmt(void *obj, const char *v, xsf_error *err)
{
    return xsf_container_parse(v, &((nmos_host_config *)obj)->pix_fmt, err);
}

#define AT(field) offsetof(nmos_host_config, field)
#define STR_(x) #x
#define STR(x) STR_(x)

const xsf_option nmos_host_knobs[] = {
    XSF_OPTION("host", XSF_OPTION_STRING, AT(node.host), "ADDR",
               "address to serve and advertise (default 127.0.0.1)"),
    XSF_OPTION("port", XSF_OPTION_UINT, AT(node.port), "N",
               "HTTP port (default 8080; 0: any free port, printed)", .lo = 0, .hi = 65535,
               .size = 2),
    XSF_OPTION("label", XSF_OPTION_STRING, AT(node.label), "TEXT",
               "the node's label (default xsflow)"),
    XSF_OPTION("seed", XSF_OPTION_STRING, AT(node.seed), "TEXT",
               "the ids derive from it (default: host name, address, port)"),
    XSF_OPTION("receivers", XSF_OPTION_UINT, AT(node.receivers), "N",
               "decoding slots, one receiver each (default 4, at most " STR(NMOS_MAX_RECEIVERS) ")",
               .lo = 0, .hi = NMOS_MAX_RECEIVERS),
    XSF_OPTION("sender", XSF_OPTION_CALL, AT(sender_sdp), "FILE.sdp",
               "a stream this machine sends (e.g. xsflow send --sdp): a\n"
               "source, flow and sender; repeatable (at most " STR(NMOS_MAX_SENDERS) ")",
               .parse = add_sender),
    XSF_OPTION("send", XSF_OPTION_CALL, AT(sender_clip), "CLIP.jxs",
               "the node sends the last --sender's stream itself: this\n"
               "clip in a loop, where and when IS-05 activates it (each\n"
               "frame in one burst: no ST 2110-21 pacing)",
               .parse = add_clip),
    XSF_OPTION("output", XSF_OPTION_STRING, AT(output), "OUT",
               "where received pictures go: null (default: decode, drop),\n"
               "or a path with %u for the receiver number (from 0), ending\n"
               ".yuv, .y4m or .jxs; each activation starts its file anew",
               .short_name = 'o'),
    XSF_OPTION("pix-fmt", XSF_OPTION_CALL, AT(pix_fmt), "F",
               "every receiver's pictures in this pixel format, as the\n"
               "decoder writes it (default planar16, as decoded):\n" XSF_CONTAINER_WORDS,
               .parse = set_pix_fmt),
    XSF_OPTION("registry", XSF_OPTION_STRING, AT(node.registry_url), "URL",
               "register with this registry (http://HOST:PORT)"),
    XSF_OPTION("discover", XSF_OPTION_FLAG, AT(node.discover), NULL,
               "find a registry through DNS-SD (_nmos-register._tcp)"),
    XSF_OPTION("domain", XSF_OPTION_STRING, AT(node.dnssd_domain), "NAME",
               "unicast DNS-SD in this domain (default: mDNS, .local)"),
    XSF_OPTION("p2p", XSF_OPTION_FLAG, AT(node.p2p), NULL,
               "advertise _nmos-node._tcp (peer-to-peer, no registry)"),
    XSF_OPTION("heartbeat", XSF_OPTION_DOUBLE, AT(node.heartbeat_s), "S",
               "seconds between heartbeats (default 5)", .lo = 0, .hi = 1e7,
               .flags = XSF_OPTION_ABOVE_LO),
    XSF_OPTION("ptp", XSF_OPTION_CALL, AT(node.clock), "GMID[:DOMAIN]",
               "the host's clock is locked to this PTP grandmaster (e.g.\n"
               "by linuxptp's phc2sys; domain default 127): IS-04's clock and\n"
               "the senders' a=ts-refclk say so (default: internal, localmac)",
               .parse = set_ptp),
    XSF_OPTION("ptp-traceable", XSF_OPTION_FLAG, AT(node.clock.traceable), NULL,
               "with --ptp: the grandmaster is traceable to TAI\n"
               "(a=ts-refclk:ptp=IEEE1588-2008:traceable)"),
    XSF_OPTION("cpu", XSF_OPTION_SET, AT(pl.engine), NULL, "decode on the CPU",
               .value = PL_ENGINE_CPU),
    XSF_OPTION("gpu", XSF_OPTION_SET, AT(pl.engine), NULL,
               "decode on the GPU (default: GPU where usable)", .value = PL_ENGINE_GPU),
    XSF_OPTION("threads", XSF_OPTION_INT, AT(pl.cpu_threads), "N",
               "CPU decoder threads (default: one per core)", .lo = 1, .hi = 1024),
    XSF_OPTION_TABLE_END};

xsf_status nmos_host_config_check(const nmos_host_config *c, const char **subject, xsf_error *err)
{
    *subject = "--ptp-traceable";
    if (c->node.clock.traceable && !c->node.clock.ptp)
        return xsf_error_set(err, XSF_ERR_ARG, "give --ptp GMID too");
    *subject = "--discover";
    if (c->node.registry_url && c->node.discover)
        return xsf_error_set(err, XSF_ERR_ARG, "give --registry URL or --discover, not both");
    *subject = NULL;
    return XSF_OK;
}
