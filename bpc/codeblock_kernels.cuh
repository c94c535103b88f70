/* The BPC-PaCo code-block coder on the GPU (thesis 4.3, Algorithms 4-8;
 * Bruns Algorithms 8-3 and 8-4): one warp per 64x64 code block, lane t the
 * coder of stripe t (columns 2t and 2t + 1), the 32 lanes in lockstep
 * through the same steps as the C reference (codeblock.c), so both give
 * the same codewords in the same places.
 *
 * Layout: each lane keeps its two columns' state as 64-bit row masks in
 * registers (significance, sign, "became significant in this plane",
 * "left for the cleanup pass", the current bitplane of the magnitudes), the
 * magnitudes in a local array. The state of the neighbouring stripe comes by
 * one __shfl_up_sync / __shfl_down_sync per step (three rows of one column
 * and a sign), the probability by a __shfl_sync from the lane that holds the
 * current plane's entry for that context (27 contexts fit a warp), codeword
 * slots by __ballot_sync and __popc (stripes on the left first). Every warp
 * primitive is executed by all 32 lanes with the full mask: no implicit warp
 * synchrony is relied on.
 *
 * Included by gpu_encoder.cu (BPC_KERNELS_ENCODE_ONLY) and gpu_decoder.cu
 * (BPC_KERNELS_DECODE_ONLY); also compiled as host C++ by the emulated tests
 * (tests/bpc/emu), which provide the CUDA built-ins. */
#ifndef XSF_BPC_CODEBLOCK_KERNELS_CUH
#define XSF_BPC_CODEBLOCK_KERNELS_CUH

#include <stdint.h>

#include "bpc_internal.h"
#include "coder_rules.h"
#include "colour_rules.h"

#define BPC_FULL_MASK 0xffffffffu

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
    uint32_t *pass_cw;   /* [cb * BPC_MAX_PASSES + pass] */
    int64_t *pass_dist;  /* likewise */
    int *error;          /* 1 + index of a code block beyond its bitplane bound */
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

/* Rows y-1, y, y+1 of a column mask, as bits 0..2. */
__device__ __forceinline__ uint32_t bpc_window3(uint64_t m, int y)
{
    return (uint32_t)(y ? (m >> (y - 1)) : (m << 1)) & 7u;
}

/* chi of row `row` (may be -1 or 64: outside, 0). */
__device__ __forceinline__ int bpc_chi(uint64_t sig, uint64_t neg, int row)
{
    if (row < 0 || row > 63 || !((sig >> row) & 1))
        return 0;
    return ((neg >> row) & 1) ? -1 : 1;
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

/* The neighbouring stripe's column next to ours at step c: rows y-1..y+1 of
 * its significance (bits 0..2) and its sign at y (bit 3). Lane t exports its
 * column 1 for lane t + 1 at c = 0, its column 0 for lane t - 1 at c = 1. */
__device__ __forceinline__ uint32_t bpc_neighbour(uint64_t sig_e, uint64_t neg_e, int y, int c, int lane)
{
    const uint32_t mine = bpc_window3(sig_e, y) | (uint32_t)((neg_e >> y) & 1) << 3;
    uint32_t nb;
    if (c == 0) {
        nb = __shfl_up_sync(BPC_FULL_MASK, mine, 1);
        if (lane == 0)
            nb = 0;
    } else {
        nb = __shfl_down_sync(BPC_FULL_MASK, mine, 1);
        if (lane == 31)
            nb = 0;
    }
    return nb;
}

__device__ __forceinline__ uint32_t bpc_probs_of_plane(const uint16_t *band_table, int j, int offset, int lane)
{
    const int tp = bpc_table_plane(j, offset, BPC_TABLE_PLANES);
    return lane < BPC_NCTX_MAX ? band_table[tp * BPC_NCTX_MAX + lane] : 16384u;
}

/* ---- the two arithmetic coders of a warp ---- */

struct bpc_enc_coder {
    uint32_t L, S, pos, B;
    uint8_t *out;
    uint32_t lt; /* lanes to the left */

    /* One coding step: lanes with `active` code `bit` with p. */
    __device__ __forceinline__ void step(int active, int bit, uint32_t p)
    {
        const int need = active && S == 0;
        const uint32_t bal = __ballot_sync(BPC_FULL_MASK, need);
        if (need) {
            pos = B + __popc(bal & lt);
            L = 0;
            S = BPC_CODEWORD_FULL;
        }
        B += __popc(bal);
        if (active) {
            bpc_ac_encode(&L, &S, p, bit);
            if (S == 0) {
                out[2 * (size_t)pos] = (uint8_t)(L >> 8);
                out[2 * (size_t)pos + 1] = (uint8_t)L;
            }
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
    uint32_t wbase, win, nxt; /* lane i holds codewords wbase + i and wbase + 32 + i */
    const uint8_t *data;
    uint32_t ncw;
    int bad;

    /* One decoding step: a lane that needs a codeword takes the next slot
     * (stripes on the left first), from the two windows by shuffle. */
    __device__ __forceinline__ int step(int active, uint32_t p, int lane)
    {
        const int need = active && S == 0;
        const uint32_t bal = __ballot_sync(BPC_FULL_MASK, need);
        const uint32_t slot = B + __popc(bal & lt);
        const uint32_t at = (slot - wbase) & 31u;
        const uint32_t a = __shfl_sync(BPC_FULL_MASK, win, (int)at);
        const uint32_t b = __shfl_sync(BPC_FULL_MASK, nxt, (int)at);
        if (need) {
            if (slot >= ncw)
                bad = 1;
            I = slot - wbase < 32 ? a : b;
            L = 0;
            S = BPC_CODEWORD_FULL;
        }
        B += __popc(bal);
        int bit = 0;
        if (active)
            bit = bpc_ac_decode(&L, &S, p, I);
        if (B - wbase >= 32) { /* the windows move on by 32 codewords */
            wbase += 32;
            win = nxt;
            nxt = bpc_codeword_at(data, ncw, wbase + 32 + (uint32_t)lane);
        }
        return bit;
    }
};

/* ---- one lane's state and the coding passes, shared by both kernels ---- */

struct bpc_lane {
    uint64_t sig[2], neg[2];
    uint64_t fresh[2]; /* became significant in this plane */
    uint64_t cp[2];    /* left for this plane's cleanup pass */
    uint64_t bits[2];  /* encoder: this plane's magnitude bits; decoder: the bits decoded in it */
    uint64_t vis[2];   /* decoder: coded in this plane */
    uint64_t col[2];   /* the rows of the column (0 if it is outside the block) */
    int32_t dacc;      /* encoder: the last pass' distortion, this stripe */
};

/* One step (row y, column c): step A (significance or refinement), then step
 * B (signs) if any lane needs one. Returns whether some lane became
 * significant. The refinement pass needs neither the neighbours nor signs. */
template <int TYPE, bool DEC, class AC>
__device__ __forceinline__ int bpc_step(bpc_lane &s, AC &ac, uint32_t probs, int y, int c, int lane)
{
    const uint64_t at = (uint64_t)1 << y;
    if (TYPE == BPC_PASS_MRP) {
        const int active = (int)(((s.sig[c] & ~s.fresh[c]) >> y) & 1);
        const uint32_t p = __shfl_sync(BPC_FULL_MASK, probs, BPC_CTX_REF);
        if constexpr (DEC) {
            const int bit = ac.step(active, p, lane);
            if (active) {
                s.vis[c] |= at;
                s.bits[c] |= (uint64_t)bit << y;
            }
        } else {
            ac.step(active, (int)((s.bits[c] >> y) & 1), p);
        }
        return 0;
    }
    const int e = 1 - c;
    const uint32_t nb = bpc_neighbour(s.sig[e], s.neg[e], y, c, lane);
    const uint32_t own = bpc_window3(s.sig[c], y);
    const int ctx = __popc(own & 5u) + __popc(bpc_window3(s.sig[e], y)) + __popc(nb & 7u);
    const int present = (int)((s.col[c] >> y) & 1), is_sig = (int)((own >> 1) & 1);
    int active, refine = 0, cidx = BPC_CTX_SIG + ctx;
    if (TYPE == BPC_PASS_SIG) {
        active = present && !is_sig;
    } else if (TYPE == BPC_PASS_SPP) {
        active = present && !is_sig && ctx != 0;
        if (present && !is_sig && ctx == 0)
            s.cp[c] |= at;
    } else if (TYPE == BPC_PASS_CP) {
        active = (int)((s.cp[c] >> y) & 1);
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
    } else {
        bit = (int)((s.bits[c] >> y) & 1);
        ac.step(active, bit, p);
    }
    int needsign = 0;
    if (active) {
        if constexpr (DEC) {
            s.vis[c] |= at;
            s.bits[c] |= (uint64_t)bit << y;
        }
        if (!refine && bit) {
            s.sig[c] |= at;
            s.fresh[c] |= at;
            needsign = 1;
        }
    }
    const int anysign = __any_sync(BPC_FULL_MASK, needsign);
    if (anysign) { /* step B: the neighbours' signs as they are now */
        int pred = 0;
        const int cv = bpc_chi(s.sig[c], s.neg[c], y - 1) + bpc_chi(s.sig[c], s.neg[c], y + 1);
        const int nbchi = ((nb >> 1) & 1) ? (((nb >> 3) & 1) ? -1 : 1) : 0;
        const int chh = bpc_chi(s.sig[e], s.neg[e], y) + nbchi;
        const int sctx = bpc_sign_context(cv, chh, &pred);
        const int sbase = TYPE == BPC_PASS_CP ? BPC_CTX_CP_SIGN : BPC_CTX_SIGN;
        const uint32_t ps = __shfl_sync(BPC_FULL_MASK, probs, needsign ? sbase + sctx : 0);
        if constexpr (DEC) {
            const int sym = ac.step(needsign, ps, lane);
            if (needsign)
                s.neg[c] |= (uint64_t)(sym ^ pred) << y;
        } else {
            ac.step(needsign, (int)((s.neg[c] >> y) & 1) ^ pred, ps);
        }
    }
    return anysign;
}

/* The encoder's distortion of a pass, from masks once it is over: the
 * refinements of the coefficients significant before the pass (MRP, ONE)
 * and the new significances (every other pass). The same integer sum as
 * coefficient by coefficient (codeblock.c). */
__device__ __forceinline__ int32_t bpc_pass_distortion(const uint32_t (*magv)[64], uint64_t refined0,
                                                      uint64_t refined1, uint64_t new0, uint64_t new1, int j)
{
    int32_t d = 0;
    for (int c = 0; c < 2; c++) {
        for (uint64_t m = c ? refined1 : refined0; m; m &= m - 1)
            d += bpc_dist_refine(magv[c][__ffsll((long long)m) - 1], j);
        for (uint64_t m = c ? new1 : new0; m; m &= m - 1)
            d += bpc_dist_significant(magv[c][__ffsll((long long)m) - 1], j);
    }
    return d;
}

/* One coding pass. Rows in which no lane has a symbol to code are skipped
 * (all lanes agree: the row masks are OR-ed over the warp): they would code
 * nothing, so the codewords are those of the full scan. */
template <int TYPE, bool DEC, class AC>
__device__ __forceinline__ void bpc_pass(bpc_lane &s, AC &ac, const uint32_t (*magv)[64], uint32_t probs, int j,
                                         int h, int lane)
{
    const uint64_t fresh0 = s.fresh[0], fresh1 = s.fresh[1];
    const uint64_t ref0 = s.sig[0] & ~s.fresh[0], ref1 = s.sig[1] & ~s.fresh[1];
    if (TYPE == BPC_PASS_SPP) {
        /* a row can code only with significance in rows y-1..y+1; the SPP's
         * own new significance is added as it happens */
        uint64_t anysig = bpc_warp_or64(s.sig[0] | s.sig[1]), skipped = 0;
        for (int y = 0; y < h; y++) {
            if (!bpc_window3(anysig, y)) {
                skipped |= (uint64_t)1 << y;
                continue;
            }
            const int left = bpc_step<TYPE, DEC>(s, ac, probs, y, 0, lane); /* left columns first */
            const int right = bpc_step<TYPE, DEC>(s, ac, probs, y, 1, lane);
            if (left | right)
                anysig |= (uint64_t)1 << y;
        }
        /* the skipped rows' insignificant coefficients go to the cleanup */
        s.cp[0] |= skipped & s.col[0] & ~s.sig[0];
        s.cp[1] |= skipped & s.col[1] & ~s.sig[1];
    } else {
        uint64_t rows;
        if (TYPE == BPC_PASS_SIG)
            rows = bpc_warp_or64((s.col[0] & ~s.sig[0]) | (s.col[1] & ~s.sig[1]));
        else if (TYPE == BPC_PASS_MRP)
            rows = bpc_warp_or64(ref0 | ref1);
        else if (TYPE == BPC_PASS_CP)
            rows = bpc_warp_or64(s.cp[0] | s.cp[1]);
        else
            rows = h == 64 ? ~(uint64_t)0 : (((uint64_t)1 << h) - 1);
        while (rows) {
            const int y = __ffsll((long long)rows) - 1;
            rows &= rows - 1;
            bpc_step<TYPE, DEC>(s, ac, probs, y, 0, lane);
            bpc_step<TYPE, DEC>(s, ac, probs, y, 1, lane);
        }
    }
    if constexpr (!DEC) {
        const int refines = TYPE == BPC_PASS_MRP || TYPE == BPC_PASS_ONE;
        s.dacc = bpc_pass_distortion(magv, refines ? ref0 : 0, refines ? ref1 : 0, s.fresh[0] & ~fresh0,
                                     s.fresh[1] & ~fresh1, j);
    }
}

template <bool DEC, class AC>
__device__ __forceinline__ void bpc_pass_of_type(int type, bpc_lane &s, AC &ac, const uint32_t (*magv)[64],
                                                 uint32_t probs, int j, int h, int lane)
{
    switch (type) {
    case BPC_PASS_SIG:
        bpc_pass<BPC_PASS_SIG, DEC>(s, ac, magv, probs, j, h, lane);
        break;
    case BPC_PASS_SPP:
        bpc_pass<BPC_PASS_SPP, DEC>(s, ac, magv, probs, j, h, lane);
        break;
    case BPC_PASS_MRP:
        bpc_pass<BPC_PASS_MRP, DEC>(s, ac, magv, probs, j, h, lane);
        break;
    case BPC_PASS_CP:
        bpc_pass<BPC_PASS_CP, DEC>(s, ac, magv, probs, j, h, lane);
        break;
    default:
        bpc_pass<BPC_PASS_ONE, DEC>(s, ac, magv, probs, j, h, lane);
        break;
    }
}

__device__ __forceinline__ void bpc_lane_init(bpc_lane &s, int variant, int w, int h, int lane)
{
    const uint64_t rows = h == 64 ? ~(uint64_t)0 : (((uint64_t)1 << h) - 1);
    for (int c = 0; c < 2; c++) {
        s.sig[c] = s.neg[c] = s.fresh[c] = s.bits[c] = s.vis[c] = 0;
        s.col[c] = 2 * lane + c < w ? rows : 0;
        s.cp[c] = variant == 3 ? s.col[c] : 0; /* the top plane is all cleanup */
    }
    s.dacc = 0;
}

/* ---- encoder ---- */

#ifndef BPC_KERNELS_DECODE_ONLY
__global__ void __launch_bounds__(128) bpc_encode_kernel(bpc_kenc_params k)
{
    const int lane = (int)(threadIdx.x & 31);
    const uint32_t cbi = (uint32_t)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (cbi >= k.ncb)
        return; /* whole warps only: the grid covers code blocks by warps */
    const bpc_cb_desc d = k.cb[cbi];
    const int w = (int)d.w, h = (int)d.h;
    const uint32_t bi = d.comp * BPC_MAX_BANDS + d.band;

    /* load: lane t holds columns 2t, 2t + 1 */
    uint32_t magv[2][64];
    bpc_lane s;
    bpc_lane_init(s, k.variant, w, h, lane);
    uint32_t all = 0;
    const uint32_t pitch = k.pitch[d.comp];
    const float inv = k.filter ? k.inv_step[bi] : 0.0f;
    for (int y = 0; y < h; y++)
        for (int c = 0; c < 2; c++) {
            const int x = 2 * lane + c;
            int32_t v = 0;
            if (x < w) {
                const size_t at = (size_t)(d.y0 + y) * pitch + d.x0 + x;
                v = k.filter ? bpc_quantize(((const float *)k.plane[d.comp])[at], inv)
                             : ((const int32_t *)k.plane[d.comp])[at];
            }
            const uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
            magv[c][y] = m;
            s.neg[c] |= (uint64_t)(v < 0) << y;
            all |= m;
        }
    all = bpc_warp_or(all);
    const int planes = all ? 32 - __clz(all) : 0;
    if (planes > k.planes_bound[bi]) {
        if (lane == 0)
            atomicMax(k.error, (int)cbi + 1);
        return;
    }
    const int npasses = bpc_passes_of(k.variant, planes);
    if (lane == 0) {
        k.planes_out[cbi] = (uint8_t)planes;
        k.passes_out[cbi] = (uint8_t)npasses;
    }
    const uint16_t *band_table = k.table + (size_t)d.table_band * BPC_TABLE_PLANES * BPC_NCTX_MAX;
    bpc_enc_coder ac;
    ac.L = ac.S = ac.pos = ac.B = 0;
    ac.out = k.slots + k.slot[cbi];
    ac.lt = (1u << lane) - 1;
    uint32_t probs = 0;
    int plane = -1;
    for (int p = 0; p < npasses; p++) {
        int j, type;
        bpc_pass_at(k.variant, planes, p, &j, &type);
        if (j != plane) {
            plane = j;
            s.fresh[0] = s.fresh[1] = 0;
            for (int c = 0; c < 2; c++) {
                uint64_t m = 0;
                for (int y = 0; y < h; y++)
                    m |= (uint64_t)((magv[c][y] >> j) & 1) << y;
                s.bits[c] = m;
            }
            probs = bpc_probs_of_plane(band_table, j, k.plane_offset, lane);
        }
        bpc_pass_of_type<false>(type, s, ac, magv, probs, j, h, lane);
        const int64_t dist = bpc_warp_sum64(s.dacc);
        if (lane == 0) {
            k.pass_cw[(size_t)cbi * BPC_MAX_PASSES + p] = ac.B;
            k.pass_dist[(size_t)cbi * BPC_MAX_PASSES + p] = dist;
        }
    }
    if (ac.S) { /* the coders' last codewords */
        ac.out[2 * (size_t)ac.pos] = (uint8_t)(ac.L >> 8);
        ac.out[2 * (size_t)ac.pos + 1] = (uint8_t)ac.L;
    }
}

#endif

/* ---- decoder ---- */

#ifndef BPC_KERNELS_ENCODE_ONLY
__global__ void __launch_bounds__(128) bpc_decode_kernel(bpc_kdec_params k)
{
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
    ac.L = ac.S = ac.I = ac.B = 0;
    ac.lt = (1u << lane) - 1;
    ac.data = k.data + en.offset;
    ac.ncw = en.codewords;
    ac.bad = 0;
    ac.wbase = 0;
    ac.win = bpc_codeword_at(ac.data, ac.ncw, (uint32_t)lane);
    ac.nxt = bpc_codeword_at(ac.data, ac.ncw, 32u + (uint32_t)lane);

    uint64_t pd[BPC_MAX_PLANES][2]; /* decoded magnitude bits, per plane */
    bpc_lane s;
    bpc_lane_init(s, k.variant, w, h, lane);
    for (int j = 0; j < planes; j++)
        pd[j][0] = pd[j][1] = 0;
    uint32_t probs = 0;
    int plane = -1;
    for (int p = 0; p < npasses; p++) {
        int j, type;
        bpc_pass_at(k.variant, planes, p, &j, &type);
        if (j != plane) {
            if (plane >= 0) {
                pd[plane][0] = s.bits[0];
                pd[plane][1] = s.bits[1];
            }
            plane = j;
            s.fresh[0] = s.fresh[1] = s.vis[0] = s.vis[1] = s.bits[0] = s.bits[1] = 0;
            probs = bpc_probs_of_plane(band_table, j, k.plane_offset, lane);
        }
        bpc_pass_of_type<true>(type, s, ac, (const uint32_t(*)[64])0, probs, j, h, lane);
        if (__any_sync(BPC_FULL_MASK, ac.bad))
            break;
    }
    if (plane >= 0) {
        pd[plane][0] = s.bits[0];
        pd[plane][1] = s.bits[1];
    }
    const int bad = __any_sync(BPC_FULL_MASK, ac.bad || ac.B != ac.ncw);
    if (bad && lane == 0)
        atomicMax(k.error, (int)cbi + 1);

    /* reconstruction: 2|v| + 2^p with p the last plane decoded for it */
    const int last = plane < 0 ? 0 : plane;
    const uint32_t pitch = k.pitch[d.comp];
    const float half = k.filter ? k.half_step[d.comp * BPC_MAX_BANDS + d.band] : 0.0f;
    for (int y = 0; y < h; y++)
        for (int c = 0; c < 2; c++) {
            const int x = 2 * lane + c;
            if (x >= w)
                continue;
            int32_t r = 0;
            if (!bad && ((s.sig[c] >> y) & 1)) {
                uint32_t m = 0;
                for (int jj = last; jj < planes; jj++)
                    m |= (uint32_t)((pd[jj][c] >> y) & 1) << jj;
                const int pl = ((s.vis[c] >> y) & 1) ? last : last + 1;
                r = (int32_t)(2 * m + ((uint32_t)1 << pl));
                if ((s.neg[c] >> y) & 1)
                    r = -r;
            }
            const size_t at = (size_t)(d.y0 + y) * pitch + d.x0 + x;
            if (k.filter)
                ((float *)k.plane[d.comp])[at] = bpc_dequantize_float(r, half);
            else
                ((int32_t *)k.plane[d.comp])[at] = bpc_dequantize_int(r);
        }
}

#endif

#endif
