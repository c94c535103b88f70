/* DNS-SD through the Avahi daemon (its client library, on a threaded poll):
 * browsing _nmos-register._tcp for registries (IS-04 v1.3; mDNS in
 * "local", or unicast DNS-SD in a given domain when the daemon's wide-area
 * browsing is on), and publishing _nmos-node._tcp for peer-to-peer
 * discovery with the TXT records IS-04 asks for. Avahi's callbacks take only
 * the registry list's own lock, never the node's. */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/thread-watch.h>

#include "nmos_internal.h"

#define MAX_REGISTRIES 16

typedef struct registry {
    char name[128];
    char url[160];
    int pri;
    int failed;
} registry;

struct nmos_dnssd {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    AvahiEntryGroup *group;
    int browse, publish;
    char domain[128];
    char service_name[64];
    uint16_t port;
    unsigned ver; /* ver_* in the TXT record */
    pthread_mutex_t mu;
    registry reg[MAX_REGISTRIES];
    int nreg;
};

static void on_resolved(AvahiServiceResolver *r, AvahiIfIndex iface, AvahiProtocol proto,
                        AvahiResolverEvent event, const char *name, const char *type,
                        const char *domain, const char *host, const AvahiAddress *addr,
                        uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags,
                        void *ctx)
{
    (void)iface;
    (void)proto;
    (void)type;
    (void)domain;
    (void)host;
    (void)flags;
    nmos_dnssd *d = ctx;
    if (event == AVAHI_RESOLVER_FOUND) {
        char *proto_s = NULL, *ver_s = NULL, *pri_s = NULL, *k = NULL;
        AvahiStringList *e;
        if ((e = avahi_string_list_find(txt, "api_proto")))
            avahi_string_list_get_pair(e, &k, &proto_s, NULL), avahi_free(k);
        if ((e = avahi_string_list_find(txt, "api_ver")))
            avahi_string_list_get_pair(e, &k, &ver_s, NULL), avahi_free(k);
        if ((e = avahi_string_list_find(txt, "pri")))
            avahi_string_list_get_pair(e, &k, &pri_s, NULL), avahi_free(k);
        /* IS-04: http registries serving v1.3; pri absent is taken as the lowest preference. */
        const int usable =
            (!proto_s || !strcmp(proto_s, "http")) && (!ver_s || strstr(ver_s, "v1.3"));
        char a[AVAHI_ADDRESS_STR_MAX];
        avahi_address_snprint(a, sizeof a, addr);
        pthread_mutex_lock(&d->mu);
        if (usable && d->nreg < MAX_REGISTRIES) {
            registry *g = &d->reg[d->nreg++];
            memset(g, 0, sizeof *g);
            snprintf(g->name, sizeof g->name, "%s", name);
            if (addr->proto == AVAHI_PROTO_INET6)
                snprintf(g->url, sizeof g->url, "http://[%s]:%u", a, port);
            else
                snprintf(g->url, sizeof g->url, "http://%s:%u", a, port);
            g->pri = pri_s ? atoi(pri_s) : 1000000;
        }
        pthread_mutex_unlock(&d->mu);
        avahi_free(proto_s);
        avahi_free(ver_s);
        avahi_free(pri_s);
    }
    avahi_service_resolver_free(r);
}

static void on_browse(AvahiServiceBrowser *b, AvahiIfIndex iface, AvahiProtocol proto,
                      AvahiBrowserEvent event, const char *name, const char *type,
                      const char *domain, AvahiLookupResultFlags flags, void *ctx)
{
    (void)flags;
    nmos_dnssd *d = ctx;
    if (event == AVAHI_BROWSER_NEW) {
        avahi_service_resolver_new(avahi_service_browser_get_client(b), iface, proto, name, type,
                                   domain, AVAHI_PROTO_UNSPEC, 0, on_resolved, d);
    } else if (event == AVAHI_BROWSER_REMOVE) {
        pthread_mutex_lock(&d->mu);
        for (int i = 0; i < d->nreg; i++)
            if (!strcmp(d->reg[i].name, name)) {
                d->reg[i] = d->reg[--d->nreg];
                i--;
            }
        pthread_mutex_unlock(&d->mu);
    }
}

static AvahiStringList *node_txt(const nmos_dnssd *d)
{
    char v[32];
    snprintf(v, sizeof v, "%u", d->ver % 256); /* IS-04: 0..255, wrapping */
    AvahiStringList *t = NULL;
    t = avahi_string_list_add_pair(t, "api_proto", "http");
    t = avahi_string_list_add_pair(t, "api_ver", "v1.3");
    t = avahi_string_list_add_pair(t, "api_auth", "false");
    static const char *const keys[] = {"ver_slf", "ver_src", "ver_flw",
                                       "ver_dvc", "ver_snd", "ver_rcv"};
    for (int i = 0; i < 6; i++)
        t = avahi_string_list_add_pair(t, keys[i], v);
    return t;
}

static void publish(nmos_dnssd *d, AvahiClient *c)
{
    if (!d->group)
        d->group = avahi_entry_group_new(c, NULL, NULL);
    if (!d->group)
        return;
    AvahiStringList *t = node_txt(d);
    if (avahi_entry_group_add_service_strlst(d->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0,
                                             d->service_name, "_nmos-node._tcp", NULL, NULL,
                                             d->port, t) == 0)
        avahi_entry_group_commit(d->group);
    avahi_string_list_free(t);
}

static void on_client(AvahiClient *c, AvahiClientState state, void *ctx)
{
    nmos_dnssd *d = ctx;
    if (state == AVAHI_CLIENT_S_RUNNING) {
        if (d->publish)
            publish(d, c);
        if (d->browse) {
            avahi_service_browser_new(c, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, "_nmos-register._tcp",
                                      d->domain[0] ? d->domain : NULL, 0, on_browse, d);
        }
    }
}

xsf_status nmos_dnssd_start(nmos_node *n, int browse, int publish_node, const char *domain,
                            xsf_error *err)
{
    nmos_dnssd *d = calloc(1, sizeof *d);
    if (!d)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&d->mu, NULL);
    d->browse = browse;
    d->publish = publish_node;
    d->port = n->port;
    snprintf(d->domain, sizeof d->domain, "%s", domain ? domain : "");
    snprintf(d->service_name, sizeof d->service_name, "xsflow %.40s:%u", n->hostname,
             n->port); /* DNS labels: 63 bytes */
    d->poll = avahi_threaded_poll_new();
    int error = 0;
    if (d->poll)
        d->client = avahi_client_new(avahi_threaded_poll_get(d->poll), 0, on_client, d, &error);
    if (!d->poll || !d->client) {
        const char *why = d->poll ? avahi_strerror(error) : "out of memory";
        if (d->poll)
            avahi_threaded_poll_free(d->poll);
        pthread_mutex_destroy(&d->mu);
        free(d);
        return xsf_error_set(err, XSF_ERR_IO, "Avahi: %s (is avahi-daemon running?)", why);
    }
    if (avahi_threaded_poll_start(d->poll) < 0) {
        avahi_client_free(d->client);
        avahi_threaded_poll_free(d->poll);
        pthread_mutex_destroy(&d->mu);
        free(d);
        return xsf_error_set(err, XSF_ERR_IO, "Avahi: cannot start its thread");
    }
    pthread_mutex_lock(&n->mu);
    n->dnssd = d;
    n->status.p2p_advertised = publish_node;
    pthread_mutex_unlock(&n->mu);
    return XSF_OK;
}

int nmos_dnssd_registry(nmos_node *n, char *url, size_t cap)
{
    nmos_dnssd *d = n->dnssd;
    if (!d)
        return 0;
    pthread_mutex_lock(&d->mu);
    int best = -1;
    for (int i = 0; i < d->nreg; i++)
        if (!d->reg[i].failed && (best < 0 || d->reg[i].pri < d->reg[best].pri))
            best = i;
    if (best < 0) /* every one failed: try them all again */
        for (int i = 0; i < d->nreg; i++)
            d->reg[i].failed = 0;
    if (best >= 0)
        snprintf(url, cap, "%s", d->reg[best].url);
    pthread_mutex_unlock(&d->mu);
    return best >= 0;
}

void nmos_dnssd_registry_failed(nmos_node *n, const char *url)
{
    nmos_dnssd *d = n->dnssd;
    if (!d)
        return;
    pthread_mutex_lock(&d->mu);
    for (int i = 0; i < d->nreg; i++)
        if (!strcmp(d->reg[i].url, url))
            d->reg[i].failed = 1;
    pthread_mutex_unlock(&d->mu);
}

void nmos_dnssd_update(nmos_node *n)
{
    nmos_dnssd *d = n->dnssd;
    if (!d || !d->publish)
        return;
    avahi_threaded_poll_lock(d->poll);
    d->ver++;
    if (d->group) {
        AvahiStringList *t = node_txt(d);
        avahi_entry_group_update_service_txt_strlst(d->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC,
                                                    0, d->service_name, "_nmos-node._tcp", NULL, t);
        avahi_string_list_free(t);
    }
    avahi_threaded_poll_unlock(d->poll);
}

void nmos_dnssd_stop(nmos_node *n)
{
    nmos_dnssd *d = n->dnssd;
    if (!d)
        return;
    avahi_threaded_poll_stop(d->poll);
    avahi_client_free(d->client); /* frees the group, browsers and resolvers */
    avahi_threaded_poll_free(d->poll);
    pthread_mutex_destroy(&d->mu);
    free(d);
    n->dnssd = NULL;
}
