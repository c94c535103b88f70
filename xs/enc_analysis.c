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

int enc_precinct_gcli(const enc_plan *plan, size_t p, int32_t *const coef[XS_MAX_COMPONENTS],
                      uint8_t *gcli, uint16_t *reach)
{
    const xs_geometry *g = &plan->geom;
    const enc_params *pr = &plan->params;
    const int fq = pr->fq;
    int saturated = 0;
    for (uint32_t i = plan->bline_first[p]; i < plan->bline_first[p + 1]; i++) {
        const enc_bline *bl = &plan->bline[i];
        const int32_t *row = coef[g->band[bl->band].comp] + bl->coef_off;
        uint8_t *gl = gcli + bl->gcli_off;
        uint16_t *rl = reach + bl->gcli_off;
        const uint32_t w = bl->width;
        uint32_t x = 0;
        if (fq && !pr->qpih) {
            /* Deadzone, whole groups: the reach of a magnitude a is the bit
             * planes of a >> Fq, or 1 where only the rounding at t = 0 keeps
             * it, that is bitlen(u) - (u > 1) for u = a >> (Fq - 1) (u kept
             * below 2^16 as the magnitude below 2^15); 0 in a group of count 0. */
            for (; x + 4 <= w; x += 4) {
                uint32_t m = 0, r = 0;
                for (int j = 0; j < 4; j++) {
                    const int32_t v = row[x + j];
                    const uint32_t a = (uint32_t)(v < 0 ? -(int64_t)v : v);
                    m = a > m ? a : m;
                    uint32_t u = a >> (fq - 1);
                    u = u > 0xffff ? 0xffff : u;
                    const uint32_t b = (uint32_t)(32 - __builtin_clz(u | 1)) - (u > 1) - (u == 0);
                    r |= b << (4 * j);
                }
                m >>= fq;
                if (m > 0x7fff) {
                    saturated = 1;
                    m = 0x7fff;
                }
                const int gc = bitlen(m);
                *gl++ = (uint8_t)gc;
                *rl++ = (uint16_t)(gc ? r : 0);
            }
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
    }
    return saturated ? -1 : 0;
}

/* One band line's tables. `top`: the counts of the line above (NULL: no
 * vertical prediction); ttop the truncation of the line above (0 inside a
 * precinct). What enc_sig_group_cost gives, summed, follows from:
 * - nopred(t) = groups + sum over g > t of (g - t); data likewise; sign(t)
 *   the coefficients whose reach (never above their group's count) exceeds t;
 * - with flags, a significance group whose largest count is at or below t
 *   costs one bit per group, so it is taken off nopred;
 * - vertical prediction: the bits of a group depend on (g, top, t) alone, so
 *   each distinct pair is evaluated once per t. A significance group is
 *   skipped (run mode 0) where every residual is zero: at t >= ttop exactly
 *   where t >= max(g, top) over its groups with g != top; below ttop where
 *   each g equals max(top, ttop), whatever t. Run mode 1 skips where every
 *   g <= t; such a group then costs 1 bit where max(top, ttop) <= t, else
 *   2 (max(top, ttop) - t). */
static void line_costs(enc_line_cost *c, const uint8_t *g, const uint8_t *top,
                       const uint16_t *reach, uint32_t groups, int ttop, const enc_params *pr)
{
    uint32_t hg[ENC_T] = {0}, hr[4][ENC_T] = {{0}}, hs[ENC_T] = {0}, hz[ENC_T] = {0};
    uint32_t pair[ENC_T * ENC_T], hk[ENC_T][ENC_T];
    uint8_t used[ENC_T * ENC_T];
    int nused = 0;
    uint32_t zero_below_ttop = 0; /* groups in significance groups with every g == max(top, ttop) */
    if (top) {
        memset(pair, 0, sizeof pair);
        if (pr->rm)
            memset(hk, 0, sizeof hk);
    }
    for (uint32_t s = 0; s < groups; s += 8) {
        const uint32_t n = groups - s < 8 ? groups - s : 8;
        int gmax = 0, tz = 0, eq = 1;
        for (uint32_t i = s; i < s + n; i++) {
            const int gi = g[i];
            const uint16_t r = reach[i];
            hg[gi]++;
            gmax = gi > gmax ? gi : gmax;
            for (int k = 0; k < 4; k++) {
                const int rk = (r >> (4 * k)) & 15;
                hr[k][rk < gi ? rk : gi]++;
            }
            if (top) {
                const int ti = top[i], b = gi << 4 | ti;
                if (!pair[b]++)
                    used[nused++] = (uint8_t)b;
                if (gi != ti) {
                    const int mx = gi > ti ? gi : ti;
                    tz = mx > tz ? mx : tz;
                }
                eq &= gi == (ti > ttop ? ti : ttop);
            }
        }
        hs[gmax] += n;
        if (top) {
            if (pr->rm) {
                for (uint32_t i = s; i < s + n; i++)
                    hk[gmax][top[i] > ttop ? top[i] : ttop]++;
            } else {
                hz[tz] += n;
                zero_below_ttop += eq ? n : 0;
            }
        }
    }
    /* Suffix sums over g > t, prefix sums over gmax <= t. */
    uint32_t above = 0, above_sum = 0, signs = 0, flat = 0, skipped = 0;
    uint32_t kc[ENC_T] = {0};
    for (int t = ENC_T - 1; t >= 0; t--) {
        if (t + 1 < ENC_T) {
            above += hg[t + 1];
            above_sum += hg[t + 1] * (uint32_t)(t + 1);
            signs += hr[0][t + 1] + hr[1][t + 1] + hr[2][t + 1] + hr[3][t + 1];
        }
        const uint32_t excess = above_sum - (uint32_t)t * above; /* sum over g > t of g - t */
        c->unary[0][t] = groups + excess;
        c->data[t] = 4 * excess + (pr->fs ? 0 : 4 * above);
        c->sign[t] = signs;
    }
    for (int t = 0; t < ENC_T; t++) {
        flat += hs[t];
        c->unary[ENC_MODE_SIG][t] = c->unary[0][t] - flat;
        if (!top) {
            c->unary[ENC_MODE_VPRED][t] = c->unary[ENC_MODE_VPRED | ENC_MODE_SIG][t] = 0;
            continue;
        }
        const int tt = ttop > t ? ttop : t;
        uint32_t v = 0;
        for (int u = 0; u < nused; u++)
            v += pair[used[u]] * (uint32_t)enc_vpred_bits(used[u] >> 4, used[u] & 15, t, tt);
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
                   reach + bl->gcli_off, bl->groups, ttop, &plan->params);
    }
}
