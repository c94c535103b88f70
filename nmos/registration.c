/* IS-04 v1.3 registration (Registration API client, libcurl): the node,
 * its device, sources, flows, senders and receivers POSTed in that order,
 * a heartbeat every heartbeat_s, changed resources POSTed again. A 404 on
 * a heartbeat means the registry has forgotten the node (it expired it, or
 * restarted): everything is registered again. A registry that does not
 * answer is given up (the next one DNS-SD found is tried) and the node
 * registers again once one answers. On the way out the node is DELETEd. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "nmos_internal.h"
#include "xsf_clock.h"

#define NMOS_REG_TIMEOUT_MS 2000L

typedef struct body_sink {
    char buf[512];
    size_t len;
} body_sink;

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    body_sink *b = ctx;
    const size_t n = size * nmemb;
    const size_t room = sizeof b->buf - 1 - b->len;
    const size_t take = n < room ? n : room;
    memcpy(b->buf + b->len, data, take);
    b->len += take;
    b->buf[b->len] = 0;
    return n;
}

/* One request; the HTTP status, or -1 when the registry did not answer. */
static long request(CURL *c, const char *method, const char *url, const char *json)
{
    body_sink sink = {.len = 0};
    sink.buf[0] = 0;
    struct curl_slist *h = NULL;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, NMOS_REG_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, NMOS_REG_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    if (json) {
        h = curl_slist_append(h, "Content-Type: application/json");
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(json));
    } else if (!strcmp(method, "POST")) {
        /* A heartbeat has no body, so no Content-Type either. */
        h = curl_slist_append(h, "Content-Type:");
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
    }
    long code = -1;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    return code;
}

typedef struct pending_post {
    char *json; /* {"type": ..., "data": ...} */
    char what[48];
} pending_post;

static void add_post(pending_post *list, int *count, int max, const char *type, cJSON *data,
                     const char *what)
{
    if (*count == max) {
        cJSON_Delete(data);
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", type);
    cJSON_AddItemToObject(o, "data", data);
    list[*count].json = cJSON_PrintUnformatted(o);
    snprintf(list[*count].what, sizeof list[*count].what, "%s", what);
    (*count)++;
    cJSON_Delete(o);
}

#define MAX_POSTS (2 + 4 * NMOS_MAX_SENDERS + NMOS_MAX_RECEIVERS)

/* The resources to POST (all, or those changed), parents first (caller holds mu). */
static int collect(nmos_node *n, int all, pending_post *list)
{
    int count = 0;
    if (all) {
        add_post(list, &count, MAX_POSTS, "node", nmos_json_self(n), "node");
        add_post(list, &count, MAX_POSTS, "device", nmos_json_device(n), "device");
        for (unsigned i = 0; i < n->ntx; i++) {
            add_post(list, &count, MAX_POSTS, "source", nmos_json_source(n, &n->tx[i]), "source");
            add_post(list, &count, MAX_POSTS, "flow", nmos_json_flow(n, &n->tx[i]), "flow");
        }
    }
    for (unsigned i = 0; i < n->ntx; i++)
        if (all || n->tx[i].dirty) {
            add_post(list, &count, MAX_POSTS, "sender", nmos_json_sender(n, &n->tx[i]), "sender");
            n->tx[i].dirty = 0;
        }
    for (unsigned i = 0; i < n->nrx; i++)
        if (all || n->rx[i].dirty) {
            add_post(list, &count, MAX_POSTS, "receiver", nmos_json_receiver(n, &n->rx[i]),
                     "receiver");
            n->rx[i].dirty = 0;
        }
    return count;
}

/* POSTs them (without the lock); the first failure's code, else 0.
 * all: a registration from scratch. IS-04: a 200 (not 201) for the node
 * means the registry still holds an earlier registration, whose resources
 * may be stale: the node is DELETEd and POSTed anew. */
static long post_all(nmos_node *n, CURL *c, const char *registry, int all, pending_post *list,
                     int count, char *failed, size_t cap)
{
    char url[384];
    snprintf(url, sizeof url, "%s/x-nmos/registration/v1.3/resource", registry);
    long bad = 0;
    for (int i = 0; i < count; i++) {
        if (!bad) {
            long code = request(c, "POST", url, list[i].json);
            if (all && i == 0 && code == 200) {
                char del[448];
                snprintf(del, sizeof del, "%s/nodes/%s", url, n->node_id);
                request(c, "DELETE", del, NULL);
                code = request(c, "POST", url, list[i].json);
            }
            if (code != 200 && code != 201) {
                bad = code;
                snprintf(failed, cap, "%s", list[i].what);
            }
        }
        cJSON_free(list[i].json);
    }
    return bad;
}

static void wait_until(nmos_node *n, uint64_t tai_ns)
{
    const uint64_t now = nmos_tai_now_ns();
    if (tai_ns <= now)
        return;
    const struct timespec ts = xsf_clock_wall_deadline(tai_ns - now);
    pthread_cond_timedwait(&n->cv, &n->mu, &ts);
}

static int any_dirty(const nmos_node *n)
{
    for (unsigned i = 0; i < n->ntx; i++)
        if (n->tx[i].dirty)
            return 1;
    for (unsigned i = 0; i < n->nrx; i++)
        if (n->rx[i].dirty)
            return 1;
    return 0;
}

void *nmos_registration_main(void *arg)
{
    nmos_node *n = arg;
    CURL *c = curl_easy_init();
    pending_post *posts = calloc(MAX_POSTS, sizeof *posts);
    char registry[256] = "";
    int registered = 0;
    const uint64_t hb_ns = (uint64_t)(n->cfg.heartbeat_s * 1e9);
    uint64_t next_hb = 0;
    pthread_mutex_lock(&n->mu);
    if (!c || !posts) /* the node serves its APIs without a registry */
        nmos_logf(n, "registration: out of memory");
    while (c && posts && !n->stopping) {
        const uint64_t now = nmos_tai_now_ns();
        if (!registry[0]) {
            if (n->cfg.registry_url) {
                snprintf(registry, sizeof registry, "%s", n->cfg.registry_url);
            } else if (!nmos_dnssd_registry(n, registry, sizeof registry)) {
                wait_until(n, now + 500000000u);
                continue;
            }
            const size_t len = strlen(registry);
            if (len && registry[len - 1] == '/')
                registry[len - 1] = 0;
            snprintf(n->status.registry, sizeof n->status.registry, "%s", registry);
        }
        if (!registered) {
            const int count = collect(n, 1, posts);
            pthread_mutex_unlock(&n->mu);
            char failed[48] = "";
            const long bad = post_all(n, c, registry, 1, posts, count, failed, sizeof failed);
            pthread_mutex_lock(&n->mu);
            if (!bad) {
                registered = 1;
                n->status.registered = 1;
                n->status.registrations++;
                nmos_logf(n, "registered with %s (%d resources)", registry, count);
                next_hb = nmos_tai_now_ns() + hb_ns;
            } else {
                n->status.registry_errors++;
                nmos_logf(n, "registration with %s failed at the %s: %s", registry, failed,
                          bad < 0      ? "no answer"
                          : bad >= 500 ? "server error"
                                       : "refused");
                if ((bad < 0 || bad >= 500) && !n->cfg.registry_url) {
                    nmos_dnssd_registry_failed(n, registry);
                    registry[0] = 0;
                }
                /* Everything again, after a pause. */
                wait_until(n, nmos_tai_now_ns() + 1000000000u);
            }
            continue;
        }
        if (any_dirty(n)) {
            const int count = collect(n, 0, posts);
            pthread_mutex_unlock(&n->mu);
            char failed[48] = "";
            const long bad = post_all(n, c, registry, 0, posts, count, failed, sizeof failed);
            pthread_mutex_lock(&n->mu);
            if (bad) {
                n->status.registry_errors++;
                nmos_logf(n, "update of a %s refused by %s (%ld): registering again", failed,
                          registry, bad);
                registered = 0;
                n->status.registered = 0;
            }
            continue;
        }
        if (now >= next_hb) {
            char url[384];
            snprintf(url, sizeof url, "%s/x-nmos/registration/v1.3/health/nodes/%s", registry,
                     n->node_id);
            pthread_mutex_unlock(&n->mu);
            const long code = request(c, "POST", url, NULL);
            pthread_mutex_lock(&n->mu);
            next_hb += hb_ns;
            if (next_hb < nmos_tai_now_ns())
                next_hb = nmos_tai_now_ns() + hb_ns;
            if (code == 200) {
                n->status.heartbeats++;
            } else if (code == 404) {
                registered = 0;
                n->status.registered = 0;
                n->status.heartbeat_404++;
                nmos_logf(n, "%s has forgotten the node: registering again", registry);
            } else if (code < 0 || code >= 500) {
                /* IS-04: fail over to the next registry and only heartbeat
                 * there (registries of one plant share their data); its 404
                 * says when to register again. With one registry, keep
                 * heartbeating it until it answers. */
                n->status.registry_errors++;
                nmos_logf(n, "heartbeat to %s: %s", registry,
                          code < 0 ? "no answer" : "server error");
                if (!n->cfg.registry_url) {
                    nmos_dnssd_registry_failed(n, registry);
                    registry[0] = 0;
                    next_hb = nmos_tai_now_ns();
                }
            } else {
                registered = 0;
                n->status.registered = 0;
                n->status.registry_errors++;
                nmos_logf(n, "heartbeat to %s refused (%ld): registering again", registry, code);
            }
            continue;
        }
        wait_until(n, next_hb);
    }
    const int was_registered = registered;
    char url[384];
    snprintf(url, sizeof url, "%s/x-nmos/registration/v1.3/resource/nodes/%s", registry,
             n->node_id);
    pthread_mutex_unlock(&n->mu);
    if (was_registered && c)
        request(c, "DELETE", url, NULL);
    curl_easy_cleanup(c);
    free(posts);
    return NULL;
}
