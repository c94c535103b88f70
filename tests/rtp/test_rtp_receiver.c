/* The receiver against what interoperation brings (issue 12), with exact counts:
 *  - reordering at the start of a stream: every permutation of the first
 *    packets, both packetization modes, frame 0 whole;
 *  - slice mode with more than 4096 slices (4096, 4097, 20000 and the
 *    cap of max_slices), through the packetizer and back;
 *  - loss at the edges: packets before the first received (from P and
 *    SEP) and after the last (at flush), frames dropped there counted;
 *  - source validation (RFC 3550 A.1): thousands of junk datagrams before
 *    and inside a good stream, a sender that restarts with a new SSRC,
 *    another SSRC refused while the first is live;
 *  - holes in a row: each given up on reorder_ns after the first packet
 *    behind it came, not after the hole before it was given up on;
 *  - one buffer for every packet, overwritten after each push (a socket's):
 *    the same frames and counts as from packets that stay.
 *
 * The stream: NF copies of vectors/xs/slice_h16.jxs (21600 bytes, 12
 * slices). The many-slice codestreams come from the encoder (4:0:0, 16
 * samples wide, slices of one line). */
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

static uint32_t rng = 777;
static uint32_t rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

typedef struct stream {
    tu_list pk;
    size_t frame_start[NF + 1];
} stream;

/* nframes copies of `code`, starting at first_seq, timestamps 1800 apart. */
static void make(stream *s, rtp_jxs_mode mode, size_t packet_bytes, uint32_t ssrc,
                 uint16_t first_seq, const uint8_t *code, size_t code_len, size_t nframes)
{
    memset(s, 0, sizeof *s);
    rtp_packetizer_config pc = {.mode = mode,
                                .packet_bytes = packet_bytes,
                                .payload_type = PT,
                                .ssrc = ssrc,
                                .first_seq = first_seq,
                                .boxes = 1};
    rtp_packetizer *p;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_packetizer_create(&p, &pc, &err) == XSF_OK, "packetizer: %s", err.msg);
    for (size_t f = 0; f < nframes; f++) {
        if (f <= NF)
            s->frame_start[f] = s->pk.n;
        CHECK(rtp_packetize(p, code, code_len, (uint32_t)f * 1800, (unsigned)f, RTP_JXS_PROGRESSIVE,
                            tu_collect, &s->pk, &err) == XSF_OK,
              "packetize: %s", err.msg);
    }
    if (nframes <= NF)
        s->frame_start[nframes] = s->pk.n;
    rtp_packetizer_destroy(p);
}

/* What to feed: pointers to packets (of a stream or made up), with arrival times. */
typedef struct feed {
    const uint8_t **data;
    size_t *len;
    uint64_t *at;
    size_t n, cap;
} feed;

static void feed_add(feed *f, const uint8_t *d, size_t len, uint64_t at)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 1024;
        f->data = realloc(f->data, f->cap * sizeof *f->data);
        f->len = realloc(f->len, f->cap * sizeof *f->len);
        f->at = realloc(f->at, f->cap * sizeof *f->at);
    }
    f->data[f->n] = d;
    f->len[f->n] = len;
    f->at[f->n++] = at;
}

static void feed_free(feed *f)
{
    free(f->data);
    free(f->len);
    free(f->at);
    memset(f, 0, sizeof *f);
}

typedef struct result {
    rtp_stats st;
    tu_sink sink;
} result;

static void run_cfg(const feed *f, rtp_depacketizer_config dc, result *r)
{
    memset(r, 0, sizeof *r);
    dc.on_frame = tu_on_frame;
    dc.ctx = &r->sink;
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK) {
        CHECK(0, "depacketizer: %s", err.msg);
        return;
    }
    for (size_t i = 0; i < f->n; i++)
        rtp_depacketizer_push(d, f->data[i], f->len[i], f->at[i]);
    rtp_depacketizer_flush(d);
    r->st = *rtp_depacketizer_stats(d);
    rtp_depacketizer_destroy(d);
}

static void run(const feed *f, result *r)
{
    rtp_depacketizer_config dc = {
        .payload_type = PT, .reorder_packets = 64, .max_packet_bytes = 9000, .validate = 1};
    run_cfg(f, dc, r);
}

/* The sink holds n copies of code. */
static int holds(const result *r, const uint8_t *code, size_t code_len, size_t n)
{
    if (r->sink.len != n * code_len)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(r->sink.data + i * code_len, code, code_len))
            return 0;
    return 1;
}

#define EXPECT(who, r, field, v)                                                                   \
    CHECK((r).st.field == (uint64_t)(v), "%s: " #field " = %llu, expected %llu", who,              \
          (unsigned long long)(r).st.field, (unsigned long long)(v))

/* ---- 1. reordering at the start ---- */

static int next_permutation(size_t *a, size_t n)
{
    size_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0)
        return 0;
    size_t j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    size_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
    for (size_t l = i, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

/* Every order of the first `k` packets; T=0 senders too (slice mode). */
static void start_permutations(rtp_jxs_mode mode, size_t packet_bytes, size_t k, int t0,
                               int ssrc_given)
{
    char who[128];
    stream s;
    make(&s, mode, packet_bytes, SSRC, 65534, cs, cs_len, NF); /* the numbers wrap at once */
    if (t0)
        for (size_t i = 0; i < s.pk.n; i++)
            s.pk.p[i].data[12] &= 0x7f;
    size_t perm[8];
    for (size_t i = 0; i < k; i++)
        perm[i] = i;
    size_t tried = 0, bad = 0;
    do {
        feed f = {0};
        for (size_t i = 0; i < s.pk.n; i++) {
            const size_t j = i < k ? perm[i] : i;
            feed_add(&f, s.pk.p[j].data, s.pk.p[j].len, 1000 * (i + 1));
        }
        rtp_depacketizer_config dc = {.payload_type = PT,
                                      .ssrc_given = ssrc_given,
                                      .ssrc = SSRC,
                                      .reorder_packets = 64,
                                      .max_packet_bytes = 9000,
                                      .validate = 1};
        result r;
        run_cfg(&f, dc, &r);
        const int ok = r.st.frames_complete == NF && r.st.frames_dropped == 0 &&
                       r.st.frames_partial == 0 && r.st.lost == 0 && r.st.late == 0 &&
                       r.st.duplicated == 0 && r.st.packets == s.pk.n && holds(&r, cs, cs_len, NF);
        if (!ok && bad++ < 3)
            fprintf(
                stderr, "order %zu %zu %zu %zu: %llu whole, %llu dropped, %llu lost, %llu late\n",
                perm[0], perm[1], k > 2 ? perm[2] : 0, k > 3 ? perm[3] : 0,
                (unsigned long long)r.st.frames_complete, (unsigned long long)r.st.frames_dropped,
                (unsigned long long)r.st.lost, (unsigned long long)r.st.late);
        tried++;
        free(r.sink.data);
        feed_free(&f);
    } while (next_permutation(perm, k));
    snprintf(who, sizeof who, "start reordered (%s%s, %zu-byte packets%s)",
             mode ? "slice" : "codestream", t0 ? ", T=0" : "", packet_bytes,
             ssrc_given ? ", SSRC given" : "");
    CHECK(bad == 0, "%s: %zu of %zu orders of the first %zu packets lose frame 0", who, bad, tried,
          k);
    tu_free(&s.pk);
}

/* The first packet received is far ahead of the real first one, but inside
 * the window: the start waits for it (and it is given up on by count when it
 * never comes). */
static void start_far_behind(void)
{
    const char *who = "start: the first 4 packets received 30 ahead of the first sent";
    stream s;
    make(&s, RTP_JXS_CODESTREAM, 512, SSRC, 100, cs, cs_len, NF);
    feed f = {0};
    for (size_t i = 30; i < 34; i++)
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 1));
    for (size_t i = 0; i < s.pk.n; i++)
        if (i < 30 || i >= 34)
            feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 100));
    result r;
    run(&f, &r);
    EXPECT(who, r, frames_complete, NF);
    EXPECT(who, r, reordered, 30);
    EXPECT(who, r, lost, 0);
    CHECK(holds(&r, cs, cs_len, NF), "%s: codestreams differ", who);
    free(r.sink.data);
    feed_free(&f);
    tu_free(&s.pk);
}

/* ---- 2. many slices ---- */

/* A 4:0:0 codestream 16 samples wide and `nslices` lines high, one line a slice. */
static uint8_t *many_slices(size_t nslices, size_t *len)
{
    xs_encoder_config c;
    xs_encoder_config_init(&c);
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_encoder_config_format(&c, "400", 16, (int)nslices, 8) != XSF_OK)
        return NULL;
    c.nlx = 1;
    c.nly = 0;
    c.slice_lines = 1;
    c.bpp = 16; /* the slice and precinct headers alone take 6 */
    xs_encoder *enc;
    if (xs_encoder_create(&enc, &c, &err) != XSF_OK) {
        fprintf(stderr, "encoder (%zu slices): %s\n", nslices, err.msg);
        return NULL;
    }
    uint16_t *plane = malloc(16 * nslices * sizeof *plane);
    for (size_t i = 0; i < 16 * nslices; i++)
        plane[i] = (uint16_t)((i * 7 + i / 16 * 13) & 255);
    xsf_picture img;
    memset(&img, 0, sizeof img);
    img.fmt.nc = 1;
    img.fmt.width[0] = 16;
    img.fmt.height[0] = (int)nslices;
    img.fmt.depth[0] = 8;
    img.stride[0] = (16) * sizeof(uint16_t);
    img.data[0] = (uint8_t *)(plane);
    const size_t cap = xs_encoder_max_bytes(enc);
    uint8_t *out = malloc(cap);
    if (xs_encode(enc, &img, out, cap, len) != XSF_OK) {
        fprintf(stderr, "encode (%zu slices): %s\n", nslices, xs_encoder_error(enc));
        free(out);
        out = NULL;
    }
    xs_encoder_destroy(enc);
    free(plane);
    return out;
}

static void slices(size_t nslices, unsigned max_slices)
{
    char who[96];
    snprintf(who, sizeof who, "%zu slices%s", nslices, max_slices ? " over max_slices" : "");
    size_t len = 0;
    uint8_t *code = many_slices(nslices, &len);
    CHECK(code != NULL, "%s: no codestream", who);
    if (!code)
        return;
    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xs_scan_layout(code, len, &lay, &err) == XSF_OK && lay.nslices == nslices,
          "%s: the codestream has %zu slices", who, lay.nslices);
    xs_layout_free(&lay);
    const size_t nframes = 3;
    stream s;
    make(&s, RTP_JXS_SLICE, 1440, SSRC, 1, code, len, nframes);
    feed f = {0};
    for (size_t i = 0; i < s.pk.n; i++)
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 1));
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = 512,
                                  .max_packet_bytes = 2048,
                                  .max_slices = max_slices,
                                  .validate = 1};
    result r;
    run_cfg(&f, dc, &r);
    EXPECT(who, r, lost, 0);
    if (!max_slices) {
        EXPECT(who, r, frames_complete, nframes);
        EXPECT(who, r, frames_partial, 0);
        EXPECT(who, r, frames_dropped, 0);
        CHECK(holds(&r, code, len, nframes), "%s: codestreams differ", who);
    } else {
        EXPECT(who, r, frames_complete, 0);
        EXPECT(who, r, frames_partial, 0);
        EXPECT(who, r, frames_dropped, nframes);
        EXPECT(who, r, frames_invalid, nframes);
    }
    free(r.sink.data);
    feed_free(&f);
    tu_free(&s.pk);
    free(code);
}

/* ---- 3. loss at the edges ---- */

/* Codestream mode, 512-byte packets: the first `head` packets and the last
 * `tail` never arrive. Frames lost whole at an edge are not seen, so not
 * counted; the one cut by an edge is, with its missing packets. */
static void edges_codestream(size_t head, size_t tail)
{
    char who[96];
    snprintf(who, sizeof who, "edges (codestream, %zu before, %zu after)", head, tail);
    stream s;
    make(&s, RTP_JXS_CODESTREAM, 512, SSRC, 40000, cs, cs_len, NF);
    const size_t pf = s.frame_start[1]; /* every frame has as many packets */
    feed f = {0};
    for (size_t i = head; i + tail < s.pk.n; i++)
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 1));
    result r;
    run(&f, &r);
    const size_t cut = (head % pf > 0) + (tail % pf > 0), gone = head / pf + tail / pf;
    EXPECT(who, r, lost, head % pf + tail % pf);
    EXPECT(who, r, lost_edge, head % pf + tail % pf);
    EXPECT(who, r, frames_dropped_edge, cut);
    EXPECT(who, r, frames_dropped, cut);
    EXPECT(who, r, frames_complete, NF - cut - gone);
    EXPECT(who, r, packets, s.pk.n - head - tail);
    CHECK(holds(&r, cs, cs_len, NF - cut - gone), "%s: codestreams differ", who);
    free(r.sink.data);
    feed_free(&f);
    tu_free(&s.pk);
}

/* Slice mode, 4000-byte packets: the header segment and each slice one
 * packet (13 a frame). The first `head` units and the last `tail` never
 * arrive: frame 0 is dropped, the last passed on partial. */
static void edges_slice(size_t head, size_t tail)
{
    char who[96];
    snprintf(who, sizeof who, "edges (slice, %zu before, %zu after)", head, tail);
    stream s;
    make(&s, RTP_JXS_SLICE, 4000, SSRC, 40000, cs, cs_len, NF);
    CHECK(s.frame_start[1] == 13, "%s: %zu packets a frame, expected 13", who, s.frame_start[1]);
    feed f = {0};
    for (size_t i = head; i + tail < s.pk.n; i++)
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 1));
    result r;
    run(&f, &r);
    EXPECT(who, r, lost, head + tail);
    EXPECT(who, r, lost_edge, head + tail);
    EXPECT(who, r, frames_dropped_edge, head > 0);
    EXPECT(who, r, frames_dropped, head > 0);
    EXPECT(who, r, frames_partial, tail > 0);
    EXPECT(who, r, frames_complete, NF - (head > 0) - (tail > 0));
    CHECK(r.sink.partial_slices == (tail ? 12 - tail : 0), "%s: %zu whole slices in partial frames",
          who, r.sink.partial_slices);
    free(r.sink.data);
    feed_free(&f);
    tu_free(&s.pk);
}

/* ---- 6. source validation ---- */

/* Junk: plausible RTP (version 2, payload type PT, a random SSRC, random
 * numbers, a random RFC 9134 header and payload) or random bytes. */
static size_t junk(uint8_t *p)
{
    const size_t len = 1 + rnd() % 600;
    for (size_t k = 0; k < len; k++)
        p[k] = (uint8_t)rnd();
    if (rnd() % 4) {
        p[0] = 0x80;
        p[1] = (uint8_t)((rnd() & 0x80) | PT);
    }
    return len;
}

static void junk_and_good(void)
{
    const char *who = "junk before and inside a good stream";
    stream s;
    make(&s, RTP_JXS_CODESTREAM, 512, SSRC, 1234, cs, cs_len, NF);
    enum { JUNK = 4000, BEFORE = 2500 };
    uint8_t(*j)[600] = malloc(sizeof *j * JUNK);
    size_t jlen[JUNK];
    for (size_t i = 0; i < JUNK; i++)
        jlen[i] = junk(j[i]);
    feed f = {0};
    uint64_t t = 1000;
    size_t k = 0;
    for (; k < BEFORE; k++, t += 1000)
        feed_add(&f, j[k], jlen[k], t);
    for (size_t i = 0; i < s.pk.n; i++, t += 1000) {
        /* up to 12 junk datagrams before each packet of the good stream */
        for (size_t n = rnd() % 13; n && k < JUNK; n--, k++, t += 1000)
            feed_add(&f, j[k], jlen[k], t);
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, t);
    }
    for (; k < JUNK; k++, t += 1000)
        feed_add(&f, j[k], jlen[k], t);
    result r;
    run(&f, &r);
    EXPECT(who, r, frames_complete, NF);
    EXPECT(who, r, frames_dropped, 0);
    EXPECT(who, r, lost, 0);
    EXPECT(who, r, packets, s.pk.n);
    EXPECT(who, r, ssrc, SSRC);
    EXPECT(who, r, ssrc_changes, 0);
    EXPECT(who, r, invalid + r.st.wrong_pt + r.st.wrong_ssrc + r.st.on_probation, JUNK);
    CHECK(r.st.on_probation > 0 && r.st.wrong_ssrc > 0,
          "%s: junk refused on probation %llu, as another SSRC %llu (expected both)", who,
          (unsigned long long)r.st.on_probation, (unsigned long long)r.st.wrong_ssrc);
    CHECK(holds(&r, cs, cs_len, NF), "%s: codestreams differ", who);
    free(r.sink.data);
    feed_free(&f);
    free(j);
    tu_free(&s.pk);
}

/* Sender A, then sender B (another SSRC and numbering) whose packets come
 * while A is live (refused), then after A has been silent for `silence_ns`:
 * B is followed when that is at least the timeout (1 s), else refused. */
static void sender_restart(uint64_t silence_ns)
{
    char who[96];
    snprintf(who, sizeof who, "sender restart after %llu ms of silence",
             (unsigned long long)(silence_ns / 1000000));
    stream a, b;
    make(&a, RTP_JXS_CODESTREAM, 512, SSRC, 500, cs, cs_len, NF);
    make(&b, RTP_JXS_SLICE, 512, 0xb0b0b0b0u, 30000, cs, cs_len, NF);
    feed f = {0};
    uint64_t t = 1000;
    /* A's frames, B's frame 0 mixed into A's last frame */
    const size_t b0 = b.frame_start[1];
    size_t k = 0;
    for (size_t i = 0; i < a.pk.n; i++, t += 1000) {
        feed_add(&f, a.pk.p[i].data, a.pk.p[i].len, t);
        if (i >= a.frame_start[NF - 1] && k < b0) {
            feed_add(&f, b.pk.p[k].data, b.pk.p[k].len, t);
            k++;
        }
    }
    for (; k < b0; k++, t += 1000) /* A is still live */
        feed_add(&f, b.pk.p[k].data, b.pk.p[k].len, t);
    t += silence_ns;
    for (size_t i = b0; i < b.pk.n; i++, t += 1000)
        feed_add(&f, b.pk.p[i].data, b.pk.p[i].len, t);
    result r;
    run(&f, &r);
    const int follows = silence_ns >= RTP_SSRC_TIMEOUT_NS;
    EXPECT(who, r, ssrc_changes, follows ? 1 : 0);
    EXPECT(who, r, ssrc, follows ? 0xb0b0b0b0u : SSRC);
    EXPECT(who, r, frames_complete, follows ? 2 * NF - 1 : NF);
    EXPECT(who, r, frames_dropped, 0);
    EXPECT(who, r, lost, 0);
    EXPECT(who, r, wrong_ssrc, follows ? b0 : b.pk.n);
    EXPECT(who, r, on_probation, 0);
    CHECK(holds(&r, cs, cs_len, follows ? 2 * NF - 1 : NF), "%s: codestreams differ", who);
    free(r.sink.data);
    feed_free(&f);
    tu_free(&a.pk);
    tu_free(&b.pk);
}

/* A stray packet of another SSRC before the sender starts, then the stream:
 * before source validation the stray captured the receiver. Also a stream
 * of one packet (shorter than probation): followed at the end of input. */
static void stray_first(void)
{
    const char *who = "a stray packet first";
    stream s, stray;
    make(&s, RTP_JXS_CODESTREAM, 1440, SSRC, 9, cs, cs_len, NF);
    make(&stray, RTP_JXS_CODESTREAM, 1440, 0xdeadbeefu, 7, cs, cs_len, 1);
    feed f = {0};
    feed_add(&f, stray.pk.p[0].data, stray.pk.p[0].len, 500);
    for (size_t i = 0; i < s.pk.n; i++)
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 1));
    result r;
    run(&f, &r);
    EXPECT(who, r, frames_complete, NF);
    EXPECT(who, r, on_probation, 1);
    EXPECT(who, r, ssrc, SSRC);
    CHECK(holds(&r, cs, cs_len, NF), "%s: codestreams differ", who);
    free(r.sink.data);
    feed_free(&f);
    /* One stray alone: at the end of input it is what there is. */
    who = "a one-packet stream";
    size_t small_len = 0;
    uint8_t *small = many_slices(4, &small_len);
    tu_free(&stray.pk);
    make(&stray, RTP_JXS_CODESTREAM, 1440, 0xdeadbeefu, 7, small, small_len, 1);
    CHECK(stray.pk.n == 1, "%s: %zu packets", who, stray.pk.n);
    feed_add(&f, stray.pk.p[0].data, stray.pk.p[0].len, 500);
    run(&f, &r);
    EXPECT(who, r, frames_complete, 1);
    EXPECT(who, r, on_probation, 0);
    CHECK(holds(&r, small, small_len, 1), "%s: codestream differs", who);
    free(r.sink.data);
    free(small);
    feed_free(&f);
    tu_free(&stray.pk);
    tu_free(&s.pk);
}

/* ---- 5. frame buffers from the caller (a pool) ---- */

#define POOL_MAX 8

/* A pool of fixed buffers, as pinned host memory would be: acquire gives the
 * smallest free one that holds min_bytes; the consumer returns buffers
 * itself (after on_frame), the depacketizer through release. */
typedef struct pool {
    size_t n;
    size_t cap[POOL_MAX];
    uint8_t *mem[POOL_MAX];
    int busy[POOL_MAX];
    int fail; /* acquire refuses everything */
    size_t acquired, released, handed, returned, misuse;
    /* frames received: held until the test returns them */
    size_t held[64];
    size_t nheld;
    int return_at_once;
    size_t frames, bad_bytes, outside;
    const uint8_t *ref;
    size_t ref_len;
} pool;

static int pool_acquire(void *ctx, size_t min_bytes, rtp_frame_buffer *b)
{
    pool *p = ctx;
    size_t best = POOL_MAX;
    for (size_t i = 0; i < p->n && !p->fail; i++)
        if (!p->busy[i] && p->cap[i] >= min_bytes && (best == POOL_MAX || p->cap[i] < p->cap[best]))
            best = i;
    if (best == POOL_MAX)
        return 1;
    p->busy[best] = 1;
    p->acquired++;
    b->data = p->mem[best];
    b->capacity = p->cap[best];
    b->handle = (void *)(uintptr_t)(best + 1);
    return 0;
}

static size_t pool_slot(pool *p, const rtp_frame_buffer *b)
{
    const size_t i = (size_t)(uintptr_t)b->handle - 1;
    if (i >= p->n || !p->busy[i] || b->data != p->mem[i]) {
        p->misuse++;
        return POOL_MAX;
    }
    return i;
}

static void pool_release(void *ctx, rtp_frame_buffer *b)
{
    pool *p = ctx;
    const size_t i = pool_slot(p, b);
    if (i < POOL_MAX) {
        p->busy[i] = 0;
        p->released++;
    }
}

static void pool_give_back(pool *p)
{
    for (size_t k = 0; k < p->nheld; k++) {
        p->busy[p->held[k]] = 0;
        p->returned++;
    }
    p->nheld = 0;
}

static void pool_on_frame(void *ctx, const rtp_frame *f)
{
    pool *p = ctx;
    const size_t i = pool_slot(p, &f->buffer);
    if (i == POOL_MAX)
        return;
    p->handed++;
    if (f->data < f->buffer.data || f->bytes > f->buffer.capacity ||
        (size_t)(f->data - f->buffer.data) > f->buffer.capacity - f->bytes)
        p->outside++;
    if (f->complete) {
        p->frames++;
        if (f->bytes != p->ref_len || memcmp(f->data, p->ref, p->ref_len))
            p->bad_bytes++;
    }
    if (p->nheld < 64)
        p->held[p->nheld++] = i;
    if (p->return_at_once)
        pool_give_back(p);
}

/* caps: the pool's buffers; hold: frames the consumer keeps before giving
 * all back (0: at once); fail_frames: frames 2.. that arrive while acquire
 * refuses. */
static void buffers(const char *who, rtp_jxs_mode mode, int t0, const size_t *caps, size_t ncaps,
                    int hold)
{
    stream s;
    make(&s, mode, 1440, SSRC, 10, cs, cs_len, NF);
    if (t0)
        for (size_t i = 0; i < s.pk.n; i++)
            s.pk.p[i].data[12] &= 0x7f;
    pool p;
    memset(&p, 0, sizeof p);
    p.n = ncaps;
    for (size_t i = 0; i < ncaps; i++) {
        p.cap[i] = caps[i];
        p.mem[i] = malloc(caps[i]);
    }
    p.return_at_once = !hold;
    p.ref = cs;
    p.ref_len = cs_len;
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = 64,
                                  .max_packet_bytes = 2048,
                                  .validate = 1,
                                  .on_frame = pool_on_frame,
                                  .ctx = &p,
                                  .acquire = pool_acquire,
                                  .release = pool_release,
                                  .buffer_ctx = &p};
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_depacketizer_create(&d, &dc, &err) == XSF_OK, "%s: %s", who, err.msg);
    for (size_t i = 0; i < s.pk.n; i++) {
        /* hold: the consumer keeps every buffer until frame 4 starts: with a
         * pool of two, frames 2 and 3 find none */
        if (hold && i == s.frame_start[4])
            pool_give_back(&p);
        rtp_depacketizer_push(d, s.pk.p[i].data, s.pk.p[i].len, 1000 * (i + 1));
    }
    rtp_depacketizer_flush(d);
    const rtp_stats st = *rtp_depacketizer_stats(d);
    rtp_depacketizer_destroy(d);
    pool_give_back(&p);
    const size_t starved = hold ? 2 : 0;
    CHECK(st.frames_complete == NF - starved && p.frames == NF - starved,
          "%s: %llu whole frames, %zu in pool buffers, expected %zu", who,
          (unsigned long long)st.frames_complete, p.frames, (size_t)(NF - starved));
    CHECK(st.frames_dropped_no_buffer == starved && st.frames_dropped == starved,
          "%s: %llu dropped for want of a buffer (%llu dropped), expected %zu", who,
          (unsigned long long)st.frames_dropped_no_buffer, (unsigned long long)st.frames_dropped,
          starved);
    CHECK(p.bad_bytes == 0 && p.outside == 0, "%s: %zu frames with wrong bytes, %zu outside", who,
          p.bad_bytes, p.outside);
    CHECK(p.misuse == 0, "%s: %zu buffers given back that were not out", who, p.misuse);
    size_t busy = 0;
    for (size_t i = 0; i < p.n; i++)
        busy += p.busy[i];
    CHECK(busy == 0 && p.acquired == p.released + p.handed && p.handed == p.returned,
          "%s: %zu buffers still out; %zu acquired, %zu released, %zu handed over, %zu returned",
          who, busy, p.acquired, p.released, p.handed, p.returned);
    for (size_t i = 0; i < ncaps; i++)
        free(p.mem[i]);
    tu_free(&s.pk);
}

static void buffer_source(void)
{
    const size_t big = 2 * (size_t)1 << 20, frame = RTP_JXS_BOXES_BYTES + cs_len;
    const size_t two_big[] = {big, big};
    /* smaller than the first guess (1 MiB): asked again for what is needed */
    const size_t fitting[] = {frame, frame, frame};
    /* too small for a frame: each frame starts in it and moves to a larger one */
    const size_t growing[] = {2000, 2000, frame + 100, frame + 100};
    buffers("buffers (codestream)", RTP_JXS_CODESTREAM, 0, two_big, 2, 0);
    buffers("buffers (slice)", RTP_JXS_SLICE, 0, two_big, 2, 0);
    buffers("buffers (slice, T=0)", RTP_JXS_SLICE, 1, two_big, 2, 0);
    buffers("buffers of the frame's size", RTP_JXS_CODESTREAM, 0, fitting, 3, 0);
    buffers("buffers that grow", RTP_JXS_SLICE, 0, growing, 4, 0);
    buffers("buffers exhausted (codestream)", RTP_JXS_CODESTREAM, 0, two_big, 2, 1);
    buffers("buffers exhausted (slice)", RTP_JXS_SLICE, 0, two_big, 2, 1);
    buffers("buffers exhausted (T=0)", RTP_JXS_SLICE, 1, two_big, 2, 1);
}

/* ---- holes in a row (issue 16: the soak's stalls) ---- */

/* Frames 1, 2 and 3 each lose a packet in their middle; a packet comes
 * every 100 us, then nothing. With reorder_ns = 20 ms the hole of frame k
 * is given up on 20 ms after the packet behind it came: the polls just
 * before and just after that time must find k - 1 and k packets lost. Chained
 * (each hole waiting 20 ms after the one before it was given up on), the
 * second hole would still wait. At the end frames 0, 4 and 5 are whole. */
static void holes_in_a_row(void)
{
    const char *who = "holes in a row";
    stream s;
    make(&s, RTP_JXS_CODESTREAM, 512, SSRC, 100, cs, cs_len, NF);
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = 4096,
                                  .reorder_ns = 20000000,
                                  .max_packet_bytes = 9000,
                                  .validate = 1};
    result r;
    memset(&r, 0, sizeof r);
    dc.on_frame = tu_on_frame;
    dc.ctx = &r.sink;
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK) {
        CHECK(0, "%s: depacketizer: %s", who, err.msg);
        tu_free(&s.pk);
        return;
    }
    const uint64_t us = 1000, t0 = 1000000 * us, step = 100 * us;
    size_t mid[4] = {0};
    for (int k = 1; k <= 3; k++)
        mid[k] = (s.frame_start[k] + s.frame_start[k + 1]) / 2;
    for (size_t i = 0; i < s.pk.n; i++)
        if (i != mid[1] && i != mid[2] && i != mid[3])
            rtp_depacketizer_push(d, s.pk.p[i].data, s.pk.p[i].len, t0 + step * i);
    const rtp_stats *st = rtp_depacketizer_stats(d);
    CHECK(st->frames_complete == 1 && st->lost == 0,
          "%s: after the packets: %llu whole, %llu lost (want 1, 0)", who,
          (unsigned long long)st->frames_complete, (unsigned long long)st->lost);
    for (int k = 1; k <= 3; k++) {
        const uint64_t seen = t0 + step * (mid[k] + 1); /* the packet behind the hole */
        rtp_depacketizer_poll(d, seen + 20000 * us - 50 * us);
        CHECK(st->lost == (uint64_t)(k - 1), "%s: hole %d, just before its time: %llu lost", who, k,
              (unsigned long long)st->lost);
        rtp_depacketizer_poll(d, seen + 20000 * us + 50 * us);
        CHECK(st->lost == (uint64_t)k, "%s: hole %d, just after its time: %llu lost", who, k,
              (unsigned long long)st->lost);
    }
    CHECK(st->frames_complete == 3 && st->frames_dropped == 3,
          "%s: %llu whole, %llu dropped (want 3, 3)", who, (unsigned long long)st->frames_complete,
          (unsigned long long)st->frames_dropped);
    rtp_depacketizer_flush(d);
    rtp_depacketizer_destroy(d);
    free(r.sink.data);
    tu_free(&s.pk);
}

/* ---- 6. the start settled by a frame's first packet ---- */

/* With the reorder time of two legs (50 ms) and a window of 8001 packets, a stream whose
 * first packet begins a frame has that frame whole at its last packet; one that starts
 * inside a frame waits reorder_ns for what may come before (then drops that frame). */
static void start_at_frame(rtp_jxs_mode mode)
{
    char who[96];
    snprintf(who, sizeof who, "start at a frame's first packet (%s)",
             mode ? "slice" : "codestream");
    stream s;
    make(&s, mode, 1000, SSRC, 100, cs, cs_len, 2);
    for (int cut = 0; cut < 2; cut++) {
        rtp_depacketizer_config dc = {.payload_type = PT,
                                      .reorder_packets = 8001,
                                      .reorder_ns = 50000000,
                                      .max_packet_bytes = 9000,
                                      .validate = 1,
                                      .on_frame = tu_on_frame};
        tu_sink sink;
        memset(&sink, 0, sizeof sink);
        dc.ctx = &sink;
        rtp_depacketizer *d;
        xsf_error err;
        xsf_error_clear(&err);
        if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK) {
            CHECK(0, "%s: depacketizer: %s", who, err.msg);
            break;
        }
        /* Frame 0's packets 100 us apart (cut: without its first), frame 1 after it. */
        uint64_t t = 1000000;
        for (size_t i = (size_t)cut; i < s.frame_start[1]; i++, t += 100000)
            rtp_depacketizer_push(d, s.pk.p[i].data, s.pk.p[i].len, t);
        const uint64_t whole0 = rtp_depacketizer_stats(d)->frames_complete;
        for (size_t i = s.frame_start[1]; i < s.frame_start[2]; i++, t += 100000)
            rtp_depacketizer_push(d, s.pk.p[i].data, s.pk.p[i].len, t);
        const uint64_t whole1 = rtp_depacketizer_stats(d)->frames_complete;
        rtp_depacketizer_poll(d, t + 50000000);
        const rtp_stats *st = rtp_depacketizer_stats(d);
        if (!cut)
            CHECK(whole0 == 1 && whole1 == 2 && st->late == 0 && st->frames_dropped == 0,
                  "%s: frame 0 whole at its last packet (%llu, then %llu whole; %llu late)", who,
                  (unsigned long long)whole0, (unsigned long long)whole1,
                  (unsigned long long)st->late);
        else
            CHECK(whole0 == 0 && whole1 == 0 && st->frames_complete == 1 && st->frames_dropped == 1,
                  "%s, first packet missing: held %llu/%llu, then %llu whole, %llu dropped", who,
                  (unsigned long long)whole0, (unsigned long long)whole1,
                  (unsigned long long)st->frames_complete, (unsigned long long)st->frames_dropped);
        rtp_depacketizer_destroy(d);
        free(sink.data);
    }
    tu_free(&s.pk);
}

/* ---- 7. the caller's packet buffer used again at once ---- */

/* As a socket's: every packet pushed from one buffer that is overwritten after each push.
 * The depacketizer keeps no pointer into it (a packet in order is assembled straight from
 * it; one out of order, duplicated or the first window's is copied): the frames and the
 * counts are those of the same packets pushed from memory that stays, for a window that is
 * a power of two (slots found by a mask) and one that is not. */
static void buffer_reused(rtp_jxs_mode mode, unsigned window)
{
    char who[96];
    snprintf(who, sizeof who, "one buffer for every packet (%s, window %u)",
             mode ? "slice" : "codestream", window);
    stream s;
    make(&s, mode, 300, SSRC, 65000, cs, cs_len, NF);
    /* Pairs swapped and packets repeated here and there, so that both ways are taken. */
    feed f;
    memset(&f, 0, sizeof f);
    rng = 4242;
    for (size_t i = 0; i < s.pk.n; i++) {
        const uint32_t r = rnd() % 16;
        if (r == 0 && i + 1 < s.pk.n) {
            feed_add(&f, s.pk.p[i + 1].data, s.pk.p[i + 1].len, 1000000 + 1000 * i);
            feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000000 + 1000 * i + 500);
            i++;
            continue;
        }
        feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000000 + 1000 * i);
        if (r == 1)
            feed_add(&f, s.pk.p[i].data, s.pk.p[i].len, 1000000 + 1000 * i + 300);
    }
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = window,
                                  .reorder_ns = 20000000,
                                  .max_packet_bytes = 9000,
                                  .validate = 1};
    result kept;
    run_cfg(&f, dc, &kept);
    result r;
    memset(&r, 0, sizeof r);
    dc.on_frame = tu_on_frame;
    dc.ctx = &r.sink;
    rtp_depacketizer *d;
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *buf = malloc(9000);
    if (!buf || rtp_depacketizer_create(&d, &dc, &err) != XSF_OK) {
        CHECK(0, "%s: depacketizer: %s", who, err.msg);
        free(buf);
        feed_free(&f);
        tu_free(&s.pk);
        return;
    }
    for (size_t i = 0; i < f.n; i++) {
        memcpy(buf, f.data[i], f.len[i]);
        rtp_depacketizer_push(d, buf, f.len[i], f.at[i]);
        memset(buf, 0xa5, f.len[i]); /* the next datagram lands here */
    }
    rtp_depacketizer_flush(d);
    r.st = *rtp_depacketizer_stats(d);
    rtp_depacketizer_destroy(d);
    CHECK(holds(&kept, cs, cs_len, NF) && holds(&r, cs, cs_len, NF),
          "%s: the frames (%zu and %zu bytes; want %d x %zu)", who, kept.sink.len, r.sink.len, NF,
          cs_len);
    CHECK(r.st.reordered > 0 && r.st.duplicated > 0, "%s: %llu reordered, %llu duplicated", who,
          (unsigned long long)r.st.reordered, (unsigned long long)r.st.duplicated);
    EXPECT(who, r, packets, kept.st.packets);
    EXPECT(who, r, reordered, kept.st.reordered);
    EXPECT(who, r, duplicated, kept.st.duplicated);
    EXPECT(who, r, lost, 0);
    EXPECT(who, r, frames_complete, NF);
    free(buf);
    free(kept.sink.data);
    free(r.sink.data);
    feed_free(&f);
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
    /* 1 */
    start_permutations(RTP_JXS_CODESTREAM, 512, 4, 0, 0);
    start_permutations(RTP_JXS_CODESTREAM, 512, 5, 0, 1);
    start_permutations(RTP_JXS_SLICE, 512, 4, 0, 0);
    start_permutations(RTP_JXS_SLICE, 4000, 5, 0, 1); /* a unit a packet: frame 0 is 13 */
    start_permutations(RTP_JXS_SLICE, 4000, 4, 1, 0);
    start_far_behind();
    /* 2 */
    slices(4096, 0);
    slices(4097, 0);
    slices(20000, 0);
    slices(4097, 4096);
    /* 3 */
    edges_codestream(3, 0);
    edges_codestream(0, 2);
    edges_codestream(5, 7);
    edges_codestream(43 + 2, 43 + 3); /* a frame lost whole at each edge: not seen, not counted */
    edges_slice(3, 0);
    edges_slice(0, 2);
    edges_slice(1, 1);
    /* 6 */
    junk_and_good();
    sender_restart(1500000000ull);
    sender_restart(300000000ull);
    stray_first();
    holes_in_a_row();
    /* 5 */
    buffer_source();
    /* 6 */
    start_at_frame(RTP_JXS_CODESTREAM);
    start_at_frame(RTP_JXS_SLICE);
    /* 7 */
    buffer_reused(RTP_JXS_CODESTREAM, 64);
    buffer_reused(RTP_JXS_CODESTREAM, 100);
    buffer_reused(RTP_JXS_SLICE, 64);
    buffer_reused(RTP_JXS_SLICE, 100);
    free(data);
    return xsf_test_finish();
}
