/* CUDA plans: the schedule of kernel launches for a description, the scratch
 * it needs, and the entry points of wavelet_cuda.h.
 *
 * Schedule (out of place, src -> dst), with V the 2D levels (levels_v, less the
 * levels whose band is already 1 row high: those split nothing vertically and
 * are horizontal levels) and L = levels_h:
 *   forward: 2D levels 1..V, LL through the scratch T0/T1, highs straight to
 *            dst; then one row pass for levels V+1..L in dst.
 *   inverse: one row pass for levels L..V+1 (src -> T(V-1), or dst if
 *            V == 0); then 2D levels V..1, highs from src, level l's LL
 *            output to T(l-2), level 1 into dst: every low band keeps its
 *            own scratch, which the incremental inverse needs from one call
 *            to the next (T0, T1 are the forward's; T2.. add ~1/48 of a
 *            picture at most).
 * In place, the 2D level that reads the whole picture region cannot write over
 * it while other warps still read: the forward copies the picture to S first;
 * the inverse copies the level-1 high bands to S, has the step before level 1
 * leave LL1 in S as well, and runs level 1 from S. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wavelet_cuda.h"
#include "wavelet_cuda_internal.h"
#include "wavelet_internal.h"

/* named (not anonymous): wav_cuda_plan, a global type, holds schedules */
namespace wav_schedule
{

/* Scratch T0, T1, ...: the forward and the in-place inverse alternate
 * between T0 and T1; the out-of-place inverse gives every level's low band its
 * own (see build). */
constexpr int T_COUNT = WAV_MAX_LEVELS;
enum buffer { BUF_IN, BUF_OUT, BUF_S, BUF_T0, BUF_COUNT = BUF_T0 + T_COUNT };
enum step_kind { STEP_2D, STEP_ROWS, STEP_COPY_ALL, STEP_COPY_HIGH1, STEP_COPY_IDENTITY };

struct step {
    step_kind kind;
    bool inverse;
    int level_first, level_last;
    int width, height; /* region */
    int levels;        /* rows: horizontal levels */
    buffer a, b, c;    /* 2D: image, ll, hi; rows: src, dst; copies: from, to */
};

constexpr int MAX_STEPS = WAV_MAX_LEVELS + 4;

struct schedule {
    int n;
    step s[MAX_STEPS];
};

} // namespace wav_schedule

using namespace wav_schedule;

struct wav_cuda_plan {
    wav_plan_desc desc;
    xsf_error err;
    xsf_error *user_err;
    int v2d; /* 2D levels that split rows */
    schedule fwd, inv, fwd_inplace, inv_inplace;
    /* scratch */
    void *s, *t[T_COUNT], *stage;
    wav::surface surf_s, surf_t[T_COUNT];
    size_t scratch_bytes;
    int stage_elems, rows_warps;
    size_t rows_smem; /* 0: the stage lives in global memory */
    int sm_count;
    long long resident_warps[2]; /* of the 2D kernels on the device: forward, inverse */
    int chunk_override;
};

namespace
{

xsf_status fail(wav_cuda_plan *p, xsf_status st, const char *what, cudaError_t e)
{
    xsf_error_set(&p->err, st, "wavelet (CUDA): %s: %s", what, cudaGetErrorString(e));
    if (p->user_err)
        xsf_error_set(p->user_err, st, "%s", p->err.msg);
    return st;
}

void push(schedule &sc, const step &st)
{
    sc.s[sc.n++] = st;
}

/* A step of `kind` over a w x h region from buffer a into b (every kind's fields). */
step step_of(step_kind kind, int w, int h, buffer a, buffer b)
{
    step s = {};
    s.kind = kind;
    s.width = w;
    s.height = h;
    s.a = a;
    s.b = b;
    return s;
}

step step_2d(bool inverse, int level, int w, int h, buffer image, buffer ll, buffer hi)
{
    step s = step_of(STEP_2D, w, h, image, ll);
    s.inverse = inverse;
    s.level_first = s.level_last = level;
    s.c = hi;
    return s;
}

step step_rows(bool inverse, int first, int last, int w, int h, buffer src, buffer dst)
{
    step s = step_of(STEP_ROWS, w, h, src, dst);
    s.inverse = inverse;
    s.level_first = first;
    s.level_last = last;
    s.levels = (last > first ? last - first : first - last) + 1;
    return s;
}

/* Scratch needed by the schedules: the largest band each T buffer holds. */
struct extent {
    int w = 0, h = 0;
    void add(int ww, int hh)
    {
        w = ww > w ? ww : w;
        h = hh > h ? hh : h;
    }
};

void build(wav_cuda_plan *p, extent te[T_COUNT], bool &need_s)
{
    const wav_plan_desc &d = p->desc;
    const int W = (int)d.width, H = (int)d.height, L = d.levels_h;
    const int V = wav_row_splitting_levels(&d);
    p->v2d = V;
    const int rw = (int)wav_low_len(d.width, V), rh = (int)wav_low_len(d.height, V);
    auto lw = [&](int l) { return (int)wav_low_len(d.width, l); };
    auto lh = [&](int l) { return (int)wav_low_len(d.height, l < V ? l : V); };

    for (int inplace = 0; inplace < 2; inplace++) {
        /* forward */
        schedule &f = inplace ? p->fwd_inplace : p->fwd;
        f.n = 0;
        if (L == 0) {
            if (!inplace)
                push(f, step_of(STEP_COPY_IDENTITY, W, H, BUF_IN, BUF_OUT));
        } else {
            buffer in = BUF_IN;
            if (inplace && V > 0) {
                push(f, step_of(STEP_COPY_ALL, W, H, BUF_IN, BUF_S));
                in = BUF_S;
                need_s = true;
            }
            int ti = 0;
            for (int l = 1; l <= V; l++) {
                buffer ll = l == L ? BUF_OUT : (buffer)(BUF_T0 + ti);
                if (ll != BUF_OUT)
                    te[ti].add(lw(l), lh(l));
                push(f, step_2d(false, l, lw(l - 1), lh(l - 1), in, ll, BUF_OUT));
                in = ll;
                ti ^= 1;
            }
            if (L > V)
                push(f, step_rows(false, V + 1, L, rw, rh, in, BUF_OUT));
        }
        /* inverse */
        schedule &v = inplace ? p->inv_inplace : p->inv;
        v.n = 0;
        if (L == 0) {
            if (!inplace)
                push(v, step_of(STEP_COPY_IDENTITY, W, H, BUF_IN, BUF_OUT));
            continue;
        }
        const bool stage_s = inplace && V > 0;
        if (stage_s) {
            need_s = true;
            push(v, step_of(L > 1 ? STEP_COPY_HIGH1 : STEP_COPY_ALL, W, H, BUF_IN, BUF_S));
        }
        /* Out of place, the low band LL(l) that level l + 1 leaves (or the
         * row pass, l = V) goes to T(l - 1), where it stays: the incremental
         * inverse (wav_cuda_inverse_rows_to) computes each level's rows a
         * band at a time and reads, at the next call, the rows of every
         * level's low band that earlier calls left. T0 and T1 hold the same
         * bands as in the forward; T2.. the small ones below. */
        auto low_band = [&](int l, int alternate) {
            return inplace ? (buffer)(BUF_T0 + alternate) : (buffer)(BUF_T0 + l - 1);
        };
        buffer cur = BUF_IN;
        int ti = 0;
        if (L > V) {
            buffer out = V == 0 ? BUF_OUT : (stage_s && V == 1) ? BUF_S : low_band(V, 0);
            if (out >= BUF_T0)
                te[out - BUF_T0].add(rw, rh), ti = 1;
            push(v, step_rows(true, L, V + 1, rw, rh, BUF_IN, out));
            cur = out;
        }
        for (int l = V; l >= 1; l--) {
            buffer out = l == 1 ? BUF_OUT : (stage_s && l == 2) ? BUF_S : low_band(l - 1, ti);
            if (out >= BUF_T0)
                te[out - BUF_T0].add(lw(l - 1), lh(l - 1));
            buffer hi = (stage_s && l == 1) ? BUF_S : BUF_IN;
            if (stage_s && l == 1 && L == 1)
                cur = BUF_S; /* the whole picture was copied */
            push(v, step_2d(true, l, lw(l - 1), lh(l - 1), out, cur, hi));
            cur = out;
            ti ^= 1;
        }
    }
}

wav::surface user_surface(const wav_plan_desc &d, const void *ptr)
{
    wav::surface s;
    s.ptr = const_cast<void *>(ptr);
    s.pitch = (long long)d.pitch;
    s.plane_stride = d.planes > 1 ? (long long)d.plane_stride : 0; /* unused with one plane */
    return s;
}

/* Pairs of rows a warp of the 2D kernels runs down (its chunk). */
constexpr int CHUNK_MIN = 4, CHUNK_MAX = 64;

/* Tall chunks re-read fewer pre-roll rows (a chunk reads STEPS pairs of rows
 * above and below it twice: 6% at 32 pairs for the 5/3), short ones give
 * more warps, and a warp's rows are loaded one pair after the other, so a
 * level with few warps is latency-bound. Take the fewest whole waves of
 * resident warps that chunks of CHUNK_MAX pairs need, then the chunk that
 * fills those waves: every multiprocessor busy to the end, no second wave
 * for a few warps, and small levels cut into short chunks (down to
 * CHUNK_MIN) for parallelism. */
int pick_chunk(const wav_cuda_plan *p, const step &s)
{
    const long long hl = (s.height + 1) / 2;
    if (p->chunk_override && (hl + p->chunk_override - 1) / p->chunk_override <= 65535)
        return p->chunk_override;
    const long long wl = (s.width + 1) / 2;
    const long long strips = (wl + wav::LEVEL2D_VALID_PAIRS - 1) / wav::LEVEL2D_VALID_PAIRS;
    const long long warps_x =
        (strips + wav::LEVEL2D_WARPS - 1) / wav::LEVEL2D_WARPS * wav::LEVEL2D_WARPS;
    const long long pair_rows = warps_x * (long long)p->desc.planes * hl; /* warp-pairs of work */
    const long long resident = p->resident_warps[s.inverse ? 1 : 0];
    long long waves = (pair_rows + resident * CHUNK_MAX - 1) / (resident * CHUNK_MAX);
    if (waves < 1)
        waves = 1;
    long long c = (pair_rows + waves * resident - 1) / (waves * resident);
    c = c < CHUNK_MIN ? CHUNK_MIN : c > CHUNK_MAX ? CHUNK_MAX : c;
    while ((hl + c - 1) / c > 65535) /* grid y */
        c *= 2;
    return (int)c;
}

/* The chunk for `pairs` pairs of a 2D level run alone (the incremental
 * inverse: a few rows at a time): short enough to give the resident warps
 * work, at most the whole-level chunk. */
int part_chunk(const wav_cuda_plan *p, const step &s, int pairs, int whole_chunk)
{
    const long long wl = (s.width + 1) / 2;
    const long long strips = (wl + wav::LEVEL2D_VALID_PAIRS - 1) / wav::LEVEL2D_VALID_PAIRS;
    const long long across = strips * (long long)p->desc.planes;
    long long rows_of_warps = p->resident_warps[1] / (across > 0 ? across : 1);
    if (rows_of_warps < 1)
        rows_of_warps = 1;
    long long c = (pairs + rows_of_warps - 1) / rows_of_warps;
    c = c < CHUNK_MIN ? CHUNK_MIN : c > whole_chunk ? whole_chunk : c;
    while ((pairs + c - 1) / c > 65535) /* grid y */
        c *= 2;
    return (int)c;
}

cudaError_t copy_rect(const wav_plan_desc &d, const wav::surface &from, const wav::surface &to,
                      int x0, int y0, int w, int h, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    for (size_t pl = 0; pl < d.planes; pl++) {
        const char *src = static_cast<const char *>(from.ptr) +
                          4 * ((long long)pl * from.plane_stride + (long long)y0 * from.pitch + x0);
        char *dst = static_cast<char *>(to.ptr) +
                    4 * ((long long)pl * to.plane_stride + (long long)y0 * to.pitch + x0);
        cudaError_t e =
            cudaMemcpy2DAsync(dst, 4 * (size_t)to.pitch, src, 4 * (size_t)from.pitch, 4 * (size_t)w,
                              (size_t)h, cudaMemcpyDeviceToDevice, stream);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* Runs step s on the rows [row0, row1) of its output region (the whole
 * region: 0, INT_MAX); u16 (not NULL): the step that writes BUF_OUT writes
 * u16's planes instead (the inverse's last step). */
xsf_status run_step(wav_cuda_plan *p, const step &s, const wav::surface buf[BUF_COUNT],
                    cudaStream_t stream, int row0 = 0, int row1 = 1 << 30,
                    const wav_u16_output *u16 = nullptr)
{
    const wav_plan_desc &d = p->desc;
    row1 = row1 < s.height ? row1 : s.height;
    if (row0 >= row1)
        return XSF_OK;
    const bool whole = row0 == 0 && row1 == s.height;
    const wav::filter_kernels &k = wav::kernels_of(d.filter);
    cudaError_t e = cudaSuccess;
    const char *what = "";
    switch (s.kind) {
    case STEP_2D: {
        wav::level2d_args a;
        a.image = buf[s.a];
        a.ll = buf[s.b];
        a.hi = buf[s.c];
        a.width = s.width;
        a.height = s.height;
        a.chunk_pairs = pick_chunk(p, s);
        a.planes = (int)d.planes;
        a.pair_first = row0 / 2; /* an output pair is rows 2i, 2i + 1 */
        a.pair_end = (row1 + 1) / 2;
        if (!whole)
            a.chunk_pairs = part_chunk(p, s, a.pair_end - a.pair_first, a.chunk_pairs);
        e = k.launch_level2d(s.inverse, a, s.a == BUF_OUT ? u16 : nullptr, stream);
        what = "2D level kernel";
        break;
    }
    case STEP_ROWS: {
        wav::rows_args a;
        a.src = buf[s.a];
        a.dst = buf[s.b];
        a.stage_global = p->rows_smem ? nullptr : p->stage;
        a.width = s.width;
        a.height = row1 - row0;
        a.row_first = row0;
        a.levels = s.levels;
        a.planes = (int)d.planes;
        a.stage_elems = p->stage_elems;
        a.warps_per_block = p->rows_warps;
        e = k.launch_rows(s.inverse, a, s.b == BUF_OUT ? u16 : nullptr, p->rows_smem, stream);
        what = "row kernel";
        break;
    }
    case STEP_COPY_IDENTITY:
    case STEP_COPY_ALL:
        e = copy_rect(d, buf[s.a], buf[s.b], 0, row0, s.width, row1 - row0, stream);
        what = "copy";
        break;
    case STEP_COPY_HIGH1: {
        const int w1 = (s.width + 1) / 2, h1 = (s.height + 1) / 2;
        e = copy_rect(d, buf[s.a], buf[s.b], w1, 0, s.width - w1, h1, stream);
        if (e == cudaSuccess)
            e = copy_rect(d, buf[s.a], buf[s.b], 0, h1, s.width, s.height - h1, stream);
        what = "copy";
        break;
    }
    }
    if (e != cudaSuccess)
        return fail(p, XSF_ERR_CUDA, what, e);
    return XSF_OK;
}

void surfaces(const wav_cuda_plan *p, const void *in, void *out, wav::surface buf[BUF_COUNT])
{
    buf[BUF_IN] = user_surface(p->desc, in);
    buf[BUF_OUT] = user_surface(p->desc, out);
    buf[BUF_S] = p->surf_s;
    for (int i = 0; i < T_COUNT; i++)
        buf[BUF_T0 + i] = p->surf_t[i];
}

xsf_status run(wav_cuda_plan *p, const schedule &sc, const void *in, void *out, cudaStream_t stream)
{
    wav::surface buf[BUF_COUNT];
    surfaces(p, in, out, buf);
    for (int i = 0; i < sc.n; i++) {
        xsf_status st = run_step(p, sc.s[i], buf, stream);
        if (st != XSF_OK)
            return st;
    }
    return XSF_OK;
}

size_t extent_bytes(const wav_plan_desc &d)
{
    return 4 * ((d.planes - 1) * (d.planes > 1 ? d.plane_stride : 0) + (d.height - 1) * d.pitch +
                d.width);
}

xsf_status check_call(wav_cuda_plan *p, const void *a, const void *b)
{
    if (!p)
        return XSF_ERR_ARG;
    xsf_error_clear(&p->err);
    if (!a || !b) {
        xsf_error_set(&p->err, XSF_ERR_ARG, "wavelet (CUDA): null buffer");
        return XSF_ERR_ARG;
    }
    return XSF_OK;
}

/* check_call, and src and dst apart (the calls that write elsewhere). */
xsf_status check_apart(wav_cuda_plan *p, const void *src, const void *dst)
{
    const xsf_status st = check_call(p, src, dst);
    if (st != XSF_OK)
        return st;
    const size_t n = extent_bytes(p->desc);
    const uintptr_t s = (uintptr_t)src, t = (uintptr_t)dst;
    if (s < t + n && t < s + n) {
        xsf_error_set(&p->err, XSF_ERR_ARG,
                      "wavelet (CUDA): source and destination overlap; use the in-place call");
        if (p->user_err)
            xsf_error_set(p->user_err, XSF_ERR_ARG, "%s", p->err.msg);
        return XSF_ERR_ARG;
    }
    return XSF_OK;
}

/* check_call for the calls into 16-bit planes (wavelet_cuda.h: wav_u16_output). */
xsf_status check_u16(wav_cuda_plan *p, const void *src, const wav_u16_output *out)
{
    const xsf_status st = check_call(p, src, out);
    if (st != XSF_OK)
        return st;
    const wav_plan_desc &d = p->desc;
    const char *why = NULL;
    if (d.filter != WAV_FILTER_53 || d.levels_h < 1 || d.planes > WAV_U16_PLANES)
        why = "16-bit output needs a 5/3 plan with a level and at most 4 planes";
    for (size_t k = 0; !why && k < d.planes; k++) {
        if (!out->plane[k] || (uintptr_t)out->plane[k] % 2 || out->pitch[k] < d.width)
            why = "16-bit output plane missing, misaligned or narrower than the picture";
        else if (out->offset[k] <= -(1 << 30) || out->offset[k] >= (1 << 30) || out->shift[k] < 0 ||
                 out->shift[k] > 30 || out->max[k] < 0 || out->max[k] > 65535)
            why = "16-bit output conversion out of range";
    }
    if (!why)
        return XSF_OK;
    xsf_error_set(&p->err, XSF_ERR_ARG, "wavelet (CUDA): %s", why);
    if (p->user_err)
        xsf_error_set(p->user_err, XSF_ERR_ARG, "%s", p->err.msg);
    return XSF_ERR_ARG;
}

/* The whole forward or inverse transform of src into dst. */
xsf_status run_apart(wav_cuda_plan *p, bool inverse, const void *src, void *dst,
                     cudaStream_t stream)
{
    const xsf_status st = check_apart(p, src, dst);
    return st != XSF_OK ? st : run(p, inverse ? p->inv : p->fwd, src, dst, stream);
}

} // namespace

extern "C" {

xsf_status wav_cuda_plan_create(wav_cuda_plan **plan, const wav_plan_desc *desc, xsf_error *err)
{
    if (!plan)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet (CUDA): no plan pointer");
    *plan = NULL;
    xsf_status st = wav_plan_validate(desc, err);
    if (st != XSF_OK)
        return st;
    /* kernel indices are 32-bit; grid z carries the planes, grid x the rows */
    if (desc->width >= (1u << 30) || desc->height >= (1u << 30) || desc->planes > 65535 ||
        desc->height * desc->planes > (size_t)INT32_MAX)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "wavelet (CUDA): %zux%zu x %zu planes; at most 2^30-1 samples a "
                             "side, 65535 planes and 2^31-1 rows in all",
                             desc->width, desc->height, desc->planes);
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&dev, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return xsf_error_set(err, XSF_ERR_NODEVICE, "wavelet (CUDA): no usable GPU: %s",
                             cudaGetErrorString(e));
    }
    wav_cuda_plan *p = static_cast<wav_cuda_plan *>(calloc(1, sizeof *p));
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "wavelet (CUDA): out of memory");
    p->desc = *desc;
    p->user_err = err;
    p->sm_count = dev;
    for (int inverse = 0; inverse < 2; inverse++) {
        int blocks = 0;
        e = wav::kernels_of(desc->filter).level2d_blocks_per_sm(inverse, &blocks);
        if (e != cudaSuccess || blocks < 1) {
            fail(p, XSF_ERR_CUDA, "occupancy of the 2D kernels", e);
            wav_cuda_plan_destroy(p);
            return XSF_ERR_CUDA;
        }
        p->resident_warps[inverse] = (long long)blocks * wav::LEVEL2D_WARPS * p->sm_count;
    }

    extent te[T_COUNT];
    bool need_s = false;
    build(p, te, need_s);

    /* the row kernels' stage: shared memory when one row fits (4 warps a block
     * while that stays under 96 KiB, to keep several blocks per multiprocessor) */
    const int rw = (int)wav_low_len(desc->width, p->v2d);
    p->stage_elems = wav::rows_stage_elems(rw);
    const size_t row_bytes = 4 * (size_t)p->stage_elems;
    int dev_id = 0, smem_optin = 0;
    cudaGetDevice(&dev_id);
    cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev_id);
    p->rows_warps = 4;
    while (p->rows_warps > 1 && row_bytes * p->rows_warps > 96 * 1024)
        p->rows_warps /= 2;
    size_t stage_global = 0;
    if (row_bytes * p->rows_warps <= (size_t)smem_optin) {
        p->rows_smem = row_bytes * p->rows_warps;
        if (p->rows_smem > 48 * 1024) {
            /* the limit is the kernel's, shared by every plan: raise it to the
             * device's maximum, never lower it under another plan's need */
            e = wav::kernels_of(desc->filter).rows_allow_smem((size_t)smem_optin);
            if (e != cudaSuccess) {
                fail(p, XSF_ERR_CUDA, "shared memory limit", e);
                wav_cuda_plan_destroy(p);
                return XSF_ERR_CUDA;
            }
        }
    } else {
        p->rows_smem = 0;
        stage_global = row_bytes * desc->planes * wav_low_len(desc->height, p->v2d);
    }

    /* scratch: S (a copy of the picture region for in-place calls), T0, T1, ... */
    const long long ps = ((long long)desc->width + 3) & ~3ll;
    const size_t s_bytes = need_s ? 4 * (size_t)ps * desc->height * desc->planes : 0;
    size_t t_bytes[T_COUNT];
    for (int i = 0; i < T_COUNT; i++) {
        const long long pt = ((long long)te[i].w + 3) & ~3ll;
        p->surf_t[i].pitch = pt;
        p->surf_t[i].plane_stride = pt * te[i].h;
        t_bytes[i] = 4 * (size_t)(pt * te[i].h) * desc->planes;
    }
    p->surf_s.pitch = ps;
    p->surf_s.plane_stride = ps * (long long)desc->height;
    void **ptrs[T_COUNT + 2] = {&p->s, &p->stage};
    size_t sizes[T_COUNT + 2] = {s_bytes, stage_global};
    for (int i = 0; i < T_COUNT; i++) {
        ptrs[2 + i] = &p->t[i];
        sizes[2 + i] = t_bytes[i];
    }
    for (int i = 0; i < T_COUNT + 2; i++) {
        if (!sizes[i])
            continue;
        e = cudaMalloc(ptrs[i], sizes[i]);
        if (e != cudaSuccess) {
            cudaGetLastError();
            fail(p, XSF_ERR_NOMEM, "scratch allocation", e);
            wav_cuda_plan_destroy(p);
            return XSF_ERR_NOMEM;
        }
        p->scratch_bytes += sizes[i];
    }
    p->surf_s.ptr = p->s;
    for (int i = 0; i < T_COUNT; i++)
        p->surf_t[i].ptr = p->t[i];
    *plan = p;
    return XSF_OK;
}

void wav_cuda_plan_destroy(wav_cuda_plan *plan)
{
    if (!plan)
        return;
    cudaFree(plan->s);
    for (int i = 0; i < T_COUNT; i++)
        cudaFree(plan->t[i]);
    cudaFree(plan->stage);
    free(plan);
}

const wav_plan_desc *wav_cuda_plan_get_desc(const wav_cuda_plan *plan)
{
    return plan ? &plan->desc : NULL;
}

size_t wav_cuda_plan_scratch_bytes(const wav_cuda_plan *plan)
{
    return plan ? plan->scratch_bytes : 0;
}

const char *wav_cuda_plan_error(const wav_cuda_plan *plan)
{
    return plan ? plan->err.msg : "no plan";
}

xsf_status wav_cuda_forward(wav_cuda_plan *plan, void *data, struct CUstream_st *stream)
{
    xsf_status st = check_call(plan, data, data);
    return st != XSF_OK ? st : run(plan, plan->fwd_inplace, data, data, stream);
}

xsf_status wav_cuda_inverse(wav_cuda_plan *plan, void *data, struct CUstream_st *stream)
{
    xsf_status st = check_call(plan, data, data);
    return st != XSF_OK ? st : run(plan, plan->inv_inplace, data, data, stream);
}

xsf_status wav_cuda_forward_to(wav_cuda_plan *plan, const void *src, void *dst,
                               struct CUstream_st *stream)
{
    return run_apart(plan, false, src, dst, stream);
}

xsf_status wav_cuda_inverse_to(wav_cuda_plan *plan, const void *src, void *dst,
                               struct CUstream_st *stream)
{
    return run_apart(plan, true, src, dst, stream);
}

xsf_status wav_cuda_inverse_to_u16(wav_cuda_plan *plan, const void *src, const wav_u16_output *out,
                                   struct CUstream_st *stream)
{
    xsf_status st = check_u16(plan, src, out);
    if (st != XSF_OK)
        return st;
    wav::surface buf[BUF_COUNT];
    surfaces(plan, src, nullptr, buf);
    for (int i = 0; i < plan->inv.n && st == XSF_OK; i++)
        st = run_step(plan, plan->inv.s[i], buf, stream, 0, 1 << 30, out);
    return st;
}

/* wav_cuda_inverse_rows_to, into dst or (u16 not NULL) u16's planes; the
 * arguments checked. */
static xsf_status inverse_rows(wav_cuda_plan *plan, const void *src, void *dst,
                               const wav_u16_output *u16, size_t rows_before, size_t rows_in,
                               struct CUstream_st *stream)
{
    xsf_status st = XSF_OK;
    if (rows_before > rows_in) {
        xsf_error_set(&plan->err, XSF_ERR_ARG,
                      "wavelet (CUDA): rows %zu after %zu: the final rows only grow", rows_in,
                      rows_before);
        if (plan->user_err)
            xsf_error_set(plan->user_err, XSF_ERR_ARG, "%s", plan->err.msg);
        return XSF_ERR_ARG;
    }
    /* Each step computes the rows of its output that became final: its
     * output's final rows before this call and now (wav_inverse_final_levels:
     * ll[V] after the row pass, ll[l - 1] after the 2D level l, ll[0] the
     * picture). The steps read only rows that are final: the output of the
     * steps before (this call's or earlier calls', kept in the scratch) and
     * the bands of src. */
    size_t was[WAV_MAX_LEVELS + 1], now[WAV_MAX_LEVELS + 1];
    wav_inverse_final_levels(&plan->desc, rows_before, was);
    wav_inverse_final_levels(&plan->desc, rows_in, now);
    wav::surface buf[BUF_COUNT];
    surfaces(plan, src, dst, buf);
    const schedule &sc = plan->inv;
    for (int i = 0; i < sc.n && st == XSF_OK; i++) {
        const step &s = sc.s[i];
        const int l = s.kind == STEP_2D ? s.level_first - 1 : s.kind == STEP_ROWS ? plan->v2d : 0;
        st = run_step(plan, s, buf, stream, (int)was[l], (int)now[l], u16);
    }
    return st;
}

xsf_status wav_cuda_inverse_rows_to(wav_cuda_plan *plan, const void *src, void *dst,
                                    size_t rows_before, size_t rows_in, struct CUstream_st *stream)
{
    const xsf_status st = check_apart(plan, src, dst);
    return st != XSF_OK ? st : inverse_rows(plan, src, dst, NULL, rows_before, rows_in, stream);
}

xsf_status wav_cuda_inverse_rows_to_u16(wav_cuda_plan *plan, const void *src,
                                        const wav_u16_output *out, size_t rows_before,
                                        size_t rows_in, struct CUstream_st *stream)
{
    const xsf_status st = check_u16(plan, src, out);
    return st != XSF_OK ? st : inverse_rows(plan, src, NULL, out, rows_before, rows_in, stream);
}

int wav_cuda_step_count(const wav_cuda_plan *plan, int inverse)
{
    return plan ? (inverse ? plan->inv.n : plan->fwd.n) : 0;
}

xsf_status wav_cuda_step_get(const wav_cuda_plan *plan, int inverse, int index,
                             wav_cuda_step_info *info)
{
    if (!plan || !info || index < 0 || index >= wav_cuda_step_count(plan, inverse))
        return XSF_ERR_ARG;
    const step &s = (inverse ? plan->inv : plan->fwd).s[index];
    info->first_level = s.level_first;
    info->last_level = s.level_last;
    info->two_d = s.kind == STEP_2D;
    info->width = (size_t)s.width;
    info->height = (size_t)s.height;
    /* each sample of the region read once and written once */
    info->bytes = 2 * 4 * (size_t)s.width * s.height * plan->desc.planes;
    info->chunk_pairs = s.kind == STEP_2D ? pick_chunk(plan, s) : 0;
    return XSF_OK;
}

xsf_status wav_cuda_step_run(wav_cuda_plan *plan, int inverse, int index, const void *src,
                             void *dst, struct CUstream_st *stream)
{
    const xsf_status st = check_apart(plan, src, dst);
    if (st != XSF_OK)
        return st;
    if (index < 0 || index >= wav_cuda_step_count(plan, inverse))
        return XSF_ERR_ARG;
    wav::surface buf[BUF_COUNT];
    surfaces(plan, src, dst, buf);
    return run_step(plan, (inverse ? plan->inv : plan->fwd).s[index], buf, stream);
}

xsf_status wav_cuda_plan_tune(wav_cuda_plan *plan, int chunk_pairs)
{
    if (!plan || (chunk_pairs != 0 && (chunk_pairs < 4 || chunk_pairs > 256)))
        return XSF_ERR_ARG;
    plan->chunk_override = chunk_pairs;
    return XSF_OK;
}

} /* extern "C" */
