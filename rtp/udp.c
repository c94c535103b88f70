/* UDP sockets for RTP: IPv4 and IPv6, unicast and multicast (any-source and
 * source-specific joins through the protocol-independent MCAST_JOIN_GROUP /
 * MCAST_JOIN_SOURCE_GROUP of RFC 3678), an interface of choice, large socket
 * buffers (SO_RCVBUFFORCE where privileged), batched reception (recvmmsg)
 * and transmission (sendmmsg), kernel receive timestamps (SO_TIMESTAMPNS)
 * and the kernel's drop counter (SO_RXQ_OVFL). Linux.
 *
 * Segmentation offload, both ways (Linux 4.18 and 5.0 on): a sender with
 * gso_segments > 1 hands the kernel each run of equal-size packets (the last
 * may be shorter) as one message with a UDP_SEGMENT control message; the
 * kernel cuts it into datagrams (in the NIC, or in software), one pass
 * through the stack for the run. A receiver with `gro` asks for UDP_GRO: the
 * kernel may then deliver several datagrams of one flow as one buffer with
 * a UDP_GRO control message giving the datagram size (over loopback, a GSO
 * run arrives whole); rtp_udp_receive cuts it back into datagrams, pointing
 * into the buffer (no copy). Where the kernel refuses either, the socket
 * falls back to one datagram per message and says so (rtp_udp_gso/gro). */
#define _GNU_SOURCE /* recvmmsg, sendmmsg, SO_RCVBUFFORCE */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rtp_internal.h"
#include "xsf_clock.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103 /* linux/udp.h, 4.18 */
#endif
#ifndef UDP_GRO
#define UDP_GRO 104 /* linux/udp.h, 5.0 */
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

/* The largest UDP payload, so that nothing is cut: also the largest buffer
 * UDP_GRO coalesces (one IP datagram's worth). */
#define DATAGRAM_BYTES 65536
#define CONTROL_BYTES 256
/* A GSO message's payload: the IPv4 datagram's 65535 bytes less its IP and
 * UDP headers (IPv6's limit is higher; the smaller serves both). */
#define GSO_PAYLOAD_MAX (65535 - 20 - 8)

struct rtp_udp {
    int fd;
    int family;
    int has_source; /* receiver: datagrams from elsewhere are marked foreign_source */
    rtp_addr source;
    int timestamps;
    int gro;               /* receiver: UDP_GRO granted */
    unsigned gso_segments; /* sender: most datagrams per GSO message; <= 1: no GSO */
    int gso_error;         /* sender: the errno with which the kernel refused GSO, 0 */
    size_t buffer_bytes;
    uint16_t local_port;
    uint64_t drops;
    rtp_udp_counters counters;
    uint8_t *bufs; /* receiver: RTP_UDP_BATCH x DATAGRAM_BYTES */
    struct mmsghdr msgs[RTP_UDP_BATCH];
    struct iovec iov[RTP_UDP_BATCH];
    struct sockaddr_storage from[RTP_UDP_BATCH];
    uint8_t control[RTP_UDP_BATCH][CONTROL_BYTES];
    /* Receiver: the buffers of the last recvmmsg not yet handed out (a GRO
     * buffer may hold more datagrams than one call's RTP_UDP_BATCH). */
    int pending_msgs, next_msg;
    size_t next_offset;
    uint64_t msg_arrival[RTP_UDP_BATCH];
    size_t msg_segment[RTP_UDP_BATCH]; /* datagram size in the buffer; 0: one datagram */
    /* Sender: one iovec per packet of the messages of one sendmmsg. */
    struct iovec *send_iov; /* RTP_UDP_BATCH x RTP_UDP_GSO_MAX */
};

xsf_status rtp_addr_parse(const char *text, int need_port, rtp_addr *a, xsf_error *err)
{
    memset(a, 0, sizeof *a);
    char host[128], port[16] = "";
    const char *t = text;
    if (*t == '[') {
        const char *close = strchr(t, ']');
        if (!close || (size_t)(close - t - 1) >= sizeof host)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s': expected [IPV6]:PORT", text);
        memcpy(host, t + 1, (size_t)(close - t - 1));
        host[close - t - 1] = '\0';
        if (close[1] == ':')
            snprintf(port, sizeof port, "%s", close + 2);
        else if (close[1])
            return xsf_error_set(err, XSF_ERR_ARG, "'%s': expected [IPV6]:PORT", text);
    } else {
        const char *colon = strrchr(t, ':');
        if (colon && strchr(t, ':') == colon) { /* one colon: IPv4:PORT */
            if ((size_t)(colon - t) >= sizeof host)
                return xsf_error_set(err, XSF_ERR_ARG, "'%s': address too long", text);
            memcpy(host, t, (size_t)(colon - t));
            host[colon - t] = '\0';
            snprintf(port, sizeof port, "%s", colon + 1);
        } else {
            snprintf(host, sizeof host, "%s", t);
        }
    }
    if (need_port && !port[0])
        return xsf_error_set(err, XSF_ERR_ARG,
                             "'%s': expected ADDRESS:PORT (IPv6 as [ADDRESS]:PORT)", text);
    if (port[0]) {
        char *end;
        const long p = strtol(port, &end, 10);
        if (*end || p < 0 || p > 65535)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s': port '%s' is not 0 to 65535", text, port);
        a->port = (uint16_t)p;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = AI_NUMERICHOST; /* no name lookups: addresses only */
    hints.ai_socktype = SOCK_DGRAM;
    if (getaddrinfo(host, NULL, &hints, &res) || !res)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s': '%s' is not an IPv4 or IPv6 address", text,
                             host);
    a->family = res->ai_family;
    if (res->ai_family == AF_INET) {
        memcpy(a->addr, &((struct sockaddr_in *)res->ai_addr)->sin_addr, 4);
    } else {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)res->ai_addr;
        memcpy(a->addr, &s6->sin6_addr, 16);
        a->scope_id = s6->sin6_scope_id;
    }
    freeaddrinfo(res);
    return XSF_OK;
}

void rtp_addr_format(const rtp_addr *a, int with_port, char *out, size_t cap)
{
    char host[INET6_ADDRSTRLEN] = "?";
    inet_ntop(a->family == AF_INET6 ? AF_INET6 : AF_INET, a->addr, host, sizeof host);
    if (!with_port)
        snprintf(out, cap, "%s", host);
    else if (a->family == AF_INET6)
        snprintf(out, cap, "[%s]:%u", host, a->port);
    else
        snprintf(out, cap, "%s:%u", host, a->port);
}

int rtp_addr_is_multicast(const rtp_addr *a)
{
    return a->family == AF_INET6 ? a->addr[0] == 0xff : (a->addr[0] & 0xf0) == 0xe0;
}

static socklen_t to_sockaddr(const rtp_addr *a, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (a->family == AF_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(a->port);
        memcpy(&s6->sin6_addr, a->addr, 16);
        s6->sin6_scope_id = a->scope_id;
        return sizeof *s6;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    s4->sin_family = AF_INET;
    s4->sin_port = htons(a->port);
    memcpy(&s4->sin_addr, a->addr, 4);
    return sizeof *s4;
}

static void from_sockaddr(const struct sockaddr_storage *ss, rtp_addr *a)
{
    memset(a, 0, sizeof *a);
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
        a->family = AF_INET6;
        memcpy(a->addr, &s6->sin6_addr, 16);
        a->port = ntohs(s6->sin6_port);
        a->scope_id = s6->sin6_scope_id;
    } else {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        a->family = AF_INET;
        memcpy(a->addr, &s4->sin_addr, 4);
        a->port = ntohs(s4->sin_port);
    }
}

/* The same IP address (ports and scopes aside); an IPv4 sender seen on an IPv6
 * socket comes as ::ffff:a.b.c.d. */
static int same_host(const rtp_addr *a, const rtp_addr *b)
{
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (a->family == b->family)
        return !memcmp(a->addr, b->addr, a->family == AF_INET6 ? 16 : 4);
    const rtp_addr *v6 = a->family == AF_INET6 ? a : b, *v4 = a->family == AF_INET6 ? b : a;
    return !memcmp(v6->addr, v4mapped, 12) && !memcmp(v6->addr + 12, v4->addr, 4);
}

static xsf_status fail(rtp_udp *u, xsf_error *err, const char *what)
{
    const int e = errno;
    xsf_status st = xsf_error_set(err, XSF_ERR_IO, "%s: %s", what, strerror(e));
    rtp_udp_close(u);
    return st;
}

/* Asks for `want` bytes of socket buffer, forcing past the sysctl limit
 * where privileged; returns what the kernel granted (it reports twice the
 * request, its bookkeeping included: halved here). */
static size_t set_buffer(int fd, int rcv, size_t want)
{
    int v = want > (size_t)1 << 30 ? 1 << 30 : (int)want;
    if (setsockopt(fd, SOL_SOCKET, rcv ? SO_RCVBUFFORCE : SO_SNDBUFFORCE, &v, sizeof v))
        (void)setsockopt(fd, SOL_SOCKET, rcv ? SO_RCVBUF : SO_SNDBUF, &v, sizeof v);
    int got = 0;
    socklen_t len = sizeof got;
    if (getsockopt(fd, SOL_SOCKET, rcv ? SO_RCVBUF : SO_SNDBUF, &got, &len))
        return 0;
    return (size_t)got / 2;
}

static unsigned iface_index(const char *iface)
{
    return iface[0] ? if_nametoindex(iface) : 0;
}

static rtp_udp *udp_alloc(int family)
{
    rtp_udp *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
    u->family = family;
    return u;
}

xsf_status rtp_udp_open_receiver(rtp_udp **out, const rtp_udp_config *cfg, xsf_error *err)
{
    *out = NULL;
    const rtp_addr *local = &cfg->local;
    const int family = local->family ? local->family : AF_INET;
    rtp_udp *u = udp_alloc(family);
    if (!u)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a socket");
    if (u->fd < 0)
        return fail(u, err, "socket");
    u->bufs = malloc((size_t)RTP_UDP_BATCH * DATAGRAM_BYTES);
    if (!u->bufs) {
        rtp_udp_close(u);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for receive buffers");
    }
    const int on = 1;
    const int multicast = rtp_addr_is_multicast(local);
    if (multicast && setsockopt(u->fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on))
        return fail(u, err, "SO_REUSEADDR");
    if (cfg->reuse_port && setsockopt(u->fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on))
        return fail(u, err, "SO_REUSEPORT");
    u->buffer_bytes =
        set_buffer(u->fd, 1, cfg->buffer_bytes ? cfg->buffer_bytes : (size_t)32 << 20);
    (void)setsockopt(u->fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
    if (cfg->timestamps) {
        if (setsockopt(u->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on))
            return fail(u, err, "SO_TIMESTAMPNS");
        u->timestamps = 1;
    }
    /* Refused by kernels before 5.0 (ENOPROTOOPT): datagrams then come one by one, as the
     * kernel cuts any GSO train itself for a socket without UDP_GRO. */
    if (cfg->gro && !setsockopt(u->fd, SOL_UDP, UDP_GRO, &on, sizeof on))
        u->gro = 1;
    const unsigned ifindex = iface_index(cfg->iface);
    if (cfg->iface[0] && !ifindex) {
        xsf_status st = xsf_error_set(err, XSF_ERR_ARG, "no network interface '%s'", cfg->iface);
        rtp_udp_close(u);
        return st;
    }
    struct sockaddr_storage ss;
    socklen_t sl = to_sockaddr(local, &ss);
    if (!local->family)
        ((struct sockaddr_in *)&ss)->sin_family = AF_INET;
    if (bind(u->fd, (struct sockaddr *)&ss, sl)) {
        char a[80], what[128];
        rtp_addr_format(local, 1, a, sizeof a);
        snprintf(what, sizeof what, "bind %s", a);
        return fail(u, err, what);
    }
    if (multicast) {
        /* RFC 3678 protocol-independent joins, by interface index. */
        const int level = family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
#ifdef IP_MULTICAST_ALL
        /* Linux hands an IPv4 socket bound to a group every group joined on the host
         * (by any socket) unless told not to: only this socket's joins. */
        const int off = 0;
        if (family == AF_INET && setsockopt(u->fd, IPPROTO_IP, IP_MULTICAST_ALL, &off, sizeof off))
            return fail(u, err, "IP_MULTICAST_ALL");
#endif
        if (cfg->has_source) {
            struct group_source_req gsr;
            memset(&gsr, 0, sizeof gsr);
            gsr.gsr_interface = ifindex;
            to_sockaddr(local, &gsr.gsr_group);
            to_sockaddr(&cfg->source, &gsr.gsr_source);
            if (setsockopt(u->fd, level, MCAST_JOIN_SOURCE_GROUP, &gsr, sizeof gsr))
                return fail(u, err, "source-specific multicast join (MCAST_JOIN_SOURCE_GROUP)");
        } else {
            struct group_req gr;
            memset(&gr, 0, sizeof gr);
            gr.gr_interface = ifindex;
            to_sockaddr(local, &gr.gr_group);
            if (setsockopt(u->fd, level, MCAST_JOIN_GROUP, &gr, sizeof gr))
                return fail(u, err, "multicast join (MCAST_JOIN_GROUP)");
        }
    } else if (cfg->iface[0] && setsockopt(u->fd, SOL_SOCKET, SO_BINDTODEVICE, cfg->iface,
                                           (socklen_t)strlen(cfg->iface))) {
        return fail(u, err, "SO_BINDTODEVICE");
    }
    sl = sizeof ss;
    if (!getsockname(u->fd, (struct sockaddr *)&ss, &sl)) {
        rtp_addr me;
        from_sockaddr(&ss, &me);
        u->local_port = me.port;
    }
    for (int i = 0; i < RTP_UDP_BATCH; i++) {
        u->iov[i].iov_base = u->bufs + (size_t)i * DATAGRAM_BYTES;
        u->iov[i].iov_len = DATAGRAM_BYTES;
    }
    /* Unicast has no kernel filter by sender short of connect(), which needs the
     * sender's port too: datagrams are checked here. Multicast joined source-
     * specifically is filtered by the kernel, and checked here again. */
    u->has_source = cfg->has_source;
    u->source = cfg->source;
    *out = u;
    return XSF_OK;
}

xsf_status rtp_udp_open_sender(rtp_udp **out, const rtp_addr *dest, const rtp_udp_config *cfg,
                               xsf_error *err)
{
    *out = NULL;
    rtp_udp *u = udp_alloc(dest->family);
    if (!u)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a socket");
    if (u->fd < 0)
        return fail(u, err, "socket");
    u->buffer_bytes = set_buffer(u->fd, 0, cfg->buffer_bytes ? cfg->buffer_bytes : (size_t)8 << 20);
    u->gso_segments = cfg->gso_segments > RTP_UDP_GSO_MAX ? RTP_UDP_GSO_MAX : cfg->gso_segments;
    u->send_iov = malloc((size_t)RTP_UDP_BATCH * RTP_UDP_GSO_MAX * sizeof *u->send_iov);
    if (!u->send_iov) {
        rtp_udp_close(u);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a socket");
    }
    const unsigned ifindex = iface_index(cfg->iface);
    if (cfg->iface[0] && !ifindex) {
        xsf_status st = xsf_error_set(err, XSF_ERR_ARG, "no network interface '%s'", cfg->iface);
        rtp_udp_close(u);
        return st;
    }
    if (rtp_addr_is_multicast(dest)) {
        const int ttl = cfg->ttl ? (int)cfg->ttl : 16, loop = 1;
        if (dest->family == AF_INET6) {
            if (setsockopt(u->fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof ttl) ||
                setsockopt(u->fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &loop, sizeof loop) ||
                (ifindex &&
                 setsockopt(u->fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof ifindex)))
                return fail(u, err, "IPv6 multicast options");
        } else {
            const unsigned char ttl8 = (unsigned char)(ttl > 255 ? 255 : ttl), loop8 = 1;
            struct ip_mreqn mr;
            memset(&mr, 0, sizeof mr);
            mr.imr_ifindex = (int)ifindex;
            if (setsockopt(u->fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl8, sizeof ttl8) ||
                setsockopt(u->fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop8, sizeof loop8) ||
                (ifindex && setsockopt(u->fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof mr)))
                return fail(u, err, "IPv4 multicast options");
        }
    } else if (cfg->iface[0] && setsockopt(u->fd, SOL_SOCKET, SO_BINDTODEVICE, cfg->iface,
                                           (socklen_t)strlen(cfg->iface))) {
        return fail(u, err, "SO_BINDTODEVICE");
    }
    struct sockaddr_storage ss;
    if (cfg->has_source) { /* send from this address (any port) */
        rtp_addr from = cfg->source;
        from.port = 0;
        const socklen_t fl = to_sockaddr(&from, &ss);
        if (bind(u->fd, (struct sockaddr *)&ss, fl)) {
            char a[80], what[128];
            rtp_addr_format(&from, 0, a, sizeof a);
            snprintf(what, sizeof what, "bind the source address %s", a);
            return fail(u, err, what);
        }
    }
    const socklen_t sl = to_sockaddr(dest, &ss);
    if (connect(u->fd, (struct sockaddr *)&ss, sl)) {
        char a[80], what[128];
        rtp_addr_format(dest, 1, a, sizeof a);
        snprintf(what, sizeof what, "connect %s", a);
        return fail(u, err, what);
    }
    *out = u;
    return XSF_OK;
}

void rtp_udp_close(rtp_udp *u)
{
    if (!u)
        return;
    if (u->fd >= 0)
        close(u->fd);
    free(u->bufs);
    free(u->send_iov);
    free(u);
}

size_t rtp_udp_buffer_bytes(const rtp_udp *u)
{
    return u->buffer_bytes;
}
uint16_t rtp_udp_local_port(const rtp_udp *u)
{
    return u->local_port;
}
uint64_t rtp_udp_kernel_drops(const rtp_udp *u)
{
    return u->drops;
}
int rtp_udp_gro(const rtp_udp *u)
{
    return u->gro;
}
int rtp_udp_gso(const rtp_udp *u, int *refused_errno)
{
    if (refused_errno)
        *refused_errno = u->gso_error;
    return u->gso_segments > 1;
}
const rtp_udp_counters *rtp_udp_get_counters(const rtp_udp *u)
{
    return &u->counters;
}
int rtp_udp_fd(const rtp_udp *u)
{
    return u->fd;
}

/* Hands out up to RTP_UDP_BATCH datagrams of the buffers received last, cutting GRO
 * buffers at their datagram size. */
static size_t hand_out(rtp_udp *u, rtp_datagram *out)
{
    size_t count = 0;
    while (u->next_msg < u->pending_msgs && count < RTP_UDP_BATCH) {
        const int i = u->next_msg;
        const struct msghdr *m = &u->msgs[i].msg_hdr;
        const uint8_t *buf = u->bufs + (size_t)i * DATAGRAM_BYTES;
        const size_t len = u->msgs[i].msg_len;
        const size_t seg = u->msg_segment[i] ? u->msg_segment[i] : len;
        const int cut = (m->msg_flags & MSG_TRUNC) != 0;
        /* An empty datagram is still one datagram. */
        do {
            const size_t off = u->next_offset;
            const size_t n = len - off < seg ? len - off : seg;
            rtp_datagram *d = &out[count++];
            d->data = buf + off;
            d->bytes = n;
            /* The kernel cut the buffer: its last datagram is short. */
            d->truncated = cut && off + n == len;
            d->arrival_ns = u->msg_arrival[i];
            from_sockaddr(&u->from[i], &d->from);
            d->foreign_source = u->has_source && !same_host(&d->from, &u->source);
            u->next_offset = off + n;
        } while (u->next_offset < len && count < RTP_UDP_BATCH);
        if (u->next_offset >= len) {
            u->next_msg++;
            u->next_offset = 0;
        }
    }
    u->counters.received_datagrams += count;
    return count;
}

xsf_status rtp_udp_receive(rtp_udp *u, int timeout_ms, rtp_datagram *out, size_t *count,
                           xsf_error *err)
{
    *count = 0;
    if (u->next_msg < u->pending_msgs) { /* the rest of a GRO buffer: no waiting */
        *count = hand_out(u, out);
        return XSF_OK;
    }
    struct pollfd pfd = {.fd = u->fd, .events = POLLIN};
    const int pr = poll(&pfd, 1, timeout_ms);
    if (pr < 0)
        return errno == EINTR ? XSF_OK
                              : xsf_error_set(err, XSF_ERR_IO, "poll: %s", strerror(errno));
    if (pr == 0)
        return XSF_OK;
    for (int i = 0; i < RTP_UDP_BATCH; i++) {
        struct msghdr *m = &u->msgs[i].msg_hdr;
        memset(m, 0, sizeof *m);
        m->msg_name = &u->from[i];
        m->msg_namelen = sizeof u->from[i];
        m->msg_iov = &u->iov[i];
        m->msg_iovlen = 1;
        m->msg_control = u->control[i];
        m->msg_controllen = CONTROL_BYTES;
    }
    const int n = recvmmsg(u->fd, u->msgs, RTP_UDP_BATCH, MSG_DONTWAIT, NULL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return XSF_OK;
        return xsf_error_set(err, XSF_ERR_IO, "recvmmsg: %s", strerror(errno));
    }
    u->counters.receive_calls++;
    u->counters.received_buffers += (uint64_t)n;
    /* Without a kernel timestamp: the same clock the kernel's stamps use. */
    const uint64_t now = xsf_clock_wall_ns();
    for (int i = 0; i < n; i++) {
        struct msghdr *m = &u->msgs[i].msg_hdr;
        u->msg_arrival[i] = now;
        u->msg_segment[i] = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
            if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                /* The datagram size of a coalesced buffer; every datagram of it has this
                 * size but the last, which may be shorter. */
                int seg;
                memcpy(&seg, CMSG_DATA(c), sizeof seg);
                if (seg > 0 && (size_t)seg < u->msgs[i].msg_len) {
                    u->msg_segment[i] = (size_t)seg;
                    u->counters.gro_buffers++;
                }
            } else if (c->cmsg_level != SOL_SOCKET) {
                continue;
            } else if (c->cmsg_type == SCM_TIMESTAMPNS && u->timestamps) {
                /* One stamp per buffer: the datagrams of a GRO buffer share it (over
                 * loopback they were one send). */
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                u->msg_arrival[i] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
            } else if (c->cmsg_type == SO_RXQ_OVFL) {
                uint32_t drops;
                memcpy(&drops, CMSG_DATA(c), sizeof drops);
                u->drops = drops;
            }
        }
    }
    u->pending_msgs = n;
    u->next_msg = 0;
    u->next_offset = 0;
    *count = hand_out(u, out);
    return XSF_OK;
}

/* Packets from `first` on that one GSO message may carry: equal sizes (the last may be
 * shorter), at most gso_segments and GSO_PAYLOAD_MAX bytes in all. */
static size_t gso_run(const rtp_udp *u, const size_t *lens, size_t first, size_t n)
{
    const size_t seg = lens[first];
    if (u->gso_segments <= 1 || !seg)
        return 1;
    size_t k = 1, bytes = seg;
    while (first + k < n && k < u->gso_segments && lens[first + k] <= seg &&
           bytes + lens[first + k] <= GSO_PAYLOAD_MAX && lens[first + k]) {
        bytes += lens[first + k];
        if (lens[first + k++] < seg)
            break; /* a shorter datagram ends a GSO message */
    }
    return k;
}

xsf_status rtp_udp_send(rtp_udp *u, const uint8_t *const *pkts, const size_t *lens, size_t n,
                        xsf_error *err)
{
    if (!u->send_iov)
        return xsf_error_set(err, XSF_ERR_ARG, "rtp_udp_send on a receiving socket");
    struct mmsghdr msgs[RTP_UDP_BATCH];
    size_t npk[RTP_UDP_BATCH];
    union {
        struct cmsghdr align;
        uint8_t bytes[CMSG_SPACE(sizeof(uint16_t))];
    } control[RTP_UDP_BATCH];
    size_t done = 0;
    while (done < n) {
        /* Up to RTP_UDP_BATCH messages, each one datagram or one GSO run of them. */
        size_t k = 0, at = done, iv = 0;
        while (at < n && k < RTP_UDP_BATCH) {
            const size_t run = gso_run(u, lens, at, n);
            memset(&msgs[k], 0, sizeof msgs[k]);
            for (size_t j = 0; j < run; j++) {
                u->send_iov[iv + j].iov_base = (void *)pkts[at + j];
                u->send_iov[iv + j].iov_len = lens[at + j];
            }
            msgs[k].msg_hdr.msg_iov = &u->send_iov[iv];
            msgs[k].msg_hdr.msg_iovlen = run;
            if (run > 1) {
                memset(&control[k], 0, sizeof control[k]);
                msgs[k].msg_hdr.msg_control = control[k].bytes;
                msgs[k].msg_hdr.msg_controllen = sizeof control[k].bytes;
                struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[k].msg_hdr);
                c->cmsg_level = SOL_UDP;
                c->cmsg_type = UDP_SEGMENT;
                c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
                const uint16_t seg = (uint16_t)lens[at];
                memcpy(CMSG_DATA(c), &seg, sizeof seg);
            }
            npk[k++] = run;
            iv += run;
            at += run;
        }
        const int sent = sendmmsg(u->fd, msgs, (unsigned)k, 0);
        u->counters.send_calls++;
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ECONNREFUSED) /* an ICMP port unreachable from an earlier datagram */
                continue;
            /* The first message was refused. As a GSO message (EINVAL: no UDP_SEGMENT in
             * this kernel, or a datagram larger than the route's MTU allows; EIO: no
             * checksum offload on the way out), the socket gives GSO up and sends it
             * again datagram by datagram. */
            if (npk[0] > 1 &&
                (errno == EINVAL || errno == EIO || errno == EOPNOTSUPP || errno == ENOPROTOOPT)) {
                u->gso_error = errno;
                u->gso_segments = 0;
                continue;
            }
            return xsf_error_set(err, XSF_ERR_IO, "sendmmsg: %s", strerror(errno));
        }
        for (int i = 0; i < sent; i++) {
            done += npk[i];
            u->counters.sent_datagrams += npk[i];
            u->counters.gso_messages += npk[i] > 1;
        }
    }
    return XSF_OK;
}

/* ---- the "udp" receive transport (rtp_receive.h) ---- */

static xsf_status udp_open(void **priv, const rtp_transport_config *cfg, xsf_error *err)
{
    rtp_udp *u = NULL;
    const xsf_status st = rtp_udp_open_receiver(&u, &cfg->udp, err);
    *priv = u;
    return st;
}

static xsf_status udp_read(void *priv, int timeout_ms, rtp_datagram *out, size_t cap, size_t *count,
                           xsf_error *err)
{
    *count = 0;
    if (cap < RTP_UDP_BATCH)
        return xsf_error_set(err, XSF_ERR_ARG, "room for %zu datagrams: a read needs %d", cap,
                             RTP_UDP_BATCH);
    return rtp_udp_receive(priv, timeout_ms, out, count, err);
}

static void udp_close(void *priv)
{
    rtp_udp_close(priv);
}

static uint64_t udp_kernel_drops(const void *priv)
{
    return rtp_udp_kernel_drops(priv);
}

static uint16_t udp_local_port(const void *priv)
{
    return rtp_udp_local_port(priv);
}

static size_t udp_buffer_bytes(const void *priv)
{
    return rtp_udp_buffer_bytes(priv);
}

static int udp_fd(const void *priv)
{
    return rtp_udp_fd(priv);
}

const rtp_transport_ops rtp_transport_udp = {
    .name = "udp",
    .clock = RTP_ARRIVAL_REALTIME,
    .live = 1,
    .gather = 0,
    .open = udp_open,
    .read = udp_read,
    .close = udp_close,
    .kernel_drops = udp_kernel_drops,
    .local_port = udp_local_port,
    .buffer_bytes = udp_buffer_bytes,
    .fd = udp_fd,
};
