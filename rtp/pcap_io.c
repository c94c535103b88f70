/* libpcap sources (.pcap and .pcapng files, live interfaces with a BPF
 * filter) and a .pcap sink. Reading decodes the link layer (Ethernet with
 * 802.1Q/802.1ad tags, Linux cooked v1 and v2, raw IP, BSD loopback), IPv4
 * and IPv6 (extension headers skipped; fragments are not reassembled and are
 * counted as skipped) and UDP. Writing needs only pcap_open_dead and
 * pcap_dump: each datagram becomes an Ethernet II frame with an IPv4 or IPv6
 * header and a UDP header carrying its checksum. */
#define _DEFAULT_SOURCE /* u_char and friends of pcap.h */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rtp_internal.h"

struct rtp_pcap_reader {
    pcap_t *p;
    int linktype;
    int live;
    uint64_t skipped;
    int nano;
};

struct rtp_pcap_writer {
    pcap_t *p;
    pcap_dumper_t *d;
    uint16_t ip_id;
    uint8_t frame[65600];
};

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

static xsf_status set_filter(rtp_pcap_reader *r, const char *filter, xsf_error *err)
{
    if (!filter || !*filter)
        return XSF_OK;
    struct bpf_program prog;
    if (pcap_compile(r->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN))
        return xsf_error_set(err, XSF_ERR_ARG, "filter '%s': %s", filter, pcap_geterr(r->p));
    const int rc = pcap_setfilter(r->p, &prog);
    pcap_freecode(&prog);
    if (rc)
        return xsf_error_set(err, XSF_ERR_ARG, "filter '%s': %s", filter, pcap_geterr(r->p));
    return XSF_OK;
}

static xsf_status check_linktype(rtp_pcap_reader *r, xsf_error *err)
{
    r->linktype = pcap_datalink(r->p);
    switch (r->linktype) {
    case DLT_EN10MB:
    case DLT_LINUX_SLL:
    case DLT_LINUX_SLL2:
    case DLT_RAW:
    case DLT_NULL:
    case DLT_LOOP:
#ifdef DLT_IPV4
    case DLT_IPV4:
    case DLT_IPV6:
#endif
        return XSF_OK;
    default:
        return xsf_error_set(
            err, XSF_ERR_UNSUPPORTED, "link type %d (%s) is not one this reader decodes",
            r->linktype,
            pcap_datalink_val_to_name(r->linktype) ? pcap_datalink_val_to_name(r->linktype) : "?");
    }
}

xsf_status rtp_pcap_open_file(rtp_pcap_reader **out, const char *path, const char *filter,
                              xsf_error *err)
{
    *out = NULL;
    char ebuf[PCAP_ERRBUF_SIZE] = "";
    rtp_pcap_reader *r = calloc(1, sizeof *r);
    if (!r)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    /* Nanosecond stamps when the file has them (pcapng, nanosecond pcap). */
    r->p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
    if (!r->p) {
        free(r);
        return xsf_error_set(err, XSF_ERR_IO, "%s", ebuf);
    }
    r->nano = pcap_get_tstamp_precision(r->p) == PCAP_TSTAMP_PRECISION_NANO;
    xsf_status st = check_linktype(r, err);
    if (st == XSF_OK)
        st = set_filter(r, filter, err);
    if (st != XSF_OK) {
        rtp_pcap_close(r);
        return st;
    }
    *out = r;
    return XSF_OK;
}

xsf_status rtp_pcap_open_live(rtp_pcap_reader **out, const char *iface, const char *filter,
                              size_t buffer_bytes, xsf_error *err)
{
    *out = NULL;
    char ebuf[PCAP_ERRBUF_SIZE] = "";
    rtp_pcap_reader *r = calloc(1, sizeof *r);
    if (!r)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    r->live = 1;
    r->p = pcap_create(iface, ebuf);
    if (!r->p) {
        free(r);
        return xsf_error_set(err, XSF_ERR_IO, "%s", ebuf);
    }
    (void)pcap_set_snaplen(r->p, 65535);
    (void)pcap_set_promisc(r->p, 0);
    (void)pcap_set_timeout(r->p, 50);
    (void)pcap_set_immediate_mode(r->p, 1);
    (void)pcap_set_buffer_size(
        r->p, buffer_bytes ? (int)(buffer_bytes > (1u << 30) ? 1u << 30 : buffer_bytes) : 64 << 20);
    (void)pcap_set_tstamp_precision(r->p, PCAP_TSTAMP_PRECISION_NANO);
    const int rc = pcap_activate(r->p);
    if (rc < 0) {
        xsf_status st = xsf_error_set(err, XSF_ERR_IO, "capture on %s: %s", iface,
                                      rc == PCAP_ERROR ? pcap_geterr(r->p) : pcap_statustostr(rc));
        rtp_pcap_close(r);
        return st;
    }
    r->nano = pcap_get_tstamp_precision(r->p) == PCAP_TSTAMP_PRECISION_NANO;
    xsf_status st = check_linktype(r, err);
    if (st == XSF_OK)
        st = set_filter(r, filter, err);
    if (st != XSF_OK) {
        rtp_pcap_close(r);
        return st;
    }
    *out = r;
    return XSF_OK;
}

void rtp_pcap_close(rtp_pcap_reader *r)
{
    if (!r)
        return;
    if (r->p)
        pcap_close(r->p);
    free(r);
}

uint64_t rtp_pcap_skipped(const rtp_pcap_reader *r)
{
    return r->skipped;
}

/* IP and UDP of one frame starting at the network layer. 0: a UDP datagram. */
static int decode_ip(const uint8_t *p, size_t caplen, size_t wirelen, rtp_pcap_packet *pkt)
{
    if (caplen < 1)
        return -1;
    const unsigned version = p[0] >> 4;
    size_t off, ip_end_wire;
    int proto;
    memset(&pkt->src, 0, sizeof pkt->src);
    memset(&pkt->dst, 0, sizeof pkt->dst);
    if (version == 4) {
        if (caplen < 20)
            return -1;
        const size_t ihl = (size_t)(p[0] & 0x0f) * 4;
        const size_t total = rtp_rd16(p + 2);
        if (ihl < 20 || caplen < ihl || total < ihl)
            return -1;
        if (rtp_rd16(p + 6) & 0x3fff) /* more fragments, or a fragment offset */
            return -1;
        proto = p[9];
        pkt->src.family = pkt->dst.family = AF_INET;
        memcpy(pkt->src.addr, p + 12, 4);
        memcpy(pkt->dst.addr, p + 16, 4);
        off = ihl;
        ip_end_wire = total;
    } else if (version == 6) {
        if (caplen < 40)
            return -1;
        proto = p[6];
        pkt->src.family = pkt->dst.family = AF_INET6;
        memcpy(pkt->src.addr, p + 8, 16);
        memcpy(pkt->dst.addr, p + 24, 16);
        off = 40;
        ip_end_wire = 40 + (size_t)rtp_rd16(p + 4);
        /* Extension headers: hop-by-hop 0, routing 43, destination 60; a
         * fragment header (44) means a fragment, not decoded. */
        for (int n = 0; n < 8 && (proto == 0 || proto == 43 || proto == 60); n++) {
            if (caplen < off + 8)
                return -1;
            proto = p[off];
            off += 8 + (size_t)p[off + 1] * 8;
        }
        if (proto == 44)
            return -1;
    } else {
        return -1;
    }
    if (proto != IPPROTO_UDP || caplen < off + 8 || ip_end_wire < off + 8)
        return -1;
    const uint8_t *udp = p + off;
    pkt->src.port = rtp_rd16(udp);
    pkt->dst.port = rtp_rd16(udp + 2);
    const size_t ulen = rtp_rd16(udp + 4);
    if (ulen < 8 || off + ulen > ip_end_wire)
        return -1;
    const size_t want = ulen - 8;
    const size_t have = caplen - off - 8;
    pkt->udp_payload = udp + 8;
    pkt->bytes = have < want ? have : want;
    pkt->truncated = have < want || wirelen < off + ulen;
    return 0;
}

static int decode_frame(const rtp_pcap_reader *r, const uint8_t *p, size_t caplen, size_t wirelen,
                        rtp_pcap_packet *pkt)
{
    size_t off = 0;
    unsigned ethertype = 0;
    switch (r->linktype) {
    case DLT_EN10MB:
        if (caplen < 14)
            return -1;
        ethertype = rtp_rd16(p + 12);
        off = 14;
        while ((ethertype == 0x8100 || ethertype == 0x88a8) && caplen >= off + 4) {
            ethertype = rtp_rd16(p + off + 2);
            off += 4;
        }
        break;
    case DLT_LINUX_SLL:
        if (caplen < 16)
            return -1;
        ethertype = rtp_rd16(p + 14);
        off = 16;
        break;
    case DLT_LINUX_SLL2:
        if (caplen < 20)
            return -1;
        ethertype = rtp_rd16(p);
        off = 20;
        break;
    case DLT_NULL:
    case DLT_LOOP:
        if (caplen < 4)
            return -1;
        off = 4; /* address family in host or network order: the IP version tells */
        ethertype = 0;
        break;
    default: /* raw IP */ ethertype = 0; break;
    }
    if (ethertype && ethertype != 0x0800 && ethertype != 0x86dd)
        return -1;
    if (caplen < off || wirelen < off)
        return -1;
    return decode_ip(p + off, caplen - off, wirelen - off, pkt);
}

xsf_status rtp_pcap_next(rtp_pcap_reader *r, rtp_pcap_packet *pkt, xsf_error *err)
{
    for (;;) {
        struct pcap_pkthdr *h;
        const u_char *data;
        const int rc = pcap_next_ex(r->p, &h, &data);
        if (rc == 0)
            return XSF_ERR_AGAIN;
        if (rc == PCAP_ERROR_BREAK)
            return XSF_ERR_TRUNCATED;
        if (rc < 0)
            return xsf_error_set(err, XSF_ERR_IO, "reading packets: %s", pcap_geterr(r->p));
        if (decode_frame(r, data, h->caplen, h->len, pkt)) {
            r->skipped++;
            continue;
        }
        pkt->arrival_ns =
            (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * (r->nano ? 1u : 1000u);
        return XSF_OK;
    }
}

/* ---- writer ---- */

xsf_status rtp_pcap_writer_open(rtp_pcap_writer **out, const char *path, xsf_error *err)
{
    *out = NULL;
    rtp_pcap_writer *w = calloc(1, sizeof *w);
    if (!w)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    w->p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
    if (!w->p) {
        free(w);
        return xsf_error_set(err, XSF_ERR_NOMEM, "pcap_open_dead failed");
    }
    w->d = pcap_dump_open(w->p, path);
    if (!w->d) {
        xsf_status st = xsf_error_set(err, XSF_ERR_IO, "%s", pcap_geterr(w->p));
        pcap_close(w->p);
        free(w);
        return st;
    }
    *out = w;
    return XSF_OK;
}

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    return s;
}

static uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

static void mac_for(const rtp_addr *a, uint8_t mac[6], int is_dst)
{
    if (is_dst && rtp_addr_is_multicast(a)) {
        if (a->family == AF_INET6) { /* RFC 2464: 33:33 + the low 32 bits */
            mac[0] = mac[1] = 0x33;
            memcpy(mac + 2, a->addr + 12, 4);
        } else { /* RFC 1112: 01:00:5e + the low 23 bits */
            mac[0] = 0x01;
            mac[1] = 0x00;
            mac[2] = 0x5e;
            mac[3] = a->addr[1] & 0x7f;
            mac[4] = a->addr[2];
            mac[5] = a->addr[3];
        }
        return;
    }
    /* A locally administered address derived from the IP address. */
    const uint8_t *ip = a->family == AF_INET6 ? a->addr + 12 : a->addr;
    mac[0] = 0x02;
    mac[1] = 0x00;
    memcpy(mac + 2, ip, 4);
}

xsf_status rtp_pcap_write(rtp_pcap_writer *w, const rtp_addr *src, const rtp_addr *dst,
                          const uint8_t *payload, size_t len, uint64_t time_ns, xsf_error *err)
{
    const int v6 = dst->family == AF_INET6;
    const size_t iph = v6 ? 40 : 20, total = 14 + iph + 8 + len;
    if (src->family != dst->family)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "source and destination of different address families");
    if (total > sizeof w->frame || 8 + len > 65535)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "datagram of %zu bytes is too large for a .pcap frame", len);
    uint8_t *f = w->frame;
    mac_for(dst, f, 1);
    mac_for(src, f + 6, 0);
    rtp_wr16(f + 12, v6 ? 0x86dd : 0x0800);
    uint8_t *ip = f + 14, *udp = ip + iph;
    const uint16_t ulen = (uint16_t)(8 + len);
    uint32_t pseudo;
    if (v6) {
        memset(ip, 0, 40);
        ip[0] = 0x60;
        rtp_wr16(ip + 4, ulen);
        ip[6] = IPPROTO_UDP;
        ip[7] = 64;
        memcpy(ip + 8, src->addr, 16);
        memcpy(ip + 24, dst->addr, 16);
        pseudo = sum16(ip + 8, 32, 0) + ulen + IPPROTO_UDP;
    } else {
        ip[0] = 0x45;
        ip[1] = 0;
        rtp_wr16(ip + 2, (uint16_t)(20 + ulen));
        rtp_wr16(ip + 4, w->ip_id++);
        rtp_wr16(ip + 6, 0x4000); /* don't fragment */
        ip[8] = rtp_addr_is_multicast(dst) ? 16 : 64;
        ip[9] = IPPROTO_UDP;
        rtp_wr16(ip + 10, 0);
        memcpy(ip + 12, src->addr, 4);
        memcpy(ip + 16, dst->addr, 4);
        rtp_wr16(ip + 10, fold(sum16(ip, 20, 0)));
        pseudo = sum16(ip + 12, 8, 0) + ulen + IPPROTO_UDP;
    }
    rtp_wr16(udp, src->port);
    rtp_wr16(udp + 2, dst->port);
    rtp_wr16(udp + 4, ulen);
    rtp_wr16(udp + 6, 0);
    memcpy(udp + 8, payload, len);
    uint16_t ck = fold(sum16(udp, ulen, pseudo));
    if (!ck)
        ck = 0xffff; /* RFC 768: a computed zero is sent as all ones */
    rtp_wr16(udp + 6, ck);
    struct pcap_pkthdr h;
    memset(&h, 0, sizeof h);
    h.ts.tv_sec = (time_t)(time_ns / 1000000000u);
    h.ts.tv_usec =
        (suseconds_t)(time_ns %
                      1000000000u); /* nanoseconds: the dumper was opened with nano precision */
    h.caplen = h.len = (bpf_u_int32)total;
    pcap_dump((u_char *)w->d, &h, f);
    return XSF_OK;
}

xsf_status rtp_pcap_writer_close(rtp_pcap_writer *w, xsf_error *err)
{
    if (!w)
        return XSF_OK;
    xsf_status st = XSF_OK;
    if (pcap_dump_flush(w->d))
        st = xsf_error_set(err, XSF_ERR_IO, "writing the capture failed");
    pcap_dump_close(w->d);
    pcap_close(w->p);
    free(w);
    return st;
}
