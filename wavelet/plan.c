/* Plans and the C reference driver: level geometry (wavelet.h), the 2D
 * separable transform built from the 1D lifting of dwt53.c / dwt97.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wavelet.h"
#include "wavelet_internal.h"
#include "xsf_vector.h"

/* Columns gathered at once for the vertical pass: contiguous reads of a few
 * cache lines per row instead of one sample per row. */
#define WAV_COLUMN_BLOCK 16

typedef void (*wav_lift_1d)(void *x, size_t n, size_t stride);

struct wav_plan {
    wav_plan_desc desc;
    wav_lift_1d forward_1d, inverse_1d;
    uint32_t *line;  /* max(width, height) samples */
    uint32_t *strip; /* WAV_COLUMN_BLOCK columns of height samples */
};

static void fwd53(void *x, size_t n, size_t s)
{
    wav53_forward_1d(x, n, s);
}
static void inv53(void *x, size_t n, size_t s)
{
    wav53_inverse_1d(x, n, s);
}
static void fwd97(void *x, size_t n, size_t s)
{
    wav97_forward_1d(x, n, s);
}
static void inv97(void *x, size_t n, size_t s)
{
    wav97_inverse_1d(x, n, s);
}

static int mul_ok(size_t a, size_t b, size_t *r)
{
    if (a && b > SIZE_MAX / a)
        return 0;
    *r = a * b;
    return 1;
}

xsf_status wav_plan_validate(const wav_plan_desc *d, xsf_error *err)
{
    if (!d)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: no description");
    if (d->width == 0 || d->height == 0)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: size %zux%zu, expected at least 1x1",
                             d->width, d->height);
    if (d->pitch < d->width)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: pitch %zu smaller than width %zu",
                             d->pitch, d->width);
    if (d->planes == 0)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: 0 planes");
    if (d->levels_h < 0 || d->levels_h > WAV_MAX_LEVELS || d->levels_v < 0 ||
        d->levels_v > d->levels_h)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "wavelet plan: levels_v %d, levels_h %d; expected 0 <= levels_v <= "
                             "levels_h <= %d",
                             d->levels_v, d->levels_h, WAV_MAX_LEVELS);
    if (!((d->filter == WAV_FILTER_53 && d->sample == WAV_INT32) ||
          (d->filter == WAV_FILTER_97 && d->sample == WAV_FLOAT32)))
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "wavelet plan: filter %d on sample type %d; the 5/3 runs on int32, "
                             "the 9/7 on float32",
                             (int)d->filter, (int)d->sample);
    size_t plane_extent, extent;
    if (!mul_ok(d->height - 1, d->pitch, &plane_extent) || plane_extent > SIZE_MAX - d->width)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: plane extent overflows");
    plane_extent += d->width;
    extent = plane_extent;
    if (d->planes > 1) {
        if (d->plane_stride < plane_extent)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "wavelet plan: plane stride %zu, expected at least %zu (planes "
                                 "overlap)",
                                 d->plane_stride, plane_extent);
        if (!mul_ok(d->planes - 1, d->plane_stride, &extent) || extent > SIZE_MAX - plane_extent)
            return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: extent overflows");
        extent += plane_extent;
    }
    if (extent > SIZE_MAX / sizeof(uint32_t))
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: extent overflows");
    return XSF_OK;
}

void wav_level_input_size(const wav_plan_desc *d, int level, size_t *width, size_t *height)
{
    const int prev = level > 0 ? level - 1 : 0;
    *width = wav_low_len(d->width, prev);
    *height = wav_low_len(d->height, prev < d->levels_v ? prev : d->levels_v);
}

int wav_row_splitting_levels(const wav_plan_desc *d)
{
    int v = 0;
    while (v < d->levels_v && wav_low_len(d->height, v) >= 2)
        v++;
    return v;
}

void wav_inverse_final_levels(const wav_plan_desc *d, size_t rows_in, size_t ll[WAV_MAX_LEVELS + 1])
{
    const int v = wav_row_splitting_levels(d);
    if (rows_in >= d->height) {
        for (int l = 0; l <= v; l++)
            ll[l] = wav_low_len(d->height, l);
        return;
    }
    /* Output pair p of a vertical inverse level needs its input pairs up to
     * p + lag: the lifting steps of the filter, two halves per pair. */
    const size_t lag = d->filter == WAV_FILTER_53 ? 1 : 2;
    const size_t low = rows_in >> d->levels_v, rh = wav_low_len(d->height, v);
    ll[v] = d->levels_h == 0 ? rows_in : low < rh ? low : rh;
    for (int l = v; l >= 1; l--) {
        const size_t high = rows_in >> l, n = ll[l] < high ? ll[l] : high;
        const size_t pairs = n > lag ? n - lag : 0, h = wav_low_len(d->height, l - 1);
        ll[l - 1] = 2 * pairs < h ? 2 * pairs : h;
    }
}

size_t wav_inverse_rows_final(const wav_plan_desc *desc, size_t rows_in)
{
    size_t ll[WAV_MAX_LEVELS + 1];
    wav_inverse_final_levels(desc, rows_in, ll);
    return ll[0];
}

xsf_status wav_plan_create(wav_plan **plan, const wav_plan_desc *desc, xsf_error *err)
{
    if (!plan)
        return xsf_error_set(err, XSF_ERR_ARG, "wavelet plan: no plan pointer");
    *plan = NULL;
    xsf_status st = wav_plan_validate(desc, err);
    if (st != XSF_OK)
        return st;
    wav_plan *p = calloc(1, sizeof *p);
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "wavelet plan: out of memory");
    p->desc = *desc;
    if (desc->filter == WAV_FILTER_53) {
        p->forward_1d = fwd53;
        p->inverse_1d = inv53;
    } else {
        p->forward_1d = fwd97;
        p->inverse_1d = inv97;
    }
    const size_t line = desc->width > desc->height ? desc->width : desc->height;
    size_t strip;
    if (mul_ok(desc->height, WAV_COLUMN_BLOCK, &strip) && strip <= SIZE_MAX / sizeof(uint32_t)) {
        p->line = malloc(line * sizeof(uint32_t));
        p->strip = malloc(strip * sizeof(uint32_t));
    }
    if (!p->line || !p->strip) {
        wav_plan_destroy(p);
        return xsf_error_set(err, XSF_ERR_NOMEM, "wavelet plan: out of memory for %zu-sample lines",
                             line);
    }
    *plan = p;
    return XSF_OK;
}

void wav_plan_destroy(wav_plan *plan)
{
    if (!plan)
        return;
    free(plan->line);
    free(plan->strip);
    free(plan);
}

const wav_plan_desc *wav_plan_get_desc(const wav_plan *plan)
{
    return plan ? &plan->desc : NULL;
}

/* Samples are moved as 32-bit words whatever their type: int32 and float32
 * share the size, and only the lifting functions look at the values. The moves
 * go through memcpy, which keeps the samples' effective type (no aliasing of
 * float through uint32_t); compilers turn it into one load and one store. */
#define MOVE(dst, src) memcpy(&(dst), &(src), sizeof(uint32_t))

/* One 5/3 line r[0, w) lifted into its halves, low[0, wl) and high[0, wh)
 * (wl = (w + 1) / 2, wh = w / 2): wav53_forward_1d's lifting, the
 * prediction read from the interleaved line, each step one sweep that
 * compilers vectorize. */
XSF_VECTOR_CLONES
static void lift53_split(const int32_t *restrict r, int32_t *restrict low, int32_t *restrict high,
                         size_t w)
{
    const size_t wl = (w + 1) / 2, wh = w / 2;
    if (wh == 0) {
        low[0] = r[0]; /* a single sample passes through */
        return;
    }
    const size_t m = wl - 1 < wh ? wl - 1 : wh;
    for (size_t k = 0; k < m; k++)
        high[k] = r[2 * k + 1] - ((r[2 * k] + r[2 * k + 2]) >> 1);
    if (m < wh) /* even length: the last odd sample mirrors */
        high[m] = r[2 * m + 1] - ((r[2 * m] + r[2 * m]) >> 1);
    low[0] = r[0] + ((high[0] + high[0] + 2) >> 2);
    for (size_t k = 1; k < wh; k++)
        low[k] = r[2 * k] + ((high[k - 1] + high[k] + 2) >> 2);
    if (wh < wl) /* odd length: the last even sample mirrors */
        low[wh] = r[2 * wh] + ((high[wh - 1] + high[wh - 1] + 2) >> 2);
}

/* Rows [y0, y1) of a w x h region, lifted through `line` (w samples). */
static void rows_forward(const wav_plan *p, uint32_t *line, uint32_t *a, size_t w, size_t y0,
                         size_t y1)
{
    const size_t pitch = p->desc.pitch, wl = (w + 1) / 2;
    for (size_t y = y0; y < y1; y++) {
        uint32_t *row = a + y * pitch;
        if (p->desc.filter == WAV_FILTER_53) {
            /* Lifted into `line`'s halves, then back. */
            lift53_split((const int32_t *)row, (int32_t *)line, (int32_t *)line + wl, w);
            memcpy(row, line, w * sizeof *row);
            continue;
        }
        for (size_t x = 0; x < w; x++)
            MOVE(line[x], row[x]);
        p->forward_1d(line, w, 1);
        for (size_t x = 0; x < w; x++)
            MOVE(row[(x & 1) ? wl + x / 2 : x / 2], line[x]);
    }
}

/* Rows [y0, y1) of a w-wide region, lifted back through `line` (w samples). */
static void rows_inverse(const wav_plan *p, uint32_t *line, uint32_t *a, size_t w, size_t y0,
                         size_t y1)
{
    const size_t pitch = p->desc.pitch, wl = (w + 1) / 2;
    for (size_t y = y0; y < y1; y++) {
        uint32_t *row = a + y * pitch;
        for (size_t x = 0; x < w; x++)
            MOVE(line[x], row[(x & 1) ? wl + x / 2 : x / 2]);
        p->inverse_1d(line, w, 1);
        for (size_t x = 0; x < w; x++)
            MOVE(row[x], line[x]);
    }
}

/* One step of the 5/3's vertical lifting on nb columns: the high row
 * hi = x1 - ((x0 + x2) >> 1), then the low row lo = x0 + ((hp + hi + 2)
 * >> 2) from the high row before (hp), each row its own array. */
static inline void lift53_step(int32_t *restrict lo, int32_t *restrict hi,
                               const int32_t *restrict x0, const int32_t *restrict x1,
                               const int32_t *restrict x2, const int32_t *restrict hp, size_t nb)
{
    for (size_t c = 0; c < nb; c++) {
        const int32_t h = x1[c] - ((x0[c] + x2[c]) >> 1);
        hi[c] = h;
        lo[c] = x0[c] + ((hp[c] + h + 2) >> 2);
    }
}

/* 5/3, columns [x0, x0 + nb) of h rows (nb <= WAV_53_BLOCK): the lifting
 * of wav53_forward_1d row against row, predict and update in one sweep
 * down the rows (pair k: high row k from rows 2k..2k+2, low row k from
 * rows 2k and high rows k-1, k, with the whole-sample mirror at both
 * ends), the low rows written in place at row k (rows below 2k are no
 * longer read), the high rows gathered in `strip` (h/2 rows of nb) and
 * moved below the low ones at the end. */
#define WAV_53_BLOCK (2 * WAV_COLUMN_BLOCK)
#define WAV_53_AHEAD 8 /* pairs of rows */
XSF_VECTOR_CLONES
static void columns53_forward(int32_t *a, size_t pitch, size_t x0, size_t nb, size_t h,
                              int32_t *strip)
{
    if (h < 2)
        return;
    int32_t *const base = a + x0;
#define ROW(i) (base + (i)*pitch)
    const size_t hl = (h + 1) / 2, hh = h / 2;
    int32_t low[WAV_53_BLOCK];
    for (size_t k = 0; k < hl; k++) {
        const int32_t *e = ROW(2 * k);
        /* The rows a few pairs down, asked for ahead: rows a pitch apart
         * are too far apart for the hardware to see the stream. */
        for (size_t j = 2 * k + 2 * WAV_53_AHEAD; j < 2 * k + 2 * WAV_53_AHEAD + 2 && j < h; j++) {
            const char *at = (const char *)ROW(j);
            for (size_t b = 0; b < nb * sizeof(int32_t); b += 64)
                __builtin_prefetch(at + b);
            __builtin_prefetch(at + nb * sizeof(int32_t) - 1);
        }
        int32_t *hi = strip + (k < hh ? k : k - 1) * nb; /* odd h: the last low row mirrors */
        const int32_t *hp = strip + (k ? k - 1 : 0) * nb;
        if (k == 0) { /* the high row before mirrors the first */
            const int32_t *o = ROW(1), *d = h > 2 ? ROW(2) : e;
            for (size_t c = 0; c < nb; c++) {
                hi[c] = o[c] - ((e[c] + d[c]) >> 1);
                low[c] = e[c] + ((hi[c] + hi[c] + 2) >> 2);
            }
        } else if (k < hh) {
            const int32_t *o = ROW(2 * k + 1), *d = 2 * k + 2 < h ? ROW(2 * k + 2) : e;
            lift53_step(low, hi, e, o, d, hp, nb);
        } else {
            for (size_t c = 0; c < nb; c++)
                low[c] = e[c] + ((hp[c] + hi[c] + 2) >> 2);
        }
        memcpy(ROW(k), low, nb * sizeof *low);
    }
    for (size_t k = 0; k < hh; k++)
        memcpy(ROW(hl + k), strip + k * nb, nb * sizeof *strip);
#undef ROW
}

static void columns_forward(const wav_plan *p, uint32_t *strip, uint32_t *a, size_t x0, size_t x1,
                            size_t h)
{
    const size_t pitch = p->desc.pitch, hl = (h + 1) / 2;
    if (p->desc.filter == WAV_FILTER_53) {
        for (; x0 < x1; x0 += WAV_53_BLOCK) {
            const size_t nb = x1 - x0 < WAV_53_BLOCK ? x1 - x0 : WAV_53_BLOCK;
            columns53_forward((int32_t *)a, pitch, x0, nb, h, (int32_t *)strip);
        }
        return;
    }
    for (; x0 < x1; x0 += WAV_COLUMN_BLOCK) {
        const size_t nb = x1 - x0 < WAV_COLUMN_BLOCK ? x1 - x0 : WAV_COLUMN_BLOCK;
        for (size_t y = 0; y < h; y++)
            for (size_t c = 0; c < nb; c++)
                MOVE(strip[c * h + y], a[y * pitch + x0 + c]);
        for (size_t c = 0; c < nb; c++)
            p->forward_1d(strip + c * h, h, 1);
        for (size_t y = 0; y < h; y++) {
            const size_t to = (y & 1) ? hl + y / 2 : y / 2;
            for (size_t c = 0; c < nb; c++)
                MOVE(a[to * pitch + x0 + c], strip[c * h + y]);
        }
    }
}

/* Columns [x0, x1) of an h-high region, in blocks through `strip` (WAV_COLUMN_BLOCK
 * columns of h samples). */
static void columns_inverse(const wav_plan *p, uint32_t *strip, uint32_t *a, size_t x0, size_t x1,
                            size_t h)
{
    const size_t pitch = p->desc.pitch, hl = (h + 1) / 2;
    for (; x0 < x1; x0 += WAV_COLUMN_BLOCK) {
        const size_t nb = x1 - x0 < WAV_COLUMN_BLOCK ? x1 - x0 : WAV_COLUMN_BLOCK;
        for (size_t y = 0; y < h; y++) {
            const size_t from = (y & 1) ? hl + y / 2 : y / 2;
            for (size_t c = 0; c < nb; c++)
                MOVE(strip[c * h + y], a[from * pitch + x0 + c]);
        }
        for (size_t c = 0; c < nb; c++)
            p->inverse_1d(strip + c * h, h, 1);
        for (size_t y = 0; y < h; y++)
            for (size_t c = 0; c < nb; c++)
                MOVE(a[y * pitch + x0 + c], strip[c * h + y]);
    }
}

xsf_status wav_forward(wav_plan *plan, void *data)
{
    if (!plan || !data)
        return XSF_ERR_ARG;
    const wav_plan_desc *d = &plan->desc;
    for (size_t pl = 0; pl < d->planes; pl++) {
        uint32_t *a = (uint32_t *)data + pl * d->plane_stride;
        for (int l = 1; l <= d->levels_h; l++) {
            size_t w, h;
            wav_level_input_size(d, l, &w, &h);
            if (l <= d->levels_v)
                columns_forward(plan, plan->strip, a, 0, w,
                                h); /* vertical first (F.4.8.2, 21122-1 E) */
            rows_forward(plan, plan->line, a, w, 0, h);
        }
    }
    return XSF_OK;
}

size_t wav_part_scratch(const wav_plan_desc *d)
{
    const size_t strip = WAV_COLUMN_BLOCK * d->height;
    return 7 * d->width > strip ? 7 * d->width : strip;
}

size_t wav_forward_part_count(const wav_plan *plan, int level, int vertical)
{
    const wav_plan_desc *d = &plan->desc;
    if (level < 1 || level > d->levels_h || (vertical && level > d->levels_v))
        return 0;
    size_t w, h;
    wav_level_input_size(d, level, &w, &h);
    return vertical ? (w + WAV_COLUMN_BLOCK - 1) / WAV_COLUMN_BLOCK : h;
}

/* Parts [first, first + count) of a level's step (wav_forward_part_count's
 * rows or column blocks), by the direction's row and column functions. */
typedef void (*rows_fn)(const wav_plan *, uint32_t *, uint32_t *, size_t, size_t, size_t);
static void run_parts(const wav_plan *plan, void *data, int level, int vertical, size_t first,
                      size_t count, void *scratch, rows_fn rows, rows_fn columns)
{
    const size_t n = wav_forward_part_count(plan, level, vertical);
    if (first >= n || count == 0)
        return;
    if (count > n - first)
        count = n - first;
    size_t w, h;
    wav_level_input_size(&plan->desc, level, &w, &h);
    if (vertical) {
        const size_t x1 = (first + count) * WAV_COLUMN_BLOCK;
        columns(plan, scratch, data, first * WAV_COLUMN_BLOCK, x1 < w ? x1 : w, h);
    } else {
        rows(plan, scratch, data, w, first, first + count);
    }
}

void wav_forward_part(const wav_plan *plan, void *data, int level, int vertical, size_t first,
                      size_t count, void *scratch)
{
    run_parts(plan, data, level, vertical, first, count, scratch, rows_forward, columns_forward);
}

size_t wav_forward_level_pairs(const wav_plan *plan, int level)
{
    const wav_plan_desc *d = &plan->desc;
    if (d->filter != WAV_FILTER_53 || level < 1 || level > d->levels_v)
        return 0;
    size_t w, h;
    wav_level_input_size(d, level, &w, &h);
    return (h + 1) / 2;
}

/* The high row of a pair from its rows e (even), o and d (the even row
 * below, or e mirrored at the end): o - ((e + d) >> 1). */
static void high53(const int32_t *restrict e, const int32_t *restrict o, const int32_t *restrict d,
                   size_t w, int32_t *restrict hi)
{
    for (size_t c = 0; c < w; c++)
        hi[c] = o[c] - ((e[c] + d[c]) >> 1);
}

/* The low row of pair k from its even row e and the high rows hp (pair
 * k - 1, or k mirrored) and hk: e + ((hp + hk + 2) >> 2). */
static void low53(const int32_t *restrict e, const int32_t *restrict hp, const int32_t *restrict hk,
                  size_t w, int32_t *restrict lo)
{
    for (size_t c = 0; c < w; c++)
        lo[c] = e[c] + ((hp[c] + hk[c] + 2) >> 2);
}

XSF_VECTOR_CLONES
void wav_forward_level_part(const wav_plan *plan, int level, wav_row_source src, void *src_ctx,
                            int32_t *low, int32_t *high, size_t pitch, int32_t *ll, size_t ll_pitch,
                            size_t first, size_t count, void *scratch,
                            void (*done)(void *ctx, size_t k), void *ctx)
{
    const size_t n = wav_forward_level_pairs(plan, level);
    if (first >= n || count == 0)
        return;
    if (count > n - first)
        count = n - first;
    const wav_plan_desc *d = &plan->desc;
    size_t w, h;
    wav_level_input_size(d, level, &w, &h);
    const size_t hh = h / 2, wl = (w + 1) / 2;
    const int last = level == d->levels_v; /* low rows stay, through the levels after */
    int32_t *hp = scratch, *hk = hp + w, *lo = hk + w;
    /* Three rows of the source at a time: the even row of a pair, its odd
     * row and the even row below, which is the next pair's. */
    int32_t *const buf[3] = {lo + w, lo + 2 * w, lo + 3 * w};
    uint32_t *const line = (uint32_t *)(lo + 4 * w); /* the horizontal levels after */
    const int32_t *e;
    int ie;
    if (first > 0) { /* the high row of the pair before */
        const int32_t *e0 = src(src_ctx, 2 * first - 2, buf[0]);
        const int32_t *o0 = src(src_ctx, 2 * first - 1, buf[1]);
        e = src(src_ctx, 2 * first, buf[2]);
        ie = 2;
        high53(e0, o0, e, w, hp);
    } else {
        e = src(src_ctx, 0, buf[0]);
        ie = 0;
    }
    for (size_t k = first; k < first + count; k++) {
        const int32_t *below = e, *l = e; /* a single row passes through */
        int ib = ie;
        if (k < hh) {
            const int32_t *o = src(src_ctx, 2 * k + 1, buf[(ie + 1) % 3]);
            if (2 * k + 2 < h) {
                ib = (ie + 2) % 3;
                below = src(src_ctx, 2 * k + 2, buf[ib]);
            }
            high53(e, o, below, w, hk);
        }
        if (h >= 2) {
            /* The high row before mirrors the first; the last low row of
             * an odd height mirrors the high row before. */
            low53(e, k ? hp : hk, k < hh ? hk : hp, w, lo);
            l = lo;
        }
        int32_t *row = low + (k - first) * pitch;
        lift53_split(l, last ? row : ll + (k - first) * ll_pitch, row + wl, w);
        for (int lv = level + 1; last && lv <= d->levels_h; lv++) {
            size_t wv, hv;
            wav_level_input_size(d, lv, &wv, &hv);
            rows_forward(plan, line, (uint32_t *)row, wv, 0, 1);
        }
        if (k < hh) {
            row = high + (k - first) * pitch;
            lift53_split(hk, row, row + wl, w);
            int32_t *t = hp;
            hp = hk;
            hk = t;
        }
        if (done)
            done(ctx, k);
        e = below;
        ie = ib;
    }
}

xsf_status wav_inverse(wav_plan *plan, void *data)
{
    if (!plan || !data)
        return XSF_ERR_ARG;
    const wav_plan_desc *d = &plan->desc;
    for (size_t pl = 0; pl < d->planes; pl++) {
        uint32_t *a = (uint32_t *)data + pl * d->plane_stride;
        for (int l = d->levels_h; l >= 1; l--) {
            size_t w, h;
            wav_level_input_size(d, l, &w, &h);
            rows_inverse(plan, plan->line, a, w, 0, h); /* horizontal first, the exact reverse */
            if (l <= d->levels_v)
                columns_inverse(plan, plan->strip, a, 0, w, h);
        }
    }
    return XSF_OK;
}

size_t wav_inverse_part_count(const wav_plan *plan, int level, int vertical)
{
    return wav_forward_part_count(plan, level, vertical); /* the same rows and column blocks */
}

void wav_inverse_part(const wav_plan *plan, void *data, int level, int vertical, size_t first,
                      size_t count, void *scratch)
{
    run_parts(plan, data, level, vertical, first, count, scratch, rows_inverse, columns_inverse);
}
