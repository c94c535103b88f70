/* libpcap sources (.pcap and .pcapng files, live interfaces with a BPF
 * filter) and a .pcap sink. Reading decodes the link layer (Ethernet with
 * 802.1Q/802.1ad tags, Linux cooked v1 and v2, raw IP, BSD loopback), IPv4
 * and IPv6 (extension headers skipped; fragments are not reassembled and are
 * counted as skipped) and UDP. Writing needs only pcap_open_dead and
 * pcap_dump: each datagram becomes an Ethernet II frame with an IPv4 or IPv6
 * header and a UDP header carrying its checksum.
 *
 * Classic .pcap files (not pcapng, not the old modified formats) that are
 * regular files are mapped and their records walked here rather than
 * through pcap_next_ex: no read into libpcap's buffer and no stdio call per
 * packet, and the packets stay where they are until the reader is closed
 * (rtp_pcap_mapped), so a receiver can keep pointers to them instead of
 * copies. libpcap still opens the file (its header, the link type) and
 * compiles the filter, which runs on each record with pcap_offline_filter,
 * as pcap_next_ex would run it. The filter "udp" is not run on files at all
 * (mapped or not): decode_frame keeps nothing but UDP, and it also finds
 * UDP behind VLAN tags and IPv6 extension headers, which that BPF program
 * does not (a live capture keeps it: there it filters in the kernel). */
#define _DEFAULT_SOURCE /* u_char and friends of pcap.h */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtp_internal.h"

/* A mapped classic .pcap file (base != NULL): the records are walked here. */
typedef struct pcap_map {
    const uint8_t *base;
    size_t bytes;
    size_t pos;       /* the next record header */
    int swapped;      /* the file's byte order is not this machine's */
    int nano;         /* nanosecond time stamps (magic a1b23c4d) */
    uint32_t snaplen; /* from the file header; records are cut to it, as libpcap does */
} pcap_map;

struct rtp_pcap_reader {
    pcap_t *p;
    int linktype;
    int live;
    uint64_t skipped;
    int nano;
    pcap_map map;
    size_t populate_next; /* where the reader next publishes its place or maps pages */
    /* The populating thread (see populate_main), when it runs. */
    int pop_started;
    pthread_t pop_thread;
    pthread_mutex_t pop_mu;
    pthread_cond_t pop_cv;
    size_t pop_reader; /* the reader's place, as last published */
    int pop_stop;
    int has_filter; /* prog runs on each record */
    struct bpf_program prog;
    /* The transport's read (pcap_read): what ended a batch early, told on the next read. */
    xsf_status pending;
    xsf_error pending_err;
};

static void start_populating(rtp_pcap_reader *r);
static void stop_populating(rtp_pcap_reader *r);

/* libpcap's largest capture length (MAXIMUM_SNAPLEN): a record claiming more
 * is taken as a corrupt file, as libpcap takes it. */
#define PCAP_MAX_CAPLEN 262144u
#define PCAP_FILE_HEADER_BYTES 24
#define PCAP_RECORD_HEADER_BYTES 16

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

static uint32_t rd32_order(const uint8_t *p, int swapped)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

/* Maps a classic .pcap file and compiles its filter for pcap_offline_filter;
 * 0 when the file is one (r->map set), 1 when it is not (pcapng, another
 * magic, not a regular file: libpcap reads it), < 0 with *err set. */
static int map_classic(rtp_pcap_reader *r, const char *path, const char *filter, xsf_error *err)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not wait */
    if (fd < 0)
        return 1;
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < PCAP_FILE_HEADER_BYTES ||
        (uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        return 1;
    }
    const size_t bytes = (size_t)sb.st_size;
    void *m = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return 1;
    const uint8_t *h = m;
    uint32_t magic;
    memcpy(&magic, h, 4);
    int swapped, nano;
    switch (magic) {
    case 0xa1b2c3d4u: swapped = 0, nano = 0; break;
    case 0xa1b23c4du: swapped = 0, nano = 1; break;
    case 0xd4c3b2a1u: swapped = 1, nano = 0; break;
    case 0x4d3cb2a1u: swapped = 1, nano = 1; break;
    default: munmap(m, bytes); return 1;
    }
    if (filter && *filter && strcmp(filter, "udp")) {
        if (pcap_compile(r->p, &r->prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
            munmap(m, bytes);
            (void)xsf_error_set(err, XSF_ERR_ARG, "filter '%s': %s", filter, pcap_geterr(r->p));
            return -1;
        }
        r->has_filter = 1;
    }
    uint32_t snaplen = rd32_order(h + 16, swapped);
    if (!snaplen || snaplen > PCAP_MAX_CAPLEN)
        snaplen = PCAP_MAX_CAPLEN;
    r->map = (pcap_map){.base = h,
                        .bytes = bytes,
                        .pos = PCAP_FILE_HEADER_BYTES,
                        .swapped = swapped,
                        .nano = nano,
                        .snaplen = snaplen};
    start_populating(r);
    return 0;
}

int rtp_pcap_mapped(const rtp_pcap_reader *r)
{
    return r->map.base != NULL;
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
    if (st == XSF_OK) {
        const int m = map_classic(r, path, filter, err);
        if (m < 0)
            st = XSF_ERR_ARG;
        else if (m > 0 && filter && strcmp(filter, "udp"))
            st = set_filter(r, filter, err); /* "udp": decode_frame's own choice, as mapped */
    }
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
    stop_populating(r);
    if (r->has_filter)
        pcap_freecode(&r->prog);
    if (r->map.base)
        munmap((void *)r->map.base, r->map.bytes);
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

/* The file's pages are mapped a stretch at a time (Linux 5.14's
 * MADV_POPULATE_READ) instead of by a page fault every few records: the
 * faults and the mapping cost the walk about a third of its time (profiled on
 * a UHD capture in tmpfs; from a disk the same call is the read-ahead). A
 * thread of the reader's keeps the pages up to PCAP_POPULATE_AHEAD past the
 * reader mapped, so that this happens off the reading thread; where the
 * thread cannot start (or the file is small), the reader maps each stretch
 * itself; without MADV_POPULATE_READ, the faults it is. */
#define PCAP_POPULATE_CHUNK ((size_t)4 << 20)
#define PCAP_POPULATE_AHEAD ((size_t)64 << 20)
#define PCAP_POPULATE_THREAD_MIN ((size_t)8 << 20) /* smaller files: no thread */

/* Maps the pages of [from, to) (from page-aligned); non-zero when it cannot. */
static int populate_range(const rtp_pcap_reader *r, size_t from, size_t to)
{
#ifdef MADV_POPULATE_READ
    return madvise((void *)(r->map.base + from), to - from, MADV_POPULATE_READ);
#else
    (void)r;
    (void)from;
    (void)to;
    return -1;
#endif
}

static void *populate_main(void *arg)
{
    rtp_pcap_reader *r = arg;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t done = 0; /* page-aligned, or the end of the file */
    pthread_mutex_lock(&r->pop_mu);
    while (!r->pop_stop && done < r->map.bytes) {
        size_t want = r->map.bytes - r->pop_reader > PCAP_POPULATE_AHEAD
                          ? r->pop_reader + PCAP_POPULATE_AHEAD
                          : r->map.bytes;
        if (want - done > PCAP_POPULATE_CHUNK)
            want = done + PCAP_POPULATE_CHUNK;
        if (want < r->map.bytes)
            want = want / page * page;
        if (want <= done) {
            pthread_cond_wait(&r->pop_cv, &r->pop_mu);
            continue;
        }
        pthread_mutex_unlock(&r->pop_mu);
        const int failed = populate_range(r, done, want);
        pthread_mutex_lock(&r->pop_mu);
        if (failed)
            break; /* the reader faults the pages in */
        done = want;
    }
    pthread_mutex_unlock(&r->pop_mu);
    return NULL;
}

static void start_populating(rtp_pcap_reader *r)
{
    if (r->map.bytes < PCAP_POPULATE_THREAD_MIN)
        return;
    pthread_mutex_init(&r->pop_mu, NULL);
    pthread_cond_init(&r->pop_cv, NULL);
    r->pop_started = !pthread_create(&r->pop_thread, NULL, populate_main, r);
    if (!r->pop_started) {
        pthread_cond_destroy(&r->pop_cv);
        pthread_mutex_destroy(&r->pop_mu);
    }
}

static void stop_populating(rtp_pcap_reader *r)
{
    if (!r->pop_started)
        return;
    pthread_mutex_lock(&r->pop_mu);
    r->pop_stop = 1;
    pthread_cond_signal(&r->pop_cv);
    pthread_mutex_unlock(&r->pop_mu);
    pthread_join(r->pop_thread, NULL);
    pthread_cond_destroy(&r->pop_cv);
    pthread_mutex_destroy(&r->pop_mu);
    r->pop_started = 0;
}

/* The reader passed r->populate_next: it tells the thread where it is, or
 * without one maps the next stretch itself. */
static void populate(rtp_pcap_reader *r)
{
    if (r->pop_started) {
        pthread_mutex_lock(&r->pop_mu);
        r->pop_reader = r->map.pos;
        pthread_cond_signal(&r->pop_cv);
        pthread_mutex_unlock(&r->pop_mu);
        r->populate_next = r->map.pos + PCAP_POPULATE_CHUNK;
        return;
    }
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t from = r->populate_next / page * page;
    size_t to = r->map.pos + 8 * PCAP_POPULATE_CHUNK;
    if (to > r->map.bytes)
        to = r->map.bytes;
    r->populate_next = to;
    (void)populate_range(r, from, to);
}

/* The next record of a mapped file, checked as libpcap checks it. */
static xsf_status next_mapped(rtp_pcap_reader *r, rtp_pcap_packet *pkt, xsf_error *err)
{
    pcap_map *m = &r->map;
    for (;;) {
        const size_t left = m->bytes - m->pos;
        if (!left)
            return XSF_ERR_TRUNCATED;
        if (left < PCAP_RECORD_HEADER_BYTES)
            return xsf_error_set(err, XSF_ERR_IO,
                                 "reading packets: truncated dump file; tried to read %d header "
                                 "bytes, only got %zu",
                                 PCAP_RECORD_HEADER_BYTES, left);
        const uint8_t *h = m->base + m->pos;
        const uint32_t sec = rd32_order(h, m->swapped), frac = rd32_order(h + 4, m->swapped);
        uint32_t caplen = rd32_order(h + 8, m->swapped);
        const uint32_t wirelen = rd32_order(h + 12, m->swapped);
        if (caplen > PCAP_MAX_CAPLEN)
            return xsf_error_set(err, XSF_ERR_IO,
                                 "reading packets: invalid packet capture length %u, bigger "
                                 "than maximum of %u",
                                 caplen, PCAP_MAX_CAPLEN);
        if (caplen > left - PCAP_RECORD_HEADER_BYTES)
            return xsf_error_set(err, XSF_ERR_IO,
                                 "reading packets: truncated dump file; tried to read %u captured "
                                 "bytes, only got %zu",
                                 caplen, left - PCAP_RECORD_HEADER_BYTES);
        m->pos += PCAP_RECORD_HEADER_BYTES + caplen;
        const uint8_t *data = h + PCAP_RECORD_HEADER_BYTES;
        /* Each record's length is in the one before it: walking the file is a
         * chain of loads from memory not yet in cache. The records of a stream
         * are mostly of one size, so the headers a few records on (taken to be
         * of this one's size) are fetched now, while this one is processed. */
        const size_t ahead = m->pos + 8 * ((size_t)PCAP_RECORD_HEADER_BYTES + caplen);
        if (ahead + 128 <= m->bytes) {
            __builtin_prefetch(m->base + ahead);
            __builtin_prefetch(m->base + ahead + 64);
        }
        if (m->pos >= r->populate_next)
            populate(r);
        if (caplen > m->snaplen) /* libpcap keeps the file's snapshot length of it */
            caplen = m->snaplen;
        if (r->has_filter) {
            struct pcap_pkthdr ph;
            memset(&ph, 0, sizeof ph);
            ph.caplen = caplen;
            ph.len = wirelen;
            if (!pcap_offline_filter(&r->prog, &ph, data))
                continue;
        }
        if (decode_frame(r, data, caplen, wirelen, pkt)) {
            r->skipped++;
            continue;
        }
        pkt->arrival_ns = (uint64_t)sec * 1000000000u + (uint64_t)frac * (m->nano ? 1u : 1000u);
        return XSF_OK;
    }
}

xsf_status rtp_pcap_next(rtp_pcap_reader *r, rtp_pcap_packet *pkt, xsf_error *err)
{
    if (r->map.base)
        return next_mapped(r, pkt, err);
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
    /* pcap_dump reports nothing: a write that failed before is in the stream's error flag. */
    if (pcap_dump_flush(w->d) || ferror(pcap_dump_file(w->d)))
        st = xsf_error_set(err, XSF_ERR_IO, "writing the capture failed");
    pcap_dump_close(w->d);
    pcap_close(w->p);
    free(w);
    return st;
}

/* ---- the "pcap" and "capture" receive transports (rtp_receive.h) ---- */

static xsf_status pcap_file_open(void **priv, const rtp_transport_config *cfg, xsf_error *err)
{
    rtp_pcap_reader *r = NULL;
    const xsf_status st = rtp_pcap_open_file(&r, cfg->path, cfg->filter ? cfg->filter : "udp", err);
    *priv = r;
    return st;
}

static xsf_status pcap_live_open(void **priv, const rtp_transport_config *cfg, xsf_error *err)
{
    rtp_pcap_reader *r = NULL;
    const xsf_status st = rtp_pcap_open_live(&r, cfg->path, cfg->filter ? cfg->filter : "udp",
                                             cfg->udp.buffer_bytes, err);
    *priv = r;
    return st;
}

static void to_datagram(const rtp_pcap_packet *pk, rtp_datagram *d)
{
    d->data = pk->udp_payload;
    d->bytes = pk->bytes;
    d->truncated = pk->truncated;
    d->foreign_source = 0;
    d->arrival_ns = pk->arrival_ns;
    d->from = pk->src;
}

/* A mapped file: up to `cap` datagrams (they stay valid until close). Otherwise one:
 * libpcap's buffer holds one packet until its next call. A silence of a live capture
 * (XSF_ERR_AGAIN) is a read of none. */
static xsf_status pcap_read(void *priv, int timeout_ms, rtp_datagram *out, size_t cap,
                            size_t *count, xsf_error *err)
{
    (void)timeout_ms; /* a live capture waits its own timeout (about 50 ms) */
    rtp_pcap_reader *r = priv;
    *count = 0;
    if (r->pending != XSF_OK) {
        const xsf_status st = r->pending;
        r->pending = XSF_OK;
        if (st == XSF_ERR_AGAIN)
            return XSF_OK;
        *err = r->pending_err;
        return st;
    }
    const size_t most = r->map.base ? cap : 1;
    size_t n = 0;
    xsf_status st = XSF_OK;
    while (n < most) {
        rtp_pcap_packet pk;
        xsf_error e;
        xsf_error_clear(&e);
        st = rtp_pcap_next(r, &pk, &e);
        if (st != XSF_OK) {
            if (st != XSF_ERR_AGAIN && st != XSF_ERR_TRUNCATED)
                r->pending_err = e;
            else
                xsf_error_clear(&r->pending_err);
            break;
        }
        to_datagram(&pk, &out[n++]);
    }
    *count = n;
    if (st == XSF_OK || st == XSF_ERR_AGAIN) {
        if (n && st == XSF_ERR_AGAIN)
            r->pending = st; /* the next read reports the silence */
        return XSF_OK;
    }
    if (n) { /* the end, or an error, after the packets read */
        r->pending = st;
        return XSF_OK;
    }
    if (st != XSF_ERR_TRUNCATED)
        *err = r->pending_err;
    return st;
}

static void pcap_close_reader(void *priv)
{
    rtp_pcap_close(priv);
}

static int pcap_kept(const void *priv)
{
    return rtp_pcap_mapped(priv);
}

/* A live capture's descriptor (libpcap's selectable one), -1 where it has none. */
static int pcap_fd(const void *priv)
{
    const rtp_pcap_reader *r = priv;
    return r->live ? pcap_get_selectable_fd(r->p) : -1;
}

/* The file and the live capture: one libpcap reader behind both, opened
 * either way (pcap_fd says -1 for a file, as no fd would). */
#define PCAP_OPS(ident, kind_name, open_fn, arrival, is_live)                                      \
    const rtp_transport_ops ident = {                                                              \
        .name = kind_name,                                                                         \
        .clock = arrival,                                                                          \
        .live = is_live,                                                                           \
        .gather = 1,                                                                               \
        .open = open_fn,                                                                           \
        .read = pcap_read,                                                                         \
        .close = pcap_close_reader,                                                                \
        .packets_kept = pcap_kept,                                                                 \
        .fd = pcap_fd,                                                                             \
    }

PCAP_OPS(rtp_transport_pcap, "pcap", pcap_file_open, RTP_ARRIVAL_RECORDED, 0);
PCAP_OPS(rtp_transport_capture, "capture", pcap_live_open, RTP_ARRIVAL_NONE, 1);
