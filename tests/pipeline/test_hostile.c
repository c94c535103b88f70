/* Hostile input through the whole receive path: a good stream (NF frames of
 * vectors/xs/seq_5f_422_10b.jxs, 320x180 4:2:2 10-bit, RFC 9134 codestream
 * mode with the picture segment boxes) interleaved, case by case, with what
 * a misconfigured or hostile sender sends, pushed into the pipeline's RTP
 * source (PL_RTP_PUSH) and decoded by its CPU stage.
 *
 * For every case it asserts:
 *   - every good frame is delivered, its decoded picture byte-exact (MD5)
 *     with the clean run's: frames lost that could have been kept = 0
 *   - each cause is counted under its own name, exactly as many as were sent
 *   - the stream's memory (pool + depacketizer, the figures `xsflow recv`
 *     prints) stays within its bound, and the process's resident memory
 *     grows by no more than that bound
 * and prints a table (case, inputs tried, frames lost that could have been
 * kept, crashes) for BENCHMARKS.md. A crash or a hang fails the test (ctest's
 * timeout). With "gpu" the same runs on the GPU stage (skipped without a GPU):
 * the decoder's context must stay usable after the codestreams it refuses.
 * usage: test_hostile VECTOR_DIR [cpu|gpu] */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "md5.h"
#include "pipeline.h"
#include "test.h"
#include "xs.h"

#define NF 40
#define PT 112
#define SSRC 0x600dcafeu
#define PACKET_BYTES 1400 /* RTP packet */
#define TS_STEP 3600      /* 25 fps on the 90 kHz clock */
#define FRAMES_IN_POOL 8

static uint8_t *file;
static size_t file_len;
static size_t cs_off[8], cs_len[8], ncs;
static uint8_t boxes[RTP_JXS_BOXES_BYTES];
static size_t boxes_len;

/* ---- a deterministic generator (every run sends the same bytes) ---- */
static uint64_t rng_state = 0x1234;
static uint32_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 16);
}

/* ---- the sink: the MD5 of each delivered picture, by RTP timestamp ---- */
typedef struct got {
    uint32_t ts;
    char md5[33];
} got;
typedef struct sink_ctx {
    pthread_mutex_t mu;
    got g[4 * NF];
    size_t n;
} sink_ctx;

static void deliver(void *ctx, pl_frame *f)
{
    sink_ctx *s = ctx;
    app_md5 m;
    app_md5_init(&m);
    const xsf_picture *pic = &f->picture[0];
    for (int c = 0; c < pic->fmt.nc; c++)
        for (int y = 0; y < pic->fmt.height[c]; y++)
            app_md5_update(&m, (const uint8_t *)xsf_picture_row16(pic, c, y),
                           (size_t)pic->fmt.width[c] * sizeof(uint16_t));
    pthread_mutex_lock(&s->mu);
    if (s->n < sizeof s->g / sizeof s->g[0]) {
        s->g[s->n].ts = f->rtp_timestamp;
        app_md5_final_hex(&m, s->g[s->n].md5);
        s->n++;
    }
    pthread_mutex_unlock(&s->mu);
    pl_frame_release(f);
}

/* ---- packets ---- */
typedef struct pkt {
    uint8_t b[1600]; /* the largest random datagram is 1500 bytes */
    size_t len;
} pkt;

/* One RTP packet of the followed stream's shape. */
static size_t make_packet(uint8_t *out, uint32_t ssrc, uint16_t seq, uint32_t ts, int marker,
                          unsigned f, unsigned index, const uint8_t *data, size_t n)
{
    rtp_header h;
    memset(&h, 0, sizeof h);
    h.version = 2;
    h.marker = (uint8_t)marker;
    h.payload_type = PT;
    h.seq = seq;
    h.timestamp = ts;
    h.ssrc = ssrc;
    size_t len = rtp_header_write(&h, out, PACKET_BYTES);
    rtp_jxs_header j = {.t = 1,
                        .k = RTP_JXS_CODESTREAM,
                        .l = (uint8_t)marker,
                        .i = 0,
                        .f = (uint8_t)(f % 32),
                        .sep = (uint16_t)(index >> 11),
                        .p = (uint16_t)(index & 0x7ff)};
    rtp_jxs_header_write(&j, out + len);
    len += RTP_JXS_HEADER_BYTES;
    memcpy(out + len, data, n);
    return len + n;
}

/* The whole input of a case: packets in the order they arrive. */
typedef struct input {
    pkt *p;
    size_t n, cap;
} input;
static pkt *add(input *in)
{
    if (in->n == in->cap) {
        in->cap = in->cap ? 2 * in->cap : 4096;
        in->p = realloc(in->p, in->cap * sizeof *in->p);
        if (!in->p) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    pkt *p = &in->p[in->n++];
    p->len = 0;
    return p;
}

/* A segment's payload (boxes + codestream) cut into packets of the followed stream. */
static void segment(input *in, uint16_t *seq, uint32_t ts, unsigned f, const uint8_t *payload,
                    size_t len, int ends)
{
    const size_t room = PACKET_BYTES - RTP_HEADER_BYTES - RTP_JXS_HEADER_BYTES;
    const size_t npk = (len + room - 1) / room;
    for (size_t i = 0; i < npk; i++) {
        const size_t n = i + 1 < npk ? room : len - i * room;
        pkt *p = add(in);
        p->len = make_packet(p->b, SSRC, (*seq)++, ts, ends && i + 1 == npk, f, (unsigned)i,
                             payload + i * room, n);
    }
}

static uint8_t *payload_buf;
/* The payload of good frame k: the boxes, then codestream k mod ncs. */
static size_t good_payload(unsigned k)
{
    const size_t c = k % ncs;
    memcpy(payload_buf, boxes, boxes_len);
    memcpy(payload_buf + boxes_len, file + cs_off[c], cs_len[c]);
    return boxes_len + cs_len[c];
}

static uint32_t good_ts(unsigned k)
{
    return 0x10000000u + (uint32_t)k * TS_STEP;
}

/* ---- the cases ---- */
typedef enum junk_kind {
    J_NONE = 0,
    J_RANDOM,    /* random datagrams, 0 to 1500 bytes */
    J_TRUNCATED, /* a good packet cut inside its RTP + RFC 9134 headers */
    J_VERSION,   /* a good packet with RTP version 0, 1 or 3 */
    J_PT,        /* a good packet with another payload type */
    J_LENGTHS,   /* CSRC count, extension length or padding claiming more than the packet */
    J_SSRC,      /* a good packet from another SSRC: a new one each time, or a second stream */
    J_SEQ_JUMP,  /* the followed SSRC, sequence number 3001.. ahead or 1000.. behind, any
                    timestamp */
    J_COUNTERS,  /* a replay of the good packet just sent with its RFC 9134 counters changed */
    J_FLOOD,     /* 50 per good packet: random, other SSRC, other payload type */
} junk_kind;

typedef enum seg_kind {
    S_NONE = 0,
    S_NEVER_ENDS, /* a valid picture header, then data without end (no L, no M) */
    S_LCOD,       /* a picture header whose Lcod is far below the data that follows */
    S_HUGE,       /* a picture header of 8000x8000 (larger than the stream's picture) */
    S_REFUSED,    /* a whole segment: a valid picture header, then no slice: the decoder refuses */
} seg_kind;

typedef struct hcase {
    const char *name;
    junk_kind junk;
    seg_kind seg;
    size_t max_frame_bytes; /* 0: the bound of the 320x180 4:2:2 picture (as from an SDP) */
    int no_picture_limit;   /* no max_picture_samples (no SDP) */
} hcase;

/* Expected counts, filled while the input is built. */
typedef struct expect {
    uint64_t junk;            /* datagrams that are not the good stream's */
    uint64_t segments;        /* hostile segments inside the good stream */
    uint64_t segment_packets; /* their packets */
    uint64_t invalid, truncated, wrong_pt, ssrc_refused, late, duplicated;
    uint64_t too_large, decode;
} expect;

/* A hostile segment in the followed stream, between good frames. */
static void hostile_segment(input *in, uint16_t *seq, uint32_t ts, unsigned f, seg_kind kind,
                            size_t header_bytes, expect *e, size_t repeat_packets)
{
    const size_t n_before = in->n;
    static uint8_t buf[1 << 16];
    memcpy(buf, payload_buf, boxes_len + header_bytes); /* boxes and a real header */
    uint8_t *cs = buf + boxes_len;
    size_t pih = 0;
    for (size_t i = 0; i + 1 < header_bytes; i++)
        if (cs[i] == 0xff && cs[i + 1] == 0x12) {
            pih = i;
            break;
        }
    e->segments++;
    if (kind == S_REFUSED) {
        /* header, then bytes where the first slice header should be, then EOC */
        size_t n = boxes_len + header_bytes;
        for (size_t i = 0; i < 3000; i++)
            buf[n++] = (uint8_t)(rnd() | 1); /* never 0xff 0x20 (SLH) at the start */
        buf[n++] = 0xff;
        buf[n++] = 0x11;
        const uint32_t lcod = (uint32_t)(n - boxes_len);
        cs[pih + 4] = (uint8_t)(lcod >> 24);
        cs[pih + 5] = (uint8_t)(lcod >> 16);
        cs[pih + 6] = (uint8_t)(lcod >> 8);
        cs[pih + 7] = (uint8_t)lcod;
        segment(in, seq, ts, f, buf, n, 1);
        e->decode++;
        e->segment_packets += in->n - n_before;
        return;
    }
    if (kind == S_LCOD) {
        cs[pih + 4] = cs[pih + 5] = 0;
        cs[pih + 6] = 0x07; /* Lcod 2000 */
        cs[pih + 7] = 0xd0;
    } else if (kind == S_HUGE) {
        cs[pih + 4] = cs[pih + 5] = cs[pih + 6] = cs[pih + 7] = 0; /* no Lcod */
        cs[pih + 12] = 8000 >> 8;
        cs[pih + 13] = 8000 & 0xff;
        cs[pih + 14] = 8000 >> 8;
        cs[pih + 15] = 8000 & 0xff;
    } else {
        cs[pih + 4] = cs[pih + 5] = cs[pih + 6] = cs[pih + 7] = 0; /* no Lcod: the bound holds */
    }
    /* The first packet as a good frame's (boxes, picture header, the first slice
     * header and data: it parses), then data packets that never end the segment. */
    const size_t room = PACKET_BYTES - RTP_HEADER_BYTES - RTP_JXS_HEADER_BYTES;
    memcpy(buf + boxes_len + header_bytes, payload_buf + boxes_len + header_bytes,
           room - boxes_len - header_bytes);
    pkt *p = add(in);
    p->len = make_packet(p->b, SSRC, (*seq)++, ts, 0, f, 0, buf, room);
    for (size_t i = 1; i < repeat_packets; i++) {
        for (size_t k = 0; k < room; k++)
            buf[k] = (uint8_t)rnd();
        p = add(in);
        p->len = make_packet(p->b, SSRC, (*seq)++, ts, 0, f, (unsigned)i, buf, room);
    }
    e->too_large++;
    e->segment_packets += in->n - n_before;
}

static void junk(input *in, junk_kind kind, const pkt *good, uint16_t good_seq, expect *e,
                 int followed)
{
    pkt *p;
    switch (kind) {
    case J_NONE: return;
    case J_RANDOM: {
        p = add(in);
        p->len = rnd() % 1501;
        for (size_t i = 0; i < p->len; i++)
            p->b[i] = (uint8_t)rnd();
        e->junk++;
        /* What it is counted as: see count_random below. */
        rtp_header h;
        rtp_jxs_header j;
        xsf_error err;
        if (rtp_header_parse(p->b, p->len, &h, &err) != XSF_OK ||
            rtp_jxs_header_parse(h.payload, h.payload_bytes, &j, &err) != XSF_OK)
            e->invalid++;
        else if (h.payload_type != PT)
            e->wrong_pt++;
        else
            e->ssrc_refused++; /* another SSRC (on probation, or refused) */
        return;
    }
    case J_TRUNCATED:
        p = add(in);
        p->len = rnd() % (RTP_HEADER_BYTES + RTP_JXS_HEADER_BYTES);
        memcpy(p->b, good->b, p->len);
        e->junk++;
        e->invalid++;
        return;
    case J_VERSION: {
        p = add(in);
        *p = *good;
        static const uint8_t v[3] = {0, 1, 3};
        p->b[0] = (uint8_t)((p->b[0] & 0x3f) | v[rnd() % 3] << 6);
        e->junk++;
        e->invalid++;
        return;
    }
    case J_PT:
        p = add(in);
        *p = *good;
        p->b[1] = (uint8_t)((p->b[1] & 0x80) | (96 + (PT - 96 + 1 + rnd() % 31) % 32));
        e->junk++;
        e->wrong_pt++;
        return;
    case J_LENGTHS: {
        p = add(in);
        *p = *good;
        const unsigned which = rnd() % 3;
        if (which == 0) { /* 15 CSRCs in a 40-byte packet */
            p->b[0] = (uint8_t)((p->b[0] & 0xf0) | 15);
            p->len = 40;
        } else if (which == 1) { /* an extension of 65535 words */
            p->b[0] |= 0x10;
            p->b[14] = p->b[15] = 0xff;
        } else { /* 255 bytes of padding in a 100-byte packet */
            p->b[0] |= 0x20;
            p->len = 100;
            p->b[99] = 255;
        }
        e->junk++;
        e->invalid++;
        return;
    }
    case J_SSRC: {
        p = add(in);
        *p = *good;
        uint32_t ssrc = rnd() % 2 ? 0x0badf00du : (rnd() << 16 ^ rnd());
        if (ssrc == SSRC)
            ssrc ^= 1;
        p->b[8] = (uint8_t)(ssrc >> 24);
        p->b[9] = (uint8_t)(ssrc >> 16);
        p->b[10] = (uint8_t)(ssrc >> 8);
        p->b[11] = (uint8_t)ssrc;
        e->junk++;
        e->ssrc_refused++;
        return;
    }
    case J_SEQ_JUMP: {
        if (!followed)
            return; /* a jump is one only once the stream is followed */
        p = add(in);
        *p = *good;
        const int ahead = rnd() % 2;
        const uint16_t seq = ahead ? (uint16_t)(good_seq + 3001 + rnd() % 29000)
                                   : (uint16_t)(good_seq - 1000 - rnd() % 29000);
        p->b[2] = (uint8_t)(seq >> 8);
        p->b[3] = (uint8_t)seq;
        const uint32_t ts = rnd() << 16 ^ rnd();
        memcpy(
            p->b + 4,
            (uint8_t[4]){(uint8_t)(ts >> 24), (uint8_t)(ts >> 16), (uint8_t)(ts >> 8), (uint8_t)ts},
            4);
        e->junk++;
        if (ahead)
            e->invalid++; /* RFC 3550 A.1: a jump, until a second packet follows it */
        else
            e->late++; /* behind the window: given up on long ago */
        return;
    }
    case J_COUNTERS: {
        p = add(in);
        *p = *good;
        /* Any valid RFC 9134 header: T=1 (or T=0 with K=1), I not 01. */
        uint8_t *j = p->b + RTP_HEADER_BYTES;
        const uint32_t r = rnd() << 16 ^ rnd();
        j[0] = (uint8_t)(r >> 24);
        j[1] = (uint8_t)(r >> 16);
        j[2] = (uint8_t)(r >> 8);
        j[3] = (uint8_t)r;
        j[0] |= 0x80; /* T=1 */
        if (((j[0] >> 3) & 3) == 1)
            j[0] &= (uint8_t)~0x08; /* I=01 is reserved: make it 00 */
        e->junk++;
        e->duplicated++; /* its sequence number was received already */
        return;
    }
    case J_FLOOD:
        for (int i = 0; i < 50; i++)
            junk(in,
                 i % 3 == 0   ? J_RANDOM
                 : i % 3 == 1 ? J_SSRC
                              : J_PT,
                 good, good_seq, e, followed);
        return;
    }
}

static size_t header_bytes_of(const uint8_t *cs, size_t len)
{
    xs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    /* xs_parse_header stops at the first SLH. */
    if (xs_parse_header(cs, len, &h, &err) != XSF_OK)
        return 0;
    return h.header_bytes;
}

static void build(const hcase *c, input *in, expect *e)
{
    memset(e, 0, sizeof *e);
    in->n = 0;
    rng_state = 0x1234 + (uint64_t)c->junk * 77 + (uint64_t)c->seg * 7919;
    uint16_t seq = 40000;
    const size_t hb = header_bytes_of(file + cs_off[0], cs_len[0]);
    for (unsigned k = 0; k < NF; k++) {
        /* A hostile segment after every 8th good frame (not before the first). */
        if (c->seg != S_NONE && k % 8 == 4) {
            (void)good_payload(k);
            const size_t many = c->seg == S_NEVER_ENDS && c->max_frame_bytes ? 5000 : 1200;
            hostile_segment(in, &seq, good_ts(k) - TS_STEP / 2, k, c->seg, hb, e,
                            c->seg == S_LCOD || c->seg == S_HUGE ? 100 : many);
        }
        const size_t len = good_payload(k);
        const size_t first = in->n;
        const uint16_t seq0 = seq;
        segment(in, &seq, good_ts(k), k, payload_buf, len, 1);
        const size_t last = in->n;
        if (c->junk == J_NONE)
            continue;
        /* Junk after each good packet: move the good ones into a copy and interleave. */
        pkt *goods = malloc((last - first) * sizeof *goods);
        if (!goods)
            exit(1);
        memcpy(goods, in->p + first, (last - first) * sizeof *goods);
        in->n = first;
        for (size_t i = 0; i < last - first; i++) {
            *add(in) = goods[i];
            /* the stream is followed once 4 of its packets came (probation) */
            const int followed = k > 0 || i >= 4;
            junk(in, c->junk, &goods[i], (uint16_t)(seq0 + i), e, followed);
        }
        free(goods);
    }
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    long kib = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

typedef struct result {
    uint64_t inputs, frames, lost_keepable, memory_peak, memory_bound;
    long rss_growth_kib;
} result;

static got clean[NF];

/* Runs one case; returns 0 when every check held. */
static int run_case(pl_pipeline *p, const hcase *c, int record_clean, result *res)
{
    const int failed_before = xsf_test_failed;
    input in = {0};
    expect e;
    build(c, &in, &e);
    static sink_ctx sink;
    pthread_mutex_init(&sink.mu, NULL);
    sink.n = 0;
    const uint64_t samples = 320u * 180u * 2u;
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = PL_RTP_PUSH;
    rc.depacketizer.payload_type = PT;
    rc.depacketizer.reorder_packets = 64;
    rc.depacketizer.max_frame_bytes =
        c->max_frame_bytes ? c->max_frame_bytes : rtp_jxs_codestream_bound(samples);
    rc.depacketizer.max_picture_samples = c->no_picture_limit ? 0 : samples;
    xsf_error err;
    xsf_error_clear(&err);
    pl_stream_config sc = {.name = c->name,
                           .backpressure = PL_BLOCK,
                           .frames = FRAMES_IN_POOL,
                           .codestream_bytes = 64 << 10,
                           .max_frame_bytes = rc.depacketizer.max_frame_bytes,
                           .sink = {deliver, NULL, &sink, PL_PICTURE_HOST, NULL, NULL, 0}};
    int stream;
    pl_rtp_source *src;
    if (pl_stream_add(p, &sc, &stream, &err) != XSF_OK ||
        pl_rtp_source_open(&src, &rc, &err) != XSF_OK ||
        pl_rtp_source_start(src, p, stream, &err) != XSF_OK) {
        fprintf(stderr, "%s: %s\n", c->name, err.msg);
        exit(1);
    }
    const long rss0 = rss_kib();
    const uint64_t bound = (uint64_t)FRAMES_IN_POOL * sc.max_frame_bytes +
                           rtp_depacketizer_memory_bound(&rc.depacketizer);
    uint64_t peak = 0, t = 1000000000ull;
    for (size_t i = 0; i < in.n; i++) {
        pl_rtp_source_push(src, in.p[i].b, in.p[i].len, t += 10000);
        if (i % 256 == 0) {
            rtp_stats r;
            pl_rtp_source_stats(src, &r, NULL);
            pl_stream_stats ps;
            pl_stream_stats_get(p, stream, &ps);
            if (ps.pool_bytes + r.memory_bytes > peak)
                peak = ps.pool_bytes + r.memory_bytes;
        }
    }
    pl_rtp_source_flush(src);
    pl_stream_finish(p, stream);
    rtp_stats r;
    pl_rtp_source_stats(src, &r, NULL);
    pl_stream_stats ps;
    pl_stream_stats_get(p, stream, &ps);
    if (ps.pool_bytes + r.memory_bytes > peak)
        peak = ps.pool_bytes + r.memory_bytes;
    const long rss_growth = rss_kib() - rss0;

    /* Every good frame, byte-exact. */
    uint64_t lost = 0;
    for (unsigned k = 0; k < NF; k++) {
        const got *g = NULL;
        for (size_t i = 0; i < sink.n && !g; i++)
            if (sink.g[i].ts == good_ts(k))
                g = &sink.g[i];
        if (record_clean) {
            if (!g) {
                fprintf(stderr, "clean run: frame %u not delivered\n", k);
                exit(1);
            }
            clean[k] = *g;
        } else if (!g || strcmp(g->md5, clean[k].md5)) {
            lost++;
        }
    }
    CHECK(sink.n == NF, "%s: %zu frames delivered, %d good ones sent", c->name, sink.n, NF);
    CHECK(lost == 0, "%s: %llu good frames lost or not byte-exact", c->name,
          (unsigned long long)lost);
    /* Each cause under its own name, exactly. */
#define EQ(got, want, what)                                                                        \
    CHECK((got) == (want), "%s: %s %llu, expected %llu", c->name, what, (unsigned long long)(got), \
          (unsigned long long)(want))
    EQ(r.invalid, e.invalid, "invalid");
    EQ(r.truncated, e.truncated, "truncated");
    EQ(r.wrong_pt, e.wrong_pt, "wrong payload type");
    EQ(r.wrong_ssrc + r.on_probation, e.ssrc_refused, "other SSRC (refused + on probation)");
    EQ(r.late, e.late, "late");
    EQ(r.duplicated, e.duplicated, "duplicated");
    EQ(r.frames_too_large, e.too_large, "frames too large");
    EQ(ps.dropped[PL_DROP_DECODE], e.decode, "frames the decoder refused");
    EQ(r.lost, 0, "packets lost");
    EQ(r.frames_complete, NF + e.decode, "frames whole");
    EQ(r.frames_dropped, e.too_large, "frames dropped");
    EQ(ps.delivered, NF, "frames delivered");
    /* Memory: the stream's figures within the bound, the process's growth too. */
    CHECK(peak <= bound, "%s: the stream held %llu bytes, above its bound %llu", c->name,
          (unsigned long long)peak, (unsigned long long)bound);
    CHECK(ps.pool_bytes <= (uint64_t)FRAMES_IN_POOL * sc.max_frame_bytes,
          "%s: pool %zu bytes above %u x %zu", c->name, ps.pool_bytes, FRAMES_IN_POOL,
          sc.max_frame_bytes);
    CHECK(r.memory_bytes <= rtp_depacketizer_memory_bound(&rc.depacketizer),
          "%s: depacketizer %llu bytes above its bound", c->name,
          (unsigned long long)r.memory_bytes);
    CHECK(rss_growth <= (long)(bound / 1024) + 8192, "%s: RSS grew %ld KiB, bound %llu KiB",
          c->name, rss_growth, (unsigned long long)(bound / 1024));
    res->inputs = e.junk + e.segment_packets;
    res->frames = e.segments;
    res->lost_keepable = lost;
    res->memory_peak = peak;
    res->memory_bound = bound;
    res->rss_growth_kib = rss_growth;
    pl_rtp_source_destroy(src);
    free(in.p);
    return xsf_test_failed != failed_before;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_hostile VECTOR_DIR [cpu|gpu]\n");
        return 2;
    }
    const int gpu = argc > 2 && !strcmp(argv[2], "gpu");
    if (gpu && xs_gpu_available() != XSF_OK) {
        printf("skipped: no usable GPU\n");
        return XSF_TEST_SKIP;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/seq_5f_422_10b.jxs", argv[1]);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    file_len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    file = malloc(file_len);
    if (!file || fread(file, 1, file_len, fp) != file_len)
        return 1;
    fclose(fp);
    for (size_t o = 0; o < file_len && ncs < 8;) {
        xs_layout l;
        xsf_error err;
        xsf_error_clear(&err);
        memset(&l, 0, sizeof l);
        if (xs_scan_layout(file + o, file_len - o, &l, &err) != XSF_OK)
            break;
        cs_off[ncs] = o;
        cs_len[ncs++] = l.codestream_bytes;
        o += l.codestream_bytes;
        xs_layout_free(&l);
    }
    CHECK(ncs == 5, "%zu codestreams in %s, expected 5", ncs, path);
    rtp_jxs_boxes b;
    memset(&b, 0, sizeof b);
    b.present = 1;
    b.frat_den_code = 1;
    b.frat_num = 25;
    b.colr_meth = 5;
    b.primaries = b.transfer = b.matrix = 1;
    boxes_len = rtp_jxs_boxes_write(&b, boxes, sizeof boxes);
    payload_buf = malloc(boxes_len + 65536);

    pl_config pc;
    memset(&pc, 0, sizeof pc);
    pc.engine = gpu ? PL_ENGINE_GPU : PL_ENGINE_CPU;
    pc.cpu_threads = 2;
    pl_pipeline *p;
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_create(&p, &pc, &err) != XSF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    static const hcase cases[] = {
        {"clean", J_NONE, S_NONE, 0, 0},
        {"random datagrams", J_RANDOM, S_NONE, 0, 0},
        {"truncated RTP", J_TRUNCATED, S_NONE, 0, 0},
        {"wrong RTP version", J_VERSION, S_NONE, 0, 0},
        {"wrong payload type", J_PT, S_NONE, 0, 0},
        {"lengths beyond the packet (CSRC, extension, padding)", J_LENGTHS, S_NONE, 0, 0},
        {"foreign SSRCs", J_SSRC, S_NONE, 0, 0},
        {"sequence numbers and timestamps that jump", J_SEQ_JUMP, S_NONE, 0, 0},
        {"RFC 9134 counters that jump (replays)", J_COUNTERS, S_NONE, 0, 0},
        {"frames that never end", J_NONE, S_NEVER_ENDS, 0, 0},
        {"Lcod far below the data", J_NONE, S_LCOD, 0, 0},
        {"a picture larger than the stream's", J_NONE, S_HUGE, 0, 0},
        {"codestreams the decoder refuses", J_NONE, S_REFUSED, 0, 0},
        {"flood (50 junk packets per good one)", J_FLOOD, S_NONE, 0, 0},
        {"huge claims, no SDP (--max-frame-bytes 4 MiB)", J_NONE, S_NEVER_ENDS, 4u << 20, 1},
        {"all at once: flood + frames that never end", J_FLOOD, S_NEVER_ENDS, 0, 0},
    };
    const size_t ncases = sizeof cases / sizeof cases[0];
    result res[sizeof cases / sizeof cases[0]];
    for (size_t i = 0; i < ncases; i++) {
        const int f = run_case(p, &cases[i], i == 0, &res[i]);
        fprintf(stderr, "%-52s %s\n", cases[i].name, f ? "FAIL" : "ok");
    }
    printf("\n| hostile input | datagrams tried (hostile frames) | good frames | frames lost that "
           "could have been kept | crashes | stream memory peak / bound |\n"
           "|---|---|---|---|---|---|\n");
    uint64_t total = 0, lost = 0, frames = 0;
    for (size_t i = 1; i < ncases; i++) {
        printf("| %s | %llu (%llu) | %d | %llu | 0 | %.1f / %.1f MiB |\n", cases[i].name,
               (unsigned long long)res[i].inputs, (unsigned long long)res[i].frames, NF,
               (unsigned long long)res[i].lost_keepable, (double)res[i].memory_peak / 1048576.0,
               (double)res[i].memory_bound / 1048576.0);
        total += res[i].inputs;
        frames += res[i].frames;
        lost += res[i].lost_keepable;
    }
    printf("| **all** | %llu (%llu) | %d | %llu | 0 | |\n", (unsigned long long)total,
           (unsigned long long)frames, (int)(ncases - 1) * NF, (unsigned long long)lost);
    pl_destroy(p);
    free(payload_buf);
    free(file);
    return xsf_test_finish();
}
