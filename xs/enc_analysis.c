/* The C encoder's analysis of a precinct: the bitplane count (GCLI) and the
 * sign reaches of its code groups, then the cost tables of its band lines
 * for every truncation t. The tables are exactly those enc_cost_sig_group
 * (enc_rate.h, the model the GPU encoder computes group by group) sums;
 * here they come from histograms of each line, counted once, so that a
 * code group costs a few increments instead of 16 evaluations. */
#include <string.h>

#include "enc_internal.h"

/* Bitplane count of a magnitude (enc_bitlen). */
static inline int bitlen(uint32_t v)
{
    return v ? 32 - __builtin_clz(v) : 0;
}

/* Bit planes of v < 2^24 (0 for 0), from the exponent of its float: a
 * form compilers vectorize where they do not vectorize a count of zeros. */
static inline uint32_t bitlen_f(uint32_t v)
{
    const float f = (float)(int32_t)v;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    const int32_t e = (int32_t)(bits >> 23) - 126;
    return (uint32_t)(e > 0 ? e : 0);
}

/* Deadzone with Fq > 0, n coefficients in whole code groups (n a multiple
 * of 4): the count of each group and the reaches of its coefficients. The
 * reach of a magnitude a is the bit planes of a >> Fq, or 1 where only the
 * rounding at t = 0 keeps it, that is bitlen(u) - (u > 1) for u = a >>
 * (Fq - 1) (u kept below 2^16 as the magnitude below 2^15); 0 in a group
 * of count 0. Per coefficient first (a vectorized pass over a chunk), then
 * per group. Returns 1 where a magnitude needs more than 15 bit planes. */
XSF_VECTOR_CLONES
static int gcli_deadzone(const int32_t *restrict row, uint32_t n, int fq, uint8_t *restrict gl,
                         uint16_t *restrict rl)
{
    enum { CHUNK = 256 };
    uint8_t reach[CHUNK], planes[CHUNK];
    uint32_t over = 0;
    const uint32_t limit = 0x7fffu << fq | ((1u << fq) - 1); /* the largest a of 15 planes */
    for (uint32_t x0 = 0; x0 < n; x0 += CHUNK) {
        const uint32_t m = n - x0 < CHUNK ? n - x0 : CHUNK;
        const int32_t *restrict r = row + x0;
        for (uint32_t j = 0; j < m; j++) {
            const int32_t v = r[j];
            const uint32_t a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
            over |= a > limit;
            uint32_t u = a >> (fq - 1);
            u = u > 0xffffu ? 0xffffu : u;
            const uint32_t len = bitlen_f(u);
            reach[j] = (uint8_t)(len - (u > 1));
            planes[j] = (uint8_t)(u > 1 ? len - 1 : 0); /* bitlen(min(a >> Fq, 0x7fff)) */
        }
        uint8_t *restrict gout = gl + x0 / 4;
        uint16_t *restrict rout = rl + x0 / 4;
        for (uint32_t i = 0; i < m / 4; i++) {
            const uint8_t *p = planes + 4 * i, *q = reach + 4 * i;
            const uint8_t g01 = p[0] > p[1] ? p[0] : p[1], g23 = p[2] > p[3] ? p[2] : p[3];
            const uint8_t gc = g01 > g23 ? g01 : g23;
            const uint16_t rr = (uint16_t)(q[0] | q[1] << 4 | q[2] << 8 | q[3] << 12);
            gout[i] = gc;
            rout[i] = gc ? rr : 0;
        }
    }
    return over != 0;
}

/* One band line's n coefficients at row (code groups of 4, the last one
 * partial): their counts at gl and reaches at rl; 1 where a magnitude
 * needs more than 15 bit planes. */
static int line_gcli(const enc_params *pr, const int32_t *row, uint32_t w, uint8_t *gl,
                     uint16_t *rl)
{
    const int fq = pr->fq;
    int saturated = 0;
    uint32_t x = 0;
    if (fq && !pr->qpih) {
        const uint32_t whole = w / 4 * 4;
        saturated |= gcli_deadzone(row, whole, fq, gl, rl);
        x = whole;
        gl += whole / 4;
        rl += whole / 4;
    }
    for (; x < w; x += 4) {
        const uint32_t n = w - x < 4 ? w - x : 4;
        uint32_t a[4] = {0, 0, 0, 0}, m = 0;
        for (uint32_t j = 0; j < n; j++) {
            const int32_t v = row[x + j];
            a[j] = (uint32_t)(v < 0 ? -(int64_t)v : v);
            m = a[j] >> fq > m ? a[j] >> fq : m;
        }
        if (m > 0x7fff) {
            saturated = 1;
            m = 0x7fff;
        }
        const int gc = bitlen(m);
        uint16_t r = 0;
        if (gc && pr->qpih) {
            for (uint32_t j = 0; j < n; j++)
                r |= (uint16_t)(enc_sign_reach(row[x + j], gc, pr->qpih, fq) << (4 * j));
        } else if (gc) {
            /* enc_sign_reach, deadzone: the bit planes of the magnitude, or
             * 1 where only the rounding at t = 0 keeps it. */
            for (uint32_t j = 0; j < n; j++) {
                const uint32_t mag = a[j] >> fq > 0x7fff ? 0x7fff : a[j] >> fq;
                int b = bitlen(mag);
                if (!b && fq)
                    b = (a[j] >> (fq - 1)) != 0;
                r |= (uint16_t)(b << (4 * j));
            }
        }
        *gl++ = (uint8_t)gc;
        *rl++ = r;
    }
    return saturated;
}

int enc_precinct_gcli(const enc_plan *plan, size_t p, int32_t *const coef[XS_MAX_COMPONENTS],
                      uint8_t *gcli, uint16_t *reach, int untransformed)
{
    const xs_geometry *g = &plan->geom;
    int saturated = 0;
    for (uint32_t i = plan->bline_first[p]; i < plan->bline_first[p + 1]; i++) {
        const enc_bline *bl = &plan->bline[i];
        const xs_band *b = &g->band[bl->band];
        if (untransformed && b->lx > 0)
            continue;
        saturated |= line_gcli(&plan->params, coef[b->comp] + bl->coef_off, bl->width,
                               gcli + bl->gcli_off, reach + bl->gcli_off);
    }
    return saturated ? -1 : 0;
}

int enc_band_row_gcli(const enc_plan *plan, int band, int brow, const int32_t *row, uint8_t *gcli,
                      uint16_t *reach)
{
    const xs_geometry *g = &plan->geom;
    const xs_band *b = &g->band[band];
    const size_t groups = ((size_t)b->col_width + 3) / 4;
    size_t off = b->gcli_offset + (size_t)brow * b->gcli_stride;
    int saturated = 0;
    for (int col = 0; col < g->cols; col++) {
        const int w = xs_band_prec_width(g, b, col);
        if (w <= 0)
            break;
        saturated |= line_gcli(&plan->params, row + (size_t)col * b->col_width, (uint32_t)w,
                               gcli + off, reach + off);
        off += groups;
    }
    return saturated ? -1 : 0;
}

/* v[t] = the sum over the n groups of a line of enc_vpred_bits(g, top, t,
 * max(ttop, t)), every t at once: byte arithmetic over the 16 values of t,
 * which compilers vectorize (every value below 32). With v = max(g, t) and
 * m = max(top, tt): r = v - m, thr = m - t, and the code is
 * r + min(r, thr) + 1 bits for r >= 0, -2r bits below. */
XSF_VECTOR_CLONES
static void vpred_sums(const uint8_t *restrict g, const uint8_t *restrict top, uint32_t n, int ttop,
                       uint32_t v[ENC_T])
{
    /* Two groups at once: lanes 0..15 the even one, 16..31 the odd one
     * (one 256-bit register of bytes where AVX2 is there). */
    enum { L = 2 * ENC_T };
    uint8_t tv[L], ttv[L];
    uint16_t acc[L];
    for (int l = 0; l < L; l++) {
        const int t = l % ENC_T;
        tv[l] = (uint8_t)t;
        ttv[l] = (uint8_t)(ttop > t ? ttop : t);
        acc[l] = 0;
    }
    for (int t = 0; t < ENC_T; t++)
        v[t] = 0;
    for (uint32_t i0 = 0; i0 < n; i0 += 4096) { /* 2048 pairs x 31 bits fit 16 bits */
        const uint32_t i1 = n - i0 < 4096 ? n : i0 + 4096;
        for (uint32_t i = i0; i < i1; i += 2) {
            const uint32_t j = i + 1 < i1 ? i + 1 : i; /* an odd count: the last one alone */
            const uint8_t g0 = g[i], t0 = top[i], g1 = i + 1 < i1 ? g[j] : 0,
                          t1 = i + 1 < i1 ? top[j] : 0;
            for (int l = 0; l < L; l++) {
                const uint8_t gi = l < ENC_T ? g0 : g1, ti = l < ENC_T ? t0 : t1;
                const uint8_t vv = gi > tv[l] ? gi : tv[l], m = ti > ttv[l] ? ti : ttv[l];
                const uint8_t thr = (uint8_t)(m - tv[l]);
                const uint8_t up = (uint8_t)(vv - m), down = (uint8_t)(m - vv);
                acc[l] = (uint16_t)(acc[l] + (vv >= m ? (uint8_t)(up + (up < thr ? up : thr) + 1)
                                                      : (uint8_t)(2 * down)));
            }
            if (i + 1 >= i1) /* the odd lane's phantom group (g = top = 0) */
                for (int t = 0; t < ENC_T; t++) {
                    const uint8_t vv = (uint8_t)t, m = ttv[t];
                    const uint8_t thr = (uint8_t)(m - t), up = (uint8_t)(vv - m),
                                  down = (uint8_t)(m - vv);
                    acc[ENC_T + t] = (uint16_t)(acc[ENC_T + t] -
                                                (vv >= m ? (uint8_t)(up + (up < thr ? up : thr) + 1)
                                                         : (uint8_t)(2 * down)));
                }
        }
        for (int t = 0; t < ENC_T; t++) {
            v[t] += (uint32_t)acc[t] + acc[ENC_T + t];
            acc[t] = acc[ENC_T + t] = 0;
        }
    }
}

/* Run mode 0's skip test, per group: differ[i] the larger of g and top
 * where they differ (0 where equal), same[i] whether g == max(top, ttop);
 * n <= SKIP_CHUNK, a multiple of 8 but at the line's end. */
enum { SKIP_CHUNK = 256 };
XSF_VECTOR_CLONES
static void skip_bytes(const uint8_t *restrict g, const uint8_t *restrict top, uint32_t n, int ttop,
                       uint8_t *restrict differ, uint8_t *restrict same)
{
    const uint8_t tt = (uint8_t)ttop;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t gi = g[i], ti = top[i], mx = gi > ti ? gi : ti;
        differ[i] = gi != ti ? mx : 0;
        same[i] = gi == (ti > tt ? ti : tt);
    }
}

/* One band line's tables. `top`: the counts of the line above (NULL: no
 * vertical prediction); ttop the truncation of the line above (0 inside a
 * precinct). What enc_sig_group_cost gives, summed, follows from:
 * - nopred(t) = groups + sum over g > t of (g - t); data likewise; sign(t)
 *   the coefficients whose reach (never above their group's count) exceeds t;
 * - with flags, a significance group whose largest count is at or below t
 *   costs one bit per group, so it is taken off nopred;
 * - vertical prediction: the bits of every group at each t (vpred_sum). A
 *   significance group is skipped (run mode 0) where every residual is zero:
 *   at t >= ttop exactly where t >= max(g, top) over its groups with
 *   g != top; below ttop where each g equals max(top, ttop), whatever t. Run
 *   mode 1 skips where every g <= t; such a group then costs 1 bit where
 *   max(top, ttop) <= t, else 2 (max(top, ttop) - t). */
/* Thermometer codes in bytes: for a value x < 16, byte t of the 16 (two
 * words, bytes 0..7 and 8..15) is 1 where x > t. therm2[b] is the sum of
 * those of the two nibbles of a byte b; therm1[x] that of x alone. Summed
 * over values (up to 255 a byte), byte t counts the values above t. */
#define TH_ONES 0x0101010101010101ull
#define TH_LO(x) ((x) >= 8 ? TH_ONES : TH_ONES & ((1ull << (8 * ((x)&7))) - 1))
#define TH_HI(x) ((x) <= 8 ? 0ull : TH_ONES & ((1ull << (8 * (((x)-8) & 7))) - 1))
#define TH2(b)                                                                                     \
    {                                                                                              \
        TH_LO((b)&15) + TH_LO((b) >> 4), TH_HI((b)&15) + TH_HI((b) >> 4)                           \
    }
#define TH2_4(b) TH2(b), TH2((b) + 1), TH2((b) + 2), TH2((b) + 3)
#define TH2_16(b) TH2_4(b), TH2_4((b) + 4), TH2_4((b) + 8), TH2_4((b) + 12)
#define TH2_64(b) TH2_16(b), TH2_16((b) + 16), TH2_16((b) + 32), TH2_16((b) + 48)
static const uint64_t therm2[256][2] = {TH2_64(0), TH2_64(64), TH2_64(128), TH2_64(192)};
#define TH1(x)                                                                                     \
    {                                                                                              \
        TH_LO(x), TH_HI(x)                                                                         \
    }
#define TH1_4(x) TH1(x), TH1((x) + 1), TH1((x) + 2), TH1((x) + 3)
static const uint64_t therm1[16][2] = {TH1_4(0), TH1_4(4), TH1_4(8), TH1_4(12)};
#undef TH1_4
#undef TH1
#undef TH2_64
#undef TH2_16
#undef TH2_4
#undef TH2
#undef TH_HI
#undef TH_LO
#undef TH_ONES

/* Adds the 16 byte counters of (lo, hi) to out[0..16). */
static inline void therm_flush(uint64_t lo, uint64_t hi, uint32_t out[ENC_T])
{
    for (int t = 0; t < 8; t++) {
        out[t] += (uint32_t)(lo >> (8 * t)) & 0xffu;
        out[8 + t] += (uint32_t)(hi >> (8 * t)) & 0xffu;
    }
}

/* What does not depend on the line above: counts, data, signs, flags.
 * above[t] counts the groups of count g > t, signs[t] the coefficients of
 * reach r > t (a reach is never above its group's count), both as
 * thermometer codes summed in bytes (no histogram: its increments of one
 * bin wait for each other), flushed every 32 groups (at most 4 * 32 a
 * byte). */
static void static_costs(enc_line_cost *c, const uint8_t *g, const uint16_t *reach, uint32_t groups,
                         const enc_params *pr)
{
    uint32_t above[ENC_T] = {0}, signs[ENC_T] = {0}, hs[ENC_T] = {0};
    uint64_t alo = 0, ahi = 0, slo = 0, shi = 0;
    for (uint32_t s = 0; s < groups; s += 8) {
        const uint32_t n = groups - s < 8 ? groups - s : 8;
        int gmax = 0;
        for (uint32_t i = s; i < s + n; i++) {
            const int gi = g[i];
            const uint16_t r = reach[i];
            alo += therm1[gi][0];
            ahi += therm1[gi][1];
            slo += therm2[r & 0xff][0] + therm2[r >> 8][0];
            shi += therm2[r & 0xff][1] + therm2[r >> 8][1];
            gmax = gi > gmax ? gi : gmax;
        }
        hs[gmax] += n;
        if ((s & 31) == 24 || s + 8 >= groups) {
            therm_flush(alo, ahi, above);
            therm_flush(slo, shi, signs);
            alo = ahi = slo = shi = 0;
        }
    }
    /* excess(t), the sum over g > t of g - t, is the sum over u >= t of
     * above[u]; flags take off the groups whose significance group's
     * largest count is at most t (prefix sums of hs). */
    uint32_t excess = 0, flat = 0;
    for (int t = ENC_T - 1; t >= 0; t--) {
        excess += above[t];
        c->unary[0][t] = groups + excess;
        c->data[t] = 4 * excess + (pr->fs ? 0 : 4 * above[t]);
        c->sign[t] = signs[t];
    }
    for (int t = 0; t < ENC_T; t++) {
        flat += hs[t];
        c->unary[ENC_MODE_SIG][t] = c->unary[0][t] - flat;
    }
}

/* Vertical prediction's tables (both run modes), from the counts above. */
static void vpred_costs(enc_line_cost *c, const uint8_t *g, const uint8_t *top, uint32_t groups,
                        int ttop, const enc_params *pr)
{
    uint32_t hz[ENC_T] = {0}, hk[ENC_T][ENC_T];
    uint8_t differ[SKIP_CHUNK], same[SKIP_CHUNK];
    uint32_t zero_below_ttop = 0; /* groups in significance groups with every g == max(top, ttop) */
    if (pr->rm)
        memset(hk, 0, sizeof hk);
    for (uint32_t s = 0; s < groups; s += 8) {
        const uint32_t n = groups - s < 8 ? groups - s : 8;
        if (pr->rm) {
            int gmax = 0;
            for (uint32_t i = s; i < s + n; i++)
                gmax = g[i] > gmax ? g[i] : gmax;
            for (uint32_t i = s; i < s + n; i++)
                hk[gmax][top[i] > ttop ? top[i] : ttop]++;
            continue;
        }
        if (s % SKIP_CHUNK == 0)
            skip_bytes(g + s, top + s, groups - s < SKIP_CHUNK ? groups - s : SKIP_CHUNK, ttop,
                       differ, same);
        const uint8_t *d = differ + s % SKIP_CHUNK, *e = same + s % SKIP_CHUNK;
        uint8_t tz = 0, eq = 1;
        for (uint32_t i = 0; i < n; i++) {
            tz = d[i] > tz ? d[i] : tz;
            eq &= e[i];
        }
        hz[tz] += n;
        zero_below_ttop += eq ? n : 0;
    }
    uint32_t kc[ENC_T] = {0}, skipped = 0, vs[ENC_T];
    vpred_sums(g, top, groups, ttop, vs);
    for (int t = 0; t < ENC_T; t++) {
        const uint32_t v = vs[t];
        c->unary[ENC_MODE_VPRED][t] = v;
        if (pr->rm) {
            uint32_t k = 0;
            for (int m = 0; m < ENC_T; m++) {
                kc[m] += hk[t][m];
                k += kc[m] * (m <= t ? 1u : 2u * (uint32_t)(m - t));
            }
            c->unary[ENC_MODE_VPRED | ENC_MODE_SIG][t] = v - k;
        } else {
            skipped += hz[t];
            c->unary[ENC_MODE_VPRED | ENC_MODE_SIG][t] = v - (t < ttop ? zero_below_ttop : skipped);
        }
    }
}

static void line_costs(enc_line_cost *c, const uint8_t *g, const uint8_t *top,
                       const uint16_t *reach, uint32_t groups, int ttop, int vpred_only,
                       const enc_params *pr)
{
    if (!vpred_only)
        static_costs(c, g, reach, groups, pr);
    if (!top) {
        memset(c->unary[ENC_MODE_VPRED], 0, sizeof c->unary[ENC_MODE_VPRED]);
        memset(c->unary[ENC_MODE_VPRED | ENC_MODE_SIG], 0,
               sizeof c->unary[ENC_MODE_VPRED | ENC_MODE_SIG]);
        return;
    }
    vpred_costs(c, g, top, groups, ttop, pr);
}

void enc_precinct_costs(const enc_plan *plan, size_t p, const uint8_t *gcli, const uint16_t *reach,
                        const uint8_t *gtli_above, int first_only, enc_line_cost *cost)
{
    const uint32_t first = plan->bline_first[p], last = plan->bline_first[p + 1];
    for (uint32_t i = first; i < last; i++) {
        const enc_bline *bl = &plan->bline[i];
        if (first_only && bl->line != 0)
            continue;
        const uint8_t *g = gcli + bl->gcli_off;
        const int ttop = gtli_above && bl->line == 0 ? gtli_above[bl->band] : 0;
        line_costs(&cost[i - first], g, gtli_above ? g - bl->gcli_stride : NULL,
                   reach + bl->gcli_off, bl->groups, ttop, first_only, &plan->params);
    }
}
