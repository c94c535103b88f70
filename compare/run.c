/* One variant at one rate through the codec table (xsf_codec.h), the same
 * for every codec: settings from the variant, encode, decode with the C
 * decoder (the reference picture), on the GPU check the GPU decoder against
 * it, then time encode and decode.
 *
 * A variant with a step knob (BPC-PaCo's 9/7 qstep) searches it at each
 * target rate. Truncation can only drop coding passes, so a step that is too
 * coarse caps the quality below what the rate could buy (at step 1, in 8-bit
 * units, a UHD 4:4:4 photograph stops near 3.7 bpp); a step that is too fine
 * makes the encoder code bitplanes only to drop them. As Bruns does for his
 * JPEG 2000 coders (thesis 11.1), each rate takes the coarsest step that
 * does not cap it: 1, halved while the codestream stays below 99.5% of the
 * target (down to 1/64; the rate control lands within 0.1% of the target
 * when the step does not cap it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "xsf_codecs.h"

#define STEP_MIN (1.0 / 64)
#define RATE_REACHED 0.995

/* Everything a job's codec run holds. */
typedef struct cmp_run_state {
    cmp_job *job;
    const xsf_codec *codec;
    char name[32]; /* "JPEG XS": the codec's long name up to its parenthesis */
    xsf_encode_settings settings;
    char knobs[256];
    int gpu;
    void *enc, *dec;
    xsf_codec_frame frame;
    uint8_t *cs, *cs_device; /* cs: malloc'd (CPU) or pinned (GPU) */
    size_t cap, len;
    xsf_picture scratch; /* CPU: the timed decoder's picture; GPU: pinned, the GPU decoder's */
    xsf_error err;       /* of the timed calls */
} cmp_run_state;

static void short_name(const xsf_codec *codec, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*s", (int)strcspn(codec->long_name, "("), codec->long_name);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == ' ')
        buf[--n] = '\0';
}

static int refuse(cmp_job *job, const char *why)
{
    job->refused = 1;
    snprintf(job->note, sizeof job->note, "%s", why);
    return 1;
}

/* Components 0..2 share their size and depth. */
static int same_shape(const xsf_format *f)
{
    if (f->nc < 3)
        return 0;
    for (int c = 1; c < 3; c++)
        if (f->width[c] != f->width[0] || f->height[c] != f->height[0] ||
            f->depth[c] != f->depth[0])
            return 0;
    return 1;
}

/* The settings of the variant and rate: the first knobs the codec takes. */
static void make_settings(cmp_run_state *r, double step)
{
    const cmp_variant_spec *v = cmp_variant_spec_of(r->job->variant);
    const xsf_format *f = &r->job->src->host.fmt;
    xsf_encode_settings *s = &r->settings;
    xsf_encode_settings_init(s);
    s->format = *f;
    s->rgb = r->job->src->rgb;
    s->colour_transform = r->job->src->rgb && same_shape(f);
    if (r->job->bpp > 0)
        s->bpp = r->job->bpp;
    else
        s->lossless = 1;
    s->options = r->knobs;
    for (int i = 0; i < 4 && v->knobs[i]; i++) {
        int n = snprintf(r->knobs, sizeof r->knobs, "%s", v->knobs[i]);
        if (r->job->bpp > 0 && v->lossy)
            n += snprintf(r->knobs + n, sizeof r->knobs - (size_t)n, " %s", v->lossy);
        if (r->job->bpp > 0 && v->step)
            n += snprintf(r->knobs + n, sizeof r->knobs - (size_t)n, " %s=%.17g", v->step, step);
        if (r->job->tune && !strcmp(v->codec, "xs"))
            snprintf(r->knobs + n, sizeof r->knobs - (size_t)n, " tune=visual");
        xsf_error err;
        xsf_error_clear(&err);
        if (i == 3 || !v->knobs[i + 1] || r->codec->encoder->check(s, &err) == XSF_OK)
            break;
    }
}

static void release_encoder(cmp_run_state *r)
{
    if (r->enc)
        r->codec->encoder->destroy(r->enc);
    r->enc = NULL;
    if (r->gpu)
        cmp_gpu_host_free(r->cs);
    else
        free(r->cs);
    r->cs = NULL;
}

/* Makes the encoder and codes the picture once (GPU: from pinned memory).
 * XSF_ERR_ARG or XSF_ERR_UNSUPPORTED: the codec refuses (err says why). */
static xsf_status encode_once(cmp_run_state *r, xsf_error *err)
{
    release_encoder(r);
    const xsf_encoder_ops *e = r->codec->encoder;
    xsf_status st = e->create(&r->enc, &r->settings, r->gpu ? 0 : -1, NULL, err);
    if (st != XSF_OK)
        return st;
    r->cap = e->max_bytes(r->enc);
    r->cs = r->gpu ? cmp_gpu_host_alloc(r->cap) : malloc(r->cap ? r->cap : 1);
    if (!r->cs)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a codestream of %zu bytes", r->cap);
    const xsf_picture *in = r->gpu ? &r->job->src->pinned : &r->job->src->host;
    return e->encode(r->enc, in, r->cs, r->cap, &r->len, err);
}

/* Codes the picture: once, or for a step knob at a rate, with the step the
 * search settles on (job->qstep). */
static xsf_status code(cmp_run_state *r, xsf_error *err)
{
    cmp_job *job = r->job;
    const cmp_variant_spec *v = cmp_variant_spec_of(job->variant);
    if (!(job->bpp > 0 && v->step)) {
        make_settings(r, 0);
        return encode_once(r, err);
    }
    const xsf_format *f = &job->src->host.fmt;
    const double target = floor(job->bpp * (double)f->width[0] * (double)f->height[0] / 8.0);
    double q = job->qstep_hint > 0 ? job->qstep_hint : 1.0;
    xsf_status st;
    for (;;) {
        make_settings(r, q);
        xsf_error_clear(err);
        st = encode_once(r, err);
        if (st == XSF_ERR_ARG && q < 1.0) { /* too fine for this depth: keep the last step */
            q *= 2;
            make_settings(r, q);
            xsf_error_clear(err);
            st = encode_once(r, err);
            break;
        }
        if (st || (double)r->len >= RATE_REACHED * target || q <= STEP_MIN)
            break;
        q /= 2;
    }
    job->qstep = q;
    return st;
}

/* The C decoder's picture of the codestream: job->decoded. */
static xsf_status decode_reference(cmp_run_state *r)
{
    cmp_job *job = r->job;
    xsf_status st = r->codec->parse_header(r->cs, r->len, &r->frame, &job->err);
    void *dec = NULL;
    if (st == XSF_OK) {
        xsf_picture_init(&job->decoded);
        job->decoded.fmt = r->frame.format;
        st = xsf_picture_alloc(&job->decoded, NULL, &job->err);
    }
    if (st == XSF_OK && (st = r->codec->cpu_create(&dec, &job->err)) == XSF_OK)
        st = r->codec->cpu_decode(dec, &r->frame, NULL, r->cs, r->len, &job->decoded, &job->err);
    if (dec)
        r->codec->cpu_destroy(dec);
    if (st != XSF_OK) {
        xsf_error e = job->err;
        xsf_error_clear(&job->err);
        xsf_error_set(&job->err, st, "%s C decoder: %s", r->name, e.msg);
    }
    return st;
}

/* ---- timed calls ---- */

static xsf_status cpu_encode(void *ctx)
{
    cmp_run_state *r = ctx;
    size_t len;
    xsf_error_clear(&r->err);
    return r->codec->encoder->encode(r->enc, &r->job->src->host, r->cs, r->cap, &len, &r->err);
}

static xsf_status cpu_decode(void *ctx)
{
    cmp_run_state *r = ctx;
    xsf_error_clear(&r->err);
    return r->codec->cpu_decode(r->dec, &r->frame, NULL, r->cs, r->len, &r->scratch, &r->err);
}

/* Kernels: the picture in device memory, the codestream left where the encoder makes it. */
static xsf_status gpu_encode_kernels(void *ctx)
{
    cmp_run_state *r = ctx;
    size_t len;
    xsf_error_clear(&r->err);
    return r->codec->encoder->encode(r->enc, &r->job->src->device, NULL, 0, &len, &r->err);
}

static xsf_status gpu_encode_transfers(void *ctx)
{
    cmp_run_state *r = ctx;
    xsf_error_clear(&r->err);
    return r->codec->encoder->encode(r->enc, &r->job->src->pinned, r->cs, r->cap, &r->len, &r->err);
}

/* Kernels: the codestream in device memory where the decoder takes it from
 * there, the picture left in the decoder's device planes. */
static xsf_status gpu_decode_kernels(void *ctx)
{
    cmp_run_state *r = ctx;
    const xsf_codec *c = r->codec;
    xsf_error_clear(&r->err);
    xsf_status st = c->gpu_decode_device
                        ? c->gpu_decode_device(r->dec, &r->frame, NULL, r->cs, r->cs_device, r->len,
                                               NULL, &r->err)
                        : c->gpu_decode(r->dec, &r->frame, NULL, r->cs, r->len, NULL, &r->err);
    return st != XSF_OK ? st : c->gpu_sync(r->dec, &r->err);
}

/* Transfers: the codestream from pinned memory, the picture to pinned memory. */
static xsf_status gpu_decode_transfers(void *ctx)
{
    cmp_run_state *r = ctx;
    const xsf_codec *c = r->codec;
    const xsf_format *f = &r->scratch.fmt;
    int from[XSF_MAX_COMPONENTS] = {0}, to[XSF_MAX_COMPONENTS] = {0};
    for (int i = 0; i < f->nc; i++)
        to[i] = f->height[i];
    xsf_error_clear(&r->err);
    xsf_status st = c->gpu_decode(r->dec, &r->frame, NULL, r->cs, r->len, NULL, &r->err);
    if (st == XSF_OK)
        st = c->gpu_download_rows(r->dec, &r->scratch, from, to, &r->err);
    return st != XSF_OK ? st : c->gpu_sync(r->dec, &r->err);
}

/* ---- the paths ---- */

static xsf_status run_cpu(cmp_run_state *r)
{
    cmp_job *job = r->job;
    xsf_status st = r->codec->cpu_create(&r->dec, &job->err);
    if (st == XSF_OK) {
        xsf_picture_init(&r->scratch);
        r->scratch.fmt = r->frame.format;
        st = xsf_picture_alloc(&r->scratch, NULL, &job->err);
    }
    if (st != XSF_OK)
        return st;
    job->checked = 1;
    st = cmp_time_median(cpu_encode, r, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
    if (!st)
        st = cmp_time_median(cpu_decode, r, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
    if (st)
        xsf_error_set(&job->err, st, "%s C codec while timing: %s", r->name, r->err.msg);
    return st;
}

/* The GPU decoder's picture against the C decoder's. */
static xsf_status check_gpu(cmp_run_state *r)
{
    cmp_job *job = r->job;
    const xsf_format *f = &r->frame.format;
    const size_t bytes = xsf_format_bytes(f);
    uint8_t *pinned = cmp_gpu_host_alloc(bytes), *data[XSF_MAX_COMPONENTS];
    size_t stride[XSF_MAX_COMPONENTS], off = 0;
    if (!pinned)
        return xsf_error_set(&job->err, XSF_ERR_NOMEM, "no pinned memory for the picture");
    for (int c = 0; c < f->nc; c++) {
        data[c] = pinned + off;
        stride[c] = xsf_format_row_bytes(f, c);
        off += xsf_format_plane_bytes(f, c);
    }
    xsf_picture_wrap(&r->scratch, f, data, stride, XSF_MEMORY_PINNED, -1);
    xsf_status st = gpu_decode_transfers(r);
    if (st != XSF_OK)
        return xsf_error_set(&job->err, st, "%s GPU decoder: %s", r->name, r->err.msg);
    if (!cmp_pictures_equal(&r->scratch, &job->decoded))
        return xsf_error_set(&job->err, XSF_ERR_INVALID,
                             "MISMATCH: the %s GPU decoder's picture differs from the C reference "
                             "decoder's (%zu-byte codestream)",
                             r->name, r->len);
    job->checked = 1;
    return XSF_OK;
}

static xsf_status run_gpu(cmp_run_state *r)
{
    cmp_job *job = r->job;
    xsf_status st = r->codec->gpu_create(&r->dec, 0, NULL, &job->err);
    if (st != XSF_OK || (st = check_gpu(r)) != XSF_OK)
        return st;
    if (!(r->cs_device = cmp_gpu_device_alloc(r->len)) ||
        cmp_gpu_upload(r->cs_device, r->cs, r->len))
        return xsf_error_set(&job->err, XSF_ERR_CUDA, "no device memory for the codestream");
    /* The first timed call of each kind warms its path up (the median
     * takes care of the rest). */
    st = cmp_time_median(gpu_encode_kernels, r, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
    if (!st)
        st = cmp_time_median(gpu_encode_transfers, r, job->time_ms, &job->enc_s[1],
                             &job->enc_runs[1]);
    if (st)
        return xsf_error_set(&job->err, st, "%s GPU encoder while timing: %s", r->name, r->err.msg);
    st = cmp_time_median(gpu_decode_kernels, r, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
    if (!st)
        st = cmp_time_median(gpu_decode_transfers, r, job->time_ms, &job->dec_s[1],
                             &job->dec_runs[1]);
    if (st)
        xsf_error_set(&job->err, st, "%s GPU decoder while timing: %s", r->name, r->err.msg);
    return st;
}

static void release(cmp_run_state *r)
{
    release_encoder(r);
    if (r->dec)
        (r->gpu ? r->codec->gpu_destroy : r->codec->cpu_destroy)(r->dec);
    if (r->gpu)
        cmp_gpu_host_free(r->scratch.data[0]);
    else
        xsf_picture_unref(&r->scratch);
    cmp_gpu_device_free(r->cs_device);
}

xsf_status cmp_run(cmp_job *job)
{
    cmp_run_state r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.gpu = job->path == CMP_PATH_GPU;
    r.codec = xsf_codec_find(cmp_variant_codec(job->variant));
    if (!r.codec || !r.codec->encoder)
        return xsf_error_set(&job->err, XSF_ERR_UNSUPPORTED, "no encoder for %s",
                             cmp_variant_codec(job->variant));
    short_name(r.codec, r.name, sizeof r.name);
    xsf_error err;
    xsf_error_clear(&err);
    xsf_status st = code(&r, &err);
    xsf_encode_info info;
    r.codec->encoder->describe(&r.settings, &info);
    snprintf(job->filter, sizeof job->filter, "%s", info.transform);
    job->levels_h = info.levels_h;
    job->levels_v = info.levels_v;
    job->colour = info.colour;
    if (st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED) {
        refuse(job, err.msg);
        st = XSF_OK;
    } else if (st != XSF_OK) {
        xsf_error_set(&job->err, st, "%s %s encoder: %s", r.name, r.gpu ? "GPU" : "C", err.msg);
    } else {
        job->bytes = r.len;
        st = decode_reference(&r);
        if (st == XSF_OK)
            st = r.gpu ? run_gpu(&r) : run_cpu(&r);
    }
    release(&r);
    return st;
}
