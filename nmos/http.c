/* The node's HTTP server (libmicrohttpd, one internal thread): the IS-04
 * Node API here, the IS-05 Connection API in connection.c. Every answer
 * carries the CORS headers NMOS asks for; paths are taken with or without a
 * trailing slash. */
#define _GNU_SOURCE /* getifaddrs, NI_MAXHOST */

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "nmos_internal.h"

#define NMOS_BODY_MAX (64 * 1024) /* largest request body (an SDP in JSON fits easily) */

void nmos_reply_json(nmos_reply *r, int code, cJSON *json)
{
    r->code = code;
    r->body = cJSON_Print(json);
    r->type = "application/json";
    cJSON_Delete(json);
}

void nmos_reply_error(nmos_reply *r, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "code", code);
    cJSON_AddStringToObject(o, "error", msg);
    cJSON_AddNullToObject(o, "debug");
    nmos_reply_json(r, code, o);
}

/* A U+0000 escape in a JSON text (`\u0000`, not `\\u0000`): cJSON would cut
 * the string there. Backslashes are only in strings, so a scan suffices. */
static int escaped_nul(const char *s, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == 'u' && i + 5 < len && !strncmp(s + i + 2, "0000", 4))
            return 1;
        i++; /* the escaped character */
    }
    return 0;
}

cJSON *nmos_json_parse(const char *body, size_t len, char *why, size_t cap)
{
    if (escaped_nul(body, len))
        return snprintf(why, cap, "the body holds a string with U+0000"), NULL;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (!j)
        return snprintf(why, cap, "the body is not JSON"), NULL;
    for (const char *p = end; p < body + len; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            cJSON_Delete(j);
            return snprintf(why, cap, "the body goes on after its JSON (byte %zu of %zu%s)",
                            (size_t)(p - body), len, *p ? "" : ": a NUL"),
                   NULL;
        }
    }
    return j;
}

static cJSON *listing(const char *const *names, size_t count)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < count; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
    return a;
}

/* One resource by id, or the list of a type. */
static void node_resources(nmos_node *n, const char *type, const char *id, nmos_reply *r)
{
    cJSON *list = cJSON_CreateArray();
    if (!strcmp(type, "devices")) {
        cJSON_AddItemToArray(list, nmos_json_device(n));
    } else {
        for (unsigned i = 0; i < n->ntx; i++) {
            if (!strcmp(type, "sources"))
                cJSON_AddItemToArray(list, nmos_json_source(n, &n->tx[i]));
            else if (!strcmp(type, "flows"))
                cJSON_AddItemToArray(list, nmos_json_flow(n, &n->tx[i]));
            else if (!strcmp(type, "senders"))
                cJSON_AddItemToArray(list, nmos_json_sender(n, &n->tx[i]));
        }
        if (!strcmp(type, "receivers"))
            for (unsigned i = 0; i < n->nrx; i++)
                cJSON_AddItemToArray(list, nmos_json_receiver(n, &n->rx[i]));
    }
    if (!id) {
        nmos_reply_json(r, 200, list);
        return;
    }
    cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        const cJSON *iid = cJSON_GetObjectItem(it, "id");
        if (cJSON_IsString(iid) && !strcmp(iid->valuestring, id)) {
            cJSON_DetachItemViaPointer(list, it);
            cJSON_Delete(list);
            nmos_reply_json(r, 200, it);
            return;
        }
    }
    cJSON_Delete(list);
    nmos_reply_error(r, 404, "no %s with id '%s' on this node", type, id);
}

static void node_api(nmos_node *n, const char *method, char **seg, int nseg, nmos_reply *r)
{
    static const char *const root[] = {"self/",    "sources/", "flows/",
                                       "devices/", "senders/", "receivers/"};
    static const char *const types[] = {"sources", "flows", "devices", "senders", "receivers"};
    const int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (nseg == 2) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on the node API's versions", method);
        return nmos_reply_json(r, 200, listing((const char *[]){"v1.3/"}, 1));
    }
    if (strcmp(seg[2], "v1.3"))
        return nmos_reply_error(r, 404, "node API version '%s' not served (v1.3 is)", seg[2]);
    if (nseg == 3) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on the node API", method);
        return nmos_reply_json(r, 200, listing(root, 6));
    }
    if (!strcmp(seg[3], "self") && nseg == 4) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on self", method);
        return nmos_reply_json(r, 200, nmos_json_self(n));
    }
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        if (strcmp(seg[3], types[t]))
            continue;
        if (nseg == 6 && !strcmp(types[t], "receivers") && !strcmp(seg[5], "target")) {
            /* IS-04's own connection call, superseded by IS-05, which this node implements. */
            if (strcmp(method, "PUT"))
                return nmos_reply_error(r, 405, "%s on a receiver's target", method);
            return nmos_reply_error(r, 501,
                                    "connect receivers through IS-05 (see the device's "
                                    "controls)");
        }
        if (nseg > 5)
            break;
        if (!get)
            return nmos_reply_error(r, 405, "%s on %s", method, types[t]);
        return node_resources(n, types[t], nseg == 5 ? seg[4] : NULL, r);
    }
    nmos_reply_error(r, 404, "no such resource in the node API");
}

/* Splits "/a/b/c/" into its segments (in place). */
static int split_path(char *path, char **seg, int max)
{
    int n = 0;
    for (char *tok = strtok(path, "/"); tok; tok = strtok(NULL, "/")) {
        if (n == max)
            return -1;
        seg[n++] = tok;
    }
    return n;
}

static void route(nmos_node *n, const char *method, const char *url, const char *body,
                  size_t body_len, nmos_reply *r)
{
    char path[512];
    if (strlen(url) >= sizeof path)
        return nmos_reply_error(r, 404, "path too long");
    snprintf(path, sizeof path, "%s", url);
    char *q = strchr(path, '?');
    if (q)
        *q = 0;
    char *seg[16];
    const int nseg = split_path(path, seg, 16);
    const int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (nseg < 0)
        return nmos_reply_error(r, 404, "no such path");
    if (nseg == 0) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on /", method);
        return nmos_reply_json(r, 200, listing((const char *[]){"x-nmos/"}, 1));
    }
    if (strcmp(seg[0], "x-nmos"))
        return nmos_reply_error(r, 404, "no such path: the APIs are under /x-nmos/");
    if (nseg == 1) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on /x-nmos/", method);
        return nmos_reply_json(r, 200, listing((const char *[]){"node/", "connection/"}, 2));
    }
    if (!strcmp(seg[1], "node"))
        return node_api(n, method, seg, nseg, r);
    if (!strcmp(seg[1], "connection"))
        return nmos_connection_route(n, method, seg, nseg, body, body_len, r);
    nmos_reply_error(r, 404, "no API '%s' here (node/ and connection/ are)", seg[1]);
}

typedef struct request {
    char *body;
    size_t len;
    int too_large;
} request;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)version;
    nmos_node *n = cls;
    request *rq = *con_cls;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) {
        if (rq->len + *upload_size > NMOS_BODY_MAX) {
            rq->too_large = 1;
        } else {
            char *nb = realloc(rq->body, rq->len + *upload_size + 1);
            if (!nb)
                return MHD_NO;
            memcpy(nb + rq->len, upload, *upload_size);
            rq->body = nb;
            rq->len += *upload_size;
            rq->body[rq->len] = 0;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    nmos_reply r;
    memset(&r, 0, sizeof r);
    if (!strcmp(method, "OPTIONS")) {
        r.code = 200;
    } else if (rq->too_large) {
        nmos_reply_error(&r, 413, "request body over %d bytes", NMOS_BODY_MAX);
    } else {
        pthread_mutex_lock(&n->mu);
        route(n, method, url, rq->body ? rq->body : "", rq->len, &r);
        pthread_mutex_unlock(&n->mu);
    }
    const int head = !strcmp(method, "HEAD");
    const size_t blen = r.body && !head ? strlen(r.body) : 0;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(blen, r.body ? r.body : (char *)"", MHD_RESPMEM_MUST_COPY);
    free(r.body);
    if (!resp)
        return MHD_NO;
    if (r.type)
        MHD_add_response_header(resp, "Content-Type", r.type);
    if (r.location[0])
        MHD_add_response_header(resp, "Location", r.location);
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(resp, "Access-Control-Allow-Methods",
                            "GET, PUT, POST, PATCH, HEAD, OPTIONS, DELETE");
    MHD_add_response_header(resp, "Access-Control-Allow-Headers", "Content-Type, Accept");
    MHD_add_response_header(resp, "Access-Control-Max-Age", "3600");
    const enum MHD_Result ret = MHD_queue_response(c, (unsigned)r.code, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    request *rq = *con_cls;
    if (rq) {
        free(rq->body);
        free(rq);
        *con_cls = NULL;
    }
}

/* The interface carrying `host` and its MAC ("lo", 00-00-00-00-00-00 for loopback). */
static void find_interface(nmos_node *n, const struct sockaddr *sa)
{
    snprintf(n->ifname, sizeof n->ifname, "lo");
    snprintf(n->port_id, sizeof n->port_id, "00-00-00-00-00-00");
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs))
        return;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != sa->sa_family)
            continue;
        int same = 0;
        if (sa->sa_family == AF_INET)
            same = ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
                   ((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        else
            same = !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr,
                           &((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
        if (same) {
            snprintf(n->ifname, sizeof n->ifname, "%s", i->ifa_name);
            break;
        }
    }
    freeifaddrs(ifs);
    char path[96], mac[32];
    snprintf(path, sizeof path, "/sys/class/net/%s/address", n->ifname);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(mac, sizeof mac, f) && strlen(mac) >= 17) {
            for (int k = 0; k < 17; k++)
                n->port_id[k] = mac[k] == ':' ? '-' : mac[k];
            n->port_id[17] = 0;
        }
        fclose(f);
    }
}

xsf_status nmos_http_start(nmos_node *n, xsf_error *err)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, n->host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(n->port);
    } else if (inet_pton(AF_INET6, n->host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(n->port);
        flags |= MHD_USE_IPv6;
    } else {
        return xsf_error_set(err, XSF_ERR_ARG, "host '%s': expected an IPv4 or IPv6 address",
                             n->host);
    }
    find_interface(n, (const struct sockaddr *)&ss);
    n->httpd = MHD_start_daemon(flags, n->port, NULL, NULL, answer, n, MHD_OPTION_SOCK_ADDR,
                                (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, completed,
                                NULL, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
    if (!n->httpd)
        return xsf_error_set(err, XSF_ERR_IO, "cannot serve HTTP on %s port %u (in use?)", n->host,
                             n->port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(n->httpd, MHD_DAEMON_INFO_BIND_PORT);
    if (info)
        n->port = info->port;
    return XSF_OK;
}

void nmos_http_stop(nmos_node *n)
{
    if (n->httpd)
        MHD_stop_daemon(n->httpd);
    n->httpd = NULL;
}
