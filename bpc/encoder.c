/* The C reference encoder: front end (colour transform, DWT of wavelet/,
 * quantization), the code-block coder on every code block, rate control by
 * truncation, and the codestream (FORMAT.md). */
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"
#include "colour_rules.h"
#include "rate_rules.h"
#include "wavelet.h"

struct bpc_encoder {
    bpc_params params;
    xsf_error err;
    int have_layout;
    bpc_layout lay;
    bpc_frontend fe;
    uint8_t *slots; /* each code block's bitstream, at slot[i] */
    size_t *slot;
    bpc_codeblock_result *res;
    bpc_rate_cb *rate;
    uint8_t *passes;
};

/* ---- front end (shared with the trainer) ---- */

xsf_status bpc_frontend_init(bpc_frontend *fe, const bpc_layout *lay, xsf_error *err)
{
    memset(fe, 0, sizeof *fe);
    for (int c = 0; c < lay->nc; c++) {
        const size_t n = (size_t)lay->width[c] * lay->height[c];
        fe->plane[c] = malloc(n * 4);
        fe->q[c] = lay->filter == BPC_FILTER_53 ? fe->plane[c] : malloc(n * 4);
        if (!fe->plane[c] || !fe->q[c])
            return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a %dx%d plane", lay->width[c],
                                 lay->height[c]);
        wav_plan_desc d;
        bpc_layout_wavelet(lay, c, 1, &d);
        xsf_status s = wav_plan_create(&fe->plan[c], &d, err);
        if (s)
            return s;
    }
    return XSF_OK;
}

void bpc_frontend_free(bpc_frontend *fe)
{
    for (int c = 0; c < BPC_MAX_COMPONENTS; c++) {
        if (fe->q[c] != fe->plane[c])
            free(fe->q[c]);
        free(fe->plane[c]);
        if (fe->plan[c])
            wav_plan_destroy(fe->plan[c]);
    }
    memset(fe, 0, sizeof *fe);
}

xsf_status bpc_frontend_run(bpc_frontend *fe, const bpc_layout *lay, const xsf_picture *img,
                            xsf_error *err)
{
    if (img->fmt.container != XSF_PLANAR_U16 || img->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "the encoder reads planar 16-bit pictures in host memory");
    const xsf_format *f = &img->fmt;
    for (int c = 0; c < lay->nc; c++)
        if (f->width[c] != lay->width[c] || f->height[c] != lay->height[c] ||
            f->depth[c] != lay->depth[c] || img->stride[c] < (size_t)f->width[c] * 2 ||
            !img->data[c])
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "component %d: picture does not match its layout", c);
    bpc_front(lay, img, fe->plane);
    for (int c = 0; c < lay->nc; c++) {
        xsf_status s = wav_forward(fe->plan[c], fe->plane[c]);
        if (s)
            return xsf_error_set(err, s, "component %d: wavelet transform failed", c);
        if (lay->filter == BPC_FILTER_53)
            continue;
        const bpc_component_layout *cl = &lay->comp[c];
        const float *src = fe->plane[c];
        const size_t w = (size_t)lay->width[c];
        for (int b = 0; b < cl->nbands; b++) {
            const bpc_band *bd = &cl->band[b];
            const float inv = 1.0f / bd->step;
            for (size_t y = bd->y0; y < bd->y0 + bd->h; y++)
                for (size_t x = bd->x0; x < bd->x0 + bd->w; x++)
                    fe->q[c][y * w + x] = bpc_quantize(src[y * w + x], inv);
        }
    }
    return XSF_OK;
}

double bpc_codeblock_weight(const bpc_layout *lay, const bpc_cb_desc *d)
{
    const bpc_component_layout *cl = &lay->comp[d->comp];
    const bpc_band *bd = &cl->band[d->band];
    return cl->colour_gain * bd->gain * (double)bd->step * (double)bd->step;
}

/* ---- encoder ---- */

xsf_status bpc_encoder_create(bpc_encoder **out, const bpc_params *params, xsf_error *err)
{
    *out = NULL;
    bpc_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for an encoder");
    e->params = *params;
    *out = e;
    return XSF_OK;
}

static void drop_layout(bpc_encoder *e)
{
    if (!e->have_layout)
        return;
    bpc_frontend_free(&e->fe);
    bpc_layout_free(&e->lay);
    free(e->slots);
    free(e->slot);
    free(e->res);
    free(e->rate);
    free(e->passes);
    e->slots = NULL;
    e->slot = NULL;
    e->res = NULL;
    e->rate = NULL;
    e->passes = NULL;
    e->have_layout = 0;
}

void bpc_encoder_destroy(bpc_encoder *e)
{
    if (!e)
        return;
    drop_layout(e);
    free(e);
}

const char *bpc_encoder_error(const bpc_encoder *e)
{
    return e ? e->err.msg : "no encoder";
}

static int same_shape(const bpc_layout *lay, const xsf_format *f)
{
    if (lay->nc != f->nc)
        return 0;
    for (int c = 0; c < f->nc; c++)
        if (lay->width[c] != f->width[c] || lay->height[c] != f->height[c] ||
            lay->depth[c] != f->depth[c])
            return 0;
    return 1;
}

/* Buffers for pictures of this shape: allocated when the shape changes. */
static xsf_status prepare(bpc_encoder *e, const xsf_format *fmt)
{
    if (e->have_layout && same_shape(&e->lay, fmt))
        return XSF_OK;
    drop_layout(e);
    xsf_status s = bpc_layout_init(&e->lay, &e->params, fmt, &e->err);
    e->have_layout = 1;
    if (s)
        return s;
    if ((s = bpc_frontend_init(&e->fe, &e->lay, &e->err)))
        return s;
    const size_t n = e->lay.ncb ? e->lay.ncb : 1;
    e->slot = malloc(n * sizeof *e->slot);
    e->res = malloc(n * sizeof *e->res);
    e->rate = malloc(n * sizeof *e->rate);
    e->passes = malloc(n);
    if (!e->slot || !e->res || !e->rate || !e->passes)
        return xsf_error_set(&e->err, XSF_ERR_NOMEM, "no memory for %zu code blocks", n);
    size_t total = 0;
    for (size_t i = 0; i < e->lay.ncb; i++) {
        const bpc_cb_desc *d = &e->lay.cb[i];
        e->slot[i] = total;
        total += bpc_codeblock_bound((int)d->w, (int)d->h,
                                     e->lay.comp[d->comp].band[d->band].planes_bound);
    }
    e->slots = malloc(total ? total : 1);
    if (!e->slots)
        return xsf_error_set(&e->err, XSF_ERR_NOMEM, "no memory for %zu bytes of code-block data",
                             total);
    return XSF_OK;
}

size_t bpc_encode_bound(const bpc_params *params, const xsf_format *fmt)
{
    bpc_layout lay;
    xsf_error err;
    if (bpc_layout_init(&lay, params, fmt, &err)) {
        bpc_layout_free(&lay);
        return 0;
    }
    size_t n = lay.header_bytes;
    for (size_t i = 0; i < lay.ncb; i++) {
        const bpc_cb_desc *d = &lay.cb[i];
        const int pb = lay.comp[d->comp].band[d->band].planes_bound;
        const size_t data = bpc_codeblock_bound((int)d->w, (int)d->h, pb);
        n += bpc_index_entry_size(bpc_passes_of((int)lay.variant, pb), (uint32_t)(data / 2)) + data;
    }
    bpc_layout_free(&lay);
    return n;
}

/* Codes every code block into its slot. */
static xsf_status code_blocks(bpc_encoder *e)
{
    const bpc_layout *lay = &e->lay;
    const bpc_tables *t = e->params.tables ? e->params.tables : bpc_tables_builtin(lay->filter);
    for (size_t i = 0; i < lay->ncb; i++) {
        const bpc_cb_desc *d = &lay->cb[i];
        const bpc_band *bd = &lay->comp[d->comp].band[d->band];
        const bpc_band_probs probs =
            bpc_tables_band(t, lay->variant, bd->level, bd->orient, lay->table_plane_offset);
        const size_t w = (size_t)lay->width[d->comp];
        const int32_t *coef = e->fe.q[d->comp] + (size_t)d->y0 * w + d->x0;
        const size_t cap = bpc_codeblock_bound((int)d->w, (int)d->h, bd->planes_bound);
        xsf_status s = bpc_codeblock_encode(lay->variant, &probs, coef, w, (int)d->w, (int)d->h,
                                            e->slots + e->slot[i], cap, &e->res[i], &e->err);
        if (s)
            return s;
        if (e->res[i].planes > bd->planes_bound)
            return xsf_error_set(&e->err, XSF_ERR_ARG,
                                 "code block %zu needs %d bitplanes, beyond its band's bound %d", i,
                                 e->res[i].planes, bd->planes_bound);
    }
    return XSF_OK;
}

/* Passes kept: all of them when they fit (or no target), else rate control. */
static xsf_status choose_passes(bpc_encoder *e)
{
    const bpc_layout *lay = &e->lay;
    size_t full = 0;
    for (size_t i = 0; i < lay->ncb; i++) {
        const bpc_codeblock_result *r = &e->res[i];
        full += bpc_rr_bytes(r->passes, r->passes ? r->pass_codewords[r->passes - 1] : 0);
        e->passes[i] = (uint8_t)r->passes;
    }
    const size_t target = e->params.target_bytes;
    if (!target || lay->header_bytes + full <= target)
        return XSF_OK;
    if (target < lay->header_bytes + lay->ncb)
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "target of %zu bytes below the %zu of the header and the empty index",
                             target, lay->header_bytes + lay->ncb);
    for (size_t i = 0; i < lay->ncb; i++) {
        const bpc_codeblock_result *r = &e->res[i];
        bpc_rr_hull((int)lay->variant, r->planes, r->passes, r->pass_codewords, r->pass_distortion,
                    bpc_codeblock_weight(lay, &lay->cb[i]), &e->rate[i]);
    }
    bpc_rate_select(e->rate, lay->ncb, target - lay->header_bytes, e->passes);
    return XSF_OK;
}

xsf_status bpc_encode(bpc_encoder *e, const xsf_picture *img, uint8_t *out, size_t cap, size_t *len)
{
    *len = 0;
    xsf_error_clear(&e->err);
    xsf_status s = prepare(e, &img->fmt);
    if (!s)
        s = bpc_frontend_run(&e->fe, &e->lay, img, &e->err);
    if (!s)
        s = code_blocks(e);
    if (!s)
        s = choose_passes(e);
    if (s)
        return s;
    const bpc_layout *lay = &e->lay;
    size_t ib = 0, db = 0;
    for (size_t i = 0; i < lay->ncb; i++) {
        const int k = e->passes[i];
        const uint32_t cw = k ? e->res[i].pass_codewords[k - 1] : 0;
        ib += bpc_index_entry_size(k, cw);
        db += 2 * (size_t)cw;
    }
    size_t total;
    if ((s = bpc_codestream_size(lay, ib, db, cap, &total, &e->err)))
        return s;
    bpc_write_header(lay, ib, db, out);
    uint8_t *ip = out + lay->header_bytes, *dp = ip + ib;
    for (size_t i = 0; i < lay->ncb; i++) {
        const int k = e->passes[i];
        const uint32_t cw = k ? e->res[i].pass_codewords[k - 1] : 0;
        ip += bpc_write_index_entry(ip, e->res[i].planes, k, cw);
        memcpy(dp, e->slots + e->slot[i], 2 * (size_t)cw);
        dp += 2 * (size_t)cw;
    }
    *len = total;
    return XSF_OK;
}
