/* The node: ids, versions, the log, the scheduler thread, create/destroy. */
#define _GNU_SOURCE /* gethostname, pthread_cond_timedwait's clock */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <nettle/md5.h>

#include "nmos_internal.h"
#include "xsf_clock.h"

/* TAI is UTC plus 37 s since 2017-01-01 (no leap second announced since). */
#define NMOS_TAI_UTC_OFFSET_S 37u

uint64_t nmos_tai_now_ns(void)
{
    return xsf_clock_wall_ns() + NMOS_TAI_UTC_OFFSET_S * XSF_NS_PER_S;
}

void nmos_version_string(uint64_t tai_ns, char out[NMOS_VERSION_LEN])
{
    snprintf(out, NMOS_VERSION_LEN, "%llu:%llu", (unsigned long long)(tai_ns / 1000000000u),
             (unsigned long long)(tai_ns % 1000000000u));
}

void nmos_new_version(nmos_node *n, char out[NMOS_VERSION_LEN])
{
    uint64_t t = nmos_tai_now_ns();
    if (t <= n->last_version_ns)
        t = n->last_version_ns + 1;
    n->last_version_ns = t;
    nmos_version_string(t, out);
    n->resources_changed = 1;
}

int nmos_parse_time(const char *s, uint64_t *ns)
{
    /* IS-05: "^[0-9]+:[0-9]+$", nanoseconds below 1e9. */
    if (!s)
        return -1;
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || !colon[1] || strlen(colon + 1) > 9)
        return -1;
    uint64_t sec = 0, nsec = 0;
    for (const char *c = s; c < colon; c++) {
        if (*c < '0' || *c > '9' || sec > 10000000000ull)
            return -1;
        sec = sec * 10 + (uint64_t)(*c - '0');
    }
    for (const char *c = colon + 1; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        nsec = nsec * 10 + (uint64_t)(*c - '0');
    }
    if (nsec >= 1000000000u)
        return -1;
    *ns = sec * 1000000000u + nsec;
    return 0;
}

int nmos_is_uuid(const char *s)
{
    if (!s || strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        const char c = s[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

/* RFC 4122 4.3: a name-based UUID (version 3, MD5) of seed/kind/index. */
static void name_uuid(const char *seed, const char *kind, unsigned index, char out[37])
{
    char name[512];
    snprintf(name, sizeof name, "%s/%s/%u", seed, kind, index);
    struct md5_ctx c;
    uint8_t h[MD5_DIGEST_SIZE];
    md5_init(&c);
    md5_update(&c, strlen(name), (const uint8_t *)name);
    md5_digest(&c, sizeof h, h);
    h[6] = (uint8_t)((h[6] & 0x0f) | 0x30);
    h[8] = (uint8_t)((h[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", h[0],
             h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13],
             h[14], h[15]);
}

void nmos_logf(nmos_node *n, const char *fmt, ...)
{
    char *line = n->log[(n->log_head + n->log_count) % NMOS_LOG_LINES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof n->log[0], fmt, ap);
    va_end(ap);
    if (n->log_count < NMOS_LOG_LINES)
        n->log_count++;
    else
        n->log_head = (n->log_head + 1) % NMOS_LOG_LINES;
}

int nmos_node_log(nmos_node *n, char *line, size_t cap)
{
    pthread_mutex_lock(&n->mu);
    int got = 0;
    if (n->log_count) {
        snprintf(line, cap, "%s", n->log[n->log_head]);
        n->log_head = (n->log_head + 1) % NMOS_LOG_LINES;
        n->log_count--;
        got = 1;
    }
    pthread_mutex_unlock(&n->mu);
    return got;
}

void nmos_node_status(nmos_node *n, nmos_status *st)
{
    pthread_mutex_lock(&n->mu);
    *st = n->status;
    pthread_mutex_unlock(&n->mu);
}

uint16_t nmos_node_port(const nmos_node *n)
{
    return n->port;
}
const char *nmos_node_url(const nmos_node *n)
{
    return n->url;
}
const char *nmos_node_id(const nmos_node *n)
{
    return n->node_id;
}
const char *nmos_node_receiver_id(const nmos_node *n, unsigned i)
{
    return i < n->nrx ? n->rx[i].id : "";
}
const char *nmos_node_sender_id(const nmos_node *n, unsigned i)
{
    return i < n->ntx ? n->tx[i].id : "";
}

/* The scheduler: applies timed activations when they fall due. */
static void *scheduler_main(void *arg)
{
    nmos_node *n = arg;
    pthread_mutex_lock(&n->mu);
    while (!n->stopping) {
        const uint64_t next = nmos_connection_run_due(n);
        if (n->stopping)
            break;
        if (n->resources_changed) { /* peer-to-peer: the TXT record's versions */
            n->resources_changed = 0;
            nmos_dnssd_update(n);
        }
        /* The TAI time of the next activation, on the realtime clock of the wait. */
        uint64_t wait_ns = 1000000000u;
        const uint64_t now = nmos_tai_now_ns();
        if (next && next > now && next - now < wait_ns)
            wait_ns = next - now;
        else if (next && next <= now)
            wait_ns = 0;
        const struct timespec ts = xsf_clock_wall_deadline(wait_ns);
        if (wait_ns)
            pthread_cond_timedwait(&n->cv, &n->mu, &ts);
    }
    pthread_mutex_unlock(&n->mu);
    return NULL;
}

static xsf_status read_sender_sdp(nmos_node *n, nmos_port *p, const char *text, xsf_error *err)
{
    const size_t len = strlen(text);
    if (len > NMOS_SDP_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "sender %u: SDP of %zu bytes (at most %d)", p->index,
                             len, NMOS_SDP_MAX);
    if (nmos_sdp_legs_parse(text, len, &p->sdp_legs, err) != XSF_OK)
        return xsf_error_set(err, XSF_ERR_INVALID, "sender %u: SDP: %s", p->index, err->msg);
    /* The node sends its own senders on two legs where told; another
     * program's sends what its SDP says. */
    p->legs = p->controlled ? NMOS_LEGS : p->sdp_legs.count;
    p->sdp = strdup(text);
    (void)n;
    return p->sdp ? XSF_OK : xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
}

/* IS-04's clock_ptp gmid: eight lower-case hex bytes joined by '-'. */
static int ptp_gmid_ok(const char *g)
{
    for (int i = 0; i < 23; i++) {
        const char c = g[i];
        if (i % 3 == 2 ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return 0;
    }
    return g[23] == 0;
}

xsf_status nmos_node_create(nmos_node **out, const nmos_config *cfg, xsf_error *err)
{
    *out = NULL;
    if (cfg->receivers > NMOS_MAX_RECEIVERS)
        return xsf_error_set(err, XSF_ERR_ARG, "at most %d receivers (%u asked for)",
                             NMOS_MAX_RECEIVERS, cfg->receivers);
    if (cfg->nsenders > NMOS_MAX_SENDERS)
        return xsf_error_set(err, XSF_ERR_ARG, "at most %d senders", NMOS_MAX_SENDERS);
    if (cfg->registry_url && strncmp(cfg->registry_url, "http://", 7))
        return xsf_error_set(err, XSF_ERR_ARG, "registry '%s': expected http://HOST:PORT",
                             cfg->registry_url);
    if (cfg->clock.ptp && !ptp_gmid_ok(cfg->clock.gmid))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "PTP grandmaster '%s': expected an EUI-64 as IS-04 writes it "
                             "(ec-46-70-ff-fe-00-ce-de)",
                             cfg->clock.gmid);
    nmos_node *n = calloc(1, sizeof *n);
    if (!n)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    curl_global_init(CURL_GLOBAL_DEFAULT); /* counted: nmos_node_destroy undoes it */
    n->cfg = *cfg;
    if (n->cfg.heartbeat_s <= 0)
        n->cfg.heartbeat_s = 5;
    pthread_mutex_init(&n->mu, NULL);
    pthread_cond_init(&n->cv, NULL);
    snprintf(n->host, sizeof n->host, "%s", cfg->host ? cfg->host : "127.0.0.1");
    snprintf(n->label, sizeof n->label, "%s", cfg->label ? cfg->label : "xsflow");
    if (gethostname(n->hostname, sizeof n->hostname - 1))
        snprintf(n->hostname, sizeof n->hostname, "localhost");
    n->port = cfg->port;

    xsf_status st = nmos_http_start(n, err); /* binds: the port is known after this */
    if (st != XSF_OK) {
        nmos_node_destroy(n);
        return st;
    }
    snprintf(n->url, sizeof n->url, "http://%s:%u", n->host, n->port);
    char seed[256];
    if (cfg->seed)
        snprintf(seed, sizeof seed, "%s", cfg->seed);
    else
        snprintf(seed, sizeof seed, "xsflow:%s:%s:%u", n->hostname, n->host, n->port);

    pthread_mutex_lock(&n->mu);
    name_uuid(seed, "node", 0, n->node_id);
    name_uuid(seed, "device", 0, n->device_id);
    nmos_new_version(n, n->node_version);
    snprintf(n->device_version, sizeof n->device_version, "%s", n->node_version);
    n->nrx = cfg->receivers;
    for (unsigned i = 0; i < n->nrx && st == XSF_OK; i++) {
        nmos_port *p = &n->rx[i];
        p->index = i;
        name_uuid(seed, "receiver", i, p->id);
        snprintf(p->label, sizeof p->label, "%s decoder %u", n->label, i);
        nmos_new_version(n, p->version);
        p->legs = NMOS_LEGS;
        nmos_connection_init(n, p);
    }
    n->ntx = cfg->nsenders;
    for (unsigned i = 0; i < n->ntx && st == XSF_OK; i++) {
        nmos_port *p = &n->tx[i];
        p->sender = 1;
        p->controlled = cfg->senders[i].controlled;
        p->index = i;
        name_uuid(seed, "sender", i, p->id);
        name_uuid(seed, "flow", i, p->flow_id);
        name_uuid(seed, "source", i, p->source_id);
        snprintf(p->label, sizeof p->label, "%s",
                 cfg->senders[i].label ? cfg->senders[i].label : "xsflow sender");
        nmos_new_version(n, p->version);
        st = read_sender_sdp(n, p, cfg->senders[i].sdp ? cfg->senders[i].sdp : "", err);
        if (st == XSF_OK)
            nmos_connection_init(n, p);
    }
    pthread_mutex_unlock(&n->mu);
    if (st != XSF_OK) {
        nmos_node_destroy(n);
        return st;
    }
    if (cfg->discover || cfg->p2p) {
        xsf_error derr;
        xsf_error_clear(&derr);
        if (nmos_dnssd_start(n, cfg->discover && !cfg->registry_url, cfg->p2p, cfg->dnssd_domain,
                             &derr) != XSF_OK) {
            pthread_mutex_lock(&n->mu);
            snprintf(n->status.dnssd_error, sizeof n->status.dnssd_error, "%s", derr.msg);
            nmos_logf(n, "DNS-SD: %s", derr.msg);
            pthread_mutex_unlock(&n->mu);
        }
    }
    if (pthread_create(&n->scheduler, NULL, scheduler_main, n)) {
        nmos_node_destroy(n);
        return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the scheduler thread");
    }
    n->scheduler_started = 1;
    if (cfg->registry_url || cfg->discover) {
        if (pthread_create(&n->registration, NULL, nmos_registration_main, n)) {
            nmos_node_destroy(n);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the registration thread");
        }
        n->registration_started = 1;
    }
    *out = n;
    return XSF_OK;
}

void nmos_node_destroy(nmos_node *n)
{
    if (!n)
        return;
    pthread_mutex_lock(&n->mu);
    n->stopping = 1;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    if (n->registration_started)
        pthread_join(n->registration, NULL); /* unregisters on its way out */
    if (n->scheduler_started)
        pthread_join(n->scheduler, NULL);
    nmos_dnssd_stop(n);
    nmos_http_stop(n);
    for (unsigned i = 0; i < NMOS_MAX_RECEIVERS; i++) {
        cJSON_Delete(n->rx[i].staged);
        cJSON_Delete(n->rx[i].active);
        free(n->rx[i].sdp);
    }
    for (unsigned i = 0; i < NMOS_MAX_SENDERS; i++) {
        cJSON_Delete(n->tx[i].staged);
        cJSON_Delete(n->tx[i].active);
        free(n->tx[i].sdp);
    }
    pthread_cond_destroy(&n->cv);
    pthread_mutex_destroy(&n->mu);
    free(n);
    curl_global_cleanup();
}
