/* xsflow nmos: the decoder service as an AMWA NMOS node.
 *
 *   IS-04 v1.3 Node API        /x-nmos/node/v1.3/   self, devices, sources,
 *                                                   flows, senders, receivers
 *   IS-05 v1.1 Connection API  /x-nmos/connection/v1.1/   single and bulk
 *   IS-04 registration         POST resources to a registry (given by URL or
 *                              found through DNS-SD, _nmos-register._tcp),
 *                              heartbeats, re-registration when the registry
 *                              forgets the node (404) or comes back
 *   peer-to-peer               _nmos-node._tcp advertised through Avahi
 *
 * One device holds one JPEG XS receiver (video/jxsv, BCP-006-01) per
 * decoding slot of the service and one sender per stream the node sends
 * (each described by its SDP). Ids are name-based UUIDs (RFC 4122 v3) of the
 * node's seed, so a node restarted with the same seed keeps its ids.
 *
 * Activating a receiver through IS-05 (immediately or at a TAI time) calls
 * the caller's activate(): the SDP (transport_file) and the resolved
 * transport parameters, or enable 0 to stop. The call comes from the HTTP
 * thread or the scheduler thread, one at a time; it may block (stopping a
 * stream waits for its frames). nmos_service (below) is an activate() that
 * runs streams in a pl_pipeline.
 *
 * Threads: libmicrohttpd's (the APIs), a scheduler (timed activations),
 * a registration thread (libcurl; Avahi's threaded poll for DNS-SD). Every
 * call here may be made from any thread. Nothing here prints: what happens
 * is read with nmos_node_status and nmos_node_log. */
#ifndef XSF_NMOS_H
#define XSF_NMOS_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"
#include "rtp.h"
#include "xsf.h"
#include "xsf_option.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NMOS_MAX_RECEIVERS 64
#define NMOS_MAX_SENDERS 16
#define NMOS_SDP_MAX 8192 /* largest SDP accepted (transport_file, sender files) */
/* Legs of a stream (SMPTE ST 2022-7: the same packets on two network paths).
 * IS-05 lists one set of transport parameters per leg; receivers and the
 * senders the node sends itself have two, a sender another program sends
 * as many as its SDP describes (a=group:DUP, RFC 7104). */
#define NMOS_LEGS 2

/* One leg of a receiver's connection as IS-05 activated it. */
typedef struct nmos_rx_leg {
    int enable;            /* rtp_enabled: receive on this leg */
    rtp_sdp parsed;        /* its media description (when has_sdp), the parameters applied */
    int has_sdp;           /* the transport file described this leg */
    char multicast_ip[64]; /* "" for unicast */
    char source_ip[64];    /* source-specific multicast, "" for any */
    char interface_ip[64]; /* resolved (never "auto") */
    unsigned destination_port;
} nmos_rx_leg;

/* A receiver's connection as IS-05 activated it. */
typedef struct nmos_activation {
    unsigned receiver;          /* index, 0 .. receivers-1 */
    const char *receiver_id;    /* its UUID */
    int enable;                 /* master_enable and a leg enabled: 0 stops the stream */
    const char *sdp;            /* the transport_file, or NULL when none was given */
    nmos_rx_leg leg[NMOS_LEGS]; /* Path 1, Path 2 (IS-05's order) */
} nmos_activation;

typedef xsf_status (*nmos_activate_fn)(void *ctx, const nmos_activation *a, xsf_error *err);

/* A sender's connection as IS-05 activated it (senders the node controls). */
typedef struct nmos_tx_leg {
    int enable; /* rtp_enabled: send on this leg */
    char source_ip[64], destination_ip[64];
    unsigned source_port, destination_port;
} nmos_tx_leg;

typedef struct nmos_sender_activation {
    unsigned sender; /* index, 0 .. nsenders-1 */
    const char *sender_id;
    int enable; /* master_enable and a leg enabled: 0 stops sending */
    nmos_tx_leg leg[NMOS_LEGS];
    unsigned legs;      /* of the sender: 1 or 2 */
    const rtp_sdp *sdp; /* the sender's SDP as configured (its first leg) */
} nmos_sender_activation;

typedef xsf_status (*nmos_activate_sender_fn)(void *ctx, const nmos_sender_activation *a,
                                              xsf_error *err);

typedef struct nmos_sender_config {
    const char *label;
    const char *sdp; /* the stream's session description (RFC 9134): its flow and transport */
    /* 1: the node sends this stream itself: an activation calls
     * activate_sender, and it sends nothing until a controller enables it.
     * 0: another program sends it (e.g. xsflow send): advertised as active,
     * activations change only what is advertised. */
    int controlled;
} nmos_sender_config;

/* The node's clock (IS-04 clk0, the one its sources name), as the senders'
 * SDPs declare it (a=ts-refclk, RFC 7273): the host's own clock ("internal",
 * a=ts-refclk:localmac=MAC of the interface), or PTP (IEEE 1588-2008, the
 * host's clock locked to it, e.g. by linuxptp's phc2sys). */
typedef struct nmos_clock {
    int ptp;
    char gmid[24];   /* the grandmaster's EUI-64, "ec-46-70-ff-fe-00-ce-de" (IS-04's form) */
    unsigned domain; /* PTP domain (SMPTE ST 2059-2's default: 127) */
    int traceable;   /* traceable to TAI: a=ts-refclk:ptp=IEEE1588-2008:traceable */
} nmos_clock;

typedef struct nmos_config {
    const char *label;  /* the node's label (default "xsflow") */
    const char *host;   /* address the APIs bind and advertise (default 127.0.0.1) */
    uint16_t port;      /* 0: any free port (nmos_node_port) */
    const char *seed;   /* ids derive from it (default "xsflow:HOSTNAME:HOST:PORT") */
    unsigned receivers; /* decoding slots, one receiver each (<= NMOS_MAX_RECEIVERS) */
    nmos_sender_config senders[NMOS_MAX_SENDERS];
    unsigned nsenders;
    /* Registration: a registry's base URL ("http://host:port"), or DNS-SD
     * when discover is set (dnssd_domain NULL: mDNS, else unicast DNS-SD in
     * that domain); neither: no registry. */
    const char *registry_url;
    int discover;
    const char *dnssd_domain;
    int p2p;            /* advertise _nmos-node._tcp (peer-to-peer, no registry needed) */
    double heartbeat_s; /* 0: 5 s (IS-04's default) */
    nmos_clock clock;   /* zero: internal */
    nmos_activate_fn activate;
    nmos_activate_sender_fn activate_sender; /* for controlled senders; may be NULL */
    void *activate_ctx;                      /* of both */
} nmos_config;

typedef struct nmos_node nmos_node;

/* Starts the HTTP server (errors: address in use, bad host) and the threads. */
xsf_status nmos_node_create(nmos_node **n, const nmos_config *cfg, xsf_error *err);
/* Unregisters from the registry (DELETE), stops the threads and the server.
 * Does not deactivate receivers: the caller stops its streams. */
void nmos_node_destroy(nmos_node *n);

uint16_t nmos_node_port(const nmos_node *n);
/* "http://127.0.0.1:8080" */
const char *nmos_node_url(const nmos_node *n);
const char *nmos_node_id(const nmos_node *n);
/* The UUID of receiver i / sender i ("" when out of range). */
const char *nmos_node_receiver_id(const nmos_node *n, unsigned i);
const char *nmos_node_sender_id(const nmos_node *n, unsigned i);

typedef struct nmos_status {
    int registered;                   /* the registry has the node and answers heartbeats */
    char registry[256];               /* the registry in use, "" when none */
    uint64_t registrations;           /* times the node was POSTed (1 + re-registrations) */
    uint64_t heartbeats;              /* heartbeats answered 200 */
    uint64_t heartbeat_404;           /* the registry had forgotten the node */
    uint64_t registry_errors;         /* requests that failed (no answer, 5xx) */
    uint64_t activations;             /* receiver and sender activations applied */
    int p2p_advertised;               /* _nmos-node._tcp is published */
    char dnssd_error[XSF_ERRMSG_LEN]; /* why DNS-SD is not working, "" when it is */
} nmos_status;
void nmos_node_status(nmos_node *n, nmos_status *st);

/* The next line of the node's log (registration, activations, errors),
 * oldest first; 0 when there is none. Lines are kept up to 64. */
int nmos_node_log(nmos_node *n, char *line, size_t cap);

/* ------------------------------------------------------------------ */
/* The decoder service behind a node: each activated receiver is an RTP
 * source and a stream of a running pipeline; activating it again retargets
 * it (the old stream stops, a new one starts); deactivating stops it. The
 * others are not disturbed (pl_stream_remove). A receiver is configured from
 * its SDP as `xsflow recv` is (rtp_receiver_setup_from_sdp): payload type,
 * interlace, and the bound of the SDP's picture on every frame. */

typedef struct nmos_service_config {
    pl_pipeline *pipeline;
    /* Where a receiver's pictures go: NULL or "null" decodes and drops
     * them; otherwise a path in which "%u" (once) stands for the receiver
     * index, ending in .yuv, .y4m or .jxs; each activation starts the file
     * anew. */
    const char *output;
    /* The pixel format of every receiver's pictures (the pipeline's picture request,
     * pl_stream_config.pix_fmt; XSF_PLANAR_U16: as decoded), converted with the colour of
     * the receiver's SDP (colorimetry, RANGE), else the codestream's. Not with .jxs output
     * (XSF_ERR_ARG). A stream the format does not apply to has its frames refused. */
    xsf_container pix_fmt;
    int md5;                  /* keep each stream's MD5 (nmos_service_stream) */
    unsigned reorder_ms;      /* 0: 20 */
    unsigned reorder_packets; /* the reorder window; 0: 512 (see rtp_receiver_options) */
} nmos_service_config;

typedef struct nmos_service nmos_service;

xsf_status nmos_service_create(nmos_service **s, const nmos_service_config *cfg, xsf_error *err);
/* The nmos_activate_fn: give it with the service as ctx. */
xsf_status nmos_service_activate(void *service, const nmos_activation *a, xsf_error *err);

typedef struct nmos_stream_info {
    int running;          /* receiving now */
    uint64_t activations; /* streams started for this receiver */
    uint64_t frames;      /* frames delivered by the current (or last) stream */
    uint64_t packets;
    char md5[33];    /* of the last stream, once stopped (with cfg.md5) */
    char source[80]; /* "239.1.1.1:5004" */
} nmos_stream_info;
void nmos_service_stream(nmos_service *s, unsigned receiver, nmos_stream_info *info);

/* Senders the service sends itself: a clip (.jxs codestreams, as in a
 * file; copied) sent in a loop to the activated destination (each enabled leg
 * of two: the same packets on both, SMPTE ST 2022-7), each frame's
 * packets in one burst at its time (rtp_sender with RTP_PACING_FRAME: no ST
 * 2110-21 pacing; RTP timestamps on the TAI grid, ST 2110-10, as the SDP's
 * a=ts-refclk says), RTP sequence numbers, timestamps and F counters running on
 * across loops. The SDP's payload type and frame rate are used. A clip that is
 * not JPEG XS codestreams throughout is refused. */
xsf_status nmos_service_add_clip(nmos_service *s, unsigned sender, const uint8_t *clip, size_t len,
                                 xsf_error *err);
/* The nmos_activate_sender_fn (the service as ctx). */
xsf_status nmos_service_activate_sender(void *service, const nmos_sender_activation *a,
                                        xsf_error *err);
typedef struct nmos_sender_info {
    int running;
    uint64_t activations;
    uint64_t frames, packets; /* sent by the current (or last) activation */
    char destination[128];    /* ADDR:PORT, or A:PORT,B:PORT with two legs */
} nmos_sender_info;
void nmos_service_sender(nmos_service *s, unsigned sender, nmos_sender_info *info);
/* Stops every stream, then frees. */
void nmos_service_destroy(nmos_service *s);

/* ------------------------------------------------------------------ */
/* A node with its decoding service, set up from files (`xsflow node`)  */

typedef struct nmos_host_config {
    /* The node; for each of its node.nsenders senders, sdp and label are set from the
     * SDP file below, and activate, activate_sender and activate_ctx are the service's. */
    nmos_config node;
    const char *sender_sdp[NMOS_MAX_SENDERS];  /* the senders' SDP files (label: the path) */
    const char *sender_clip[NMOS_MAX_SENDERS]; /* NULL, or a .jxs clip the node sends for that
                                                  sender itself (nmos_service_add_clip) */
    pl_config pl;                              /* the pipeline the receivers' streams join */
    const char *output;                        /* nmos_service_config.output */
    xsf_container pix_fmt;                     /* nmos_service_config.pix_fmt */
} nmos_host_config;

/* The defaults: port 8080, 4 receivers, the rest zero (nmos_config's defaults). */
void nmos_host_config_init(nmos_host_config *c);

/* The host's knobs (xsf_option.h) on an nmos_host_config, as `xsflow node` takes them
 * (--NAME): host, port, label, seed, receivers (at most NMOS_MAX_RECEIVERS), sender
 * (repeatable, at most NMOS_MAX_SENDERS), send (the last sender's clip, once each), output,
 * registry, discover, domain, p2p, heartbeat, ptp (GMID[:DOMAIN], the grandmaster's EUI-64
 * kept in lower case, domain 0..255, default 127), ptp-traceable, cpu, gpu, threads; each
 * with its help. Text knobs keep the caller's strings. */
extern const xsf_option nmos_host_knobs[];

/* After the knobs: ptp-traceable needs ptp (*subject "--ptp-traceable"), registry and
 * discover exclude each other ("--discover"); XSF_ERR_ARG then, else XSF_OK. */
xsf_status nmos_host_config_check(const nmos_host_config *c, const char **subject, xsf_error *err);

typedef struct nmos_host nmos_host;

/* Reads the senders' SDP files, creates the pipeline and the service, adds the clips,
 * then starts the node (its HTTP server and threads). `c` (node.senders filled in
 * here) must outlive the host. On failure nothing is left running; *subject says
 * what failed: an SDP or clip file (its path), "pipeline", "-o" (the output the
 * service refused) or "node". */
xsf_status nmos_host_create(nmos_host **h, nmos_host_config *c, const char **subject,
                            xsf_error *err);
nmos_node *nmos_host_node(const nmos_host *h);
nmos_service *nmos_host_service(const nmos_host *h);
pl_pipeline *nmos_host_pipeline(const nmos_host *h);
/* Stops the node (no more activations), then the streams, then the pipeline. */
void nmos_host_destroy(nmos_host *h);

#ifdef __cplusplus
}
#endif
#endif
