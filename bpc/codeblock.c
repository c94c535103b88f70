/* The BPC-PaCo code-block coder, C reference (thesis 3.2, Algorithms 2-5 and
 * 8; Bruns Algorithm 8-3 for one pass). It simulates the 32 lockstep coders
 * of the CUDA kernel step by step, so that both give the same codewords in
 * the same places:
 *
 *   for each coding pass, row y (top to bottom), column c (left, then right
 *   of every stripe):
 *     step A: every stripe t, in order, codes its first symbol for the
 *             coefficient (y, 2t + c) (significance or refinement);
 *     step B: every stripe that found a newly significant coefficient codes
 *             its sign.
 *
 * Within a step the stripes' coefficients are two columns apart, never
 * neighbours, so visiting them in order is the same as visiting them at
 * once; a stripe that starts a codeword within a step takes the next free
 * codeword slot, stripes on the left first (the thesis' priority, the
 * kernel's ballot and population count). */
#include <string.h>

#include "bpc_internal.h"
#include "coder_rules.h"

_Static_assert(BPC_F == BPC_DIST_FRAC, "one distortion scale");
_Static_assert(BPC_NCTX_MAX <= 32, "one context per lane");

enum { MODE_ENCODE, MODE_DECODE, MODE_COUNT };
enum { ST_SIG = 1, ST_NEW = 2, ST_CP = 4, ST_VIS = 8 };

typedef struct coder {
    int mode, variant, w, h, planes, plane, table_plane;
    const bpc_band_probs *probs;
    const uint16_t *row; /* probabilities of the current plane */
    uint32_t mag[BPC_CODEBLOCK][BPC_CODEBLOCK];
    /* padded by one on every side, so that neighbours outside read 0 */
    uint8_t st[BPC_CODEBLOCK + 2][BPC_CODEBLOCK + 2];
    uint8_t neg[BPC_CODEBLOCK + 2][BPC_CODEBLOCK + 2];
    uint32_t L[BPC_CODERS], S[BPC_CODERS], pos[BPC_CODERS], I[BPC_CODERS];
    uint32_t ncw;    /* codewords reserved (encoder) or read (decoder) */
    uint32_t cap_cw; /* encoder: room; decoder: codewords present */
    uint8_t *out;
    const uint8_t *in;
    uint64_t *counts; /* MODE_COUNT: [table plane][context][bit] */
    int nctx;
    int failed;
    int64_t dist;
} coder;

/* One symbol of stripe t with context ctx: coded (bit given), decoded
 * (returned) or counted. */
static int code_symbol(coder *c, int t, int ctx, int bit)
{
    if (c->mode == MODE_COUNT) {
        c->counts[((size_t)c->table_plane * BPC_NCTX_MAX + ctx) * 2 + (bit & 1)]++;
        return bit;
    }
    if (c->S[t] == 0) { /* a new codeword: the next slot */
        if (c->ncw >= c->cap_cw) {
            c->failed = 1;
            return 0;
        }
        c->pos[t] = c->ncw++;
        c->L[t] = 0;
        c->S[t] = BPC_CODEWORD_FULL;
        if (c->mode == MODE_DECODE)
            c->I[t] =
                (uint32_t)c->in[2 * (size_t)c->pos[t]] << 8 | c->in[2 * (size_t)c->pos[t] + 1];
    }
    const uint32_t p = c->row[ctx];
    if (c->mode == MODE_DECODE)
        return bpc_ac_decode(&c->L[t], &c->S[t], p, c->I[t]);
    bpc_ac_encode(&c->L[t], &c->S[t], p, bit);
    if (c->S[t] == 0) { /* exhausted: its value goes to its slot */
        c->out[2 * (size_t)c->pos[t]] = (uint8_t)(c->L[t] >> 8);
        c->out[2 * (size_t)c->pos[t] + 1] = (uint8_t)c->L[t];
    }
    return bit;
}

/* Significant neighbours of the coefficient at padded (py, px). */
static int sig_context(const coder *c, int py, int px)
{
    const uint8_t(*s)[BPC_CODEBLOCK + 2] = c->st;
    return (s[py - 1][px - 1] & 1) + (s[py - 1][px] & 1) + (s[py - 1][px + 1] & 1) +
           (s[py][px - 1] & 1) + (s[py][px + 1] & 1) + (s[py + 1][px - 1] & 1) +
           (s[py + 1][px] & 1) + (s[py + 1][px + 1] & 1);
}

static int chi(const coder *c, int py, int px)
{
    return (c->st[py][px] & ST_SIG) ? (c->neg[py][px] ? -1 : 1) : 0;
}

static int bit_at(const coder *c, int y, int x)
{
    return (int)(c->mag[y][x] >> c->plane) & 1;
}

/* Step A for one coefficient; returns 1 (SPP/SIG/ONE sign table) or 2 (CP
 * sign table) when its sign is to be coded in step B. */
static int first_symbol(coder *c, int type, int t, int y, int x)
{
    const int py = y + 1, px = x + 1, j = c->plane;
    uint8_t *st = &c->st[py][px];
    int refine = 0, sig_base = BPC_CTX_SIG, ctx;
    switch (type) {
    case BPC_PASS_SIG:
        if (*st & ST_SIG)
            return 0;
        break;
    case BPC_PASS_SPP:
        if (*st & ST_SIG)
            return 0;
        if (!sig_context(c, py, px)) {
            *st |= ST_CP;
            return 0;
        }
        break;
    case BPC_PASS_CP:
        if (!(*st & ST_CP))
            return 0;
        *st &= (uint8_t)~ST_CP;
        sig_base = BPC_CTX_CP_SIG;
        break;
    case BPC_PASS_MRP:
        if (!(*st & ST_SIG) || (*st & ST_NEW))
            return 0;
        refine = 1;
        break;
    default: /* BPC_PASS_ONE */ refine = (*st & ST_SIG) != 0; break;
    }
    if (refine) {
        const int bit =
            code_symbol(c, t, BPC_CTX_REF, c->mode == MODE_DECODE ? 0 : bit_at(c, y, x));
        *st |= ST_VIS;
        if (c->mode == MODE_DECODE)
            c->mag[y][x] |= (uint32_t)bit << j;
        else if (c->mode == MODE_ENCODE)
            c->dist += bpc_dist_refine(c->mag[y][x], j);
        return 0;
    }
    ctx = sig_context(c, py, px);
    const int bit = code_symbol(c, t, sig_base + ctx, c->mode == MODE_DECODE ? 0 : bit_at(c, y, x));
    if (!bit)
        return 0;
    *st |= ST_SIG | ST_NEW | ST_VIS;
    if (c->mode == MODE_DECODE)
        c->mag[y][x] |= (uint32_t)1 << j;
    else if (c->mode == MODE_ENCODE)
        c->dist += bpc_dist_significant(c->mag[y][x], j);
    return type == BPC_PASS_CP ? 2 : 1;
}

static void sign_symbol(coder *c, int table, int t, int y, int x)
{
    const int py = y + 1, px = x + 1;
    int predict;
    const int cv = chi(c, py - 1, px) + chi(c, py + 1, px);
    const int chh = chi(c, py, px - 1) + chi(c, py, px + 1);
    const int ctx = bpc_sign_context(cv, chh, &predict);
    const int base = table == 2 ? BPC_CTX_CP_SIGN : BPC_CTX_SIGN;
    const int sym = code_symbol(c, t, base + ctx, c->neg[py][px] ^ predict);
    if (c->mode == MODE_DECODE)
        c->neg[py][px] = (uint8_t)(sym ^ predict);
}

static void run_pass(coder *c, int type)
{
    for (int y = 0; y < c->h; y++)
        for (int col = 0; col < 2; col++) {
            uint8_t sign_table[BPC_CODERS];
            for (int t = 0; t < BPC_CODERS; t++) { /* step A */
                const int x = 2 * t + col;
                sign_table[t] = x < c->w ? (uint8_t)first_symbol(c, type, t, y, x) : 0;
            }
            for (int t = 0; t < BPC_CODERS; t++) /* step B */
                if (sign_table[t])
                    sign_symbol(c, sign_table[t], t, y, 2 * t + col);
            if (c->failed)
                return;
        }
}

static void start_plane(coder *c, int j)
{
    c->plane = j;
    c->table_plane = bpc_table_plane(j, c->probs ? c->probs->plane_offset : 0, BPC_TABLE_PLANES);
    if (c->probs && c->probs->p)
        c->row = c->probs->p + (size_t)c->table_plane * BPC_NCTX_MAX;
    for (int y = 1; y <= c->h; y++)
        for (int x = 1; x <= c->w; x++)
            c->st[y][x] &= (uint8_t) ~(ST_NEW | ST_VIS);
}

/* Runs `passes` passes; records truncation points when res is given. */
static void run(coder *c, int passes, bpc_codeblock_result *res)
{
    if (c->variant == 3) /* the top plane is all cleanup (Algorithm 8, line 7) */
        for (int y = 1; y <= c->h; y++)
            for (int x = 1; x <= c->w; x++)
                c->st[y][x] |= ST_CP;
    int plane = -1;
    for (int k = 0; k < passes && !c->failed; k++) {
        int j, type;
        bpc_pass_at(c->variant, c->planes, k, &j, &type);
        if (j != plane)
            start_plane(c, plane = j);
        c->dist = 0;
        run_pass(c, type);
        if (res) {
            res->pass_codewords[k] = c->ncw;
            res->pass_distortion[k] = c->dist;
        }
    }
}

static int load(coder *c, const int32_t *coef, size_t pitch)
{
    uint32_t all = 0;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            const int32_t v = coef[(size_t)y * pitch + x];
            const uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
            c->mag[y][x] = m;
            c->neg[y + 1][x + 1] = v < 0;
            all |= m;
        }
    int planes = 0;
    while (planes < 32 && (all >> planes))
        planes++;
    return planes;
}

static void init(coder *c, int mode, bpc_variant variant, const bpc_band_probs *probs, int w, int h)
{
    memset(c->st, 0, sizeof c->st);
    memset(c->neg, 0, sizeof c->neg);
    memset(c->S, 0, sizeof c->S);
    c->mode = mode;
    c->variant = (int)variant;
    c->nctx = bpc_nctx((int)variant);
    c->probs = probs;
    c->w = w;
    c->h = h;
    c->ncw = 0;
    c->failed = 0;
    c->counts = NULL;
}

static xsf_status check_block(bpc_variant variant, int w, int h, xsf_error *err)
{
    if (variant < BPC_VARIANT_1PASS || variant > BPC_VARIANT_3PASS)
        return xsf_error_set(err, XSF_ERR_ARG, "variant %d: 1, 2 or 3 passes", (int)variant);
    if (w < 1 || w > BPC_CODEBLOCK || h < 1 || h > BPC_CODEBLOCK)
        return xsf_error_set(err, XSF_ERR_ARG, "code block %dx%d: 1..64 each way", w, h);
    return XSF_OK;
}

xsf_status bpc_codeblock_encode(bpc_variant variant, const bpc_band_probs *probs,
                                const int32_t *coef, size_t pitch, int w, int h, uint8_t *out,
                                size_t cap, bpc_codeblock_result *res, xsf_error *err)
{
    xsf_status s = check_block(variant, w, h, err);
    if (s)
        return s;
    static _Thread_local coder c;
    init(&c, MODE_ENCODE, variant, probs, w, h);
    c.planes = load(&c, coef, pitch);
    if (c.planes > BPC_MAX_PLANES)
        return xsf_error_set(err, XSF_ERR_ARG, "code block needs %d bitplanes, at most %d",
                             c.planes, BPC_MAX_PLANES);
    c.out = out;
    c.cap_cw = (uint32_t)((cap / 2) > UINT32_MAX ? UINT32_MAX : cap / 2);
    res->planes = c.planes;
    res->passes = bpc_passes_of((int)variant, c.planes);
    run(&c, res->passes, res);
    if (c.failed)
        return xsf_error_set(err, XSF_ERR_ARG, "code block output exceeds %zu bytes", cap);
    for (int t = 0; t < BPC_CODERS; t++) /* the coders' last codewords */
        if (c.S[t]) {
            out[2 * (size_t)c.pos[t]] = (uint8_t)(c.L[t] >> 8);
            out[2 * (size_t)c.pos[t] + 1] = (uint8_t)c.L[t];
        }
    return XSF_OK;
}

xsf_status bpc_codeblock_decode(bpc_variant variant, const bpc_band_probs *probs,
                                const uint8_t *data, size_t len, int planes, int passes,
                                int32_t *recon2, size_t pitch, int w, int h, xsf_error *err)
{
    xsf_status s = check_block(variant, w, h, err);
    if (s)
        return s;
    if (planes < 0 || planes > BPC_MAX_PLANES || passes < 0 ||
        passes > bpc_passes_of((int)variant, planes))
        return xsf_error_set(err, XSF_ERR_INVALID, "%d passes of %d bitplanes impossible", passes,
                             planes);
    if (len & 1)
        return xsf_error_set(err, XSF_ERR_INVALID, "%zu bytes: codewords are 2 bytes", len);
    static _Thread_local coder c;
    init(&c, MODE_DECODE, variant, probs, w, h);
    memset(c.mag, 0, sizeof c.mag);
    c.planes = planes;
    c.in = data;
    c.cap_cw = (uint32_t)(len / 2 > UINT32_MAX ? UINT32_MAX : len / 2);
    run(&c, passes, NULL);
    if (c.failed)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "code block needs more than its %zu bytes of codewords", len);
    if ((size_t)c.ncw * 2 != len)
        return xsf_error_set(err, XSF_ERR_INVALID, "code block uses %zu of its %zu bytes",
                             (size_t)c.ncw * 2, len);
    int last = 0, type;
    if (passes > 0)
        bpc_pass_at((int)variant, planes, passes - 1, &last, &type);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t st = c.st[y + 1][x + 1];
            int32_t r = 0;
            if (st & ST_SIG) {
                const int p = (st & ST_VIS) ? last : last + 1;
                r = (int32_t)(2 * c.mag[y][x] + ((uint32_t)1 << p));
                if (c.neg[y + 1][x + 1])
                    r = -r;
            }
            recon2[(size_t)y * pitch + x] = r;
        }
    return XSF_OK;
}

/* Training: the symbols of every pass of the block, per table plane and
 * context (counts[(table plane * BPC_NCTX_MAX + ctx) * 2 + bit]). */
void bpc_codeblock_count(bpc_variant variant, int plane_offset, const int32_t *coef, size_t pitch,
                         int w, int h, uint64_t *counts)
{
    static _Thread_local coder c;
    bpc_band_probs probs = {NULL, plane_offset};
    init(&c, MODE_COUNT, variant, &probs, w, h);
    c.planes = load(&c, coef, pitch);
    if (c.planes > BPC_MAX_PLANES)
        c.planes = BPC_MAX_PLANES;
    c.counts = counts;
    run(&c, bpc_passes_of((int)variant, c.planes), NULL);
}
