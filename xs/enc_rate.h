/* The encoder's cost model and rate decision, shared word for word by the C
 * encoder and the CUDA encoder (compiled as host and device code), so that
 * both make the same decisions and write the same bytes.
 *
 * Everything is counted in bits per band line (the part of one band line
 * that lies in one precinct) for each truncation position t = 0..15
 * (21122-1 C.7: gtli). A precinct's size for a quantization Q and a
 * refinement R follows from these tables and the packet layout. */
#ifndef XS_ENC_RATE_H
#define XS_ENC_RATE_H

#include <stdint.h>

#ifdef __CUDACC__
#define XS_HD __host__ __device__ __forceinline__ static
#else
#define XS_HD static inline
#endif

#define ENC_T 16               /* truncation positions 0..15 */
#define ENC_NOCOST 0x3fffffffu /* a mode that may not be used */

/* Coding mode of a band = its D[p,b] bits: bit 0 vertical prediction, bit 1
 * significance flags (21122-1 Table C.4). */
enum { ENC_MODE_VPRED = 1, ENC_MODE_SIG = 2, ENC_MODES = 4 };

/* Bits of one band line for each t. unary[m] excludes the significance
 * flags themselves (they go to their own subpacket). */
typedef struct enc_line_cost {
    uint32_t unary[ENC_MODES][ENC_T];
    uint32_t data[ENC_T]; /* magnitude bit planes, and the 4 sign bits of a group when Fs=0 */
    uint32_t sign[ENC_T]; /* Fs=1: one bit per non-zero quantized coefficient */
} enc_line_cost;

/* Per band line, what the selection needs besides its costs. */
typedef struct enc_bline {
    uint16_t band;        /* index in xs_geometry.band */
    uint8_t line;         /* line inside the precinct */
    uint8_t packet;       /* packet index in xs_geometry.packet */
    uint32_t width;       /* coefficients */
    uint32_t groups;      /* code groups: (width + 3) / 4 */
    uint32_t gcli_off;    /* first code group in the frame's bitplane-count array */
    uint32_t gcli_stride; /* code groups between two lines of the band */
    uint32_t coef_off;    /* first coefficient in the component's Mallat plane */
    uint32_t precinct;    /* row * cols + col */
} enc_bline;

/* Frame-wide constants of the decision. */
typedef struct enc_params {
    int fs, rm, qpih, fq;
    int allow_raw, allow_vpred, allow_sig, force_raw;
    int long_headers;
    int nbands;
    int qmax, rmax;             /* candidates: Q in 0..qmax, R in 0..rmax-1 */
    uint32_t prec_header_bytes; /* Lprc, Q, R, D[p,b] */
} enc_params;

/* 21122-1 Table C.10: the truncation position of a band. */
XS_HD int enc_truncation(int q, int r, int gain, int priority)
{
    int t = q - gain - (priority < r ? 1 : 0);
    return t < 0 ? 0 : (t > 15 ? 15 : t);
}

/* Length in bits of the bounded code (21122-1 C.7) that codes bitplane count
 * g of a group under truncation t, predicted from `top` (the count above)
 * where tt is the larger of the two truncations. */
XS_HD int enc_vpred_bits(int g, int top, int t, int tt)
{
    const int v = g > t ? g : t;
    const int mtop = top > tt ? top : tt;
    const int r = v - mtop, thr = mtop - t;
    const int x = r > thr ? r + thr : (r >= 0 ? 2 * r : -2 * r - 1);
    return x + 1;
}

/* The unary symbol of that code (the number of 1 bits before the 0). */
XS_HD int enc_vpred_symbol(int g, int top, int t, int tt)
{
    return enc_vpred_bits(g, top, t, tt) - 1;
}

/* The magnitude the decoder rebuilds from a uniform quantizer's value m
 * at truncation t > 0, s = g - t + 1 (21122-1 D.3): the sum of (m << t)
 * >> (k * s) over k, each term rounded down. */
XS_HD uint32_t enc_uniform_value(uint32_t m, int t, int s)
{
    uint32_t acc = 0;
    for (uint32_t r = m << t; r; r >>= s)
        acc += r;
    return acc;
}

/* Quantized magnitude of a coefficient W (at Fq fractional bits) in a group
 * of bitplane count g truncated at t (21122-1 D.3 inverted): deadzone keeps
 * the bit planes above t, uniform rounds to the decoder's reconstruction
 * grid. At t = 0 the last step rounds instead of truncating (the decoder
 * reconstructs m << Fq there), within the g bit planes the group codes. */
XS_HD uint32_t enc_quantize(int32_t w, int g, int t, int qpih, int fq)
{
    const uint32_t a = (uint32_t)(w < 0 ? -(int64_t)w : w);
    uint32_t mag = a >> fq;
    if (mag > 0x7fffu)
        mag = 0x7fffu;
    if (g <= t)
        return 0;
    if (t == 0) {
        uint32_t m = fq ? (uint32_t)(((uint64_t)a + (1u << (fq - 1))) >> fq) : mag;
        const uint32_t lim = (1u << g) - 1;
        return m > lim ? lim : m;
    }
    if (!qpih)
        return mag >> t;
    /* Uniform: the decoder rebuilds about m * 2^(g+1) / (2^s - 1), s = g - t + 1,
     * exactly enc_uniform_value; the nearest of its values to the whole
     * magnitude (fraction included), the lower one on a tie. */
    const int s = g - t + 1;
    const uint32_t lim = (1u << (g - t)) - 1;
    const uint64_t cap = (uint64_t)0x7fffu << fq, x = a > cap ? cap : a;
    const uint64_t xs = x * ((1u << s) - 1), half = (uint64_t)1 << (g + fq);
    uint32_t m = (uint32_t)(xs >> (g + 1 + fq));
    if (m >= lim)
        return lim;
    /* On the exact grid x lies fr above value m (units of 2^(g+1+Fq) per
     * step). The decoder's values lie below it by less than g / s + 2, so
     * its midpoints too: far enough from the exact midpoint the answer
     * follows without them. */
    const uint64_t fr = xs - ((uint64_t)m << (g + 1 + fq));
    const uint64_t shift = (uint64_t)(g / s + 2) * ((1u << s) - 1) << fq;
    if (shift < half) {
        if (fr + shift < half)
            return m;
        if (fr > half)
            return m + 1;
    }
    /* The decoder's value lies at or below the exact grid: step up while the
     * next value is still at or below the magnitude. */
    uint64_t lo = (uint64_t)enc_uniform_value(m, t, s) << fq;
    uint64_t hi = (uint64_t)enc_uniform_value(m + 1, t, s) << fq;
    while (hi <= x && m + 1 < lim) {
        m++;
        lo = hi;
        hi = (uint64_t)enc_uniform_value(m + 1, t, s) << fq;
    }
    if (hi <= x || hi - x < x - lo)
        m++;
    return m;
}

/* Bitplane count of a magnitude (0 for 0). */
XS_HD int enc_bitlen(uint32_t v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* The largest t at which the coefficient quantizes to a non-zero value in a
 * group of count g, plus one (0: zero at every t). Counting coefficients by
 * it gives the sign-packing bits for every t at once. */
XS_HD int enc_sign_reach(int32_t w, int g, int qpih, int fq)
{
    if (g == 0)
        return 0;
    const uint32_t a = (uint32_t)(w < 0 ? -(int64_t)w : w);
    uint32_t mag = a >> fq;
    if (mag > 0x7fffu)
        mag = 0x7fffu;
    if (!qpih) {
        const int b = enc_bitlen(mag); /* non-zero for t < b */
        if (b > 0)
            return b;
    } else {
        /* enc_quantize is non-zero at t exactly where the magnitude is above
         * half the decoder's value for m = 1. */
        const uint64_t cap = (uint64_t)0x7fffu << fq, x = a > cap ? cap : a;
        for (int t = g - 1; t >= 1; t--)
            if (2 * x > (uint64_t)enc_uniform_value(1, t, g - t + 1) << fq)
                return t + 1;
    }
    return enc_quantize(w, g, 0, qpih, fq) ? 1 : 0;
}

/* Costs at truncation t of one significance group: up to 8 code groups
 * (g[0..n)), `top` the counts of the line above (NULL where vertical
 * prediction is off), `ttop` the truncation of the line above (0 inside a
 * precinct: the larger of the two is then t), `reach` four 4-bit sign reaches
 * per group (enc_sign_reach). out[m] for mode m (ENC_MODE_* bits) counts the
 * bitplane-count bits (flags excluded), out[4] the data bits, out[5] the
 * sign-packing bits. */
XS_HD void enc_sig_group_cost(const uint8_t *g, const uint8_t *top, const uint16_t *reach, int n,
                              int ttop, int t, const enc_params *p, uint32_t out[6])
{
    uint32_t nopred = 0, vpred = 0, data = 0, sign = 0;
    int gmax = 0, vzero = 1;
    const int tt = ttop > t ? ttop : t;
    for (int i = 0; i < 8; i++) {
        if (i >= n)
            break;
        const int gi = g[i];
        gmax = gi > gmax ? gi : gmax;
        nopred += (uint32_t)((gi > t ? gi - t : 0) + 1);
        if (top) {
            const int b = enc_vpred_bits(gi, top[i], t, tt);
            vpred += (uint32_t)b;
            vzero &= b == 1;
        }
        if (gi > t) {
            data += (uint32_t)(4 * (gi - t) + (p->fs ? 0 : 4));
            for (int k = 0; k < 4; k++)
                sign += ((reach[i] >> (4 * k)) & 15) > t;
        }
    }
    out[0] = nopred;
    out[ENC_MODE_SIG] = gmax > t ? nopred : 0;
    /* Rm=0: a group is skipped when every residual is zero; Rm=1 when every
     * count is at or below t. */
    const int skip = p->rm ? gmax <= t : vzero;
    out[ENC_MODE_VPRED] = top ? vpred : 0;
    out[ENC_MODE_VPRED | ENC_MODE_SIG] = top && !skip ? vpred : 0;
    out[4] = data;
    out[5] = sign;
}

/* Adds the costs of one significance group to `c` for every t. */
XS_HD void enc_cost_sig_group(enc_line_cost *c, const uint8_t *g, const uint8_t *top,
                              const uint16_t *reach, int n, int ttop, const enc_params *p)
{
    for (int t = 0; t < ENC_T; t++) {
        uint32_t o[6];
        enc_sig_group_cost(g, top, reach, n, ttop, t, p, o);
        for (int m = 0; m < ENC_MODES; m++)
            c->unary[m][t] += o[m];
        c->data[t] += o[4];
        c->sign[t] += o[5];
    }
}

XS_HD uint32_t enc_ceil8(uint32_t bits)
{
    return (bits + 7) >> 3;
}

/* Significance flags of a band line: one per 8 code groups. */
XS_HD uint32_t enc_sig_bits(uint32_t groups)
{
    return (groups + 7) >> 3;
}

/* Precinct-wide choice for one candidate (Q, R): band truncations and modes,
 * raw packets, and the bytes of the precinct without padding. */
typedef struct enc_choice {
    uint32_t bytes;    /* precinct header and packets; ENC_NOCOST when a length field overflows */
    uint8_t t[256];    /* per band */
    uint8_t mode[256]; /* per band: D[p,b] */
} enc_choice;

/* Field limits of a packet header (21122-1 Table C.5). */
XS_HD int enc_packet_fits(const enc_params *p, uint32_t ldat, uint32_t lcnt, uint32_t lsgn)
{
    if (p->long_headers)
        return ldat < (1u << 20) && lcnt < (1u << 20) && lsgn < (1u << 15);
    return ldat < (1u << 15) && lcnt < (1u << 13) && lsgn < (1u << 11);
}

/* Sizes of one packet: band lines bl[i0..i1) under the choice ch. */
typedef struct enc_packet_size {
    uint32_t sig, cnt, rawcnt, dat, sgn; /* bits */
    int raw;                             /* coded raw (Dr) */
    uint32_t bytes; /* header and subpackets; ENC_NOCOST when a length overflows */
} enc_packet_size;

/* The raw decision and the bytes of a packet from its bit sums (sig, cnt,
 * rawcnt, dat, sgn). */
XS_HD void enc_packet_finish(const enc_params *p, enc_packet_size *z)
{
    const uint32_t coded = enc_ceil8(z->sig) + enc_ceil8(z->cnt);
    z->raw = p->force_raw || (p->allow_raw && enc_ceil8(z->rawcnt) < coded);
    const uint32_t lcnt = z->raw ? enc_ceil8(z->rawcnt) : enc_ceil8(z->cnt);
    if (!enc_packet_fits(p, enc_ceil8(z->dat), lcnt, enc_ceil8(z->sgn)))
        z->bytes = ENC_NOCOST;
    else
        z->bytes = (p->long_headers ? 7 : 5) + (z->raw ? enc_ceil8(z->rawcnt) : coded) +
                   enc_ceil8(z->dat) + enc_ceil8(z->sgn);
}

XS_HD enc_packet_size enc_packet_bytes(const enc_params *p, const enc_bline *bl,
                                       const enc_line_cost *cost, int i0, int i1,
                                       const enc_choice *ch)
{
    enc_packet_size z = {0, 0, 0, 0, 0, 0, 0};
    for (int i = i0; i < i1; i++) {
        const int b = bl[i].band, t = ch->t[b], m = ch->mode[b];
        z.cnt += cost[i].unary[m][t];
        if (m & ENC_MODE_SIG)
            z.sig += enc_sig_bits(bl[i].groups);
        z.rawcnt += 4 * bl[i].groups;
        z.dat += cost[i].data[t];
        z.sgn += p->fs ? cost[i].sign[t] : 0;
    }
    enc_packet_finish(p, &z);
    return z;
}

/* Bytes of a whole precinct (header and packets), and (raw not NULL) the
 * raw decision of each packet. Band lines come in codestream order, so a
 * packet is a run of equal bl[].packet. */
XS_HD uint32_t enc_precinct_bytes(const enc_params *p, const enc_bline *bl,
                                  const enc_line_cost *cost, int nbl, const enc_choice *ch,
                                  uint8_t *raw)
{
    uint32_t total = p->prec_header_bytes;
    int i = 0;
    while (i < nbl) {
        int e = i + 1;
        while (e < nbl && bl[e].packet == bl[i].packet)
            e++;
        const enc_packet_size z = enc_packet_bytes(p, bl, cost, i, e, ch);
        if (raw)
            raw[bl[i].packet] = (uint8_t)z.raw;
        if (z.bytes == ENC_NOCOST)
            return ENC_NOCOST;
        total += z.bytes;
        i = e;
    }
    return total < (1u << 24) ? total : ENC_NOCOST;
}

/* The cheapest allowed mode given each mode's bits mc[] (count bits and
 * significance flags); ties go to the lower mode number. `vpred_ok` is 0
 * in the first precinct of a slice. */
XS_HD int enc_pick_mode(const enc_params *p, const uint32_t mc[ENC_MODES], int vpred_ok)
{
    int best = 0;
    for (int m = 1; m < ENC_MODES; m++) {
        if ((m & ENC_MODE_VPRED) && !(p->allow_vpred && vpred_ok))
            continue;
        if ((m & ENC_MODE_SIG) && !p->allow_sig)
            continue;
        if (mc[m] < mc[best])
            best = m;
    }
    return best;
}

/* The cheapest allowed mode of band b at truncation t over its lines in the
 * precinct (enc_pick_mode). */
XS_HD int enc_band_mode(const enc_params *p, const enc_bline *bl, const enc_line_cost *cost,
                        int nbl, int b, int t, int vpred_ok)
{
    uint32_t mc[ENC_MODES] = {0, 0, 0, 0};
    for (int i = 0; i < nbl; i++) {
        if (bl[i].band != b)
            continue;
        for (int m = 0; m < ENC_MODES; m++)
            mc[m] += cost[i].unary[m][t] + ((m & ENC_MODE_SIG) ? enc_sig_bits(bl[i].groups) : 0);
    }
    return enc_pick_mode(p, mc, vpred_ok);
}

/* Fills ch for candidate (q, r): every band's truncation and mode, then the
 * precinct's bytes. The modes are enc_band_mode's, summed for every band in
 * one pass over the lines (host code: the GPU encoder spreads the bands
 * over a warp's lanes). */
XS_HD uint32_t enc_evaluate(const enc_params *p, const uint8_t *gain, const uint8_t *priority,
                            const enc_bline *bl, const enc_line_cost *cost, int nbl, int vpred_ok,
                            int q, int r, enc_choice *ch)
{
    uint32_t mc[256][ENC_MODES];
    for (int b = 0; b < p->nbands; b++) {
        ch->t[b] = (uint8_t)enc_truncation(q, r, gain[b], priority[b]);
        for (int m = 0; m < ENC_MODES; m++)
            mc[b][m] = 0;
    }
    for (int i = 0; i < nbl; i++) {
        const int b = bl[i].band, t = ch->t[b];
        const uint32_t sig = enc_sig_bits(bl[i].groups);
        mc[b][0] += cost[i].unary[0][t];
        mc[b][ENC_MODE_VPRED] += cost[i].unary[ENC_MODE_VPRED][t];
        mc[b][ENC_MODE_SIG] += cost[i].unary[ENC_MODE_SIG][t] + sig;
        mc[b][ENC_MODE_VPRED | ENC_MODE_SIG] +=
            cost[i].unary[ENC_MODE_VPRED | ENC_MODE_SIG][t] + sig;
    }
    for (int b = 0; b < p->nbands; b++)
        ch->mode[b] = (uint8_t)enc_pick_mode(p, mc[b], vpred_ok);
    ch->bytes = enc_precinct_bytes(p, bl, cost, nbl, ch, 0);
    return ch->bytes;
}

/* Candidate k = 0 .. (qmax+1)*rmax - 1 in order of rising quality. */
XS_HD void enc_candidate(const enc_params *p, int k, int *q, int *r)
{
    *q = p->qmax - k / p->rmax;
    *r = k % p->rmax;
}

/* The rate decision of one precinct: the best candidate whose bytes fit the
 * budget, found by bisection (sizes rise with k; where byte rounding breaks
 * that by a byte, the answer still fits). Returns 0, or -1 when not even the
 * coarsest candidate fits. */
XS_HD int enc_select(const enc_params *p, const uint8_t *gain, const uint8_t *priority,
                     const enc_bline *bl, const enc_line_cost *cost, int nbl, int vpred_ok,
                     uint32_t budget, int *q_out, int *r_out, enc_choice *ch)
{
    int q, r;
    enc_candidate(p, 0, &q, &r);
    if (enc_evaluate(p, gain, priority, bl, cost, nbl, vpred_ok, q, r, ch) > budget)
        return -1;
    int lo = 0, hi = (p->qmax + 1) * p->rmax;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        enc_candidate(p, mid, &q, &r);
        if (enc_evaluate(p, gain, priority, bl, cost, nbl, vpred_ok, q, r, ch) <= budget)
            lo = mid;
        else
            hi = mid;
    }
    enc_candidate(p, lo, q_out, r_out);
    enc_evaluate(p, gain, priority, bl, cost, nbl, vpred_ok, *q_out, *r_out, ch);
    return 0;
}

/* XS_RC_SLICE: precinct i's share (of n in its slice) of the slice's bytes,
 * from its size at the one candidate the whole slice was found to fit (its
 * bytes with every precinct at that candidate), with the slack the slice leaves at
 * that candidate spread evenly. The shares add up to the slice's bytes. */
XS_HD uint32_t enc_slice_share(uint32_t size, uint64_t slack, int i, int n)
{
    return size +
           (uint32_t)(slack * (uint64_t)(i + 1) / (uint64_t)n - slack * (uint64_t)i / (uint64_t)n);
}

#endif
