/* The C reference JPEG XS encoder (its plan, shared with the GPU encoder, is
 * enc_plan.c): the frame loop on a pool of threads: input stage, forward
 * DWT, bitplane counts and cost tables precinct by precinct, the rate
 * decision slice by slice, the packing precinct by precinct (enc_internal.h
 * says how the work is shared). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

/* ---- C encoder ---- */

/* A frame after its input stage is one pool run over tasks in an order
 * where every task waits only for earlier ones (xsf_pool.h). Per slice:
 * each level of the forward DWT that splits rows (its rows' low band is
 * the next level's input, whose last pairs need the first rows of the
 * slice below: a level of slice s waits for the level before in slices
 * s - 1, s and s + 1), the precincts (counts, then cost tables once the
 * counts above are in), the decision (once its tables are in), the
 * packing of its precincts (once it is decided). Each kind comes `lag`
 * steps after the one it waits for; lag 0 on one thread: step k holds
 * level 1 of slice k and everything else of slice k - 1, so a slice goes
 * from its lifting to its packing while its coefficients are in cache;
 * many threads overlap the steps. Tasks mark what is done with the
 * frame's epoch. */
enum { TASK_PRECINCT, TASK_DECIDE, TASK_PACK, TASK_DWT }; /* TASK_DWT + l - 1: level l */
#define TASK_KIND_SHIFT 29
#define DWT_MARKS (XS_MAX_NLY + 1) /* dwt[s]: DWT_MARKS epoch + the levels done */

struct enc_sync {
    uint32_t *task; /* kind << TASK_KIND_SHIFT | precinct or slice */
    size_t ntasks;
    int levels;             /* DWT tasks a slice: its levels that split rows, at least 1 */
    atomic_ullong *dwt;     /* per slice: DWT_MARKS epoch + levels done */
    atomic_ullong *ready;   /* per precinct: 2 epoch + 1 counted, 2 epoch + 2 costed */
    atomic_ullong *decided; /* per slice: epoch */
    atomic_ullong *packed;  /* per precinct: epoch */
    int slots;              /* of the ring (xs_encoder.ring) */
    unsigned long long epoch;
};

static void sync_free(struct enc_sync *y)
{
    if (!y)
        return;
    free(y->task);
    free(y->dwt);
    free(y->ready);
    free(y->decided);
    free(y->packed);
    free(y);
}

static struct enc_sync *sync_new(const enc_plan *p, int threads)
{
    const xs_geometry *g = &p->geom;
    struct enc_sync *y = calloc(1, sizeof *y);
    if (!y)
        return NULL;
    y->levels = 1;
    for (int c = 0; c < g->ncd; c++)
        y->levels = g->comp[c].nly > y->levels ? g->comp[c].nly : y->levels;
    y->ntasks = 2 * p->nprecincts + (size_t)g->slices * (size_t)(1 + y->levels);
    y->task = malloc(y->ntasks * sizeof *y->task);
    y->dwt = malloc((size_t)g->slices * sizeof *y->dwt);
    y->ready = malloc(p->nprecincts * sizeof *y->ready);
    y->decided = malloc((size_t)g->slices * sizeof *y->decided);
    y->packed = malloc(p->nprecincts * sizeof *y->packed);
    if (!y->task || !y->dwt || !y->ready || !y->decided || !y->packed) {
        sync_free(y);
        return NULL;
    }
    for (size_t i = 0; i < p->nprecincts; i++) {
        atomic_init(&y->ready[i], 0);
        atomic_init(&y->packed[i], 0);
    }
    for (int s = 0; s < g->slices; s++) {
        atomic_init(&y->dwt[s], 0);
        atomic_init(&y->decided[s], 0);
    }
    size_t n = 0;
    const size_t per_row = (size_t)g->cols;
    /* The lag between a task and the one it waits for. One thread: 0.
     * With many threads taking the tasks in order, a step goes by faster
     * than a slice is decided (a decision is about a sixth of a slice's
     * work, its precincts one after the other): a thread that takes a
     * packing before its slice is decided spins. A simulation of the pool's
     * order with each task's time on one thread (1080p 4:2:2, 68 slices)
     * spins 1.2 thread-ms a frame on 16 threads at lag 3, none at lag 6,
     * and none on 4 threads from lag 1; the lag costs only the last steps'
     * few tasks. So a third of the threads. */
    const int lag = threads > 1 ? (threads + 2) / 3 : 0;
    /* Steps after slice s's level 1: its level l at (l - 1)(lag + 1) (one
     * step more for the slice below's level before), its precincts `lag`
     * after its last level, its decision and its packing `lag` after them. */
    const int prec = (y->levels - 1) * (lag + 1) + lag;
    /* The ring holds the slices from level 1 to their packing (prec + 2
     * lag steps) and lag + 2 more, so that level 1 of slice s, which waits
     * for the packing of slice s - slots, finds it done: 3 slices on one
     * thread, 33 on 16 (the simulation of the pool's order above spins no
     * less with more). */
    y->slots = prec + 3 * lag + 2 < g->slices ? prec + 3 * lag + 2 : g->slices;
    for (int k = 0; k < g->slices + prec + 2 * lag; k++) {
        for (int l = 1; l <= y->levels; l++) {
            const int s = k - (l - 1) * (lag + 1);
            if (s >= 0 && s < g->slices)
                y->task[n++] = (uint32_t)(TASK_DWT + l - 1) << TASK_KIND_SHIFT | (uint32_t)s;
        }
        for (int kind = TASK_PRECINCT; kind <= TASK_PACK; kind++) {
            const int s = k - prec - kind * lag;
            if (s < 0 || s >= g->slices)
                continue;
            const int row0 = s * p->hdr.hsl,
                      row1 = row0 + p->hdr.hsl < g->rows ? row0 + p->hdr.hsl : g->rows;
            if (kind == TASK_DECIDE) {
                y->task[n++] = (uint32_t)kind << TASK_KIND_SHIFT | (uint32_t)s;
                continue;
            }
            for (size_t pi = (size_t)row0 * per_row; pi < (size_t)row1 * per_row; pi++)
                y->task[n++] = (uint32_t)kind << TASK_KIND_SHIFT | (uint32_t)pi;
        }
    }
    return y;
}

static void release(xs_encoder *e)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        free(e->coef[c]);
        free(e->ring[c]);
        free(e->in[c]);
        wav_plan_destroy(e->wav[c]);
    }
    xsf_pool_destroy(e->pool);
    if (e->worker)
        for (int i = 0; i < XS_MAX_THREADS; i++) {
            free(e->worker[i].dwt);
            free(e->worker[i].line);
        }
    free(e->worker);
    free(e->slice);
    free(e->cost);
    free(e->choice);
    free(e->prec_off);
    free(e->flag);
    sync_free(e->sync);
    free(e->slice_off);
    free(e->spill);
    free(e->gcli);
    free(e->row_sat);
    free(e->reach);
    free(e->gtli);
    free(e->share);
    free(e->stats.budget_bytes);
    free(e->stats.coded_bytes);
    free(e->stats.total_bytes);
    free(e->stats.q);
    free(e->stats.r);
    enc_plan_free(&e->plan);
}

/* Where each slice starts: in the codestream with a target (each slice is
 * exactly the sum of its precincts' shares), else in the layout of the
 * bound (enc_plan_init): a precinct header and, per band line, 100 bits a
 * code group and 11 bytes. */
static void slice_offsets(const enc_plan *p, size_t *off)
{
    const xs_geometry *g = &p->geom;
    size_t at = p->header_bytes;
    for (int s = 0; s < g->slices; s++) {
        off[s] = at;
        at += 6;
        const int row0 = s * p->hdr.hsl,
                  row1 = row0 + p->hdr.hsl < g->rows ? row0 + p->hdr.hsl : g->rows;
        for (size_t pi = (size_t)row0 * g->cols; pi < (size_t)row1 * g->cols; pi++) {
            if (p->cfg.rate_control != XS_RC_FIXED) {
                at += p->allot[pi];
                continue;
            }
            at += g->precinct_header_bytes;
            for (uint32_t k = p->bline_first[pi]; k < p->bline_first[pi + 1]; k++)
                at += ((size_t)p->bline[k].groups * 100 + 7) / 8 + 7 + 4;
        }
    }
}

/* The ring of the components whose DWT runs slice by slice (struct
 * xs_encoder): its layout, each band's place in a slot. */
static xsf_status ring_init(xs_encoder *e, xsf_error *err)
{
    const xs_geometry *g = &e->plan.geom;
    const int hsl = e->plan.hdr.hsl;
    e->ring_slots = e->sync->slots;
    size_t width[XS_MAX_COMPONENTS][XS_MAX_NLY + 1];
    for (int c = 0; c < g->ncd; c++) {
        const xs_component *cp = &g->comp[c];
        if (!e->first[c])
            continue;
        size_t off = 0;
        for (int l = 1; l <= cp->nly; l++) {
            size_t h, wn;
            wav_level_input_size(wav_plan_get_desc(e->wav[c]), l, &width[c][l], &h);
            wav_level_input_size(wav_plan_get_desc(e->wav[c]), l + 1, &wn, &h);
            e->level_off[c][l] = off;
            e->level_width[c][l] = width[c][l];
            off += ((size_t)hsl << (cp->nly - l)) * (2 * width[c][l] + (l < cp->nly ? wn : 0));
        }
        e->ring_slot[c] = off;
        if (!(e->ring[c] = malloc(off * (size_t)e->ring_slots * sizeof(int32_t))))
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for component %d", c);
    }
    for (int b = 0; b < g->nbands; b++) {
        const xs_band *bd = &g->band[b];
        const int c = bd->comp, nly = g->comp[c].nly;
        if (!e->ring[c])
            continue;
        /* The rows of level lx where it splits rows (high rows below the
         * low ones in the Mallat plane), else the low rows of the last. */
        const int l = bd->lx >= 1 && bd->lx <= nly ? bd->lx : nly, high = l == bd->lx && bd->y0;
        e->band_rows[b] = (size_t)hsl << (nly - l);
        e->band_pitch[b] = width[c][l];
        e->band_off[b] =
            e->level_off[c][l] + (high ? e->band_rows[b] * width[c][l] : 0) + (size_t)bd->x0;
        if (bd->height > 0 && e->band_rows[b] != (size_t)hsl * (size_t)bd->lines)
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "internal: band %d has %d lines a precinct, not 2^%d", b,
                                 bd->lines, nly - l);
    }
    return XSF_OK;
}

/* Row brow of band b: its first coefficient. */
static int32_t *band_row(const xs_encoder *e, int b, size_t brow)
{
    const xs_band *bd = &e->plan.geom.band[b];
    const int c = bd->comp;
    if (!e->ring[c])
        return e->coef[c] + ((size_t)bd->y0 + brow) * (size_t)e->plan.geom.comp[c].width +
               (size_t)bd->x0;
    const size_t s = brow / e->band_rows[b];
    return e->ring[c] + (s % (size_t)e->ring_slots) * e->ring_slot[c] + e->band_off[b] +
           (brow - s * e->band_rows[b]) * e->band_pitch[b];
}

xsf_status xs_encoder_create(xs_encoder **out, const xs_encoder_config *cfg, xsf_error *err)
{
    xsf_error local;
    if (!err)
        err = &local;
    if (!out || !cfg)
        return xsf_error_set(err, XSF_ERR_ARG, "xs_encoder_create: NULL argument");
    *out = NULL;
    if (cfg->threads < 0 || cfg->threads > XS_MAX_THREADS)
        return xsf_error_set(err, XSF_ERR_ARG, "%d threads, expected 0 (every core) to %d",
                             cfg->threads, XS_MAX_THREADS);
    xs_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the encoder");
    xsf_status st = enc_plan_init(&e->plan, cfg, err);
    if (st != XSF_OK) {
        free(e);
        return st;
    }
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    size_t dwt_words = 1;
    for (int c = 0; c < g->nc && st == XSF_OK; c++) {
        const xs_component *cp = &g->comp[c];
        const size_t n = (size_t)cp->width * cp->height;
        if (c < g->ncd) {
            const wav_plan_desc d = xs_dwt_desc(cp, 1);
            st = wav_plan_create(&e->wav[c], &d, err);
            const size_t words = wav_part_scratch(&d);
            dwt_words = words > dwt_words ? words : dwt_words;
            e->first[c] = st == XSF_OK && wav_forward_level_pairs(e->wav[c], 1) > 0;
            if (e->first[c] && p->hdr.cpih == 1 && !(e->in[c] = malloc(n * sizeof(int32_t))))
                st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for component %d", c);
        }
        if (st == XSF_OK && !e->first[c] && !(e->coef[c] = malloc(n * sizeof(int32_t))))
            st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for component %d", c);
        e->input[c] = e->first[c] ? e->in[c] : e->coef[c];
    }
    if (st == XSF_OK)
        st = xsf_pool_create(&e->pool, cfg->threads, err);
    const size_t np = p->nprecincts;
    if (st == XSF_OK) {
        const int nt = xsf_pool_threads(e->pool);
        e->worker = calloc(XS_MAX_THREADS, sizeof *e->worker);
        for (int i = 0; i < nt && e->worker; i++) {
            e->worker[i].dwt = malloc(dwt_words * sizeof(uint32_t));
            e->worker[i].line = malloc(((size_t)p->max_blines + 1) * sizeof *e->worker[i].line);
            if (!e->worker[i].dwt || !e->worker[i].line)
                st = XSF_ERR_NOMEM;
        }
        e->slice = malloc((size_t)g->slices * sizeof *e->slice);
        e->cost = malloc((p->nblines ? p->nblines : 1) * sizeof *e->cost);
        e->choice = malloc(np * sizeof *e->choice);
        e->prec_off = malloc(np * sizeof *e->prec_off);
        e->flag = malloc(np);
        e->sync = sync_new(p, nt);
        e->slice_off = malloc((size_t)g->slices * sizeof *e->slice_off);
        e->gcli = malloc(g->gcli_total ? g->gcli_total : 1);
        size_t rows = 0;
        for (int b = 0; b < g->nbands; b++) {
            const xs_band *bd = &g->band[b];
            e->row_sat_first[b] = rows;
            rows += (size_t)bd->height;
            if (bd->lx > 0 && bd->width > 0 && bd->height > 0)
                e->step_band[bd->comp][bd->lx][e->step_bands[bd->comp][bd->lx]++] = (uint8_t)b;
        }
        e->row_sat = calloc(rows ? rows : 1, 1); /* rows of no width: never counted */
        e->reach = malloc((g->gcli_total ? g->gcli_total : 1) * sizeof *e->reach);
        e->gtli = malloc(np * (size_t)g->nbands);
        e->share = malloc(np * sizeof *e->share);
        e->stats.budget_bytes = malloc(np * sizeof(uint32_t));
        e->stats.coded_bytes = malloc(np * sizeof(uint32_t));
        e->stats.total_bytes = malloc(np * sizeof(uint32_t));
        e->stats.q = malloc(np);
        e->stats.r = malloc(np);
        if (st != XSF_OK || !e->worker || !e->slice || !e->cost || !e->choice || !e->prec_off ||
            !e->flag || !e->sync || !e->slice_off || !e->gcli || !e->row_sat || !e->reach ||
            !e->gtli || !e->share || !e->stats.budget_bytes || !e->stats.coded_bytes ||
            !e->stats.total_bytes || !e->stats.q || !e->stats.r)
            st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the encoder's frame buffers");
        e->stats.nprecincts = np;
        if (st == XSF_OK)
            st = ring_init(e, err);
    }
    if (st != XSF_OK) {
        release(e);
        free(e);
        return st;
    }
    slice_offsets(p, e->slice_off);
    *out = e;
    return XSF_OK;
}

void xs_encoder_destroy(xs_encoder *e)
{
    if (!e)
        return;
    release(e);
    free(e);
}

const xs_header *xs_encoder_header(const xs_encoder *e)
{
    return &e->plan.hdr;
}

size_t xs_encoder_max_bytes(const xs_encoder *e)
{
    return e->plan.max_bytes;
}

const xs_encoder_stats *xs_encoder_last_stats(const xs_encoder *e)
{
    return &e->stats;
}

const char *xs_encoder_error(const xs_encoder *e)
{
    return e->err.msg;
}

int xs_encoder_threads(const xs_encoder *e)
{
    return xsf_pool_threads(e->pool);
}

static void put_be(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Offset of Lcod: SOC, CAP (its length field says how long), PIH marker and length. */
static size_t lcod_offset(const uint8_t *hdr)
{
    return 2 + 2 + (size_t)(hdr[4] << 8 | hdr[5]) + 4;
}

/* Bytes of the precincts p0..p1-1 of one slice (cost tables from cost, in
 * codestream order) at candidate k, as if every precinct took k: vertical
 * prediction below the slice's first row counted against the truncations of
 * k above (the tables' first lines hold exactly that until the precinct above
 * is decided); sizes[] gets each one's (when not NULL). UINT64_MAX where a
 * length field would overflow. */
static uint64_t slice_bytes(const enc_plan *p, size_t p0, size_t p1, const enc_line_cost *cost,
                            int k, enc_choice *ch, uint32_t *sizes)
{
    int q, r;
    enc_candidate(&p->params, k, &q, &r);
    uint64_t sum = 0;
    for (size_t i = p0; i < p1; i++) {
        const uint32_t f = p->bline_first[i];
        const uint32_t b = enc_evaluate(
            &p->params, p->hdr.gain, p->hdr.priority, p->bline + f, cost + (f - p->bline_first[p0]),
            (int)(p->bline_first[i + 1] - f), i >= p0 + (size_t)p->geom.cols, q, r, ch);
        if (b == ENC_NOCOST)
            return UINT64_MAX;
        if (sizes)
            sizes[i - p0] = b;
        sum += b;
    }
    return sum;
}

/* XS_RC_SLICE, learnt from SVT-JPEG-XS's slice budget: the shares of the
 * precincts p0..p1-1 of one slice in share[p0..p1). The best candidate
 * (Q, R) at which the whole slice fits its bytes, counted with vertical
 * prediction as if every precinct took it (slice_bytes), by bisection over k; each
 * precinct's share is its size there plus an even part of what the slice
 * leaves (enc_slice_share). So bytes follow the content inside a slice, not
 * the coefficient count; each precinct is then decided on its own (with
 * vertical prediction) against its share and what the precincts before it
 * left. Where not even the coarsest candidate fits, the shares stay
 * proportional to the coefficients (allot). */
static void slice_shares(const enc_plan *p, size_t p0, size_t p1, const enc_line_cost *cost,
                         enc_choice *ch, uint32_t *share)
{
    uint64_t allot = 0;
    for (size_t i = p0; i < p1; i++) {
        allot += p->allot[i];
        share[i] = p->allot[i];
    }
    if (slice_bytes(p, p0, p1, cost, 0, ch, NULL) > allot)
        return;
    int lo = 0, hi = (p->params.qmax + 1) * p->params.rmax;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (slice_bytes(p, p0, p1, cost, mid, ch, NULL) <= allot)
            lo = mid;
        else
            hi = mid;
    }
    const uint64_t sum = slice_bytes(p, p0, p1, cost, lo, ch, share + p0);
    for (size_t i = p0; i < p1; i++)
        share[i] = enc_slice_share(share[i], allot - sum, (int)(i - p0), (int)(p1 - p0));
}

/* One frame's work for the pool. */
typedef struct enc_frame {
    xs_encoder *e;
    const xsf_picture *pic;
    int stripe;    /* input stage: rows of component 0 per index */
    uint8_t *base; /* where slice_off and prec_off count from */
} enc_frame;

static void input_stripe(void *ctx, size_t i, int worker)
{
    const enc_frame *f = ctx;
    (void)worker;
    const int row0 = (int)i * f->stripe;
    enc_input_rows(&f->e->plan, f->pic, f->e->input, row0, row0 + f->stripe);
}

/* The bitplane counts of the bands that the DWT's horizontal step of
 * level l finished with row r of component c, while the row is in cache
 * (enc_band_row_gcli). */
static void count_row(xs_encoder *e, int c, int l, size_t r)
{
    const xs_geometry *g = &e->plan.geom;
    for (int k = 0; k < e->step_bands[c][l]; k++) {
        const int b = e->step_band[c][l][k];
        const xs_band *bd = &g->band[b];
        const int brow = (int)r - bd->y0;
        if (brow >= 0 && brow < bd->height)
            e->row_sat[e->row_sat_first[b] + (size_t)brow] =
                enc_band_row_gcli(&e->plan, b, brow, band_row(e, b, (size_t)brow), e->gcli,
                                  e->reach) < 0;
    }
}

typedef struct level_ctx {
    xs_encoder *e;
    const xsf_picture *pic;
    int c, level;
    size_t hl; /* the level's low rows */
    /* Where level > 1, its input: the low band of the level before, rows
     * ll_rows a slice at ll_off in the ring's slots, w wide. */
    size_t ll_rows, ll_off, w;
} level_ctx;

/* A level's input rows (wav_row_source): level 1's from the input stage
 * where the RCT made them, else made here; the others' from the low band
 * of the level before. */
static const int32_t *source_row(void *ctx, size_t y, int32_t *buf)
{
    const level_ctx *x = ctx;
    const xs_encoder *e = x->e;
    if (x->ll_rows) {
        const size_t s = y / x->ll_rows;
        return e->ring[x->c] + (s % (size_t)e->ring_slots) * e->ring_slot[x->c] + x->ll_off +
               (y - s * x->ll_rows) * x->w;
    }
    if (e->in[x->c])
        return e->in[x->c] + y * (size_t)e->plan.geom.comp[x->c].width;
    enc_input_row(&e->plan, x->pic, x->c, (int)y, buf);
    return buf;
}

/* Pair k of a level is final: its high row's bands, its low row's (at the
 * last level that splits rows, those of the levels after too). */
static void count_pair(void *ctx, size_t k)
{
    const level_ctx *x = ctx;
    const xs_component *cp = &x->e->plan.geom.comp[x->c];
    const int last = x->level == cp->nly ? cp->nlx : x->level;
    for (int l = x->level; l <= last; l++)
        count_row(x->e, x->c, l, k);
    count_row(x->e, x->c, x->level, x->hl + k);
}

/* The slice of precinct pi, and whether pi is in its slice's first row. */
static int slice_of(const enc_plan *p, size_t pi, int *first_row)
{
    const int row = (int)(pi / (size_t)p->geom.cols);
    if (first_row)
        *first_row = row % p->hdr.hsl == 0;
    return row / p->hdr.hsl;
}

static void wait_for(atomic_ullong *v, unsigned long long at_least)
{
    for (unsigned k = 1; atomic_load_explicit(v, memory_order_acquire) < at_least; k++)
        xsf_pool_pause(k);
}

/* Level l of the forward DWT in slice s, every component that has it:
 * the pairs of rows of its precincts (wav_forward_level_part, each pair's
 * bands counted while in cache), once the level before is done in slices
 * s - 1, s and s + 1 (the rows above its first pair and below its last).
 * Level 1 also lifts across the rows of components that have no level
 * splitting rows (their rows made by the input stage). */
static void dwt_slice(const enc_frame *f, int l, int s, int worker)
{
    xs_encoder *e = f->e;
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    struct enc_sync *y = e->sync;
    const unsigned long long done = DWT_MARKS * y->epoch;
    for (int n = s > 0 ? s - 1 : 0; l > 1 && n <= s + 1 && n < g->slices; n++)
        wait_for(&y->dwt[n], done + (unsigned)l - 1);
    if (l == 1 && s >= e->ring_slots) {
        /* Its slot, once the slice that held it is packed and the levels
         * of the slices beside it have read its low bands. */
        const int old = s - e->ring_slots, r0 = old * p->hdr.hsl;
        for (size_t pi = (size_t)r0 * g->cols; pi < (size_t)(r0 + p->hdr.hsl) * g->cols; pi++)
            wait_for(&y->packed[pi], y->epoch);
        for (int n = old > 0 ? old - 1 : 0; n <= old + 1; n++)
            wait_for(&y->dwt[n], done + (unsigned)y->levels);
    }
    uint32_t *scratch = e->worker[worker].dwt;
    const int row0 = s * p->hdr.hsl,
              row1 = row0 + p->hdr.hsl < g->rows ? row0 + p->hdr.hsl : g->rows;
    for (int c = 0; c < g->ncd; c++) {
        const xs_component *cp = &g->comp[c];
        if (!e->first[c]) {
            /* One row a precinct row; each level's step in place. */
            for (int r = row0; l == 1 && r < row1 && r < cp->height; r++)
                for (int lv = 1; lv <= cp->nlx; lv++) {
                    wav_forward_part(e->wav[c], e->coef[c], lv, 0, (size_t)r, 1, scratch);
                    count_row(e, c, lv, (size_t)r);
                }
            continue;
        }
        if (l > cp->nly)
            continue;
        size_t w, h, wn, hn;
        wav_level_input_size(wav_plan_get_desc(e->wav[c]), l, &w, &h);
        wav_level_input_size(wav_plan_get_desc(e->wav[c]), l + 1, &wn, &hn);
        const size_t pairs = wav_forward_level_pairs(e->wav[c], l),
                     n = (size_t)p->hdr.hsl << (cp->nly - l);
        const size_t k0 = (size_t)s * n, k1 = k0 + n < pairs ? k0 + n : pairs;
        /* Level l's input: the low band level l - 1 left, w wide. */
        level_ctx x = {e, f->pic, c, l, (h + 1) / 2, 0, 0, w};
        if (l > 1) {
            x.ll_rows = 2 * n;
            x.ll_off = e->level_off[c][l - 1] + 2 * x.ll_rows * e->level_width[c][l - 1];
        }
        int32_t *low =
            e->ring[c] + (size_t)(s % e->ring_slots) * e->ring_slot[c] + e->level_off[c][l];
        wav_forward_level_part(e->wav[c], l, source_row, &x, low, low + n * w, w,
                               l < cp->nly ? low + 2 * n * w : NULL, wn, k0, k1 > k0 ? k1 - k0 : 0,
                               scratch, count_pair, &x);
    }
    atomic_store_explicit(&y->dwt[s], done + (unsigned)l, memory_order_release);
}

/* Precinct i: its bitplane counts and sign reaches (flag bit 0: a
 * magnitude over 15 bit planes), then its cost tables (those of a
 * precinct's first lines below its slice's first row as if the precinct
 * above kept every bit plane; redone by decide_slice once that one is
 * decided), after the counts of the precinct above. */
static void analyse_precinct(xs_encoder *e, size_t i)
{
    const enc_plan *p = &e->plan;
    struct enc_sync *y = e->sync;
    static const uint8_t no_truncation[XS_MAX_BANDS];
    wait_for(&y->dwt[slice_of(p, i, NULL)], DWT_MARKS * y->epoch + (unsigned)y->levels);
    int saturated = enc_precinct_gcli(p, i, e->coef, e->gcli, e->reach, 1) < 0;
    const int prow = (int)(i / (size_t)p->geom.cols);
    for (uint32_t k = p->bline_first[i]; k < p->bline_first[i + 1]; k++) {
        const enc_bline *bl = &p->bline[k];
        const xs_band *bd = &p->geom.band[bl->band];
        if (bd->lx > 0)
            saturated |= e->row_sat[e->row_sat_first[bl->band] + (size_t)prow * (size_t)bd->lines +
                                    bl->line];
    }
    e->flag[i] = (uint8_t)saturated;
    atomic_store_explicit(&y->ready[i], 2 * y->epoch + 1, memory_order_release);
    int first_row;
    slice_of(p, i, &first_row);
    if (!first_row)
        wait_for(&y->ready[i - (size_t)p->geom.cols], 2 * y->epoch + 1);
    enc_precinct_costs(p, i, e->gcli, e->reach, first_row ? NULL : no_truncation, 0,
                       e->cost + p->bline_first[i]);
    atomic_store_explicit(&y->ready[i], 2 * y->epoch + 2, memory_order_release);
}

/* Slice s, on one thread, from the cost tables of its precincts: with
 * XS_RC_SLICE each precinct's share (slice_shares), then precinct by
 * precinct (vertical prediction and the carried budget need the one
 * before) the decision, its size and where it is written (prec_off); the
 * slice header. res->precinct: the first precinct left undecided. */
static void decide_slice(const enc_frame *f, size_t s, int worker)
{
    xs_encoder *e = f->e;
    enc_worker *w = &e->worker[worker];
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    const xs_header *h = &p->hdr;
    const int fixed = p->cfg.rate_control == XS_RC_FIXED;
    enc_slice_result *res = &e->slice[s];
    xsf_error *err = &res->err;
    xsf_error_clear(err);
    const int row0 = (int)s * h->hsl, row1 = row0 + h->hsl < g->rows ? row0 + h->hsl : g->rows;
    const size_t p0 = (size_t)row0 * g->cols, p1 = (size_t)row1 * g->cols;
    res->precinct = p0;
    int saturated = 0;
    for (size_t pi = p0; pi < p1; pi++) {
        wait_for(&e->sync->ready[pi], 2 * e->sync->epoch + 2);
        saturated |= e->flag[pi] & 1;
    }
    if (saturated)
        return; /* the frame fails (xs_encode): nothing decided */
    uint8_t *out = f->base + e->slice_off[s];
    put_be(out, XS_MARKER_SLH, 2);
    put_be(out + 2, 4, 2);
    put_be(out + 4, (uint32_t)s, 2);
    size_t off = e->slice_off[s] + 6;
    uint64_t slice_allot = 0, allot_cum = 0, used = 0;
    for (size_t pi = p0; pi < p1; pi++)
        slice_allot += p->allot[pi];
    enc_line_cost *const slice_cost = e->cost + p->bline_first[p0];
    if (p->cfg.rate_control == XS_RC_SLICE)
        slice_shares(p, p0, p1, slice_cost, &w->choice, e->share);
    for (int row = row0; row < row1; row++) {
        for (int col = 0; col < g->cols; col++) {
            const size_t pi = (size_t)row * g->cols + col;
            res->precinct = pi;
            const uint8_t *above = row > row0 ? e->gtli + (pi - (size_t)g->cols) * g->nbands : NULL;
            const enc_bline *bl = p->bline + p->bline_first[pi];
            const int nbl = (int)(p->bline_first[pi + 1] - p->bline_first[pi]);
            enc_line_cost *cost = e->cost + p->bline_first[pi];
            enc_choice *ch = &e->choice[pi];
            if (above)
                enc_precinct_costs(p, pi, e->gcli, e->reach, above, 1, cost);
            int q, r;
            uint32_t budget, total;
            if (fixed) {
                q = p->cfg.q;
                r = p->cfg.r;
                budget = UINT32_MAX;
                if (enc_evaluate(&p->params, h->gain, h->priority, bl, cost, nbl, above != NULL, q,
                                 r, ch) == ENC_NOCOST) {
                    xsf_error_set(err, XSF_ERR_ARG,
                                  "precinct (%d,%d): Q=%d R=%d overflow a packet length field; "
                                  "use long headers or a coarser quantization",
                                  row, col, q, r);
                    return;
                }
            } else {
                const int slice_rc = p->cfg.rate_control == XS_RC_SLICE;
                allot_cum += slice_rc ? e->share[pi] : p->allot[pi];
                budget = slice_rc ? (uint32_t)(allot_cum - used) : p->allot[pi];
                if (enc_select(&p->params, h->gain, h->priority, bl, cost, nbl, above != NULL,
                               budget, &q, &r, ch) < 0) {
                    xsf_error_set(err, XSF_ERR_ARG,
                                  "precinct (%d,%d): %u bytes cannot hold even the coarsest "
                                  "quantization (%u bytes): raise the rate",
                                  row, col, budget, ch->bytes);
                    return;
                }
            }
            const uint32_t coded = ch->bytes;
            if (fixed)
                total = coded;
            else if (p->cfg.rate_control == XS_RC_PRECINCT)
                total = p->allot[pi];
            else
                total = (row == row1 - 1 && col == g->cols - 1) ? (uint32_t)(slice_allot - used)
                                                                : coded;
            memcpy(e->gtli + pi * g->nbands, ch->t, (size_t)g->nbands);
            e->prec_off[pi] = off;
            e->stats.total_bytes[pi] = total;
            e->stats.budget_bytes[pi] = budget;
            e->stats.coded_bytes[pi] = coded;
            e->stats.q[pi] = (uint8_t)q;
            e->stats.r[pi] = (uint8_t)r;
            off += total;
            used += total;
        }
    }
    res->precinct = p1;
}

/* Precinct i, once decided: its packets at f->base + prec_off[i]; flag
 * bit 1 set where they took other than the decision's size. */
static void pack_precinct(const enc_frame *f, size_t i, int worker)
{
    xs_encoder *e = f->e;
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    const int s = slice_of(p, i, NULL);
    wait_for(&e->sync->decided[s], e->sync->epoch);
    if (i >= e->slice[s].precinct)
        return; /* left undecided: its slice failed before it */
    const int prow = (int)(i / (size_t)g->cols), col = (int)(i % (size_t)g->cols);
    const uint8_t *above = prow % p->hdr.hsl ? e->gtli + (i - (size_t)g->cols) * g->nbands : NULL;
    const int32_t **line = e->worker[worker].line;
    for (uint32_t k = p->bline_first[i]; k < p->bline_first[i + 1]; k++) {
        const enc_bline *bl = &p->bline[k];
        const xs_band *bd = &g->band[bl->band];
        line[k - p->bline_first[i]] =
            band_row(e, bl->band, (size_t)prow * (size_t)bd->lines + bl->line) +
            (size_t)col * (size_t)bd->col_width;
    }
    if (enc_write_precinct(p, i, e->stats.q[i], e->stats.r[i], &e->choice[i],
                           e->cost + p->bline_first[i], line, e->gcli, above,
                           f->base + e->prec_off[i],
                           e->stats.total_bytes[i]) != e->stats.coded_bytes[i])
        e->flag[i] |= 2;
}

static void frame_task(void *ctx, size_t i, int worker)
{
    const enc_frame *f = ctx;
    xs_encoder *e = f->e;
    const uint32_t t = e->sync->task[i], id = t & ((1u << TASK_KIND_SHIFT) - 1);
    switch (t >> TASK_KIND_SHIFT) {
    case TASK_PRECINCT: analyse_precinct(e, id); break;
    case TASK_DECIDE:
        decide_slice(f, id, worker);
        atomic_store_explicit(&e->sync->decided[id], e->sync->epoch, memory_order_release);
        break;
    case TASK_PACK:
        pack_precinct(f, id, worker);
        atomic_store_explicit(&e->sync->packed[id], e->sync->epoch, memory_order_release);
        break;
    default: dwt_slice(f, (int)(t >> TASK_KIND_SHIFT) - TASK_DWT + 1, (int)id, worker);
    }
}

xsf_status xs_encode(xs_encoder *e, const xsf_picture *pic, uint8_t *out, size_t cap, size_t *len)
{
    if (!e || !pic || !out || !len)
        return XSF_ERR_ARG;
    xsf_error_clear(&e->err);
    xsf_error *err = &e->err;
    *len = 0;
    const enc_plan *p = &e->plan;
    const xs_geometry *g = &p->geom;
    const xs_header *h = &p->hdr;
    const int fixed = p->cfg.rate_control == XS_RC_FIXED;
    if (cap < (fixed ? p->header_bytes : p->target_bytes))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "output buffer of %zu bytes, the codestream needs %zu", cap,
                             fixed ? p->header_bytes : p->target_bytes);
    xsf_status st = enc_input_check(p, pic, err);
    if (st != XSF_OK)
        return st;
    enc_frame f = {.e = e, .pic = pic, .stripe = 8, .base = out};
    int input_stage = 0; /* components whose rows level 1 of the DWT does not make */
    for (int c = 0; c < g->nc; c++)
        input_stage |= e->input[c] != NULL;
    if (input_stage)
        xsf_pool_run(e->pool, ((size_t)g->comp[0].height + f.stripe - 1) / f.stripe, input_stripe,
                     &f);
    /* Slices: into the output where it holds the bound (fixed rate: moved
     * down below), else into the spill buffer. */
    if (fixed && cap < p->max_bytes) {
        if (!e->spill && !(e->spill = malloc(p->max_bytes)))
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the codestream");
        f.base = e->spill;
    }
    /* The DWT slice by slice, counts and cost tables precinct by precinct,
     * the decisions slice by slice, the packing precinct by precinct: one
     * run (struct enc_sync). */
    e->sync->epoch++;
    xsf_pool_run(e->pool, e->sync->ntasks, frame_task, &f);
    for (size_t pi = 0; pi < p->nprecincts; pi++)
        if (e->flag[pi] & 1)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "a coefficient needs more than 15 bit planes (Bw=%u, Fq=%u): "
                                 "raise Fq or lower Bw",
                                 h->bw, h->fq);
    /* The results in codestream order: the first error a sequential coder
     * would meet is the one returned. */
    memcpy(out, p->header, p->header_bytes);
    size_t off = p->header_bytes;
    for (int s = 0; s < g->slices; s++) {
        const enc_slice_result *res = &e->slice[s];
        const size_t start = off;
        if (cap - off < 6)
            return xsf_error_set(err, XSF_ERR_ARG, "output buffer of %zu bytes is too small", cap);
        off += 6;
        const int row0 = s * h->hsl, row1 = row0 + h->hsl < g->rows ? row0 + h->hsl : g->rows;
        for (size_t pi = (size_t)row0 * g->cols; pi < (size_t)row1 * g->cols; pi++) {
            if (res->err.status != XSF_OK && res->precinct == pi) {
                *err = res->err;
                return err->status;
            }
            if (cap - off < e->stats.total_bytes[pi])
                return xsf_error_set(err, XSF_ERR_ARG, "output buffer of %zu bytes is too small",
                                     cap);
            if (e->flag[pi] & 2)
                return xsf_error_set(err, XSF_ERR_INVALID,
                                     "internal: precinct (%d,%d) packed to a size other than its "
                                     "cost tables say",
                                     (int)(pi / (size_t)g->cols), (int)(pi % (size_t)g->cols));
            off += e->stats.total_bytes[pi];
        }
        if (f.base + e->slice_off[s] != out + start)
            memmove(out + start, f.base + e->slice_off[s], off - start);
    }
    if (cap - off < 2)
        return xsf_error_set(err, XSF_ERR_ARG, "output buffer of %zu bytes is too small", cap);
    put_be(out + off, XS_MARKER_EOC, 2);
    off += 2;
    if (fixed)
        put_be(out + lcod_offset(out), (uint32_t)off, 4);
    else if (off != p->target_bytes)
        return xsf_error_set(err, XSF_ERR_INVALID, "internal: codestream of %zu bytes, target %zu",
                             off, p->target_bytes);
    e->stats.codestream_bytes = off;
    *len = off;
    return XSF_OK;
}
