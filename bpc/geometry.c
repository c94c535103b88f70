/* Picture geometry of the codec: the bands of each component in the Mallat
 * layout of wavelet.h, their 64x64 code blocks in codestream order, and per
 * band the quantities the encoder derives from the filter: synthesis energy
 * gains (distortion weights and 9/7 steps), analysis L1 norms (the bitplane
 * bound that sizes every buffer). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"
#include "coder_rules.h"
#include "wavelet.h"

const uint8_t bpc_magic[BPC_MAGIC_BYTES] = {0x89, 'B', 'P', 'C', 0x0d, 0x0a, 0x1a, 0x0a};

int bpc_pass_count(bpc_variant variant, int planes)
{
    return bpc_passes_of((int)variant, planes);
}

int bpc_context_count(bpc_variant variant)
{
    return bpc_nctx((int)variant);
}

size_t bpc_codeblock_bound(int w, int h, int planes)
{
    /* symbols: one per coefficient and plane, one sign per coefficient; every
     * codeword but a coder's last holds >= 2 symbols (coder_rules.h). */
    const size_t symbols = (size_t)w * (size_t)h * (size_t)(planes + 1);
    return 2 * (symbols / 2 + BPC_CODERS) + 2;
}

void bpc_params_default(bpc_params *p)
{
    memset(p, 0, sizeof *p);
    p->variant = BPC_VARIANT_2PASS;
    p->filter = BPC_FILTER_53;
    p->levels = 5;
    p->colour = BPC_COLOUR_AUTO;
    p->qstep = 1.0f;
}

void bpc_params_set_bpp(bpc_params *p, double bpp, int width, int height)
{
    const double bytes = floor(bpp * (double)width * (double)height / 8.0);
    p->target_bytes = bytes > 0 ? (size_t)bytes : 0;
}

/* ---- one-dimensional gains ---- */

/* One level of the filter's lifting (wavelet.h: in place, interleaved) on
 * t[0, m), in the samples the codec transforms (int32 for the 5/3, float for
 * the 9/7), through `work` (m of them). */
static void lift_1d(bpc_filter f, int inverse, double *t, size_t m, void *work)
{
    const int is_float = f == BPC_FILTER_97;
    int32_t *iw = work;
    float *fw = work;
    for (size_t i = 0; i < m; i++) {
        if (is_float)
            fw[i] = (float)t[i];
        else
            iw[i] = (int32_t)t[i];
    }
    if (is_float)
        (inverse ? wav97_inverse_1d : wav97_forward_1d)(fw, m, 1);
    else
        (inverse ? wav53_inverse_1d : wav53_forward_1d)(iw, m, 1);
    for (size_t i = 0; i < m; i++)
        t[i] = is_float ? (double)fw[i] : (double)iw[i];
}

/* Multi-level 1D transform in the Mallat layout (low band first), built on
 * the one-level lifting (which interleaves): t and work hold n each. */
static void forward_1d(bpc_filter f, double *x, size_t n, int levels, double *t, void *work)
{
    for (int l = 1; l <= levels; l++) {
        const size_t m = wav_low_len(n, l - 1), lo = wav_low_len(n, l);
        memcpy(t, x, m * sizeof *t);
        lift_1d(f, 0, t, m, work);
        for (size_t i = 0; i < m; i++)
            x[(i & 1) ? lo + i / 2 : i / 2] = t[i];
    }
}

static void inverse_1d(bpc_filter f, double *x, size_t n, int levels, double *t, void *work)
{
    for (int l = levels; l >= 1; l--) {
        const size_t m = wav_low_len(n, l - 1), lo = wav_low_len(n, l);
        for (size_t i = 0; i < m; i++)
            t[i] = x[(i & 1) ? lo + i / 2 : i / 2];
        lift_1d(f, 1, t, m, work);
        memcpy(x, t, m * sizeof *x);
    }
}

/* Gain and L1 norm of the 1D band "low after l levels" (high = 0) or "high
 * of level l" (high = 1). The 5/3 is integer lifting: impulses of amplitude
 * 2^12 make its rounding negligible. */
static void band_1d(bpc_filter f, int l, int high, double *gain, double *l1)
{
    if (l == 0) {
        *gain = 1;
        *l1 = 1;
        return;
    }
    const size_t support = (size_t)8 << l, n = 2 * support + 64;
    const double amp = f == BPC_FILTER_53 ? 4096.0 : 1.0;
    double *x = malloc(n * sizeof *x);
    double *tmp = malloc(2 * n * sizeof *tmp); /* forward_1d's t and work */
    if (!x || !tmp) {
        free(x);
        free(tmp);
        *gain = 1;
        *l1 = 1;
        return;
    }
    const size_t lo = wav_low_len(n, l), start = high ? lo : 0;
    const size_t len = high ? wav_low_len(n, l - 1) - lo : lo;
    const size_t m = start + len / 2; /* the band's middle coefficient */
    const size_t centre = (len / 2) << l;

    memset(x, 0, n * sizeof *x);
    x[m] = amp;
    inverse_1d(f, x, n, l, tmp, tmp + n);
    double e = 0;
    for (size_t i = 0; i < n; i++)
        e += x[i] * x[i];
    *gain = e / (amp * amp);

    double s = 0;
    const size_t k0 = centre > support ? centre - support : 0;
    const size_t k1 = centre + support < n ? centre + support : n - 1;
    for (size_t k = k0; k <= k1; k++) {
        memset(x, 0, n * sizeof *x);
        x[k] = amp;
        forward_1d(f, x, n, l, tmp, tmp + n);
        s += fabs(x[m]);
    }
    *l1 = s / amp;
    free(x);
    free(tmp);
}

typedef struct gains_1d {
    double g_lo[BPC_MAX_LEVELS + 1], g_hi[BPC_MAX_LEVELS + 1];
    double n_lo[BPC_MAX_LEVELS + 1], n_hi[BPC_MAX_LEVELS + 1];
} gains_1d;

static void compute_gains_1d_uncached(bpc_filter filter, int levels, gains_1d *g)
{
    for (int l = 0; l <= levels; l++) {
        band_1d(filter, l, 0, &g->g_lo[l], &g->n_lo[l]);
        g->g_hi[l] = g->n_hi[l] = 1;
        if (l > 0)
            band_1d(filter, l, 1, &g->g_hi[l], &g->n_hi[l]);
    }
}

/* The gains depend on the filter and level count only, and take
 * milliseconds to compute: computed once per pair, for every thread. */
static pthread_mutex_t gains_lock = PTHREAD_MUTEX_INITIALIZER;
static gains_1d gains_cache[2][BPC_MAX_LEVELS + 1];
static int gains_ready[2][BPC_MAX_LEVELS + 1];

static void compute_gains_1d(bpc_filter filter, int levels, gains_1d *g)
{
    const int f = filter == BPC_FILTER_97;
    pthread_mutex_lock(&gains_lock);
    if (!gains_ready[f][levels]) {
        compute_gains_1d_uncached(filter, levels, &gains_cache[f][levels]);
        gains_ready[f][levels] = 1;
    }
    *g = gains_cache[f][levels];
    pthread_mutex_unlock(&gains_lock);
}

static void apply_gains(const gains_1d *g, bpc_component_layout *comp)
{
    for (int b = 0; b < comp->nbands; b++) {
        bpc_band *bd = &comp->band[b];
        const int l = bd->level;
        const double gx = (bd->orient & 1) ? g->g_hi[l] : g->g_lo[l];
        const double gy = (bd->orient & 2) ? g->g_hi[l] : g->g_lo[l];
        const double nx = (bd->orient & 1) ? g->n_hi[l] : g->n_lo[l];
        const double ny = (bd->orient & 2) ? g->n_hi[l] : g->n_lo[l];
        bd->gain = gx * gy;
        bd->l1 = nx * ny;
    }
}

void bpc_band_gains(bpc_filter filter, int levels, bpc_component_layout *comp)
{
    gains_1d g;
    compute_gains_1d(filter, levels, &g);
    apply_gains(&g, comp);
}

/* ---- layout ---- */

static void component_bands(bpc_component_layout *c, int levels)
{
    const size_t w = (size_t)c->width, h = (size_t)c->height;
    int nb = 0;
    bpc_band *b = &c->band[nb++];
    memset(b, 0, sizeof *b);
    b->level = levels;
    b->orient = BPC_ORIENT_LL;
    b->w = wav_low_len(w, levels);
    b->h = wav_low_len(h, levels);
    for (int l = levels; l >= 1; l--) {
        const size_t rw = wav_low_len(w, l - 1), rh = wav_low_len(h, l - 1);
        const size_t lw = wav_low_len(w, l), lh = wav_low_len(h, l);
        for (int o = 1; o <= 3; o++) {
            b = &c->band[nb++];
            memset(b, 0, sizeof *b);
            b->level = l;
            b->orient = o;
            b->x0 = (o & 1) ? lw : 0;
            b->y0 = (o & 2) ? lh : 0;
            b->w = (o & 1) ? rw - lw : lw;
            b->h = (o & 2) ? rh - lh : lh;
        }
    }
    c->nbands = nb;
    for (int i = 0; i < nb; i++) {
        b = &c->band[i];
        b->cbx = (b->w + BPC_CODEBLOCK - 1) / BPC_CODEBLOCK;
        b->cby = (b->h + BPC_CODEBLOCK - 1) / BPC_CODEBLOCK;
        if (!b->w || !b->h)
            b->cbx = b->cby = 0;
        b->step = 1.0f;
    }
}

static int bits_of(double v)
{
    int n = 0;
    while (v >= 1.0 && n < 64) {
        v /= 2;
        n++;
    }
    return n;
}

static xsf_status check_shape(bpc_layout *lay, const xsf_format *img, xsf_error *err)
{
    if (img->nc < 1 || img->nc > BPC_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "%d components: 1 to %d supported", img->nc,
                             BPC_MAX_COMPONENTS);
    size_t samples = 0;
    lay->nc = img->nc;
    for (int c = 0; c < img->nc; c++) {
        if (img->width[c] < 1 || img->height[c] < 1 ||
            (unsigned)img->width[c] > BPC_MAX_DIMENSION ||
            (unsigned)img->height[c] > BPC_MAX_DIMENSION)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d is %dx%d: sizes are 1..%u", c,
                                 img->width[c], img->height[c], BPC_MAX_DIMENSION);
        if (img->depth[c] < 1 || img->depth[c] > BPC_MAX_DEPTH)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d has depth %d: 1..%d supported", c,
                                 img->depth[c], BPC_MAX_DEPTH);
        samples += (size_t)img->width[c] * (size_t)img->height[c];
        lay->width[c] = img->width[c];
        lay->height[c] = img->height[c];
        lay->depth[c] = img->depth[c];
    }
    if (samples > BPC_MAX_SAMPLES)
        return xsf_error_set(err, XSF_ERR_ARG, "%zu samples: at most %zu supported", samples,
                             BPC_MAX_SAMPLES);
    return XSF_OK;
}

static int colour_possible(const bpc_layout *lay)
{
    return lay->nc >= 3 && lay->width[1] == lay->width[0] && lay->width[2] == lay->width[0] &&
           lay->height[1] == lay->height[0] && lay->height[2] == lay->height[0] &&
           lay->depth[1] == lay->depth[0] && lay->depth[2] == lay->depth[0];
}

/* The band quantities that depend on the filter, depth and colour: gains,
 * steps (9/7 only: Q 2^(depth-8) / sqrt(gain), which spreads the
 * quantization noise evenly over the bands), bitplane bounds. */
static xsf_status derive_bands(bpc_layout *lay, int compute_steps, xsf_error *err)
{
    gains_1d g;
    compute_gains_1d(lay->filter, lay->levels, &g);
    for (int c = 0; c < lay->nc; c++) {
        bpc_component_layout *cl = &lay->comp[c];
        apply_gains(&g, cl);
        const int ct = lay->colour != BPC_COLOUR_NONE && c < 3;
        double amp = ldexp(1.0, lay->depth[c] - 1);
        if (ct && lay->colour == BPC_COLOUR_RCT)
            amp *= 2; /* B - G and R - G span twice the range */
        cl->colour_gain = 1.0;
        if (ct && lay->colour == BPC_COLOUR_RCT)
            cl->colour_gain = c == 0 ? 3.0 : 11.0 / 16.0;
        else if (ct && lay->colour == BPC_COLOUR_ICT)
            cl->colour_gain = c == 0 ? 3.0 : (c == 1 ? 3.258402 : 2.475600);
        for (int b = 0; b < cl->nbands; b++) {
            bpc_band *bd = &cl->band[b];
            if (lay->filter == BPC_FILTER_97 && compute_steps)
                bd->step =
                    (float)((double)lay->qstep * ldexp(1.0, lay->depth[c] - 8) / sqrt(bd->gain));
            double bound = amp * bd->l1 * 1.0001 + 2.0 * lay->levels + 2.0;
            if (lay->filter == BPC_FILTER_97)
                bound = bound / (double)bd->step + 1.0;
            bd->planes_bound = bits_of(bound) + 1;
            if (bd->planes_bound > BPC_MAX_PLANES)
                bd->planes_bound = BPC_MAX_PLANES;
            if (compute_steps && bits_of(bound) + 1 > BPC_MAX_PLANES)
                return xsf_error_set(err, XSF_ERR_ARG,
                                     "component %d band %d may need %d bitplanes (at most %d): "
                                     "quantization step %g too small for depth %d",
                                     c, b, bits_of(bound) + 1, BPC_MAX_PLANES, (double)lay->qstep,
                                     lay->depth[c]);
        }
    }
    return XSF_OK;
}

xsf_status bpc_layout_build_codeblocks(bpc_layout *lay, xsf_error *err)
{
    size_t n = 0;
    for (int c = 0; c < lay->nc; c++) {
        bpc_component_layout *cl = &lay->comp[c];
        for (int b = 0; b < cl->nbands; b++) {
            cl->band[b].first_cb = n;
            n += cl->band[b].cbx * cl->band[b].cby;
        }
    }
    free(lay->cb);
    lay->cb = malloc((n ? n : 1) * sizeof *lay->cb);
    if (!lay->cb)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for %zu code blocks", n);
    lay->ncb = n;
    size_t i = 0;
    for (int c = 0; c < lay->nc; c++) {
        const bpc_component_layout *cl = &lay->comp[c];
        for (int b = 0; b < cl->nbands; b++) {
            const bpc_band *bd = &cl->band[b];
            for (size_t y = 0; y < bd->cby; y++)
                for (size_t x = 0; x < bd->cbx; x++) {
                    bpc_cb_desc *d = &lay->cb[i++];
                    d->comp = (uint32_t)c;
                    d->band = (uint32_t)b;
                    d->table_band = (uint32_t)(bd->level * 4 + bd->orient);
                    d->x0 = (uint32_t)(bd->x0 + x * BPC_CODEBLOCK);
                    d->y0 = (uint32_t)(bd->y0 + y * BPC_CODEBLOCK);
                    d->w = (uint32_t)(bd->w - x * BPC_CODEBLOCK < BPC_CODEBLOCK
                                          ? bd->w - x * BPC_CODEBLOCK
                                          : BPC_CODEBLOCK);
                    d->h = (uint32_t)(bd->h - y * BPC_CODEBLOCK < BPC_CODEBLOCK
                                          ? bd->h - y * BPC_CODEBLOCK
                                          : BPC_CODEBLOCK);
                }
        }
    }
    return XSF_OK;
}

/* Nearest power of two of the step, so that the tables see indices of the
 * same scale whatever the step: plane j of step Q is plane j + log2(Q) of
 * step 1. The 5/3 keeps the samples' scale: its planes move by 8 - depth. */
static int plane_offset_for(const bpc_layout *lay)
{
    if (lay->filter == BPC_FILTER_53)
        return 8 - lay->depth[0];
    int e;
    const double m = frexp((double)lay->qstep, &e); /* qstep = m 2^e, m in [0.5, 1) */
    return m < 0.7071067811865476 ? e - 1 : e;
}

xsf_status bpc_layout_init(bpc_layout *lay, const bpc_params *params, const xsf_format *shape,
                           xsf_error *err)
{
    memset(lay, 0, sizeof *lay);
    xsf_status s = check_shape(lay, shape, err);
    if (s)
        return s;
    if (params->variant < BPC_VARIANT_1PASS || params->variant > BPC_VARIANT_3PASS)
        return xsf_error_set(err, XSF_ERR_ARG, "variant %d: 1, 2 or 3 passes",
                             (int)params->variant);
    if (params->filter != BPC_FILTER_53 && params->filter != BPC_FILTER_97)
        return xsf_error_set(err, XSF_ERR_ARG, "filter %d: 0 (5/3) or 1 (9/7)",
                             (int)params->filter);
    if (params->levels < 0 || params->levels > BPC_MAX_LEVELS)
        return xsf_error_set(err, XSF_ERR_ARG, "%d levels: 0..%d", params->levels, BPC_MAX_LEVELS);
    if (params->filter == BPC_FILTER_97 &&
        !(params->qstep >= 1.0f / 4096 && params->qstep <= 65536.0f))
        return xsf_error_set(err, XSF_ERR_ARG, "quantization step %g: 1/4096..65536",
                             (double)params->qstep);
    lay->variant = params->variant;
    lay->filter = params->filter;
    lay->levels = params->levels;
    lay->qstep = params->filter == BPC_FILTER_97 ? params->qstep : 1.0f;
    switch (params->colour) {
    case BPC_COLOUR_AUTO:
        lay->colour = !colour_possible(lay)
                          ? BPC_COLOUR_NONE
                          : (params->filter == BPC_FILTER_53 ? BPC_COLOUR_RCT : BPC_COLOUR_ICT);
        break;
    case BPC_COLOUR_NONE: lay->colour = BPC_COLOUR_NONE; break;
    case BPC_COLOUR_RCT:
    case BPC_COLOUR_ICT:
        if (!colour_possible(lay))
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "a colour transform needs 3 components of one size and depth");
        if ((params->colour == BPC_COLOUR_RCT) != (params->filter == BPC_FILTER_53))
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "the RCT goes with the 5/3, the ICT with the 9/7");
        lay->colour = params->colour;
        break;
    default:
        return xsf_error_set(err, XSF_ERR_ARG, "colour transform %d unknown", (int)params->colour);
    }
    const bpc_tables *t = params->tables ? params->tables : bpc_tables_builtin(params->filter);
    lay->tables_id = bpc_tables_id(t);
    bpc_layout_bands_from_header(lay);
    lay->table_plane_offset = plane_offset_for(lay);
    if ((s = derive_bands(lay, 1, err)))
        return s;
    lay->header_bytes = bpc_header_size(lay->nc, lay->levels);
    return bpc_layout_build_codeblocks(lay, err);
}

void bpc_layout_wavelet(const bpc_layout *lay, int c, size_t planes, wav_plan_desc *d)
{
    memset(d, 0, sizeof *d);
    d->width = (size_t)lay->width[c];
    d->height = (size_t)lay->height[c];
    d->pitch = d->width;
    d->planes = planes;
    d->plane_stride = d->width * d->height; /* unused with one plane */
    d->filter = lay->filter == BPC_FILTER_53 ? WAV_FILTER_53 : WAV_FILTER_97;
    d->sample = lay->filter == BPC_FILTER_53 ? WAV_INT32 : WAV_FLOAT32;
    d->levels_v = d->levels_h = lay->levels;
}

/* Bands from the components' sizes (the decoder's steps come from the header). */
void bpc_layout_bands_from_header(bpc_layout *lay)
{
    for (int c = 0; c < lay->nc; c++) {
        lay->comp[c].width = lay->width[c];
        lay->comp[c].height = lay->height[c];
        lay->comp[c].depth = lay->depth[c];
        component_bands(&lay->comp[c], lay->levels);
    }
}

/* Bitplane bounds for the decoder, with the header's steps. */
void bpc_layout_bounds_from_header(bpc_layout *lay)
{
    (void)derive_bands(lay, 0, NULL);
}

void bpc_layout_free(bpc_layout *lay)
{
    free(lay->cb);
    lay->cb = NULL;
    lay->ncb = 0;
}
