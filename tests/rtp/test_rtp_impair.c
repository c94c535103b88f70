/* The depacketizer under impairments, with exact counts: drop, reorder,
 * duplicate, truncate, garbage, wrong SSRC and payload type, sequence wrap,
 * a frame lost whole, a packet too late for the window, interlaced fields,
 * a wild sequence jump, and random packets (bounded memory, no crash).
 *
 * The stream: NF copies of one codestream of 12 slices (vectors/xs/
 * slice_h16.jxs), 512-byte packets, in codestream or slice mode. */
#include <stdint.h>
#include <string.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

#define NF 6
#define PT 112
#define SSRC 0x5eed1234u

static const uint8_t *cs;
static size_t cs_len;

typedef struct stream {
    tu_list pk;
    size_t per_frame[2 * NF];
    size_t frame_start[2 * NF];
    size_t segments;
} stream;

static void make_stream(stream *s, rtp_jxs_mode mode, uint16_t first_seq, int interlaced)
{
    memset(s, 0, sizeof *s);
    rtp_packetizer_config pc = {.mode = mode,
                                .packet_bytes = 512,
                                .payload_type = PT,
                                .ssrc = SSRC,
                                .first_seq = first_seq,
                                .boxes = 1};
    rtp_packetizer *p;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_packetizer_create(&p, &pc, &err) != XSF_OK)
        return;
    for (int f = 0; f < NF; f++) {
        for (int field = 0; field < (interlaced ? 2 : 1); field++) {
            const rtp_jxs_scan scan = interlaced
                                          ? (field ? RTP_JXS_FIELD_SECOND : RTP_JXS_FIELD_FIRST)
                                          : RTP_JXS_PROGRESSIVE;
            s->frame_start[s->segments] = s->pk.n;
            if (rtp_packetize(p, cs, cs_len, (uint32_t)f * 1800, (unsigned)f, scan, tu_collect,
                              &s->pk, &err) != XSF_OK)
                fprintf(stderr, "packetize: %s\n", err.msg);
            s->per_frame[s->segments] = s->pk.n - s->frame_start[s->segments];
            s->segments++;
        }
    }
    rtp_packetizer_destroy(p);
}

/* A sequence of packets to feed: pointers into a stream or extra buffers. */
typedef struct feed {
    const uint8_t *data[4096];
    size_t len[4096];
    size_t n;
} feed;

static void feed_all(feed *f, const stream *s)
{
    f->n = 0;
    for (size_t i = 0; i < s->pk.n && f->n < 4096; i++) {
        f->data[f->n] = s->pk.p[i].data;
        f->len[f->n++] = s->pk.p[i].len;
    }
}

static void feed_remove(feed *f, size_t at)
{
    memmove(f->data + at, f->data + at + 1, (f->n - at - 1) * sizeof f->data[0]);
    memmove(f->len + at, f->len + at + 1, (f->n - at - 1) * sizeof f->len[0]);
    f->n--;
}

static void feed_insert(feed *f, size_t at, const uint8_t *d, size_t len)
{
    memmove(f->data + at + 1, f->data + at, (f->n - at) * sizeof f->data[0]);
    memmove(f->len + at + 1, f->len + at, (f->n - at) * sizeof f->len[0]);
    f->data[at] = d;
    f->len[at] = len;
    f->n++;
}

static void feed_move(feed *f, size_t from, size_t to)
{
    const uint8_t *d = f->data[from];
    const size_t len = f->len[from];
    feed_remove(f, from);
    feed_insert(f, to, d, len);
}

typedef struct result {
    rtp_stats st;
    tu_sink sink;
} result;

static void run(const feed *f, unsigned window, result *r)
{
    memset(r, 0, sizeof *r);
    r->sink.ref = cs;
    r->sink.ref_len = cs_len;
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = window,
                                  .max_packet_bytes = 2048,
                                  .validate = 1,
                                  .on_frame = tu_on_frame,
                                  .ctx = &r->sink};
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK)
        return;
    for (size_t i = 0; i < f->n; i++)
        rtp_depacketizer_push(d, f->data[i], f->len[i], 1000 * (i + 1));
    rtp_depacketizer_flush(d);
    r->st = *rtp_depacketizer_stats(d);
    rtp_depacketizer_destroy(d);
}

static int frames_equal(const result *r, size_t nframes)
{
    if (r->sink.len != nframes * cs_len)
        return 0;
    for (size_t i = 0; i < nframes; i++)
        if (memcmp(r->sink.data + i * cs_len, cs, cs_len))
            return 0;
    return 1;
}

#define EXPECT(r, field, v)                                                                        \
    CHECK((r).st.field == (v), "%s: " #field " = %llu, expected %llu", name,                       \
          (unsigned long long)(r).st.field, (unsigned long long)(v))

static void clean(const char *name, rtp_jxs_mode mode, uint16_t first_seq)
{
    stream s;
    make_stream(&s, mode, first_seq, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    result r;
    run(f, 64, &r);
    EXPECT(r, packets, s.pk.n);
    EXPECT(r, frames_complete, NF);
    EXPECT(r, frames_dropped, 0);
    EXPECT(r, lost, 0);
    EXPECT(r, reordered, 0);
    EXPECT(r, duplicated, 0);
    EXPECT(r, invalid, 0);
    CHECK(frames_equal(&r, NF), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void drop(rtp_jxs_mode mode)
{
    const char *name = mode ? "drop (slice)" : "drop (codestream)";
    stream s;
    make_stream(&s, mode, 1000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    feed_remove(f, 10); /* a packet of frame 0, inside a slice */
    result r;
    run(f, 64, &r);
    EXPECT(r, lost, 1);
    EXPECT(r, frames_complete, NF - 1);
    if (mode == RTP_JXS_CODESTREAM) {
        EXPECT(r, frames_dropped, 1);
        EXPECT(r, frames_partial, 0);
    } else {
        EXPECT(r, frames_dropped, 0);
        EXPECT(r, frames_partial, 1);
        CHECK(r.sink.partial_slices == 11, "%s: %zu whole slices, expected 11", name,
              r.sink.partial_slices);
        CHECK(r.sink.slice_mismatch == 0, "%s: %zu whole slices differ from the source", name,
              r.sink.slice_mismatch);
    }
    CHECK(frames_equal(&r, NF - 1), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void reorder(rtp_jxs_mode mode)
{
    const char *name = mode ? "reorder (slice)" : "reorder (codestream)";
    stream s;
    make_stream(&s, mode, 2000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    feed_move(f, 5, 6); /* adjacent swap */
    const size_t b = s.frame_start[1];
    feed_move(f, b - 1, b); /* across the frame boundary */
    feed_move(f, 20, 30);   /* ten places late */
    result r;
    run(f, 64, &r);
    EXPECT(r, reordered, 3);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF);
    EXPECT(r, frames_dropped, 0);
    CHECK(frames_equal(&r, NF), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void duplicate(void)
{
    const char *name = "duplicate";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 3000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    feed_insert(f, 4, s.pk.p[3].data, s.pk.p[3].len);       /* right after itself */
    feed_insert(f, 16, s.pk.p[10].data, s.pk.p[10].len);    /* five packets later */
    feed_insert(f, 143, s.pk.p[100].data, s.pk.p[100].len); /* 40 packets later, long consumed */
    result r;
    run(f, 64, &r);
    EXPECT(r, duplicated, 3);
    EXPECT(r, late, 0);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF);
    EXPECT(r, packets, s.pk.n + 3);
    CHECK(frames_equal(&r, NF), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void truncate_packets(void)
{
    const char *name = "truncate";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 4000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    f->len[15] = 10;                       /* not even an RTP header: invalid, then lost */
    const size_t i = s.frame_start[1] + 3; /* frame 1: 7 bytes short, still valid RTP */
    f->len[i] -= 7;
    result r;
    run(f, 64, &r);
    EXPECT(r, invalid, 1);
    EXPECT(r, lost, 1);
    EXPECT(r, frames_dropped, 2);
    EXPECT(r, frames_invalid, 1);
    EXPECT(r, frames_complete, NF - 2);
    CHECK(frames_equal(&r, NF - 2), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void garbage(void)
{
    const char *name = "garbage";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 5000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    static uint8_t zeros[20], three[3] = {0x80, 0x70, 0x01}, v1[100];
    static uint8_t short_payload[14], reserved_i[20];
    memset(v1, 0x40, sizeof v1);
    /* Valid RTP of the stream, but a payload too short for the RFC 9134 header. */
    memcpy(short_payload, s.pk.p[0].data, 12);
    /* Valid RTP of the stream with the reserved I value 01. */
    memcpy(reserved_i, s.pk.p[0].data, 16);
    reserved_i[12] = (uint8_t)((reserved_i[12] & ~0x18) | 0x08);
    feed_insert(f, 3, zeros, sizeof zeros);
    feed_insert(f, 50, three, sizeof three);
    feed_insert(f, 77, v1, sizeof v1);
    feed_insert(f, 120, short_payload, sizeof short_payload);
    feed_insert(f, 200, reserved_i, sizeof reserved_i);
    result r;
    run(f, 64, &r);
    EXPECT(r, invalid, 5);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF);
    CHECK(frames_equal(&r, NF), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void wrong_source(void)
{
    const char *name = "wrong SSRC and PT";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 6000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    static uint8_t other[4][600], pt96[600];
    for (int k = 0; k < 4; k++) {
        memcpy(other[k], s.pk.p[k * 30].data, s.pk.p[k * 30].len);
        other[k][11] ^= 0x5a; /* another SSRC, same sequence numbers */
        feed_insert(f, (size_t)(5 + k * 40), other[k], s.pk.p[k * 30].len);
    }
    memcpy(pt96, s.pk.p[7].data, s.pk.p[7].len);
    pt96[1] = (uint8_t)((pt96[1] & 0x80) | 96);
    feed_insert(f, 100, pt96, s.pk.p[7].len);
    result r;
    run(f, 64, &r);
    EXPECT(r, wrong_ssrc, 4);
    EXPECT(r, wrong_pt, 1);
    EXPECT(r, duplicated, 0);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF);
    CHECK(frames_equal(&r, NF), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void lost_frame(void)
{
    const char *name = "frame lost whole";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 7000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    for (size_t k = 0; k < s.per_frame[2]; k++)
        feed_remove(f, s.frame_start[2]);
    result r;
    run(f, 64, &r);
    EXPECT(r, lost, s.per_frame[2]);
    EXPECT(r, frames_dropped, 1);
    EXPECT(r, frames_complete, NF - 1);
    CHECK(frames_equal(&r, NF - 1), "%s: codestreams differ", name);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void late(void)
{
    const char *name = "late";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 8000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    feed_move(f, 30, 70); /* 40 places: beyond a window of 16 */
    result r;
    run(f, 16, &r);
    EXPECT(r, lost, 1);
    EXPECT(r, late, 1);
    EXPECT(r, reordered, 0);
    EXPECT(r, frames_dropped, 1);
    EXPECT(r, frames_complete, NF - 1);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void interlaced(rtp_jxs_mode mode)
{
    const char *name = mode ? "interlaced (slice)" : "interlaced (codestream)";
    stream s;
    make_stream(&s, mode, 9000, 1);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    result r;
    run(f, 64, &r);
    EXPECT(r, frames_complete, 2 * NF);
    EXPECT(r, lost, 0);
    CHECK(frames_equal(&r, 2 * NF), "%s: codestreams differ", name);
    free(r.sink.data);
    /* The second field of frame 1 loses a packet. */
    feed_remove(f, s.frame_start[3] + 2);
    run(f, 64, &r);
    EXPECT(r, lost, 1);
    EXPECT(r, frames_complete, 2 * NF - 1);
    EXPECT(r, frames_dropped + r.st.frames_partial, 1);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static void wild_jump(void)
{
    const char *name = "wild sequence jump";
    stream s;
    make_stream(&s, RTP_JXS_CODESTREAM, 10000, 0);
    feed *f = malloc(sizeof *f);
    feed_all(f, &s);
    static uint8_t wild[600];
    memcpy(wild, s.pk.p[40].data, s.pk.p[40].len);
    wild[2] = (uint8_t)(wild[2] + 0x50); /* +20480: taken as a restart only if followed */
    feed_insert(f, 60, wild, s.pk.p[40].len);
    result r;
    run(f, 64, &r);
    EXPECT(r, invalid, 1);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF);
    free(r.sink.data);
    free(f);
    tu_free(&s.pk);
}

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

static void random_packets(void)
{
    /* Valid-looking RTP of the right SSRC with random sequence numbers,
     * timestamps and payload headers: nothing may crash or grow without
     * bound (ASan/valgrind builds check the memory), and no frame passes. */
    tu_sink sink;
    memset(&sink, 0, sizeof sink);
    rtp_depacketizer_config dc = {.payload_type = -1,
                                  .reorder_packets = 128,
                                  .max_packet_bytes = 1500,
                                  .max_frame_bytes = 1 << 20,
                                  .max_slices = 64,
                                  .validate = 1,
                                  .on_frame = tu_on_frame,
                                  .ctx = &sink};
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_depacketizer_create(&d, &dc, &err) == XSF_OK, "create: %s", err.msg);
    uint8_t pkt[1500];
    uint16_t seq = 0;
    for (int i = 0; i < 50000; i++) {
        const size_t len = 16 + rnd() % 1400;
        for (size_t k = 0; k < len; k++)
            pkt[k] = (uint8_t)rnd();
        pkt[0] = 0x80;
        pkt[1] = (uint8_t)(rnd() & 0x80);
        seq = (uint16_t)(seq + (rnd() % 8 == 0 ? rnd() % 300 : 1));
        pkt[2] = (uint8_t)(seq >> 8);
        pkt[3] = (uint8_t)seq;
        memcpy(pkt + 8, "\x01\x02\x03\x04", 4);
        pkt[12] &= 0xe7; /* no reserved I */
        rtp_depacketizer_push(d, pkt, len, (uint64_t)i * 1000);
    }
    rtp_depacketizer_flush(d);
    const rtp_stats *st = rtp_depacketizer_stats(d);
    CHECK(st->packets + st->invalid == 50000, "every packet counted once: %llu + %llu",
          (unsigned long long)st->packets, (unsigned long long)st->invalid);
    CHECK(st->frames_complete == 0, "random bytes made %llu frames",
          (unsigned long long)st->frames_complete);
    rtp_depacketizer_destroy(d);
    free(sink.data);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "vectors/xs/slice_h16.jxs";
    size_t len;
    uint8_t *data = tu_read_file(path, &len);
    if (!data || !(cs_len = tu_codestream_bytes(data, len))) {
        fprintf(stderr, "cannot read the codestream %s\n", path);
        return 1;
    }
    cs = data;
    clean("clean (codestream)", RTP_JXS_CODESTREAM, 100);
    clean("clean (slice)", RTP_JXS_SLICE, 100);
    clean("sequence wrap (codestream)", RTP_JXS_CODESTREAM, 65500);
    clean("sequence wrap (slice)", RTP_JXS_SLICE, 65450);
    drop(RTP_JXS_CODESTREAM);
    drop(RTP_JXS_SLICE);
    reorder(RTP_JXS_CODESTREAM);
    reorder(RTP_JXS_SLICE);
    duplicate();
    truncate_packets();
    garbage();
    wrong_source();
    lost_frame();
    late();
    interlaced(RTP_JXS_CODESTREAM);
    interlaced(RTP_JXS_SLICE);
    wild_jump();
    random_packets();
    free(data);
    return xsf_test_finish();
}
