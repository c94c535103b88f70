/* The C reference decoder: header and index (validated), every code block
 * decoded and dequantized into its band, inverse DWT of wavelet/, inverse
 * colour transform. */
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"
#include "colour_rules.h"
#include "wavelet.h"

struct bpc_decoder {
    xsf_error err;
    const bpc_tables *tables;
    bpc_codestream cs;
    void *plane[BPC_MAX_COMPONENTS];
    size_t plane_cap[BPC_MAX_COMPONENTS];
    uint16_t *out[BPC_MAX_COMPONENTS];
    size_t out_cap[BPC_MAX_COMPONENTS];
    wav_plan *plan[BPC_MAX_COMPONENTS];
    wav_plan_desc desc[BPC_MAX_COMPONENTS];
    xsf_picture img; /* a view of out[] */
};

xsf_status bpc_decoder_create(bpc_decoder **out, xsf_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? XSF_OK : xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a decoder");
}

void bpc_decoder_destroy(bpc_decoder *d)
{
    if (!d)
        return;
    bpc_codestream_free(&d->cs);
    for (int c = 0; c < BPC_MAX_COMPONENTS; c++) {
        free(d->plane[c]);
        free(d->out[c]);
        if (d->plan[c])
            wav_plan_destroy(d->plan[c]);
    }
    free(d);
}

void bpc_decoder_set_tables(bpc_decoder *d, const bpc_tables *t)
{
    d->tables = t;
}

const char *bpc_decoder_error(const bpc_decoder *d)
{
    return d ? d->err.msg : "no decoder";
}

static int grow(void **p, size_t *cap, size_t need)
{
    if (*cap >= need)
        return 1;
    void *q = realloc(*p, need);
    if (!q)
        return 0;
    *p = q;
    *cap = need;
    return 1;
}

static xsf_status plan_for(bpc_decoder *d, int c)
{
    const bpc_layout *lay = &d->cs.lay;
    wav_plan_desc w;
    bpc_layout_wavelet(lay, c, 1, &w);
    if (d->plan[c] && !memcmp(&w, &d->desc[c], sizeof w))
        return XSF_OK;
    if (d->plan[c])
        wav_plan_destroy(d->plan[c]);
    d->plan[c] = NULL;
    d->desc[c] = w;
    return wav_plan_create(&d->plan[c], &w, &d->err);
}

/* Decodes one code block into its place in the band. */
static xsf_status decode_block(bpc_decoder *d, size_t i)
{
    static _Thread_local int32_t recon[BPC_CODEBLOCK * BPC_CODEBLOCK];
    const bpc_layout *lay = &d->cs.lay;
    const bpc_cb_desc *cb = &lay->cb[i];
    const bpc_cb_entry *en = &d->cs.entries[i];
    const bpc_band *bd = &lay->comp[cb->comp].band[cb->band];
    const size_t w = (size_t)lay->width[cb->comp];
    if (en->passes == 0) {
        memset(recon, 0, sizeof recon);
    } else {
        const bpc_band_probs probs = bpc_tables_band(d->cs.tables, lay->variant, bd->level,
                                                     bd->orient, lay->table_plane_offset);
        xsf_status s = bpc_codeblock_decode(lay->variant, &probs, d->cs.data + en->offset,
                                            2 * (size_t)en->codewords, en->planes, en->passes,
                                            recon, BPC_CODEBLOCK, (int)cb->w, (int)cb->h, &d->err);
        if (s) {
            char msg[XSF_ERRMSG_LEN];
            memcpy(msg, d->err.msg, sizeof msg);
            xsf_error_clear(&d->err);
            return xsf_error_set(&d->err, s,
                                 "code block %zu (component %u, band %u, data byte %zu): %s", i,
                                 cb->comp, cb->band, lay->header_bytes + en->offset, msg);
        }
    }
    if (lay->filter == BPC_FILTER_53) {
        int32_t *p = (int32_t *)d->plane[cb->comp] + (size_t)cb->y0 * w + cb->x0;
        for (uint32_t y = 0; y < cb->h; y++)
            for (uint32_t x = 0; x < cb->w; x++)
                p[y * w + x] = bpc_dequantize_int(recon[y * BPC_CODEBLOCK + x]);
    } else {
        float *p = (float *)d->plane[cb->comp] + (size_t)cb->y0 * w + cb->x0;
        const float half = bd->step * 0.5f;
        for (uint32_t y = 0; y < cb->h; y++)
            for (uint32_t x = 0; x < cb->w; x++)
                p[y * w + x] = bpc_dequantize_float(recon[y * BPC_CODEBLOCK + x], half);
    }
    return XSF_OK;
}

xsf_status bpc_decode(bpc_decoder *d, const uint8_t *buf, size_t len, size_t *consumed,
                      const xsf_picture **img)
{
    return bpc_decode_parsed(d, NULL, buf, len, consumed, img);
}

xsf_status bpc_decode_parsed(bpc_decoder *d, const bpc_info *info, const uint8_t *buf, size_t len,
                             size_t *consumed, const xsf_picture **img)
{
    *consumed = 0;
    *img = NULL;
    xsf_error_clear(&d->err);
    xsf_status s = bpc_codestream_open(&d->cs, buf, len, info, d->tables, &d->err);
    if (s)
        return s;
    const bpc_layout *lay = &d->cs.lay;
    for (int c = 0; c < lay->nc; c++) {
        const size_t n = (size_t)lay->width[c] * lay->height[c];
        void *op = d->out[c];
        if (!grow(&d->plane[c], &d->plane_cap[c], n * 4) || !grow(&op, &d->out_cap[c], n * 2))
            return xsf_error_set(&d->err, XSF_ERR_NOMEM, "no memory for a %dx%d plane",
                                 lay->width[c], lay->height[c]);
        d->out[c] = op;
        if ((s = plan_for(d, c)))
            return s;
    }
    for (size_t i = 0; i < lay->ncb; i++)
        if ((s = decode_block(d, i)))
            return s;
    for (int c = 0; c < lay->nc; c++)
        if ((s = wav_inverse(d->plan[c], d->plane[c])))
            return xsf_error_set(&d->err, s, "component %d: inverse wavelet transform failed", c);
    xsf_picture_init(&d->img);
    bpc_info_format(&d->cs.info, &d->img.fmt);
    for (int c = 0; c < lay->nc; c++) {
        d->img.stride[c] = (size_t)lay->width[c] * sizeof(uint16_t);
        d->img.data[c] = (uint8_t *)d->out[c];
    }
    bpc_transform_colour(lay->colour, &d->img.colour);
    bpc_back(lay, d->plane, &d->img);
    *consumed = d->cs.info.codestream_bytes;
    *img = &d->img;
    return XSF_OK;
}
