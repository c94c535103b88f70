/* Interlaced streams (issue 12 item 4).
 *
 * 1. The field pairer alone, on synthetic segments: every order and loss
 *    case (a field missing, cut short, out of order, of another frame by F
 *    counter, SSRC or timestamp, too large; progressive in between; the
 *    end of input) with exact counts, and the first field's bytes kept
 *    after the caller's buffer changes.
 * 2. imgio_weave against a row-by-row weave written here: awkward sizes,
 *    4:2:0 and 4:2:2, a second field one line shorter, pitches above the
 *    width, and refusals with their reasons.
 * 3. End to end in both packetization modes: fields of real codestreams
 *    (vectors/xs/seq_5f_422_10b.jxs) through the packetizer, the
 *    depacketizer (packets of one field dropped) and the pairer, decoded by
 *    the C decoder and woven (jxs_decode_field_pair): each frame equals the
 *    two fields decoded on their own and woven here; the frame that lost a
 *    field is dropped whole and counted. */
#include <stdint.h>
#include <string.h>

#include "image_io.h"
#include "jxs_file.h"
#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

/* ---- 1. the pairer alone ---- */

typedef struct got {
    int n, interlaced[16];
    uint8_t f[16];
    uint8_t first[16][8], second[16][8];
    size_t bytes0[16], bytes1[16];
} got;

static void on_pair(void *ctx, const rtp_field_frame *fr)
{
    got *g = ctx;
    if (g->n >= 16)
        return;
    g->interlaced[g->n] = fr->interlaced;
    g->f[g->n] = fr->f_counter;
    g->bytes0[g->n] = fr->bytes[0];
    g->bytes1[g->n] = fr->interlaced ? fr->bytes[1] : 0;
    memcpy(g->first[g->n], fr->data[0], fr->bytes[0] < 8 ? fr->bytes[0] : 8);
    if (fr->interlaced)
        memcpy(g->second[g->n], fr->data[1], fr->bytes[1] < 8 ? fr->bytes[1] : 8);
    g->n++;
}

/* A segment: scan P (progressive), 1 (first), 2 (second); F; timestamp;
 * complete; a byte tag filling its 8-byte codestream. */
typedef struct seg {
    char scan;
    uint8_t f;
    uint32_t ts;
    int complete;
    uint8_t tag;
    uint32_t ssrc;
} seg;

static rtp_field_stats run_pairer(const seg *s, size_t n, got *g, size_t max_bytes)
{
    memset(g, 0, sizeof *g);
    rtp_field_pairer_config c = {.max_segment_bytes = max_bytes, .on_frame = on_pair, .ctx = g};
    rtp_field_pairer *p;
    xsf_error err = {0};
    rtp_field_stats st;
    memset(&st, 0, sizeof st);
    if (rtp_field_pairer_create(&p, &c, &err) != XSF_OK) {
        CHECK(0, "create: %s", err.msg);
        return st;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t buf[8];
        memset(buf, s[i].tag, sizeof buf);
        rtp_frame f;
        memset(&f, 0, sizeof f);
        f.scan = s[i].scan == 'P'   ? RTP_JXS_PROGRESSIVE
                 : s[i].scan == '1' ? RTP_JXS_FIELD_FIRST
                                    : RTP_JXS_FIELD_SECOND;
        f.f_counter = s[i].f;
        f.timestamp = s[i].ts;
        f.ssrc = s[i].ssrc ? s[i].ssrc : 7;
        f.complete = s[i].complete;
        f.data = buf;
        f.bytes = sizeof buf;
        rtp_field_pairer_push(p, &f);
        memset(buf, 0xee, sizeof buf); /* the depacketizer's buffer is reused */
    }
    rtp_field_pairer_flush(p);
    st = *rtp_field_pairer_stats(p);
    rtp_field_pairer_destroy(p);
    return st;
}

static void test_pairer(void)
{
    got g;
    rtp_field_stats st;
    const uint32_t T = 3600, H = 1800; /* a frame and a field at 25 frames/s */

    /* Progressive passes through. */
    const seg prog[] = {{'P', 0, 0, 1, 0x10, 0}, {'P', 1, T, 1, 0x11, 0}};
    st = run_pairer(prog, 2, &g, 0);
    CHECK(g.n == 2 && !g.interlaced[0] && g.first[1][0] == 0x11 && st.progressive == 2 &&
              st.frames == 2 && st.frames_dropped == 0,
          "progressive: %d frames", g.n);

    /* Two whole frames, each field its own timestamp; and the same timestamp
     * for both fields (RFC 9134 4.2 as first published). */
    const seg two[] = {{'1', 0, 0, 1, 0xa0, 0},
                       {'2', 0, H, 1, 0xb0, 0},
                       {'1', 1, T, 1, 0xa1, 0},
                       {'2', 1, T, 1, 0xb1, 0}};
    st = run_pairer(two, 4, &g, 0);
    CHECK(g.n == 2 && g.interlaced[0] && g.interlaced[1] && g.f[1] == 1 && st.interlaced == 2 &&
              st.frames_dropped == 0,
          "two interlaced frames: %d, dropped %llu", g.n, (unsigned long long)st.frames_dropped);
    /* The first field was copied: its bytes survive the caller's buffer. */
    CHECK(g.first[0][0] == 0xa0 && g.first[0][7] == 0xa0 && g.second[0][0] == 0xb0 &&
              g.first[1][3] == 0xa1 && g.second[1][5] == 0xb1 && g.bytes0[0] == 8 &&
              g.bytes1[0] == 8,
          "field bytes: %02x %02x %02x", g.first[0][0], g.second[0][0], g.first[1][3]);

    /* The first field lost: its second alone is dropped, the frame counted once. */
    const seg no_first[] = {{'2', 0, H, 1, 1, 0}, {'1', 1, T, 1, 2, 0}, {'2', 1, T + H, 1, 3, 0}};
    st = run_pairer(no_first, 3, &g, 0);
    CHECK(g.n == 1 && g.f[0] == 1 && st.frames_dropped == 1 && st.fields_discarded == 1,
          "first field lost: %d frames, dropped %llu", g.n, (unsigned long long)st.frames_dropped);

    /* The second field lost: a first field follows a first field. */
    const seg no_second[] = {{'1', 0, 0, 1, 1, 0}, {'1', 1, T, 1, 2, 0}, {'2', 1, T + H, 1, 3, 0}};
    st = run_pairer(no_second, 3, &g, 0);
    CHECK(g.n == 1 && g.f[0] == 1 && g.first[0][0] == 2 && st.frames_dropped == 1,
          "second field lost: %d frames, dropped %llu", g.n, (unsigned long long)st.frames_dropped);

    /* The stream ends after a first field: dropped at flush. */
    const seg at_end[] = {{'1', 0, 0, 1, 1, 0}, {'2', 0, H, 1, 2, 0}, {'1', 1, T, 1, 3, 0}};
    st = run_pairer(at_end, 3, &g, 0);
    CHECK(g.n == 1 && st.frames_dropped == 1, "trailing first field: %d, dropped %llu", g.n,
          (unsigned long long)st.frames_dropped);

    /* F counters differ: the first lost its second, the second its first. */
    const seg f_mismatch[] = {{'1', 3, 0, 1, 1, 0}, {'2', 4, H, 1, 2, 0}};
    st = run_pairer(f_mismatch, 2, &g, 0);
    CHECK(g.n == 0 && st.frames_dropped == 2 && st.fields_discarded == 2,
          "F mismatch: %d, dropped %llu", g.n, (unsigned long long)st.frames_dropped);

    /* Out of order: the second field before the first. */
    const seg swapped[] = {{'2', 0, H, 1, 1, 0}, {'1', 0, 0, 1, 2, 0}};
    st = run_pairer(swapped, 2, &g, 0);
    CHECK(g.n == 0 && st.frames_dropped == 2, "second before first: %d, dropped %llu", g.n,
          (unsigned long long)st.frames_dropped);

    /* A first field cut short (partial slice-mode segment), then its whole
     * second: one frame dropped, not two. */
    const seg cut_first[] = {
        {'1', 0, 0, 0, 1, 0}, {'2', 0, H, 1, 2, 0}, {'1', 1, T, 1, 3, 0}, {'2', 1, T + H, 1, 4, 0}};
    st = run_pairer(cut_first, 4, &g, 0);
    CHECK(g.n == 1 && g.f[0] == 1 && st.frames_dropped == 1 && st.fields_discarded == 2,
          "first field cut short: %d, dropped %llu, fields %llu", g.n,
          (unsigned long long)st.frames_dropped, (unsigned long long)st.fields_discarded);

    /* A whole first field and its second cut short. */
    const seg cut_second[] = {
        {'1', 0, 0, 1, 1, 0}, {'2', 0, H, 0, 2, 0}, {'1', 1, T, 1, 3, 0}, {'2', 1, T + H, 1, 4, 0}};
    st = run_pairer(cut_second, 4, &g, 0);
    CHECK(g.n == 1 && g.f[0] == 1 && st.frames_dropped == 1 && st.fields_discarded == 2,
          "second field cut short: %d, dropped %llu", g.n, (unsigned long long)st.frames_dropped);

    /* Another SSRC (a restarted sender) with the same F: not a sibling. */
    const seg other_ssrc[] = {{'1', 0, 0, 1, 1, 7}, {'2', 0, H, 1, 2, 9}};
    st = run_pairer(other_ssrc, 2, &g, 0);
    CHECK(g.n == 0 && st.frames_dropped == 2, "other SSRC paired: %d", g.n);

    /* The F counter wrapped (32 frames lost): the timestamp tells. */
    const seg wrapped[] = {{'1', 5, 0, 1, 1, 0}, {'2', 5, 32 * T + H, 1, 2, 0}};
    st = run_pairer(wrapped, 2, &g, 0);
    CHECK(g.n == 0 && st.frames_dropped == 2, "F wrapped paired: %d", g.n);
    /* ... and a timestamp before the first's. */
    const seg earlier[] = {{'1', 5, T, 1, 1, 0}, {'2', 5, T - 1, 1, 2, 0}};
    st = run_pairer(earlier, 2, &g, 0);
    CHECK(g.n == 0 && st.frames_dropped == 2, "earlier second field paired: %d", g.n);

    /* The gap limit, by default a tenth of a second (9000 ticks), is
     * inclusive: a second field 9000 ticks after the first pairs, 9001 not. */
    const seg at_limit[] = {{'1', 3, 100, 1, 1, 0}, {'2', 3, 100 + RTP_CLOCK_HZ / 10, 1, 2, 0}};
    st = run_pairer(at_limit, 2, &g, 0);
    CHECK(g.n == 1 && g.interlaced[0] && st.interlaced == 1 && st.frames_dropped == 0,
          "second field at the gap limit: %d paired", g.n);
    const seg past_limit[] = {{'1', 3, 100, 1, 1, 0}, {'2', 3, 101 + RTP_CLOCK_HZ / 10, 1, 2, 0}};
    st = run_pairer(past_limit, 2, &g, 0);
    CHECK(g.n == 0 && st.frames_dropped == 2, "second field past the gap limit paired: %d", g.n);

    /* Progressive after a waiting first field; a partial progressive frame. */
    const seg mixed[] = {{'1', 0, 0, 1, 1, 0}, {'P', 1, T, 1, 2, 0}, {'P', 2, 2 * T, 0, 3, 0}};
    st = run_pairer(mixed, 3, &g, 0);
    CHECK(g.n == 1 && !g.interlaced[0] && g.first[0][0] == 2 && st.frames_dropped == 1 &&
              st.progressive == 1,
          "progressive after a first field: %d, dropped %llu", g.n,
          (unsigned long long)st.frames_dropped);

    /* A first field above max_segment_bytes: the frame is dropped, counted as too large. */
    st = run_pairer(two, 4, &g, 4);
    CHECK(g.n == 0 && st.frames_dropped == 2 && st.too_large == 2 && st.fields_discarded == 4,
          "too large: %d, dropped %llu, too large %llu", g.n, (unsigned long long)st.frames_dropped,
          (unsigned long long)st.too_large);

    /* A repeated second field after a whole frame: an orphan. */
    const seg repeated[] = {{'1', 0, 0, 1, 1, 0}, {'2', 0, H, 1, 2, 0}, {'2', 0, H, 1, 2, 0}};
    st = run_pairer(repeated, 3, &g, 0);
    CHECK(g.n == 1 && st.frames_dropped == 1, "repeated second field: %d, dropped %llu", g.n,
          (unsigned long long)st.frames_dropped);

    /* Bad configuration. */
    rtp_field_pairer *p = NULL;
    rtp_field_pairer_config c;
    memset(&c, 0, sizeof c);
    xsf_error err = {0};
    CHECK(rtp_field_pairer_create(&p, &c, &err) == XSF_ERR_ARG && !p, "no callback accepted");
}

/* ---- 2. weaving ---- */

static uint32_t rng = 12345;
static uint16_t next_sample(int depth)
{
    rng = rng * 1103515245u + 12345u;
    return (uint16_t)((rng >> 8) & ((1u << depth) - 1));
}

/* A field: nc components, component c of (w >> sx[c]) x h[c], pitch + pad. */
static void make_field(xsf_picture *p, uint16_t *buf, int nc, int w, const int *sx, const int *h,
                       int depth, int pad)
{
    memset(p, 0, sizeof *p);
    p->fmt.nc = nc;
    size_t off = 0;
    for (int c = 0; c < nc; c++) {
        p->fmt.width[c] = w >> sx[c];
        p->fmt.height[c] = h[c];
        p->fmt.depth[c] = depth;
        p->stride[c] = ((size_t)p->fmt.width[c] + (size_t)pad) * sizeof(uint16_t);
        p->data[c] = (uint8_t *)(buf + off);
        for (size_t i = 0; i < (p->stride[c] / 2) * (size_t)h[c]; i++)
            ((uint16_t *)p->data[c])[i] = next_sample(depth);
        off += (p->stride[c] / 2) * (size_t)h[c];
    }
}

static void test_weave(void)
{
    static uint16_t b1[20000], b2[20000], out[40000];
    const int sx422[3] = {0, 1, 1};
    const struct {
        int w, h1[3], h2[3], pad;
    } cases[] = {
        {64, {9, 9, 9}, {9, 9, 9}, 0}, /* 4:2:2 */
        {38, {7, 7, 7}, {6, 6, 6}, 3}, /* odd frame height, pitches above the width */
        {30, {8, 4, 4}, {8, 4, 4}, 1}, /* 4:2:0: each field's chroma is its own */
        {2, {1, 1, 1}, {1, 1, 1}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xsf_picture f1, f2, fr;
        make_field(&f1, b1, 3, cases[k].w, sx422, cases[k].h1, 10, cases[k].pad);
        make_field(&f2, b2, 3, cases[k].w, sx422, cases[k].h2, 10, cases[k].pad);
        size_t need = 0;
        xsf_error err = {0};
        CHECK(imgio_weave_size(&f1, &f2, &need, &err) == XSF_OK, "case %zu: %s", k, err.msg);
        size_t expect = 0;
        for (int c = 0; c < 3; c++)
            expect += (size_t)f1.fmt.width[c] * (size_t)(cases[k].h1[c] + cases[k].h2[c]);
        CHECK(need == expect, "case %zu: %zu samples, expected %zu", k, need, expect);
        err = (xsf_error){0};
        CHECK(imgio_weave(&f1, &f2, out, need - 1, &fr, &err) == XSF_ERR_ARG,
              "case %zu: a buffer one sample short accepted", k);
        err = (xsf_error){0};
        memset(out, 0xff, sizeof out);
        if (imgio_weave(&f1, &f2, out, need, &fr, &err) != XSF_OK) {
            CHECK(0, "case %zu: %s", k, err.msg);
            continue;
        }
        int bad = 0;
        for (int c = 0; c < 3; c++) {
            const int h = cases[k].h1[c] + cases[k].h2[c];
            bad += fr.fmt.height[c] != h || fr.fmt.width[c] != f1.fmt.width[c] ||
                   fr.fmt.depth[c] != 10 || (fr.stride[c] / 2) != (size_t)f1.fmt.width[c];
            for (int y = 0; y < h && !bad; y++) {
                const xsf_picture *src = (y & 1) ? &f2 : &f1;
                for (int x = 0; x < fr.fmt.width[c]; x++)
                    bad += xsf_picture_row16(&fr, c, y)[(size_t)x] !=
                           xsf_picture_row16(src, c, y >> 1)[(size_t)x];
            }
        }
        CHECK(!bad, "case %zu: the woven frame differs from the fields' rows", k);
    }
    /* Refusals name the component and the shapes. */
    xsf_picture f1, f2, fr;
    const int h9[3] = {9, 9, 9}, h7[3] = {9, 7, 9}, h10[3] = {10, 10, 10};
    make_field(&f1, b1, 3, 64, sx422, h9, 10, 0);
    make_field(&f2, b2, 3, 64, sx422, h7, 10, 0);
    xsf_error err = {0};
    CHECK(imgio_weave(&f1, &f2, out, 40000, &fr, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "component 1") && strstr(err.msg, "32x7"),
          "second field two lines short: '%s'", err.msg);
    make_field(&f2, b2, 3, 64, sx422, h10, 10, 0);
    err = (xsf_error){0};
    CHECK(imgio_weave(&f1, &f2, out, 40000, &fr, &err) == XSF_ERR_INVALID,
          "second field taller than the first accepted");
    make_field(&f2, b2, 3, 64, sx422, h9, 12, 0);
    err = (xsf_error){0};
    CHECK(imgio_weave(&f1, &f2, out, 40000, &fr, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "12 bits"),
          "depths differ: '%s'", err.msg);
    make_field(&f2, b2, 1, 64, sx422, h9, 10, 0);
    err = (xsf_error){0};
    CHECK(imgio_weave(&f1, &f2, out, 40000, &fr, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "3 and 1 components"),
          "component counts differ: '%s'", err.msg);
    make_field(&f2, b2, 3, 62, sx422, h9, 10, 0);
    err = (xsf_error){0};
    CHECK(imgio_weave(&f1, &f2, out, 40000, &fr, &err) == XSF_ERR_INVALID,
          "widths differ accepted");
}

/* ---- 3. end to end ---- */

#define FIELDS 10 /* five frames */
#define PT 112

typedef struct e2e {
    jxs_file dec;
    xs_decoder *ref;
    const uint8_t *cs[FIELDS];
    size_t cs_len[FIELDS];
    int frames_seen, mismatches, decode_errors;
    uint8_t f_seen[8];
    int jxs_fields_kept; /* both codestreams equal to what was sent */
} e2e;

/* Decodes one codestream with the reference decoder into `out` (packed). */
static int decode_ref(xs_decoder *dec, const uint8_t *cs, size_t len, xsf_picture *out,
                      uint16_t *buf)
{
    size_t consumed;
    const xsf_picture *img;
    if (xs_decode(dec, cs, len, &consumed, &img) != XSF_OK)
        return -1;
    memset(out, 0, sizeof *out);
    out->fmt.nc = img->fmt.nc;
    size_t off = 0;
    for (int c = 0; c < img->fmt.nc; c++) {
        out->fmt.width[c] = img->fmt.width[c];
        out->fmt.height[c] = img->fmt.height[c];
        out->fmt.depth[c] = img->fmt.depth[c];
        out->stride[c] = ((size_t)img->fmt.width[c]) * sizeof(uint16_t);
        out->data[c] = (uint8_t *)(buf + off);
        for (int y = 0; y < img->fmt.height[c]; y++)
            memcpy(buf + off + (size_t)y * (size_t)img->fmt.width[c], xsf_picture_row16(img, c, y),
                   (size_t)img->fmt.width[c] * 2);
        off += (size_t)img->fmt.width[c] * (size_t)img->fmt.height[c];
    }
    return 0;
}

static void on_e2e(void *ctx, const rtp_field_frame *fr)
{
    e2e *t = ctx;
    if (!fr->interlaced || fr->f_counter >= FIELDS / 2) {
        t->mismatches++;
        return;
    }
    const int k = fr->f_counter;
    t->f_seen[t->frames_seen < 8 ? t->frames_seen : 7] = fr->f_counter;
    t->frames_seen++;
    t->jxs_fields_kept += fr->bytes[0] == t->cs_len[2 * k] &&
                          fr->bytes[1] == t->cs_len[2 * k + 1] &&
                          !memcmp(fr->data[0], t->cs[2 * k], fr->bytes[0]) &&
                          !memcmp(fr->data[1], t->cs[2 * k + 1], fr->bytes[1]);
    xsf_picture woven;
    if (jxs_decode_field_pair(&t->dec, fr->data[0], fr->bytes[0], fr->data[1], fr->bytes[1], &woven,
                              NULL) != XSF_OK) {
        fprintf(stderr, "decode: %s\n", jxs_file_error(&t->dec));
        t->decode_errors++;
        return;
    }
    /* The reference: both fields decoded on their own, woven row by row here. */
    static uint16_t f1buf[1 << 17], f2buf[1 << 17];
    xsf_picture f1, f2;
    if (decode_ref(t->ref, t->cs[2 * k], t->cs_len[2 * k], &f1, f1buf) ||
        decode_ref(t->ref, t->cs[2 * k + 1], t->cs_len[2 * k + 1], &f2, f2buf)) {
        t->decode_errors++;
        return;
    }
    int bad = woven.fmt.nc != f1.fmt.nc;
    for (int c = 0; c < f1.fmt.nc && !bad; c++) {
        bad += woven.fmt.height[c] != 2 * f1.fmt.height[c] || woven.fmt.width[c] != f1.fmt.width[c];
        for (int y = 0; y < woven.fmt.height[c] && !bad; y++) {
            const xsf_picture *src = (y & 1) ? &f2 : &f1;
            bad += memcmp(xsf_picture_row16(&woven, c, y), xsf_picture_row16(src, c, y / 2),
                          (size_t)woven.fmt.width[c] * 2) != 0;
        }
    }
    t->mismatches += bad;
}

static void on_segment(void *ctx, const rtp_frame *f)
{
    rtp_field_pairer_push(ctx, f);
}

/* Sends FIELDS fields (codestream i of the vector file, round robin) in
 * `mode`, dropping the packets of segment `lose_segment` (-1: none; a
 * packet in its middle only, in slice mode, when `middle_only`). */
static void run_e2e(const uint8_t *file, size_t file_len, rtp_jxs_mode mode, int lose_segment,
                    int middle_only, int expect_frames)
{
    e2e t;
    memset(&t, 0, sizeof t);
    size_t off = 0;
    int have = 0;
    const uint8_t *vec[8];
    size_t vec_len[8];
    while (off < file_len && have < 8) {
        const size_t n = tu_codestream_bytes(file + off, file_len - off);
        if (!n)
            break;
        vec[have] = file + off;
        vec_len[have++] = n;
        off += n;
    }
    if (have < 2) {
        CHECK(0, "the vector holds %d codestreams", have);
        return;
    }
    for (int i = 0; i < FIELDS; i++) {
        t.cs[i] = vec[i % have];
        t.cs_len[i] = vec_len[i % have];
    }
    xsf_error err = {0};
    rtp_packetizer_config pc = {.mode = mode,
                                .packet_bytes = 1000,
                                .payload_type = PT,
                                .ssrc = 0x1234,
                                .first_seq = 65500,
                                .boxes = 1};
    rtp_packetizer *pk = NULL;
    tu_list pkts = {0};
    size_t seg_start[FIELDS + 1];
    CHECK(rtp_packetizer_create(&pk, &pc, &err) == XSF_OK, "packetizer: %s", err.msg);
    for (int i = 0; pk && i < FIELDS; i++) {
        seg_start[i] = pkts.n;
        /* Each field its own timestamp, one F counter per frame (RFC 9134 4.2, 4.3). */
        const uint32_t ts = rtp_frame_timestamp(1000, (uint64_t)i, 50, 1);
        CHECK(rtp_packetize(pk, t.cs[i], t.cs_len[i], ts, (unsigned)(i / 2),
                            i % 2 ? RTP_JXS_FIELD_SECOND : RTP_JXS_FIELD_FIRST, tu_collect, &pkts,
                            &err) == XSF_OK,
              "packetize: %s", err.msg);
    }
    seg_start[FIELDS] = pkts.n;
    rtp_packetizer_destroy(pk);

    CHECK(jxs_file_init(&t.dec, NULL, 0, JXS_ENGINE_CPU) == XSF_OK, "decoder");
    CHECK(xs_decoder_create(&t.ref, NULL) == XSF_OK, "reference decoder");
    rtp_field_pairer_config fc = {.on_frame = on_e2e, .ctx = &t};
    rtp_field_pairer *pairer = NULL;
    CHECK(rtp_field_pairer_create(&pairer, &fc, &err) == XSF_OK, "pairer: %s", err.msg);
    rtp_depacketizer_config dc = {.payload_type = PT,
                                  .reorder_packets = 64,
                                  .validate = 1,
                                  .on_frame = on_segment,
                                  .ctx = pairer};
    rtp_depacketizer *dep = NULL;
    CHECK(rtp_depacketizer_create(&dep, &dc, &err) == XSF_OK, "depacketizer: %s", err.msg);
    size_t dropped_packets = 0;
    for (size_t i = 0; dep && pairer && i < pkts.n; i++) {
        if (lose_segment >= 0 && i >= seg_start[lose_segment] && i < seg_start[lose_segment + 1]) {
            const size_t mid = (seg_start[lose_segment] + seg_start[lose_segment + 1]) / 2;
            if (!middle_only || i == mid) {
                dropped_packets++;
                continue;
            }
        }
        rtp_depacketizer_push(dep, pkts.p[i].data, pkts.p[i].len, 1000 * (i + 1));
    }
    if (dep && pairer) {
        rtp_depacketizer_flush(dep);
        rtp_field_pairer_flush(pairer);
        const rtp_field_stats *fs = rtp_field_pairer_stats(pairer);
        const char *m = mode == RTP_JXS_SLICE ? "slice" : "codestream";
        CHECK(
            t.frames_seen == expect_frames && t.mismatches == 0 && t.decode_errors == 0 &&
                t.jxs_fields_kept == expect_frames,
            "%s, segment %d lost: %d frames (expected %d), %d differ from the reference weave, %d "
            "decode errors, %d with both fields' codestreams",
            m, lose_segment, t.frames_seen, expect_frames, t.mismatches, t.decode_errors,
            t.jxs_fields_kept);
        const uint64_t want_dropped = (uint64_t)(FIELDS / 2 - expect_frames);
        CHECK(fs->interlaced == (uint64_t)expect_frames && fs->frames_dropped == want_dropped,
              "%s, segment %d lost: pairer %llu frames, %llu dropped (expected %llu)", m,
              lose_segment, (unsigned long long)fs->interlaced,
              (unsigned long long)fs->frames_dropped, (unsigned long long)want_dropped);
        if (lose_segment >= 0) {
            /* The frame of the lost field is missing, the others are in order. */
            const int lost_frame = lose_segment / 2;
            int order_ok = 1;
            for (int i = 0, f = 0; i < t.frames_seen && i < 8; i++, f++) {
                if (f == lost_frame)
                    f++;
                order_ok &= t.f_seen[i] == f;
            }
            CHECK(order_ok && dropped_packets > 0, "%s: frames out of order after the loss", m);
        }
    }
    rtp_depacketizer_destroy(dep);
    rtp_field_pairer_destroy(pairer);
    jxs_file_free(&t.dec);
    xs_decoder_destroy(t.ref);
    tu_free(&pkts);
}

int main(int argc, char **argv)
{
    test_pairer();
    test_weave();
    if (argc < 2) {
        fprintf(stderr, "usage: test_rtp_fields VECTOR.jxs (several codestreams)\n");
        return 2;
    }
    size_t len = 0;
    uint8_t *file = tu_read_file(argv[1], &len);
    CHECK(file != NULL, "cannot read %s", argv[1]);
    if (file) {
        for (int m = 0; m < 2; m++) {
            const rtp_jxs_mode mode = m ? RTP_JXS_SLICE : RTP_JXS_CODESTREAM;
            run_e2e(file, len, mode, -1, 0, 5);
            run_e2e(file, len, mode, 3, 0, 4); /* frame 1's second field */
            run_e2e(file, len, mode, 4, 0, 4); /* frame 2's first field */
            run_e2e(file, len, mode, 9, 0, 4); /* the last field */
            run_e2e(file, len, mode, 0, 0, 4); /* the very first field */
        }
        /* Slice mode: one packet lost inside a field gives a partial segment. */
        run_e2e(file, len, RTP_JXS_SLICE, 5, 1, 4);
        free(file);
    }
    return xsf_test_finish();
}
