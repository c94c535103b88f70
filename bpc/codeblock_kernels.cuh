/* The BPC-PaCo code-block coder on the GPU (thesis 4.3, Algorithms 4-8;
 * Bruns Algorithms 8-3 and 8-4): one warp per 64x64 code block, lane t the
 * coder of stripe t (columns 2t and 2t + 1), the 32 lanes in lockstep
 * through the same steps as the C reference (codeblock.c), so both give
 * the same codewords in the same places.
 *
 * Layout: each lane keeps its two columns' state as 64-bit row masks in
 * registers (significance, sign, significance when the plane began, "left
 * for the cleanup pass", the current bitplane of the magnitudes) and the
 * masks of the neighbouring stripes' columns next to its own, brought up to
 * date from the ballot that each step makes of its new significances (and,
 * decoding, of its signs), so that a step needs no shuffle for neighbours.
 * The encoder turns the magnitudes into bitplane masks once (a local array
 * read with the same index in every lane); a pass's distortion comes from
 * population counts of those masks. The probability comes by a __shfl_sync
 * from the lane that holds the current plane's entry for that context (27
 * contexts fit a warp), codeword slots by __ballot_sync and __popc (stripes
 * on the left first). Every warp primitive is executed by all 32 lanes with
 * the full mask: no implicit warp synchrony is relied on. The kernels are
 * made per variant (template argument), with only that variant's passes.
 *
 * Included by gpu_encoder.cu (BPC_KERNELS_ENCODE_ONLY) and gpu_decoder.cu
 * (BPC_KERNELS_DECODE_ONLY); also compiled as host C++ by the emulated tests
 * (tests/bpc/emu), which provide the CUDA built-ins. */
#ifndef XSF_BPC_CODEBLOCK_KERNELS_CUH
#define XSF_BPC_CODEBLOCK_KERNELS_CUH

#include <stdint.h>
#include <string.h>

#include "bpc_internal.h"
#include "coder_rules.h"
#include "colour_rules.h"

#define BPC_FULL_MASK 0xffffffffu

/* Blocks of 128 threads (4 code blocks) per multiprocessor that the 1- and
 * 2-pass encoder kernels' register budget is set for (__launch_bounds__;
 * 1: as ptxas likes). The other kernels are left to ptxas. */
#ifndef BPC_ENC_MIN_BLOCKS
#define BPC_ENC_MIN_BLOCKS 1
#endif

/* Loop unrolling asked of nvcc (the host emulation ignores it). */
#if defined(__CUDACC__)
#define BPC_UNROLL _Pragma("unroll")
#define BPC_UNROLL_4 _Pragma("unroll 4")
#define BPC_UNROLL_NONE _Pragma("unroll 1")
#else
#define BPC_UNROLL
#define BPC_UNROLL_4
#define BPC_UNROLL_NONE
#endif

/* Per code block, what the encoder kernel writes and the rate control reads. */
typedef struct bpc_kenc_params {
    const bpc_cb_desc *cb;
    uint32_t ncb;
    int variant, filter;
    const void *plane[BPC_MAX_COMPONENTS]; /* int32 indices (5/3) or float coefficients (9/7) */
    uint32_t pitch[BPC_MAX_COMPONENTS];    /* elements */
    const float *inv_step;                 /* [comp * BPC_MAX_BANDS + band] (9/7) */
    const uint8_t *planes_bound;           /* [comp * BPC_MAX_BANDS + band] */
    const uint16_t *table;                 /* the variant's [band][table plane][context] */
    int plane_offset;
    const uint64_t *slot; /* byte offset of each code block's bitstream in slots */
    uint8_t *slots;
    uint8_t *planes_out, *passes_out;
    uint32_t *pass_cw;  /* [cb * BPC_MAX_PASSES + pass] */
    int64_t *pass_dist; /* likewise */
    int *error;         /* 1 + index of a code block beyond its bitplane bound */
} bpc_kenc_params;

typedef struct bpc_kdec_entry {
    uint64_t offset; /* in the data */
    uint32_t codewords;
    uint8_t planes, passes, pad[2];
} bpc_kdec_entry;

typedef struct bpc_kdec_params {
    const bpc_cb_desc *cb;
    uint32_t ncb;
    int variant, filter;
    void *plane[BPC_MAX_COMPONENTS];
    uint32_t pitch[BPC_MAX_COMPONENTS];
    const float *half_step; /* [comp * BPC_MAX_BANDS + band] (9/7) */
    const uint16_t *table;
    int plane_offset;
    const uint8_t *data;
    const bpc_kdec_entry *entry;
    int *error; /* 1 + index of a code block whose data is inconsistent */
} bpc_kdec_params;

/* ---- helpers ---- */

/* Rows y-1, y, y+1 of a column mask, as bits 0..2; TOP: y = 0 (row -1 is
 * outside, 0). The row loops take the top row apart, so that the others
 * need one funnel shift. */
template <bool TOP> __device__ __forceinline__ uint32_t bpc_window3(uint64_t m, int y)
{
    return (TOP ? (uint32_t)m << 1 : (uint32_t)(m >> (y - 1))) & 7u;
}

__device__ __forceinline__ uint32_t bpc_bit(uint64_t m, int y)
{
    return (uint32_t)(m >> y) & 1u;
}

__device__ __forceinline__ int bpc_popc64(uint64_t m)
{
    return __popcll((unsigned long long)m);
}

__device__ __forceinline__ int64_t bpc_warp_sum64(int64_t v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += (int64_t)__shfl_xor_sync(BPC_FULL_MASK, (long long)v, off);
    return v;
}

__device__ __forceinline__ uint32_t bpc_warp_or(uint32_t v)
{
    for (int off = 16; off > 0; off >>= 1)
        v |= __shfl_xor_sync(BPC_FULL_MASK, v, off);
    return v;
}

__device__ __forceinline__ uint64_t bpc_warp_or64(uint64_t v)
{
    for (int off = 16; off > 0; off >>= 1)
        v |= (uint64_t)__shfl_xor_sync(BPC_FULL_MASK, (unsigned long long)v, off);
    return v;
}

__device__ __forceinline__ uint32_t bpc_probs_of_plane(const uint16_t *band_table, int j,
                                                       int offset, int lane)
{
    const int tp = bpc_table_plane(j, offset, BPC_TABLE_PLANES);
    return lane < BPC_NCTX_MAX ? band_table[tp * BPC_NCTX_MAX + lane] : 16384u;
}

/* The sign contexts as a table of 256 bytes, indexed by the significance
 * and sign of the four neighbours: bits 2k + 1 and 2k of the index for
 * neighbour k (0 and 3: beside, 1: above, 2: below; bpc_step gathers them
 * so); the entry holds the context of bpc_sign_context (bits 0-1) and the
 * sign it predicts (bit 2). Filled by each block in shared memory. */
__device__ __forceinline__ uint8_t bpc_sign_entry(int i)
{
    int chi[4];
    for (int k = 0; k < 4; k++)
        chi[k] = (i >> (2 * k + 1)) & 1 ? ((i >> (2 * k)) & 1 ? -1 : 1) : 0;
    int pred;
    const int ctx = bpc_sign_context(chi[1] + chi[2], chi[0] + chi[3], &pred);
    return (uint8_t)(ctx | pred << 2);
}

/* Every thread of the block, before any returns. */
__device__ __forceinline__ void bpc_sign_lut_fill(uint8_t *lut)
{
    for (int i = (int)threadIdx.x; i < 256; i += (int)blockDim.x)
        lut[i] = bpc_sign_entry(i);
    __syncthreads();
}

/* ---- the two arithmetic coders of a warp ---- */

/* A codeword: 2 bytes, big-endian, in one store to its slot (code blocks'
 * slots start at even offsets: bpc_codeblock_bound is even). */
__device__ __forceinline__ void bpc_put_codeword(uint16_t *slot, uint32_t L)
{
    *slot = (uint16_t)__byte_perm(L, 0, 0x3201);
}

struct bpc_enc_coder {
    uint32_t L, S, B;
    uint16_t *out;  /* the code block's codeword slots */
    uint16_t *slot; /* the slot of this lane's codeword */
    uint32_t lt;    /* lanes to the left */

    /* One coding step: lanes with `active` code `bit` with p. */
    __device__ __forceinline__ void step(int active, int bit, uint32_t p)
    {
        const int need = active && S == 0;
        const uint32_t bal = __ballot_sync(BPC_FULL_MASK, need);
        if (need) {
            slot = out + B + __popc(bal & lt);
            L = 0;
            S = BPC_CODEWORD_FULL;
        }
        B += __popc(bal);
        if (active) {
            bpc_ac_encode(&L, &S, p, bit);
            if (S == 0)
                bpc_put_codeword(slot, L);
        }
    }
};

__device__ __forceinline__ uint32_t bpc_codeword_at(const uint8_t *data, uint32_t ncw, uint32_t i)
{
    return i < ncw ? ((uint32_t)data[2 * (size_t)i] << 8 | data[2 * (size_t)i + 1]) : 0u;
}

struct bpc_dec_coder {
    uint32_t L, S, I, B;
    uint32_t lt;
    /* the next 64 codewords: lane i holds codeword wbase + i in the low half
     * of win, wbase + 32 + i in the high half (one shuffle reads either) */
    uint32_t wbase, win;
    const uint8_t *data;
    uint32_t ncw;
    int bad;

    __device__ __forceinline__ void start(const uint8_t *d, uint32_t n, int lane)
    {
        L = S = I = B = 0;
        lt = (1u << lane) - 1;
        data = d;
        ncw = n;
        bad = 0;
        wbase = 0;
        const uint32_t lo = bpc_codeword_at(d, n, (uint32_t)lane);
        const uint32_t hi = bpc_codeword_at(d, n, 32u + (uint32_t)lane);
        win = lo | hi << 16;
    }

    /* One decoding step: a lane that needs a codeword takes the next slot
     * (stripes on the left first), from the window by shuffle. */
    __device__ __forceinline__ int step(int active, uint32_t p, int lane)
    {
        const int need = active && S == 0;
        const uint32_t bal = __ballot_sync(BPC_FULL_MASK, need);
        /* bal is the same in every lane */
        if (bal) {
            const uint32_t off = B - wbase + __popc(bal & lt); /* < 64: B - wbase < 32 */
            const uint32_t w = __shfl_sync(BPC_FULL_MASK, win, (int)(off & 31u));
            if (need) {
                if (wbase + off >= ncw)
                    bad = 1;
                I = off < 32 ? (w & 0xffffu) : (w >> 16);
                L = 0;
                S = BPC_CODEWORD_FULL;
            }
            B += __popc(bal);
            if (B - wbase >= 32) { /* the window moves on by 32 codewords */
                wbase += 32;
                win = win >> 16 | bpc_codeword_at(data, ncw, wbase + 32 + (uint32_t)lane) << 16;
            }
        }
        return active ? bpc_ac_decode(&L, &S, p, I) : 0;
    }
};

/* ---- one lane's state and the coding passes, shared by both kernels ---- */

struct bpc_lane {
    uint64_t sig[2], neg[2];
    uint64_t plane_sig[2]; /* significant when this plane began */
    uint64_t cp[2];        /* left for this plane's cleanup pass */
    uint64_t bits[2]; /* encoder: this plane's magnitude bits; decoder: the bits decoded in it */
    uint64_t vis[2];  /* decoder: coded in this plane */
    int h;            /* the rows of the block */
    uint32_t present; /* bit c: column c is inside the block */
    const uint8_t *sign_lut; /* bpc_sign_entry, in shared memory */
    /* The neighbouring stripes' columns next to ours: [0] column 2t - 1
     * (lane t - 1's column 1), [1] column 2t + 2 (lane t + 1's column 0).
     * Kept up to date from the ballots of the steps that change them, so
     * that a step needs no shuffle for its neighbours. The encoder knows
     * every sign from the start; the decoder's come with step B. */
    uint64_t nsig[2], nneg[2];

    /* the rows of column c (0 if it is outside the block) */
    __device__ __forceinline__ uint64_t col(int c) const
    {
        return (present >> c) & 1 ? (h == 64 ? ~(uint64_t)0 : ((uint64_t)1 << h) - 1) : 0;
    }
};

/* Of a ballot of step c, the bit of the stripe whose column is nsig[1 - c]:
 * lane t + 1 at c = 0, lane t - 1 at c = 1 (0 at the edges). */
__device__ __forceinline__ uint32_t bpc_neighbour_bit(uint32_t bal, int c, int lane)
{
    return (c == 0 ? (bal >> lane) >> 1 : (bal << 1) >> lane) & 1u;
}

/* The neighbourhood of row y in one word: rows y-1..y+1 of the four
 * columns 2t - 1 .. 2t + 2 (nsig[0], sig[0], sig[1], nsig[1]), 3 bits each
 * from bit 0; their signs likewise from bit 12 (nneg[0], neg[0], neg[1],
 * nneg[1]); bits 24 and 25: columns 2t and 2t + 1 inside the block. */
template <bool TOP> __device__ __forceinline__ uint32_t bpc_around(const bpc_lane &s, int y)
{
    const uint32_t sig = bpc_window3<TOP>(s.nsig[0], y) | bpc_window3<TOP>(s.sig[0], y) << 3 |
                         bpc_window3<TOP>(s.sig[1], y) << 6 | bpc_window3<TOP>(s.nsig[1], y) << 9;
    const uint32_t neg = bpc_window3<TOP>(s.nneg[0], y) | bpc_window3<TOP>(s.neg[0], y) << 3 |
                         bpc_window3<TOP>(s.neg[1], y) << 6 | bpc_window3<TOP>(s.nneg[1], y) << 9;
    return sig | neg << 12 | s.present << 24;
}

/* One step (row y, column c): step A (significance or, in the ONE pass, also
 * refinement), then step B (signs) if any lane needs one. `around` is the
 * row's bpc_around, brought up to date for the next step. Returns whether
 * some lane became significant. */
template <int TYPE, bool DEC, bool TOP, class AC>
__device__ __forceinline__ int bpc_step(bpc_lane &s, AC &ac, uint32_t probs, int y, int c,
                                        uint32_t &around, int lane)
{
    const int e = 1 - c;
    const uint64_t at = (uint64_t)1 << y;
    /* own column at 3 (c + 1), the other at 3 (2 - c), the neighbour's at 0 or 9 */
    const uint32_t ctx_mask = c == 0 ? 0x1efu : 0xf78u;
    const int ctx = __popc(around & ctx_mask);
    const int present = (int)((around >> (24 + c)) & 1),
              is_sig = (int)((around >> (3 * c + 4)) & 1);
    int active, refine = 0, cidx = BPC_CTX_SIG + ctx;
    if (TYPE == BPC_PASS_SIG) {
        active = present && !is_sig;
    } else if (TYPE == BPC_PASS_SPP) {
        active = present && !is_sig && ctx != 0;
        if (present && !is_sig && ctx == 0)
            s.cp[c] |= at;
    } else if (TYPE == BPC_PASS_CP) {
        active = (int)bpc_bit(s.cp[c], y);
        s.cp[c] &= ~at;
        cidx = BPC_CTX_CP_SIG + ctx;
    } else { /* BPC_PASS_ONE */
        active = present;
        refine = is_sig;
        if (is_sig)
            cidx = BPC_CTX_REF;
    }
    const uint32_t p = __shfl_sync(BPC_FULL_MASK, probs, cidx);
    int bit;
    if constexpr (DEC) {
        bit = ac.step(active, p, lane);
        if (active) {
            s.vis[c] |= at;
            s.bits[c] |= (uint64_t)bit << y;
        }
    } else {
        bit = (int)bpc_bit(s.bits[c], y);
        ac.step(active, bit, p);
    }
    const int newsig = active && !refine && bit;
    const uint32_t fresh = __ballot_sync(BPC_FULL_MASK, newsig);
    if (!fresh)
        return 0;
    const uint32_t from = bpc_neighbour_bit(fresh, c, lane);
    if (newsig)
        s.sig[c] |= at;
    if (from)
        s.nsig[e] |= at;
    /* step B, with the neighbours as they are now: rows y - 1 and y + 1 of
     * column c and row y of the columns beside it (none changed in step A).
     * Seen from column c, they sit at the same bits of `around` >> 3c for
     * either column: significance at bits 1, 3, 5, 7, signs 12 above. */
    const uint32_t nbh = around >> (3 * c);
    const uint32_t sign = s.sign_lut[(nbh & 0xaau) | ((nbh >> 13) & 0x55u)];
    const int pred = (int)((sign >> 2) & 1);
    const int sbase = TYPE == BPC_PASS_CP ? BPC_CTX_CP_SIGN : BPC_CTX_SIGN;
    const uint32_t ps = __shfl_sync(BPC_FULL_MASK, probs, newsig ? sbase + (int)(sign & 3) : 0);
    if constexpr (DEC) {
        const int sym = ac.step(newsig, ps, lane); /* every lane: a warp primitive */
        const int negative = newsig && (sym ^ pred);
        if (negative)
            s.neg[c] |= at;
        const uint32_t nfrom = bpc_neighbour_bit(__ballot_sync(BPC_FULL_MASK, negative), c, lane);
        if (nfrom)
            s.nneg[e] |= at;
        around |= (uint32_t)negative << (16 + 3 * c) | nfrom << (c == 0 ? 22 : 13);
    } else {
        ac.step(newsig, (int)((around >> (16 + 3 * c)) & 1) ^ pred, ps);
    }
    /* for the next step: this column's new significance, the neighbour's
     * (and, above, their signs) */
    around |= (uint32_t)newsig << (3 * c + 4) | from << (c == 0 ? 10 : 1);
    return 1;
}

/* One row of a pass: column 0's step, then column 1's, each only where some
 * lane has a symbol (cols: bit c). Returns whether some lane became
 * significant. */
template <int TYPE, bool DEC, bool TOP, class AC>
__device__ __forceinline__ int bpc_row(bpc_lane &s, AC &ac, uint32_t probs, int y, uint32_t cols,
                                       int lane)
{
    uint32_t around = bpc_around<TOP>(s, y);
    int any = 0;
    if (cols & 1)
        any |= bpc_step<TYPE, DEC, TOP>(s, ac, probs, y, 0, around, lane);
    if (cols & 2)
        any |= bpc_step<TYPE, DEC, TOP>(s, ac, probs, y, 1, around, lane);
    return any;
}

/* A refinement step (MRP): lanes with bit y of ref code their bit with p. */
template <bool DEC, class AC>
__device__ __forceinline__ void bpc_refine_step(bpc_lane &s, AC &ac, uint32_t p, uint64_t ref,
                                                int y, int c, int lane)
{
    const int active = (int)bpc_bit(ref, y);
    if constexpr (DEC) {
        const int bit = ac.step(active, p, lane);
        if (active) {
            s.vis[c] |= (uint64_t)1 << y;
            s.bits[c] |= (uint64_t)bit << y;
        }
    } else {
        ac.step(active, (int)bpc_bit(s.bits[c], y), p);
    }
}

/* The encoder's distortion of a pass, from the bitplane masks (bit y of
 * pm[k][c]: bit k of the magnitude at row y, column c) once the pass is
 * over: refinements r0, r1 of the coefficients significant before it (MRP,
 * ONE) and new significances n0, n1. With X = bpc_value_units(v, j), whose
 * bit i is bit j - F + i of v (bit -1: the 1/2 of the interval), the terms
 * of coder_rules.h are linear in X: a new significance gives
 * X^2 - (X - 3 2^(F-1))^2 = 3 2^F X - 9 2^(2F-2), a refinement with
 * X mod 2^(F+1) = b 2^F + r gives 2^F r - 2^(2F-2) (b = 1) or
 * 3 2^(2F-2) - 2^F r (b = 0). So a stripe's sum is a weighted sum of
 * population counts of the sets with the planes j - F .. j: the same
 * integers as coefficient by coefficient (codeblock.c). */
__device__ __forceinline__ int32_t bpc_pass_distortion(const uint64_t (*pm)[2], int j, uint64_t r0,
                                                       uint64_t r1, uint64_t n0, uint64_t n1)
{
    const uint64_t up0 = r0 & pm[j][0], up1 = r1 & pm[j][1]; /* refined to 1 */
    const uint64_t down0 = r0 & ~pm[j][0], down1 = r1 & ~pm[j][1];
    int32_t x = 0, r = 0; /* sums of X over the new, of +-r over the refined */
    BPC_UNROLL_NONE
    for (int i = 0; i <= BPC_F; i++) {
        const int k = j - BPC_F + i;
        if (k < -1)
            continue;
        const uint64_t m0 = k < 0 ? ~(uint64_t)0 : pm[k][0], m1 = k < 0 ? ~(uint64_t)0 : pm[k][1];
        x += (bpc_popc64(n0 & m0) + bpc_popc64(n1 & m1)) * (1 << i);
        if (i < BPC_F)
            r += (bpc_popc64(up0 & m0) + bpc_popc64(up1 & m1) - bpc_popc64(down0 & m0) -
                  bpc_popc64(down1 & m1)) *
                 (1 << i);
    }
    const int32_t q = 1 << (2 * BPC_F - 2);
    return 3 * (1 << BPC_F) * x - 9 * q * (bpc_popc64(n0) + bpc_popc64(n1)) + (1 << BPC_F) * r -
           q * (bpc_popc64(up0) + bpc_popc64(up1)) +
           3 * q * (bpc_popc64(down0) + bpc_popc64(down1));
}

/* One coding pass at plane j; returns the encoder's distortion of it (pm:
 * the bitplane masks, encoder only). Rows, and columns of a row, in which
 * no lane has a symbol to code are skipped (all lanes agree: the masks are
 * OR-ed over the warp): they would code nothing, so the codewords are those
 * of the full scan. */
template <int TYPE, bool DEC, class AC>
__device__ __forceinline__ int32_t bpc_pass(bpc_lane &s, AC &ac, const uint64_t (*pm)[2],
                                            uint32_t probs, int j, int h, int lane)
{
    /* significant before the pass: when the plane began, but for the
     * cleanup, which follows the SPP */
    const uint64_t before0 = TYPE == BPC_PASS_CP ? s.sig[0] : s.plane_sig[0];
    const uint64_t before1 = TYPE == BPC_PASS_CP ? s.sig[1] : s.plane_sig[1];
    if (TYPE == BPC_PASS_MRP) {
        const uint64_t ref0 = s.plane_sig[0], ref1 = s.plane_sig[1];
        const uint32_t p = __shfl_sync(BPC_FULL_MASK, probs, BPC_CTX_REF);
        const uint64_t rows0 = bpc_warp_or64(ref0), rows1 = bpc_warp_or64(ref1);
        for (int half = 0; half < 64; half += 32) { /* 32-bit masks: one instruction finds a row */
            const uint32_t r0 = (uint32_t)(rows0 >> half), r1 = (uint32_t)(rows1 >> half);
            for (uint32_t r = r0 | r1; r; r &= r - 1) {
                const int b = __ffs((int)r) - 1;
                if ((r0 >> b) & 1)
                    bpc_refine_step<DEC>(s, ac, p, ref0, half + b, 0, lane);
                if ((r1 >> b) & 1)
                    bpc_refine_step<DEC>(s, ac, p, ref1, half + b, 1, lane);
            }
        }
    } else if (TYPE == BPC_PASS_SPP) {
        /* a row can code only with significance in rows y-1..y+1; the SPP's
         * own new significance is added as it happens */
        uint64_t anysig = bpc_warp_or64(s.sig[0] | s.sig[1]), skipped = 0;
        if (anysig & 3)
            anysig |= (uint64_t)bpc_row<TYPE, DEC, true>(s, ac, probs, 0, 3u, lane);
        else
            skipped = 1;
        for (int y = 1; y < h; y++) {
            if (!bpc_window3<false>(anysig, y)) {
                skipped |= (uint64_t)1 << y;
                continue;
            }
            anysig |= (uint64_t)bpc_row<TYPE, DEC, false>(s, ac, probs, y, 3u, lane) << y;
        }
        /* the skipped rows' insignificant coefficients go to the cleanup */
        s.cp[0] |= skipped & s.col(0) & ~s.sig[0];
        s.cp[1] |= skipped & s.col(1) & ~s.sig[1];
    } else {
        uint64_t rows0, rows1;
        if (TYPE == BPC_PASS_SIG) {
            rows0 = bpc_warp_or64(s.col(0) & ~s.sig[0]);
            rows1 = bpc_warp_or64(s.col(1) & ~s.sig[1]);
        } else if (TYPE == BPC_PASS_CP) {
            rows0 = bpc_warp_or64(s.cp[0]);
            rows1 = bpc_warp_or64(s.cp[1]);
        } else {
            rows0 = bpc_warp_or64(s.col(0));
            rows1 = bpc_warp_or64(s.col(1));
        }
        if ((rows0 | rows1) & 1)
            bpc_row<TYPE, DEC, true>(s, ac, probs, 0,
                                     (uint32_t)(rows0 & 1) | (uint32_t)(rows1 & 1) << 1, lane);
        for (int half = 0; half < 64; half += 32) { /* 32-bit masks: one instruction finds a row */
            const uint32_t r0 = (uint32_t)(rows0 >> half), r1 = (uint32_t)(rows1 >> half);
            for (uint32_t r = (r0 | r1) & (half ? ~0u : ~1u); r; r &= r - 1) {
                const int b = __ffs((int)r) - 1;
                bpc_row<TYPE, DEC, false>(s, ac, probs, half + b,
                                          ((r0 >> b) & 1) | ((r1 >> b) & 1) << 1, lane);
            }
        }
    }
    if constexpr (DEC) {
        return 0;
    } else {
        /* refined: significant before the plane; new: since the pass began */
        const int refines = TYPE == BPC_PASS_MRP || TYPE == BPC_PASS_ONE;
        const int news = TYPE != BPC_PASS_MRP;
        return bpc_pass_distortion(pm, j, refines ? s.plane_sig[0] : 0,
                                   refines ? s.plane_sig[1] : 0, news ? s.sig[0] & ~before0 : 0,
                                   news ? s.sig[1] & ~before1 : 0);
    }
}

/* The pass `type` of the variant (each kernel is made for one variant:
 * only its passes, only its state). */
template <int VARIANT, bool DEC, class AC>
__device__ __forceinline__ int32_t bpc_pass_of_type(int type, bpc_lane &s, AC &ac,
                                                    const uint64_t (*pm)[2], uint32_t probs, int j,
                                                    int h, int lane)
{
    if constexpr (VARIANT == 1)
        return bpc_pass<BPC_PASS_ONE, DEC>(s, ac, pm, probs, j, h, lane);
    else if constexpr (VARIANT == 2)
        return type == BPC_PASS_SIG ? bpc_pass<BPC_PASS_SIG, DEC>(s, ac, pm, probs, j, h, lane)
                                    : bpc_pass<BPC_PASS_MRP, DEC>(s, ac, pm, probs, j, h, lane);
    else
        return type == BPC_PASS_SPP   ? bpc_pass<BPC_PASS_SPP, DEC>(s, ac, pm, probs, j, h, lane)
               : type == BPC_PASS_MRP ? bpc_pass<BPC_PASS_MRP, DEC>(s, ac, pm, probs, j, h, lane)
                                      : bpc_pass<BPC_PASS_CP, DEC>(s, ac, pm, probs, j, h, lane);
}

__device__ __forceinline__ void bpc_lane_init(bpc_lane &s, const uint8_t *sign_lut, int variant,
                                              int w, int h, int lane)
{
    s.sign_lut = sign_lut;
    s.h = h;
    s.present = (2 * lane < w ? 1u : 0u) | (2 * lane + 1 < w ? 2u : 0u);
    for (int c = 0; c < 2; c++) {
        s.sig[c] = s.neg[c] = s.plane_sig[c] = s.bits[c] = s.vis[c] = s.nsig[c] = s.nneg[c] = 0;
        s.cp[c] = variant == 3 ? s.col(c) : 0; /* the top plane is all cleanup */
    }
}

/* The coding passes of one block in their order (bpc_pass_at): the one walk
 * both kernels make, so that the decoder reads what the encoder wrote. When
 * bitplane j begins, begin(j, ended) runs first (ended: the plane before,
 * -1 at the start), then the significance at j's start and j's
 * probabilities are taken; after pass p, done(p, dacc) (dacc: the lane's
 * share of the pass's distortion, bpc_pass) says whether to stop there.
 * Returns the last plane begun (-1: none). */
template <int VARIANT, bool DEC, class AC, class BEGIN, class DONE>
__device__ __forceinline__ int
bpc_code_passes(bpc_lane &s, AC &ac, const uint64_t (*pm)[2], const uint16_t *band_table,
                int plane_offset, int planes, int npasses, int h, int lane, BEGIN begin, DONE done)
{
    uint32_t probs = 0;
    int plane = -1;
    for (int p = 0; p < npasses; p++) {
        int j, type;
        bpc_pass_at(VARIANT, planes, p, &j, &type);
        if (j != plane) {
            begin(j, plane);
            plane = j;
            s.plane_sig[0] = s.sig[0];
            s.plane_sig[1] = s.sig[1];
            probs = bpc_probs_of_plane(band_table, j, plane_offset, lane);
        }
        if (done(p, bpc_pass_of_type<VARIANT, DEC>(type, s, ac, pm, probs, j, h, lane)))
            break;
    }
    return plane;
}

/* ---- encoder ---- */

#ifndef BPC_KERNELS_DECODE_ONLY
static_assert(BPC_MAX_PLANES % 4 == 0, "bitplane masks are made four at a time");

template <int VARIANT>
__global__ void __launch_bounds__(128, VARIANT == 3 ? 1 : BPC_ENC_MIN_BLOCKS)
    bpc_encode_kernel(bpc_kenc_params k)
{
    __shared__ uint8_t sign_lut[256];
    bpc_sign_lut_fill(sign_lut);
    const int lane = (int)(threadIdx.x & 31);
    const uint32_t cbi = (uint32_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (cbi >= k.ncb)
        return; /* whole warps only: the grid covers code blocks by warps */
    const bpc_cb_desc d = k.cb[cbi];
    const int w = (int)d.w, h = (int)d.h;
    const uint32_t bi = d.comp * BPC_MAX_BANDS + d.band;

    /* load: lane t holds columns 2t, 2t + 1; rows and columns outside the
     * block are 0. Four rows' words (int32 or float) are read before any
     * is used, so that their loads are in flight together. */
    uint32_t magv[2][BPC_CODEBLOCK];
    bpc_lane s;
    bpc_lane_init(s, sign_lut, VARIANT, w, h, lane);
    uint32_t all = 0;
    const uint32_t pitch = k.pitch[d.comp];
    const float inv = k.filter ? k.inv_step[bi] : 0.0f;
    const uint32_t *words =
        (const uint32_t *)k.plane[d.comp] + (size_t)d.y0 * pitch + d.x0 + 2 * lane;
    for (int y0 = 0; y0 < BPC_CODEBLOCK; y0 += 4) {
        uint32_t word[4][2];
        BPC_UNROLL
        for (int i = 0; i < 4; i++) {
            BPC_UNROLL
            for (int c = 0; c < 2; c++)
                word[i][c] =
                    2 * lane + c < w && y0 + i < h ? words[(size_t)(y0 + i) * pitch + c] : 0u;
        }
        BPC_UNROLL
        for (int i = 0; i < 4; i++) {
            BPC_UNROLL
            for (int c = 0; c < 2; c++) {
                int32_t v = (int32_t)word[i][c];
                if (k.filter) {
                    float f;
                    memcpy(&f, &word[i][c], sizeof f);
                    v = bpc_quantize(f, inv);
                }
                const uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
                magv[c][y0 + i] = m;
                s.neg[c] |= (uint64_t)(v < 0) << (y0 + i);
                all |= m;
            }
        }
    }
    all = bpc_warp_or(all);
    const int planes = all ? 32 - __clz(all) : 0;
    if (planes > k.planes_bound[bi]) {
        if (lane == 0)
            atomicMax(k.error, (int)cbi + 1);
        return;
    }
    /* every sign is known: the neighbours' once */
    s.nneg[0] = (uint64_t)__shfl_up_sync(BPC_FULL_MASK, (unsigned long long)s.neg[1], 1);
    s.nneg[1] = (uint64_t)__shfl_down_sync(BPC_FULL_MASK, (unsigned long long)s.neg[0], 1);
    if (lane == 0)
        s.nneg[0] = 0;
    if (lane == 31)
        s.nneg[1] = 0;

    /* the magnitudes as bitplane masks: bit y of pm[j][c] is bit j of the
     * magnitude at row y, column c (the coder's bits and the distortion) */
    uint64_t pm[BPC_MAX_PLANES][2];
    for (int j = 0; j < planes; j += 4) {
        uint64_t acc[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
        BPC_UNROLL_4
        for (int y = 0; y < BPC_CODEBLOCK; y++) {
            BPC_UNROLL
            for (int c = 0; c < 2; c++) {
                const uint32_t m = magv[c][y] >> j;
                BPC_UNROLL
                for (int i = 0; i < 4; i++)
                    acc[i][c] |= (uint64_t)((m >> i) & 1u) << y;
            }
        }
        BPC_UNROLL
        for (int i = 0; i < 4; i++) {
            pm[j + i][0] = acc[i][0];
            pm[j + i][1] = acc[i][1];
        }
    }

    const int npasses = bpc_passes_of(VARIANT, planes);
    if (lane == 0) {
        k.planes_out[cbi] = (uint8_t)planes;
        k.passes_out[cbi] = (uint8_t)npasses;
    }
    const uint16_t *band_table = k.table + (size_t)d.table_band * BPC_TABLE_PLANES * BPC_NCTX_MAX;
    bpc_enc_coder ac;
    ac.L = ac.S = ac.B = 0;
    ac.out = ac.slot = (uint16_t *)(k.slots + k.slot[cbi]);
    ac.lt = (1u << lane) - 1;
    /* a plane begins: its magnitude bits */
    auto plane_bits = [&](int j, int) {
        s.bits[0] = pm[j][0];
        s.bits[1] = pm[j][1];
    };
    /* a pass ends: its codewords and distortion kept */
    auto pass_end = [&](int p, int32_t dacc) {
        const int64_t dist = bpc_warp_sum64(dacc);
        if (lane == 0) {
            k.pass_cw[(size_t)cbi * BPC_MAX_PASSES + p] = ac.B;
            k.pass_dist[(size_t)cbi * BPC_MAX_PASSES + p] = dist;
        }
        return false;
    };
    bpc_code_passes<VARIANT, false>(s, ac, pm, band_table, k.plane_offset, planes, npasses, h, lane,
                                    plane_bits, pass_end);
    if (ac.S) /* the coders' last codewords */
        bpc_put_codeword(ac.slot, ac.L);
}

#endif

/* ---- decoder ---- */

#ifndef BPC_KERNELS_ENCODE_ONLY
template <int VARIANT> __global__ void __launch_bounds__(128) bpc_decode_kernel(bpc_kdec_params k)
{
    __shared__ uint8_t sign_lut[256];
    bpc_sign_lut_fill(sign_lut);
    const int lane = (int)(threadIdx.x & 31);
    const uint32_t cbi = (uint32_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (cbi >= k.ncb)
        return;
    const bpc_cb_desc d = k.cb[cbi];
    const bpc_kdec_entry en = k.entry[cbi];
    const int w = (int)d.w, h = (int)d.h;
    const int planes = en.planes, npasses = en.passes;
    const uint16_t *band_table = k.table + (size_t)d.table_band * BPC_TABLE_PLANES * BPC_NCTX_MAX;

    bpc_dec_coder ac;
    ac.start(k.data + en.offset, en.codewords, lane);

    uint64_t pd[BPC_MAX_PLANES][2]; /* decoded magnitude bits, per plane */
    bpc_lane s;
    bpc_lane_init(s, sign_lut, VARIANT, w, h, lane);
    for (int j = 0; j < planes; j++)
        pd[j][0] = pd[j][1] = 0;
    /* a plane begins: the bits decoded in the one before kept */
    auto plane_ended = [&](int, int ended) {
        if (ended >= 0) {
            pd[ended][0] = s.bits[0];
            pd[ended][1] = s.bits[1];
        }
        s.vis[0] = s.vis[1] = s.bits[0] = s.bits[1] = 0;
    };
    /* a pass ends: stop where the data ran out or went wrong */
    auto pass_end = [&](int, int32_t) { return __any_sync(BPC_FULL_MASK, ac.bad) != 0; };
    const int plane =
        bpc_code_passes<VARIANT, true>(s, ac, (const uint64_t(*)[2])0, band_table, k.plane_offset,
                                       planes, npasses, h, lane, plane_ended, pass_end);
    if (plane >= 0) {
        pd[plane][0] = s.bits[0];
        pd[plane][1] = s.bits[1];
    }
    const int bad = __any_sync(BPC_FULL_MASK, ac.bad || ac.B != ac.ncw);
    if (bad && lane == 0)
        atomicMax(k.error, (int)cbi + 1);

    /* reconstruction: 2|v| + 2^p with p the last plane decoded for it; the
     * magnitudes of 8 rows at a time from the bitplane masks */
    const int last = plane < 0 ? 0 : plane;
    const uint32_t pitch = k.pitch[d.comp];
    const float half = k.filter ? k.half_step[d.comp * BPC_MAX_BANDS + d.band] : 0.0f;
    for (int y0 = 0; y0 < h; y0 += 8) {
        uint32_t m[2][8] = {};
        for (int jj = planes - 1; jj >= last; jj--) {
            BPC_UNROLL
            for (int c = 0; c < 2; c++) {
                const uint32_t rowbits = (uint32_t)(pd[jj][c] >> y0);
                BPC_UNROLL
                for (int i = 0; i < 8; i++)
                    m[c][i] = m[c][i] << 1 | ((rowbits >> i) & 1u);
            }
        }
        BPC_UNROLL
        for (int i = 0; i < 8; i++) {
            BPC_UNROLL
            for (int c = 0; c < 2; c++) {
                const int x = 2 * lane + c, y = y0 + i;
                if (x >= w || y >= h)
                    continue;
                int32_t r = 0;
                if (!bad && bpc_bit(s.sig[c], y)) {
                    const int pl = bpc_bit(s.vis[c], y) ? last : last + 1;
                    r = (int32_t)(2 * (m[c][i] << last) + ((uint32_t)1 << pl));
                    if (bpc_bit(s.neg[c], y))
                        r = -r;
                }
                const size_t at = (size_t)(d.y0 + y) * pitch + d.x0 + x;
                if (k.filter)
                    ((float *)k.plane[d.comp])[at] = bpc_dequantize_float(r, half);
                else
                    ((int32_t *)k.plane[d.comp])[at] = bpc_dequantize_int(r);
            }
        }
    }
}

#endif

#endif
