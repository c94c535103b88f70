/* The rules of the BPC-PaCo code-block coder that the C reference
 * (codeblock.c) and the CUDA kernels (codeblock_kernels.cuh) share, written
 * once as inline functions for both: the pass schedule, the context
 * formation (thesis 3.2.2), the fixed-length arithmetic coder (thesis 3.2.3,
 * Algorithms 2 and 3) and the distortion of a coding decision. Every choice
 * the thesis leaves open is in FORMAT.md. */
#ifndef XSF_BPC_CODER_RULES_H
#define XSF_BPC_CODER_RULES_H

#include <stdint.h>

#if defined(__CUDACC__)
#define BPC_HD __host__ __device__ __forceinline__
#else
#define BPC_HD static inline
#endif

/* ---- coding passes ---- */

enum {
    BPC_PASS_SPP = 0, /* 3 passes: significance propagation (some significant neighbour) */
    BPC_PASS_MRP = 1, /* 2, 3 passes: refinement of coefficients significant before the plane */
    BPC_PASS_CP = 2,  /* 3 passes: cleanup, the insignificant coefficients the SPP left */
    BPC_PASS_SIG = 3, /* 2 passes: significance of every insignificant coefficient */
    BPC_PASS_ONE = 4, /* 1 pass (Bruns): refinement or significance, in one scan */
};

/* Pass k (0-based) of a code block with `planes` bitplanes: its bitplane and
 * its type. The top plane has no refinement (nothing is significant yet), so
 * it has one pass in every variant: SIG (2), CP (3), ONE (1). */
BPC_HD void bpc_pass_at(int variant, int planes, int k, int *plane, int *type)
{
    if (variant == 1) {
        *plane = planes - 1 - k;
        *type = BPC_PASS_ONE;
    } else if (variant == 2) {
        if (k == 0) {
            *plane = planes - 1;
            *type = BPC_PASS_SIG;
        } else {
            *plane = planes - 2 - (k - 1) / 2;
            *type = ((k - 1) % 2) ? BPC_PASS_MRP : BPC_PASS_SIG;
        }
    } else {
        if (k == 0) {
            *plane = planes - 1;
            *type = BPC_PASS_CP;
        } else {
            *plane = planes - 2 - (k - 1) / 3;
            *type = (k - 1) % 3; /* SPP, MRP, CP */
        }
    }
}

BPC_HD int bpc_passes_of(int variant, int planes)
{
    if (planes <= 0)
        return 0;
    return variant == 1 ? planes : variant == 2 ? 2 * planes - 1 : 3 * planes - 2;
}

/* ---- contexts: indices into one table row (one band, one table plane) ---- */

/* 1 and 2 passes: significance 0..8 (the count of significant neighbours),
 * sign 9..12, refinement 13. 3 passes: SPP significance 0..8 and sign 9..12,
 * refinement 13, CP significance 14..22 and sign 23..26 (Algorithm 8 keeps
 * separate tables for the SPP and the CP). */
#define BPC_CTX_SIG 0
#define BPC_CTX_SIGN 9
#define BPC_CTX_REF 13
#define BPC_CTX_CP_SIG 14
#define BPC_CTX_CP_SIGN 23
#define BPC_NCTX_MAX 27

BPC_HD int bpc_nctx(int variant)
{
    return variant == 3 ? 27 : 14;
}

/* Sign context (thesis eq. 3.2) from chi_v = chi(up) + chi(down) and chi_h =
 * chi(left) + chi(right), chi = 0 (insignificant), +1 or -1; and the sign
 * the neighbours predict (1 = negative). The coded symbol is the sign XOR
 * the prediction, so that the context "same signs" (0) is informative with
 * stationary probabilities (the idea of 15444-1 D.3.2's XORbit). */
BPC_HD int bpc_sign_context(int chi_v, int chi_h, int *predict_negative)
{
    int ctx, pred;
    if ((chi_v > 0 && chi_h > 0) || (chi_v < 0 && chi_h < 0)) {
        ctx = 0;
        pred = chi_v < 0;
    } else if (chi_v == 0 && chi_h != 0) {
        ctx = 1;
        pred = chi_h < 0;
    } else if (chi_v != 0 && chi_h == 0) {
        ctx = 2;
        pred = chi_v < 0;
    } else {
        ctx = 3;
        pred = 0;
    }
    *predict_negative = pred;
    return ctx;
}

/* Table plane of bitplane j. */
BPC_HD int bpc_table_plane(int j, int offset, int table_planes)
{
    const int t = j + offset;
    return t < 0 ? 0 : (t >= table_planes ? table_planes - 1 : t);
}

/* ---- the fixed-length arithmetic coder (W = 16, Pb = 15) ----
 *
 * An interval [L, L + S] of 16-bit integers; S = 0 means the codeword is
 * exhausted (its value is L) or not begun. A new codeword starts at
 * L = 0, S = 0xffff. For p = P(0) * 2^15 in 1..32767, f = (S * p >> 15) + 1
 * values go to 0 and S + 1 - f >= 1 to 1 (S >= 1 and p < 2^15 give
 * S * p >> 15 <= S - 1). S * p < 2^31 fits 32 bits. From S = 0xffff one
 * symbol leaves S >= 1 whatever p is, so every codeword but the last of a
 * coder holds two symbols or more (bpc_codeblock_bound relies on it). */
#define BPC_CODEWORD_FULL 0xffffu

BPC_HD void bpc_ac_encode(uint32_t *L, uint32_t *S, uint32_t p, int bit)
{
    const uint32_t f = ((*S * p) >> 15) + 1;
    if (bit) {
        *L += f;
        *S -= f;
    } else {
        *S = f - 1;
    }
}

BPC_HD int bpc_ac_decode(uint32_t *L, uint32_t *S, uint32_t p, uint32_t codeword)
{
    const uint32_t f = ((*S * p) >> 15) + 1;
    const uint32_t g = *L + f;
    if (codeword >= g) {
        *L = g;
        *S -= f;
        return 1;
    }
    *S = f - 1;
    return 0;
}

/* ---- distortion of coding decisions ----
 *
 * In units of 2^(2j - 2F) squared quantization indices (F = BPC_DIST_FRAC),
 * the reduction of squared error a coding decision at bitplane j brings, with
 * the decoder's reconstruction at the middle of the interval still possible
 * and the coefficient's value taken as v + 1/2 (the middle of its
 * quantization interval). X is that value in units of 2^j with F fractional
 * bits. Integers, so the C and CUDA sums agree exactly; one coefficient's
 * term is below 2^20, a stripe's pass sum (128 coefficients) below 2^27. */
#define BPC_F 8

BPC_HD uint32_t bpc_value_units(uint32_t v, int j)
{
    /* floor((2v + 1) 2^F / 2^(j+1)), exactly; 2v + 1 < 2^30 */
    const uint32_t t = 2 * v + 1;
    return j + 1 >= BPC_F ? t >> (j + 1 - BPC_F) : t << (BPC_F - j - 1);
}

/* The coefficient becomes significant at plane j: from 0 to 1.5 units
 * (v < 2^(j+1), so X < 2^(F+1)). */
BPC_HD int32_t bpc_dist_significant(uint32_t v, int j)
{
    const int32_t x = (int32_t)bpc_value_units(v, j);
    const int32_t e = x - (3 << (BPC_F - 1));
    return x * x - e * e;
}

/* Refinement at plane j: from the middle of [0, 2) units (mod 2) to the
 * middle of the half that bit j names. */
BPC_HD int32_t bpc_dist_refine(uint32_t v, int j)
{
    const int32_t y = (int32_t)(bpc_value_units(v, j) & ((2u << BPC_F) - 1));
    const int32_t before = y - (1 << BPC_F);
    const int32_t after = y - ((int32_t)((v >> j) & 1) << BPC_F) - (1 << (BPC_F - 1));
    return before * before - after * after;
}

#endif
