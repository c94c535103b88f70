/* IS-04 v1.3 resources as JSON (the Node API's bodies and what is
 * registered): node, device, and per sender a source and a flow (BCP-006-01:
 * video/jxsv with its profile, level, sublevel and components), senders and
 * receivers. The caller holds the node's lock. */
#include <stdio.h>
#include <string.h>

#include "nmos_internal.h"

static cJSON *base(const char *id, const char *version, const char *label, const char *desc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "version", version);
    cJSON_AddStringToObject(o, "label", label);
    cJSON_AddStringToObject(o, "description", desc);
    cJSON_AddItemToObject(o, "tags", cJSON_CreateObject());
    return o;
}

static cJSON *strings(const char *a)
{
    cJSON *arr = cJSON_CreateArray();
    if (a)
        cJSON_AddItemToArray(arr, cJSON_CreateString(a));
    return arr;
}

/* IS-04: one interface per leg, listed again when legs share one. */
static cJSON *bindings(const nmos_node *n, const nmos_port *p)
{
    cJSON *arr = cJSON_CreateArray();
    for (unsigned k = 0; k < p->legs; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(n->ifname));
    return arr;
}

cJSON *nmos_json_self(nmos_node *n)
{
    cJSON *o = base(n->node_id, n->node_version, n->label, "xsflow JPEG XS decoder service");
    char href[160];
    snprintf(href, sizeof href, "%s/", n->url);
    cJSON_AddStringToObject(o, "href", href);
    cJSON_AddStringToObject(o, "hostname", n->hostname);
    cJSON *api = cJSON_AddObjectToObject(o, "api");
    cJSON_AddItemToObject(api, "versions", strings("v1.3"));
    cJSON *eps = cJSON_AddArrayToObject(api, "endpoints");
    cJSON *ep = cJSON_CreateObject();
    cJSON_AddStringToObject(ep, "host", n->host);
    cJSON_AddNumberToObject(ep, "port", n->port);
    cJSON_AddStringToObject(ep, "protocol", "http");
    cJSON_AddBoolToObject(ep, "authorization", 0);
    cJSON_AddItemToArray(eps, ep);
    cJSON_AddItemToObject(o, "caps", cJSON_CreateObject());
    cJSON_AddItemToObject(o, "services", cJSON_CreateArray());
    cJSON *clocks = cJSON_AddArrayToObject(o, "clocks");
    cJSON *clk = cJSON_CreateObject();
    cJSON_AddStringToObject(clk, "name", "clk0");
    const nmos_clock *c = &n->cfg.clock;
    cJSON_AddStringToObject(clk, "ref_type", c->ptp ? "ptp" : "internal");
    if (c->ptp) {
        /* IS-04 clock_ptp: the host's clock is declared locked to it. */
        cJSON_AddBoolToObject(clk, "traceable", c->traceable);
        cJSON_AddStringToObject(clk, "version", "IEEE1588-2008");
        cJSON_AddStringToObject(clk, "gmid", c->gmid);
        cJSON_AddBoolToObject(clk, "locked", 1);
    }
    cJSON_AddItemToArray(clocks, clk);
    cJSON *ifs = cJSON_AddArrayToObject(o, "interfaces");
    cJSON *itf = cJSON_CreateObject();
    cJSON_AddNullToObject(itf, "chassis_id");
    cJSON_AddStringToObject(itf, "port_id", n->port_id);
    cJSON_AddStringToObject(itf, "name", n->ifname);
    cJSON_AddItemToArray(ifs, itf);
    return o;
}

cJSON *nmos_json_device(nmos_node *n)
{
    cJSON *o = base(n->device_id, n->device_version, n->label, "JPEG XS receivers and senders");
    cJSON_AddStringToObject(o, "type", "urn:x-nmos:device:generic");
    cJSON_AddStringToObject(o, "node_id", n->node_id);
    cJSON *tx = cJSON_AddArrayToObject(o, "senders");
    for (unsigned i = 0; i < n->ntx; i++)
        cJSON_AddItemToArray(tx, cJSON_CreateString(n->tx[i].id));
    cJSON *rx = cJSON_AddArrayToObject(o, "receivers");
    for (unsigned i = 0; i < n->nrx; i++)
        cJSON_AddItemToArray(rx, cJSON_CreateString(n->rx[i].id));
    cJSON *controls = cJSON_AddArrayToObject(o, "controls");
    cJSON *c = cJSON_CreateObject();
    char href[200];
    snprintf(href, sizeof href, "%s/x-nmos/connection/v1.1/", n->url);
    cJSON_AddStringToObject(c, "href", href);
    cJSON_AddStringToObject(c, "type", "urn:x-nmos:control:sr-ctrl/v1.1");
    cJSON_AddBoolToObject(c, "authorization", 0);
    cJSON_AddItemToArray(controls, c);
    return o;
}

static cJSON *rational(unsigned num, unsigned den)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "numerator", num);
    cJSON_AddNumberToObject(r, "denominator", den ? den : 1);
    return r;
}

cJSON *nmos_json_source(nmos_node *n, const nmos_port *tx)
{
    cJSON *o = base(tx->source_id, tx->version, tx->label, "JPEG XS video");
    cJSON_AddItemToObject(o, "caps", cJSON_CreateObject());
    cJSON_AddStringToObject(o, "device_id", n->device_id);
    cJSON_AddItemToObject(o, "parents", cJSON_CreateArray());
    cJSON_AddStringToObject(o, "clock_name", "clk0");
    cJSON_AddStringToObject(o, "format", "urn:x-nmos:format:video");
    if (tx->sdp_legs.leg[0].rate_num)
        cJSON_AddItemToObject(o, "grain_rate",
                              rational(tx->sdp_legs.leg[0].rate_num, tx->sdp_legs.leg[0].rate_den));
    return o;
}

/* The components of a sampling (RFC 9134 7.1 / ST 2110-20 names). */
static void add_components(cJSON *o, const rtp_sdp *s)
{
    const unsigned w = s->width, h = s->height, d = s->depth;
    const char *names[4] = {"Y", "Cb", "Cr", NULL};
    unsigned cw = w, ch = h, nc = 3;
    if (!strncmp(s->sampling, "YCbCr-4:2:2", 11)) {
        cw = (w + 1) / 2;
    } else if (!strncmp(s->sampling, "YCbCr-4:2:0", 11)) {
        cw = (w + 1) / 2;
        ch = (h + 1) / 2;
    } else if (!strcmp(s->sampling, "RGB")) {
        names[0] = "R";
        names[1] = "G";
        names[2] = "B";
    } else if (!strcmp(s->sampling, "YCbCr-4:4:4")) {
        /* full size */
    } else {
        return; /* unknown: no components rather than wrong ones */
    }
    cJSON *arr = cJSON_AddArrayToObject(o, "components");
    for (unsigned c = 0; c < nc; c++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", names[c]);
        cJSON_AddNumberToObject(e, "width", c ? cw : w);
        cJSON_AddNumberToObject(e, "height", c ? ch : h);
        cJSON_AddNumberToObject(e, "bit_depth", d);
        cJSON_AddItemToArray(arr, e);
    }
}

cJSON *nmos_json_flow(nmos_node *n, const nmos_port *tx)
{
    const rtp_sdp *s = &tx->sdp_legs.leg[0];
    cJSON *o = base(tx->flow_id, tx->version, tx->label, "JPEG XS (RFC 9134) flow");
    cJSON_AddStringToObject(o, "source_id", tx->source_id);
    cJSON_AddStringToObject(o, "device_id", n->device_id);
    cJSON_AddItemToObject(o, "parents", cJSON_CreateArray());
    cJSON_AddStringToObject(o, "format", "urn:x-nmos:format:video");
    cJSON_AddStringToObject(o, "media_type", "video/jxsv");
    if (s->rate_num)
        cJSON_AddItemToObject(o, "grain_rate", rational(s->rate_num, s->rate_den));
    cJSON_AddNumberToObject(o, "frame_width", s->width);
    cJSON_AddNumberToObject(o, "frame_height", s->height);
    cJSON_AddStringToObject(o, "interlace_mode",
                            !s->interlace  ? "progressive"
                            : s->segmented ? "interlaced_psf"
                                           : "interlaced_tff");
    cJSON_AddStringToObject(o, "colorspace", s->colorimetry[0] ? s->colorimetry : "BT709");
    cJSON_AddStringToObject(o, "transfer_characteristic", s->tcs[0] ? s->tcs : "SDR");
    add_components(o, s);
    /* BCP-006-01: omitted when Unrestricted. */
    if (s->profile[0] && strcmp(s->profile, "Unrestricted"))
        cJSON_AddStringToObject(o, "profile", s->profile);
    if (s->level[0] && strcmp(s->level, "Unrestricted"))
        cJSON_AddStringToObject(o, "level", s->level);
    if (s->sublevel[0] && strcmp(s->sublevel, "Unrestricted"))
        cJSON_AddStringToObject(o, "sublevel", s->sublevel);
    /* BCP-006-01: the codestream's target rate in kbit/s. The SDP's b=AS is
     * what is known of it (xsflow send: the largest codestream at the
     * frame rate, an upper bound). */
    if (s->max_bitrate_kbps)
        cJSON_AddNumberToObject(o, "bit_rate", (double)s->max_bitrate_kbps);
    return o;
}

static int is_multicast_text(const char *ip)
{
    rtp_addr a;
    xsf_error e;
    return ip && rtp_addr_parse(ip, 0, &a, &e) == XSF_OK && rtp_addr_is_multicast(&a);
}

/* IS-04 v1.3 subscription: the peer IS-05 names, null unless active (a
 * parked sender or receiver subscribes to nothing, whatever IS-05 keeps). */
static void add_subscription(cJSON *o, const cJSON *active, const char *peer_key)
{
    cJSON *sub = cJSON_AddObjectToObject(o, "subscription");
    const int on = cJSON_IsTrue(cJSON_GetObjectItem(active, "master_enable"));
    const cJSON *peer = cJSON_GetObjectItem(active, peer_key);
    if (on && cJSON_IsString(peer))
        cJSON_AddStringToObject(sub, peer_key, peer->valuestring);
    else
        cJSON_AddNullToObject(sub, peer_key);
    cJSON_AddBoolToObject(sub, "active", on);
}

cJSON *nmos_json_sender(nmos_node *n, const nmos_port *tx)
{
    cJSON *o = base(tx->id, tx->version, tx->label, "JPEG XS sender (RFC 9134, ST 2110-22)");
    cJSON_AddStringToObject(o, "flow_id", tx->flow_id);
    const cJSON *params =
        cJSON_GetArrayItem(cJSON_GetObjectItem(tx->active, "transport_params"), 0);
    const cJSON *dst = cJSON_GetObjectItem(params, "destination_ip");
    const char *dip = cJSON_IsString(dst) ? dst->valuestring : tx->sdp_legs.leg[0].dest_addr;
    cJSON_AddStringToObject(o, "transport",
                            is_multicast_text(dip) ? "urn:x-nmos:transport:rtp.mcast"
                                                   : "urn:x-nmos:transport:rtp.ucast");
    cJSON_AddStringToObject(o, "device_id", n->device_id);
    char href[256];
    snprintf(href, sizeof href, "%s/x-nmos/connection/v1.1/single/senders/%s/transportfile", n->url,
             tx->id);
    cJSON_AddStringToObject(o, "manifest_href", href);
    cJSON_AddItemToObject(o, "interface_bindings", bindings(n, tx));
    add_subscription(o, tx->active, "receiver_id");
    if (tx->sdp_legs.leg[0].max_bitrate_kbps)
        cJSON_AddNumberToObject(o, "bit_rate", (double)tx->sdp_legs.leg[0].max_bitrate_kbps);
    /* ST 2110-21 sender types as the SDP's TP names them. */
    if (!strcmp(tx->sdp_legs.leg[0].tp, "2110TPN") || !strcmp(tx->sdp_legs.leg[0].tp, "2110TPNL") ||
        !strcmp(tx->sdp_legs.leg[0].tp, "2110TPW"))
        cJSON_AddStringToObject(o, "st2110_21_sender_type", tx->sdp_legs.leg[0].tp);
    return o;
}

cJSON *nmos_json_receiver(nmos_node *n, const nmos_port *rx)
{
    cJSON *o = base(rx->id, rx->version, rx->label, "JPEG XS decoding slot (RFC 9134, ST 2110-22)");
    cJSON_AddStringToObject(o, "device_id", n->device_id);
    /* Unicast or multicast: the generic RTP transport. */
    cJSON_AddStringToObject(o, "transport", "urn:x-nmos:transport:rtp");
    cJSON_AddItemToObject(o, "interface_bindings", bindings(n, rx));
    add_subscription(o, rx->active, "sender_id");
    cJSON_AddStringToObject(o, "format", "urn:x-nmos:format:video");
    cJSON *caps = cJSON_AddObjectToObject(o, "caps");
    cJSON_AddItemToObject(caps, "media_types", strings("video/jxsv"));
    /* BCP-004-01 constraints: both packetization modes of RFC 9134 are depacketized. */
    cJSON *sets = cJSON_AddArrayToObject(caps, "constraint_sets");
    cJSON *set = cJSON_CreateObject();
    cJSON_AddStringToObject(set, "urn:x-nmos:cap:meta:label", "JPEG XS, codestream or slice mode");
    cJSON *ptm = cJSON_AddObjectToObject(set, "urn:x-nmos:cap:transport:packet_transmission_mode");
    cJSON *e = cJSON_AddArrayToObject(ptm, "enum");
    cJSON_AddItemToArray(e, cJSON_CreateString("codestream"));
    cJSON_AddItemToArray(e, cJSON_CreateString("slice_sequential"));
    cJSON_AddItemToArray(e, cJSON_CreateString("slice_out_of_order"));
    cJSON_AddItemToArray(sets, set);
    cJSON_AddStringToObject(caps, "version", n->device_version); /* caps never change */
    return o;
}
