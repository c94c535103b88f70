/* IS-05 v1.1 Connection API: per sender and receiver a staged and an
 * active set of parameters (one set per RTP leg: two for ST 2022-7, see
 * NMOS_LEGS), immediate and scheduled activation, transport files (SDP, with
 * a=group:DUP for two legs) in (receivers) and out (senders); the
 * bulk endpoints (connection_api.c) apply several PATCHes in one request.
 * The caller holds the node's lock throughout; an activation calls the
 * service's activate() or activate_sender() under it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nmos_internal.h"

static const char *const rx_params[] = {"source_ip", "multicast_ip", "interface_ip",
                                        "destination_port", "rtp_enabled"};
static const char *const tx_params[] = {"source_ip", "destination_ip", "source_port",
                                        "destination_port", "rtp_enabled"};
#define NPARAMS 5

static cJSON *null_activation(void)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNullToObject(a, "mode");
    cJSON_AddNullToObject(a, "requested_time");
    cJSON_AddNullToObject(a, "activation_time");
    return a;
}

static void set_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItem(o, key))
        cJSON_ReplaceItemInObject(o, key, v);
    else
        cJSON_AddItemToObject(o, key, v);
}

static cJSON *leg(const cJSON *o, unsigned k)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(o, "transport_params"), (int)k);
}

/* A sender's configured stream for leg k: its SDP's leg k, else its first. */
static const rtp_sdp *configured(const nmos_port *p, unsigned k)
{
    return &p->sdp_legs.leg[k < p->sdp_legs.count ? k : 0];
}

static int ip_text(const char *s)
{
    rtp_addr a;
    xsf_error e;
    return s && rtp_addr_parse(s, 0, &a, &e) == XSF_OK;
}

void nmos_connection_init(nmos_node *n, nmos_port *p)
{
    cJSON *s = cJSON_CreateObject();
    if (p->sender) {
        cJSON_AddNullToObject(s, "receiver_id");
        cJSON_AddBoolToObject(s, "master_enable", !p->controlled);
    } else {
        cJSON_AddNullToObject(s, "sender_id");
        cJSON_AddBoolToObject(s, "master_enable", 0);
    }
    cJSON_AddItemToObject(s, "activation", null_activation());
    if (!p->sender) {
        cJSON *tf = cJSON_AddObjectToObject(s, "transport_file");
        cJSON_AddNullToObject(tf, "data");
        cJSON_AddNullToObject(tf, "type");
    }
    cJSON *arr = cJSON_AddArrayToObject(s, "transport_params");
    for (unsigned k = 0; k < p->legs; k++) {
        cJSON *tp = cJSON_CreateObject();
        if (p->sender) {
            for (int i = 0; i < 4; i++)
                cJSON_AddStringToObject(tp, tx_params[i], "auto");
        } else {
            cJSON_AddNullToObject(tp, "source_ip");
            cJSON_AddNullToObject(tp, "multicast_ip");
            cJSON_AddStringToObject(tp, "interface_ip", "auto");
            cJSON_AddStringToObject(tp, "destination_port", "auto");
        }
        cJSON_AddBoolToObject(tp, "rtp_enabled", 1);
        cJSON_AddItemToArray(arr, tp);
    }
    p->staged = s;
    /* Active: what runs now. A sender sends its configured stream. */
    p->active = cJSON_Duplicate(s, 1);
    for (unsigned k = 0; k < p->legs; k++) {
        cJSON *al = leg(p->active, k);
        if (p->sender) {
            const rtp_sdp *d = configured(p, k);
            set_item(al, "source_ip",
                     cJSON_CreateString(d->origin_addr[0] ? d->origin_addr : n->host));
            set_item(al, "destination_ip", cJSON_CreateString(d->dest_addr));
            set_item(al, "source_port", cJSON_CreateNumber(5004));
            set_item(al, "destination_port", cJSON_CreateNumber(d->port));
        } else {
            set_item(al, "interface_ip", cJSON_CreateString(n->host));
            set_item(al, "destination_port", cJSON_CreateNumber(5004));
        }
    }
}

nmos_port *nmos_find_port(nmos_node *n, int sender, const char *id)
{
    nmos_port *ports = sender ? n->tx : n->rx;
    const unsigned count = sender ? n->ntx : n->nrx;
    for (unsigned i = 0; i < count; i++)
        if (!strcmp(ports[i].id, id))
            return &ports[i];
    return NULL;
}

cJSON *nmos_constraints(nmos_node *n, const nmos_port *p)
{
    cJSON *arr = cJSON_CreateArray();
    const char *const *names = p->sender ? tx_params : rx_params;
    for (unsigned l = 0; l < p->legs; l++) {
        cJSON *c = cJSON_CreateObject();
        for (int i = 0; i < NPARAMS; i++) {
            cJSON *k = cJSON_AddObjectToObject(c, names[i]);
            /* The node sends and receives on the interface of its address only
             * (both legs: one interface, listed twice in interface_bindings). */
            if ((p->sender && !strcmp(names[i], "source_ip")) ||
                (!p->sender && !strcmp(names[i], "interface_ip"))) {
                cJSON *e = cJSON_AddArrayToObject(k, "enum");
                cJSON_AddItemToArray(e, cJSON_CreateString(n->host));
            }
        }
        cJSON_AddItemToArray(arr, c);
    }
    return arr;
}

/* ---- validating a PATCH (the IS-05 v1.1 schemas, and the constraints) ---- */

static int check_leg(nmos_node *n, const nmos_port *p, unsigned leg_index, const cJSON *l,
                     char *why, size_t cap)
{
    if (!cJSON_IsObject(l))
        return snprintf(why, cap, "transport_params[%u]: expected an object", leg_index), -1;
    const char *const *names = p->sender ? tx_params : rx_params;
    const cJSON *it;
    cJSON_ArrayForEach(it, l)
    {
        int k = -1;
        for (int i = 0; i < NPARAMS; i++)
            if (!strcmp(it->string, names[i]))
                k = i;
        if (k < 0)
            return snprintf(why, cap, "transport_params[%u]: unknown parameter '%s'", leg_index,
                            it->string),
                   -1;
        const char *name = names[k];
        if (!strcmp(name, "rtp_enabled")) {
            if (!cJSON_IsBool(it))
                return snprintf(why, cap, "rtp_enabled: expected true or false"), -1;
        } else if (strstr(name, "port")) {
            if (cJSON_IsString(it) && !strcmp(it->valuestring, "auto"))
                continue;
            if (!cJSON_IsNumber(it) || it->valuedouble != (double)(int)it->valuedouble ||
                it->valueint < 1 || it->valueint > 65535)
                return snprintf(why, cap, "%s: expected a port 1..65535 or \"auto\"", name), -1;
        } else {
            const int nullable = !p->sender && strcmp(name, "interface_ip");
            const int autoable = p->sender || !strcmp(name, "interface_ip");
            if (cJSON_IsNull(it) && nullable)
                continue;
            if (cJSON_IsString(it) && autoable && !strcmp(it->valuestring, "auto"))
                continue;
            if (!cJSON_IsString(it) || !ip_text(it->valuestring))
                return snprintf(why, cap, "%s: expected an IP address%s%s", name,
                                nullable ? ", null" : "", autoable ? " or \"auto\"" : ""),
                       -1;
            const int enumerated = (p->sender && !strcmp(name, "source_ip")) ||
                                   (!p->sender && !strcmp(name, "interface_ip"));
            if (enumerated && strcmp(it->valuestring, n->host))
                return snprintf(why, cap, "%s: %s is not this node's address (%s)", name,
                                it->valuestring, n->host),
                       -1;
        }
    }
    return 0;
}

static int check_patch(nmos_node *n, const nmos_port *p, const cJSON *b, char *why, size_t cap)
{
    if (!cJSON_IsObject(b))
        return snprintf(why, cap, "expected a JSON object"), -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, b)
    {
        const char *k = it->string;
        if (!strcmp(k, p->sender ? "receiver_id" : "sender_id")) {
            if (!cJSON_IsNull(it) && !(cJSON_IsString(it) && nmos_is_uuid(it->valuestring)))
                return snprintf(why, cap, "%s: expected a UUID or null", k), -1;
        } else if (!strcmp(k, "master_enable")) {
            if (!cJSON_IsBool(it))
                return snprintf(why, cap, "master_enable: expected true or false"), -1;
        } else if (!strcmp(k, "activation")) {
            if (!cJSON_IsObject(it))
                return snprintf(why, cap, "activation: expected an object"), -1;
            const cJSON *a;
            cJSON_ArrayForEach(a, it)
            {
                if (!strcmp(a->string, "mode")) {
                    if (!cJSON_IsNull(a) &&
                        !(cJSON_IsString(a) &&
                          (!strcmp(a->valuestring, "activate_immediate") ||
                           !strcmp(a->valuestring, "activate_scheduled_absolute") ||
                           !strcmp(a->valuestring, "activate_scheduled_relative"))))
                        return snprintf(why, cap,
                                        "activation.mode: expected null, "
                                        "activate_immediate, activate_scheduled_absolute "
                                        "or activate_scheduled_relative"),
                               -1;
                } else if (!strcmp(a->string, "requested_time")) {
                    uint64_t t;
                    if (!cJSON_IsNull(a) &&
                        !(cJSON_IsString(a) && nmos_parse_time(a->valuestring, &t) == 0))
                        return snprintf(why, cap,
                                        "activation.requested_time: expected "
                                        "\"seconds:nanoseconds\" or null"),
                               -1;
                } else {
                    return snprintf(why, cap, "activation: unknown member '%s'", a->string), -1;
                }
            }
        } else if (!strcmp(k, "transport_file") && !p->sender) {
            if (!cJSON_IsObject(it))
                return snprintf(why, cap, "transport_file: expected an object"), -1;
            const cJSON *a;
            cJSON_ArrayForEach(a, it)
            {
                if (strcmp(a->string, "data") && strcmp(a->string, "type"))
                    return snprintf(why, cap, "transport_file: unknown member '%s'", a->string), -1;
                if (!cJSON_IsNull(a) && !cJSON_IsString(a))
                    return snprintf(why, cap, "transport_file.%s: expected a string or null",
                                    a->string),
                           -1;
            }
            const cJSON *data = cJSON_GetObjectItem(it, "data");
            const cJSON *type = cJSON_GetObjectItem(it, "type");
            if (cJSON_IsString(data) &&
                !(cJSON_IsString(type) && !strcmp(type->valuestring, "application/sdp")))
                return snprintf(why, cap, "transport_file.type: only application/sdp is read"), -1;
        } else if (!strcmp(k, "transport_params")) {
            /* IS-05: as many legs as the constraints, {} for a leg left as it is. */
            if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != (int)p->legs)
                return snprintf(why, cap,
                                "transport_params: expected an array of %u leg%s (one per "
                                "leg, {} for one left as it is)",
                                p->legs, p->legs == 1 ? "" : "s"),
                       -1;
            for (unsigned g = 0; g < p->legs; g++)
                if (check_leg(n, p, g, cJSON_GetArrayItem(it, (int)g), why, cap))
                    return -1;
        } else {
            return snprintf(why, cap, "unknown member '%s'", k), -1;
        }
    }
    return 0;
}

/* ---- staging ---- */

/* The transport parameters an SDP gives (IS-05: the transport file is applied
 * first, transport_params after it): one leg per stream of its a=group:DUP (or
 * its one stream); a leg it does not describe is disabled (rtp_enabled false). */
static int stage_sdp(nmos_port *p, const char *text, char *why, size_t cap)
{
    nmos_sdp_legs legs;
    xsf_error e;
    xsf_error_clear(&e);
    const size_t len = strlen(text);
    if (len > NMOS_SDP_MAX)
        return snprintf(why, cap, "transport_file: %zu bytes (at most %d)", len, NMOS_SDP_MAX), -1;
    if (nmos_sdp_legs_parse(text, len, &legs, &e) != XSF_OK)
        return snprintf(why, cap, "transport_file: not a JPEG XS (RFC 9134) SDP: %s", e.msg), -1;
    if (legs.count > p->legs)
        return snprintf(why, cap, "transport_file: %u legs, the receiver has %u", legs.count,
                        p->legs),
               -1;
    for (unsigned k = 0; k < p->legs; k++) {
        cJSON *l = leg(p->staged, k);
        if (k >= legs.count) {
            set_item(l, "rtp_enabled", cJSON_CreateFalse());
            continue;
        }
        const rtp_sdp *s = &legs.leg[k];
        rtp_addr a;
        if (rtp_addr_parse(s->dest_addr, 0, &a, &e) != XSF_OK)
            return snprintf(why, cap, "transport_file: leg %u: c= %s", k + 1, e.msg), -1;
        const int mc = rtp_addr_is_multicast(&a);
        set_item(l, "multicast_ip", mc ? cJSON_CreateString(s->dest_addr) : cJSON_CreateNull());
        set_item(l, "source_ip",
                 s->source_addr[0]                              ? cJSON_CreateString(s->source_addr)
                 : s->origin_addr[0] && ip_text(s->origin_addr) ? cJSON_CreateString(s->origin_addr)
                                                                : cJSON_CreateNull());
        set_item(l, "destination_port", cJSON_CreateNumber(s->port));
        set_item(l, "rtp_enabled", cJSON_CreateTrue());
    }
    return 0;
}

static int is_auto(const cJSON *v)
{
    return cJSON_IsString(v) && !strcmp(v->valuestring, "auto");
}

static void resolve_auto(nmos_node *n, nmos_port *p, cJSON *active)
{
    for (unsigned k = 0; k < p->legs; k++) {
        cJSON *l = leg(active, k);
        if (p->sender) {
            /* A leg the sender's SDP does not describe sends what its first does. */
            const rtp_sdp *d = configured(p, k);
            if (is_auto(cJSON_GetObjectItem(l, "source_ip")))
                set_item(l, "source_ip", cJSON_CreateString(n->host));
            if (is_auto(cJSON_GetObjectItem(l, "destination_ip")))
                set_item(l, "destination_ip", cJSON_CreateString(d->dest_addr));
            if (is_auto(cJSON_GetObjectItem(l, "source_port")))
                set_item(l, "source_port", cJSON_CreateNumber(5004));
            if (is_auto(cJSON_GetObjectItem(l, "destination_port")))
                set_item(l, "destination_port", cJSON_CreateNumber(d->port ? d->port : 5004));
        } else {
            if (is_auto(cJSON_GetObjectItem(l, "interface_ip")))
                set_item(l, "interface_ip", cJSON_CreateString(n->host));
            if (is_auto(cJSON_GetObjectItem(l, "destination_port")))
                set_item(l, "destination_port", cJSON_CreateNumber(5004));
        }
    }
}

static void copy_ip(char *dst, size_t cap, const cJSON *v)
{
    snprintf(dst, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* "239.1.1.1:5004 + 239.2.1.1:5004" for the log: the enabled legs. */
static void legs_text(char *out, size_t cap, const char *const *ip, const unsigned *port,
                      const int *on, unsigned legs)
{
    size_t len = 0;
    out[0] = 0;
    for (unsigned k = 0; k < legs && len < cap; k++)
        if (on[k])
            len +=
                (size_t)snprintf(out + len, cap - len, "%s%s:%u", len ? " + " : "", ip[k], port[k]);
}

/* The receiver's activation for the service: each leg's parameters, and its
 * media description from the transport file with the parameters applied
 * (they win over the file they were staged with). */
static void receiver_activation(const nmos_port *p, const cJSON *na, nmos_activation *a)
{
    memset(a, 0, sizeof *a);
    a->receiver = p->index;
    a->receiver_id = p->id;
    const cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(na, "transport_file"), "data");
    nmos_sdp_legs sdp = {0};
    xsf_error e;
    xsf_error_clear(&e);
    if (cJSON_IsString(data)) {
        a->sdp = data->valuestring;
        if (nmos_sdp_legs_parse(a->sdp, strlen(a->sdp), &sdp, &e) != XSF_OK)
            sdp.count = 0;
    }
    int any = 0;
    for (unsigned k = 0; k < p->legs; k++) {
        const cJSON *l = leg(na, k);
        nmos_rx_leg *g = &a->leg[k];
        g->enable = cJSON_IsTrue(cJSON_GetObjectItem(l, "rtp_enabled"));
        any |= g->enable;
        copy_ip(g->multicast_ip, sizeof g->multicast_ip, cJSON_GetObjectItem(l, "multicast_ip"));
        copy_ip(g->source_ip, sizeof g->source_ip, cJSON_GetObjectItem(l, "source_ip"));
        copy_ip(g->interface_ip, sizeof g->interface_ip, cJSON_GetObjectItem(l, "interface_ip"));
        const cJSON *port = cJSON_GetObjectItem(l, "destination_port");
        g->destination_port = cJSON_IsNumber(port) ? (unsigned)port->valueint : 5004;
        if (k < sdp.count) {
            g->parsed = sdp.leg[k];
            g->has_sdp = 1;
            snprintf(g->parsed.dest_addr, sizeof g->parsed.dest_addr, "%s",
                     g->multicast_ip[0] ? g->multicast_ip : g->interface_ip);
            g->parsed.port = g->destination_port;
            snprintf(g->parsed.source_addr, sizeof g->parsed.source_addr, "%s",
                     g->multicast_ip[0] ? g->source_ip : "");
        }
    }
    a->enable = cJSON_IsTrue(cJSON_GetObjectItem(na, "master_enable")) && any;
}

static void sender_activation(const nmos_port *p, const cJSON *na, nmos_sender_activation *a)
{
    memset(a, 0, sizeof *a);
    a->sender = p->index;
    a->sender_id = p->id;
    a->sdp = configured(p, 0);
    a->legs = p->legs;
    int any = 0;
    for (unsigned k = 0; k < p->legs; k++) {
        const cJSON *l = leg(na, k);
        nmos_tx_leg *g = &a->leg[k];
        g->enable = cJSON_IsTrue(cJSON_GetObjectItem(l, "rtp_enabled"));
        any |= g->enable;
        copy_ip(g->source_ip, sizeof g->source_ip, cJSON_GetObjectItem(l, "source_ip"));
        copy_ip(g->destination_ip, sizeof g->destination_ip,
                cJSON_GetObjectItem(l, "destination_ip"));
        const cJSON *sp = cJSON_GetObjectItem(l, "source_port");
        const cJSON *dp = cJSON_GetObjectItem(l, "destination_port");
        g->source_port = cJSON_IsNumber(sp) ? (unsigned)sp->valueint : 0;
        g->destination_port = cJSON_IsNumber(dp) ? (unsigned)dp->valueint : 0;
    }
    a->enable = cJSON_IsTrue(cJSON_GetObjectItem(na, "master_enable")) && any;
}

/* Makes the staged parameters active (mode and times given); receivers call
 * the service. -1 with why when the service refuses (active unchanged). */
static int activate(nmos_node *n, nmos_port *p, const char *mode, const char *requested,
                    uint64_t when_ns, char *why, size_t cap)
{
    cJSON *na = cJSON_Duplicate(p->staged, 1);
    resolve_auto(n, p, na);
    cJSON *act = null_activation();
    char t[NMOS_VERSION_LEN];
    nmos_version_string(when_ns, t);
    set_item(act, "mode", cJSON_CreateString(mode));
    set_item(act, "requested_time", requested ? cJSON_CreateString(requested) : cJSON_CreateNull());
    set_item(act, "activation_time", cJSON_CreateString(t));
    set_item(na, "activation", act);
    const char *ip[NMOS_LEGS];
    unsigned port[NMOS_LEGS];
    int on[NMOS_LEGS];
    char where[300];
    xsf_error e;
    xsf_error_clear(&e);
    if (!p->sender && n->cfg.activate) {
        nmos_activation a;
        receiver_activation(p, na, &a);
        if (n->cfg.activate(n->cfg.activate_ctx, &a, &e) != XSF_OK) {
            cJSON_Delete(na);
            nmos_logf(n, "receiver %u: activation refused: %s", p->index, e.msg);
            return snprintf(why, cap, "the decoder service refused: %s", e.msg), -1;
        }
        for (unsigned k = 0; k < p->legs; k++) {
            ip[k] = a.leg[k].multicast_ip[0] ? a.leg[k].multicast_ip : a.leg[k].interface_ip;
            port[k] = a.leg[k].destination_port;
            on[k] = a.leg[k].enable;
        }
        legs_text(where, sizeof where, ip, port, on, p->legs);
        nmos_logf(n, "receiver %u: %s %s (%s)", p->index, a.enable ? "receiving" : "stopped", where,
                  mode);
    } else if (p->sender && p->controlled && n->cfg.activate_sender) {
        nmos_sender_activation a;
        sender_activation(p, na, &a);
        if (n->cfg.activate_sender(n->cfg.activate_ctx, &a, &e) != XSF_OK) {
            cJSON_Delete(na);
            nmos_logf(n, "sender %u: activation refused: %s", p->index, e.msg);
            return snprintf(why, cap, "the sender refused: %s", e.msg), -1;
        }
        for (unsigned k = 0; k < p->legs; k++) {
            ip[k] = a.leg[k].destination_ip;
            port[k] = a.leg[k].destination_port;
            on[k] = a.leg[k].enable;
        }
        legs_text(where, sizeof where, ip, port, on, p->legs);
        nmos_logf(n, "sender %u: %s %s (%s)", p->index, a.enable ? "sending to" : "stopped", where,
                  mode);
    } else if (p->sender) {
        nmos_logf(n, "sender %u: active parameters changed (%s)", p->index, mode);
    }
    cJSON_Delete(p->active);
    p->active = na;
    /* Staged activation goes back to nothing once applied. */
    set_item(p->staged, "activation", null_activation());
    p->pending = 0;
    nmos_new_version(n, p->version);
    p->dirty = 1;
    n->status.activations++;
    pthread_cond_broadcast(&n->cv); /* the registration thread sends the new version */
    return 0;
}

/* A PATCH of /staged: the HTTP code and body. */
void nmos_patch_staged(nmos_node *n, nmos_port *p, const cJSON *b, nmos_reply *r)
{
    char why[512];
    if (check_patch(n, p, b, why, sizeof why))
        return nmos_reply_error(r, 400, "%s", why);
    const cJSON *act = cJSON_GetObjectItem(b, "activation");
    const cJSON *mode = cJSON_GetObjectItem(act, "mode");
    const cJSON *req = cJSON_GetObjectItem(act, "requested_time");
    const int cancel = act && cJSON_IsNull(mode);
    if (p->pending && !cancel)
        return nmos_reply_error(r, 423,
                                "a scheduled activation is pending: cancel it first "
                                "(activation mode null)");
    const char *m = cJSON_IsString(mode) ? mode->valuestring : NULL;
    uint64_t req_ns = 0;
    if (m && !strcmp(m, "activate_immediate") && cJSON_IsString(req))
        return nmos_reply_error(r, 400, "activate_immediate takes no requested_time");
    if (m && strcmp(m, "activate_immediate") &&
        !(cJSON_IsString(req) && nmos_parse_time(req->valuestring, &req_ns) == 0))
        return nmos_reply_error(r, 400, "%s needs a requested_time", m);

    cJSON *old = cJSON_Duplicate(p->staged, 1);
    const cJSON *it;
    cJSON_ArrayForEach(it, b)
    {
        if (!strcmp(it->string, "transport_file")) {
            cJSON *tf = cJSON_GetObjectItem(p->staged, "transport_file");
            const cJSON *f;
            cJSON_ArrayForEach(f, it) set_item(tf, f->string, cJSON_Duplicate(f, 1));
            const cJSON *data = cJSON_GetObjectItem(it, "data");
            if (cJSON_IsString(data) && stage_sdp(p, data->valuestring, why, sizeof why)) {
                cJSON_Delete(p->staged);
                p->staged = old;
                return nmos_reply_error(r, 400, "%s", why);
            }
        } else if (strcmp(it->string, "transport_params") && strcmp(it->string, "activation")) {
            set_item(p->staged, it->string, cJSON_Duplicate(it, 1));
        }
    }
    const cJSON *tps = cJSON_GetObjectItem(b, "transport_params");
    for (unsigned k = 0; tps && k < p->legs; k++) {
        cJSON *l = leg(p->staged, k);
        cJSON_ArrayForEach(it, cJSON_GetArrayItem(tps, (int)k))
            set_item(l, it->string, cJSON_Duplicate(it, 1));
    }

    const uint64_t now = nmos_tai_now_ns();
    if (cancel) {
        if (p->pending)
            nmos_logf(n, "%s %u: scheduled activation cancelled", p->sender ? "sender" : "receiver",
                      p->index);
        p->pending = 0;
        set_item(p->staged, "activation", null_activation());
    } else if (m && !strcmp(m, "activate_immediate")) {
        if (activate(n, p, m, NULL, now, why, sizeof why)) {
            cJSON_Delete(p->staged);
            p->staged = old;
            return nmos_reply_error(r, 500, "%s", why);
        }
        /* The answer shows the activation; /staged shows it no more. */
        cJSON *shown = cJSON_Duplicate(p->staged, 1);
        set_item(shown, "activation",
                 cJSON_Duplicate(cJSON_GetObjectItem(p->active, "activation"), 1));
        cJSON_Delete(old);
        return nmos_reply_json(r, 200, shown);
    } else if (m) {
        const int relative = !strcmp(m, "activate_scheduled_relative");
        p->due_ns = relative ? now + req_ns : req_ns;
        p->pending = 1;
        char t[NMOS_VERSION_LEN];
        nmos_version_string(p->due_ns, t);
        cJSON *a = null_activation();
        set_item(a, "mode", cJSON_CreateString(m));
        set_item(a, "requested_time", cJSON_CreateString(req->valuestring));
        set_item(a, "activation_time", cJSON_CreateString(t));
        set_item(p->staged, "activation", a);
        pthread_cond_broadcast(&n->cv); /* the scheduler's next wake-up */
        cJSON_Delete(old);
        return nmos_reply_json(r, 202, cJSON_Duplicate(p->staged, 1));
    }
    cJSON_Delete(old);
    nmos_reply_json(r, 200, cJSON_Duplicate(p->staged, 1));
}

uint64_t nmos_connection_run_due(nmos_node *n)
{
    uint64_t next = 0;
    for (int s = 0; s < 2; s++) {
        nmos_port *ports = s ? n->tx : n->rx;
        const unsigned count = s ? n->ntx : n->nrx;
        for (unsigned i = 0; i < count; i++) {
            nmos_port *p = &ports[i];
            if (!p->pending)
                continue;
            const uint64_t now = nmos_tai_now_ns();
            if (p->due_ns <= now) {
                const cJSON *a = cJSON_GetObjectItem(p->staged, "activation");
                const cJSON *mode = cJSON_GetObjectItem(a, "mode");
                const cJSON *req = cJSON_GetObjectItem(a, "requested_time");
                char mode_s[64], req_s[NMOS_VERSION_LEN];
                snprintf(mode_s, sizeof mode_s, "%s",
                         cJSON_IsString(mode) ? mode->valuestring : "");
                snprintf(req_s, sizeof req_s, "%s", cJSON_IsString(req) ? req->valuestring : "");
                char why[512];
                if (activate(n, p, mode_s, req_s, now, why, sizeof why)) {
                    /* Refused: nothing changes; the staged activation is dropped. */
                    p->pending = 0;
                    set_item(p->staged, "activation", null_activation());
                }
            } else if (!next || p->due_ns < next) {
                next = p->due_ns;
            }
        }
    }
    return next;
}

/* A sender's stream on leg k with its active parameters applied. */
static void leg_sdp(const nmos_port *tx, unsigned k, rtp_sdp *s)
{
    *s = *configured(tx, k);
    /* BCP-006-01: profile, level and sublevel are left out when Unrestricted
     * (as the flow leaves them out). */
    if (!strcmp(s->profile, "Unrestricted"))
        s->profile[0] = 0;
    if (!strcmp(s->level, "Unrestricted"))
        s->level[0] = 0;
    if (!strcmp(s->sublevel, "Unrestricted"))
        s->sublevel[0] = 0;
    const cJSON *l = leg(tx->active, k);
    const cJSON *v;
    if ((v = cJSON_GetObjectItem(l, "destination_ip")) && cJSON_IsString(v))
        snprintf(s->dest_addr, sizeof s->dest_addr, "%s", v->valuestring);
    if ((v = cJSON_GetObjectItem(l, "destination_port")) && cJSON_IsNumber(v))
        s->port = (unsigned)v->valueint;
    rtp_addr a;
    xsf_error e;
    const int mc = rtp_addr_parse(s->dest_addr, 0, &a, &e) == XSF_OK && rtp_addr_is_multicast(&a);
    if ((v = cJSON_GetObjectItem(l, "source_ip")) && cJSON_IsString(v)) {
        snprintf(s->origin_addr, sizeof s->origin_addr, "%s", v->valuestring);
        if (mc)
            snprintf(s->source_addr, sizeof s->source_addr, "%s", v->valuestring);
        else
            s->source_addr[0] = 0;
    }
    if (rtp_addr_parse(s->dest_addr, 0, &a, &e) == XSF_OK)
        s->ipv6 = a.family == AF_INET6;
}

char *nmos_sender_sdp(nmos_node *n, const nmos_port *tx)
{
    /* The legs it sends on (all of them when none is enabled: what it would
     * send), grouped by a=group:DUP when two; each names the node's clock. */
    rtp_sdp s[NMOS_LEGS];
    const rtp_sdp *legs[NMOS_LEGS];
    unsigned count = 0;
    for (unsigned pass = 0; pass < 2 && !count; pass++)
        for (unsigned k = 0; k < tx->legs; k++)
            if (pass || cJSON_IsTrue(cJSON_GetObjectItem(leg(tx->active, k), "rtp_enabled"))) {
                leg_sdp(tx, k, &s[count]);
                legs[count] = &s[count];
                count++;
            }
    char refclk[96];
    nmos_ts_refclk(&n->cfg.clock, n->port_id, refclk, sizeof refclk);
    return nmos_sdp_legs_write(legs, count, refclk);
}
