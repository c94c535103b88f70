/* Hostile input to the JPEG XS reader and decoder: every prefix of a few
 * vectors, seeded random bit flips, header fields patched to absurd values,
 * marker segments reordered, duplicated or left out, and several
 * codestreams of different shapes in a row. Each case must end in an error
 * status with a message, or in success where the input is still valid (a
 * harmless flip); never in a crash, a read outside the input or a picture
 * whose planes disagree with its headers. The sanitizer pass of
 * scripts/test.sh runs this program under ASan and UBSan.
 *
 * usage: test_bad_input VECTOR_DIR [FLIPS]   (FLIPS: bit-flip cases, default 3000) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "xs.h"

/* The vectors: small ones, one with many slices, and a few coding tools. */
enum { V_32x16, V_64x8, V_334x78, V_SLICES, V_SIGNS, V_UNIFORM, V_COUNT };
static const char *const vector_names[V_COUNT] = {
    "geom_32x16_444", "geom_64x8_444",    "geom_334x78_420",
    "slice_h16",      "tools_s2_sf1_vp2", "quant_q1_bpp1",
};

typedef struct bytes {
    uint8_t *p;
    size_t n, cap;
} bytes;

static bytes vec[V_COUNT];
static uint64_t vec_hash[V_COUNT]; /* hash of the decoded planes of the pristine vector */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static void append(bytes *b, const uint8_t *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static bytes copy_of(const bytes *src)
{
    bytes b = {0};
    append(&b, src->p, src->n);
    return b;
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static void wr16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void wr32(uint8_t *p, uint32_t v)
{
    wr16(p, v >> 16);
    wr16(p + 2, v & 0xffff);
}

static int load(const char *dir, const char *name, bytes *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        append(b, chunk, got);
    fclose(f);
    return b->n ? 0 : -1;
}

/* The marker segments of the main header, SOC excluded, up to the first SLH. */
typedef struct segment {
    size_t off, len; /* len: marker, length field and body */
    uint16_t marker;
} segment;

static int segments(const bytes *b, segment *seg, int max, size_t *slh)
{
    size_t off = 2;
    int n = 0;
    while (off + 4 <= b->n && n < max) {
        uint16_t m = rd16(b->p + off);
        if (m == XS_MARKER_SLH)
            break;
        seg[n].off = off;
        seg[n].marker = m;
        seg[n].len = 2 + (size_t)rd16(b->p + off + 2);
        off += seg[n].len;
        n++;
    }
    *slh = off;
    return n;
}

static size_t find_segment(const bytes *b, uint16_t marker)
{
    segment seg[32];
    size_t slh;
    int n = segments(b, seg, 32, &slh);
    for (int i = 0; i < n; i++)
        if (seg[i].marker == marker)
            return seg[i].off;
    return 0;
}

/* Sets PIH's Lcod to the codestream's length where it was signalled. */
static void fix_lcod(bytes *b)
{
    size_t pih = find_segment(b, XS_MARKER_PIH);
    if (pih && rd16(b->p + pih + 4) | rd16(b->p + pih + 6))
        wr32(b->p + pih + 4, (uint32_t)b->n);
}

static uint64_t fnv(uint64_t h, uint16_t v)
{
    h ^= v;
    return h * 0x100000001b3ull;
}

/* Reads every sample of a decoded picture (so that ASan sees planes smaller
 * than the headers say) and checks it against the headers. */
static uint64_t check_image(const xsf_picture *img, const xs_header *h, const char *what)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    CHECK(img->fmt.nc == h->nc, "%s: %d planes for Nc=%u", what, img->fmt.nc, h->nc);
    for (int c = 0; c < img->fmt.nc && c < XS_MAX_COMPONENTS; c++) {
        CHECK(img->fmt.width[c] == h->wf / h->sx[c] && img->fmt.height[c] == h->hf / h->sy[c],
              "%s: plane %d is %dx%d for %ux%u with sampling %ux%u", what, c, img->fmt.width[c],
              img->fmt.height[c], h->wf, h->hf, h->sx[c], h->sy[c]);
        CHECK(img->data[c] && (img->stride[c] / 2) >= (size_t)img->fmt.width[c], "%s: plane %d",
              what, c);
        if (!img->data[c])
            continue;
        const unsigned maxv = (1u << img->fmt.depth[c]) - 1;
        unsigned bad = 0;
        for (int y = 0; y < img->fmt.height[c]; y++)
            for (int x = 0; x < img->fmt.width[c]; x++) {
                uint16_t v = xsf_picture_row16(img, c, y)[(size_t)x];
                bad += v > maxv;
                hash = fnv(hash, v);
            }
        CHECK(!bad, "%s: plane %d has %u samples above %u", what, c, bad, maxv);
    }
    return hash;
}

typedef enum expect { MUST_FAIL, MAY_FAIL, MUST_DECODE } expect;

/* Decodes every codestream of buf[0..n) with `dec`, and runs the header
 * reader and the layout scan on it as well. Returns the number of frames
 * decoded before the first error; *hash gets the hash of the last one. */
static int decode_all(xs_decoder *dec, const uint8_t *buf, size_t n, expect e, const char *what,
                      uint64_t *hash)
{
    /* The lighter readers first: they see the same bytes. */
    xs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    xsf_status st = xs_parse_header(buf, n, &h, &err);
    CHECK(st == XSF_OK || err.msg[0], "%s: xs_parse_header status %d without a message", what, st);
    xs_layout layout;
    memset(&layout, 0, sizeof layout);
    xsf_error_clear(&err);
    st = xs_scan_layout(buf, n, &layout, &err);
    CHECK(st == XSF_OK || err.msg[0], "%s: xs_scan_layout status %d without a message", what, st);
    if (st == XSF_OK) {
        CHECK(layout.codestream_bytes <= n && layout.header_bytes < layout.codestream_bytes,
              "%s: layout of %zu bytes in %zu", what, layout.codestream_bytes, n);
        for (size_t s = 0; s < layout.nslices; s++)
            CHECK(layout.slice_offset[s] + 6 <= layout.codestream_bytes, "%s: slice %zu at %zu",
                  what, s, layout.slice_offset[s]);
    }
    xs_layout_free(&layout);

    size_t off = 0;
    int frames = 0;
    st = XSF_OK;
    while (off < n || frames == 0) {
        size_t consumed = 12345;
        const xsf_picture *img = NULL;
        st = xs_decode(dec, buf + off, n - off, &consumed, &img);
        if (st != XSF_OK) {
            const char *msg = xs_decoder_error(dec);
            CHECK(msg && msg[0], "%s: frame %d: status %d (%s) without a message", what, frames, st,
                  xsf_status_name(st));
            CHECK(!img, "%s: frame %d: an image with an error", what, frames);
            break;
        }
        CHECK(consumed > 0 && consumed <= n - off, "%s: frame %d consumed %zu of %zu", what, frames,
              consumed, n - off);
        CHECK(img != NULL, "%s: frame %d: success without an image", what, frames);
        if (!img || consumed == 0 || consumed > n - off)
            break;
        uint64_t hh = check_image(img, xs_decoder_header(dec), what);
        if (hash)
            *hash = hh;
        off += consumed;
        frames++;
    }
    if (e == MUST_FAIL)
        CHECK(st != XSF_OK, "%s: decoded, expected an error", what);
    if (e == MUST_DECODE)
        CHECK(st == XSF_OK, "%s: error %s: %s", what, xsf_status_name(st), xs_decoder_error(dec));
    return frames;
}

/* Error messages that do not say at which byte: reported, not failed (the
 * header's contract asks for the offset, but a limit of the decoder may
 * have no single byte to blame). */
static int unplaced_messages;

/* A case that must fail, with a message. */
static void must_fail(xs_decoder *dec, const bytes *b, const char *what)
{
    decode_all(dec, b->p, b->n, MUST_FAIL, what, NULL);
    const char *msg = xs_decoder_error(dec);
    if (msg && msg[0] && !strstr(msg, "byte")) {
        unplaced_messages++;
        printf("note: %s: the message names no byte offset: %s\n", what, msg);
    }
}

/* The decoder still decodes the pristine vector as before: failures leave
 * no state behind. */
static void still_decodes(xs_decoder *dec, int v, const char *after)
{
    uint64_t h = 0;
    decode_all(dec, vec[v].p, vec[v].n, MUST_DECODE, vector_names[v], &h);
    CHECK(h == vec_hash[v], "%s after %s: output differs from the first decode", vector_names[v],
          after);
}

static void test_api_misuse(xs_decoder *dec)
{
    size_t consumed;
    const xsf_picture *img;
    const uint8_t one = 0xff;
    CHECK(xs_decode(NULL, &one, 1, &consumed, &img) != XSF_OK, "NULL decoder accepted");
    CHECK(xs_decode(dec, NULL, 1, &consumed, &img) != XSF_OK, "NULL buffer accepted");
    CHECK(xs_decode(dec, &one, 0, &consumed, &img) != XSF_OK, "empty buffer accepted");
    CHECK(xs_decode(dec, &one, 1, &consumed, &img) != XSF_OK, "one byte accepted");
    xs_decoder_destroy(NULL);
}

static void test_prefixes(xs_decoder *dec)
{
    const int which[] = {V_32x16, V_64x8, V_334x78, V_SLICES};
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        const bytes *b = &vec[which[i]];
        const int before = xsf_test_failed;
        for (size_t len = 0; len < b->n && xsf_test_failed - before < 5; len++) {
            char what[96];
            snprintf(what, sizeof what, "%s cut at %zu bytes", vector_names[which[i]], len);
            /* A copy of exactly len bytes, so that ASan sees any read past it. */
            uint8_t *cut = malloc(len ? len : 1);
            memcpy(cut, b->p, len);
            decode_all(dec, cut, len, MUST_FAIL, what, NULL);
            free(cut);
        }
        still_decodes(dec, which[i], "its prefixes");
    }
}

static void test_bit_flips(xs_decoder *dec, int cases)
{
    int decoded = 0;
    for (int k = 0; k < cases; k++) {
        const int v = (int)(rnd() % V_COUNT);
        bytes b = copy_of(&vec[v]);
        size_t slh;
        segment seg[32];
        segments(&b, seg, 32, &slh);
        /* Half of the flips land in the headers or the first precincts,
         * where a flip changes the most. */
        const size_t span = (k & 1) ? (slh + 64 < b.n ? slh + 64 : b.n) : b.n;
        const int flips = 1 + (int)(rnd() % 4);
        for (int f = 0; f < flips; f++) {
            const size_t at = rnd() % span;
            b.p[at] ^= (uint8_t)(1u << (rnd() % 8));
        }
        char what[96];
        snprintf(what, sizeof what, "%s with %d flipped bits (case %d)", vector_names[v], flips, k);
        decoded += decode_all(dec, b.p, b.n, MAY_FAIL, what, NULL) > 0;
        free(b.p);
        if (k % 250 == 249)
            still_decodes(dec, v, "bit flips");
    }
    printf("bit flips: %d cases, %d still decoded\n", cases, decoded);
}

/* PIH fields, as offsets from the PIH marker (21122-1 A.4.4). */
enum {
    PIH_LCOD = 4,
    PIH_WF = 12,
    PIH_HF = 14,
    PIH_CW = 16,
    PIH_HSL = 18,
    PIH_NC = 20,
    PIH_NG = 21,
    PIH_SS = 22,
    PIH_BW = 23,
    PIH_FQBR = 24,
    PIH_CPIH = 25,
    PIH_NL = 26,
    PIH_TOOLS = 27
};

typedef struct patch {
    const char *what;
    int field; /* offset from the PIH marker */
    int width; /* 1, 2 or 4 bytes */
    uint32_t value;
    uint32_t mask; /* bits replaced in a 1-byte field (0: all) */
    expect e;
} patch;

static void test_header_fields(xs_decoder *dec)
{
    static const patch patches[] = {
        {"Wf 0", PIH_WF, 2, 0, 0, MUST_FAIL},
        {"Hf 0", PIH_HF, 2, 0, 0, MUST_FAIL},
        {"Wf 65535", PIH_WF, 2, 65535, 0, MUST_FAIL},
        {"Hf 65535", PIH_HF, 2, 65535, 0, MUST_FAIL},
        {"Wf 65534", PIH_WF, 2, 65534, 0, MAY_FAIL},
        {"Hf 1", PIH_HF, 2, 1, 0, MAY_FAIL},
        {"Wf 1", PIH_WF, 2, 1, 0, MAY_FAIL},
        {"Cw 1", PIH_CW, 2, 1, 0, MAY_FAIL},
        {"Cw 65535", PIH_CW, 2, 65535, 0, MAY_FAIL},
        {"Hsl 0", PIH_HSL, 2, 0, 0, MUST_FAIL},
        {"Hsl 65535", PIH_HSL, 2, 65535, 0, MAY_FAIL},
        {"Nc 0", PIH_NC, 1, 0, 0, MUST_FAIL},
        {"Nc 255", PIH_NC, 1, 255, 0, MUST_FAIL},
        {"Nc 9", PIH_NC, 1, 9, 0, MUST_FAIL},
        {"Nc 4", PIH_NC, 1, 4, 0, MUST_FAIL},
        {"Nc 1", PIH_NC, 1, 1, 0, MUST_FAIL},
        {"Ng 0", PIH_NG, 1, 0, 0, MUST_FAIL},
        {"Ss 255", PIH_SS, 1, 255, 0, MUST_FAIL},
        {"Bw 0", PIH_BW, 1, 0, 0, MUST_FAIL},
        {"Bw 255", PIH_BW, 1, 255, 0, MUST_FAIL},
        {"Fq 15", PIH_FQBR, 1, 0xf0, 0xf0, MUST_FAIL},
        {"Br 0", PIH_FQBR, 1, 0x00, 0x0f, MUST_FAIL},
        {"Br 15", PIH_FQBR, 1, 0x0f, 0x0f, MUST_FAIL},
        {"Fslc 1", PIH_CPIH, 1, 0x80, 0x80, MUST_FAIL},
        {"Ppoc 7", PIH_CPIH, 1, 0x70, 0x70, MUST_FAIL},
        {"Cpih 3", PIH_CPIH, 1, 0x03, 0x0f, MUST_FAIL},
        {"Cpih 15", PIH_CPIH, 1, 0x0f, 0x0f, MUST_FAIL},
        {"NLx 15", PIH_NL, 1, 0xf0, 0xf0, MUST_FAIL},
        {"NLx 0", PIH_NL, 1, 0x00, 0xf0, MUST_FAIL},
        {"NLy 15", PIH_NL, 1, 0x0f, 0x0f, MUST_FAIL},
        {"NLx 1 NLy 2", PIH_NL, 1, 0x12, 0xff, MUST_FAIL},
        {"NLx 3 NLy 3", PIH_NL, 1, 0x33, 0xff, MUST_FAIL},
        {"Qpih 3", PIH_TOOLS, 1, 0x30, 0x30, MUST_FAIL},
        {"Fs 3", PIH_TOOLS, 1, 0x0c, 0x0c, MUST_FAIL},
        {"Rm 3", PIH_TOOLS, 1, 0x03, 0x03, MUST_FAIL},
        {"Lcod 1", PIH_LCOD, 4, 1, 0, MUST_FAIL},
        {"Lcod 0xffffffff", PIH_LCOD, 4, 0xffffffffu, 0, MUST_FAIL},
        {"Lcod 0", PIH_LCOD, 4, 0, 0, MUST_DECODE}, /* not signalled: valid */
    };
    const int which[] = {V_32x16, V_SLICES, V_334x78};
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        const int v = which[i];
        const size_t pih = find_segment(&vec[v], XS_MARKER_PIH);
        CHECK(pih != 0, "%s: no PIH", vector_names[v]);
        if (!pih)
            continue;
        for (size_t k = 0; k < sizeof patches / sizeof patches[0]; k++) {
            const patch *p = &patches[k];
            bytes b = copy_of(&vec[v]);
            uint8_t *f = b.p + pih + p->field;
            uint32_t old = p->width == 1   ? f[0]
                           : p->width == 2 ? rd16(f)
                                           : (uint32_t)rd16(f) << 16 | rd16(f + 2);
            if (p->width == 1)
                f[0] = (uint8_t)(p->mask ? (f[0] & ~p->mask) | (p->value & p->mask) : p->value);
            else if (p->width == 2)
                wr16(f, p->value);
            else
                wr32(f, p->value);
            char what[96];
            snprintf(what, sizeof what, "%s with %s", vector_names[v], p->what);
            const int unchanged = p->width == 1 ? f[0] == old : p->width == 2 ? rd16(f) == old : 0;
            if (unchanged) {
                free(b.p); /* the vector already has this value */
                continue;
            }
            if (p->e == MUST_FAIL)
                must_fail(dec, &b, what);
            else
                decode_all(dec, b.p, b.n, p->e, what, NULL);
            free(b.p);
        }
        still_decodes(dec, v, "patched headers");
    }
}

/* Marker segment lengths and contents that cannot be right. */
static void test_segment_lengths(xs_decoder *dec)
{
    const int v = V_SLICES;
    segment seg[32];
    size_t slh;
    const int n = segments(&vec[v], seg, 32, &slh);
    for (int i = 0; i < n; i++) {
        const unsigned len = (unsigned)seg[i].len - 2;
        const unsigned bad[] = {0, 1, len - 1, len + 1, 0xffff};
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            if (seg[i].marker == XS_MARKER_COM)
                continue;
            bytes b = copy_of(&vec[v]);
            wr16(b.p + seg[i].off + 2, bad[k]);
            char what[96];
            snprintf(what, sizeof what, "%s: marker %04x length %u (was %u)", vector_names[v],
                     seg[i].marker, bad[k], len);
            must_fail(dec, &b, what);
            free(b.p);
        }
    }
    /* CDT: depth 0, 17, 255 and sampling 0 and 3 in the first component. */
    const size_t cdt = find_segment(&vec[v], XS_MARKER_CDT);
    const uint8_t depth_bad[] = {0, 17, 255}, sampling_bad[] = {0x01, 0x10, 0x31, 0x13, 0xff};
    for (size_t k = 0; k < sizeof depth_bad + sizeof sampling_bad; k++) {
        bytes b = copy_of(&vec[v]);
        char what[96];
        if (k < sizeof depth_bad) {
            b.p[cdt + 4] = depth_bad[k];
            snprintf(what, sizeof what, "CDT depth %u", depth_bad[k]);
        } else {
            b.p[cdt + 5] = sampling_bad[k - sizeof depth_bad];
            snprintf(what, sizeof what, "CDT sampling 0x%02x", sampling_bad[k - sizeof depth_bad]);
        }
        must_fail(dec, &b, what);
        free(b.p);
    }
    /* The first slice header: length and index; the last precinct's length; EOC. */
    const size_t slice_bad[][2] = {{2, 0}, {2, 5}, {4, 1}, {4, 0xffff}};
    for (size_t k = 0; k < sizeof slice_bad / sizeof slice_bad[0]; k++) {
        bytes b = copy_of(&vec[v]);
        wr16(b.p + slh + slice_bad[k][0], (unsigned)slice_bad[k][1]);
        char what[96];
        snprintf(what, sizeof what, "SLH field %zu = %zu", slice_bad[k][0], slice_bad[k][1]);
        must_fail(dec, &b, what);
        free(b.p);
    }
    {
        bytes b = copy_of(&vec[v]);
        b.p[slh + 6] = b.p[slh + 7] = b.p[slh + 8] = 0xff; /* Lprc of the first precinct */
        must_fail(dec, &b, "first precinct Lprc 0xffffff");
        free(b.p);
        b = copy_of(&vec[v]);
        b.p[b.n - 1] = 0x12; /* EOC -> ff12 */
        must_fail(dec, &b, "EOC replaced by ff12");
        free(b.p);
    }
    still_decodes(dec, v, "bad segment lengths");
}

/* Rebuilds a codestream: SOC, the header segments in `order` (indices into
 * seg, -1 ends), then everything from the first SLH on. */
static bytes rebuild(const bytes *src, const segment *seg, const int *order, int slices)
{
    bytes b = {0};
    append(&b, src->p, 2);
    for (int i = 0; order[i] >= 0; i++)
        append(&b, src->p + seg[order[i]].off, seg[order[i]].len);
    if (slices) {
        segment all[32];
        size_t slh;
        segments(src, all, 32, &slh);
        append(&b, src->p + slh, src->n - slh);
    }
    return b;
}

static void test_marker_order(xs_decoder *dec)
{
    const int v = V_SLICES;
    segment seg[32];
    size_t slh;
    const int n = segments(&vec[v], seg, 32, &slh);
    int cap = -1, pih = -1, cdt = -1, wgt = -1;
    for (int i = 0; i < n; i++) {
        if (seg[i].marker == XS_MARKER_CAP)
            cap = i;
        if (seg[i].marker == XS_MARKER_PIH)
            pih = i;
        if (seg[i].marker == XS_MARKER_CDT)
            cdt = i;
        if (seg[i].marker == XS_MARKER_WGT)
            wgt = i;
    }
    CHECK(cap >= 0 && pih >= 0 && cdt >= 0 && wgt >= 0, "%s: CAP %d PIH %d CDT %d WGT %d",
          vector_names[v], cap, pih, cdt, wgt);
    if (cap < 0 || pih < 0 || cdt < 0 || wgt < 0)
        return;
    const struct {
        const char *what;
        int order[8];
        int slices;
    } cases[] = {
        {"PIH before CAP", {pih, cap, cdt, wgt, -1}, 1},
        {"CDT before PIH", {cap, cdt, pih, wgt, -1}, 1},
        {"no CAP", {pih, cdt, wgt, -1}, 1},
        {"no PIH", {cap, cdt, wgt, -1}, 1},
        {"no CDT", {cap, pih, wgt, -1}, 1},
        {"no WGT", {cap, pih, cdt, -1}, 1},
        {"two CAP", {cap, cap, pih, cdt, wgt, -1}, 1},
        {"two PIH", {cap, pih, pih, cdt, wgt, -1}, 1},
        {"two CDT", {cap, pih, cdt, cdt, wgt, -1}, 1},
        {"two WGT", {cap, pih, cdt, wgt, wgt, -1}, 1},
        {"SLH right after SOC", {-1}, 1},
        {"headers only, no slice", {cap, pih, cdt, wgt, -1}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bytes b = rebuild(&vec[v], seg, cases[k].order, cases[k].slices);
        fix_lcod(&b);
        must_fail(dec, &b, cases[k].what);
        free(b.p);
    }
    /* Headers, then EOC. */
    {
        const int order[] = {cap, pih, cdt, wgt, -1};
        bytes b = rebuild(&vec[v], seg, order, 0);
        const uint8_t eoc[] = {0xff, 0x11};
        append(&b, eoc, 2);
        fix_lcod(&b);
        must_fail(dec, &b, "EOC right after the headers");
        free(b.p);
    }
    /* No SOC. */
    {
        bytes b = {0};
        append(&b, vec[v].p + 2, vec[v].n - 2);
        must_fail(dec, &b, "no SOC");
        free(b.p);
    }
    /* Marker segments the header may not hold, or may not hold like this. */
    const uint8_t extra[][16] = {
        {0xff, 0x99, 0x00, 0x02},             /* unknown marker */
        {0xff, 0x16, 0x00, 0x03, 0x07},       /* NLT of type 7 */
        {0xff, 0x16, 0x00, 0x04, 0x01, 0x00}, /* quadratic NLT, wrong length */
        {0xff, 0x17, 0x00, 0x03, 0x03},       /* CWD: Sd 3 of 3 components */
        {0xff, 0x19, 0x00, 0x06, 0, 0, 0, 0}, /* CRG too short for 3 components */
        {0xff, 0x15, 0x00, 0x02},             /* COM without Tcom */
        {0xff, 0x12, 0x00, 0x02},             /* a second, empty PIH */
    };
    const size_t extra_len[] = {4, 5, 6, 5, 8, 4, 4};
    for (size_t k = 0; k < sizeof extra_len / sizeof extra_len[0]; k++) {
        const int order[] = {cap, pih, cdt, wgt, -1};
        bytes b = rebuild(&vec[v], seg, order, 0);
        append(&b, extra[k], extra_len[k]);
        append(&b, vec[v].p + slh, vec[v].n - slh);
        fix_lcod(&b);
        char what[64];
        snprintf(what, sizeof what, "extra segment %02x%02x of %zu bytes", extra[k][0], extra[k][1],
                 extra_len[k]);
        must_fail(dec, &b, what);
        free(b.p);
    }
    /* A comment segment is allowed anywhere after PIH, and twice: same picture. */
    {
        const int order[] = {cap, pih, cdt, wgt, -1};
        bytes b = rebuild(&vec[v], seg, order, 0);
        const uint8_t com[] = {0xff, 0x15, 0x00, 0x08, 0x00, 0x01, 'x', 's', 'f', '!'};
        append(&b, com, sizeof com);
        append(&b, com, sizeof com);
        append(&b, vec[v].p + slh, vec[v].n - slh);
        fix_lcod(&b);
        uint64_t h = 0;
        decode_all(dec, b.p, b.n, MUST_DECODE, "two COM segments", &h);
        CHECK(h == vec_hash[v], "two COM segments change the picture");
        free(b.p);
    }
    still_decodes(dec, v, "reordered markers");
}

/* Codestreams of different shapes one after the other: the decoder
 * reconfigures for each, and garbage after the last is an error. */
static void test_sequences(xs_decoder *dec)
{
    const int order[] = {V_64x8, V_32x16, V_334x78, V_32x16, V_SLICES, V_64x8};
    bytes b = {0};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        append(&b, vec[order[i]].p, vec[order[i]].n);
    int frames = decode_all(dec, b.p, b.n, MUST_DECODE, "six codestreams of four shapes", NULL);
    CHECK(frames == 6, "six codestreams: %d decoded", frames);
    /* Frame by frame, each against its own first decode. */
    size_t off = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        size_t consumed = 0;
        const xsf_picture *img = NULL;
        xsf_status st = xs_decode(dec, b.p + off, b.n - off, &consumed, &img);
        CHECK(st == XSF_OK && consumed == vec[order[i]].n, "frame %zu: status %d, %zu bytes", i, st,
              consumed);
        if (st != XSF_OK)
            break;
        CHECK(check_image(img, xs_decoder_header(dec), "sequence") == vec_hash[order[i]],
              "frame %zu (%s) differs from its decode alone", i, vector_names[order[i]]);
        off += consumed;
    }
    const uint8_t junk[] = {0x00, 0x00, 0xff, 0x10, 0x12};
    append(&b, junk, sizeof junk);
    frames = decode_all(dec, b.p, b.n, MUST_FAIL, "six codestreams and junk", NULL);
    CHECK(frames == 6, "six codestreams and junk: %d decoded before the error", frames);
    free(b.p);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_bad_input VECTOR_DIR [FLIPS]\n");
        return 2;
    }
    const int flips = argc > 2 ? atoi(argv[2]) : 3000;
    for (int v = 0; v < V_COUNT; v++) {
        if (load(argv[1], vector_names[v], &vec[v])) {
            fprintf(stderr, "cannot read %s/%s.jxs\n", argv[1], vector_names[v]);
            return 1;
        }
    }
    xs_decoder *dec = NULL;
    if (xs_decoder_create(&dec, NULL) != XSF_OK) {
        fprintf(stderr, "xs_decoder_create failed\n");
        return 1;
    }
    for (int v = 0; v < V_COUNT; v++)
        decode_all(dec, vec[v].p, vec[v].n, MUST_DECODE, vector_names[v], &vec_hash[v]);
    if (xsf_test_failed) {
        fprintf(stderr, "the pristine vectors do not decode: nothing else is tested\n");
        return xsf_test_finish();
    }
    test_api_misuse(dec);
    test_prefixes(dec);
    test_header_fields(dec);
    test_segment_lengths(dec);
    test_marker_order(dec);
    test_sequences(dec);
    test_bit_flips(dec, flips);
    xs_decoder_destroy(dec);
    for (int v = 0; v < V_COUNT; v++)
        free(vec[v].p);
    if (unplaced_messages)
        printf("%d error messages name no byte offset (see the notes above)\n", unplaced_messages);
    return xsf_test_finish();
}
