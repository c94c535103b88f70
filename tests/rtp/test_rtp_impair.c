/* The depacketizer under impairments, with exact counts: drop, reorder,
 * duplicate, truncate, garbage, wrong SSRC and payload type, sequence wrap,
 * a frame lost whole, a packet too late for the window, interlaced fields
 * (one timestamp per frame, or per field as RFC 9134 erratum 6752 has it),
 * a wild sequence jump, and random packets (bounded memory, no crash).
 * Then RFC 9134 conformance: the packetizer's headers and units field by
 * field (4.1, 4.3), P wrapping inside a slice unit, out-of-order sending
 * (T=0) received whole, and empty padding packets (4.1).
 *
 * The stream: NF copies of one codestream of 12 slices (vectors/xs/
 * slice_h16.jxs), 512-byte packets, in codestream or slice mode. A second
 * vector of one slice of 21 KB (vectors/xs/slice_h180.jxs) makes a slice
 * unit of more than 2048 packets. */
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

/* interlaced: 0 progressive, 1 two fields with the frame's timestamp (RFC
 * 9134 4.2 as published), 2 each field its own (erratum 6752). */
static void make_stream_of(stream *s, rtp_jxs_mode mode, uint16_t first_seq, int interlaced,
                           size_t packet_bytes, const uint8_t *code, size_t code_len)
{
    memset(s, 0, sizeof *s);
    rtp_packetizer_config pc = {.mode = mode,
                                .packet_bytes = packet_bytes,
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
            const uint32_t ts =
                interlaced == 2 ? (uint32_t)f * 3600 + (uint32_t)field * 1800 : (uint32_t)f * 1800;
            if (rtp_packetize(p, code, code_len, ts, (unsigned)f, scan, tu_collect, &s->pk, &err) !=
                XSF_OK)
                fprintf(stderr, "packetize: %s\n", err.msg);
            s->per_frame[s->segments] = s->pk.n - s->frame_start[s->segments];
            s->segments++;
        }
    }
    rtp_packetizer_destroy(p);
}

static void make_stream(stream *s, rtp_jxs_mode mode, uint16_t first_seq, int interlaced)
{
    make_stream_of(s, mode, first_seq, interlaced, 512, cs, cs_len);
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
#define EXPECT_NAMED(who, r, field, v)                                                             \
    CHECK((r).st.field == (v), "%s: " #field " = %llu, expected %llu", who,                        \
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
    static uint8_t short_payload[14], reserved_i[20], t0k0[20];
    memset(v1, 0x40, sizeof v1);
    /* Valid RTP of the stream, but a payload too short for the RFC 9134 header. */
    memcpy(short_payload, s.pk.p[0].data, 12);
    /* Valid RTP of the stream with the reserved I value 01. */
    memcpy(reserved_i, s.pk.p[0].data, 16);
    reserved_i[12] = (uint8_t)((reserved_i[12] & ~0x18) | 0x08);
    /* Valid RTP of the stream with T=0 in codestream mode (RFC 9134 4.3: T=0 needs K=1). */
    memcpy(t0k0, s.pk.p[0].data, 20);
    t0k0[12] &= 0x7f;
    feed_insert(f, 3, zeros, sizeof zeros);
    feed_insert(f, 50, three, sizeof three);
    feed_insert(f, 77, v1, sizeof v1);
    feed_insert(f, 120, short_payload, sizeof short_payload);
    feed_insert(f, 200, reserved_i, sizeof reserved_i);
    feed_insert(f, 230, t0k0, sizeof t0k0);
    result r;
    run(f, 64, &r);
    EXPECT(r, invalid, 6);
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

static void interlaced(rtp_jxs_mode mode, int field_timestamps)
{
    char name[80];
    snprintf(name, sizeof name, "interlaced (%s, %s)", mode ? "slice" : "codestream",
             field_timestamps ? "a timestamp per field" : "one timestamp per frame");
    stream s;
    make_stream(&s, mode, 9000, field_timestamps ? 2 : 1);
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

/* ---- RFC 9134 conformance ---- */

/* Our packets carry no CSRC, extension or padding: the payload header is at 12. */
static rtp_jxs_header jxs_of(const tu_packet *p)
{
    rtp_jxs_header h;
    memset(&h, 0, sizeof h);
    xsf_error err;
    xsf_error_clear(&err);
    if (p->len < 16 || rtp_jxs_header_parse(p->data + 12, p->len - 12, &h, &err) != XSF_OK)
        h.sep = 0xffff; /* matches no expectation below */
    return h;
}

static int marker_of(const tu_packet *p)
{
    return p->data[1] >> 7;
}

static void set_seq(uint8_t *pkt, uint16_t seq)
{
    pkt[2] = (uint8_t)(seq >> 8);
    pkt[3] = (uint8_t)seq;
}

/* Runs the depacketizer over a list (for streams longer than a feed). */
static void run_list(const tu_list *l, unsigned window, const uint8_t *code, size_t code_len,
                     result *r)
{
    memset(r, 0, sizeof *r);
    r->sink.ref = code;
    r->sink.ref_len = code_len;
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
    for (size_t i = 0; i < l->n; i++)
        rtp_depacketizer_push(d, l->p[i].data, l->p[i].len, 1000 * (i + 1));
    rtp_depacketizer_flush(d);
    r->st = *rtp_depacketizer_stats(d);
    rtp_depacketizer_destroy(d);
}

static int sink_holds(const result *r, const uint8_t *code, size_t code_len, size_t n)
{
    if (r->sink.len != n * code_len)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(r->sink.data + i * code_len, code, code_len))
            return 0;
    return 1;
}

/* The packets of one picture segment, field by field against RFC 9134 4.1
 * and 4.3: T=1, K, I, F; codestream mode, P and SEP counting the unit's
 * packets (index = SEP x 2048 + P) and L = M; slice mode, the header segment
 * (boxes + codestream header) alone in its unit with SEP = 0x7ff, then one
 * unit per slice starting with its SLH, SEP = slice index, P from 0 modulo
 * 2048, the last with EOC; L on each unit's last packet, M on the segment's
 * last only; every payload but a unit's last of one size; the data is the
 * boxes, then the codestream. */
static void check_packets(const char *name, rtp_jxs_mode mode, const tu_list *pk, size_t first,
                          size_t count, rtp_jxs_scan scan, unsigned f, const uint8_t *code,
                          size_t code_len)
{
    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    memset(&lay, 0, sizeof lay);
    if (xs_scan_layout(code, code_len, &lay, &err) != XSF_OK) {
        CHECK(0, "%s: layout: %s", name, err.msg);
        return;
    }
    const size_t total = RTP_JXS_BOXES_BYTES + code_len;
    uint8_t *data = malloc(total + 1);
    size_t got = 0, unit = 0, k = 0, chunk = 0, bad = 0, sep1 = 0, wraps = 0;
    size_t unit_start = 0;
    for (size_t i = first; i < first + count; i++) {
        const tu_packet *p = &pk->p[i];
        const rtp_jxs_header h = jxs_of(p);
        const size_t n = p->len - 16;
        const int last_packet = i + 1 == first + count;
        /* Where this unit ends in boxes + codestream. */
        size_t unit_end = total;
        if (mode == RTP_JXS_SLICE)
            unit_end =
                RTP_JXS_BOXES_BYTES + (unit < lay.nslices ? lay.slice_offset[unit] : code_len);
        const int last_of_unit = got + n == unit_end;
        int ok = h.t == 1 && h.k == (uint8_t)mode && h.i == (uint8_t)scan && h.f == f % 32 &&
                 h.l == last_of_unit && marker_of(p) == last_packet;
        if (mode == RTP_JXS_CODESTREAM)
            ok &= h.sep == k >> 11 && h.p == (k & 2047) && h.l == marker_of(p);
        else
            ok &= h.sep == (unit == 0 ? 0x7ff : (unit - 1) % 2047) && h.p == (k & 2047);
        if (!last_of_unit) {
            if (!chunk)
                chunk = n;
            ok &= n == chunk;
        }
        ok &= got + n <= total;
        if (!ok && bad++ < 3)
            fprintf(stderr, "%s: packet %zu: T%u K%u L%u I%u F%u SEP %u P %u M%d, %zu bytes\n",
                    name, i - first, h.t, h.k, h.l, h.i, h.f, h.sep, h.p, marker_of(p), n);
        if (got + n <= total)
            memcpy(data + got, p->data + 16, n);
        sep1 += h.sep == 1 && mode == RTP_JXS_CODESTREAM;
        wraps += k > 0 && h.p == 0;
        got += n;
        k++;
        if (last_of_unit) {
            if (mode == RTP_JXS_SLICE && unit > 0)
                ok = data[unit_start] == 0xff && data[unit_start + 1] == 0x20; /* SLH */
            if (!ok && bad++ < 3)
                fprintf(stderr, "%s: unit %zu does not start with an SLH\n", name, unit);
            unit++;
            unit_start = got;
            k = 0;
        }
    }
    CHECK(bad == 0, "%s: %zu packets break RFC 9134 4.1/4.3", name, bad);
    CHECK(got == total && unit == (mode == RTP_JXS_SLICE ? lay.nslices + 1 : 1),
          "%s: %zu of %zu bytes in %zu units", name, got, total, unit);
    CHECK(got == total && !memcmp(data + 4, "jpvs", 4) && !memcmp(data + 46, "colr", 4) &&
              !memcmp(data + RTP_JXS_BOXES_BYTES, code, code_len),
          "%s: the data is not the boxes, then the codestream", name);
    CHECK(got == total && data[total - 2] == 0xff && data[total - 1] == 0x11, "%s: no EOC last",
          name);
    if (mode == RTP_JXS_CODESTREAM && count > 2048)
        CHECK(sep1 > 0, "%s: %zu packets, SEP never 1", name, count);
    if (mode == RTP_JXS_SLICE && count > 2048 + lay.nslices)
        CHECK(wraps > 0, "%s: P never wraps to 0 inside a unit", name);
    free(data);
    xs_layout_free(&lay);
}

static void packetizer_conformance(const uint8_t *big, size_t big_len)
{
    struct {
        const char *name;
        rtp_jxs_mode mode;
        size_t packet_bytes;
        const uint8_t *code;
        size_t len;
        int interlaced;
    } cases[] = {
        {"packets (codestream, 512)", RTP_JXS_CODESTREAM, 512, cs, cs_len, 0},
        {"packets (slice, 512)", RTP_JXS_SLICE, 512, cs, cs_len, 0},
        {"packets (codestream, 24: SEP extends P)", RTP_JXS_CODESTREAM, 24, cs, cs_len, 0},
        {"packets (slice, 24: P wraps in a unit)", RTP_JXS_SLICE, 24, big, big_len, 0},
        {"packets (codestream, fields)", RTP_JXS_CODESTREAM, 512, cs, cs_len, 2},
        {"packets (slice, fields)", RTP_JXS_SLICE, 512, cs, cs_len, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (!cases[c].code)
            continue;
        stream s;
        make_stream_of(&s, cases[c].mode, 100, cases[c].interlaced, cases[c].packet_bytes,
                       cases[c].code, cases[c].len);
        for (size_t g = 0; g < s.segments && g < 4; g++) {
            const rtp_jxs_scan scan = !cases[c].interlaced ? RTP_JXS_PROGRESSIVE
                                      : g % 2              ? RTP_JXS_FIELD_SECOND
                                                           : RTP_JXS_FIELD_FIRST;
            const unsigned f = cases[c].interlaced ? (unsigned)g / 2 : (unsigned)g;
            check_packets(cases[c].name, cases[c].mode, &s.pk, s.frame_start[g], s.per_frame[g],
                          scan, f, cases[c].code, cases[c].len);
            /* RFC 9134 4.2 (erratum 6752): one timestamp per segment, each
             * field its own. */
            const uint8_t *p0 = s.pk.p[s.frame_start[g]].data;
            const uint32_t ts =
                (uint32_t)p0[4] << 24 | (uint32_t)p0[5] << 16 | (uint32_t)p0[6] << 8 | p0[7];
            int same = 1;
            for (size_t i = 0; i < s.per_frame[g]; i++)
                same &= !memcmp(s.pk.p[s.frame_start[g] + i].data + 4, p0 + 4, 4);
            const uint32_t want =
                cases[c].interlaced ? (uint32_t)(f * 3600 + (g % 2) * 1800) : (uint32_t)(f * 1800);
            CHECK(same && ts == want, "%s: segment %zu: timestamp %u, expected %u on every packet",
                  cases[c].name, g, ts, want);
        }
        /* And back: every segment whole. */
        result r;
        run_list(&s.pk, 64, cases[c].code, cases[c].len, &r);
        EXPECT_NAMED(cases[c].name, r, frames_complete, s.segments);
        EXPECT_NAMED(cases[c].name, r, frames_dropped, 0);
        CHECK(sink_holds(&r, cases[c].code, cases[c].len, s.segments), "%s: codestreams differ",
              cases[c].name);
        free(r.sink.data);
        tu_free(&s.pk);
    }
}

/* T=0 (RFC 9134 4.3): in slice mode the sender may send the packets of a
 * segment in any order; sequence numbers follow the sending order. Frames
 * alternate between units sent last to first (the header segment last) and
 * packets shuffled. drop: 0 none, 1 a packet inside a slice of segment 2,
 * 2 a packet of segment 2's header segment. */
static void out_of_order(int interlaced, int drop)
{
    char name[96];
    snprintf(name, sizeof name, "out of order (T=0%s%s)", interlaced ? ", fields" : "",
             drop == 1   ? ", a slice packet lost"
             : drop == 2 ? ", a header packet lost"
                         : "");
    stream s;
    make_stream(&s, RTP_JXS_SLICE, 100, interlaced ? 2 : 0);
    tu_list out;
    memset(&out, 0, sizeof out);
    uint16_t seq = 65000;
    size_t order[1024];
    for (size_t g = 0; g < s.segments; g++) {
        const size_t first = s.frame_start[g], n = s.per_frame[g];
        if (n > 1024)
            break;
        if (g % 2 == 0) {
            /* units from the last to the first */
            size_t end = n, k = 0;
            while (end > 0) {
                size_t start = end - 1;
                while (start > 0 && !jxs_of(&s.pk.p[first + start - 1]).l)
                    start--;
                for (size_t i = start; i < end; i++)
                    order[k++] = i;
                end = start;
            }
        } else {
            for (size_t i = 0; i < n; i++)
                order[i] = i;
            for (size_t i = n - 1; i > 0; i--) {
                const size_t j = rnd() % (i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        for (size_t i = 0; i < n; i++) {
            const tu_packet *p = &s.pk.p[first + order[i]];
            if (g == 2 && drop) {
                const rtp_jxs_header h = jxs_of(p);
                if ((drop == 1 && h.sep == 5 && h.p == 1) || (drop == 2 && h.sep == 0x7ff)) {
                    drop = -drop; /* once */
                    seq++;        /* lost on the way */
                    continue;
                }
            }
            tu_push(&out, p->data, p->len);
            uint8_t *q = out.p[out.n - 1].data;
            q[12] &= 0x7f; /* T=0 */
            set_seq(q, seq++);
        }
    }
    result r;
    run_list(&out, 64, cs, cs_len, &r);
    drop = -drop;
    EXPECT(r, lost, drop ? 1 : 0);
    EXPECT(r, invalid, 0);
    EXPECT(r, frames_complete, s.segments - (drop ? 1 : 0));
    EXPECT(r, frames_partial, drop == 1 ? 1 : 0);
    EXPECT(r, frames_dropped, drop == 2 ? 1 : 0);
    CHECK(sink_holds(&r, cs, cs_len, s.segments - (drop ? 1 : 0)), "%s: codestreams differ", name);
    if (drop == 1)
        CHECK(r.sink.partial_slices == 11 && r.sink.slice_mismatch == 0,
              "%s: %zu whole slices (expected 11), %zu differ", name, r.sink.partial_slices,
              r.sink.slice_mismatch);
    free(r.sink.data);
    tu_free(&out);
    tu_free(&s.pk);
}

/* T=1 promises the data in order: two slice units swapped in frame 1 leave
 * it partial, but every slice keeps its own index (SEP, counted modulo 2047:
 * the one nearest the slice expected, behind it as well as ahead). */
static void slices_swapped(void)
{
    const char *name = "slices swapped (T=1)";
    stream s;
    make_stream(&s, RTP_JXS_SLICE, 500, 0);
    tu_list out;
    memset(&out, 0, sizeof out);
    uint16_t seq = 500;
    for (size_t g = 0; g < s.segments; g++) {
        const size_t first = s.frame_start[g], n = s.per_frame[g];
        size_t a0 = n, a1 = n, b1 = n; /* slice 3: [a0, a1), slice 4: [a1, b1) */
        for (size_t i = 0; i < n; i++) {
            const rtp_jxs_header h = jxs_of(&s.pk.p[first + i]);
            if (h.sep == 3 && h.p == 0)
                a0 = i;
            if (h.sep == 4 && h.p == 0)
                a1 = i;
            if (h.sep == 5 && h.p == 0)
                b1 = i;
        }
        for (size_t i = 0; i < n; i++) {
            size_t k = i;
            if (g == 1 && b1 < n && i >= a0 && i < b1) /* slice 4, then slice 3 */
                k = i < a0 + (b1 - a1) ? a1 + (i - a0) : a0 + (i - a0 - (b1 - a1));
            tu_push(&out, s.pk.p[first + k].data, s.pk.p[first + k].len);
            set_seq(out.p[out.n - 1].data, seq++);
        }
    }
    result r;
    run_list(&out, 64, cs, cs_len, &r);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF - 1);
    EXPECT(r, frames_partial, 1);
    CHECK(r.sink.partial_slices == 12 && r.sink.slice_mismatch == 0,
          "%s: %zu whole slices (expected 12), %zu at a wrong index", name, r.sink.partial_slices,
          r.sink.slice_mismatch);
    free(r.sink.data);
    tu_free(&out);
    tu_free(&s.pk);
}

/* Sub-frame progress of frame 1 (F counter 1) with a buffer source: the
 * largest final prefix reported. Buffers come from malloc and go back to it. */
typedef struct progress_watch {
    size_t max_bytes;
} progress_watch;

static int pw_acquire(void *ctx, size_t min_bytes, rtp_frame_buffer *b)
{
    (void)ctx;
    b->data = malloc(min_bytes);
    b->capacity = min_bytes;
    b->handle = NULL;
    return b->data ? 0 : -1;
}

static void pw_release(void *ctx, rtp_frame_buffer *b)
{
    (void)ctx;
    free(b->data);
}

static void pw_progress(void *ctx, const rtp_progress *p)
{
    progress_watch *w = ctx;
    if (p->dropped) {
        free(p->buffer.data);
        return;
    }
    if (p->f_counter == 1 && p->bytes > w->max_bytes)
        w->max_bytes = p->bytes;
}

static void pw_frame(void *ctx, const rtp_frame *f)
{
    (void)ctx;
    free(f->buffer.data);
}

/* A sender that skips a slice: frame 1 without the packets of slice 3, the
 * sequence numbers without a gap. The SEP jump shows it: frame 1 is partial
 * with its 11 other slices, nothing counted lost, and its sub-frame progress
 * stops before slice 3 (the whole slices up to the first broken one). */
static void slice_skipped(void)
{
    const char *name = "slice skipped (no sequence gap)";
    stream s;
    make_stream(&s, RTP_JXS_SLICE, 700, 0);
    tu_list out;
    memset(&out, 0, sizeof out);
    uint16_t seq = 700;
    for (size_t g = 0; g < s.segments; g++) {
        for (size_t i = s.frame_start[g]; i < s.frame_start[g] + s.per_frame[g]; i++) {
            if (g == 1 && jxs_of(&s.pk.p[i]).sep == 3)
                continue;
            tu_push(&out, s.pk.p[i].data, s.pk.p[i].len);
            set_seq(out.p[out.n - 1].data, seq++);
        }
    }
    result r;
    run_list(&out, 64, cs, cs_len, &r);
    EXPECT(r, lost, 0);
    EXPECT(r, frames_complete, NF - 1);
    EXPECT(r, frames_partial, 1);
    CHECK(r.sink.partial_slices == 11 && r.sink.slice_mismatch == 0,
          "%s: %zu whole slices (expected 11), %zu at a wrong index", name, r.sink.partial_slices,
          r.sink.slice_mismatch);
    CHECK(sink_holds(&r, cs, cs_len, NF - 1), "%s: codestreams differ", name);
    free(r.sink.data);

    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    memset(&lay, 0, sizeof lay);
    CHECK(xs_scan_layout(cs, cs_len, &lay, &err) == XSF_OK && lay.nslices == 12, "%s: layout: %s",
          name, err.msg);
    progress_watch w = {0};
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = 64,
                                  .max_packet_bytes = 2048,
                                  .on_frame = pw_frame,
                                  .ctx = &w,
                                  .acquire = pw_acquire,
                                  .release = pw_release,
                                  .buffer_ctx = &w,
                                  .on_progress = pw_progress};
    rtp_depacketizer *d;
    if (lay.nslices == 12 && rtp_depacketizer_create(&d, &dc, &err) == XSF_OK) {
        for (size_t i = 0; i < out.n; i++)
            rtp_depacketizer_push(d, out.p[i].data, out.p[i].len, 1000 * (i + 1));
        rtp_depacketizer_flush(d);
        rtp_depacketizer_destroy(d);
        const size_t limit = RTP_JXS_BOXES_BYTES + lay.slice_offset[3];
        CHECK(w.max_bytes > 0 && w.max_bytes <= limit,
              "%s: frame 1 progress to byte %zu, slice 3 starts at %zu", name, w.max_bytes, limit);
    }
    xs_layout_free(&lay);
    tu_free(&out);
    tu_free(&s.pk);
}

/* RFC 9134 4.1: a CBR sender may add empty packets (payload header, no
 * data). Two after each frame, M and L clear: passed over, nothing lost. */
static void padding(rtp_jxs_mode mode)
{
    const char *name = mode ? "empty packets (slice)" : "empty packets (codestream)";
    stream s;
    make_stream(&s, mode, 300, 0);
    tu_list out;
    memset(&out, 0, sizeof out);
    uint16_t seq = 300;
    for (size_t g = 0; g < s.segments; g++) {
        for (size_t i = 0; i < s.per_frame[g] + 2; i++) {
            const size_t last = s.frame_start[g] + s.per_frame[g] - 1;
            const tu_packet *p = &s.pk.p[i < s.per_frame[g] ? s.frame_start[g] + i : last];
            tu_push(&out, p->data, i < s.per_frame[g] ? p->len : 16);
            uint8_t *q = out.p[out.n - 1].data;
            if (i >= s.per_frame[g]) {
                q[1] &= 0x7f;  /* M=0 */
                q[12] &= 0xdf; /* L=0 */
            }
            set_seq(q, seq++);
        }
    }
    result r;
    run_list(&out, 64, cs, cs_len, &r);
    EXPECT(r, packets, out.n);
    EXPECT(r, lost, 0);
    EXPECT(r, invalid, 0);
    EXPECT(r, frames_complete, NF);
    EXPECT(r, frames_dropped, 0);
    CHECK(frames_equal(&r, NF), "%s: codestreams differ", name);
    free(r.sink.data);
    tu_free(&out);
    tu_free(&s.pk);
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
    interlaced(RTP_JXS_CODESTREAM, 0);
    interlaced(RTP_JXS_SLICE, 0);
    interlaced(RTP_JXS_CODESTREAM, 1);
    interlaced(RTP_JXS_SLICE, 1);
    wild_jump();
    random_packets();
    /* RFC 9134 conformance */
    const char *big_path = argc > 2 ? argv[2] : "vectors/xs/slice_h180.jxs";
    size_t big_file;
    uint8_t *big = tu_read_file(big_path, &big_file);
    const size_t big_len = big ? tu_codestream_bytes(big, big_file) : 0;
    CHECK(big_len > 0, "cannot read the codestream %s", big_path);
    packetizer_conformance(big_len ? big : NULL, big_len);
    out_of_order(0, 0);
    out_of_order(1, 0);
    out_of_order(0, 1);
    out_of_order(0, 2);
    slices_swapped();
    slice_skipped();
    padding(RTP_JXS_CODESTREAM);
    padding(RTP_JXS_SLICE);
    free(big);
    free(data);
    return xsf_test_finish();
}
