/* Training of the stationary probability tables (thesis 3.2.2, eq. 3.3;
 * Bruns 8.5-8.6): the pictures go through the codec's front end with the
 * given parameters, every code block is scanned by each variant's passes,
 * and the symbols are counted per band, table plane and context. The
 * probability of 0 is then (n0 + 1/2) / (n + 1) of the pooled counts, or
 * the mean over pictures of each picture's estimate (Bruns' averaged LUT). */
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"

#define ENTRIES ((size_t)3 * BPC_TABLE_BANDS * BPC_TABLE_PLANES * BPC_NCTX_MAX)
#define BAND_ENTRIES ((size_t)BPC_TABLE_PLANES * BPC_NCTX_MAX)
#define MIN_SYMBOLS 32 /* fewer symbols than this: the entry is not trained */
#define P_MIN 8        /* trained probabilities stay within 2^-12 .. 1 - 2^-12 */
#define P_MAX 32760

struct bpc_trainer {
    bpc_params params;
    xsf_error err;
    uint64_t *counts;  /* pooled [entry][bit] */
    uint64_t *picture; /* this picture's [entry][bit] */
    double *psum;      /* sum of per-picture probabilities */
    uint32_t *pnum;    /* pictures that trained the entry */
    size_t pictures;
    uint64_t symbols;
};

xsf_status bpc_trainer_create(bpc_trainer **out, const bpc_params *params, xsf_error *err)
{
    *out = NULL;
    bpc_trainer *t = calloc(1, sizeof *t);
    if (!t)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a trainer");
    t->params = *params;
    t->counts = calloc(ENTRIES * 2, sizeof *t->counts);
    t->picture = calloc(ENTRIES * 2, sizeof *t->picture);
    t->psum = calloc(ENTRIES, sizeof *t->psum);
    t->pnum = calloc(ENTRIES, sizeof *t->pnum);
    if (!t->counts || !t->picture || !t->psum || !t->pnum) {
        bpc_trainer_destroy(t);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a trainer's counts");
    }
    *out = t;
    return XSF_OK;
}

void bpc_trainer_destroy(bpc_trainer *t)
{
    if (!t)
        return;
    free(t->counts);
    free(t->picture);
    free(t->psum);
    free(t->pnum);
    free(t);
}

const char *bpc_trainer_error(const bpc_trainer *t)
{
    return t ? t->err.msg : "no trainer";
}

void bpc_trainer_totals(const bpc_trainer *t, size_t *pictures, uint64_t *symbols)
{
    *pictures = t->pictures;
    *symbols = t->symbols;
}

static size_t entry(int variant, int band, int plane, int ctx)
{
    return (((size_t)(variant - 1) * BPC_TABLE_BANDS + band) * BPC_TABLE_PLANES + plane) *
               BPC_NCTX_MAX +
           ctx;
}

/* Counts the code blocks of one front-end run: all of them, or only the LL
 * band's (ll_only), whose statistics depend on the level count. */
static xsf_status count_run(bpc_trainer *t, const bpc_params *params, const xsf_picture *img,
                            int ll_only)
{
    bpc_layout lay;
    bpc_frontend fe;
    memset(&fe, 0, sizeof fe);
    xsf_status s = bpc_layout_init(&lay, params, &img->fmt, &t->err);
    if (!s)
        s = bpc_frontend_init(&fe, &lay, &t->err);
    if (!s)
        s = bpc_frontend_run(&fe, &lay, img, &t->err);
    if (!s)
        for (int v = 1; v <= 3; v++)
            for (size_t i = 0; i < lay.ncb; i++) {
                const bpc_cb_desc *d = &lay.cb[i];
                if (ll_only && d->band != 0)
                    continue;
                const size_t w = (size_t)lay.width[d->comp];
                bpc_codeblock_count((bpc_variant)v, lay.table_plane_offset,
                                    fe.q[d->comp] + (size_t)d->y0 * w + d->x0, w, (int)d->w,
                                    (int)d->h, t->picture + 2 * entry(v, (int)d->table_band, 0, 0));
            }
    bpc_frontend_free(&fe);
    bpc_layout_free(&lay);
    return s;
}

/* levels < 0 in the parameters: every level count, 0..6 (the bands of
 * level l are the same whatever the count; only the LL band differs). */
xsf_status bpc_trainer_add(bpc_trainer *t, const xsf_picture *img)
{
    xsf_error_clear(&t->err);
    memset(t->picture, 0, ENTRIES * 2 * sizeof *t->picture);
    xsf_status s;
    if (t->params.levels >= 0) {
        s = count_run(t, &t->params, img, 0);
    } else {
        bpc_params p = t->params;
        p.levels = BPC_MAX_LEVELS;
        s = count_run(t, &p, img, 0);
        for (int l = BPC_MAX_LEVELS - 1; l >= 0 && !s; l--) {
            p.levels = l;
            s = count_run(t, &p, img, 1);
        }
    }
    if (s)
        return s;
    for (size_t e = 0; e < ENTRIES; e++) {
        const uint64_t n0 = t->picture[2 * e], n1 = t->picture[2 * e + 1];
        t->counts[2 * e] += n0;
        t->counts[2 * e + 1] += n1;
        t->symbols += n0 + n1;
        if (n0 + n1 >= MIN_SYMBOLS) {
            t->psum[e] += ((double)n0 + 0.5) / ((double)(n0 + n1) + 1.0);
            t->pnum[e]++;
        }
    }
    t->pictures++;
    return XSF_OK;
}

static uint16_t to_p(double p)
{
    double v = p * 32768.0 + 0.5;
    if (v < P_MIN)
        v = P_MIN;
    if (v > P_MAX)
        v = P_MAX;
    return (uint16_t)v;
}

xsf_status bpc_trainer_finish(bpc_trainer *t, int average, bpc_tables **out)
{
    *out = NULL;
    bpc_tables *tb = malloc(sizeof *tb);
    if (!tb)
        return xsf_error_set(&t->err, XSF_ERR_NOMEM, "no memory for tables");
    bpc_tables_fill_default(tb);
    for (int v = 1; v <= 3; v++)
        for (int b = 0; b < BPC_TABLE_BANDS; b++)
            for (int k = 0; k < bpc_context_count((bpc_variant)v); k++) {
                /* trained planes first, then each untrained plane takes the
                 * nearest trained one of its band (the lower on a tie) */
                int trained[BPC_TABLE_PLANES], any = 0;
                for (int j = 0; j < BPC_TABLE_PLANES; j++) {
                    const size_t e = entry(v, b, j, k);
                    const uint64_t n0 = t->counts[2 * e], n = n0 + t->counts[2 * e + 1];
                    trained[j] = average ? t->pnum[e] > 0 : n >= MIN_SYMBOLS;
                    if (!trained[j])
                        continue;
                    any = 1;
                    tb->p[v - 1][b][j][k] = average ? to_p(t->psum[e] / t->pnum[e])
                                                    : to_p(((double)n0 + 0.5) / ((double)n + 1.0));
                }
                if (!any)
                    continue; /* the default model stays */
                for (int j = 0; j < BPC_TABLE_PLANES; j++) {
                    if (trained[j])
                        continue;
                    for (int dist = 1; dist < BPC_TABLE_PLANES; dist++) {
                        if (j - dist >= 0 && trained[j - dist]) {
                            tb->p[v - 1][b][j][k] = tb->p[v - 1][b][j - dist][k];
                            break;
                        }
                        if (j + dist < BPC_TABLE_PLANES && trained[j + dist]) {
                            tb->p[v - 1][b][j][k] = tb->p[v - 1][b][j + dist][k];
                            break;
                        }
                    }
                }
            }
    /* the id a table file of these values will have */
    uint8_t *file;
    size_t len;
    tb->id = 0;
    xsf_status s = bpc_tables_save(tb, &file, &len, &t->err);
    if (s) {
        free(tb);
        return s;
    }
    bpc_tables *check;
    s = bpc_tables_load(&check, file, len, &t->err);
    free(file);
    if (s) {
        free(tb);
        return s;
    }
    tb->id = check->id;
    bpc_tables_destroy(check);
    *out = tb;
    return XSF_OK;
}
