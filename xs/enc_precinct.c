/* Precinct packing (21122-1 C.2 to C.6): precinct header, then per packet
 * its header, significance flags, bitplane counts, data and signs, then the
 * padding up to the precinct's share. Every subpacket is checked against
 * the size the cost tables gave the rate decision. */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "enc_internal.h"

/* MSB-first bit writer over a bounded buffer: bits gather in a 64-bit word
 * and leave 32 at a time (bytes past the end are dropped and noted). */
typedef struct bitw {
    uint8_t *buf;
    size_t cap, pos;
    uint64_t acc;
    int nacc, overflow; /* nacc < 32 between calls */
} bitw;

static void emit(bitw *w, uint32_t word, int bytes)
{
    if (bytes == 4 && w->cap - w->pos >= 4) {
        uint8_t *o = w->buf + w->pos;
        o[0] = (uint8_t)(word >> 24);
        o[1] = (uint8_t)(word >> 16);
        o[2] = (uint8_t)(word >> 8);
        o[3] = (uint8_t)word;
        w->pos += 4;
        return;
    }
    for (int i = bytes - 1; i >= 0; i--) {
        if (w->pos < w->cap)
            w->buf[w->pos++] = (uint8_t)(word >> (8 * i));
        else
            w->overflow = 1;
    }
}

/* The n low bits of v (n <= 32, v < 2^n). */
static inline void put(bitw *w, uint32_t v, int n)
{
    w->acc = (w->acc << n) | v;
    w->nacc += n;
    if (w->nacc >= 32) {
        w->nacc -= 32;
        emit(w, (uint32_t)(w->acc >> w->nacc), 4);
    }
}

/* Zero bits up to the next byte, and every whole byte out. */
static void align(bitw *w)
{
    if (w->nacc & 7)
        put(w, 0, 8 - (w->nacc & 7));
    if (w->nacc)
        emit(w, (uint32_t)(w->acc & ((1ull << w->nacc) - 1)), w->nacc / 8);
    w->nacc = 0;
}

typedef struct line_ctx {
    const enc_bline *bl;
    const uint8_t *g, *top;
    const int32_t *coef;
    int t, tt, mode;
} line_ctx;

/* Groups whose symbols one call computes: a multiple of 8. */
enum { SYM_CHUNK = 256 };

/* The unary symbols of groups [s, s + n) of a line (n <= SYM_CHUNK):
 * sym[i] the count of 1 bits before the 0 (enc_vpred_symbol with vertical
 * prediction, else the count's excess over t), and live[i] non-zero where
 * group i keeps its significance group coded: its symbol with run mode 0 or
 * without prediction (a significance group is skipped where every symbol is
 * 0), whether its count exceeds t with run mode 1 and prediction. */
XSF_VECTOR_CLONES
static void line_symbols(const uint8_t *restrict g, const uint8_t *restrict top, uint32_t n, int t,
                         int tt, int vpred, int rm, uint8_t *restrict sym, uint8_t *restrict live)
{
    const uint8_t t8 = (uint8_t)t, tt8 = (uint8_t)tt;
    if (!vpred) {
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t x = g[i] > t8 ? (uint8_t)(g[i] - t8) : 0;
            sym[i] = x;
            live[i] = x;
        }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        /* enc_vpred_bits - 1 in bytes: v = max(g, t), m = max(top, tt). */
        const uint8_t v = g[i] > t8 ? g[i] : t8, m = top[i] > tt8 ? top[i] : tt8;
        const uint8_t r = (uint8_t)(v - m), thr = (uint8_t)(m - t8), d = (uint8_t)(m - v);
        const uint8_t x =
            v >= m ? (r > thr ? (uint8_t)(r + thr) : (uint8_t)(2 * r)) : (uint8_t)(2 * d - 1);
        sym[i] = x;
        live[i] = rm ? (uint8_t)(g[i] > t8) : x;
    }
}

/* Skip flags of the significance groups of live[0..n) (line_symbols), at
 * most 32: bit 31 - k of the result for the k-th one. */
static uint32_t skip_bits(const uint8_t *live, uint32_t n)
{
    uint32_t bits = 0;
    for (uint32_t s = 0, k = 0; s < n; s += 8, k++) {
        uint64_t any = 0;
        if (n - s >= 8) {
            memcpy(&any, live + s, 8);
        } else {
            for (uint32_t i = s; i < n; i++)
                any |= live[i];
        }
        bits |= (uint32_t)(any == 0) << (31 - k);
    }
    return bits;
}

/* Significance flags of a line (1: skipped). */
static void put_flags(bitw *w, const line_ctx *l, int rm)
{
    uint8_t sym[SYM_CHUNK], live[SYM_CHUNK];
    const uint32_t groups = l->bl->groups;
    for (uint32_t s0 = 0; s0 < groups; s0 += SYM_CHUNK) {
        const uint32_t n = groups - s0 < SYM_CHUNK ? groups - s0 : SYM_CHUNK;
        line_symbols(l->g + s0, l->top + s0, n, l->t, l->tt, l->mode & ENC_MODE_VPRED, rm, sym,
                     live);
        for (uint32_t s = 0; s < n; s += 8 * 32) {
            const uint32_t m = n - s < 8 * 32 ? n - s : 8 * 32, nf = (m + 7) / 8;
            const uint32_t bits = skip_bits(live + s, m);
            put(w, nf == 32 ? bits : bits >> (32 - nf), (int)nf);
        }
    }
}

/* The unary codes of symbols sym[0..n), n <= 8: each x as x 1 bits and a 0. */
static inline void put_unary8(bitw *w, const uint8_t *sym, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t x = sym[i];
        put(w, (2u << x) - 2, (int)x + 1);
    }
}

static void put_counts(bitw *w, const line_ctx *l, int raw, int rm)
{
    const uint32_t groups = l->bl->groups;
    if (raw) {
        for (uint32_t i = 0; i < groups; i++)
            put(w, l->g[i], 4);
        return;
    }
    uint8_t sym[SYM_CHUNK], live[SYM_CHUNK];
    const int sig = (l->mode & ENC_MODE_SIG) != 0;
    for (uint32_t s0 = 0; s0 < groups; s0 += SYM_CHUNK) {
        const uint32_t n = groups - s0 < SYM_CHUNK ? groups - s0 : SYM_CHUNK;
        line_symbols(l->g + s0, l->top + s0, n, l->t, l->tt, l->mode & ENC_MODE_VPRED, rm, sym,
                     live);
        for (uint32_t s = 0; s < n; s += 8 * 32) {
            const uint32_t m = n - s < 8 * 32 ? n - s : 8 * 32;
            const uint32_t skip = sig ? skip_bits(live + s, m) : 0;
            for (uint32_t k = 0; 8 * k < m; k++)
                if (!(skip >> (31 - k) & 1))
                    put_unary8(w, sym + s + 8 * k, m - 8 * k < 8 ? m - 8 * k : 8);
        }
    }
}

/* Bit i of a byte at bit 4i. */
static const uint32_t spread_byte[256] = {
#define S1(b) ((uint32_t)(b)&1u)
#define SP(b)                                                                                      \
    (S1(b) | S1((b) >> 1) << 4 | S1((b) >> 2) << 8 | S1((b) >> 3) << 12 | S1((b) >> 4) << 16 |     \
     S1((b) >> 5) << 20 | S1((b) >> 6) << 24 | S1((b) >> 7) << 28)
#define SP4(b) SP(b), SP((b) + 1), SP((b) + 2), SP((b) + 3)
#define SP16(b) SP4(b), SP4((b) + 4), SP4((b) + 8), SP4((b) + 12)
#define SP64(b) SP16(b), SP16((b) + 16), SP16((b) + 32), SP16((b) + 48)
    SP64(0), SP64(64), SP64(128), SP64(192)
#undef SP64
#undef SP16
#undef SP4
#undef SP
#undef S1
};

/* Bit i of a 15-bit value at bit 4i. */
static inline uint64_t spread4(uint32_t v)
{
    return spread_byte[v & 0xff] | (uint64_t)spread_byte[(v >> 8) & 0x7f] << 32;
}

/* Sign packing: the bits of a 4-bit mask nz (one per non-zero magnitude),
 * and the sign bits neg (within nz) gathered where nz has them, MSB first. */
static const uint8_t nz_bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
static const uint8_t sign_bits[16][16] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 0, 0, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0},
    {0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0},
    {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0},
    {0, 1, 0, 0, 2, 3, 0, 0, 4, 5, 0, 0, 6, 7, 0, 0},
    {0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
};

/* One code group's data: nz and neg its non-zero magnitudes and the signs
 * among them (one bit per coefficient, MSB first), `bits` its nb bits of
 * data (its bit planes MSB first, four bits each: the magnitudes' bits
 * interleaved); with Fs=1 the signs into `ws`, else before the data. */
static inline void put_group(bitw *w, bitw *ws, uint64_t bits, int nb, uint32_t nz, uint32_t neg,
                             int fs)
{
    if (fs) {
        /* A sign for each non-zero magnitude, in order: neg's bits where
         * nz has them, gathered (nz_bits[nz] of them). */
        put(ws, sign_bits[nz][neg], nz_bits[nz]);
    } else {
        put(w, neg, 4);
    }
    if (nb > 32) {
        put(w, (uint32_t)(bits >> 32), nb - 32);
        put(w, (uint32_t)bits, 32);
    } else {
        put(w, (uint32_t)bits, nb);
    }
}

/* The magnitudes' bits interleaved, q[j] < 2^planes. */
static inline uint64_t interleave(const uint32_t q[4], int planes)
{
    if (planes <= 8)
        return spread_byte[q[0]] << 3 | spread_byte[q[1]] << 2 | spread_byte[q[2]] << 1 |
               spread_byte[q[3]];
    return spread4(q[0]) << 3 | spread4(q[1]) << 2 | spread4(q[2]) << 1 | spread4(q[3]);
}

#if defined(__SSE2__)
/* Bits 0..3 reversed. */
static const uint8_t reverse4[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
#endif

/* Deadzone above t = 0 for a whole code group at c: q[j] the magnitude's
 * planes above t (enc_quantize: min(|c[j]| >> fq, 0x7fff) >> t), and, one
 * bit per coefficient MSB first, where it is negative (neg) and where q is
 * not zero (nz). One vector of the four where SSE2 is there. */
static inline void quantize_group(const int32_t *c, int fq, int t, uint32_t q[4], uint32_t *neg,
                                  uint32_t *nz)
{
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)c);
    const __m128i s = _mm_srai_epi32(v, 31), bias = _mm_set1_epi32(INT32_MIN),
                  lim = _mm_set1_epi32(0x7fff);
    __m128i a = _mm_srl_epi32(_mm_sub_epi32(_mm_xor_si128(v, s), s), _mm_cvtsi32_si128(fq));
    /* a > 0x7fff as unsigned values (|INT32_MIN| is 2^31) */
    const __m128i over = _mm_cmpgt_epi32(_mm_xor_si128(a, bias), _mm_xor_si128(lim, bias));
    a = _mm_or_si128(_mm_andnot_si128(over, a), _mm_and_si128(over, lim));
    const __m128i qv = _mm_srl_epi32(a, _mm_cvtsi32_si128(t));
    _mm_storeu_si128((__m128i *)(void *)q, qv);
    *neg = reverse4[_mm_movemask_ps(_mm_castsi128_ps(v))];
    *nz =
        reverse4[_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(qv, _mm_setzero_si128()))) ^ 15];
#else
    uint32_t ng = 0, z = 0;
    for (uint32_t j = 0; j < 4; j++) {
        const int32_t v = c[j];
        const uint32_t a = (uint32_t)(v < 0 ? -(int64_t)v : v) >> fq;
        q[j] = (a > 0x7fffu ? 0x7fffu : a) >> t;
        ng |= (uint32_t)(v < 0) << (3 - j);
        z |= (uint32_t)(q[j] != 0) << (3 - j);
    }
    *neg = ng;
    *nz = z;
#endif
}

/* Data of one line, and with Fs=1 its signs into `ws` (the sign subpacket,
 * written at the same time from the same quantized values). */
static void put_data(bitw *w, bitw *ws, const line_ctx *l, const enc_params *pr)
{
    const uint32_t width = l->bl->width, groups = l->bl->groups;
    const int t = l->t, fq = pr->fq, fs = pr->fs;
    const uint8_t *const g = l->g;
    const int32_t *const coef = l->coef;
    /* Whole groups, deadzone above t = 0: the magnitude's planes above t
     * (enc_quantize), for the groups above t, listed first without a
     * branch (which groups are coded follows the picture: a branch on each
     * would be mispredicted often). */
    const uint32_t fast_end = !pr->qpih && t > 0 ? width / 4 : 0;
    enum { CHUNK = 256 };
    uint32_t coded[CHUNK];
    for (uint32_t i0 = 0; i0 < fast_end; i0 += CHUNK) {
        const uint32_t i1 = fast_end - i0 < CHUNK ? fast_end : i0 + CHUNK;
        uint32_t n = 0;
        for (uint32_t i = i0; i < i1; i++) {
            coded[n] = i - i0;
            n += g[i] > t;
        }
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t i = i0 + coded[k], planes = (uint32_t)(g[i] - t);
            uint32_t q[4], neg, nz;
            quantize_group(coef + 4 * i, fq, t, q, &neg, &nz);
            put_group(w, ws, interleave(q, (int)planes), (int)(4 * planes), nz, neg & nz, fs);
        }
    }
    for (uint32_t i = fast_end; i < groups; i++) {
        const int gi = g[i];
        if (gi <= t)
            continue;
        uint32_t q[4] = {0, 0, 0, 0}, neg = 0;
        for (uint32_t j = 0; j < 4 && 4 * i + j < width; j++) {
            const int32_t v = coef[4 * i + j];
            q[j] = enc_quantize(v, gi, t, pr->qpih, pr->fq);
            neg |= (uint32_t)(v < 0) << (3 - j);
        }
        const uint32_t nz = (uint32_t)(q[0] != 0) << 3 | (uint32_t)(q[1] != 0) << 2 |
                            (uint32_t)(q[2] != 0) << 1 | (uint32_t)(q[3] != 0);
        put_group(w, ws, interleave(q, gi - t), 4 * (gi - t), nz, neg & nz, fs);
    }
}

size_t enc_write_precinct(const enc_plan *plan, size_t p, int q, int r, const enc_choice *ch,
                          const enc_line_cost *cost, const int32_t *const *line,
                          const uint8_t *gcli, const uint8_t *gtli_above, uint8_t *out,
                          size_t total_bytes)
{
    const xs_geometry *g = &plan->geom;
    const enc_params *pr = &plan->params;
    const enc_bline *bl = plan->bline + plan->bline_first[p];
    const int nbl = (int)(plan->bline_first[p + 1] - plan->bline_first[p]);
    bitw w = {out, total_bytes, 0, 0, 0, 0};

    /* Precinct header (C.3): Lprc, Q, R, D[p,b]; bands the precinct lacks get 0. */
    uint8_t present[XS_MAX_BANDS];
    memset(present, 0, sizeof present);
    for (int i = 0; i < nbl; i++)
        present[bl[i].band] = 1;
    put(&w, (uint32_t)(total_bytes - g->precinct_header_bytes), 24);
    put(&w, (uint32_t)q, 8);
    put(&w, (uint32_t)r, 8);
    for (int b = 0; b < g->nbands; b++)
        put(&w, present[b] ? ch->mode[b] : 0, 2);
    align(&w);

    /* Its coefficients are read last (data), from lines far apart in the
     * planes, cold since the DWT: asked for now, while headers, flags and
     * counts are written. */
    for (int k = 0; k < nbl; k++) {
        if (ch->t[bl[k].band] >= 15)
            continue;
        const int32_t *c = line[k];
        for (uint32_t x = 0; x < bl[k].width; x += 16)
            __builtin_prefetch(c + x, 0, 2);
    }
    line_ctx lc[XS_MAX_BANDS];
    int i = 0;
    while (i < nbl) {
        const int pk = bl[i].packet, i0 = i;
        for (; i < nbl && bl[i].packet == pk; i++) {
            const int b = bl[i].band;
            line_ctx *l = &lc[i - i0];
            l->bl = &bl[i];
            l->g = gcli + bl[i].gcli_off;
            l->top = l->g - bl[i].gcli_stride;
            l->coef = line[i];
            l->t = ch->t[b];
            l->mode = ch->mode[b];
            const int ttop = bl[i].line == 0 && gtli_above ? gtli_above[b] : 0;
            l->tt = ttop > l->t ? ttop : l->t;
        }
        /* The packet's coefficients are read last (data), from lines far
         * apart in the planes, cold since the DWT: asked for now, while its
         * flags and counts are written. */
        const enc_packet_size z = enc_packet_bytes(pr, bl, cost, i0, i, ch);
        const int nl = i - i0, dr = z.raw;
        const uint32_t sig = z.sig, lcnt = dr ? enc_ceil8(z.rawcnt) : enc_ceil8(z.cnt),
                       ldat = enc_ceil8(z.dat), lsgn = enc_ceil8(z.sgn);
        /* Packet header (C.4, Table C.5). */
        put(&w, (uint32_t)dr, 1);
        if (pr->long_headers) {
            put(&w, ldat, 20);
            put(&w, lcnt, 20);
            put(&w, lsgn, 15);
        } else {
            put(&w, ldat, 15);
            put(&w, lcnt, 13);
            put(&w, lsgn, 11);
        }
        align(&w);
        size_t start = w.pos;
        if (!dr) {
            for (int k = 0; k < nl; k++)
                if (lc[k].mode & ENC_MODE_SIG)
                    put_flags(&w, &lc[k], pr->rm);
            align(&w);
            if (w.pos - start != enc_ceil8(sig))
                return 0;
        }
        start = w.pos;
        for (int k = 0; k < nl; k++)
            put_counts(&w, &lc[k], dr, pr->rm);
        align(&w);
        if (w.pos - start != lcnt)
            return 0;
        /* Data and signs in one pass: the sign subpacket starts where the
         * data's size (from the cost tables) ends it; each is checked. */
        start = w.pos;
        bitw ws = {out, total_bytes, start + ldat, 0, 0, 0};
        if (ws.pos > ws.cap)
            return 0;
        for (int k = 0; k < nl; k++)
            put_data(&w, &ws, &lc[k], pr);
        align(&w);
        if (w.pos - start != ldat)
            return 0;
        if (pr->fs) {
            align(&ws);
            if (ws.overflow || ws.pos - w.pos != lsgn)
                return 0;
            w.pos = ws.pos;
        }
    }
    const size_t coded = w.pos;
    if (w.overflow || coded > total_bytes)
        return 0;
    memset(out + coded, 0, total_bytes - coded);
    return coded;
}
