/* The GPU JPEG XS decoder. The host reads the headers and walks the precinct
 * lengths (a few microseconds); everything that touches the entropy-coded
 * data runs on the GPU:
 *   1. xs_parse_precincts   one warp per precinct: Q, R, coding modes, the
 *                           truncation positions, and the packet headers, which
 *                           locate every subpacket;
 *   2. xs_decode_packets    one block per packet (its bands as one flat run of
 *                           code groups, 512 per step): significance flags and the
 *                           raw or unary bitplane counts, then, from the counts
 *                           in registers, the data: bit offsets from a block scan
 *                           of the groups' lengths, magnitudes, dequantization
 *                           and signs (sign packing too, from a second scan of
 *                           the non-zero counts). A packet with a vertically
 *                           predicted band keeps its residual symbols and
 *                           leaves its data to step 4;
 *   3. xs_resolve_vpred     one thread per code group column of a slice: the
 *                           vertical prediction, precinct row after row;
 *   4. xs_decode_data       the data of the packets step 2 left (none and at
 *                           once without vertical prediction);
 *   5. the inverse 5/3 DWT of wavelet/, whose last level writes the planar16
 *                           picture itself where it can (fused_output);
 *   6. xs_output            inverse RCT, NLT, rounding, clamping, uint16 planes
 *                           (where step 5 could not write them);
 *      xs_output_fmt        the same samples in another pixel format (v210,
 *                           NV12, RGBA, ...: xsf_picture.h), resampled and
 *                           packed as they are written.
 * Every step checks its input against the lengths that bound it and reports
 * the first error through a device word read back after the frame. */
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "wavelet_cuda.h"
#include "xs_internal.h"
#include "xsf_colour.h"
#include "xsf_cuda_device.h"
#include "xsf_pixfmt_pack.h"
}

/* Every public call that touches the GPU runs on the decoder's device and
 * leaves the caller's current device as it found it (xs.h: CUDA devices). */
#define ON_DEVICE(d)                                                                               \
    xsf_cuda_device_scope on_device_((d)->device);                                                 \
    if (on_device_.error() != cudaSuccess)                                                         \
    return xsf_error_set(&(d)->err, XSF_ERR_CUDA, "cannot select device %d", (d)->device)

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return xsf_error_set(&d->err, XSF_ERR_CUDA, "%s: %s", #call, cudaGetErrorString(e_));  \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Geometry as the kernels see it (uploaded with every frame: gains may change). */

struct gpu_band {
    int comp, lines, x0, y0, width, height, col_width, gcli_stride;
    unsigned long long gcli_offset;
    int gain, priority;
};

struct gpu_packet {
    int line, first, last;
};

struct gpu_geom {
    int nbands, npackets, rows, cols, hsl, nc;
    int long_headers, fs, rm, qpih, fq, header_bytes;
    int comp_width[XS_MAX_COMPONENTS];
    gpu_band band[XS_MAX_BANDS];
    gpu_packet packet[XS_MAX_PACKETS];
};

struct gpu_packet_info {
    unsigned sig, gcli, data, sign; /* byte offsets in the codestream */
    unsigned lcnt, ldat, lsgn;
    int flags; /* 1 present, 2 raw */
};

/* The device status words: err[0] the first error, err[1..3] where it was,
 * err[GPU_FLAGS] what the frame uses. */
#define GPU_STATUS_WORDS 8
#define GPU_FLAGS 4
#define GPU_FLAG_VPRED 1

enum {
    GPU_ERR_VPRED_FIRST = 1,
    GPU_ERR_PACKET_HEADER,
    GPU_ERR_SUBPACKETS,
    GPU_ERR_GCLI,
    GPU_ERR_GCLI_OVERRUN,
    GPU_ERR_DATA_OVERRUN,
    GPU_ERR_SIGN_OVERRUN,
    GPU_ERR_GCLI_RANGE,
};

static const char *gpu_error_text(int code)
{
    switch (code) {
    case GPU_ERR_VPRED_FIRST: return "vertical prediction in the first precinct of a slice";
    case GPU_ERR_PACKET_HEADER: return "packet header runs past Lprc";
    case GPU_ERR_SUBPACKETS: return "subpacket lengths exceed Lprc";
    case GPU_ERR_GCLI: return "invalid bitplane count code";
    case GPU_ERR_GCLI_OVERRUN: return "bitplane counts overrun Lcnt";
    case GPU_ERR_DATA_OVERRUN: return "data overrun Ldat";
    case GPU_ERR_SIGN_OVERRUN: return "signs overrun Lsgn";
    case GPU_ERR_GCLI_RANGE: return "predicted bitplane count out of range";
    }
    return "unknown error";
}

__device__ static void report(int *err, int code, int precinct, int packet, int band)
{
    if (atomicCAS(err, 0, code) == 0) {
        err[1] = precinct;
        err[2] = packet;
        err[3] = band;
    }
}

__device__ __forceinline__ int prec_height(const gpu_band &b, int row)
{
    int h = b.height - row * b.lines;
    return h < 0 ? 0 : min(h, b.lines);
}

__device__ __forceinline__ int prec_width(const gpu_band &b, int col)
{
    int w = b.width - col * b.col_width;
    return w < 0 ? 0 : min(w, b.col_width);
}

/* Codestream bits through aligned 32-bit words. The device copy of the
 * codestream is followed by 16 zero bytes, so a window that starts inside it
 * never leaves the allocation; a reader that consumes bits past its
 * subpacket is caught by comparing its final position with the subpacket end. */
__device__ __forceinline__ unsigned be32(const unsigned *w, unsigned long long idx)
{
    return __byte_perm(w[idx], 0, 0x0123);
}

/* Bits [pos, pos+32), first bit in the MSB. */
__device__ __forceinline__ unsigned peek32(const unsigned *w, unsigned long long pos)
{
    const unsigned long long i = pos >> 5;
    return __funnelshift_l(be32(w, i + 1), be32(w, i), (unsigned)pos & 31);
}

/* Bits [pos, pos+64). */
__device__ __forceinline__ unsigned long long peek64(const unsigned *w, unsigned long long pos)
{
    const unsigned long long i = pos >> 5;
    const unsigned s = (unsigned)pos & 31, a = be32(w, i), b = be32(w, i + 1), c = be32(w, i + 2);
    return (unsigned long long)__funnelshift_l(b, a, s) << 32 | __funnelshift_l(c, b, s);
}

__device__ __forceinline__ unsigned get_bits(const unsigned *w, unsigned long long &pos, int n)
{
    const unsigned v = peek32(w, pos) >> (32 - n);
    pos += n;
    return v;
}

/* ------------------------------------------------------------------------ */

/* One warp per precinct: the lanes share out the bands (coding modes,
 * truncation positions, which bands a packet holds), then walk the packet
 * headers together, each packet's position following from the last. */
__global__ void xs_parse_precincts(const unsigned *cs, const unsigned *prec_off,
                                   const __grid_constant__ gpu_geom gg, uint8_t *gtli,
                                   uint8_t *mode, uint8_t *raw_lines, gpu_packet_info *pkt,
                                   int first_prec, int end_prec, int *err)
{
    const gpu_geom *g = &gg;
    const int lane = threadIdx.x % 32;
    const int p = first_prec + (int)(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
    if (p >= end_prec)
        return;
    const int row = p / g->cols, col = p % g->cols, nb = g->nbands, npk = g->npackets;
    const unsigned base = prec_off[p];
    unsigned long long hp = (unsigned long long)base * 8;
    const unsigned lprc = get_bits(cs, hp, 24), q = get_bits(cs, hp, 8), r = get_bits(cs, hp, 8);
    const bool first = row % g->hsl == 0;
    int any_vpred = 0;
    for (int b = lane; b < nb; b += 32) {
        const int m = (int)(peek32(cs, (unsigned long long)(base + 5) * 8 + 2 * b) >> 30);
        int t = (int)q - g->band[b].gain - (g->band[b].priority < (int)r ? 1 : 0);
        t = t < 0 ? 0 : min(t, XS_MAX_GCLI);
        gtli[(size_t)p * nb + b] = (uint8_t)t;
        mode[(size_t)p * nb + b] = (uint8_t)m;
        raw_lines[(size_t)p * nb + b] = 0;
        if ((m & 1) && first)
            report(err, GPU_ERR_VPRED_FIRST, p, -1, b);
        any_vpred |= m & 1;
    }
    if (__any_sync(0xffffffffu, any_vpred) && lane == 0)
        atomicOr(&err[GPU_FLAGS], GPU_FLAG_VPRED);
    /* Every entry is written, also after an error: later kernels read them all. */
    for (int k = lane; k < npk; k += 32)
        pkt[(size_t)p * npk + k].flags = 0;
    __syncwarp();
    const unsigned start = base + g->header_bytes, end = start + lprc;
    unsigned pos = start;
    const unsigned hdr_bytes = g->long_headers ? 7 : 5;
    for (int k = 0; k < npk; k++) {
        const gpu_packet pk = g->packet[k];
        int present = 0;
        unsigned sigbits = 0;
        for (int b = pk.first + lane; b < pk.last; b += 32) {
            const gpu_band &bd = g->band[b];
            if (prec_height(bd, row) > pk.line) {
                present = 1;
                const int m = (int)(peek32(cs, (unsigned long long)(base + 5) * 8 + 2 * b) >> 30);
                if (m & 2)
                    sigbits += ((prec_width(bd, col) + 3) / 4 + 7) / 8;
            }
        }
        present = __any_sync(0xffffffffu, present);
        if (!present)
            continue;
        for (int o = 16; o; o >>= 1)
            sigbits += __shfl_xor_sync(0xffffffffu, sigbits, o);
        if (end - pos < hdr_bytes) {
            if (lane == 0)
                report(err, GPU_ERR_PACKET_HEADER, p, k, -1);
            return;
        }
        gpu_packet_info info;
        unsigned long long bp = (unsigned long long)pos * 8;
        const int raw = (int)get_bits(cs, bp, 1);
        if (g->long_headers) {
            info.ldat = get_bits(cs, bp, 20);
            info.lcnt = get_bits(cs, bp, 20);
            info.lsgn = get_bits(cs, bp, 15);
        } else {
            info.ldat = get_bits(cs, bp, 15);
            info.lcnt = get_bits(cs, bp, 13);
            info.lsgn = get_bits(cs, bp, 11);
        }
        pos += hdr_bytes;
        info.sig = pos;
        if (!raw)
            pos += (sigbits + 7) / 8;
        if (pos > end || info.lcnt > end - pos || info.ldat > end - pos - info.lcnt ||
            info.lsgn > end - pos - info.lcnt - info.ldat) {
            if (lane == 0)
                report(err, GPU_ERR_SUBPACKETS, p, k, -1);
            return;
        }
        info.gcli = pos;
        info.data = pos + info.lcnt;
        info.sign = info.data + info.ldat;
        pos = info.sign + info.lsgn;
        info.flags = 1 | (raw ? 2 : 0);
        if (lane == 0)
            pkt[(size_t)p * npk + k] = info;
        /* A raw packet's bitplane counts ignore the bands' coding modes: the
         * vertical prediction must leave those lines alone. */
        if (raw)
            for (int b = pk.first + lane; b < pk.last; b += 32)
                raw_lines[(size_t)p * nb + b] |= (uint8_t)(1u << pk.line);
        __syncwarp();
    }
}

/* The bands of one packet that have a line in its precinct, laid end to end:
 * a packet's subpackets hold their code groups in this order, so the kernels
 * below treat a packet as one flat run of groups. */
#define PKT_MAX_BANDS 80
struct pkt_band {
    unsigned start;     /* first flat group index */
    unsigned n;         /* code groups */
    unsigned sig_start; /* first significance flag, in bits from the subpacket start */
    int w, t, m;        /* coefficients, truncation position, coding mode */
    uint8_t *gl;        /* bitplane counts of the line */
    int32_t *out;       /* coefficients of the line */
};

/* The table of packet k of precinct p (tab); returns its code groups. */
template <int THREADS>
__device__ unsigned build_packet_table(const gpu_geom *g, int p, int k, const uint8_t *gtli,
                                       const uint8_t *mode, uint8_t *gcli, int32_t *const *coef,
                                       pkt_band *tab)
{
    const gpu_packet &pk = g->packet[k];
    const int row = p / g->cols, col = p % g->cols;
    typedef cub::BlockScan<unsigned, THREADS> scan_t;
    __shared__ typename scan_t::TempStorage storage;
    __shared__ unsigned total_groups;
    const int tid = threadIdx.x, nb = g->nbands;
    const int b = pk.first + tid;
    const bool present = b < pk.last && prec_height(g->band[b], row) > pk.line;
    unsigned n = 0, sig = 0;
    int m = 0;
    if (present) {
        n = (prec_width(g->band[b], col) + 3) / 4;
        m = mode ? mode[(size_t)p * nb + b] : 0;
        sig = (m & 2) ? (n + 7) / 8 : 0;
    }
    /* One scan of three counts packed in 64 bits would do; three are clearer. */
    unsigned slot, start, groups, sig_start, sig_total;
    scan_t(storage).ExclusiveSum(present ? 1u : 0u, slot);
    __syncthreads();
    scan_t(storage).ExclusiveSum(n, start, groups);
    __syncthreads();
    scan_t(storage).ExclusiveSum(sig, sig_start, sig_total);
    if (present) {
        const gpu_band &bd = g->band[b];
        const size_t brow = (size_t)row * bd.lines + pk.line;
        pkt_band e;
        e.start = start;
        e.n = n;
        e.sig_start = sig_start;
        e.w = prec_width(bd, col);
        e.t = gtli[(size_t)p * nb + b];
        e.m = m;
        e.gl =
            gcli + bd.gcli_offset + brow * bd.gcli_stride + (size_t)col * ((bd.col_width + 3) / 4);
        e.out = coef ? coef[bd.comp] + (size_t)(bd.y0 + brow) * g->comp_width[bd.comp] + bd.x0 +
                           (size_t)col * bd.col_width
                     : NULL;
        tab[slot] = e;
    }
    if (tid == 0)
        total_groups = groups;
    __syncthreads();
    return total_groups;
}

/* The packet a block of the two packet kernels decodes (one block per packet from
 * precinct first_prec on). */
struct block_pkt {
    gpu_packet_info info; /* its offsets and lengths */
    int p, k;             /* its precinct, and its index there */
    unsigned groups;      /* its code groups, laid out in the block's table */
};

/* This block's packet and the table of its bands (build_packet_table, into tab);
 * false where the packet holds no data (info.flags bit 0, the same for the whole
 * block): the block has nothing to do. */
template <int THREADS>
__device__ __forceinline__ bool
block_packet(const gpu_geom *g, const gpu_packet_info *pkt, int first_prec, const uint8_t *gtli,
             const uint8_t *mode, uint8_t *gcli, int32_t *const *coef, pkt_band *tab, block_pkt *b)
{
    const int id = first_prec * g->npackets + (int)blockIdx.x;
    b->info = pkt[id];
    if (!(b->info.flags & 1))
        return false;
    b->p = id / g->npackets;
    b->k = id % g->npackets;
    b->groups = build_packet_table<THREADS>(g, b->p, b->k, gtli, mode, gcli, coef, tab);
    return true;
}

/* Advances slot to the band that holds flat group f (f only grows). */
__device__ __forceinline__ int advance_band(const pkt_band *tab, int slot, unsigned f)
{
    while (f >= tab[slot].start + tab[slot].n)
        slot++;
    return slot;
}

/* The packet kernels: a block per packet, its bands one flat run of code
 * groups (build_packet_table), PKT_ITEMS rounds of PKT_THREADS consecutive
 * groups per step (a warp's loads and stores stay contiguous): item q of
 * thread tid in the step from `base` is group base + q * PKT_THREADS + tid,
 * in the bitplane counts and in the data alike, so a thread that has
 * decoded a group's count decodes its data next, from registers. */
#define PKT_THREADS 128
#define PKT_ITEMS 4
#define PKT_STEP (PKT_THREADS * PKT_ITEMS)
typedef cub::BlockScan<unsigned, PKT_THREADS> pkt_scan_t;

/* Whether packet k of precinct p waits for xs_resolve_vpred before its data:
 * not raw, with a vertically predicted band (whose counts are residuals
 * until then). The same for the whole block; every thread must call. */
__device__ __forceinline__ bool packet_waits(const gpu_geom *g, const uint8_t *mode, int p, int k,
                                             const gpu_packet_info &info)
{
    const gpu_packet &pk = g->packet[k];
    const int b = pk.first + (int)threadIdx.x, nb = g->nbands;
    const bool vp = !(info.flags & 2) && b < pk.last &&
                    prec_height(g->band[b], p / g->cols) > pk.line &&
                    (mode[(size_t)p * nb + b] & 1);
    /* One writer a slot (a warp's lane 0), read after the barrier; called once a block. */
    __shared__ int warp_waits[PKT_THREADS / 32];
    const int any = __any_sync(0xffffffffu, vp);
    if (threadIdx.x % 32 == 0)
        warp_waits[threadIdx.x / 32] = any;
    __syncthreads();
    int waits = 0;
#pragma unroll
    for (int w = 0; w < PKT_THREADS / 32; w++)
        waits |= warp_waits[w];
    return waits != 0;
}

/* Bitplane counts of a raw packet's step from base (4 bits a group): item q's
 * into gc[q] (0 past the packet), its band's slot into sl[q]; reads stay inside
 * the subpacket (an overrun is reported by the caller). */
__device__ __forceinline__ void raw_counts(const unsigned *cs, const pkt_band *tab, unsigned N,
                                           unsigned base, unsigned long long gstart,
                                           unsigned long long gend, int &slot, int (&sl)[PKT_ITEMS],
                                           int (&gc)[PKT_ITEMS])
{
#pragma unroll
    for (int q = 0; q < PKT_ITEMS; q++) {
        const unsigned f = base + q * PKT_THREADS + threadIdx.x;
        gc[q] = 0;
        sl[q] = slot;
        if (f < N) {
            slot = advance_band(tab, slot, f);
            sl[q] = slot;
            const pkt_band &e = tab[slot];
            gc[q] = (int)(peek32(cs, min(gstart + 4ull * f, gend)) >> 28);
            e.gl[f - e.start] = (uint8_t)gc[q];
        }
    }
}

/* Bitplane counts of the step from base of a packet that is not raw
 * (21122-1 C.7). A unary symbol ends at each 0 bit, so a step's symbols
 * decode at once: every thread takes a 32-bit window of the subpacket, a
 * scan of the zero counts ranks every zero, and each zero writes where its
 * symbol ends; a symbol's value is the distance between consecutive ends.
 * Vertically predicted bands keep the residual symbol, or 0xff for an
 * insignificant group, for xs_resolve_vpred. gc, sl as raw_counts'; gp the
 * bit position, advanced. False where the step holds no valid symbols (a
 * run of 4096 one bits): the block's, reported. Scan storage and ends are
 * free again on return (a barrier last). */
__device__ __forceinline__ bool
unary_counts(const unsigned *cs, const pkt_band *tab, const block_pkt &bp,
             typename pkt_scan_t::TempStorage *storage, unsigned *ends, unsigned base,
             unsigned long long sp, unsigned long long gend, unsigned long long &gp, int &slot,
             int (&sl)[PKT_ITEMS], int (&gc)[PKT_ITEMS], int *err)
{
    const int tid = threadIdx.x;
    const unsigned N = bp.groups;
    bool insig[PKT_ITEMS];
    unsigned rank[PKT_ITEMS], nsym = 0;
#pragma unroll
    for (int q = 0; q < PKT_ITEMS; q++) {
        const unsigned f = base + q * PKT_THREADS + tid;
        insig[q] = false;
        sl[q] = slot;
        if (f < N) {
            slot = advance_band(tab, slot, f);
            sl[q] = slot;
            const pkt_band &e = tab[slot];
            insig[q] = (e.m & 2) && (peek32(cs, sp + e.sig_start + ((f - e.start) >> 3)) >> 31);
        }
    }
#pragma unroll
    for (int q = 0; q < PKT_ITEMS; q++) {
        const unsigned f = base + q * PKT_THREADS + tid;
        unsigned total;
        pkt_scan_t(storage[q]).ExclusiveSum(f < N && !insig[q] ? 1u : 0u, rank[q], total);
        rank[q] += nsym;
        nsym += total;
    }
    const unsigned long long chunk = gp;
    unsigned got = 0;
    while (got < nsym) {
        /* Each zero of the 4096-bit window writes where symbol (its rank) ends. */
        const unsigned long long wpos = gp + 32ull * tid;
        unsigned zeros = ~peek32(cs, min(wpos, gend)); /* past Lcnt: an overrun, reported later */
        unsigned zbase, ztotal;
        pkt_scan_t(storage[PKT_ITEMS]).ExclusiveSum((unsigned)__popc(zeros), zbase, ztotal);
        const unsigned take = min(ztotal, nsym - got);
        for (unsigned r = zbase; zeros && r < take; r++) {
            const int o = __clz(zeros);
            zeros &= ~(0x80000000u >> o);
            ends[got + r] = (unsigned)(wpos - chunk) + o;
        }
        __syncthreads();
        if (take == 0) { /* 4096 one bits: no symbol can be that long */
            if (tid == 0)
                report(err, GPU_ERR_GCLI, bp.p, bp.k, -1);
            return false;
        }
        got += take;
        gp = chunk + ends[got - 1] + 1;
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < PKT_ITEMS; q++) {
        const unsigned f = base + q * PKT_THREADS + tid;
        gc[q] = 0;
        if (f >= N)
            continue;
        const pkt_band &e = tab[sl[q]];
        int v;
        if (insig[q]) {
            v = (e.m & 1) ? 0xff : e.t;
        } else {
            const unsigned r = rank[q];
            const unsigned prev = r ? ends[r - 1] + 1 : 0;
            const int x = (int)(ends[r] - prev);
            v = (e.m & 1) ? x : e.t + x;
            if (x > 32 || (!(e.m & 1) && v > XS_MAX_GCLI)) {
                report(err, GPU_ERR_GCLI, bp.p, bp.k, -1);
                v = e.t;
            }
        }
        e.gl[f - e.start] = (uint8_t)v;
        gc[q] = v;
    }
    __syncthreads(); /* ends and the scan storage are reused */
    return true;
}

/* Bits 0, 4, 8, ... 60 of x packed into bits 0..15. */
__device__ __forceinline__ unsigned gather_every_fourth(unsigned long long x)
{
    x &= 0x1111111111111111ull;
    x = (x | (x >> 3)) & 0x0303030303030303ull;
    x = (x | (x >> 6)) & 0x000f000f000f000full;
    x = (x | (x >> 12)) & 0x000000ff000000ffull;
    return (unsigned)((x | (x >> 24)) & 0xffffu);
}

/* Where a packet's data and signs are read: bit positions and ends. */
struct data_pos {
    unsigned long long dpos, spos, dend, send;
};

__device__ __forceinline__ data_pos data_start(const gpu_packet_info &info)
{
    data_pos d;
    d.dpos = (unsigned long long)info.data * 8;
    d.spos = (unsigned long long)info.sign * 8;
    d.dend = d.dpos + (unsigned long long)info.ldat * 8;
    d.send = d.spos + (unsigned long long)info.lsgn * 8;
    return d;
}

/* Magnitudes, dequantization (21122-1 D.3) and signs of the step from base:
 * item q's bitplane count gc[q], its band tab[sl[q]]; bit offsets come from
 * block scans of the groups' lengths and, with sign packing, sign offsets
 * from scans of their non-zero counts. The scan storage is free on entry
 * and again on return (a barrier last); pos advances. */
__device__ __forceinline__ void data_step(const unsigned *cs, const gpu_geom *g,
                                          const pkt_band *tab,
                                          typename pkt_scan_t::TempStorage *storage, unsigned N,
                                          unsigned base, const int (&sl)[PKT_ITEMS],
                                          const int (&gc)[PKT_ITEMS], data_pos &pos)
{
    const int tid = threadIdx.x, fs = g->fs, fq = g->fq, uniform = g->qpih == 1;
    unsigned bits[PKT_ITEMS];
#pragma unroll
    for (int q = 0; q < PKT_ITEMS; q++) {
        const unsigned f = base + q * PKT_THREADS + tid;
        const int nbp = f < N ? gc[q] - tab[sl[q]].t : 0;
        bits[q] = nbp > 0 ? 4u * nbp + (fs ? 0u : 4u) : 0u;
    }
#pragma unroll
    for (int q = 0; q < PKT_ITEMS; q++) {
        const unsigned f = base + q * PKT_THREADS + tid;
        unsigned offset, total;
        pkt_scan_t(storage[q]).ExclusiveSum(bits[q], offset, total);
        int32_t v[4] = {0, 0, 0, 0};
        unsigned nonzero = 0;
        if (bits[q]) {
            const int t = tab[sl[q]].t, nbp = gc[q] - t;
            /* A group holds at most 4 + 4 * 15 bits: one 64-bit window. */
            unsigned long long win =
                peek64(cs, min(pos.dpos + offset, pos.dend)); /* past Ldat: reported later */
            const unsigned signs = fs ? 0u : (unsigned)(win >> 60);
            if (!fs)
                win <<= 4;
            /* nbp nibbles, the last one lowest: bit 4k+3-j of x is bitplane k of coefficient j. */
            const unsigned long long x = win >> (64 - 4 * nbp);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                unsigned a = gather_every_fourth(x >> (3 - j)) << t;
                if (a && t) {
                    if (uniform) {
                        unsigned acc = 0;
                        for (unsigned r = a; r; r >>= (gc[q] - t + 1))
                            acc += r;
                        a = acc;
                    } else {
                        a |= 1u << (t - 1);
                    }
                }
                nonzero += a != 0;
                const int32_t sv = (int32_t)(a << fq);
                v[j] = ((signs >> (3 - j)) & 1) ? -sv : sv;
            }
        }
        pos.dpos += total;
        if (fs) {
            /* Signs of the non-zero coefficients in order, padding included. */
            unsigned soff, stotal;
            __syncthreads(); /* storage[q] is reused */
            pkt_scan_t(storage[q]).ExclusiveSum(nonzero, soff, stotal);
            unsigned sbits = nonzero ? peek32(cs, min(pos.spos + soff, pos.send)) : 0u;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                if (v[j]) {
                    if (sbits >> 31)
                        v[j] = -v[j];
                    sbits <<= 1;
                }
            }
            pos.spos += stotal;
        }
        if (f < N) {
            const pkt_band &e = tab[sl[q]];
            const unsigned i = f - e.start;
            int32_t *out = e.out + 4 * i;
            if (4 * (int)i + 4 <= e.w && ((size_t)out & 15) == 0) {
                *(int4 *)out = make_int4(v[0], v[1], v[2], v[3]);
            } else {
                const int count = min(4, e.w - 4 * (int)i);
                for (int j = 0; j < count; j++)
                    out[j] = v[j];
            }
        }
    }
    __syncthreads(); /* the scan storage is reused */
}

/* The overruns of a packet's data and signs, once the last step has run. */
__device__ __forceinline__ void data_end(const block_pkt &bp, const data_pos &pos, int fs, int *err)
{
    if (threadIdx.x != 0)
        return;
    if (pos.dpos > pos.dend)
        report(err, GPU_ERR_DATA_OVERRUN, bp.p, bp.k, -1);
    if (fs && pos.spos > pos.send)
        report(err, GPU_ERR_SIGN_OVERRUN, bp.p, bp.k, -1);
}

/* Bitplane counts and, where they are final (packet_waits: no vertical
 * prediction waits for them), data of one packet, step by step: a group's
 * count goes from raw_counts or unary_counts to data_step in the thread's
 * registers, and to the gcli array for xs_resolve_vpred and the packets
 * below. The packets that wait get their data from xs_decode_data. */
__global__ void __launch_bounds__(PKT_THREADS)
    xs_decode_packets(const unsigned *cs, const __grid_constant__ gpu_geom gg, const uint8_t *gtli,
                      const uint8_t *mode, const gpu_packet_info *pkt, uint8_t *gcli,
                      int32_t *const *coef, int first_prec, int *err)
{
    const gpu_geom *g = &gg;
    __shared__ typename pkt_scan_t::TempStorage storage[PKT_ITEMS + 1];
    __shared__ unsigned ends[PKT_STEP];
    __shared__ pkt_band tab[PKT_MAX_BANDS];
    block_pkt bp;
    if (!block_packet<PKT_THREADS>(g, pkt, first_prec, gtli, mode, gcli, coef, tab, &bp))
        return;
    const bool raw = bp.info.flags & 2;
    const bool data = !packet_waits(g, mode, bp.p, bp.k, bp.info);
    const unsigned N = bp.groups;
    const unsigned long long sp = (unsigned long long)bp.info.sig * 8;
    const unsigned long long gstart = (unsigned long long)bp.info.gcli * 8;
    const unsigned long long gend = gstart + (unsigned long long)bp.info.lcnt * 8;
    unsigned long long gp = gstart;
    data_pos pos = data_start(bp.info);
    int slot = 0;
    for (unsigned base = 0; base < N; base += PKT_STEP) {
        int sl[PKT_ITEMS], gc[PKT_ITEMS];
        if (raw)
            raw_counts(cs, tab, N, base, gstart, gend, slot, sl, gc);
        else if (!unary_counts(cs, tab, bp, storage, ends, base, sp, gend, gp, slot, sl, gc, err))
            return;
        if (data)
            data_step(cs, g, tab, storage, N, base, sl, gc, pos);
    }
    if (threadIdx.x == 0 && (raw ? gstart + 4ull * N : gp) > gend)
        report(err, GPU_ERR_GCLI_OVERRUN, bp.p, bp.k, -1);
    if (data)
        data_end(bp, pos, g->fs, err);
}

/* Vertical prediction: one thread per (slice, band, code group column) of
 * slices [first_slice, first_slice + slices),
 * walking the band lines of the slice from the top. A fixed grid strides
 * over the work, so a frame without vertical prediction costs one early exit
 * per thread. */
__global__ void xs_resolve_vpred(const __grid_constant__ gpu_geom gg, const uint8_t *gtli,
                                 const uint8_t *mode, const uint8_t *raw_lines, uint8_t *gcli,
                                 int first_slice, int slices, int rm, int *err)
{
    const gpu_geom *g = &gg;
    if (!(err[GPU_FLAGS] & GPU_FLAG_VPRED))
        return; /* no band of the frame is vertically predicted */
    const int nb = g->nbands;
    long long stride_sum = 0;
    for (int b = 0; b < nb; b++)
        stride_sum += g->band[b].gcli_stride;
    const long long work = stride_sum * slices;
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < work;
         w += (long long)gridDim.x * blockDim.x) {
        const int slice = first_slice + (int)(w / stride_sum);
        long long r = w % stride_sum;
        int b = 0;
        while (r >= g->band[b].gcli_stride)
            r -= g->band[b++].gcli_stride;
        const gpu_band &bd = g->band[b];
        const int i = (int)r;
        const int gpc = (bd.col_width + 3) / 4;
        const int col = i / gpc;
        const int row0 = slice * g->hsl, row1 = min(g->rows, row0 + g->hsl);
        for (int row = row0 + 1; row < row1; row++) {
            /* The first row of a slice has no top (xs_parse_precincts reported it). */
            const int p = row * g->cols + col;
            const int h = prec_height(bd, row);
            if (!(mode[(size_t)p * nb + b] & 1) || i - col * gpc >= (prec_width(bd, col) + 3) / 4)
                continue;
            const int t0 = gtli[(size_t)p * nb + b];
            const int raw = raw_lines[(size_t)p * nb + b];
            for (int line = 0; line < h; line++) {
                if (raw & (1 << line))
                    continue;
                const size_t brow = (size_t)row * bd.lines + line;
                uint8_t *gc = gcli + bd.gcli_offset + brow * bd.gcli_stride + i;
                const int top = gc[-(long long)bd.gcli_stride];
                const int gt = line == 0 ? gtli[(size_t)(p - g->cols) * nb + b] : t0;
                const int t = max(gt, t0);
                const int mtop = max(top, t);
                const int x = *gc;
                int v;
                if (x == 0xff) {
                    v = rm ? t0 : mtop;
                } else {
                    const int thr = max(mtop - t0, 0);
                    v = mtop + (x > 2 * thr ? x - thr : ((x & 1) ? -((x + 1) >> 1) : (x >> 1)));
                }
                if (v > XS_MAX_GCLI) {
                    report(err, GPU_ERR_GCLI_RANGE, p, -1, b);
                    v = t0;
                }
                *gc = (uint8_t)v;
            }
        }
    }
}

/* The data of the packets that waited for xs_resolve_vpred (packet_waits),
 * their bitplane counts read back from the gcli array: the others were
 * done by xs_decode_packets, and a frame without vertical prediction leaves
 * at once. */
__global__ void __launch_bounds__(PKT_THREADS)
    xs_decode_data(const unsigned *cs, const __grid_constant__ gpu_geom gg, const uint8_t *gtli,
                   const uint8_t *mode, const gpu_packet_info *pkt, uint8_t *gcli,
                   int32_t *const *coef, int first_prec, int *err)
{
    const gpu_geom *g = &gg;
    __shared__ typename pkt_scan_t::TempStorage storage[PKT_ITEMS];
    __shared__ pkt_band tab[PKT_MAX_BANDS];
    if (!(err[GPU_FLAGS] & GPU_FLAG_VPRED))
        return; /* no band of the frame is vertically predicted */
    block_pkt bp;
    if (!block_packet<PKT_THREADS>(g, pkt, first_prec, gtli, mode, gcli, coef, tab, &bp) ||
        !packet_waits(g, mode, bp.p, bp.k, bp.info))
        return;
    const unsigned N = bp.groups;
    data_pos pos = data_start(bp.info);
    int slot = 0;
    for (unsigned base = 0; base < N; base += PKT_STEP) {
        int sl[PKT_ITEMS], gc[PKT_ITEMS];
#pragma unroll
        for (int q = 0; q < PKT_ITEMS; q++) {
            const unsigned f = base + q * PKT_THREADS + threadIdx.x;
            gc[q] = 0;
            sl[q] = slot;
            if (f < N) {
                slot = advance_band(tab, slot, f);
                sl[q] = slot;
                const pkt_band &e = tab[slot];
                gc[q] = e.gl[f - e.start];
            }
        }
        data_step(cs, g, tab, storage, N, base, sl, gc, pos);
    }
    data_end(bp, pos, g->fs, err);
}

/* Output stage (21122-1 F.3, Annex G), fused: one thread per sample. */
struct gpu_output_params {
    int nc, cpih, bw, tnlt;
    int width[XS_MAX_COMPONENTS], height[XS_MAX_COMPONENTS], depth[XS_MAX_COMPONENTS];
    /* The output planes by value (the context's own or the caller's, chosen
     * per frame at no cost: no device array to update). */
    uint16_t *out[XS_MAX_COMPONENTS];
    size_t pitch[XS_MAX_COMPONENTS]; /* in samples */
    int vec_store;                   /* bit c: plane c and its pitch are 8-byte aligned */
    int y0[XS_MAX_COMPONENTS], y1[XS_MAX_COMPONENTS]; /* the rows written: [y0, y1) */
    long long dco, t1, t2;
    int e;
};

__device__ __forceinline__ long long clampll(long long v, long long hi)
{
    return v < 0 ? 0 : (v > hi ? hi : v);
}

__device__ __forceinline__ uint16_t output_sample(long long v, const gpu_output_params &op,
                                                  int depth)
{
    const int bw = op.bw;
    const long long maxv = (1ll << depth) - 1;
    if (op.tnlt == 0) {
        /* 32-bit arithmetic: values beyond +-2^30 clamp to the same output
         * (Bw <= 20), and the sum below then cannot overflow. */
        const int dz = bw - depth;
        const int x = min(max((int)v, -(1 << 30)), 1 << 30) + (1 << (bw - 1)) + ((1 << dz) >> 1);
        return (uint16_t)min(max(x >> dz, 0), (int)maxv);
    }
    v += 1ll << (bw - 1);
    const int dz = 2 * bw - depth;
    const long long round = (1ll << dz) >> 1, vmax = (1ll << bw) - 1;
    if (op.tnlt == 1) {
        v = clampll(v, vmax);
        return (uint16_t)clampll(((v * v + round) >> dz) + op.dco, maxv);
    }
    const int e = op.e;
    const long long b1 = op.t1 + (1ll << (bw - e - 1)), b2 = op.t1 * op.t1,
                    b3 = op.t2 - (1ll << (bw - e - 1));
    const long long a1 = b2 + (op.t1 << (bw - e)) + (1ll << (2 * bw - 2 - 2 * e));
    const long long a3 = b2 + (op.t2 << (bw - e)) - (1ll << (2 * bw - 2 - 2 * e));
    if (v < op.t1) {
        v = clampll(b1 - v, vmax);
        v = a1 - v * v;
    } else if (v < op.t2) {
        v = v * (1ll << (bw - e)) + b2;
    } else {
        v = clampll(v - b3, vmax);
        v = a3 + v * v;
    }
    return (uint16_t)clampll((v + round) >> dz, maxv);
}

__device__ __forceinline__ void output_rct(const gpu_output_params &op, int32_t y0, int32_t u,
                                           int32_t v, uint16_t &o0, uint16_t &o1, uint16_t &o2)
{
    /* Wrapping arithmetic: hostile streams may carry any int32 here. */
    const int32_t gr = (int32_t)((uint32_t)y0 - (uint32_t)(((long long)u + v) >> 2));
    o0 = output_sample((int32_t)((uint32_t)gr + (uint32_t)v), op, op.depth[0]);
    o1 = output_sample(gr, op, op.depth[1]);
    o2 = output_sample((int32_t)((uint32_t)gr + (uint32_t)u), op, op.depth[2]);
}

/* Four samples of one row per thread: 16-byte loads when the row width is a
 * multiple of 4 (the coefficient planes are unpadded and 16-byte aligned),
 * and then 8-byte stores into output planes whose start and pitch allow
 * them (a caller's planes may be only 2-byte aligned: sample stores). */
__global__ void xs_output(const __grid_constant__ gpu_output_params op, int32_t *const *coef)
{
    const int c = blockIdx.z;
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x), y = op.y0[c] + (int)blockIdx.y;
    const int w = op.width[c];
    if (x >= w || y >= op.y1[c] || (op.cpih == 1 && c > 0 && c < 3))
        return; /* with the RCT, component 0's threads write all three */
    const size_t i = (size_t)y * w + x;
    const int n = min(4, w - x);
    const bool vec = (w & 3) == 0;
    int32_t a[3][4];
    const int planes = op.cpih == 1 && c == 0 ? 3 : 1;
    for (int k = 0; k < planes; k++) {
        const int32_t *src = coef[c + k] + i;
        if (vec) {
            const int4 q = *(const int4 *)src;
            a[k][0] = q.x, a[k][1] = q.y, a[k][2] = q.z, a[k][3] = q.w;
        } else {
            for (int j = 0; j < 4; j++)
                a[k][j] = j < n ? src[j] : 0;
        }
    }
    uint16_t o[3][4];
    for (int j = 0; j < 4; j++) {
        if (planes == 3)
            output_rct(op, a[0][j], a[1][j], a[2][j], o[0][j], o[1][j], o[2][j]);
        else
            o[0][j] = output_sample(a[0][j], op, op.depth[c]);
    }
    for (int k = 0; k < planes; k++) {
        uint16_t *dst = op.out[c + k] + (size_t)y * op.pitch[c + k] + x;
        if (vec && (op.vec_store >> (c + k) & 1)) {
            ushort4 q;
            q.x = o[k][0], q.y = o[k][1], q.z = o[k][2], q.w = o[k][3];
            *(ushort4 *)dst = q;
        } else {
            for (int j = 0; j < n; j++)
                dst[j] = o[k][j];
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Output in another pixel format (xsf_picture.h's containers other than
 * planar16): the samples of xs_output (output_sample, output_rct), then the
 * chroma resampling, depth conversion and packing of xsf_pixfmt_pack.h,
 * whose arithmetic the C reference (xsf_picture_convert) shares. One thread
 * per group of fmt_pixels(F) pixels of a row (of a row pair for the 4:2:0
 * formats, whose chroma row averages or takes two source rows): it reads
 * the runs of coefficients the group needs (16- or 8-byte loads where they
 * are aligned) and writes the group's bytes of every plane with 16-, 8- or
 * 4-byte stores where the address allows (byte stores else, and at the end
 * of a row). Every byte of a row up to its row bytes is written (zeros
 * past the picture: v210's last groups), nothing past it. */
struct gpu_fmt_params {
    /* The decoded components' samples as xs_output reads them (d_pix's). */
    const int32_t *src[XS_MAX_COMPONENTS];
    uint8_t *plane[XS_MAX_COMPONENTS]; /* the output planes (planar8: one per component) */
    size_t pitch[XS_MAX_COMPONENTS];   /* bytes */
    size_t row_bytes[XS_MAX_COMPONENTS];
    int w, h;          /* the picture: component 0 */
    int cw, ch;        /* the target chroma size (the RGB formats: w x h) */
    int mx[3], my[3];  /* chroma resampling per axis (xsf_px_axis) of components 1, 2 */
    int groups;        /* threads of a row */
    int r0;            /* the first row (row pair for the 4:2:0 formats) of the launch */
    xsf_rgb_fixed rgb; /* the RGB formats' coefficients */
};

/* Pixels a thread writes, and whether its rows are pairs (4:2:0). */
__host__ __device__ constexpr int fmt_pixels(int f)
{
    return f == XSF_V210                                                           ? 6
           : f == XSF_RGBA8 || f == XSF_BGRA8 || f == XSF_RGB48 || f == XSF_RGBF32 ? 4
                                                                                   : 8;
}

__host__ __device__ constexpr bool fmt_pairs(int f)
{
    return f == XSF_P010 || f == XSF_NV12 || f == XSF_I420;
}

/* N consecutive coefficients from p on, `avail` of them real (0 after). */
template <int N> __device__ __forceinline__ void load_run(const int32_t *p, int avail, int32_t v[N])
{
    if constexpr (N % 4 == 0) {
        if (avail >= N && ((uintptr_t)p & 15) == 0) {
#pragma unroll
            for (int j = 0; j < N; j += 4) {
                const int4 q = *(const int4 *)(p + j);
                v[j] = q.x, v[j + 1] = q.y, v[j + 2] = q.z, v[j + 3] = q.w;
            }
            return;
        }
    }
    if constexpr (N % 2 == 0) {
        if (avail >= N && ((uintptr_t)p & 7) == 0) {
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                const int2 q = *(const int2 *)(p + j);
                v[j] = q.x, v[j + 1] = q.y;
            }
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < N; j++)
        v[j] = j < avail ? p[j] : 0;
}

/* Components 0, 1, 2 through the RCT at x .. x+N-1 of row y (sample i of each
 * plane; the three of one size), avail of them in the picture: put(j, o) takes
 * the three output samples o of each j < N. */
template <int N, typename Put>
__device__ __forceinline__ void rct_run(const gpu_output_params &op, const gpu_fmt_params &fp,
                                        size_t i, int avail, Put put)
{
    int32_t a[3][N];
#pragma unroll
    for (int k = 0; k < 3; k++)
        load_run<N>(fp.src[k] + i, avail, a[k]);
#pragma unroll
    for (int j = 0; j < N; j++) {
        uint16_t o[3];
        output_rct(op, a[0][j], a[1][j], a[2][j], o[0], o[1], o[2]);
        put(j, o);
    }
}

/* Samples x .. x+N-1 of row y of decoded component c, as xs_output writes
 * them (0 past the width). */
template <int N>
__device__ __forceinline__ void comp_run(const gpu_output_params &op, const gpu_fmt_params &fp,
                                         int c, int x, int y, uint32_t out[N])
{
    const int w = op.width[c], avail = w - x;
    if (avail <= 0) {
#pragma unroll
        for (int j = 0; j < N; j++)
            out[j] = 0;
        return;
    }
    const size_t i = (size_t)y * w + x;
    if (op.cpih == 1 && c < 3) { /* with the RCT a sample needs the three components */
        rct_run<N>(op, fp, i, avail,
                   [&](int j, const uint16_t o[3]) { out[j] = j < avail ? o[c] : 0; });
        return;
    }
    int32_t a[N];
    load_run<N>(fp.src[c] + i, avail, a);
#pragma unroll
    for (int j = 0; j < N; j++)
        out[j] = j < avail ? output_sample(a[j], op, op.depth[c]) : 0;
}

/* Components 0, 1, 2 at x .. x+N-1 of row y (all of one size): with the
 * RCT, once for the three. */
template <int N>
__device__ __forceinline__ void pixel_run(const gpu_output_params &op, const gpu_fmt_params &fp,
                                          int x, int y, uint32_t out[3][N])
{
    const int w = op.width[0], avail = w - x;
    if (op.cpih != 1 || avail <= 0) {
#pragma unroll
        for (int k = 0; k < 3; k++)
            comp_run<N>(op, fp, k, x, y, out[k]);
        return;
    }
    rct_run<N>(op, fp, (size_t)y * w + x, avail, [&](int j, const uint16_t o[3]) {
#pragma unroll
        for (int k = 0; k < 3; k++)
            out[k][j] = j < avail ? o[k] : 0;
    });
}

/* Luma x .. x+N-1 of row y at `depth` bits. */
template <int N>
__device__ __forceinline__ void luma_run(const gpu_output_params &op, const gpu_fmt_params &fp,
                                         int x, int y, int depth, uint32_t out[N])
{
    comp_run<N>(op, fp, 0, x, y, out);
#pragma unroll
    for (int j = 0; j < N; j++)
        out[j] = xsf_px_depth(out[j], op.depth[0], depth);
}

/* Target chroma samples tx .. tx+N-1 of target row ty of component k
 * (1 or 2), resampled from the decoded component (xsf_px_axis,
 * xsf_px_axis_src, xsf_px_mean: what the C reference does sample by
 * sample) and converted to `depth` bits (0: the component's own); 0 past
 * the target width; the middle value for a gray picture. tx is even where
 * the horizontal axis is upsampled (the groups start at even pixels). */
template <int N>
__device__ __forceinline__ void chroma_run(const gpu_output_params &op, const gpu_fmt_params &fp,
                                           int k, int tx, int ty, int depth, uint32_t out[N])
{
    if (k >= op.nc) {
#pragma unroll
        for (int j = 0; j < N; j++)
            out[j] = tx + j < fp.cw ? 1u << (depth - 1) : 0;
        return;
    }
    const int sw = op.width[k], mx = fp.mx[k], my = fp.my[k];
    int y0;
    const int ny = xsf_px_axis_src(my, ty, op.height[k], &y0);
    uint32_t sum[N], n[N];
    if (mx == XSF_PX_AXIS_DOWN) {
        uint32_t a[2 * N];
        comp_run<2 * N>(op, fp, k, 2 * tx, y0, a);
#pragma unroll
        for (int j = 0; j < N; j++) {
            const int two = 2 * (tx + j) + 1 < sw;
            sum[j] = a[2 * j] + (two ? a[2 * j + 1] : 0);
            n[j] = 1 + two;
        }
        if (ny > 1) {
            comp_run<2 * N>(op, fp, k, 2 * tx, y0 + 1, a);
#pragma unroll
            for (int j = 0; j < N; j++) {
                const int two = 2 * (tx + j) + 1 < sw;
                sum[j] += a[2 * j] + (two ? a[2 * j + 1] : 0);
                n[j] *= 2;
            }
        }
    } else if (mx == XSF_PX_AXIS_UP) {
        uint32_t a[(N + 1) / 2];
        comp_run<(N + 1) / 2>(op, fp, k, tx / 2, y0, a);
#pragma unroll
        for (int j = 0; j < N; j++)
            sum[j] = a[j / 2], n[j] = 1;
        if (ny > 1) {
            comp_run<(N + 1) / 2>(op, fp, k, tx / 2, y0 + 1, a);
#pragma unroll
            for (int j = 0; j < N; j++)
                sum[j] += a[j / 2], n[j] = 2;
        }
    } else {
        uint32_t a[N];
        comp_run<N>(op, fp, k, tx, y0, a);
#pragma unroll
        for (int j = 0; j < N; j++)
            sum[j] = a[j], n[j] = 1;
        if (ny > 1) {
            comp_run<N>(op, fp, k, tx, y0 + 1, a);
#pragma unroll
            for (int j = 0; j < N; j++)
                sum[j] += a[j], n[j] = 2;
        }
    }
#pragma unroll
    for (int j = 0; j < N; j++) {
        const uint32_t v = xsf_px_mean(sum[j], n[j]);
        out[j] = tx + j >= fp.cw ? 0 : depth ? xsf_px_depth(v, op.depth[k], depth) : v;
    }
}

/* The first `valid` bytes of the little-endian words w at dst. */
template <int NW>
__device__ __forceinline__ void store_words(uint8_t *dst, const uint32_t w[NW], int valid)
{
    const uintptr_t a = (uintptr_t)dst;
    if constexpr (NW % 4 == 0) {
        if (valid >= 4 * NW && (a & 15) == 0) {
#pragma unroll
            for (int i = 0; i < NW; i += 4)
                *(uint4 *)(dst + 4 * i) = make_uint4(w[i], w[i + 1], w[i + 2], w[i + 3]);
            return;
        }
    }
    if constexpr (NW % 2 == 0) {
        if (valid >= 4 * NW && (a & 7) == 0) {
#pragma unroll
            for (int i = 0; i < NW; i += 2)
                *(uint2 *)(dst + 4 * i) = make_uint2(w[i], w[i + 1]);
            return;
        }
    }
    if (valid >= 4 * NW && (a & 3) == 0) {
#pragma unroll
        for (int i = 0; i < NW; i++)
            *(uint32_t *)(dst + 4 * i) = w[i];
        return;
    }
    for (int i = 0; i < valid && i < 4 * NW; i++)
        dst[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

/* Group t of row y of plane p (4 * NW bytes a group): the words, as far
 * as the row's bytes go. */
template <int NW>
__device__ __forceinline__ void put_words(const gpu_fmt_params &fp, int p, int y, int t,
                                          const uint32_t w[NW])
{
    const size_t off = (size_t)t * 4 * NW;
    const size_t left = fp.row_bytes[p] > off ? fp.row_bytes[p] - off : 0;
    store_words<NW>(fp.plane[p] + (size_t)y * fp.pitch[p] + off, w,
                    left < 4 * NW ? (int)left : 4 * NW);
}

/* The same for bytes (NB a multiple of 4), little-endian in the words. */
template <int NB>
__device__ __forceinline__ void put_bytes(const gpu_fmt_params &fp, int p, int y, int t,
                                          const uint8_t b[NB])
{
    uint32_t w[NB / 4];
#pragma unroll
    for (int i = 0; i < NB / 4; i++)
        w[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
               (uint32_t)b[4 * i + 3] << 24;
    put_words<NB / 4>(fp, p, y, t, w);
}

/* N 8-bit samples (in 32-bit words) as bytes (put_bytes). */
template <int N>
__device__ __forceinline__ void put_narrow(const gpu_fmt_params &fp, int plane, int row, int t,
                                           const uint32_t v[N])
{
    uint8_t b[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        b[i] = (uint8_t)v[i];
    put_bytes<N>(fp, plane, row, t, b);
}

/* Planar8: 8 samples of one component a thread (blockIdx.z), the rows
 * [op.y0[c], op.y1[c]) as xs_output's; with the RCT, component 0's threads
 * write all three. */
__device__ __forceinline__ void output_planar8(const gpu_output_params &op,
                                               const gpu_fmt_params &fp, int t)
{
    const int c = blockIdx.z, y = op.y0[c] + (int)blockIdx.y, x = 8 * t;
    if (x >= op.width[c] || y >= op.y1[c] || (op.cpih == 1 && c > 0 && c < 3))
        return;
    uint32_t s[3][8];
    const int planes = op.cpih == 1 && c == 0 ? 3 : 1;
    if (planes == 3)
        pixel_run<8>(op, fp, x, y, s);
    else
        comp_run<8>(op, fp, c, x, y, s[0]);
#pragma unroll
    for (int k = 0; k < 3; k++) {
        if (k >= planes)
            break;
        uint8_t b[8];
#pragma unroll
        for (int j = 0; j < 8; j++)
            b[j] = (uint8_t)xsf_px_depth(s[k][j], op.depth[c + k], 8);
        put_bytes<8>(fp, c + k, y, t, b);
    }
}

/* v210, pgroup, uyvy: one plane of 4:2:2 groups, row y. */
template <int F>
__device__ __forceinline__ void output_packed422(const gpu_output_params &op,
                                                 const gpu_fmt_params &fp, int t, int y)
{
    constexpr int G = fmt_pixels(F), D = F == XSF_UYVY ? 8 : 10;
    const int x = G * t;
    uint32_t ly[G], cb[G / 2], cr[G / 2];
    luma_run<G>(op, fp, x, y, D, ly);
    chroma_run<G / 2>(op, fp, 1, x / 2, y, D, cb);
    chroma_run<G / 2>(op, fp, 2, x / 2, y, D, cr);
    if constexpr (F == XSF_V210) {
        uint32_t w[4];
        xsf_px_v210(ly, cb, cr, w);
        put_words<4>(fp, 0, y, t, w);
    } else if constexpr (F == XSF_PGROUP10) {
        uint8_t b[20];
#pragma unroll
        for (int i = 0; i < 4; i++)
            xsf_px_pgroup(cb[i], ly[2 * i], cr[i], ly[2 * i + 1], b + 5 * i);
        put_bytes<20>(fp, 0, y, t, b);
    } else {
        uint8_t b[16];
#pragma unroll
        for (int i = 0; i < 4; i++)
            xsf_px_uyvy(cb[i], ly[2 * i], cr[i], ly[2 * i + 1], b + 4 * i);
        put_bytes<16>(fp, 0, y, t, b);
    }
}

/* p210, p010, nv12, i420: 8 pixels of luma row r (p210) or of luma rows 2r
 * and 2r+1 and chroma row r (the 4:2:0 formats), and their chroma. */
template <int F>
__device__ __forceinline__ void output_semi(const gpu_output_params &op, const gpu_fmt_params &fp,
                                            int t, int r)
{
    constexpr bool wide = F == XSF_P210 || F == XSF_P010;
    constexpr int D = wide ? 10 : 8;
    const int x = 8 * t, rows = fmt_pairs(F) ? 2 : 1;
#pragma unroll
    for (int k = 0; k < rows; k++) {
        const int y = rows * r + k;
        if (y >= fp.h)
            break;
        uint32_t ly[8];
        luma_run<8>(op, fp, x, y, D, ly);
        if constexpr (wide) {
            uint32_t w[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                w[i] = xsf_px_msb16(ly[2 * i], D) | xsf_px_msb16(ly[2 * i + 1], D) << 16;
            put_words<4>(fp, 0, y, t, w);
        } else {
            put_narrow<8>(fp, 0, y, t, ly);
        }
    }
    uint32_t cb[4], cr[4];
    chroma_run<4>(op, fp, 1, 4 * t, r, D, cb);
    chroma_run<4>(op, fp, 2, 4 * t, r, D, cr);
    if constexpr (wide) {
        uint32_t w[4];
#pragma unroll
        for (int i = 0; i < 4; i++)
            w[i] = xsf_px_msb16(cb[i], D) | xsf_px_msb16(cr[i], D) << 16;
        put_words<4>(fp, 1, r, t, w);
    } else if constexpr (F == XSF_NV12) {
        uint8_t b[8];
#pragma unroll
        for (int i = 0; i < 4; i++)
            b[2 * i] = (uint8_t)cb[i], b[2 * i + 1] = (uint8_t)cr[i];
        put_bytes<8>(fp, 1, r, t, b);
    } else {
        put_narrow<4>(fp, 1, r, t, cb);
        put_narrow<4>(fp, 2, r, t, cr);
    }
}

/* rgba, bgra, rgb48, rgbf32: 4 pixels of row y through xsf_px_rgb, chroma
 * upsampled to the luma positions (replication), alpha depth-converted. */
template <int F>
__device__ __forceinline__ void output_rgb(const gpu_output_params &op, const gpu_fmt_params &fp,
                                           int t, int y)
{
    const int x = 4 * t;
    uint32_t s[3][4];
    if (op.nc == 1) {
        comp_run<4>(op, fp, 0, x, y, s[0]);
#pragma unroll
        for (int j = 0; j < 4; j++)
            s[1][j] = s[2][j] = 0;
    } else if (fp.mx[1] == XSF_PX_AXIS_COPY && fp.my[1] == XSF_PX_AXIS_COPY &&
               fp.mx[2] == XSF_PX_AXIS_COPY && fp.my[2] == XSF_PX_AXIS_COPY) {
        pixel_run<4>(op, fp, x, y, s);
    } else {
        comp_run<4>(op, fp, 0, x, y, s[0]);
        chroma_run<4>(op, fp, 1, x, y, 0, s[1]);
        chroma_run<4>(op, fp, 2, x, y, 0, s[2]);
    }
    uint32_t rgb[4][3];
#pragma unroll
    for (int j = 0; j < 4; j++)
        xsf_px_rgb(&fp.rgb, s[0][j], s[1][j], s[2][j], rgb[j]);
    if constexpr (F == XSF_RGBA8 || F == XSF_BGRA8) {
        uint32_t a[4] = {255, 255, 255, 255};
        if (op.nc == 4) {
            comp_run<4>(op, fp, 3, x, y, a);
#pragma unroll
            for (int j = 0; j < 4; j++)
                a[j] = xsf_px_depth(a[j], op.depth[3], 8);
        }
        const int r = F == XSF_BGRA8 ? 2 : 0;
        uint32_t w[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            w[j] = rgb[j][r] | rgb[j][1] << 8 | rgb[j][2 - r] << 16 | a[j] << 24;
        put_words<4>(fp, 0, y, t, w);
    } else if constexpr (F == XSF_RGB48) {
        uint32_t w[6];
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const uint32_t *p = rgb[2 * j], *q = rgb[2 * j + 1];
            w[3 * j] = p[0] | p[1] << 16;
            w[3 * j + 1] = p[2] | q[0] << 16;
            w[3 * j + 2] = q[1] | q[2] << 16;
        }
        put_words<6>(fp, 0, y, t, w);
    } else {
#pragma unroll
        for (int k = 0; k < 3; k++) {
            uint32_t w[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const float f = xsf_px_unit_float(rgb[j][k]);
                memcpy(&w[j], &f, sizeof f);
            }
            put_words<4>(fp, k, y, t, w);
        }
    }
}

template <int F>
__global__ void __launch_bounds__(128) xs_output_fmt(const __grid_constant__ gpu_output_params op,
                                                     const __grid_constant__ gpu_fmt_params fp)
{
    const int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t >= fp.groups)
        return;
    const int r = fp.r0 + (int)blockIdx.y;
    if constexpr (F == XSF_PLANAR_U8)
        output_planar8(op, fp, t);
    else if constexpr (F == XSF_V210 || F == XSF_PGROUP10 || F == XSF_UYVY)
        output_packed422<F>(op, fp, t, r);
    else if constexpr (F == XSF_P210 || F == XSF_P010 || F == XSF_NV12 || F == XSF_I420)
        output_semi<F>(op, fp, t, r);
    else
        output_rgb<F>(op, fp, t, r);
}

/* ------------------------------------------------------------------------ */
/* Host side. */

#define XS_GPU_STAGES 2 /* pinned staging slots, so the host never overwrites a pending upload */
#define XS_GPU_TIMERS 7
#define XS_GPU_CS_PAD 16 /* zero bytes after the codestream for the 32-bit bit readers */

struct xs_gpu_decoder {
    xsf_error err;
    int device;
    int sms; /* multiprocessors of the device */
    cudaStream_t stream;
    xs_header hdr;
    xs_geometry geom;
    int configured;
    /* device memory */
    uint8_t *d_cs;
    size_t cs_capacity;
    unsigned *d_prec_off;
    gpu_geom geom_param; /* the kernels' geometry, passed by value with each launch */
    uint8_t *d_gtli, *d_mode, *d_raw_lines, *d_gcli;
    gpu_packet_info *d_pkt;
    int32_t *d_coef_all; /* coefficients as the entropy decoder writes them */
    int32_t *d_pix_all;  /* the inverse DWT's output (out of place: the fewest bytes moved) */
    int32_t **d_coef;    /* device array of component pointers into d_coef_all */
    int32_t **d_pix;     /* device array of the planes the output stage reads */
    int *d_err;
    /* inverse DWT plans: plan[c] serves the consecutive components of one
     * size and decomposition from c on (NULL inside a group, or no DWT) */
    wav_cuda_plan *plan[XS_MAX_COMPONENTS];
    int32_t *pix_ptrs[XS_MAX_COMPONENTS]; /* d_pix's entries, for the launches that take them */
    xsf_format dec_fmt; /* the decoded picture (XSF_PLANAR_U16) of the configured format */
    /* The context's own output planes, allocated the first time a picture
     * of the format is written into them (not while the caller's are set),
     * and again when the pixel format changes; own_fmt is what they hold
     * (nc 0: none). */
    uint8_t *own_plane[XS_MAX_COMPONENTS];
    size_t own_pitch[XS_MAX_COMPONENTS];
    xsf_format own_fmt;
    /* The pixel format and the caller's output planes
     * (xs_gpu_set_output_format), the planes used while `set`. */
    struct {
        int set;
        xsf_container container;
        int has_colour; /* the conversion's colour is `colour`, else the codestream's */
        xsf_colour colour;
        uint8_t *plane[XS_MAX_COMPONENTS];
        size_t pitch_bytes[XS_MAX_COMPONENTS];
    } out;
    unsigned fmt_loaded; /* bit F: xs_output_fmt<F> is loaded */
    xsf_rgb_fixed rgb;   /* the RGB formats' coefficients for the frame */
    xsf_picture
        pic; /* the last picture: its format (the converted dec_fmt) and the planes written */
    /* pinned host staging */
    unsigned *h_prec_off[XS_GPU_STAGES];
    cudaEvent_t staged[XS_GPU_STAGES];
    int stage;
    int *h_err;
    /* timing */
    int timing;
    cudaEvent_t ev[XS_GPU_TIMERS + 1];
    /* The frame under way of the incremental API (xs_gpu_decode_begin .. end). */
    struct {
        int active;
        int stage;      /* its staging slot */
        int fallback;   /* it outgrew the codestream buffer: decoded whole at the end */
        int next_slice; /* slices [0, next_slice) are walked, uploaded and launched */
        size_t offset;  /* where slice next_slice starts */
        /* Rows released as they are final: per component, the coefficient
         * rows entropy-decoded (wav_inverse_rows_final's rows_in) and the
         * output rows written, by the work enqueued so far. */
        size_t coef_rows[XS_MAX_COMPONENTS];
        int out_rows[XS_MAX_COMPONENTS];
    } inc;
};

extern "C" xsf_status xs_gpu_available(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return XSF_ERR_NODEVICE;
    }
    return XSF_OK;
}

/* Frees the context's own output planes (after the work that may write them). */
static void free_own_planes(xs_gpu_decoder *d)
{
    if (d->own_fmt.nc)
        cudaStreamSynchronize(d->stream);
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        cudaFree(d->own_plane[c]);
        d->own_plane[c] = NULL;
        d->own_pitch[c] = 0;
    }
    d->own_fmt.nc = 0;
}

static void release(xs_gpu_decoder *d)
{
    cudaFree(d->d_cs);
    cudaFree(d->d_prec_off);
    cudaFree(d->d_gtli);
    cudaFree(d->d_mode);
    cudaFree(d->d_raw_lines);
    cudaFree(d->d_gcli);
    cudaFree(d->d_pkt);
    cudaFree(d->d_coef_all);
    cudaFree(d->d_pix_all);
    cudaFree(d->d_coef);
    cudaFree(d->d_pix);
    free_own_planes(d);
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        wav_cuda_plan_destroy(d->plan[c]);
        d->plan[c] = NULL;
    }
    for (int s = 0; s < XS_GPU_STAGES; s++) {
        cudaFreeHost(d->h_prec_off[s]);
        d->h_prec_off[s] = NULL;
    }
    d->d_cs = NULL;
    d->d_prec_off = NULL;
    d->d_gtli = d->d_mode = d->d_raw_lines = d->d_gcli = NULL;
    d->d_pkt = NULL;
    d->d_coef_all = d->d_pix_all = NULL;
    d->d_coef = d->d_pix = NULL;
    xsf_picture_init(&d->pic);
    d->cs_capacity = 0;
    d->configured = 0;
}

extern "C" xsf_status xs_gpu_decoder_create(xs_gpu_decoder **out, int device, xs_cuda_stream stream,
                                            xsf_error *err)
{
    if (!out)
        return xsf_error_set(err, XSF_ERR_ARG, "no place for the decoder");
    *out = NULL;
    if (xs_gpu_available() != XSF_OK)
        return xsf_error_set(err, XSF_ERR_NODEVICE, "no usable GPU");
    xs_gpu_decoder *d = (xs_gpu_decoder *)calloc(1, sizeof *d);
    if (!d)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a GPU decoder");
    d->device = device;
    d->stream = (cudaStream_t)stream;
    xsf_status st = XSF_OK;
    xsf_cuda_device_scope on_device(device);
    if (on_device.error() != cudaSuccess ||
        cudaMalloc(&d->d_err, GPU_STATUS_WORDS * sizeof(int)) != cudaSuccess ||
        cudaMallocHost(&d->h_err, GPU_STATUS_WORDS * sizeof(int)) != cudaSuccess)
        st = XSF_ERR_CUDA;
    for (int s = 0; s < XS_GPU_STAGES && st == XSF_OK; s++)
        if (cudaEventCreateWithFlags(&d->staged[s], cudaEventDisableTiming) != cudaSuccess)
            st = XSF_ERR_CUDA;
    for (int i = 0; i <= XS_GPU_TIMERS && st == XSF_OK; i++)
        if (cudaEventCreate(&d->ev[i]) != cudaSuccess)
            st = XSF_ERR_CUDA;
    if (st != XSF_OK) {
        xsf_error_set(err, st, "cannot set up a decoder on GPU %d: %s", device,
                      cudaGetErrorString(cudaGetLastError()));
        xs_gpu_decoder_destroy(d);
        return st;
    }
    memset(d->h_err, 0, GPU_STATUS_WORDS * sizeof(int));
    cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, device);
    /* CUDA loads a kernel at its first launch (lazy module loading, the default
     * since CUDA 12.2), under the driver's lock: a receiver's first frames
     * would pay it while packets queue. Asking for the kernels' attributes
     * loads them here, before any frame. */
    cudaFuncAttributes fa;
    const void *kernels[] = {(const void *)xs_parse_precincts, (const void *)xs_decode_packets,
                             (const void *)xs_resolve_vpred, (const void *)xs_decode_data,
                             (const void *)xs_output};
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
        if (cudaFuncGetAttributes(&fa, kernels[k]) != cudaSuccess)
            cudaGetLastError(); /* the launch will say what is wrong */
    *out = d;
    return XSF_OK;
}

extern "C" void xs_gpu_decoder_destroy(xs_gpu_decoder *d)
{
    if (!d)
        return;
    xsf_cuda_device_scope on_device(d->device);
    if (d->stream || d->d_err)
        cudaStreamSynchronize(d->stream);
    release(d);
    cudaFree(d->d_err);
    cudaFreeHost(d->h_err);
    for (int s = 0; s < XS_GPU_STAGES; s++) {
        if (d->staged[s])
            cudaEventDestroy(d->staged[s]);
    }
    for (int i = 0; i <= XS_GPU_TIMERS; i++)
        if (d->ev[i])
            cudaEventDestroy(d->ev[i]);
    free(d);
}

/* Worst-case codestream size of a format: every coefficient at 15 bitplanes
 * plus sign, its bitplane count, and every header at its longest. */
static size_t codestream_bound(const xs_geometry *g)
{
    size_t prec = (size_t)g->rows * g->cols;
    return g->samples * 5 / 2 + prec * (g->precinct_header_bytes + (size_t)g->npackets * 8) +
           (size_t)g->slices * 6 + 65536;
}

static xsf_status configure(xs_gpu_decoder *d, const xs_header *h, const xs_geometry *g,
                            size_t cs_len)
{
    if (d->configured && xs_same_format(&d->hdr, h) && cs_len <= d->cs_capacity)
        return XSF_OK;
    cudaStreamSynchronize(d->stream); /* buffers in use by this stream are about to go */
    release(d);
    const size_t nprec = (size_t)g->rows * g->cols;
    size_t cap = codestream_bound(g);
    if (cap < cs_len)
        cap = cs_len;
    size_t total = 0;
    for (int c = 0; c < g->nc; c++)
        total += (size_t)g->comp[c].width * g->comp[c].height;
    CUDA_TRY(cudaMalloc(&d->d_cs, cap + XS_GPU_CS_PAD));
    d->cs_capacity = cap;
    CUDA_TRY(cudaMalloc(&d->d_prec_off, nprec * sizeof(unsigned)));
    CUDA_TRY(cudaMalloc(&d->d_gtli, nprec * g->nbands));
    CUDA_TRY(cudaMalloc(&d->d_mode, nprec * g->nbands));
    CUDA_TRY(cudaMalloc(&d->d_raw_lines, nprec * g->nbands));
    CUDA_TRY(cudaMalloc(&d->d_gcli, g->gcli_total ? g->gcli_total : 1));
    CUDA_TRY(cudaMalloc(&d->d_pkt, nprec * g->npackets * sizeof(gpu_packet_info)));
    CUDA_TRY(cudaMalloc(&d->d_coef_all, total * sizeof(int32_t)));
    CUDA_TRY(cudaMalloc(&d->d_pix_all, total * sizeof(int32_t)));
    CUDA_TRY(cudaMalloc(&d->d_coef, XS_MAX_COMPONENTS * sizeof(int32_t *)));
    CUDA_TRY(cudaMalloc(&d->d_pix, XS_MAX_COMPONENTS * sizeof(int32_t *)));
    for (int s = 0; s < XS_GPU_STAGES; s++)
        CUDA_TRY(cudaMallocHost(&d->h_prec_off[s], nprec * sizeof(unsigned)));
    int32_t *coef_ptrs[XS_MAX_COMPONENTS] = {0}, *pix_ptrs[XS_MAX_COMPONENTS] = {0};
    size_t at = 0;
    memset(&d->dec_fmt, 0, sizeof d->dec_fmt);
    d->dec_fmt.container = XSF_PLANAR_U16;
    d->dec_fmt.nc = g->nc;
    d->pic.memory = XSF_MEMORY_DEVICE;
    d->pic.device = d->device;
    for (int c = 0; c < g->nc; c++) {
        const xs_component *cp = &g->comp[c];
        coef_ptrs[c] = d->d_coef_all + at;
        pix_ptrs[c] = cp->nlx > 0 ? d->d_pix_all + at : coef_ptrs[c];
        at += (size_t)cp->width * cp->height;
        d->dec_fmt.width[c] = cp->width;
        d->dec_fmt.height[c] = cp->height;
        d->dec_fmt.depth[c] = h->depth[c];
    }
    memcpy(d->pix_ptrs, pix_ptrs, sizeof pix_ptrs);
    /* Components of one size and decomposition share one plan: one launch
     * per level for all of them. */
    for (int c = 0; c < g->nc;) {
        const xs_component *cp = &g->comp[c];
        const int n = xs_dwt_group(g, c, g->nc);
        if (cp->nlx > 0) {
            const wav_plan_desc desc = xs_dwt_desc(cp, n);
            xsf_status st = wav_cuda_plan_create(&d->plan[c], &desc, &d->err);
            if (st != XSF_OK)
                return st;
        }
        c += n;
    }
    CUDA_TRY(
        cudaMemcpyAsync(d->d_coef, coef_ptrs, sizeof coef_ptrs, cudaMemcpyHostToDevice, d->stream));
    CUDA_TRY(
        cudaMemcpyAsync(d->d_pix, pix_ptrs, sizeof pix_ptrs, cudaMemcpyHostToDevice, d->stream));
    d->hdr = *h;
    d->configured = 1;
    return XSF_OK;
}

static void fill_geom(gpu_geom *gg, const xs_header *h, const xs_geometry *g)
{
    gg->nbands = g->nbands;
    gg->npackets = g->npackets;
    gg->rows = g->rows;
    gg->cols = g->cols;
    gg->hsl = h->hsl;
    gg->nc = g->nc;
    gg->long_headers = g->long_headers;
    gg->fs = h->fs;
    gg->rm = h->rm;
    gg->qpih = h->qpih;
    gg->fq = h->fq;
    gg->header_bytes = (int)g->precinct_header_bytes;
    for (int c = 0; c < g->nc; c++)
        gg->comp_width[c] = g->comp[c].width;
    for (int b = 0; b < g->nbands; b++) {
        const xs_band *s = &g->band[b];
        gpu_band *t = &gg->band[b];
        t->comp = s->comp;
        t->lines = s->lines;
        t->x0 = s->x0;
        t->y0 = s->y0;
        t->width = s->width;
        t->height = s->height;
        t->col_width = s->col_width;
        t->gcli_stride = (int)s->gcli_stride;
        t->gcli_offset = s->gcli_offset;
        t->gain = s->gain;
        t->priority = s->priority;
    }
    for (int k = 0; k < g->npackets; k++) {
        gg->packet[k].line = g->packet[k].line;
        gg->packet[k].first = g->packet[k].first;
        gg->packet[k].last = g->packet[k].last;
    }
}

/* "packets": bitplane counts and data of the packets (xs_decode_packets);
 * "vdata": the data of the packets that waited for the vertical prediction;
 * "idwt+out": the inverse DWT, whose last level writes the planar16 picture
 * where it can (fused_output); "convert": the output pass for the rest (the
 * other pixel formats, the RCT, the NLT, components without a DWT). */
static const char *timer_names[XS_GPU_TIMERS] = {"upload", "parse",    "packets", "vpred",
                                                 "vdata",  "idwt+out", "convert"};

static void mark(xs_gpu_decoder *d, int i)
{
    if (d->timing)
        cudaEventRecord(d->ev[i], d->stream);
}

/* Whether a precinct of [p0, p1) (offsets off[], into the host's copy buf
 * of len bytes) codes a band with vertical prediction: bit 0 of a band's
 * coding mode, 2 bits a band from byte 5 of the precinct header on, as
 * xs_parse_precincts reads them on the device. A header that buf does not
 * hold whole counts as one that does. */
static int uses_vpred(const xs_gpu_decoder *d, const unsigned *off, size_t p0, size_t p1,
                      const uint8_t *buf, size_t len)
{
    const int nb = d->geom.nbands, full = 2 * nb / 8, rest = 2 * nb % 8;
    /* bit 0 of each mode: every other bit from the second, MSB first */
    const uint8_t last = (uint8_t)(0x55 & ~(0xff >> rest));
    for (size_t p = p0; p < p1; p++) {
        const size_t at = (size_t)off[p] + 5;
        if (at > len || len - at < (size_t)full + (rest ? 1 : 0))
            return 1;
        for (int i = 0; i < full; i++)
            if (buf[at + i] & 0x55)
                return 1;
        if (rest && (buf[at + full] & last))
            return 1;
    }
    return 0;
}

/* Entropy decoding of slices [s0, s1) (precincts of rows s0 * Hsl .. s1 *
 * Hsl): their precinct offsets are staged in h_prec_off[stage] and their
 * bytes are on the device, and in buf[0, len) on the host (for uses_vpred:
 * a range without vertical prediction launches neither xs_resolve_vpred
 * nor xs_decode_data, which would find nothing to do). Slices are
 * independent until the inverse DWT, so a frame may be launched in any
 * number of such ranges, in order. `timed`: the whole-frame path, which
 * marks the timing events. */
static xsf_status launch_entropy(xs_gpu_decoder *d, int stage, int s0, int s1, const uint8_t *buf,
                                 size_t len, int timed)
{
    const xs_geometry *g = &d->geom;
    const int hsl = d->hdr.hsl;
    const int r0 = s0 * hsl < g->rows ? s0 * hsl : g->rows,
              r1 = s1 * hsl < g->rows ? s1 * hsl : g->rows;
    const size_t p0 = (size_t)r0 * g->cols, p1 = (size_t)r1 * g->cols, n = p1 - p0;
    if (r1 <= r0)
        return XSF_OK;
    cudaStream_t cs = d->stream;
    CUDA_TRY(cudaMemcpyAsync(d->d_prec_off + p0, d->h_prec_off[stage] + p0, n * sizeof(unsigned),
                             cudaMemcpyHostToDevice, cs));
    if (timed)
        mark(d, 1);
    const unsigned *words = (const unsigned *)d->d_cs;
    xs_parse_precincts<<<(unsigned)((n + 3) / 4), 128, 0, cs>>>(
        words, d->d_prec_off, d->geom_param, d->d_gtli, d->d_mode, d->d_raw_lines, d->d_pkt,
        (int)p0, (int)p1, d->d_err);
    CUDA_TRY(cudaGetLastError());
    if (timed)
        mark(d, 2);
    const size_t npk = n * g->npackets;
    xs_decode_packets<<<(unsigned)npk, PKT_THREADS, 0, cs>>>(words, d->geom_param, d->d_gtli,
                                                             d->d_mode, d->d_pkt, d->d_gcli,
                                                             d->d_coef, (int)p0, d->d_err);
    CUDA_TRY(cudaGetLastError());
    if (timed)
        mark(d, 3);
    const int vpred = uses_vpred(d, d->h_prec_off[stage], p0, p1, buf, len);
    if (vpred) {
        xs_resolve_vpred<<<(unsigned)(d->sms > 0 ? 2 * d->sms : 64), 256, 0, cs>>>(
            d->geom_param, d->d_gtli, d->d_mode, d->d_raw_lines, d->d_gcli, s0, s1 - s0, d->hdr.rm,
            d->d_err);
        CUDA_TRY(cudaGetLastError());
    }
    if (timed)
        mark(d, 4);
    if (vpred) {
        xs_decode_data<<<(unsigned)npk, PKT_THREADS, 0, cs>>>(words, d->geom_param, d->d_gtli,
                                                              d->d_mode, d->d_pkt, d->d_gcli,
                                                              d->d_coef, (int)p0, d->d_err);
        CUDA_TRY(cudaGetLastError());
    }
    if (timed)
        mark(d, 5);
    return XSF_OK;
}

/* The output stage's parameters for rows [y0[c], y1[c]) of each decoded
 * component; *maxw the widest component, *rows the most rows. */
static gpu_output_params output_params(const xs_gpu_decoder *d, const int y0[], const int y1[],
                                       int *maxw, int *rows)
{
    const xs_geometry *g = &d->geom;
    const xs_header *h = &d->hdr;
    gpu_output_params op = {};
    op.nc = g->nc;
    op.cpih = h->cpih;
    op.bw = h->bw;
    op.tnlt = h->tnlt;
    op.dco = (long long)h->nlt_alpha - (long long)h->nlt_sigma * 32768;
    op.t1 = h->nlt_t1;
    op.t2 = h->nlt_t2;
    op.e = h->nlt_e;
    *maxw = 1;
    *rows = 0;
    for (int c = 0; c < g->nc; c++) {
        op.width[c] = g->comp[c].width;
        op.height[c] = g->comp[c].height;
        op.depth[c] = h->depth[c];
        op.y0[c] = y0[c];
        op.y1[c] = y1[c];
        *maxw = op.width[c] > *maxw ? op.width[c] : *maxw;
        *rows = y1[c] - y0[c] > *rows ? y1[c] - y0[c] : *rows;
    }
    return op;
}

/* The luma rows of a converted picture (not planar) that rows [0, y[c]) of
 * every decoded component make whole: a chroma row of a 4:2:0 component
 * covers two; the 4:2:0 formats write row pairs (an even number of rows, or
 * all of them). */
static int converted_rows(const xs_gpu_decoder *d, const int y[])
{
    const xsf_format *f = &d->dec_fmt;
    const int h = f->height[0];
    int rows = h;
    for (int c = 0; c < f->nc; c++) {
        const int hc = f->height[c];
        const int r = y[c] >= hc ? h : y[c] * (h / hc);
        rows = r < rows ? r : rows;
    }
    if (fmt_pairs(d->pic.fmt.container) && rows < h)
        rows &= ~1;
    return rows;
}

/* xs_output_fmt<F> (through a pointer: the emulation rewrites plain launches only). */
template <int F>
static void launch_fmt(dim3 grid, cudaStream_t stream, const gpu_output_params &op,
                       const gpu_fmt_params &fp)
{
    const auto kernel = xs_output_fmt<F>;
    kernel<<<grid, 128, 0, stream>>>(op, fp);
}

/* The converted format's output for rows [y0[c], y1[c]) of each decoded
 * component (converted_rows of them for the formats other than planar8). */
static xsf_status launch_convert(xs_gpu_decoder *d, const int y0[], const int y1[])
{
    const xsf_format *f = &d->pic.fmt, *dec = &d->dec_fmt;
    const int F = f->container;
    int maxw, rows;
    const gpu_output_params op = output_params(d, y0, y1, &maxw, &rows);
    gpu_fmt_params fp = {};
    memcpy(fp.src, d->pix_ptrs, sizeof fp.src);
    for (int p = 0; p < xsf_format_planes(f); p++) {
        fp.plane[p] = d->pic.data[p];
        fp.pitch[p] = d->pic.stride[p];
        fp.row_bytes[p] = xsf_format_row_bytes(f, p);
    }
    fp.w = f->width[0];
    fp.h = f->height[0];
    const int ycc = xsf_container_is_ycbcr((xsf_container)F);
    fp.cw = ycc ? f->width[1] : fp.w;
    fp.ch = ycc ? f->height[1] : fp.h;
    for (int k = 1; k < 3 && k < dec->nc; k++) {
        fp.mx[k] = xsf_px_axis(dec->width[k], fp.cw);
        fp.my[k] = xsf_px_axis(dec->height[k], fp.ch);
    }
    fp.rgb = d->rgb;
    dim3 grid(1, 1, 1);
    if (F == XSF_PLANAR_U8) {
        fp.groups = (maxw + 7) / 8;
        grid.y = (unsigned)rows;
        grid.z = (unsigned)dec->nc;
    } else {
        const int l0 = converted_rows(d, y0), l1 = converted_rows(d, y1);
        const int r0 = fmt_pairs(F) ? l0 / 2 : l0, r1 = fmt_pairs(F) ? (l1 + 1) / 2 : l1;
        fp.r0 = r0;
        grid.y = r1 > r0 ? (unsigned)(r1 - r0) : 0;
        fp.groups = F == XSF_V210                            ? (fp.w + 47) / 48 * 8
                    : F == XSF_PGROUP10 || F == XSF_UYVY     ? (fp.cw + 3) / 4
                    : xsf_container_is_rgb((xsf_container)F) ? (fp.w + 3) / 4
                                                             : (fp.w + 7) / 8;
    }
    if (grid.y == 0)
        return XSF_OK;
    grid.x = (unsigned)((fp.groups + 127) / 128);
    cudaStream_t s = d->stream;
    switch (F) {
    case XSF_PLANAR_U8: launch_fmt<XSF_PLANAR_U8>(grid, s, op, fp); break;
    case XSF_V210: launch_fmt<XSF_V210>(grid, s, op, fp); break;
    case XSF_PGROUP10: launch_fmt<XSF_PGROUP10>(grid, s, op, fp); break;
    case XSF_P210: launch_fmt<XSF_P210>(grid, s, op, fp); break;
    case XSF_P010: launch_fmt<XSF_P010>(grid, s, op, fp); break;
    case XSF_UYVY: launch_fmt<XSF_UYVY>(grid, s, op, fp); break;
    case XSF_NV12: launch_fmt<XSF_NV12>(grid, s, op, fp); break;
    case XSF_I420: launch_fmt<XSF_I420>(grid, s, op, fp); break;
    case XSF_RGBA8: launch_fmt<XSF_RGBA8>(grid, s, op, fp); break;
    case XSF_BGRA8: launch_fmt<XSF_BGRA8>(grid, s, op, fp); break;
    case XSF_RGB48: launch_fmt<XSF_RGB48>(grid, s, op, fp); break;
    case XSF_RGBF32: launch_fmt<XSF_RGBF32>(grid, s, op, fp); break;
    default: return xsf_error_set(&d->err, XSF_ERR_ARG, "pixel format %d has no kernel", F);
    }
    CUDA_TRY(cudaGetLastError());
    return XSF_OK;
}

/* xs_output_fmt<F> for container F, NULL for planar16 (xs_output). */
static const void *fmt_kernel(int F)
{
    switch (F) {
    case XSF_PLANAR_U8: return (const void *)xs_output_fmt<XSF_PLANAR_U8>;
    case XSF_V210: return (const void *)xs_output_fmt<XSF_V210>;
    case XSF_PGROUP10: return (const void *)xs_output_fmt<XSF_PGROUP10>;
    case XSF_P210: return (const void *)xs_output_fmt<XSF_P210>;
    case XSF_P010: return (const void *)xs_output_fmt<XSF_P010>;
    case XSF_UYVY: return (const void *)xs_output_fmt<XSF_UYVY>;
    case XSF_NV12: return (const void *)xs_output_fmt<XSF_NV12>;
    case XSF_I420: return (const void *)xs_output_fmt<XSF_I420>;
    case XSF_RGBA8: return (const void *)xs_output_fmt<XSF_RGBA8>;
    case XSF_BGRA8: return (const void *)xs_output_fmt<XSF_BGRA8>;
    case XSF_RGB48: return (const void *)xs_output_fmt<XSF_RGB48>;
    case XSF_RGBF32: return (const void *)xs_output_fmt<XSF_RGBF32>;
    }
    return NULL;
}

/* The output stage for rows [y0[c], y1[c]) of each component, into the
 * frame's planes (d->pic, chosen by check_output), in its pixel format. */
static xsf_status launch_output(xs_gpu_decoder *d, const int y0[], const int y1[])
{
    if (d->pic.fmt.container != XSF_PLANAR_U16)
        return launch_convert(d, y0, y1);
    int maxw, rows;
    gpu_output_params op = output_params(d, y0, y1, &maxw, &rows);
    for (int c = 0; c < d->geom.nc; c++) {
        uint16_t *plane = (uint16_t *)d->pic.data[c];
        const size_t pitch = d->pic.stride[c];
        op.out[c] = plane;
        op.pitch[c] = pitch / sizeof(uint16_t);
        if ((uintptr_t)plane % 8 == 0 && pitch % 8 == 0)
            op.vec_store |= 1 << c;
    }
    if (rows == 0)
        return XSF_OK;
    const xs_geometry *g = &d->geom;
    dim3 ogrid((unsigned)((maxw + 4 * 128 - 1) / (4 * 128)), (unsigned)rows, (unsigned)g->nc);
    xs_output<<<ogrid, 128, 0, d->stream>>>(op, d->d_pix);
    CUDA_TRY(cudaGetLastError());
    return XSF_OK;
}

/* Whether the inverse DWT of the component group from c on (its plan's)
 * writes the frame's picture itself (wav_cuda_inverse_to_u16: the output
 * stage fused into the last level's stores, no xs_output pass over the
 * int32 planes), and into *out how: planar16 output of a linear picture
 * (no NLT) without the colour transform, each sample output_sample's. */
static int fused_output(const xs_gpu_decoder *d, int c, wav_u16_output *out)
{
    const xs_header *h = &d->hdr;
    if (!d->plan[c] || d->pic.fmt.container != XSF_PLANAR_U16 || h->tnlt != 0 || h->cpih != 0)
        return 0;
    const int n = (int)wav_cuda_plan_get_desc(d->plan[c])->planes;
    if (n > WAV_U16_PLANES)
        return 0;
    memset(out, 0, sizeof *out);
    for (int k = 0; k < n; k++) {
        /* xs_output's tnlt == 0 arithmetic: (clamp(v, +-2^30) + 2^(Bw-1) + round) >> dz, 0 <= dz
         * = Bw - depth <= 12 (the header's Bw <= 20, depth <= Bw) */
        const int depth = h->depth[c + k], dz = h->bw - depth;
        out->plane[k] = (uint16_t *)d->pic.data[c + k];
        out->pitch[k] = d->pic.stride[c + k] / sizeof(uint16_t);
        out->offset[k] = (1 << (h->bw - 1)) + ((1 << dz) >> 1);
        out->shift[k] = dz;
        out->max[k] = (1 << depth) - 1;
    }
    return 1;
}

/* The whole picture after its entropy decoding: the inverse DWT per
 * component group (the picture's planes written by it where fused_output),
 * the output stage for the rest, and the error words read back. */
static xsf_status launch_picture(xs_gpu_decoder *d, int timed)
{
    const xs_geometry *g = &d->geom;
    cudaStream_t cs = d->stream;
    int written[XS_MAX_COMPONENTS] = {0}; /* by the inverse DWT: no output pass */
    size_t at = 0;
    for (int c = 0; c < g->nc; c++) {
        const size_t off = at;
        at += (size_t)g->comp[c].width * g->comp[c].height;
        if (!d->plan[c])
            continue;
        /* this component and the rest of its group */
        wav_u16_output out;
        xsf_status st;
        if (fused_output(d, c, &out)) {
            st = wav_cuda_inverse_to_u16(d->plan[c], d->d_coef_all + off, &out, cs);
            for (int k = c; k < c + xs_dwt_group(g, c, g->nc); k++)
                written[k] = 1;
        } else {
            st = wav_cuda_inverse_to(d->plan[c], d->d_coef_all + off, d->d_pix_all + off, cs);
        }
        if (st != XSF_OK)
            return xsf_error_set(&d->err, st, "inverse DWT of component %d: %s", c, d->err.msg);
    }
    if (timed)
        mark(d, 6);
    int y0[XS_MAX_COMPONENTS] = {0}, y1[XS_MAX_COMPONENTS] = {0};
    for (int c = 0; c < g->nc; c++)
        y1[c] = written[c] ? 0 : g->comp[c].height;
    xsf_status st = launch_output(d, y0, y1);
    if (st != XSF_OK)
        return st;
    if (timed)
        mark(d, 7);
    CUDA_TRY(cudaMemcpyAsync(d->h_err, d->d_err, GPU_STATUS_WORDS * sizeof(int),
                             cudaMemcpyDeviceToHost, cs));
    return XSF_OK;
}

/* The incremental frame's rows that became final once its precinct rows
 * [0, prec_rows) are entropy-decoded (all of them: the whole picture): the
 * inverse DWT of those rows (wav_cuda_inverse_rows_to) and their output. */
static xsf_status release_rows(xs_gpu_decoder *d, int prec_rows)
{
    const xs_geometry *g = &d->geom;
    const int all = prec_rows >= g->rows;
    int y0[XS_MAX_COMPONENTS] = {0}, y1[XS_MAX_COMPONENTS] = {0};
    size_t at = 0;
    for (int c = 0; c < g->nc; c++) {
        const xs_component *cp = &g->comp[c];
        const size_t off = at, height = (size_t)cp->height;
        at += (size_t)cp->width * cp->height;
        /* Rows of the component a precinct row holds: 2^NLy,c with a decomposition, else its
         * share of the precinct's lines. */
        const size_t per =
            c < g->ncd ? (size_t)1 << cp->nly : (size_t)(g->precinct_height / cp->sy);
        size_t rows_in = all ? height : (size_t)prec_rows * per;
        if (rows_in > height)
            rows_in = height;
        if (d->plan[c]) { /* this component and the rest of its group: one call */
            const int n = xs_dwt_group(g, c, g->nc);
            wav_u16_output u16;
            const int fused = fused_output(d, c, &u16);
            xsf_status st =
                fused
                    ? wav_cuda_inverse_rows_to_u16(d->plan[c], d->d_coef_all + off, &u16,
                                                   d->inc.coef_rows[c], rows_in, d->stream)
                    : wav_cuda_inverse_rows_to(d->plan[c], d->d_coef_all + off, d->d_pix_all + off,
                                               d->inc.coef_rows[c], rows_in, d->stream);
            if (st != XSF_OK)
                return xsf_error_set(&d->err, st, "inverse DWT of component %d: %s", c, d->err.msg);
            const wav_plan_desc *desc = wav_cuda_plan_get_desc(d->plan[c]);
            const int out = (int)wav_inverse_rows_final(desc, rows_in);
            for (int k = c; k < c + n; k++) {
                d->inc.coef_rows[k] = rows_in;
                /* fused: the rows are written; the output pass has none left */
                y0[k] = fused ? out : d->inc.out_rows[k];
                y1[k] = out;
            }
        } else if (cp->nlx == 0 || c >= g->ncd) { /* no DWT: the coefficients are the samples */
            d->inc.coef_rows[c] = rows_in;
            y0[c] = d->inc.out_rows[c];
            y1[c] = (int)rows_in;
        }
    }
    if (d->hdr.cpih == 1) { /* the colour transform needs the three components' rows */
        const int lo =
            y1[0] < y1[1] ? (y1[0] < y1[2] ? y1[0] : y1[2]) : (y1[1] < y1[2] ? y1[1] : y1[2]);
        for (int c = 0; c < 3; c++)
            y1[c] = lo;
    }
    for (int c = 0; c < g->nc; c++)
        if (y1[c] < y0[c])
            y1[c] = y0[c];
    xsf_status st = launch_output(d, y0, y1);
    if (st != XSF_OK)
        return st;
    for (int c = 0; c < g->nc; c++)
        d->inc.out_rows[c] = y1[c];
    return XSF_OK;
}

/* Where the picture of the frame's format (d->pic.fmt) will be written:
 * the caller's planes must be there for every plane and hold its rows; the
 * context's own are allocated the first time they are needed, and again
 * when the format changes. */
static xsf_status check_output(xs_gpu_decoder *d)
{
    const xsf_format *f = &d->pic.fmt;
    const int planes = xsf_format_planes(f);
    if (d->out.set) {
        for (int c = 0; c < planes; c++) {
            const size_t row = xsf_format_row_bytes(f, c);
            if (!d->out.plane[c])
                return xsf_error_set(&d->err, XSF_ERR_ARG,
                                     "no output plane for component %d of %d (xs_gpu_set_output)",
                                     c, planes);
            if (d->out.pitch_bytes[c] < row)
                return xsf_error_set(&d->err, XSF_ERR_ARG,
                                     "output pitch of component %d is %zu bytes, its rows need %zu "
                                     "(xs_gpu_set_output)",
                                     c, d->out.pitch_bytes[c], row);
        }
        return XSF_OK;
    }
    if (d->own_fmt.nc && xsf_format_equal(&d->own_fmt, f))
        return XSF_OK;
    free_own_planes(d);
    for (int c = 0; c < planes; c++) {
        size_t pitch = 0;
        const cudaError_t e =
            cudaMallocPitch((void **)&d->own_plane[c], &pitch, xsf_format_row_bytes(f, c),
                            (size_t)xsf_format_plane_rows(f, c));
        if (e != cudaSuccess) {
            free_own_planes(d);
            return xsf_error_set(&d->err, XSF_ERR_CUDA, "allocating the picture's planes: %s",
                                 cudaGetErrorString(e));
        }
        d->own_pitch[c] = pitch;
    }
    d->own_fmt = *f;
    return XSF_OK;
}

/* The frame's picture goes where check_output found room: the caller's
 * planes while they are set, else the context's own. */
static void choose_planes(xs_gpu_decoder *d)
{
    for (int c = 0; c < xsf_format_planes(&d->pic.fmt); c++) {
        d->pic.data[c] = d->out.set ? d->out.plane[c] : d->own_plane[c];
        d->pic.stride[c] = d->out.set ? d->out.pitch_bytes[c] : d->own_pitch[c];
    }
}

/* The frame's picture: the decoded format converted to the pixel format
 * asked for (xsf_format_convert says why one does not apply), its colour,
 * the RGB formats' coefficients; the format's kernel loaded the first time. */
static xsf_status output_format(xs_gpu_decoder *d, const xs_header *h)
{
    xsf_colour colour;
    xs_header_colour(h, &colour);
    if (d->out.has_colour)
        colour = d->out.colour;
    const xsf_container F = d->out.container;
    xsf_format f = d->dec_fmt;
    xsf_status st =
        F == XSF_PLANAR_U16 ? XSF_OK : xsf_format_convert(&d->dec_fmt, &colour, F, &f, &d->err);
    if (st == XSF_OK && xsf_container_is_rgb(F))
        st = xsf_rgb_fixed_make(&d->rgb, &d->dec_fmt, &colour, F, &d->err);
    /* The last picture's planes do not hold a picture of another format. */
    if (st != XSF_OK || !xsf_format_equal(&f, &d->pic.fmt))
        memset(d->pic.data, 0, sizeof d->pic.data);
    if (st != XSF_OK)
        return st;
    d->pic.fmt = f;
    if (F == XSF_PLANAR_U16) {
        d->pic.colour = colour;
        return XSF_OK;
    }
    d->pic.colour = xsf_colour_convert(&colour, &d->dec_fmt, F);
    if (!(d->fmt_loaded >> F & 1)) {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, fmt_kernel(F)) != cudaSuccess)
            cudaGetLastError(); /* the launch will say what is wrong */
        d->fmt_loaded |= 1u << F;
    }
    return XSF_OK;
}

/* Reads the header and readies the context for it (allocating only when
 * the format changes), checks where the picture goes (check_output), takes
 * the next staging slot once its last upload has run, and clears the error
 * words. */
static xsf_status frame_setup(xs_gpu_decoder *d, const xs_header *given, const uint8_t *buf,
                              size_t len, size_t cs_len, int *stage)
{
    xsf_error_clear(&d->err); /* (the public call made d->device current: ON_DEVICE) */
    /* The header the caller parsed, else read here. */
    xs_header h;
    xsf_status st = given ? (h = *given, XSF_OK) : xs_parse_header(buf, len, &h, &d->err);
    if (st == XSF_OK)
        st = xs_geometry_init(&d->geom, &h, &d->err);
    if (st != XSF_OK)
        return st;
    st = configure(d, &h, &d->geom, cs_len);
    if (st != XSF_OK)
        return st;
    d->hdr = h;
    st = output_format(d, &h);
    if (st == XSF_OK)
        st = check_output(d);
    if (st != XSF_OK)
        return st;
    choose_planes(d);
    const int s = d->stage;
    d->stage = (d->stage + 1) % XS_GPU_STAGES;
    /* The slot was last used two frames ago: wait until its upload has run. */
    cudaEventSynchronize(d->staged[s]);
    fill_geom(&d->geom_param, &h, &d->geom);
    *stage = s;
    return XSF_OK;
}

/* Uploads codestream bytes [from, to) and zeroes the pad after them (the bit
 * readers look up to 12 bytes past a subpacket; what follows is uploaded
 * later in stream order, over the pad). */
static xsf_status upload(xs_gpu_decoder *d, const uint8_t *buf, const uint8_t *dev_cs, size_t from,
                         size_t to)
{
    cudaStream_t cs = d->stream;
    if (to > from) {
        if (dev_cs)
            CUDA_TRY(cudaMemcpyAsync(d->d_cs + from, dev_cs + from, to - from,
                                     cudaMemcpyDeviceToDevice, cs));
        else
            CUDA_TRY(
                cudaMemcpyAsync(d->d_cs + from, buf + from, to - from, cudaMemcpyHostToDevice, cs));
    }
    CUDA_TRY(cudaMemsetAsync(d->d_cs + to, 0, XS_GPU_CS_PAD, cs));
    return XSF_OK;
}

/* The whole frame at once; dev_cs (when not NULL) holds the codestream. */
static xsf_status enqueue(xs_gpu_decoder *d, const xs_header *given, const uint8_t *buf,
                          const uint8_t *dev_cs, size_t len, size_t *consumed)
{
    *consumed = 0;
    int s;
    xsf_status st = frame_setup(d, given, buf, len, len, &s);
    if (st != XSF_OK)
        return st;
    const xs_geometry *g = &d->geom;
    size_t total = 0;
    st = xs_walk(buf, len, &d->hdr, g, NULL, d->h_prec_off[s], &total, &d->err);
    if (st != XSF_OK)
        return st;
    mark(d, 0);
    CUDA_TRY(cudaMemsetAsync(d->d_err, 0, GPU_STATUS_WORDS * sizeof(int), d->stream));
    st = upload(d, buf, dev_cs, 0, total);
    if (st == XSF_OK)
        st = launch_entropy(d, s, 0, g->slices, buf, len, 1);
    /* The staging slot's uploads are enqueued (launch_entropy's first copy reads it). */
    cudaEventRecord(d->staged[s], d->stream);
    if (st == XSF_OK)
        st = launch_picture(d, 1);
    if (st != XSF_OK)
        return st;
    *consumed = total;
    return XSF_OK;
}

/* The arguments of a whole frame's decoding (xs_gpu_decode_parsed, xs_gpu_decode_device):
 * buf its codestream (on the host or the device), and no incremental frame under way. */
static xsf_status check_whole_frame(xs_gpu_decoder *d, const uint8_t *buf, const size_t *consumed)
{
    if (!d || !buf || !consumed)
        return XSF_ERR_ARG;
    if (d->inc.active)
        return xsf_error_set(&d->err, XSF_ERR_ARG,
                             "a frame begun with xs_gpu_decode_begin is under way");
    return XSF_OK;
}

extern "C" xsf_status xs_gpu_decode_parsed(xs_gpu_decoder *d, const xs_header *hdr,
                                           const uint8_t *buf, size_t len, size_t *consumed)
{
    const xsf_status st = check_whole_frame(d, buf, consumed);
    if (st != XSF_OK)
        return st;
    ON_DEVICE(d);
    return enqueue(d, hdr, buf, NULL, len, consumed);
}

extern "C" xsf_status xs_gpu_decode(xs_gpu_decoder *d, const uint8_t *buf, size_t len,
                                    size_t *consumed)
{
    return xs_gpu_decode_parsed(d, NULL, buf, len, consumed);
}

/* ---- incremental decoding: slices as they arrive ---- */

/* The frame under way is over without its picture: its staging slot is
 * free once what was enqueued has run, and the error words of what ran are
 * not reported (xs_gpu_sync then says nothing of it). */
static void frame_over(xs_gpu_decoder *d)
{
    cudaEventRecord(d->staged[d->inc.stage], d->stream);
    cudaMemsetAsync(d->d_err, 0, GPU_STATUS_WORDS * sizeof(int), d->stream);
    cudaMemcpyAsync(d->h_err, d->d_err, GPU_STATUS_WORDS * sizeof(int), cudaMemcpyDeviceToHost,
                    d->stream);
    cudaGetLastError();
    d->inc.active = 0;
}

/* Walks, uploads and launches the slices that buf[0, len) holds whole, from
 * inc.next_slice on. `final`: len is the whole codestream (a slice cut short
 * is then an error, and the EOC follows). */
static xsf_status advance(xs_gpu_decoder *d, const uint8_t *buf, size_t len, int final,
                          size_t *total)
{
    const xs_geometry *g = &d->geom;
    const int s0 = d->inc.next_slice;
    size_t off = d->inc.offset;
    const size_t from = s0 == 0 ? 0 : d->inc.offset; /* the first batch takes the header along */
    int s1 = s0;
    while (s1 < g->slices) {
        xsf_error e;
        xsf_error_clear(&e);
        const xsf_status st =
            xs_walk_slice(buf, len, &d->hdr, g, s1, &off, NULL, d->h_prec_off[d->inc.stage], &e);
        if (st == XSF_ERR_TRUNCATED && !final)
            break; /* need more */
        if (st != XSF_OK) {
            d->err = e;
            return st;
        }
        s1++;
    }
    size_t end = off;
    if (final) {
        const xsf_status st = xs_walk_end(buf, len, &d->hdr, off, &end, &d->err);
        if (st != XSF_OK)
            return st;
        *total = end;
    }
    if (s1 == s0 && !final)
        return XSF_OK;
    if (end > d->cs_capacity) {
        d->inc.fallback =
            1; /* beyond the buffer's bound for the format: decoded whole at the end */
        return XSF_OK;
    }
    xsf_status st = upload(d, buf, NULL, from, end);
    if (st == XSF_OK)
        st = launch_entropy(d, d->inc.stage, s0, s1, buf, len, 0);
    /* The rows these slices make final (the end releases the rest). */
    if (st == XSF_OK && !final)
        st = release_rows(d, s1 * d->hdr.hsl);
    if (st != XSF_OK)
        return st;
    d->inc.next_slice = s1;
    d->inc.offset = off;
    return XSF_OK;
}

extern "C" xsf_status xs_gpu_decode_begin_parsed(xs_gpu_decoder *d, const xs_header *hdr,
                                                 const uint8_t *buf, size_t len)
{
    if (!d || !buf)
        return XSF_ERR_ARG;
    if (d->inc.active)
        return xsf_error_set(&d->err, XSF_ERR_ARG, "a frame is under way: end or abort it first");
    ON_DEVICE(d);
    int s;
    xs_header h;
    xsf_error e;
    xsf_error_clear(&e);
    /* Size the codestream buffer for Lcod where it is signalled (else the format's bound). */
    const int parsed = hdr || xs_parse_header(buf, len, &h, &e) == XSF_OK;
    if (hdr)
        h = *hdr;
    const size_t cs_len = parsed ? h.lcod : 0;
    xsf_status st = frame_setup(d, parsed ? &h : NULL, buf, len, cs_len, &s);
    if (st == XSF_ERR_TRUNCATED) {
        xsf_error_clear(&d->err);
        return xsf_error_set(&d->err, XSF_ERR_AGAIN, "the header is not whole in %zu bytes", len);
    }
    if (st != XSF_OK)
        return st;
    if (cudaMemsetAsync(d->d_err, 0, GPU_STATUS_WORDS * sizeof(int), d->stream) != cudaSuccess) {
        cudaEventRecord(d->staged[s], d->stream);
        return xsf_error_set(&d->err, XSF_ERR_CUDA, "clearing the error words failed");
    }
    d->inc.active = 1;
    d->inc.stage = s;
    d->inc.fallback = 0;
    d->inc.next_slice = 0;
    d->inc.offset = d->hdr.header_bytes;
    memset(d->inc.coef_rows, 0, sizeof d->inc.coef_rows);
    memset(d->inc.out_rows, 0, sizeof d->inc.out_rows);
    st = advance(d, buf, len, 0, NULL);
    if (st != XSF_OK)
        frame_over(d);
    return st;
}

extern "C" xsf_status xs_gpu_decode_begin(xs_gpu_decoder *d, const uint8_t *buf, size_t len)
{
    return xs_gpu_decode_begin_parsed(d, NULL, buf, len);
}

extern "C" xsf_status xs_gpu_decode_more(xs_gpu_decoder *d, const uint8_t *buf, size_t len)
{
    if (!d || !buf)
        return XSF_ERR_ARG;
    if (!d->inc.active)
        return xsf_error_set(&d->err, XSF_ERR_ARG, "no frame under way (xs_gpu_decode_begin)");
    if (d->inc.fallback)
        return XSF_OK;
    ON_DEVICE(d);
    xsf_error_clear(&d->err);
    const xsf_status st = advance(d, buf, len, 0, NULL);
    if (st != XSF_OK)
        frame_over(d);
    return st;
}

extern "C" xsf_status xs_gpu_decode_end(xs_gpu_decoder *d, const uint8_t *buf, size_t len,
                                        size_t *consumed)
{
    if (!d || !buf || !consumed)
        return XSF_ERR_ARG;
    *consumed = 0;
    ON_DEVICE(d);
    if (!d->inc.active) /* never begun (the header came whole only now): the whole frame */
        return enqueue(d, NULL, buf, NULL, len, consumed);
    xsf_error_clear(&d->err);
    size_t total = 0;
    xsf_status st = d->inc.fallback ? XSF_OK : advance(d, buf, len, 1, &total);
    if (st != XSF_OK) {
        frame_over(d);
        return st;
    }
    if (d->inc.fallback) {
        frame_over(d);
        const xs_header h = d->hdr; /* begin's */
        return enqueue(d, &h, buf, NULL, len, consumed);
    }
    cudaEventRecord(d->staged[d->inc.stage], d->stream);
    d->inc.active = 0;
    st = release_rows(d, d->geom.rows);
    if (st != XSF_OK)
        return st;
    CUDA_TRY(cudaMemcpyAsync(d->h_err, d->d_err, GPU_STATUS_WORDS * sizeof(int),
                             cudaMemcpyDeviceToHost, d->stream));
    *consumed = total;
    return XSF_OK;
}

extern "C" void xs_gpu_decode_abort(xs_gpu_decoder *d)
{
    if (d && d->inc.active) {
        xsf_cuda_device_scope on_device(d->device);
        frame_over(d);
    }
}

extern "C" xsf_status xs_gpu_decode_device(xs_gpu_decoder *d, const uint8_t *dev_buf,
                                           const uint8_t *host_copy, size_t len, size_t *consumed)
{
    const xsf_status checked = check_whole_frame(d, dev_buf, consumed);
    if (checked != XSF_OK)
        return checked;
    ON_DEVICE(d);
    if (host_copy)
        return enqueue(d, NULL, host_copy, dev_buf, len, consumed);
    uint8_t *tmp = (uint8_t *)malloc(len ? len : 1);
    if (!tmp)
        return xsf_error_set(&d->err, XSF_ERR_NOMEM, "out of memory for a %zu-byte host copy", len);
    cudaError_t e = cudaMemcpyAsync(tmp, dev_buf, len, cudaMemcpyDeviceToHost, d->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(d->stream);
    xsf_status st = e == cudaSuccess
                        ? enqueue(d, NULL, tmp, dev_buf, len, consumed)
                        : xsf_error_set(&d->err, XSF_ERR_CUDA, "reading the codestream back: %s",
                                        cudaGetErrorString(e));
    /* enqueue copied what it needs from tmp into pinned staging before returning. */
    free(tmp);
    return st;
}

extern "C" xsf_status xs_gpu_set_output_format(xs_gpu_decoder *d, xsf_container container,
                                               const xsf_colour *colour,
                                               uint8_t *const plane[XS_MAX_COMPONENTS],
                                               const size_t pitch_bytes[XS_MAX_COMPONENTS])
{
    if (!d)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    if (d->inc.active) /* its rows are written as they become final, from begin on */
        return xsf_error_set(
            &d->err, XSF_ERR_ARG,
            "a frame begun with xs_gpu_decode_begin is under way: set the output before it");
    if ((unsigned)container >= XSF_CONTAINERS)
        return xsf_error_set(&d->err, XSF_ERR_ARG, "pixel format %d is not known", (int)container);
    if (plane && !pitch_bytes)
        return xsf_error_set(&d->err, XSF_ERR_ARG, "output planes without their pitches");
    for (int c = 0; plane && container == XSF_PLANAR_U16 && c < XS_MAX_COMPONENTS; c++) {
        /* xs_output addresses rows in samples: 2-byte units. */
        if ((uintptr_t)plane[c] % sizeof(uint16_t) || pitch_bytes[c] % sizeof(uint16_t))
            return xsf_error_set(
                &d->err, XSF_ERR_ARG,
                "output plane %d at %p, pitch %zu bytes: both must be 2-byte aligned", c,
                (void *)plane[c], pitch_bytes[c]);
    }
    memset(&d->out, 0, sizeof d->out);
    d->out.container = container;
    d->out.has_colour = colour != NULL;
    if (colour)
        d->out.colour = *colour;
    if (!plane)
        return XSF_OK;
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        d->out.plane[c] = plane[c];
        d->out.pitch_bytes[c] = pitch_bytes[c];
    }
    d->out.set = 1;
    return XSF_OK;
}

extern "C" xsf_status xs_gpu_set_output(xs_gpu_decoder *d, uint16_t *const plane[XS_MAX_COMPONENTS],
                                        const size_t pitch_bytes[XS_MAX_COMPONENTS])
{
    uint8_t *bytes[XS_MAX_COMPONENTS];
    for (int c = 0; plane && c < XS_MAX_COMPONENTS; c++)
        bytes[c] = (uint8_t *)plane[c];
    return xs_gpu_set_output_format(d, XSF_PLANAR_U16, NULL, plane ? bytes : NULL, pitch_bytes);
}

extern "C" const xsf_picture *xs_gpu_decoder_picture(const xs_gpu_decoder *d)
{
    return d->configured && d->pic.data[0] ? &d->pic : NULL;
}

extern "C" void xs_gpu_decode_rows(const xs_gpu_decoder *d, int rows[XS_MAX_COMPONENTS])
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        rows[c] = d && d->inc.active && c < d->geom.nc ? d->inc.out_rows[c] : 0;
    const xsf_container F = d ? d->pic.fmt.container : XSF_PLANAR_U16;
    if (!d || !d->inc.active || F == XSF_PLANAR_U16 || F == XSF_PLANAR_U8)
        return;
    /* A converted picture's rows: luma rows, and its chroma rows of them. */
    const int luma = converted_rows(d, d->inc.out_rows);
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        rows[c] = c >= d->pic.fmt.nc                   ? 0
                  : (c == 1 || c == 2) && fmt_pairs(F) ? (luma + 1) / 2
                                                       : luma;
}

extern "C" xsf_status xs_gpu_download_planes(xs_gpu_decoder *d,
                                             uint8_t *const host_plane[XS_MAX_COMPONENTS],
                                             const int from[XS_MAX_COMPONENTS],
                                             const int to[XS_MAX_COMPONENTS])
{
    if (!d || !host_plane || !from || !to || !d->configured)
        return XSF_ERR_ARG;
    if (!d->pic.data[0])
        return xsf_error_set(&d->err, XSF_ERR_ARG, "no picture to download");
    const xsf_format *f = &d->pic.fmt;
    const int planes = xsf_format_planes(f);
    for (int c = 0; c < planes; c++) {
        const int rows = xsf_format_plane_rows(f, c);
        if (from[c] < 0 || to[c] > rows || from[c] > to[c])
            return xsf_error_set(&d->err, XSF_ERR_ARG,
                                 "rows [%d, %d) of component %d, which has %d", from[c], to[c], c,
                                 rows);
    }
    ON_DEVICE(d);
    for (int c = 0; c < planes; c++) {
        const size_t row = xsf_format_row_bytes(f, c);
        if (to[c] > from[c])
            CUDA_TRY(cudaMemcpy2DAsync(host_plane[c] + (size_t)from[c] * row, row,
                                       d->pic.data[c] + (size_t)from[c] * d->pic.stride[c],
                                       d->pic.stride[c], row, (size_t)(to[c] - from[c]),
                                       cudaMemcpyDeviceToHost, d->stream));
    }
    return XSF_OK;
}

extern "C" xsf_status xs_gpu_download_rows(xs_gpu_decoder *d,
                                           uint16_t *const host_plane[XS_MAX_COMPONENTS],
                                           const int from[XS_MAX_COMPONENTS],
                                           const int to[XS_MAX_COMPONENTS])
{
    if (!host_plane)
        return XSF_ERR_ARG;
    uint8_t *bytes[XS_MAX_COMPONENTS];
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        bytes[c] = (uint8_t *)host_plane[c];
    return xs_gpu_download_planes(d, bytes, from, to);
}

extern "C" xsf_status xs_gpu_download(xs_gpu_decoder *d,
                                      uint16_t *const host_plane[XS_MAX_COMPONENTS], int sync)
{
    if (!d || !host_plane || !d->configured)
        return XSF_ERR_ARG;
    int from[XS_MAX_COMPONENTS] = {0}, to[XS_MAX_COMPONENTS] = {0};
    for (int c = 0; c < xsf_format_planes(&d->pic.fmt); c++)
        to[c] = xsf_format_plane_rows(&d->pic.fmt, c);
    const xsf_status st = xs_gpu_download_rows(d, host_plane, from, to);
    return st != XSF_OK || !sync ? st : xs_gpu_sync(d);
}

extern "C" xsf_status xs_gpu_sync(xs_gpu_decoder *d)
{
    ON_DEVICE(d);
    CUDA_TRY(cudaStreamSynchronize(d->stream));
    if (d->h_err[0]) {
        const int code = d->h_err[0], p = d->h_err[1], cols = d->geom.cols ? d->geom.cols : 1;
        xsf_error_clear(&d->err);
        return xsf_error_set(&d->err, XSF_ERR_INVALID, "precinct (%d,%d) packet %d band %d: %s",
                             p / cols, p % cols, d->h_err[2], d->h_err[3], gpu_error_text(code));
    }
    return XSF_OK;
}

extern "C" const char *xs_gpu_decoder_error(const xs_gpu_decoder *d)
{
    return d->err.msg;
}

extern "C" void xs_gpu_set_timing(xs_gpu_decoder *d, int on)
{
    d->timing = on;
}

extern "C" int xs_gpu_kernel_times(const xs_gpu_decoder *d, const char **names, float *ms, int max)
{
    if (!d->timing)
        return 0;
    xsf_cuda_device_scope on_device(d->device);
    int n = 0;
    for (int i = 0; i < XS_GPU_TIMERS && n < max; i++, n++) {
        names[n] = timer_names[i];
        ms[n] = 0;
        cudaEventElapsedTime(&ms[n], d->ev[i], d->ev[i + 1]);
    }
    return n;
}
