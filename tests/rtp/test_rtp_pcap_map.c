/* The mapped .pcap reader (rtp/pcap_io.c walks the records of a classic
 * .pcap file itself) against libpcap's reading of the same bytes (the
 * reader falls back to pcap_next_ex for what is not a regular file: here a
 * FIFO). Hand-made files in both byte orders, with microsecond and
 * nanosecond time stamps: IPv4 and IPv6 UDP, a VLAN tag, TCP, ARP, an IPv4
 * fragment, a record cut short by the capture, one longer than the file's
 * snapshot length; each read with no filter, "udp", a port filter and
 * "ip6"; and a file that ends inside a record. Every packet returned (its
 * payload, length, truncation, time, addresses), the count skipped and the
 * way the file ends must agree.
 *
 * usage: test_rtp_pcap_map WORK_DIR */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtp.h"
#include "test.h"

typedef struct buf {
    uint8_t *d;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *d = realloc(b->d, cap);
        if (!d)
            abort();
        b->d = d;
        b->cap = cap;
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static int swapped_order;
static void put32(buf *b, uint32_t v)
{
    if (swapped_order)
        v = __builtin_bswap32(v);
    put(b, &v, 4);
}
static void put16(buf *b, uint16_t v)
{
    if (swapped_order)
        v = __builtin_bswap16(v);
    put(b, &v, 2);
}

static void be16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* An Ethernet frame: [VLAN tag,] IPv4 or IPv6, then UDP (or TCP) with `payload` bytes. */
static size_t frame(uint8_t *f, int v6, int vlan, int proto, unsigned dport, size_t payload,
                    int fragment)
{
    size_t off = 12;
    memset(f, 0, 14);
    f[0] = 0x02;
    f[6] = 0x02;
    if (vlan) {
        be16(f + off, 0x8100);
        be16(f + off + 2, 42);
        off += 4;
    }
    be16(f + off, v6 ? 0x86dd : 0x0800);
    off += 2;
    uint8_t *ip = f + off;
    const size_t l4 = 8 + payload;
    size_t iph;
    if (v6) {
        iph = 40;
        memset(ip, 0, 40);
        ip[0] = 0x60;
        be16(ip + 4, (unsigned)l4);
        ip[6] = (uint8_t)proto;
        ip[7] = 64;
        ip[8] = 0xfd;
        ip[23] = 1;
        ip[24] = 0xfd;
        ip[39] = 2;
    } else {
        iph = 20;
        memset(ip, 0, 20);
        ip[0] = 0x45;
        be16(ip + 2, (unsigned)(20 + l4));
        be16(ip + 6, fragment ? 0x2000 : 0x4000);
        ip[8] = 64;
        ip[9] = (uint8_t)proto;
        ip[12] = 10;
        ip[15] = 1;
        ip[16] = 10;
        ip[19] = 2;
    }
    uint8_t *l = ip + iph;
    be16(l, 5000);
    be16(l + 2, dport);
    be16(l + 4, (unsigned)l4);
    be16(l + 6, 0);
    for (size_t i = 0; i < payload; i++)
        l[8 + i] = (uint8_t)(i * 7 + dport);
    return off + iph + l4;
}

/* The file: its header, then the records. */
static void make_file(buf *b, int swapped, int nano, uint32_t snaplen)
{
    swapped_order = swapped;
    b->n = 0;
    put32(b, nano ? 0xa1b23c4du : 0xa1b2c3d4u);
    put16(b, 2);
    put16(b, 4);
    put32(b, 0);
    put32(b, 0);
    put32(b, snaplen);
    put32(b, 1); /* Ethernet */
    struct rec {
        int v6, vlan, proto;
        unsigned dport;
        size_t payload;
        int fragment;
        size_t cut; /* captured bytes (0: all) */
    } recs[] = {
        {0, 0, 17, 5004, 100, 0, 0},  {0, 0, 17, 6000, 64, 0, 0},
        {0, 0, 6, 5004, 80, 0, 0},    {1, 0, 17, 5004, 120, 0, 0},
        {0, 0, 17, 5004, 200, 0, 60}, {0, 1, 17, 5004, 90, 0, 0},
        {0, 0, 17, 5004, 100, 1, 0},  {1, 1, 17, 6000, 33, 0, 0},
        {0, 0, 17, 5004, 400, 0, 0}, /* longer than a snapshot length of 300 */
        {0, 0, 17, 5004, 0, 0, 0},
    };
    uint8_t f[2048];
    for (size_t i = 0; i < sizeof recs / sizeof *recs; i++) {
        const struct rec *r = &recs[i];
        size_t len = frame(f, r->v6, r->vlan, r->proto, r->dport, r->payload, r->fragment);
        size_t cap = r->cut ? r->cut : len;
        put32(b, 1700000000u + (uint32_t)i);
        put32(b, nano ? 123456789u - (uint32_t)i : 654321u - (uint32_t)i);
        put32(b, (uint32_t)cap);
        put32(b, (uint32_t)len);
        put(b, f, cap);
    }
    /* An ARP frame. */
    memset(f, 0, 42);
    be16(f + 12, 0x0806);
    put32(b, 1700000100u);
    put32(b, 0);
    put32(b, 42);
    put32(b, 42);
    put(b, f, 42);
}

typedef struct got {
    xsf_status end;
    uint64_t skipped;
    size_t n;
    rtp_pcap_packet p[64];
    uint8_t data[64][2048];
} got;

static void read_all(const char *path, const char *filter, int want_mapped, got *g)
{
    memset(g, 0, sizeof *g);
    rtp_pcap_reader *r = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    g->end = rtp_pcap_open_file(&r, path, filter, &err);
    if (g->end != XSF_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return;
    }
    CHECK(rtp_pcap_mapped(r) == want_mapped, "%s: mapped %d, expected %d", path, rtp_pcap_mapped(r),
          want_mapped);
    rtp_pcap_packet pk;
    while ((g->end = rtp_pcap_next(r, &pk, &err)) == XSF_OK && g->n < 64) {
        g->p[g->n] = pk;
        memcpy(g->data[g->n], pk.udp_payload, pk.bytes < 2048 ? pk.bytes : 2048);
        g->n++;
    }
    g->skipped = rtp_pcap_skipped(r);
    rtp_pcap_close(r);
}

typedef struct feeder {
    const char *path;
    const buf *b;
} feeder;

static void *feed_fifo(void *arg)
{
    const feeder *f = arg;
    FILE *o = fopen(f->path, "wb");
    if (o) {
        fwrite(f->b->d, 1, f->b->n, o);
        fclose(o);
    }
    return NULL;
}

/* The same bytes as a regular file (mapped) and through a FIFO (libpcap). */
static void compare(const char *dir, const char *what, const buf *b, const char *filter,
                    size_t expect_min)
{
    char file[1024], fifo[1024];
    snprintf(file, sizeof file, "%s/map.pcap", dir);
    snprintf(fifo, sizeof fifo, "%s/map.fifo", dir);
    FILE *o = fopen(file, "wb");
    CHECK(o && fwrite(b->d, 1, b->n, o) == b->n, "%s: writing", file);
    if (o)
        fclose(o);
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0, "%s: mkfifo", fifo);
    static got mapped, lib;
    read_all(file, filter, 1, &mapped);
    feeder fd = {fifo, b};
    pthread_t th;
    pthread_create(&th, NULL, feed_fifo, &fd);
    read_all(fifo, filter, 0, &lib);
    pthread_join(th, NULL);
    remove(fifo);
    remove(file);
    const char *fl = filter ? filter : "(none)";
    CHECK(mapped.n == lib.n && mapped.n >= expect_min,
          "%s, filter %s: %zu packets mapped, %zu by libpcap", what, fl, mapped.n, lib.n);
    CHECK(mapped.skipped == lib.skipped, "%s, filter %s: skipped %llu vs %llu", what, fl,
          (unsigned long long)mapped.skipped, (unsigned long long)lib.skipped);
    CHECK(mapped.end == lib.end, "%s, filter %s: ends with %d vs %d", what, fl, (int)mapped.end,
          (int)lib.end);
    for (size_t i = 0; i < mapped.n && i < lib.n; i++) {
        const rtp_pcap_packet *a = &mapped.p[i], *c = &lib.p[i];
        CHECK(a->bytes == c->bytes && a->truncated == c->truncated &&
                  a->arrival_ns == c->arrival_ns && !memcmp(&a->src, &c->src, sizeof a->src) &&
                  !memcmp(&a->dst, &c->dst, sizeof a->dst) &&
                  !memcmp(mapped.data[i], lib.data[i], a->bytes < 2048 ? a->bytes : 2048),
              "%s, filter %s: packet %zu differs (%zu/%zu bytes, truncated %d/%d, time %llu/%llu)",
              what, fl, i, a->bytes, c->bytes, a->truncated, c->truncated,
              (unsigned long long)a->arrival_ns, (unsigned long long)c->arrival_ns);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_rtp_pcap_map WORK_DIR\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    buf b = {0};
    const char *filters[] = {NULL, "udp", "udp and dst port 5004", "ip6"};
    const size_t expect[] = {8, 8, 5, 1};
    for (int swapped = 0; swapped < 2; swapped++)
        for (int nano = 0; nano < 2; nano++) {
            char what[64];
            snprintf(what, sizeof what, "%s-endian, %s", swapped ? "other" : "own",
                     nano ? "ns" : "us");
            make_file(&b, swapped, nano, 300);
            for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
                compare(argv[1], what, &b, filters[f], expect[f]);
            /* The file ends inside its last record. */
            b.n -= 10;
            snprintf(what, sizeof what, "%s-endian, %s, cut short", swapped ? "other" : "own",
                     nano ? "ns" : "us");
            compare(argv[1], what, &b, NULL, 8);
        }
    free(b.d);
    return xsf_test_finish();
}
