/* The C reference JPEG XS decoder: headers, a structural walk of the whole
 * codestream, then slice by slice entropy decoding into coefficient planes,
 * the inverse DWT of wavelet/ and the output stage. Given a runner
 * (xs_decoder_set_parallel), each of the three goes in parts that the
 * runner spreads over its threads: slices (independent by the standard:
 * prediction restarts in each), the DWT's steps in rows or column blocks
 * (wav_inverse_part), the output stage in bands of rows; each part writes
 * places no other part of its step touches, so the bytes are the same. */
#include <stdlib.h>
#include <string.h>

#include "xs_decoder.h"

xsf_status xs_decoder_create(xs_decoder **dec, xsf_error *err)
{
    if (!dec)
        return xsf_error_set(err, XSF_ERR_ARG, "no place for the decoder");
    *dec = calloc(1, sizeof **dec);
    return *dec ? XSF_OK : xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a decoder");
}

/* The parallel runner's scratch (parts_scratch), freed. */
static void release_parts_scratch(xs_decoder *d)
{
    free(d->par_sig);
    free(d->par_dwt);
    free(d->par_fail);
    d->par_sig = NULL;
    d->par_dwt = NULL;
    d->par_fail = NULL;
    d->par_workers = 0;
}

static void release_buffers(xs_decoder *d)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++) {
        free(d->coef[c]);
        free(d->out[c]);
        wav_plan_destroy(d->plan[c]);
        d->coef[c] = NULL;
        d->out[c] = NULL;
        d->plan[c] = NULL;
    }
    free(d->gcli);
    free(d->gtli);
    free(d->sig_scratch);
    d->gcli = d->gtli = d->sig_scratch = NULL;
    free(d->slice_off);
    d->slice_off = NULL;
    release_parts_scratch(d);
    d->configured = 0;
}

void xs_decoder_destroy(xs_decoder *d)
{
    if (!d)
        return;
    release_buffers(d);
    free(d);
}

const xs_header *xs_decoder_header(const xs_decoder *d)
{
    return &d->hdr;
}

const char *xs_decoder_error(const xs_decoder *d)
{
    return d->err.msg;
}

void xs_decoder_set_parallel(xs_decoder *d, const xsf_parallel *par)
{
    if (!d)
        return;
    memset(&d->par, 0, sizeof d->par);
    if (par && par->run && par->threads > 1)
        d->par = *par;
}

static xsf_status configure(xs_decoder *d, const xs_header *prev)
{
    if (d->configured && xs_same_format(prev, &d->hdr))
        return XSF_OK;
    release_buffers(d);
    const xs_geometry *g = &d->geom;
    size_t sig_bytes = 0;
    for (int b = 0; b < g->nbands; b++)
        sig_bytes += g->band[b].gcli_stride / 8 + 2;
    d->gcli = malloc(g->gcli_total ? g->gcli_total : 1);
    d->gtli = malloc((size_t)g->rows * g->cols * g->nbands);
    d->sig_scratch = malloc(sig_bytes * 8);
    d->sig_bytes = sig_bytes * 8;
    d->slice_off = malloc(sizeof *d->slice_off * (size_t)(g->slices > 0 ? g->slices : 1));
    if (!d->gcli || !d->gtli || !d->sig_scratch || !d->slice_off)
        goto nomem;
    xsf_picture_init(&d->pic);
    d->pic.fmt.container = XSF_PLANAR_U16;
    d->pic.fmt.nc = g->nc;
    for (int c = 0; c < g->nc; c++) {
        const xs_component *cp = &g->comp[c];
        const size_t n = (size_t)cp->width * cp->height;
        d->coef[c] = malloc(n * sizeof(int32_t));
        if (!d->coef[c])
            goto nomem;
        if (cp->nlx > 0) {
            const wav_plan_desc desc = xs_dwt_desc(cp, 1);
            xsf_status st = wav_plan_create(&d->plan[c], &desc, &d->err);
            if (st != XSF_OK) {
                release_buffers(d);
                return st;
            }
        }
        d->pic.fmt.width[c] = cp->width;
        d->pic.fmt.height[c] = cp->height;
        d->pic.fmt.depth[c] = d->hdr.depth[c];
    }
    d->configured = 1;
    return XSF_OK;
nomem:
    release_buffers(d);
    return xsf_error_set(&d->err, XSF_ERR_NOMEM, "out of memory for a %ux%u picture", d->hdr.wf,
                         d->hdr.hf);
}

/* The decoder's own output planes (d->pic's), made by the first decode into them. */
static xsf_status own_planes(xs_decoder *d)
{
    for (int c = 0; c < d->pic.fmt.nc; c++) {
        if (d->out[c])
            continue;
        const size_t row = xsf_format_row_bytes(&d->pic.fmt, c);
        if (!(d->out[c] = malloc(row * (size_t)d->pic.fmt.height[c]))) {
            release_buffers(d);
            return xsf_error_set(&d->err, XSF_ERR_NOMEM, "out of memory for a %ux%u picture",
                                 d->hdr.wf, d->hdr.hf);
        }
        d->pic.stride[c] = row;
        d->pic.data[c] = (uint8_t *)d->out[c];
    }
    return XSF_OK;
}

xsf_status xs_decode(xs_decoder *d, const uint8_t *buf, size_t len, size_t *consumed,
                     const xsf_picture **pic)
{
    if (!d || !buf || !consumed || !pic)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    *consumed = 0;
    *pic = NULL;
    xs_header h;
    const xsf_status st = xs_parse_header(buf, len, &h, &d->err);
    if (st != XSF_OK)
        return st;
    return xs_decode_parsed(d, &h, buf, len, consumed, pic);
}

static xsf_status decode(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                         size_t *consumed, xsf_picture *dst);

xsf_status xs_decode_parsed(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                            size_t *consumed, const xsf_picture **pic)
{
    if (!d || !hdr || !buf || !consumed || !pic)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    *consumed = 0;
    *pic = NULL;
    const xsf_status st = decode(d, hdr, buf, len, consumed, NULL);
    if (st == XSF_OK) {
        xs_header_colour(&d->hdr, &d->pic.colour);
        *pic = &d->pic;
    }
    return st;
}

xsf_status xs_decode_into(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                          size_t *consumed, xsf_picture *out)
{
    if (!d || !buf || !consumed || !out)
        return XSF_ERR_ARG;
    xsf_error_clear(&d->err);
    *consumed = 0;
    xs_header h;
    if (!hdr) {
        const xsf_status st = xs_parse_header(buf, len, &h, &d->err);
        if (st != XSF_OK)
            return st;
        hdr = &h;
    }
    return decode(d, hdr, buf, len, consumed, out);
}

/* The reference path: one thread, slice after slice. */
static xsf_status decode_serial(xs_decoder *d, const uint8_t *buf, size_t total,
                                const xsf_picture *dst)
{
    const xs_geometry *g = &d->geom;
    size_t off = d->hdr.header_bytes;
    xsf_status st;
    for (int s = 0; s < g->slices; s++) {
        off += 6; /* SLH, checked by the walk */
        const int row_end = (s + 1) * d->hdr.hsl < g->rows ? (s + 1) * d->hdr.hsl : g->rows;
        for (int row = s * d->hdr.hsl; row < row_end; row++) {
            for (int col = 0; col < g->cols; col++) {
                size_t used;
                st = xs_decode_precinct(d, d->sig_scratch, &d->err, buf + off, total - off, off,
                                        row, col, row == s * d->hdr.hsl, &used);
                if (st != XSF_OK)
                    return st;
                off += used;
            }
        }
    }
    for (int c = 0; c < g->nc; c++) {
        if (d->plan[c]) {
            st = wav_inverse(d->plan[c], d->coef[c]);
            if (st != XSF_OK)
                return xsf_error_set(&d->err, st,
                                     "inverse wavelet transform of component %d failed", c);
        }
    }
    xs_output_stage(d, dst);
    return XSF_OK;
}

/* ---- in parts, on the runner's threads ---- */

/* A step's parts come in about this many groups a thread: enough to even out
 * parts of unequal cost, few enough that taking one costs nothing. */
#define GROUPS_PER_THREAD 4

/* The runner's workers' scratch, for geom and par.threads (made once per format). */
static xsf_status parts_scratch(xs_decoder *d)
{
    const int n = d->par.threads;
    if (d->par_workers == n)
        return XSF_OK;
    release_parts_scratch(d);
    d->dwt_words = 1;
    for (int c = 0; c < d->geom.nc; c++)
        if (d->plan[c]) {
            const size_t words = wav_part_scratch(wav_plan_get_desc(d->plan[c]));
            d->dwt_words = words > d->dwt_words ? words : d->dwt_words;
        }
    d->par_sig = malloc(d->sig_bytes * (size_t)n);
    d->par_dwt = malloc(d->dwt_words * sizeof *d->par_dwt * (size_t)n);
    d->par_fail = malloc(sizeof *d->par_fail * (size_t)n);
    if (!d->par_sig || !d->par_dwt || !d->par_fail) {
        release_parts_scratch(d);
        return xsf_error_set(&d->err, XSF_ERR_NOMEM, "out of memory for %d decoding threads", n);
    }
    d->par_workers = n;
    return XSF_OK;
}

typedef struct parts_job {
    xs_decoder *d;
    const uint8_t *buf;
    size_t total;
    const xsf_picture *dst;
    int level, vertical;                                      /* the DWT step */
    size_t per[XS_MAX_COMPONENTS], groups[XS_MAX_COMPONENTS]; /* its parts a group, its groups */
    int rows_per; /* the output stage: frame rows a band */
} parts_job;

/* Slice s: its precincts in order, as decode_serial's loop. */
static void slice_part(void *ctx, size_t s, int worker)
{
    const parts_job *j = ctx;
    xs_decoder *d = j->d;
    const xs_geometry *g = &d->geom;
    struct xs_slice_fail *f = &d->par_fail[worker];
    if (f->slice >= 0 && (size_t)f->slice < s)
        return; /* a lower slice failed: the frame fails with that one */
    uint8_t *sig = d->par_sig + (size_t)worker * d->sig_bytes;
    size_t off = d->slice_off[s] + 6;
    const int first = (int)s * d->hdr.hsl;
    const int row_end = first + d->hdr.hsl < g->rows ? first + d->hdr.hsl : g->rows;
    xsf_error e;
    for (int row = first; row < row_end; row++)
        for (int col = 0; col < g->cols; col++) {
            size_t used;
            xsf_error_clear(&e);
            const xsf_status st = xs_decode_precinct(d, sig, &e, j->buf + off, j->total - off, off,
                                                     row, col, row == first, &used);
            if (st != XSF_OK) {
                f->slice = (int)s;
                f->st = st;
                f->err = e;
                return;
            }
            off += used;
        }
}

/* Group i of the DWT step: the component whose groups it falls in, its parts. */
static void dwt_part(void *ctx, size_t i, int worker)
{
    const parts_job *j = ctx;
    xs_decoder *d = j->d;
    int c = 0;
    while (i >= j->groups[c])
        i -= j->groups[c++];
    wav_inverse_part(d->plan[c], d->coef[c], j->level, j->vertical, i * j->per[c], j->per[c],
                     d->par_dwt + (size_t)worker * d->dwt_words);
}

static void output_part(void *ctx, size_t i, int worker)
{
    (void)worker;
    const parts_job *j = ctx;
    const int hf = (int)j->d->hdr.hf;
    const int y0 = (int)i * j->rows_per, y1 = y0 + j->rows_per < hf ? y0 + j->rows_per : hf;
    xs_output_rows(j->d, j->dst, y0, y1);
}

static xsf_status decode_parts(xs_decoder *d, const uint8_t *buf, size_t total,
                               const xsf_picture *dst)
{
    const xs_geometry *g = &d->geom;
    xsf_status st = parts_scratch(d);
    if (st != XSF_OK)
        return st;
    /* Where each slice starts (the walk checked the structure already). */
    size_t end;
    if ((st = xs_walk(buf, total, &d->hdr, g, d->slice_off, NULL, &end, &d->err)) != XSF_OK)
        return st;
    parts_job j = {.d = d, .buf = buf, .total = total, .dst = dst};
    const int n = d->par.threads;
    for (int w = 0; w < n; w++)
        d->par_fail[w].slice = -1;
    d->par.run(d->par.self, (size_t)g->slices, slice_part, &j);
    int failed = -1;
    for (int w = 0; w < n; w++)
        if (d->par_fail[w].slice >= 0 &&
            (failed < 0 || d->par_fail[w].slice < d->par_fail[failed].slice))
            failed = w;
    if (failed >= 0) { /* the lowest failing slice's: what the serial path stops at */
        d->err = d->par_fail[failed].err;
        return d->par_fail[failed].st;
    }
    int levels = 0;
    for (int c = 0; c < g->nc; c++)
        if (d->plan[c] && wav_plan_get_desc(d->plan[c])->levels_h > levels)
            levels = wav_plan_get_desc(d->plan[c])->levels_h;
    const size_t want = (size_t)n * GROUPS_PER_THREAD;
    for (int l = levels; l >= 1; l--)
        for (int v = 0; v <= 1; v++) { /* horizontal first, as wav_inverse */
            size_t groups = 0;
            for (int c = 0; c < g->nc; c++) {
                const size_t parts = d->plan[c] ? wav_inverse_part_count(d->plan[c], l, v) : 0;
                j.per[c] = parts > want ? (parts + want - 1) / want : 1;
                j.groups[c] = (parts + j.per[c] - 1) / j.per[c];
                groups += j.groups[c];
            }
            j.level = l;
            j.vertical = v;
            if (groups)
                d->par.run(d->par.self, groups, dwt_part, &j);
        }
    const int hf = (int)d->hdr.hf;
    j.rows_per = (int)((size_t)hf > want ? ((size_t)hf + want - 1) / want : 1);
    d->par.run(d->par.self, (size_t)((hf + j.rows_per - 1) / j.rows_per), output_part, &j);
    return XSF_OK;
}

/* Decodes into dst (NULL: the decoder's own planes). */
static xsf_status decode(xs_decoder *d, const xs_header *hdr, const uint8_t *buf, size_t len,
                         size_t *consumed, xsf_picture *dst)
{
    /* Walk the whole codestream before touching the decoder's state or
     * allocating anything it sizes. */
    const xs_header h = *hdr;
    xsf_status st = xs_geometry_init(&d->scratch_geom, &h, &d->err);
    size_t total = 0;
    if (st == XSF_OK)
        st = xs_walk(buf, len, &h, &d->scratch_geom, NULL, NULL, &total, &d->err);
    if (st != XSF_OK)
        return st;
    const xs_header prev = d->hdr;
    d->hdr = h;
    d->geom = d->scratch_geom;
    st = configure(d, &prev);
    if (st != XSF_OK)
        return st;
    if (!dst)
        st = own_planes(d);
    else if (!xsf_format_equal(&dst->fmt, &d->pic.fmt) || dst->memory == XSF_MEMORY_DEVICE)
        st =
            xsf_error_set(&d->err, XSF_ERR_ARG, "the picture given is not one of the codestream's");
    if (st != XSF_OK)
        return st;
    if (d->par.threads > 1)
        st = decode_parts(d, buf, total, dst ? dst : &d->pic);
    else
        st = decode_serial(d, buf, total, dst ? dst : &d->pic);
    if (st == XSF_OK)
        *consumed = total;
    return st;
}
