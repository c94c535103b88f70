/* BPC-PaCo in xsflow compare: 9/7 with rate control by truncation for the
 * lossy rates, 5/3 with every pass kept for lossless; code, decode with the
 * C reference, check the GPU decoder against it, time.
 *
 * The 9/7 quantization step. Truncation can only drop coding passes, so a
 * step that is too coarse caps the quality below what the rate could buy
 * (at step 1, in 8-bit units, a UHD 4:4:4 photograph stops near 3.7 bpp);
 * a step that is too fine makes the encoder code bitplanes only to drop
 * them. As Bruns does for his JPEG 2000 coders (thesis 11.1), each rate
 * takes the coarsest step that does not cap it: 1, halved while the
 * codestream stays below 99.5% of the target (down to 1/64; the rate
 * control lands within 0.1% of the target when the step does not cap it). */
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "compare_internal.h"

#define QSTEP_MIN (1.0 / 64)
#define RATE_REACHED 0.995

typedef struct bpc_timed {
    bpc_params params;
    bpc_encoder *enc;
    bpc_decoder *dec;
    bpc_gpu_encoder *genc;
    bpc_gpu_decoder *gdec;
    const xsf_picture *in_host, *in_pinned, *in_device; /* the session's (cmp_source) */
    uint8_t *cs;
    size_t cap, len;
    int gpu;
} bpc_timed;

static void release_encoders(bpc_timed *t)
{
    bpc_encoder_destroy(t->enc);
    bpc_gpu_encoder_destroy(t->genc);
    t->enc = NULL;
    t->genc = NULL;
    if (t->gpu)
        cmp_gpu_host_free(t->cs);
    else
        free(t->cs);
    t->cs = NULL;
}

/* Creates the encoder for t->params and codes the picture once (GPU: from
 * pinned memory). Returns XSF_ERR_ARG when the parameters cannot code it. */
static xsf_status encode_once(bpc_timed *t, cmp_job *job)
{
    release_encoders(t);
    t->cap = bpc_encode_bound(&t->params, &t->in_host->fmt);
    if (!t->cap)
        return xsf_error_set(&job->err, XSF_ERR_ARG,
                             "BPC-PaCo cannot code this picture with these parameters");
    t->cs = t->gpu ? cmp_gpu_host_alloc(t->cap) : malloc(t->cap);
    if (!t->cs)
        return xsf_error_set(&job->err, XSF_ERR_NOMEM, "no memory for a codestream of %zu bytes",
                             t->cap);
    xsf_status st;
    if (t->gpu) {
        st = bpc_gpu_encoder_create(&t->genc, &t->params, &t->in_host->fmt, NULL);
        if (st)
            return xsf_error_set(&job->err, st, "BPC-PaCo GPU encoder: %s",
                                 t->genc ? bpc_gpu_encoder_error(t->genc) : xsf_status_name(st));
        st = bpc_gpu_encode(t->genc, t->in_pinned, t->cs, t->cap, &t->len);
        if (st)
            return xsf_error_set(&job->err, st, "BPC-PaCo GPU encoder: %s",
                                 bpc_gpu_encoder_error(t->genc));
    } else {
        if ((st = bpc_encoder_create(&t->enc, &t->params)))
            return xsf_error_set(&job->err, st, "BPC-PaCo C encoder: %s", xsf_status_name(st));
        if ((st = bpc_encode(t->enc, t->in_host, t->cs, t->cap, &t->len)))
            return xsf_error_set(&job->err, st, "BPC-PaCo C encoder: %s",
                                 bpc_encoder_error(t->enc));
    }
    return XSF_OK;
}

static xsf_status cpu_encode(void *ctx)
{
    bpc_timed *t = ctx;
    return bpc_encode(t->enc, t->in_host, t->cs, t->cap, &t->len);
}

static xsf_status cpu_decode(void *ctx)
{
    bpc_timed *t = ctx;
    size_t used;
    const xsf_picture *img;
    return bpc_decode(t->dec, t->cs, t->len, &used, &img);
}

/* The codestream comes back to host memory in both GPU encode timings (the
 * API returns it there; a few MB at most), the picture does not in the
 * kernels timing. */
static xsf_status gpu_encode_kernels(void *ctx)
{
    bpc_timed *t = ctx;
    return bpc_gpu_encode(t->genc, t->in_device, t->cs, t->cap, &t->len);
}

static xsf_status gpu_encode_transfers(void *ctx)
{
    bpc_timed *t = ctx;
    return bpc_gpu_encode(t->genc, t->in_pinned, t->cs, t->cap, &t->len);
}

static xsf_status gpu_decode_kernels(void *ctx)
{
    bpc_timed *t = ctx;
    size_t used;
    const xsf_picture *img;
    return bpc_gpu_decode(t->gdec, t->cs, t->len, 1, &used, &img);
}

static xsf_status gpu_decode_transfers(void *ctx)
{
    bpc_timed *t = ctx;
    size_t used;
    const xsf_picture *img;
    return bpc_gpu_decode(t->gdec, t->cs, t->len, 0, &used, &img);
}

xsf_status cmp_run_bpc(cmp_job *job)
{
    const cmp_source *src = job->src;
    const xsf_format *p = &src->host.fmt;
    bpc_timed t;
    memset(&t, 0, sizeof t);
    t.gpu = job->path == CMP_PATH_GPU;
    bpc_params_default(&t.params);
    t.params.variant = job->variant == CMP_BPC_1PASS   ? BPC_VARIANT_1PASS
                       : job->variant == CMP_BPC_3PASS ? BPC_VARIANT_3PASS
                                                       : BPC_VARIANT_2PASS;
    const int same = p->nc >= 3 && p->width[1] == p->width[0] && p->width[2] == p->width[0] &&
                     p->height[1] == p->height[0] && p->height[2] == p->height[0] &&
                     p->depth[1] == p->depth[0] && p->depth[2] == p->depth[0];
    t.params.colour = src->rgb && same ? BPC_COLOUR_AUTO : BPC_COLOUR_NONE;
    t.params.filter = job->bpp > 0 ? BPC_FILTER_97 : BPC_FILTER_53;
    snprintf(job->filter, sizeof job->filter, "%s", job->bpp > 0 ? "9/7" : "5/3");
    job->levels_h = job->levels_v = t.params.levels;
    job->colour = t.params.colour == BPC_COLOUR_NONE ? "none" : (job->bpp > 0 ? "ICT" : "RCT");
    if (p->nc > BPC_MAX_COMPONENTS) {
        job->refused = 1;
        snprintf(job->note, sizeof job->note, "BPC-PaCo codes at most %d components",
                 BPC_MAX_COMPONENTS);
        return XSF_OK;
    }
    t.in_host = &src->host;
    t.in_pinned = &src->pinned;
    t.in_device = &src->device;

    xsf_status st;
    if (job->bpp > 0) {
        double q = job->qstep_hint > 0 ? job->qstep_hint : 1.0;
        bpc_params_set_bpp(&t.params, job->bpp, p->width[0], p->height[0]);
        for (;;) {
            t.params.qstep = (float)q;
            xsf_error_clear(&job->err);
            st = encode_once(&t, job);
            if (st == XSF_ERR_ARG && q < 1.0) { /* too fine for this depth: keep the last step */
                q *= 2;
                t.params.qstep = (float)q;
                xsf_error_clear(&job->err);
                st = encode_once(&t, job);
                break;
            }
            if (st || (double)t.len >= RATE_REACHED * (double)t.params.target_bytes ||
                q <= QSTEP_MIN)
                break;
            q /= 2;
        }
        job->qstep = q;
    } else {
        st = encode_once(&t, job);
    }
    if (st) {
        if (st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED) {
            job->refused = 1;
            snprintf(job->note, sizeof job->note, "%s", job->err.msg);
            xsf_error_clear(&job->err);
            st = XSF_OK;
        }
        goto done;
    }
    job->bytes = t.len;

    /* The C reference decoder's picture. */
    if ((st = bpc_decoder_create(&t.dec))) {
        xsf_error_set(&job->err, st, "cannot create the BPC-PaCo C decoder");
        goto done;
    }
    size_t used;
    const xsf_picture *img;
    if ((st = bpc_decode(t.dec, t.cs, t.len, &used, &img))) {
        xsf_error_set(&job->err, st, "BPC-PaCo C decoder: %s", bpc_decoder_error(t.dec));
        goto done;
    }
    if ((st = cmp_picture_copy(&job->decoded, img, &job->err)))
        goto done;

    if (!t.gpu) {
        job->checked = 1;
        st = cmp_time_median(cpu_encode, &t, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
        if (!st)
            st = cmp_time_median(cpu_decode, &t, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
        if (st)
            xsf_error_set(&job->err, st, "BPC-PaCo C codec while timing: %s / %s",
                          bpc_encoder_error(t.enc), bpc_decoder_error(t.dec));
        goto done;
    }

    if ((st = bpc_gpu_decoder_create(&t.gdec, NULL))) {
        xsf_error_set(&job->err, st, "cannot create the BPC-PaCo GPU decoder");
        goto done;
    }
    if ((st = bpc_gpu_decode(t.gdec, t.cs, t.len, 0, &used, &img))) {
        xsf_error_set(&job->err, st, "BPC-PaCo GPU decoder: %s", bpc_gpu_decoder_error(t.gdec));
        goto done;
    }
    if (!cmp_pictures_equal(img, &job->decoded)) {
        st = xsf_error_set(
            &job->err, XSF_ERR_INVALID,
            "MISMATCH: the BPC-PaCo GPU decoder's picture differs from the C reference "
            "decoder's (%zu-byte codestream)",
            t.len);
        goto done;
    }
    job->checked = 1;
    st = cmp_time_median(gpu_encode_kernels, &t, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
    if (!st)
        st = cmp_time_median(gpu_encode_transfers, &t, job->time_ms, &job->enc_s[1],
                             &job->enc_runs[1]);
    if (st) {
        xsf_error_set(&job->err, st, "BPC-PaCo GPU encoder while timing: %s",
                      bpc_gpu_encoder_error(t.genc));
        goto done;
    }
    st = cmp_time_median(gpu_decode_kernels, &t, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
    if (!st)
        st = cmp_time_median(gpu_decode_transfers, &t, job->time_ms, &job->dec_s[1],
                             &job->dec_runs[1]);
    if (st)
        xsf_error_set(&job->err, st, "BPC-PaCo GPU decoder while timing: %s",
                      bpc_gpu_decoder_error(t.gdec));
done:
    release_encoders(&t);
    bpc_decoder_destroy(t.dec);
    bpc_gpu_decoder_destroy(t.gdec);
    return st;
}
