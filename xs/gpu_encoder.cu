/* The GPU JPEG XS encoder: the same plan, cost model and rate decision as
 * the C encoder (enc_rate.h is compiled here as device code), so that both
 * write the same bytes. One frame is, on the context's stream:
 *   1. enc_input     samples to Bw-bit values: scaling or forward NLT table,
 *                    DC offset, forward RCT;
 *   2. the forward 5/3 DWT of wavelet/ (out of place, per component);
 *   3. enc_gcli      one thread per code group: bitplane count and the sign
 *                    reaches of its four coefficients;
 *   4. enc_costs     one warp per band line (of every precinct): its cost
 *                    tables for every truncation, the static ones from
 *                    histograms (as enc_analysis.c), vertical prediction
 *                    with lanes over t (below the truncation above, a
 *                    precinct's first line depends on the decision above it
 *                    and is redone in step 5);
 *   5. enc_slices    one block per slice, its precincts in order (slices are
 *                    independent: vertical prediction never crosses them and
 *                    every slice has a fixed share of the rate): the
 *                    precincts' shares of the slice (encoder.c's
 *                    slice_shares), then per precinct the first-line
 *                    vertical-prediction costs and the rate decision of
 *                    enc_select. Each precinct's tables sit in shared
 *                    memory (enc_band_mode's sums per band, mode and
 *                    truncation precomputed), an evaluation runs on one
 *                    warp, and both bisections decide several levels a
 *                    round, one candidate per warp group (search_block:
 *                    the same candidates as the bisection, fewer steps);
 *   6. enc_offsets   (fixed Q/R only) slice offsets and the codestream size;
 *   7. enc_pack      one block per precinct: packet sizes and offsets over
 *                    the threads, then one warp per band line: bit offsets
 *                    from warp scans of the code lengths, every field
 *                    OR-ed into the zeroed output as big-endian words.
 * Device memory is allocated at creation only. Errors found on the device
 * (a target too small, a coefficient beyond 15 bit planes) are read back by
 * xs_gpu_encoder_sync. */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "enc_rate.h"
extern "C" {
#include "enc_internal.h"
#include "wavelet_cuda.h"
#include "xsf_cuda_device.h"
}

/* Every public call that touches the GPU runs on the encoder's device and
 * leaves the caller's current device as it found it (xs.h: CUDA devices). */
#define ON_DEVICE(e)                                                                               \
    xsf_cuda_device_scope on_device_((e)->device);                                                 \
    if (on_device_.error() != cudaSuccess)                                                         \
    return xsf_error_set(&(e)->err, XSF_ERR_CUDA, "cudaSetDevice(%d) failed", (e)->device)

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return xsf_error_set(&e->err, XSF_ERR_CUDA, "%s: %s", #call, cudaGetErrorString(e_));  \
    } while (0)
#define LAUNCH_TRY(what)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = cudaGetLastError();                                                       \
        if (e_ != cudaSuccess)                                                                     \
            return xsf_error_set(&e->err, XSF_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e_));   \
    } while (0)

#define FULL 0xffffffffu

/* ---- what the kernels see ---- */

struct gpu_band_info {
    int comp, x0, y0, width, height, col_width;
    uint32_t gcli_offset, gcli_stride;
};

/* Where enc_slices keeps a precinct's decision tables (prec_tab): offsets in
 * bytes in a slot of its shared memory, bytes a slot; the plan blob of a
 * precinct (blob_bytes each, copied into the slot at offset blob) holds
 * uint16 words: the number of packets, the first line of each and the end,
 * then at bfirst the first index into blist of each band and the end, at
 * blist the lines of each band in turn. */
struct tab_layout {
    uint32_t cost, mc, bline, blob, bytes;
    uint32_t bfirst, blist, blob_bytes;
};

struct enc_gpu_consts {
    enc_params params;
    tab_layout tab;
    int tab_slots; /* slots in enc_slices' shared memory */
    int nbands, nc, ncd, rows, cols, hsl, slices, cpih, bw, rc;
    uint32_t nprec;
    int comp_width[XS_MAX_COMPONENTS], comp_height[XS_MAX_COMPONENTS], depth[XS_MAX_COMPONENTS];
    unsigned long long coef_off[XS_MAX_COMPONENTS]; /* element offset of each component's plane */
    long long lut_off[XS_MAX_COMPONENTS]; /* offset of its forward NLT table, -1: linear */
    uint8_t gain[XS_MAX_BANDS], priority[XS_MAX_BANDS];
    gpu_band_info band[XS_MAX_BANDS];
};

/* A precinct's decision. offset: where it starts, from its slice's start. */
struct gpu_prec {
    uint32_t bytes, total, offset, budget;
    uint8_t q, r;
    uint8_t t[XS_MAX_BANDS], mode[XS_MAX_BANDS];
};

enum { GPU_ENC_ERR_BUDGET = 1, GPU_ENC_ERR_PLANES = 2, GPU_ENC_ERR_PACK = 3 };
#define GPU_STATUS_WORDS 4 /* code, precinct, codestream bytes, spare */

__device__ static void report(unsigned *status, unsigned code, unsigned where)
{
    if (atomicCAS(status, 0u, code) == 0u)
        status[1] = where;
}

__device__ __forceinline__ uint32_t warp_sum(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(FULL, v);
#else
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(FULL, v, o);
    return v;
#endif
}

/* ---- 1. input stage (the inverse of xs_output_stage) ---- */

struct gpu_planes {
    const uint16_t *plane[XS_MAX_COMPONENTS];
    unsigned long long pitch[XS_MAX_COMPONENTS]; /* elements */
};

__global__ void enc_input(const __grid_constant__ enc_gpu_consts k,
                          const __grid_constant__ gpu_planes in, int32_t *in32, int32_t *coef,
                          const int32_t *lut)
{
    const int c = blockIdx.y;
    if (k.cpih == 1 && (c == 1 || c == 2))
        return; /* done with component 0 */
    const int w = k.comp_width[c], h = k.comp_height[c];
    const int nt = (k.cpih == 1 && c == 0) ? 3 : 1;
    /* The components' constants in registers (j < nt; no array on the stack). */
    const uint16_t *src[3];
    unsigned long long pitch[3];
    uint32_t maxv[3];
    long long lut_off[3];
    int shift[3];
    int32_t *dst[3];
#pragma unroll
    for (int j = 0; j < 3; j++) {
        const int cc = j < nt ? c + j : c;
        src[j] = in.plane[cc];
        pitch[j] = in.pitch[cc];
        maxv[j] = (1u << k.depth[cc]) - 1;
        lut_off[j] = k.lut_off[cc];
        shift[j] = k.bw - k.depth[cc];
        dst[j] = (cc < k.ncd ? in32 : coef) + k.coef_off[cc];
    }
    /* Rows over the blocks, columns over the threads (no division). */
    for (int y = blockIdx.x; y < h; y += gridDim.x)
        for (int x = threadIdx.x; x < w; x += blockDim.x) {
            const size_t i = (size_t)y * w + x;
            int32_t v[3] = {0, 0, 0};
#pragma unroll
            for (int j = 0; j < 3; j++) {
                if (j >= nt)
                    break;
                uint32_t s = src[j][y * pitch[j] + x];
                s = s > maxv[j] ? maxv[j] : s;
                v[j] = lut_off[j] >= 0 ? lut[lut_off[j] + s]
                                       : (int32_t)(s << shift[j]) - (1 << (k.bw - 1));
            }
            if (nt == 3) {
                /* Forward RCT: R, G, B to Y, B-G, R-G. */
                const int32_t r = v[0], g = v[1], b = v[2];
                v[0] = (r + 2 * g + b) >> 2;
                v[1] = b - g;
                v[2] = r - g;
            }
#pragma unroll
            for (int j = 0; j < 3; j++) {
                if (j >= nt)
                    break;
                dst[j][i] = v[j];
            }
        }
}

/* ---- 3. bitplane counts ---- */

__global__ void enc_gcli(const __grid_constant__ enc_gpu_consts k, const int32_t *coef,
                         uint8_t *gcli, uint16_t *reach, unsigned *status)
{
    const gpu_band_info &b = k.band[blockIdx.y];
    const int gpc = (b.col_width + 3) / 4; /* code groups per precinct column */
    const int32_t *plane = coef + k.coef_off[b.comp];
    const int cw = k.comp_width[b.comp];
    /* Band rows over the blocks, code groups over the threads; several rows
     * a block where a row has fewer groups than the block threads (one
     * division per thread). */
    const int stride = (int)b.gcli_stride;
    if (stride == 0)
        return;
    const int rows = stride < (int)blockDim.x ? (int)blockDim.x / stride : 1;
    const int tr = stride < (int)blockDim.x ? (int)threadIdx.x / stride : 0;
    const int g0 = stride < (int)blockDim.x ? (int)threadIdx.x % stride : (int)threadIdx.x;
    if (tr >= rows)
        return;
    for (int y = blockIdx.x * rows + tr; y < b.height; y += gridDim.x * rows)
        for (int gi = g0; gi < stride; gi += blockDim.x) {
            const size_t i = (size_t)y * b.gcli_stride + gi;
            const int col = gi / gpc, j = gi % gpc;
            int w = b.width - col * b.col_width;
            w = w < b.col_width ? w : b.col_width;
            const int x = col * b.col_width + 4 * j, cnt = min(4, w - 4 * j);
            const int32_t *row = plane + (size_t)(b.y0 + y) * cw + b.x0 + x;
            int32_t v[4];
            uint32_t m = 0;
            for (int q = 0; q < 4; q++) {
                v[q] = q < cnt ? row[q] : 0;
                const uint32_t a = (uint32_t)(v[q] < 0 ? -(int64_t)v[q] : v[q]) >> k.params.fq;
                m = a > m ? a : m;
            }
            if (m > 0x7fff) {
                report(status, GPU_ENC_ERR_PLANES, (unsigned)blockIdx.y);
                m = 0x7fff;
            }
            const int g = enc_bitlen(m);
            uint16_t r = 0;
            for (int q = 0; q < cnt; q++)
                r |= (uint16_t)(enc_sign_reach(v[q], g, k.params.qpih, k.params.fq) << (4 * q));
            gcli[b.gcli_offset + i] = (uint8_t)g;
            reach[b.gcli_offset + i] = r;
        }
}

/* ---- 4. cost tables ---- */

/* Histogram bins of a band line (the C encoder's static_costs,
 * enc_analysis.c): counts of g, of min(sign reach, g) over the four
 * coefficients, and of significance-group maxima (weighted by their
 * groups); per warp one column of bins per lane, then their sums. */
enum { BIN_G = 0, BIN_R = ENC_T, BIN_S = 2 * ENC_T, COST_BINS = 3 * ENC_T };
#define COST_SCRATCH (COST_BINS * 32 + COST_BINS) /* words a warp */

/* The tables that do not depend on the line above (unary[0], unary[SIG],
 * data, sign) from histograms, as static_costs: lanes over significance
 * groups, each counting into its own bins, then lane t the sums over t. */
__device__ static void static_costs(const enc_gpu_consts &k, const enc_bline &bl, const uint8_t *g,
                                    const uint16_t *rc, uint32_t *bins, uint32_t *out)
{
    const int lane = threadIdx.x & 31;
    uint32_t *tot = bins + COST_BINS * 32;
    for (int q = 0; q < COST_BINS; q++)
        bins[q * 32 + lane] = 0;
    const uint32_t nsig = (bl.groups + 7) / 8;
    for (uint32_t s = (uint32_t)lane; s < nsig; s += 32) {
        const int n = (int)min(8u, bl.groups - 8 * s);
        int gmax = 0;
        for (int i = 0; i < n; i++) {
            const int gi = g[8 * s + i];
            const uint16_t r = rc[8 * s + i];
            bins[(BIN_G + gi) * 32 + lane]++;
            gmax = gi > gmax ? gi : gmax;
            for (int c = 0; c < 4; c++) {
                const int rk = (r >> (4 * c)) & 15;
                bins[(BIN_R + (rk < gi ? rk : gi)) * 32 + lane]++;
            }
        }
        bins[(BIN_S + gmax) * 32 + lane] += (uint32_t)n;
    }
    __syncwarp();
    for (int q = lane; q < COST_BINS; q += 32) {
        uint32_t v = 0;
        for (int l = 0; l < 32; l++)
            v += bins[q * 32 + ((l + q) & 31)]; /* lanes on different banks */
        tot[q] = v;
    }
    __syncwarp();
    if (lane < ENC_T) {
        const int t = lane;
        uint32_t above = 0, above_sum = 0, signs = 0, flat = 0;
        for (int v = t + 1; v < ENC_T; v++) {
            above += tot[BIN_G + v];
            above_sum += tot[BIN_G + v] * (uint32_t)v;
            signs += tot[BIN_R + v];
        }
        for (int v = 0; v <= t; v++)
            flat += tot[BIN_S + v];
        const uint32_t excess = above_sum - (uint32_t)t * above; /* sum over g > t of g - t */
        out[t] = bl.groups + excess;
        out[ENC_MODE_SIG * ENC_T + t] = bl.groups + excess - flat;
        out[4 * ENC_T + t] = 4 * excess + (k.params.fs ? 0 : 4 * above);
        out[5 * ENC_T + t] = signs;
    }
    __syncwarp(); /* bins are rewritten by the warp's next line */
}

/* The cost tables of one band line, on one warp: what enc_cost_sig_group
 * sums over its significance groups (out: 96 words, unary[4][16],
 * data[16], sign[16], as enc_line_cost; out2, when not NULL, gets the
 * vertical-prediction ones too). Without vpred_only the tables
 * that do not depend on the line above (static_costs, bins: the warp's
 * COST_SCRATCH words) and the vertical-prediction ones for every t (zero
 * without use_top); with vpred_only only the vertical-prediction ones for
 * t < nt. Those come group by group: each lane one t and every (32 /
 * T)-th significance group (T: nt rounded up to a power of two), its sums
 * added over the lanes of its t at the end. */
__device__ static void line_costs(const enc_gpu_consts &k, const enc_bline &bl, const uint8_t *gcli,
                                  const uint16_t *reach, int use_top, int ttop, int nt,
                                  int vpred_only, uint32_t *bins, uint32_t *out, uint32_t *out2)
{
    const int lane = threadIdx.x & 31;
    const uint8_t *g = gcli + bl.gcli_off;
    const uint8_t *top = g - bl.gcli_stride; /* the line above, read only with use_top */
    const uint16_t *rc = reach + bl.gcli_off;
    if (!vpred_only)
        static_costs(k, bl, g, rc, bins, out);
    if (!use_top) {
        if (lane < ENC_T && !vpred_only) {
            out[ENC_MODE_VPRED * ENC_T + lane] = 0;
            out[(ENC_MODE_VPRED | ENC_MODE_SIG) * ENC_T + lane] = 0;
        }
        __syncwarp();
        return;
    }
    int tn = 1;
    while (tn < nt)
        tn <<= 1;
    const int t = lane % tn, step = 32 / tn;
    const uint32_t nsig = (bl.groups + 7) / 8;
    uint32_t vp = 0, vps = 0;
    if (t < nt) {
        for (uint32_t s = (uint32_t)(lane / tn); s < nsig; s += (uint32_t)step) {
            const int n = (int)min(8u, bl.groups - 8 * s);
            uint8_t gl[8], tl[8];
            const uint16_t rl[8] = {0, 0, 0, 0, 0, 0, 0, 0}; /* the sign bits are not wanted */
            for (int i = 0; i < 8; i++) {
                gl[i] = i < n ? g[8 * s + i] : 0;
                tl[i] = i < n ? top[8 * s + i] : 0;
            }
            uint32_t o[6];
            enc_sig_group_cost(gl, tl, rl, n, ttop, t, &k.params, o);
            vp += o[ENC_MODE_VPRED];
            vps += o[ENC_MODE_VPRED | ENC_MODE_SIG];
        }
    }
    for (int d = tn; d < 32; d <<= 1) {
        vp += __shfl_xor_sync(FULL, vp, d);
        vps += __shfl_xor_sync(FULL, vps, d);
    }
    if (lane < nt) {
        out[ENC_MODE_VPRED * ENC_T + t] = vp;
        out[(ENC_MODE_VPRED | ENC_MODE_SIG) * ENC_T + t] = vps;
        if (out2) {
            out2[ENC_MODE_VPRED * ENC_T + t] = vp;
            out2[(ENC_MODE_VPRED | ENC_MODE_SIG) * ENC_T + t] = vps;
        }
    }
    __syncwarp();
}

#define COST_WARPS 4
__global__ void __launch_bounds__(32 * COST_WARPS)
    enc_costs(const __grid_constant__ enc_gpu_consts k, const enc_bline *blines, uint32_t nblines,
              const uint8_t *gcli, const uint16_t *reach, enc_line_cost *cost)
{
    __shared__ uint32_t scratch[COST_WARPS][COST_SCRATCH];
    const int w = threadIdx.x >> 5;
    const uint32_t i = blockIdx.x * COST_WARPS + w;
    if (i >= nblines)
        return;
    const enc_bline bl = blines[i];
    const int row = (int)(bl.precinct / k.cols);
    /* As the C encoder: vertical prediction where the precinct is not the
     * first of its slice; line 0 against the truncations of the same candidate
     * above (ttop 0) for the slice's shares, redone from the decision above
     * (enc_slices, where it differs: t below the truncation above). */
    const int use_top = k.params.allow_vpred && row % k.hsl != 0;
    line_costs(k, bl, gcli, reach, use_top, 0, ENC_T, 0, scratch[w], (uint32_t *)&cost[i], NULL);
}

/* ---- 5. rate decision, slice by slice ---- */

#define SLICE_WARPS 32
#define SEARCH_LEVELS 5 /* bisection levels decided per round, at most log2(SLICE_WARPS) */

/* A precinct's decision tables in enc_slices' shared memory (a slot of
 * k.tab.bytes): its cost tables and band lines, enc_band_mode's sums for
 * every band, mode and truncation, and its plan blob (packet runs and the
 * band lines of each band, from the host). */
struct prec_tab {
    enc_line_cost *cost;
    uint32_t *mc; /* [band][mode][t]: unary[mode][t], with the flags in the SIG modes */
    enc_bline *bl;
    const uint16_t *pk;             /* pk[0] packets, pk[1 + j] the first line of packet j */
    const uint16_t *bfirst, *blist; /* band b's lines: blist[bfirst[b] .. bfirst[b + 1]) */
};

__device__ static prec_tab tab_at(const enc_gpu_consts &k, uint8_t *smem, int slot)
{
    uint8_t *s = smem + (size_t)slot * k.tab.bytes;
    prec_tab t;
    t.cost = (enc_line_cost *)(s + k.tab.cost);
    t.mc = (uint32_t *)(s + k.tab.mc);
    t.bl = (enc_bline *)(s + k.tab.bline);
    const uint16_t *b = (const uint16_t *)(s + k.tab.blob);
    t.pk = b;
    t.bfirst = b + k.tab.bfirst;
    t.blist = b + k.tab.blist;
    return t;
}

/* enc_band_mode's sum of band b, mode m at truncation tr into t.mc. */
__device__ static void mc_entry(const prec_tab &t, int b, int m, int tr)
{
    uint32_t v = 0;
    for (int i = t.bfirst[b]; i < t.bfirst[b + 1]; i++) {
        const int l = t.blist[i];
        v += t.cost[l].unary[m][tr] + ((m & ENC_MODE_SIG) ? enc_sig_bits(t.bl[l].groups) : 0);
    }
    t.mc[(b * ENC_MODES + m) * ENC_T + tr] = v;
}

/* The tables of precincts p0..p0+n-1 into slots 0..n-1, by the whole block
 * (every thread calls it). */
__device__ static void build_tabs(const enc_gpu_consts &k, uint8_t *smem, const enc_bline *blines,
                                  const uint32_t *bline_first, const enc_line_cost *cost,
                                  const uint4 *blob, uint32_t p0, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t p = p0 + (uint32_t)j, f = bline_first[p];
        const int nbl = (int)(bline_first[p + 1] - f);
        uint8_t *s = smem + (size_t)j * k.tab.bytes;
        const uint4 *cs = (const uint4 *)(cost + f);
        uint4 *cd = (uint4 *)(s + k.tab.cost);
        for (int i = threadIdx.x; i < nbl * (int)(sizeof(enc_line_cost) / 16); i += blockDim.x)
            cd[i] = cs[i];
        const uint32_t *bs = (const uint32_t *)(blines + f);
        uint32_t *bd = (uint32_t *)(s + k.tab.bline);
        for (int i = threadIdx.x; i < nbl * (int)(sizeof(enc_bline) / 4); i += blockDim.x)
            bd[i] = bs[i];
        const uint4 *os = blob + (size_t)p * (k.tab.blob_bytes / 16);
        uint4 *od = (uint4 *)(s + k.tab.blob);
        for (int i = threadIdx.x; i < (int)(k.tab.blob_bytes / 16); i += blockDim.x)
            od[i] = os[i];
    }
    __syncthreads();
    for (int j = 0; j < n; j++) {
        const prec_tab t = tab_at(k, smem, j);
        for (int e = threadIdx.x; e < k.nbands * ENC_MODES * ENC_T; e += blockDim.x)
            mc_entry(t, e / (ENC_MODES * ENC_T), (e / ENC_T) % ENC_MODES, e % ENC_T);
    }
    __syncthreads();
}

/* enc_evaluate's truncations and modes (enc_band_mode, from the sums), the
 * bands over the lanes of one warp. */
__device__ static void choose_bands(const enc_gpu_consts &k, const prec_tab &t, int q, int r,
                                    int vpred_ok, const uint8_t *gain, const uint8_t *priority,
                                    enc_choice *ch)
{
    __syncwarp(); /* the lanes still reading ch for the last evaluation are done */
    for (int b = threadIdx.x & 31; b < k.nbands; b += 32) {
        const int tr = enc_truncation(q, r, gain[b], priority[b]);
        const uint32_t *s = t.mc + b * (ENC_MODES * ENC_T) + tr;
        const uint32_t mc[ENC_MODES] = {s[0], s[ENC_T], s[2 * ENC_T], s[3 * ENC_T]};
        ch->t[b] = (uint8_t)tr;
        ch->mode[b] = (uint8_t)enc_pick_mode(&k.params, mc, vpred_ok);
    }
    __syncwarp();
}

/* enc_evaluate on one warp: the bands, then the packets (enc_packet_bytes)
 * over the lanes. */
__device__ static uint32_t evaluate_warp(const enc_gpu_consts &k, const prec_tab &t, int q, int r,
                                         int vpred_ok, const uint8_t *gain, const uint8_t *priority,
                                         enc_choice *ch)
{
    choose_bands(k, t, q, r, vpred_ok, gain, priority, ch);
    uint32_t sum = 0;
    int bad = 0;
    const int npk = t.pk[0];
    for (int j = threadIdx.x & 31; j < npk; j += 32) {
        const enc_packet_size z =
            enc_packet_bytes(&k.params, t.bl, t.cost, t.pk[1 + j], t.pk[2 + j], ch);
        if (z.bytes == ENC_NOCOST)
            bad = 1;
        else
            sum += z.bytes;
    }
    sum = warp_sum(sum);
    bad = __any_sync(FULL, bad);
    const uint32_t total = k.params.prec_header_bytes + sum;
    return bad || total >= (1u << 24) ? ENC_NOCOST : total;
}

/* What the block shares between the rounds of a search. */
struct search_shared {
    enc_choice ch[SLICE_WARPS]; /* each warp's evaluation */
    uint64_t part[SLICE_WARPS];
    uint8_t gain[XS_MAX_BANDS], priority[XS_MAX_BANDS];
};

/* A search over precincts p0..p0+np-1 of a slice, in slots 0..np-1 where
 * they fit (rebuild 0) or built batch by batch (rebuild 1): precinct j with
 * vertical prediction where j >= vpred_from. */
struct search_span {
    const enc_bline *blines;
    const uint32_t *bline_first;
    const enc_line_cost *cost;
    const uint4 *blob;
    uint32_t p0;
    int slot0; /* the slot of p0 (without rebuild) */
    int np, vpred_from, rebuild;
    int slice; /* 1: slice_bytes' sum (UINT64_MAX on a length overflow); 0: enc_evaluate's value */
};

/* This warp's part of candidate c's value over the precincts j = first,
 * first + step, ... (every thread of the block calls it: the batches are
 * built by all); sizes: each one's bytes (lane 0, when not NULL). */
__device__ static uint64_t span_part(const enc_gpu_consts &k, uint8_t *smem, const search_span &sp,
                                     int c, int first, int step, search_shared *sh, uint32_t *sizes)
{
    const int w = threadIdx.x >> 5;
    int q = 0, r = 0;
    if (c >= 0)
        enc_candidate(&k.params, c, &q, &r);
    uint64_t acc = 0;
    const int nt = sp.rebuild ? k.tab_slots : sp.np;
    for (int b0 = 0; b0 < sp.np; b0 += nt) {
        const int nb = min(nt, sp.np - b0);
        if (sp.rebuild)
            build_tabs(k, smem, sp.blines, sp.bline_first, sp.cost, sp.blob, sp.p0 + (uint32_t)b0,
                       nb);
        if (c >= 0) {
            int j = first;
            while (j < b0)
                j += step;
            for (; j < b0 + nb; j += step) {
                const uint32_t v =
                    evaluate_warp(k, tab_at(k, smem, sp.slot0 + j - b0), q, r, j >= sp.vpred_from,
                                  sh->gain, sh->priority, &sh->ch[w]);
                if (!sp.slice)
                    acc = v;
                else
                    acc = v == ENC_NOCOST || acc == UINT64_MAX ? UINT64_MAX : acc + v;
                if (sizes && (threadIdx.x & 31) == 0)
                    sizes[sp.p0 + (uint32_t)j] = v;
            }
        }
        if (sp.rebuild)
            __syncthreads(); /* every warp is done with the batch's slots */
    }
    return acc;
}

/* The sum of parts g*n .. g*n+g-1, UINT64_MAX where one is. */
__device__ static uint64_t group_value(const uint64_t *part, int n, int g)
{
    uint64_t v = 0;
    for (int i = n * g; i < n * g + g; i++)
        v = part[i] == UINT64_MAX || v == UINT64_MAX ? UINT64_MAX : v + part[i];
    return v;
}

/* Node n (heap order, 1 the root) of the bisection's decision tree below
 * [lo, hi): the candidate it evaluates, -1 where the bisection has ended
 * before it. */
__device__ static int node_mid(int lo, int hi, int n)
{
    for (int d = 30 - __clz(n); d >= 0; d--) {
        if (hi - lo <= 1)
            return -1;
        const int mid = lo + (hi - lo) / 2;
        if ((n >> d) & 1)
            lo = mid;
        else
            hi = mid;
    }
    return hi - lo > 1 ? lo + (hi - lo) / 2 : -1;
}

/* enc_select's and slice_shares' bisection, on the whole block, with the
 * same answer: candidate 0 must fit (value <= limit), then lo, hi = 0, K
 * and mid = lo + (hi - lo) / 2 until hi - lo = 1. Each round evaluates the
 * next `levels` levels of that decision tree at once (node n on the warps
 * of group n, candidate 0 on group 0 in the first round) and walks them, so
 * the candidates taken are the bisection's own. Returns lo, or -1 when
 * candidate 0 does not fit; *value: lo's value (candidate 0's on -1). */
__device__ static int search_block(const enc_gpu_consts &k, uint8_t *smem, const search_span &sp,
                                   uint64_t limit, search_shared *sh, uint64_t *value)
{
    const int w = threadIdx.x >> 5;
    int levels = 1;
    while (levels < SEARCH_LEVELS && (SLICE_WARPS >> (levels + 1)) >= sp.np)
        levels++;
    const int g = SLICE_WARPS >> levels, node = w / g, member = w % g;
    int lo = 0, hi = (k.params.qmax + 1) * k.params.rmax, first = 1;
    uint64_t vlo = 0;
    do {
        const int c = node == 0 ? (first ? 0 : -1) : node_mid(lo, hi, node);
        const uint64_t acc = span_part(k, smem, sp, c, member, g, sh, NULL);
        if ((threadIdx.x & 31) == 0)
            sh->part[w] = acc;
        __syncthreads();
        if (first) {
            vlo = group_value(sh->part, 0, g);
            if (vlo > limit) {
                __syncthreads();
                *value = vlo;
                return -1;
            }
            first = 0;
        }
        int n = 1;
        for (int l = 0; l < levels && hi - lo > 1; l++) {
            const int mid = lo + (hi - lo) / 2;
            const uint64_t v = group_value(sh->part, n, g);
            const int fit = v <= limit;
            if (fit) {
                lo = mid;
                vlo = v;
            } else {
                hi = mid;
            }
            n = 2 * n + fit;
        }
        __syncthreads(); /* part is rewritten by the next round */
    } while (hi - lo > 1);
    *value = vlo;
    return lo;
}

/* encoder.c's slice_shares on the block (XS_RC_SLICE): share[p0..p1), the
 * precincts' parts of the slice at the best candidate the whole slice fits. */
__device__ static void slice_shares_block(const enc_gpu_consts &k, uint8_t *smem,
                                          const search_span &sp, const uint32_t *allot,
                                          search_shared *sh, uint32_t *share)
{
    uint64_t a = 0;
    for (int j = 0; j < sp.np; j++)
        a += allot[sp.p0 + (uint32_t)j];
    uint64_t sum;
    const int lo = search_block(k, smem, sp, a, sh, &sum);
    if (lo < 0) {
        for (int j = threadIdx.x; j < sp.np; j += blockDim.x)
            share[sp.p0 + (uint32_t)j] = allot[sp.p0 + (uint32_t)j];
        __syncthreads();
        return;
    }
    /* Each one's size at lo, then its share (sum: lo's value). */
    span_part(k, smem, sp, lo, threadIdx.x >> 5, SLICE_WARPS, sh, share);
    __syncthreads();
    for (int j = threadIdx.x; j < sp.np; j += blockDim.x)
        share[sp.p0 + (uint32_t)j] = enc_slice_share(share[sp.p0 + (uint32_t)j], a - sum, j, sp.np);
    __syncthreads();
}

__global__ void __launch_bounds__(32 * SLICE_WARPS)
    enc_slices(const __grid_constant__ enc_gpu_consts k, const enc_bline *blines,
               const uint32_t *bline_first, const uint4 *blob, const uint8_t *gcli,
               const uint16_t *reach, enc_line_cost *cost, const uint32_t *allot, uint32_t *share,
               uint8_t *gtli, gpu_prec *prec, uint32_t *slice_size, unsigned *status, int fixed_q,
               int fixed_r)
{
    extern __shared__ uint8_t smem[];
    __shared__ search_shared sh;
    __shared__ uint32_t used, allot_cum, slice_allot;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int s = blockIdx.x, row0 = s * k.hsl, row1 = min(row0 + k.hsl, k.rows);
    for (int b = threadIdx.x; b < k.nbands; b += blockDim.x) {
        sh.gain[b] = k.gain[b];
        sh.priority[b] = k.priority[b];
    }
    if (threadIdx.x == 0) {
        used = 0;
        allot_cum = 0;
        uint32_t a = 0;
        for (int p = row0 * k.cols; p < row1 * k.cols; p++)
            a += allot[p];
        slice_allot = a;
    }
    __syncthreads();
    search_span sp;
    sp.blines = blines;
    sp.bline_first = bline_first;
    sp.cost = cost;
    sp.blob = blob;
    sp.p0 = 0;
    sp.slot0 = sp.np = sp.vpred_from = sp.rebuild = sp.slice = 0;
    if (k.rc == XS_RC_SLICE) {
        sp.p0 = (uint32_t)row0 * k.cols;
        sp.np = (row1 - row0) * k.cols;
        sp.vpred_from = k.cols;
        sp.slot0 = 0;
        sp.rebuild = sp.np > k.tab_slots;
        sp.slice = 1;
        if (!sp.rebuild)
            build_tabs(k, smem, blines, bline_first, cost, blob, sp.p0, sp.np);
        slice_shares_block(k, smem, sp, allot, &sh, share);
    }
    for (int row = row0; row < row1; row++) {
        for (int col = 0; col < k.cols; col++) {
            const uint32_t p = (uint32_t)row * k.cols + col;
            const uint32_t f = bline_first[p];
            const int nbl = (int)(bline_first[p + 1] - f);
            const int vpred_ok = row > row0;
            /* The precinct's tables: still in their slot from the slice's
             * shares where all fitted, else built into slot 0. Its first
             * lines' vertical-prediction costs, from the truncations above:
             * for t at or above the truncation above they are enc_costs'
             * (ttop 0), redone below it (into the slot too, and its sums). */
            const int reuse = k.rc == XS_RC_SLICE && !sp.rebuild;
            const int slot = reuse ? (int)(p - sp.p0) : 0;
            const prec_tab tb = tab_at(k, smem, slot);
            if (vpred_ok && k.params.allow_vpred) {
                for (int i = w; i < nbl; i += SLICE_WARPS) {
                    const enc_bline bl = blines[f + i];
                    const int ttop = gtli[(p - k.cols) * k.nbands + bl.band];
                    if (bl.line == 0 && ttop > 0)
                        line_costs(k, bl, gcli, reach, 1, ttop, ttop, 1, NULL,
                                   (uint32_t *)&cost[f + i],
                                   reuse ? (uint32_t *)&tb.cost[i] : NULL);
                }
                __syncthreads();
                if (reuse) {
                    for (int e = threadIdx.x; e < k.nbands * 2 * ENC_T; e += blockDim.x)
                        mc_entry(tb, e / (2 * ENC_T),
                                 (e / ENC_T) % 2 ? (ENC_MODE_VPRED | ENC_MODE_SIG) : ENC_MODE_VPRED,
                                 e % ENC_T);
                    __syncthreads();
                }
            }
            if (!reuse)
                build_tabs(k, smem, blines, bline_first, cost, blob, p, 1);
            int q = fixed_q, r = fixed_r, fail = 0;
            uint32_t budget = UINT32_MAX, coded = 0; /* the same in every thread */
            if (k.rc != XS_RC_FIXED) {
                budget = k.rc == XS_RC_SLICE ? allot_cum + share[p] - used : allot[p];
                search_span one = sp;
                one.p0 = p;
                one.slot0 = slot;
                one.np = 1;
                one.vpred_from = vpred_ok ? 0 : 1;
                one.rebuild = 0;
                one.slice = 0;
                uint64_t v;
                const int c = search_block(k, smem, one, budget, &sh, &v);
                fail = c < 0;
                enc_candidate(&k.params, fail ? 0 : c, &q, &r);
                coded = (uint32_t)v;
            }
            if (w == 0) {
                /* The decision's truncations and modes (and with fixed Q/R its size). */
                const prec_tab &t = tb;
                if (k.rc == XS_RC_FIXED) {
                    coded = evaluate_warp(k, t, q, r, vpred_ok, sh.gain, sh.priority, &sh.ch[0]);
                    fail = coded == ENC_NOCOST;
                } else {
                    choose_bands(k, t, q, r, vpred_ok, sh.gain, sh.priority, &sh.ch[0]);
                }
                if (lane == 0) {
                    if (fail)
                        report(status, GPU_ENC_ERR_BUDGET, p);
                    gpu_prec *pr = &prec[p];
                    uint32_t total = coded;
                    if (k.rc == XS_RC_PRECINCT)
                        total = allot[p];
                    else if (k.rc == XS_RC_SLICE && row == row1 - 1 && col == k.cols - 1)
                        total = slice_allot - used;
                    if (fail || total < coded)
                        total = coded;
                    pr->bytes = coded;
                    pr->total = total;
                    pr->offset = 6 + used;
                    pr->budget = budget;
                    pr->q = (uint8_t)q;
                    pr->r = (uint8_t)r;
                    if (k.rc == XS_RC_SLICE)
                        allot_cum += share[p];
                    used += total;
                }
                for (int b = lane; b < k.nbands; b += 32) {
                    prec[p].t[b] = sh.ch[0].t[b];
                    prec[p].mode[b] = sh.ch[0].mode[b];
                    gtli[p * k.nbands + b] = sh.ch[0].t[b];
                }
            }
            __syncthreads();
        }
    }
    if (threadIdx.x == 0)
        slice_size[s] = 6 + used;
}

/* ---- 6. offsets when the sizes are not fixed in advance ---- */

__global__ void enc_offsets(const uint32_t *slice_size, int slices, uint32_t header_bytes,
                            uint32_t lcod_off, uint64_t *slice_off, uint8_t *out, unsigned *status)
{
    uint64_t off = header_bytes;
    for (int s = 0; s < slices; s++) {
        slice_off[s] = off;
        off += slice_size[s];
    }
    off += 2;
    status[2] = (unsigned)off;
    for (int i = 0; i < 4; i++)
        out[lcod_off + i] = (uint8_t)(off >> (24 - 8 * i));
}

/* ---- 7. packing ---- */

/* ORs the n low bits of v (n <= 64), most significant first, into the
 * big-endian bit stream `buf` at bit position pos. */
__device__ static void put_bits(uint32_t *buf, uint64_t pos, uint64_t v, int n)
{
    while (n > 0) {
        const int off = (int)(pos & 31), take = min(32 - off, n);
        const uint32_t chunk =
            (uint32_t)(v >> (n - take)) & (take == 32 ? FULL : ((1u << take) - 1));
        const uint32_t be = chunk << (32 - off - take);
        atomicOr(&buf[pos >> 5], __byte_perm(be, 0, 0x0123));
        pos += take;
        n -= take;
    }
}

#define PACK_WARPS 8
/* Blocks an SM keeps of enc_pack: 5 on sm_80 and later (48 registers), so
 * that a UHD frame's 540 precincts run in one wave on 132 SMs; 1024
 * threads an SM before. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define PACK_MIN_BLOCKS 4
#else
#define PACK_MIN_BLOCKS 5
#endif
#define MAX_LINES 512

struct pack_shared {
    gpu_prec pr;
    /* Per band line: first its bits at the decision (flags, counts, data,
     * signs; raw counts in raw_cnt), then where they go, in bits from the
     * precinct. */
    uint32_t sig_off[MAX_LINES], cnt_off[MAX_LINES], dat_off[MAX_LINES], sgn_off[MAX_LINES],
        raw_cnt[MAX_LINES];
    uint8_t raw[MAX_LINES];
    uint32_t pk_at[MAX_LINES];  /* per packet: its bytes, then its offset in the precinct */
    uint16_t pk[MAX_LINES + 2]; /* the precinct's packet runs (its plan blob) */
    uint32_t end;               /* the bytes the packets end at */
};

/* A packet's sums over its band lines (pack_shared's bits) and its raw
 * decision (enc_packet_bytes on those sums). */
__device__ static enc_packet_size packet_sums(const enc_params &pp, const pack_shared &sh, int j)
{
    enc_packet_size z = {0, 0, 0, 0, 0, 0, 0};
    for (int i = sh.pk[1 + j]; i < sh.pk[2 + j]; i++) {
        z.sig += sh.sig_off[i];
        z.cnt += sh.cnt_off[i];
        z.rawcnt += sh.raw_cnt[i];
        z.dat += sh.dat_off[i];
        z.sgn += sh.sgn_off[i];
    }
    enc_packet_finish(&pp, &z);
    return z;
}

/* Bytes of a packet laid out as enc_write_precinct does. */
__device__ static uint32_t packet_layout_bytes(const enc_params &pp, const enc_packet_size &z)
{
    const uint32_t lcnt = z.raw ? enc_ceil8(z.rawcnt) : enc_ceil8(z.cnt);
    return (pp.long_headers ? 7 : 5) + (z.raw ? 0 : enc_ceil8(z.sig)) + lcnt + enc_ceil8(z.dat) +
           enc_ceil8(z.sgn);
}

/* Inclusive warp scan of a value. */
__device__ __forceinline__ uint64_t warp_scan(uint64_t v)
{
    const int lane = threadIdx.x & 31;
    for (int o = 1; o < 32; o <<= 1) {
        const uint64_t u = __shfl_up_sync(FULL, v, o);
        if (lane >= o)
            v += u;
    }
    return v;
}

/* Max and AND over the 8 lanes of a significance group (lanes 8j..8j+7). */
__device__ __forceinline__ int seg8_max(int v)
{
    for (int o = 1; o < 8; o <<= 1)
        v = max(v, __shfl_xor_sync(FULL, v, o));
    return v;
}

__device__ static void pack_line(const enc_gpu_consts &k, const enc_bline &bl, int li,
                                 const pack_shared &sh, const uint8_t *gcli, const int32_t *coef,
                                 int ttop, uint32_t *buf, uint64_t base)
{
    const int lane = threadIdx.x & 31;
    const int b = bl.band, t = sh.pr.t[b], m = sh.pr.mode[b], raw = sh.raw[li];
    const int tt = ttop > t ? ttop : t;
    const enc_params &p = k.params;
    const uint8_t *g = gcli + bl.gcli_off;
    const uint8_t *top = g - bl.gcli_stride; /* the line above (vertical prediction only) */
    const int32_t *cf = coef + k.coef_off[k.band[b].comp] + bl.coef_off;
    uint64_t carry_cnt = 0, carry_dat = 0, carry_sgn = 0;
    for (uint32_t i0 = 0; i0 < bl.groups; i0 += 32) {
        const uint32_t i = i0 + lane;
        const int active = i < bl.groups;
        const int gi = active ? g[i] : 0;
        const int vsym = active && (m & ENC_MODE_VPRED) ? enc_vpred_symbol(gi, top[i], t, tt) : 0;
        const int gmax = seg8_max(gi);
        const int allzero = !seg8_max(vsym != 0);
        const int skip =
            (m & ENC_MODE_SIG) ? ((!(m & ENC_MODE_VPRED) || p.rm) ? gmax <= t : allzero) : 0;
        /* Count code. */
        int cbits = 0;
        uint32_t ccode = 0;
        if (active) {
            if (raw) {
                cbits = 4;
                ccode = (uint32_t)gi;
            } else if (!skip) {
                const int x = (m & ENC_MODE_VPRED) ? vsym : (gi > t ? gi - t : 0);
                cbits = x + 1;
                ccode = ((1u << x) - 1) << 1;
            }
        }
        /* Data and signs. */
        int dbits = 0, sbits = 0;
        uint64_t dcode = 0, scode = 0;
        if (active && gi > t) {
            uint32_t qv[4] = {0, 0, 0, 0}, neg = 0;
            for (int j = 0; j < 4; j++)
                if (4 * i + j < bl.width) {
                    const int32_t v = cf[4 * i + j];
                    qv[j] = enc_quantize(v, gi, t, p.qpih, p.fq);
                    if (qv[j] && v < 0)
                        neg |= 8u >> j;
                }
            if (!p.fs) {
                dcode = neg;
                dbits = 4;
            }
            for (int bp = gi - t - 1; bp >= 0; bp--) {
                dcode = dcode << 4 | ((qv[0] >> bp) & 1) << 3 | ((qv[1] >> bp) & 1) << 2 |
                        ((qv[2] >> bp) & 1) << 1 | ((qv[3] >> bp) & 1);
                dbits += 4;
            }
            if (p.fs)
                for (int j = 0; j < 4; j++)
                    if (qv[j]) {
                        scode = scode << 1 | ((neg >> (3 - j)) & 1);
                        sbits++;
                    }
        }
        /* Offsets: one scan of the three lengths packed in 21-bit fields. */
        const uint64_t packed = (uint64_t)cbits | (uint64_t)dbits << 21 | (uint64_t)sbits << 42;
        const uint64_t incl = warp_scan(packed), excl = incl - packed;
        const uint64_t mask = (1u << 21) - 1;
        if (cbits)
            put_bits(buf, base + sh.cnt_off[li] + carry_cnt + (excl & mask), ccode, cbits);
        if (dbits)
            put_bits(buf, base + sh.dat_off[li] + carry_dat + ((excl >> 21) & mask), dcode, dbits);
        if (sbits)
            put_bits(buf, base + sh.sgn_off[li] + carry_sgn + ((excl >> 42) & mask), scode, sbits);
        if (active && !raw && (m & ENC_MODE_SIG) && (lane & 7) == 0)
            put_bits(buf, base + sh.sig_off[li] + i / 8, (uint64_t)skip, 1);
        const uint64_t tot = __shfl_sync(FULL, incl, 31);
        carry_cnt += tot & mask;
        carry_dat += (tot >> 21) & mask;
        carry_sgn += (tot >> 42) & mask;
    }
}

__global__ void __launch_bounds__(32 * PACK_WARPS, PACK_MIN_BLOCKS)
    enc_pack(const __grid_constant__ enc_gpu_consts k, const enc_bline *blines,
             const uint32_t *bline_first, const enc_line_cost *cost, const gpu_prec *prec,
             const uint8_t *gtli, const uint8_t *gcli, const int32_t *coef,
             const uint64_t *slice_off, const uint4 *blob, uint32_t *buf, unsigned *status)
{
    __shared__ pack_shared sh;
    if (*(volatile unsigned *)status)
        return; /* a failed frame: offsets may not hold, write nothing */
    const uint32_t p = blockIdx.x;
    const int row = (int)(p / k.cols), col = (int)(p % k.cols), s = row / k.hsl;
    const uint32_t f = bline_first[p];
    const int nbl = (int)(bline_first[p + 1] - f);
    const enc_bline *bl = blines + f;
    const enc_line_cost *cs = cost + f;
    const uint16_t *pb = (const uint16_t *)(blob + (size_t)p * (k.tab.blob_bytes / 16));
    for (int i = threadIdx.x; i < (int)sizeof(gpu_prec) / 4; i += blockDim.x)
        ((uint32_t *)&sh.pr)[i] = ((const uint32_t *)&prec[p])[i];
    for (int i = threadIdx.x; i < pb[0] + 2 && i < MAX_LINES + 2; i += blockDim.x)
        sh.pk[i] = pb[i];
    __syncthreads();
    const enc_params &pp = k.params;
    const int lines = min(nbl, MAX_LINES), npk = min((int)sh.pk[0], MAX_LINES);
    /* Every band line's bits at the decision, the lines over the threads. */
    for (int i = threadIdx.x; i < lines; i += blockDim.x) {
        const enc_bline l = bl[i];
        const int b = l.band, t = sh.pr.t[b], m = sh.pr.mode[b];
        sh.cnt_off[i] = cs[i].unary[m][t];
        sh.sig_off[i] = (m & ENC_MODE_SIG) ? enc_sig_bits(l.groups) : 0;
        sh.raw_cnt[i] = 4 * l.groups;
        sh.dat_off[i] = cs[i].data[t];
        sh.sgn_off[i] = pp.fs ? cs[i].sign[t] : 0;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < npk; j += blockDim.x)
        sh.pk_at[j] = packet_layout_bytes(pp, packet_sums(pp, sh, j));
    __syncthreads();
    if (threadIdx.x < 32) { /* the packets' offsets: an exclusive scan on one warp */
        uint64_t carry = pp.prec_header_bytes;
        for (int j0 = 0; j0 < npk; j0 += 32) {
            const int j = j0 + (int)threadIdx.x;
            const uint64_t v = j < npk ? sh.pk_at[j] : 0, incl = warp_scan(v);
            if (j < npk)
                sh.pk_at[j] = (uint32_t)(carry + incl - v);
            carry += __shfl_sync(FULL, incl, 31);
        }
        if (threadIdx.x == 0)
            sh.end = (uint32_t)carry;
    }
    __syncthreads();
    const uint64_t base_byte = slice_off[s] + sh.pr.offset;
    const uint64_t base = base_byte * 8;
    if (threadIdx.x == 0) {
        if (row == s * k.hsl && col == 0) /* SLH (A.4.11) before the slice's first precinct */
            put_bits(buf, (base_byte - 6) * 8,
                     (uint64_t)XS_MARKER_SLH << 32 | 4u << 16 | (unsigned)s, 48);
        if (p == k.nprec - 1)
            put_bits(buf, (base_byte + sh.pr.total) * 8, XS_MARKER_EOC, 16);
        /* Precinct header: Lprc, Q, R, D[p,b] (0 for bands the precinct lacks). */
        put_bits(buf, base, sh.pr.total - pp.prec_header_bytes, 24);
        put_bits(buf, base + 24, sh.pr.q, 8);
        put_bits(buf, base + 32, sh.pr.r, 8);
        if (sh.end != sh.pr.bytes || nbl > MAX_LINES)
            report(status, GPU_ENC_ERR_PACK, p);
    }
    const uint16_t *bfirst = pb + k.tab.bfirst;
    for (int b = threadIdx.x; b < k.nbands; b += blockDim.x)
        if (bfirst[b + 1] > bfirst[b])
            put_bits(buf, base + 40 + 2 * b, sh.pr.mode[b], 2);
    /* Packet headers, and where every band line's fields go. */
    for (int j = threadIdx.x; j < npk; j += blockDim.x) {
        const enc_packet_size z = packet_sums(pp, sh, j);
        const uint32_t lcnt = z.raw ? enc_ceil8(z.rawcnt) : enc_ceil8(z.cnt);
        const uint32_t ldat = enc_ceil8(z.dat), lsgn = enc_ceil8(z.sgn);
        uint32_t pos = sh.pk_at[j];
        const uint64_t hb = (uint64_t)(base_byte + pos) * 8;
        if (pp.long_headers)
            put_bits(buf, hb,
                     (uint64_t)z.raw << 55 | (uint64_t)ldat << 35 | (uint64_t)lcnt << 15 | lsgn,
                     56);
        else
            put_bits(buf, hb,
                     (uint64_t)z.raw << 39 | (uint64_t)ldat << 24 | (uint64_t)lcnt << 11 | lsgn,
                     40);
        pos += pp.long_headers ? 7 : 5;
        uint32_t sig = pos * 8, cnt = (pos + (z.raw ? 0 : enc_ceil8(z.sig))) * 8;
        uint32_t dat = cnt + lcnt * 8, sgn = dat + ldat * 8;
        for (int i = sh.pk[1 + j]; i < sh.pk[2 + j]; i++) {
            const uint32_t vsig = sh.sig_off[i], vcnt = z.raw ? sh.raw_cnt[i] : sh.cnt_off[i],
                           vdat = sh.dat_off[i], vsgn = sh.sgn_off[i];
            sh.raw[i] = (uint8_t)z.raw;
            sh.sig_off[i] = sig;
            sh.cnt_off[i] = cnt;
            sh.dat_off[i] = dat;
            sh.sgn_off[i] = sgn;
            if (!z.raw)
                sig += vsig;
            cnt += vcnt;
            dat += vdat;
            sgn += vsgn;
        }
    }
    __syncthreads();
    const int w = threadIdx.x >> 5;
    const int first_row = row % k.hsl == 0;
    for (int i = w; i < nbl && i < MAX_LINES; i += PACK_WARPS) {
        const enc_bline l = bl[i];
        const int ttop = l.line == 0 && !first_row ? gtli[(p - k.cols) * k.nbands + l.band] : 0;
        pack_line(k, l, i, sh, gcli, coef, ttop, buf, base);
    }
}

/* ---- the context ---- */

enum { ENC_STAGES = 7 };
static const char *const stage_names[ENC_STAGES] = {"input",  "dwt",     "gcli", "costs",
                                                    "slices", "offsets", "pack"};

struct xs_gpu_encoder {
    xsf_error err;
    enc_plan plan;
    int device;
    cudaStream_t stream;
    int own_stream;
    enc_gpu_consts *consts; /* host copy, passed by value to the kernels */
    uint16_t *d_in16;       /* staging of host pictures */
    size_t in16_off[XS_MAX_COMPONENTS];
    int32_t *d_in32, *d_coef, *d_lut;
    /* forward DWT plans: wav[c] serves wav_planes[c] consecutive components
     * of one size and decomposition from c on (NULL, 0 inside a group) */
    wav_cuda_plan *wav[XS_MAX_COMPONENTS];
    int wav_planes[XS_MAX_COMPONENTS];
    uint8_t *d_gcli, *d_gtli, *d_header, *d_out;
    uint16_t *d_reach;
    enc_bline *d_bline;
    uint32_t *d_bline_first, *d_allot, *d_share, *d_slice_size;
    uint4 *d_blob; /* enc_slices' plan blobs (tab_layout) */
    enc_line_cost *d_cost;
    gpu_prec *d_prec;
    uint64_t *d_slice_off;
    unsigned *d_status, *h_status;
    size_t out_cap, slice_smem;
    size_t lcod_off;
    int frames;
    int timing;
    cudaEvent_t ev[ENC_STAGES + 1];
};

static void release(xs_gpu_encoder *e)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        wav_cuda_plan_destroy(e->wav[c]);
    void *bufs[] = {e->d_in16,        e->d_in32,   e->d_coef,       e->d_lut,   e->d_gcli,
                    e->d_gtli,        e->d_header, e->d_out,        e->d_reach, e->d_bline,
                    e->d_bline_first, e->d_allot,  e->d_slice_size, e->d_cost,  e->d_prec,
                    e->d_slice_off,   e->d_status, e->d_share,      e->d_blob};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cudaFree(bufs[i]);
    cudaFreeHost(e->h_status);
    for (int i = 0; i <= ENC_STAGES; i++)
        if (e->ev[i])
            cudaEventDestroy(e->ev[i]);
    if (e->own_stream && e->stream)
        cudaStreamDestroy(e->stream);
    free(e->consts);
    enc_plan_free(&e->plan);
}

static size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* enc_slices' tables: the layout of a slot, the plan blob of every precinct
 * (its packet runs and the lines of each band), and how many slots its
 * shared memory holds (every precinct of a slice with XS_RC_SLICE where
 * they fit, else batches). */
static xsf_status slice_tables(xs_gpu_encoder *e)
{
    const enc_plan *pl = &e->plan;
    const xs_geometry *g = &pl->geom;
    enc_gpu_consts *k = e->consts;
    tab_layout *t = &k->tab;
    const int maxbl = pl->max_blines ? pl->max_blines : 1;
    t->bfirst = (uint32_t)maxbl + 2;
    t->blist = t->bfirst + (uint32_t)g->nbands + 1;
    t->blob_bytes = (uint32_t)align16(2 * ((size_t)t->blist + (size_t)maxbl));
    t->cost = 0;
    t->mc = (uint32_t)(maxbl * sizeof(enc_line_cost));
    t->bline = t->mc + (uint32_t)(g->nbands * ENC_MODES * ENC_T * sizeof(uint32_t));
    t->blob = t->bline + (uint32_t)align16(maxbl * sizeof(enc_bline));
    t->bytes = t->blob + t->blob_bytes;
    int optin = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, e->device));
    const size_t avail = optin > 32768 ? (size_t)optin - 32768 : 0; /* static shared memory */
    const int per_slice = pl->cfg.rate_control == XS_RC_SLICE ? pl->hdr.hsl * g->cols : 1;
    k->tab_slots =
        (int)(avail / t->bytes < (size_t)per_slice ? avail / t->bytes : (size_t)per_slice);
    if (k->tab_slots < 1)
        return xsf_error_set(&e->err, XSF_ERR_UNSUPPORTED,
                             "%d band lines in a precinct: the GPU encoder's tables need %u bytes "
                             "of shared memory, the device has %d",
                             pl->max_blines, t->bytes, optin);
    e->slice_smem = (size_t)k->tab_slots * t->bytes;
    CUDA_TRY(cudaFuncSetAttribute(enc_slices, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)e->slice_smem));
    const size_t np = pl->nprecincts, words = t->blob_bytes / 2;
    uint16_t *blob = (uint16_t *)calloc(np, t->blob_bytes);
    if (!blob)
        return xsf_error_set(&e->err, XSF_ERR_NOMEM, "out of memory");
    for (size_t p = 0; p < np; p++) {
        const enc_bline *bl = pl->bline + pl->bline_first[p];
        const int nbl = (int)(pl->bline_first[p + 1] - pl->bline_first[p]);
        uint16_t *o = blob + p * words, *bf = o + t->bfirst, *bls = o + t->blist;
        int npk = 0;
        for (int i = 0; i < nbl; i++)
            if (i == 0 || bl[i].packet != bl[i - 1].packet)
                o[1 + npk++] = (uint16_t)i;
        o[1 + npk] = (uint16_t)nbl;
        o[0] = (uint16_t)npk;
        uint16_t at[XS_MAX_BANDS + 1] = {0};
        for (int i = 0; i < nbl; i++)
            at[bl[i].band + 1]++;
        for (int b = 0; b < g->nbands; b++)
            at[b + 1] = (uint16_t)(at[b + 1] + at[b]);
        for (int b = 0; b <= g->nbands; b++)
            bf[b] = at[b];
        for (int i = 0; i < nbl; i++)
            bls[at[bl[i].band]++] = (uint16_t)i;
    }
    cudaError_t ce = cudaMalloc(&e->d_blob, np * t->blob_bytes);
    if (ce == cudaSuccess)
        ce = cudaMemcpy(e->d_blob, blob, np * t->blob_bytes, cudaMemcpyHostToDevice);
    free(blob);
    if (ce != cudaSuccess)
        return xsf_error_set(&e->err, XSF_ERR_CUDA, "enc_slices' tables: %s",
                             cudaGetErrorString(ce));
    return XSF_OK;
}

static xsf_status setup(xs_gpu_encoder *e)
{
    const enc_plan *pl = &e->plan;
    const xs_geometry *g = &pl->geom;
    const xs_header *h = &pl->hdr;
    enc_gpu_consts *k = e->consts;
    memset(k, 0, sizeof *k);
    k->params = pl->params;
    k->nbands = g->nbands;
    k->nc = g->nc;
    k->ncd = g->ncd;
    k->rows = g->rows;
    k->cols = g->cols;
    k->hsl = h->hsl;
    k->slices = g->slices;
    k->cpih = h->cpih;
    k->bw = h->bw;
    k->rc = pl->cfg.rate_control;
    k->nprec = (uint32_t)pl->nprecincts;
    size_t total = 0, in16 = 0, lut = 0;
    for (int c = 0; c < g->nc; c++) {
        k->comp_width[c] = g->comp[c].width;
        k->comp_height[c] = g->comp[c].height;
        k->depth[c] = h->depth[c];
        k->coef_off[c] = total;
        e->in16_off[c] = in16;
        const size_t n = (size_t)g->comp[c].width * g->comp[c].height;
        total += n;
        in16 += n;
        k->lut_off[c] = -1;
        if (pl->nlt_lut[c]) {
            int same = -1;
            for (int o = 0; o < c; o++)
                if (pl->nlt_lut[o] == pl->nlt_lut[c])
                    same = o;
            k->lut_off[c] = same >= 0 ? k->lut_off[same] : (long long)lut;
            if (same < 0)
                lut += (size_t)1 << h->depth[c];
        }
    }
    for (int b = 0; b < g->nbands; b++) {
        const xs_band *bd = &g->band[b];
        k->gain[b] = h->gain[b];
        k->priority[b] = h->priority[b];
        gpu_band_info *o = &k->band[b];
        o->comp = bd->comp;
        o->x0 = bd->x0;
        o->y0 = bd->y0;
        o->width = bd->width;
        o->height = bd->height;
        o->col_width = bd->col_width;
        o->gcli_offset = (uint32_t)bd->gcli_offset;
        o->gcli_stride = (uint32_t)bd->gcli_stride;
    }
    const size_t np = pl->nprecincts;
    e->out_cap = (pl->max_bytes + 8 + 3) & ~(size_t)3;
    CUDA_TRY(cudaMalloc(&e->d_in16, (in16 ? in16 : 1) * sizeof(uint16_t)));
    CUDA_TRY(cudaMalloc(&e->d_in32, total * sizeof(int32_t)));
    CUDA_TRY(cudaMalloc(&e->d_coef, total * sizeof(int32_t)));
    CUDA_TRY(cudaMalloc(&e->d_lut, (lut ? lut : 1) * sizeof(int32_t)));
    CUDA_TRY(cudaMalloc(&e->d_gcli, g->gcli_total ? g->gcli_total : 1));
    CUDA_TRY(cudaMalloc(&e->d_reach, (g->gcli_total ? g->gcli_total : 1) * sizeof(uint16_t)));
    CUDA_TRY(cudaMalloc(&e->d_gtli, np * (size_t)g->nbands));
    CUDA_TRY(cudaMalloc(&e->d_header, pl->header_bytes));
    CUDA_TRY(cudaMalloc(&e->d_out, e->out_cap));
    CUDA_TRY(cudaMalloc(&e->d_bline, (pl->nblines ? pl->nblines : 1) * sizeof(enc_bline)));
    CUDA_TRY(cudaMalloc(&e->d_bline_first, (np + 1) * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&e->d_allot, np * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&e->d_share, np * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&e->d_slice_size, (size_t)g->slices * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&e->d_cost, (pl->nblines ? pl->nblines : 1) * sizeof(enc_line_cost)));
    CUDA_TRY(cudaMalloc(&e->d_prec, np * sizeof(gpu_prec)));
    CUDA_TRY(cudaMalloc(&e->d_slice_off, (size_t)g->slices * sizeof(uint64_t)));
    CUDA_TRY(cudaMalloc(&e->d_status, GPU_STATUS_WORDS * sizeof(unsigned)));
    CUDA_TRY(cudaMallocHost(&e->h_status, GPU_STATUS_WORDS * sizeof(unsigned)));
    for (int i = 0; i <= ENC_STAGES; i++)
        CUDA_TRY(cudaEventCreate(&e->ev[i]));
    for (int c = 0; c < g->nc; c++) {
        if (k->lut_off[c] >= 0)
            CUDA_TRY(cudaMemcpyAsync(e->d_lut + k->lut_off[c], pl->nlt_lut[c],
                                     sizeof(int32_t) << h->depth[c], cudaMemcpyHostToDevice,
                                     e->stream));
    }
    /* Components of one size and decomposition (one after the other in
     * coef_off) share one plan: one launch per level for all of them. */
    for (int c = 0; c < g->ncd;) {
        const int n = xs_dwt_group(g, c, g->ncd);
        const wav_plan_desc d = xs_dwt_desc(&g->comp[c], n);
        xsf_status st = wav_cuda_plan_create(&e->wav[c], &d, &e->err);
        if (st != XSF_OK)
            return st;
        e->wav_planes[c] = n;
        c += n;
    }
    CUDA_TRY(cudaMemcpyAsync(e->d_header, pl->header, pl->header_bytes, cudaMemcpyHostToDevice,
                             e->stream));
    if (pl->nblines)
        CUDA_TRY(cudaMemcpyAsync(e->d_bline, pl->bline, pl->nblines * sizeof(enc_bline),
                                 cudaMemcpyHostToDevice, e->stream));
    CUDA_TRY(cudaMemcpyAsync(e->d_bline_first, pl->bline_first, (np + 1) * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, e->stream));
    CUDA_TRY(cudaMemcpyAsync(e->d_allot, pl->allot, np * sizeof(uint32_t), cudaMemcpyHostToDevice,
                             e->stream));
    if (pl->cfg.rate_control != XS_RC_FIXED) {
        /* Every slice is exactly its share: the offsets are known now. */
        uint64_t *off = (uint64_t *)malloc((size_t)g->slices * sizeof(uint64_t));
        if (!off)
            return xsf_error_set(&e->err, XSF_ERR_NOMEM, "out of memory");
        uint64_t o = pl->header_bytes;
        for (int s = 0; s < g->slices; s++) {
            off[s] = o;
            o += 6;
            const int r0 = s * h->hsl, r1 = r0 + h->hsl < g->rows ? r0 + h->hsl : g->rows;
            for (size_t p = (size_t)r0 * g->cols; p < (size_t)r1 * g->cols; p++)
                o += pl->allot[p];
        }
        cudaError_t ce = cudaMemcpyAsync(e->d_slice_off, off, (size_t)g->slices * sizeof(uint64_t),
                                         cudaMemcpyHostToDevice, e->stream);
        free(off); /* pageable: the copy has taken it when it returns */
        if (ce != cudaSuccess)
            return xsf_error_set(&e->err, XSF_ERR_CUDA, "cudaMemcpy: %s", cudaGetErrorString(ce));
    }
    xsf_status st = slice_tables(e);
    if (st != XSF_OK)
        return st;
    if (pl->max_blines > MAX_LINES)
        return xsf_error_set(&e->err, XSF_ERR_UNSUPPORTED,
                             "%d band lines in a precinct (the GPU encoder packs %d)",
                             pl->max_blines, MAX_LINES);
    e->lcod_off = 2 + 2 + (size_t)(pl->header[4] << 8 | pl->header[5]) + 4;
    return XSF_OK;
}

extern "C" xsf_status xs_gpu_encoder_create(xs_gpu_encoder **out, const xs_encoder_config *cfg,
                                            int device, xs_cuda_stream stream, xsf_error *err)
{
    xsf_error local;
    if (!err)
        err = &local;
    if (!out || !cfg)
        return xsf_error_set(err, XSF_ERR_ARG, "xs_gpu_encoder_create: NULL argument");
    *out = NULL;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= device || device < 0)
        return xsf_error_set(err, XSF_ERR_NODEVICE, "no CUDA device %d", device);
    xs_gpu_encoder *e = (xs_gpu_encoder *)calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the GPU encoder");
    e->consts = (enc_gpu_consts *)calloc(1, sizeof *e->consts);
    xsf_status st = e->consts ? enc_plan_init(&e->plan, cfg, err) : XSF_ERR_NOMEM;
    if (st != XSF_OK) {
        free(e->consts);
        free(e);
        return st == XSF_ERR_NOMEM ? xsf_error_set(err, st, "out of memory") : st;
    }
    e->device = device;
    xsf_cuda_device_scope on_device(device);
    if (on_device.error() != cudaSuccess) {
        st = xsf_error_set(&e->err, XSF_ERR_CUDA, "cudaSetDevice(%d) failed", device);
    } else if (stream) {
        e->stream = (cudaStream_t)stream;
    } else if (cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking) != cudaSuccess) {
        st = xsf_error_set(&e->err, XSF_ERR_CUDA, "cudaStreamCreate failed");
    } else {
        e->own_stream = 1;
    }
    if (st == XSF_OK)
        st = setup(e);
    if (st != XSF_OK) {
        xsf_error_set(err, st, "%s", e->err.msg);
        release(e);
        free(e);
        return st;
    }
    *out = e;
    return XSF_OK;
}

extern "C" void xs_gpu_encoder_destroy(xs_gpu_encoder *e)
{
    if (!e)
        return;
    xsf_cuda_device_scope on_device(e->device);
    if (e->stream)
        cudaStreamSynchronize(e->stream);
    release(e);
    free(e);
}

extern "C" size_t xs_gpu_encoder_max_bytes(const xs_gpu_encoder *e)
{
    return e ? e->plan.max_bytes : 0;
}

extern "C" const uint8_t *xs_gpu_encoder_codestream(const xs_gpu_encoder *e)
{
    return e ? e->d_out : NULL;
}

extern "C" const char *xs_gpu_encoder_error(const xs_gpu_encoder *e)
{
    return e ? e->err.msg : "no encoder";
}

/* Enqueues one frame from device planes. */
static xsf_status encode_planes(xs_gpu_encoder *e, const gpu_planes &in)
{
    const enc_plan *pl = &e->plan;
    const xs_geometry *g = &pl->geom;
    const enc_gpu_consts &k = *e->consts;
    const cudaStream_t st = e->stream; /* (on e->device: the public call's ON_DEVICE) */
    CUDA_TRY(cudaMemsetAsync(e->d_status, 0, GPU_STATUS_WORDS * sizeof(unsigned), st));
#define STAGE(i)                                                                                   \
    do {                                                                                           \
        if (e->timing)                                                                             \
            CUDA_TRY(cudaEventRecord(e->ev[i], st));                                               \
    } while (0)
    STAGE(0);
    enc_input<<<dim3(512, g->nc), 256, 0, st>>>(k, in, e->d_in32, e->d_coef, e->d_lut);
    LAUNCH_TRY("enc_input");
    STAGE(1);
    for (int c = 0; c < g->ncd; c += e->wav_planes[c]) {
        xsf_status s = wav_cuda_forward_to(e->wav[c], e->d_in32 + k.coef_off[c],
                                           e->d_coef + k.coef_off[c], st);
        if (s != XSF_OK)
            return xsf_error_set(&e->err, s, "forward DWT of component %d: %s", c,
                                 wav_cuda_plan_error(e->wav[c]));
    }
    STAGE(2);
    enc_gcli<<<dim3(64, g->nbands), 256, 0, st>>>(k, e->d_coef, e->d_gcli, e->d_reach, e->d_status);
    LAUNCH_TRY("enc_gcli");
    STAGE(3);
    const uint32_t nbl = (uint32_t)pl->nblines;
    if (nbl) {
        enc_costs<<<(nbl + COST_WARPS - 1) / COST_WARPS, 32 * COST_WARPS, 0, st>>>(
            k, e->d_bline, nbl, e->d_gcli, e->d_reach, e->d_cost);
        LAUNCH_TRY("enc_costs");
    }
    CUDA_TRY(cudaMemsetAsync(e->d_out, 0, e->out_cap, st));
    CUDA_TRY(
        cudaMemcpyAsync(e->d_out, e->d_header, pl->header_bytes, cudaMemcpyDeviceToDevice, st));
    STAGE(4);
    enc_slices<<<g->slices, 32 * SLICE_WARPS, e->slice_smem, st>>>(
        k, e->d_bline, e->d_bline_first, e->d_blob, e->d_gcli, e->d_reach, e->d_cost, e->d_allot,
        e->d_share, e->d_gtli, e->d_prec, e->d_slice_size, e->d_status, pl->cfg.q, pl->cfg.r);
    LAUNCH_TRY("enc_slices");
    STAGE(5);
    if (pl->cfg.rate_control == XS_RC_FIXED) {
        enc_offsets<<<1, 1, 0, st>>>(e->d_slice_size, g->slices, (uint32_t)pl->header_bytes,
                                     (uint32_t)e->lcod_off, e->d_slice_off, e->d_out, e->d_status);
        LAUNCH_TRY("enc_offsets");
    }
    STAGE(6);
    enc_pack<<<(unsigned)pl->nprecincts, 32 * PACK_WARPS, 0, st>>>(
        k, e->d_bline, e->d_bline_first, e->d_cost, e->d_prec, e->d_gtli, e->d_gcli, e->d_coef,
        e->d_slice_off, e->d_blob, (uint32_t *)e->d_out, e->d_status);
    LAUNCH_TRY("enc_pack");
    STAGE(7);
#undef STAGE
    CUDA_TRY(cudaMemcpyAsync(e->h_status, e->d_status, GPU_STATUS_WORDS * sizeof(unsigned),
                             cudaMemcpyDeviceToHost, st));
    e->frames++;
    return XSF_OK;
}

/* A picture on the device is read in place (its planes must stay untouched
 * until the encode's work on the stream has run); one in host memory is
 * uploaded into the encoder's input planes first. */
extern "C" xsf_status xs_gpu_encode(xs_gpu_encoder *e, const xsf_picture *pic)
{
    if (!e || !pic)
        return XSF_ERR_ARG;
    xsf_error_clear(&e->err);
    ON_DEVICE(e);
    const xs_geometry *g = &e->plan.geom;
    const xsf_format *f = &pic->fmt;
    if (f->nc != g->nc || f->container != XSF_PLANAR_U16)
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "picture of %d components, the encoder expects %d", f->nc, g->nc);
    const int on_device = pic->memory == XSF_MEMORY_DEVICE;
    gpu_planes in;
    memset(&in, 0, sizeof in);
    for (int c = 0; c < g->nc; c++) {
        const int w = g->comp[c].width, h = g->comp[c].height;
        if (f->width[c] != w || f->height[c] != h || f->depth[c] != e->plan.hdr.depth[c])
            return xsf_error_set(
                &e->err, XSF_ERR_ARG,
                "component %d is %dx%d at %d bits, the encoder expects %dx%d at %u", c, f->width[c],
                f->height[c], f->depth[c], w, h, e->plan.hdr.depth[c]);
        if (!pic->data[c] || pic->stride[c] < (size_t)w * 2 || (on_device && pic->stride[c] % 2))
            return xsf_error_set(&e->err, XSF_ERR_ARG,
                                 "component %d: plane or stride of %zu bytes unusable", c,
                                 pic->stride[c]);
        if (on_device) {
            in.plane[c] = (const uint16_t *)pic->data[c];
            in.pitch[c] = pic->stride[c] / 2;
            continue;
        }
        uint16_t *dst = e->d_in16 + e->in16_off[c];
        CUDA_TRY(cudaMemcpy2DAsync(dst, (size_t)w * 2, pic->data[c], pic->stride[c], (size_t)w * 2,
                                   (size_t)h, cudaMemcpyHostToDevice, e->stream));
        in.plane[c] = dst;
        in.pitch[c] = (size_t)w;
    }
    return encode_planes(e, in);
}

extern "C" xsf_status xs_gpu_encoder_sync(xs_gpu_encoder *e)
{
    if (!e)
        return XSF_ERR_ARG;
    ON_DEVICE(e);
    CUDA_TRY(cudaStreamSynchronize(e->stream));
    if (!e->frames)
        return XSF_OK;
    const unsigned code = e->h_status[0], where = e->h_status[1];
    const xs_geometry *g = &e->plan.geom;
    switch (code) {
    case 0: return XSF_OK;
    case GPU_ENC_ERR_BUDGET:
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "precinct (%u,%u): its budget cannot hold even the coarsest "
                             "quantization: raise the rate",
                             where / g->cols, where % g->cols);
    case GPU_ENC_ERR_PLANES:
        return xsf_error_set(
            &e->err, XSF_ERR_ARG,
            "a coefficient of band %u needs more than 15 bit planes (Bw=%u, Fq=%u): raise Fq or "
            "lower Bw",
            where, e->plan.hdr.bw, e->plan.hdr.fq);
    default:
        return xsf_error_set(&e->err, XSF_ERR_INVALID,
                             "internal: precinct %u packed to another size than decided", where);
    }
}

extern "C" xsf_status xs_gpu_encoder_download(xs_gpu_encoder *e, uint8_t *out, size_t cap,
                                              size_t *len, int sync)
{
    if (!e || !out || !len)
        return XSF_ERR_ARG;
    *len = 0;
    ON_DEVICE(e);
    const int fixed = e->plan.cfg.rate_control == XS_RC_FIXED;
    if (fixed && !sync)
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "with fixed Q/R the size is known only after a sync");
    size_t n = e->plan.target_bytes;
    if (fixed) {
        xsf_status st = xs_gpu_encoder_sync(e);
        if (st != XSF_OK)
            return st;
        n = e->h_status[2];
    }
    if (cap < n)
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "output buffer of %zu bytes, the codestream has %zu", cap, n);
    CUDA_TRY(cudaMemcpyAsync(out, e->d_out, n, cudaMemcpyDeviceToHost, e->stream));
    if (sync) {
        xsf_status st = xs_gpu_encoder_sync(e);
        if (st != XSF_OK)
            return st;
    }
    *len = n;
    return XSF_OK;
}

extern "C" void xs_gpu_encoder_set_timing(xs_gpu_encoder *e, int on)
{
    if (e)
        e->timing = on;
}

extern "C" int xs_gpu_encoder_stage_times(const xs_gpu_encoder *e, const char **names, float *ms,
                                          int max)
{
    if (!e || !e->timing || !e->frames)
        return 0;
    xsf_cuda_device_scope on_device(e->device);
    int n = 0;
    for (int i = 0; i < ENC_STAGES && n < max; i++, n++) {
        names[n] = stage_names[i];
        ms[n] = 0;
        cudaEventElapsedTime(&ms[n], e->ev[i], e->ev[i + 1]);
    }
    return n;
}
