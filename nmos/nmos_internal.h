/* The node's state, shared by the files of nmos/ (not installed). */
#ifndef XSF_NMOS_INTERNAL_H
#define XSF_NMOS_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "nmos.h"

#define NMOS_LOG_LINES 64
#define NMOS_VERSION_LEN 32

/* A transport file's legs (sdp_legs.c): one stream, or the streams of an
 * a=group:DUP in the group's order. */
typedef struct nmos_sdp_legs {
    unsigned count; /* 1 .. NMOS_LEGS */
    rtp_sdp leg[NMOS_LEGS];
} nmos_sdp_legs;

/* Reads an SDP into its legs (rtp_sdp_parse_legs): without a=group:DUP its
 * jxsv stream, one leg; with it the media descriptions the group names. */
xsf_status nmos_sdp_legs_parse(const char *text, size_t len, nmos_sdp_legs *out, xsf_error *err);
/* Writes `count` legs (rtp_sdp_write_legs: two are grouped by a=group:DUP
 * primary secondary), each media description with a=ts-refclk:REFCLK when
 * refclk is given (the node's clock over what the leg named). malloc'd; NULL when out of memory. */
char *nmos_sdp_legs_write(const rtp_sdp *const *legs, unsigned count, const char *refclk);
/* The a=ts-refclk value of a clock (RFC 7273): ptp=IEEE1588-2008:GMID:DOMAIN,
 * ptp=IEEE1588-2008:traceable, or localmac=MAC (port_id, IS-04's form). */
void nmos_ts_refclk(const nmos_clock *c, const char *port_id, char *out, size_t cap);

/* One IS-05 endpoint: a sender or a receiver, with its IS-04 version. */
typedef struct nmos_port {
    int sender;
    unsigned index;
    char id[37];
    char flow_id[37], source_id[37]; /* senders */
    char label[160];
    char version[NMOS_VERSION_LEN]; /* IS-04 resource version, bumped on activation */
    cJSON *staged;                  /* the /staged object */
    cJSON *active;                  /* the /active object */
    int pending;                    /* a scheduled activation waits */
    uint64_t due_ns;                /* its TAI time, ns */
    char *sdp;                      /* senders: the configured SDP; receivers: the active one */
    nmos_sdp_legs sdp_legs;         /* senders: their SDP read (leg[0] describes the flow) */
    unsigned legs;                  /* IS-05 legs: NMOS_LEGS, or a described sender's SDP's */
    int dirty;                      /* changed since it was last sent to the registry */
    int controlled;                 /* senders: the node sends it (activate_sender) */
} nmos_port;

typedef struct nmos_dnssd nmos_dnssd;

struct nmos_node {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* scheduler and registration wake-ups */
    int stopping;
    nmos_config cfg;
    char host[64], hostname[128], label[128], url[128];
    char ifname[32], port_id[18]; /* the interface of host, its MAC as IS-04 writes it */
    uint16_t port;
    char node_id[37], device_id[37];
    char node_version[NMOS_VERSION_LEN], device_version[NMOS_VERSION_LEN];
    uint64_t last_version_ns;
    nmos_port rx[NMOS_MAX_RECEIVERS];
    unsigned nrx;
    nmos_port tx[NMOS_MAX_SENDERS];
    unsigned ntx;
    struct MHD_Daemon *httpd;
    pthread_t scheduler, registration;
    int scheduler_started, registration_started;
    nmos_status status;
    char log[NMOS_LOG_LINES][160];
    unsigned log_head, log_count;
    nmos_dnssd *dnssd;
    int resources_changed; /* bumps the p2p TXT versions */
};

/* node.c */
/* TAI now, ns: the packet clock (xsf_clock_wall_ns) plus the TAI-UTC offset. */
uint64_t nmos_tai_now_ns(void);
void nmos_version_string(uint64_t tai_ns, char out[NMOS_VERSION_LEN]);
/* A new version, later than every one given so far (caller holds mu). */
void nmos_new_version(nmos_node *n, char out[NMOS_VERSION_LEN]);
/* "sec:nsec" -> ns; -1 when malformed. */
int nmos_parse_time(const char *s, uint64_t *ns);
void nmos_logf(nmos_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nmos_is_uuid(const char *s);

/* resources.c: IS-04 resources (caller holds mu). */
cJSON *nmos_json_self(nmos_node *n);
cJSON *nmos_json_device(nmos_node *n);
cJSON *nmos_json_source(nmos_node *n, const nmos_port *tx);
cJSON *nmos_json_flow(nmos_node *n, const nmos_port *tx);
cJSON *nmos_json_sender(nmos_node *n, const nmos_port *tx);
cJSON *nmos_json_receiver(nmos_node *n, const nmos_port *rx);

/* An HTTP answer: the body (owned, NUL-terminated) and its type. */
typedef struct nmos_reply {
    int code;
    char *body;
    const char *type; /* "application/json", "application/sdp" */
    char location[256];
} nmos_reply;
void nmos_reply_json(nmos_reply *r, int code, cJSON *json); /* takes json */
void nmos_reply_error(nmos_reply *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An HTTP request's body (len bytes, NUL-terminated after them) as JSON:
 * NULL with why when it is not JSON, holds a string with U+0000, or goes
 * on after its JSON with anything but white space (a NUL included). */
cJSON *nmos_json_parse(const char *body, size_t len, char *why, size_t cap);

/* connection.c, connection_api.c: IS-05 (caller holds mu). */
void nmos_connection_init(nmos_node *n, nmos_port *p);
void nmos_connection_route(nmos_node *n, const char *method, char **seg, int nseg, const char *body,
                           size_t body_len, nmos_reply *r);
nmos_port *nmos_find_port(nmos_node *n, int sender, const char *id);
cJSON *nmos_constraints(nmos_node *n, const nmos_port *p);
/* A PATCH of /staged (validated here): the answer's code and body. */
void nmos_patch_staged(nmos_node *n, nmos_port *p, const cJSON *body, nmos_reply *r);
/* Applies the scheduled activations that are due; the TAI time of the next, or 0. */
uint64_t nmos_connection_run_due(nmos_node *n);
/* A sender's transport file for its active parameters (malloc'd). */
char *nmos_sender_sdp(nmos_node *n, const nmos_port *tx);

/* http.c */
xsf_status nmos_http_start(nmos_node *n, xsf_error *err);
void nmos_http_stop(nmos_node *n);

/* registration.c */
void *nmos_registration_main(void *arg);

/* dnssd.c: Avahi. A registry found, its URL and priority. */
xsf_status nmos_dnssd_start(nmos_node *n, int browse, int publish, const char *domain,
                            xsf_error *err);
/* The best registry found so far (lowest priority, v1.3, http); 0 when none. */
int nmos_dnssd_registry(nmos_node *n, char *url, size_t cap);
/* Forgets a registry that failed, so that the next best is taken. */
void nmos_dnssd_registry_failed(nmos_node *n, const char *url);
/* Updates the TXT versions of _nmos-node._tcp (resources changed). */
void nmos_dnssd_update(nmos_node *n);
void nmos_dnssd_stop(nmos_node *n);

#endif
