/* JPEG XS in xsflow compare: configure the encoder for a variant, code,
 * decode with the C reference, check the GPU decoder against it, time. */
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "xs.h"

static int refuse(cmp_job *job, const char *why)
{
    job->refused = 1;
    snprintf(job->note, sizeof job->note, "%s", why);
    return 1;
}

/* The encoder settings of a variant, or 1 (job refused) when XS cannot
 * take the picture. */
static int make_config(cmp_job *job, xs_encoder_config *cfg)
{
    const xsf_format *p = &job->src->host.fmt;
    xs_encoder_config_init(cfg);
    if (p->nc > XS_MAX_COMPONENTS)
        return refuse(job, "more components than JPEG XS codes");
    cfg->width = p->width[0];
    cfg->height = p->height[0];
    cfg->nc = p->nc;
    int same = 1;
    for (int c = 0; c < p->nc; c++) {
        if (p->depth[c] < 8)
            return refuse(job, "JPEG XS codes 8..16-bit samples");
        cfg->depth[c] = p->depth[c];
        cfg->sx[c] = p->width[0] / p->width[c];
        cfg->sy[c] = p->height[0] / p->height[c];
        if ((cfg->sx[c] != 1 && cfg->sx[c] != 2) || (cfg->sy[c] != 1 && cfg->sy[c] != 2) ||
            (p->width[0] + cfg->sx[c] - 1) / cfg->sx[c] != p->width[c] ||
            (p->height[0] + cfg->sy[c] - 1) / cfg->sy[c] != p->height[c])
            return refuse(job, "component sizes JPEG XS cannot sample");
        same &= c > 2 || (cfg->sx[c] == 1 && cfg->sy[c] == 1 && p->depth[c] == p->depth[0]);
    }
    cfg->cpih = job->src->rgb && p->nc >= 3 && same;
    if (job->bpp > 0)
        cfg->bpp = job->bpp;
    else
        cfg->lossless = 1;
    if (job->variant == CMP_XS_QUALITY) {
        /* Tuned for PSNR, measured with this command on the 1080p 4:4:4
         * 12-bit and 4:2:2 10-bit photographs of vectors/xs at 0.5..8 bpp
         * (COMPARISON.md): slices of 32 precinct rows (128 lines at NLy=2)
         * instead of 4, so a precinct may spend what the ones above it in
         * its slice left (+0.2..0.7 dB), and 8 horizontal levels instead of
         * 5 (+0.05..0.1 dB); together +0.3..0.9 dB below 6 bpp. Left out:
         * the uniform quantizer (+0.3..0.5 dB below 3 bpp but -0.7..1.3 dB at
         * 6..8 bpp) and run mode 1 (no gain). The slices stay many enough
         * for the GPU encoder, which decides slices in parallel. */
        cfg->slice_lines = 32 << cfg->nly;
        xs_header hdr;
        xsf_error e;
        for (cfg->nlx = 8; cfg->nlx > 5; cfg->nlx--) {
            xsf_error_clear(&e);
            if (xs_encoder_config_header(cfg, &hdr, &e) == XSF_OK)
                break;
        }
    }
    return 0;
}

/* ---- timed calls ---- */

typedef struct xs_timed {
    xs_encoder *enc;
    xs_decoder *dec;
    xs_gpu_encoder *genc;
    xs_gpu_decoder *gdec;
    const xsf_picture *in_host, *in_pinned, *in_device; /* the session's (cmp_source) */
    uint8_t *cs, *cs_pinned, *cs_device;
    size_t cap, len;
    uint16_t *out_pinned[XS_MAX_COMPONENTS];
} xs_timed;

static xsf_status cpu_encode(void *ctx)
{
    xs_timed *t = ctx;
    size_t len;
    return xs_encode(t->enc, t->in_host, t->cs, t->cap, &len);
}

static xsf_status cpu_decode(void *ctx)
{
    xs_timed *t = ctx;
    size_t used;
    const xsf_picture *img;
    return xs_decode(t->dec, t->cs, t->len, &used, &img);
}

static xsf_status gpu_encode_transfers(void *ctx)
{
    xs_timed *t = ctx;
    xsf_status st = xs_gpu_encode(t->genc, t->in_pinned);
    return st ? st : xs_gpu_encoder_download(t->genc, t->cs_pinned, t->cap, &t->len, 1);
}

static xsf_status gpu_encode_kernels(void *ctx)
{
    xs_timed *t = ctx;
    xsf_status st = xs_gpu_encode(t->genc, t->in_device);
    return st ? st : xs_gpu_encoder_sync(t->genc);
}

static xsf_status gpu_decode_transfers(void *ctx)
{
    xs_timed *t = ctx;
    size_t used;
    xsf_status st = xs_gpu_decode(t->gdec, t->cs_pinned, t->len, &used);
    if (!st)
        st = xs_gpu_download(t->gdec, t->out_pinned, 1);
    return st ? st : xs_gpu_sync(t->gdec);
}

static xsf_status gpu_decode_kernels(void *ctx)
{
    xs_timed *t = ctx;
    size_t used;
    xsf_status st = xs_gpu_decode_device(t->gdec, t->cs_device, t->cs_pinned, t->len, &used);
    return st ? st : xs_gpu_sync(t->gdec);
}

/* ---- the run ---- */

static xsf_status decode_reference(cmp_job *job, const uint8_t *cs, size_t len)
{
    xs_decoder *dec = NULL;
    xsf_status st = xs_decoder_create(&dec);
    if (st)
        return xsf_error_set(&job->err, st, "cannot create the JPEG XS C decoder");
    size_t used;
    const xsf_picture *img;
    st = xs_decode(dec, cs, len, &used, &img);
    if (st)
        xsf_error_set(&job->err, st, "JPEG XS C decoder: %s", xs_decoder_error(dec));
    else
        st = cmp_picture_copy(&job->decoded, img, &job->err);
    xs_decoder_destroy(dec);
    return st;
}

static void describe(cmp_job *job, const xs_header *h)
{
    snprintf(job->filter, sizeof job->filter, "5/3");
    job->levels_h = h->nlx;
    job->levels_v = h->nly;
    job->colour = h->cpih == 1 ? "RCT" : "none";
}

static xsf_status run_cpu(cmp_job *job, const xs_encoder_config *cfg)
{
    xs_timed t;
    memset(&t, 0, sizeof t);
    xsf_error cerr;
    xsf_error_clear(&cerr);
    xsf_status st = xs_encoder_create(&t.enc, cfg, &cerr);
    if (st) {
        refuse(job, cerr.msg);
        return XSF_OK;
    }
    describe(job, xs_encoder_header(t.enc));
    t.in_host = &job->src->host;
    t.cap = xs_encoder_max_bytes(t.enc);
    if (!(t.cs = malloc(t.cap ? t.cap : 1))) {
        st = xsf_error_set(&job->err, XSF_ERR_NOMEM, "no memory for a codestream of %zu bytes",
                           t.cap);
        goto done;
    }
    st = xs_encode(t.enc, t.in_host, t.cs, t.cap, &t.len);
    if (st) {
        if (st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED) {
            refuse(job, xs_encoder_error(t.enc));
            st = XSF_OK;
        } else
            xsf_error_set(&job->err, st, "JPEG XS C encoder: %s", xs_encoder_error(t.enc));
        goto done;
    }
    job->bytes = t.len;
    if ((st = decode_reference(job, t.cs, t.len)))
        goto done;
    job->checked = 1;
    if ((st = xs_decoder_create(&t.dec)))
        goto done;
    st = cmp_time_median(cpu_encode, &t, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
    if (!st)
        st = cmp_time_median(cpu_decode, &t, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
    if (st)
        xsf_error_set(&job->err, st, "JPEG XS C codec while timing: %s / %s",
                      xs_encoder_error(t.enc), xs_decoder_error(t.dec));
done:
    xs_encoder_destroy(t.enc);
    xs_decoder_destroy(t.dec);
    free(t.cs);
    return st;
}

static xsf_status run_gpu(cmp_job *job, const xs_encoder_config *cfg)
{
    const cmp_source *src = job->src;
    xs_timed t;
    memset(&t, 0, sizeof t);
    xsf_error cerr;
    xsf_error_clear(&cerr);
    xsf_status st = xs_gpu_encoder_create(&t.genc, cfg, 0, NULL, &cerr);
    if (st) {
        if (st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED) {
            refuse(job, cerr.msg);
            return XSF_OK;
        }
        return xsf_error_set(&job->err, st, "JPEG XS GPU encoder: %s", cerr.msg);
    }
    xs_header hdr;
    xsf_error_clear(&cerr);
    if (xs_encoder_config_header(cfg, &hdr, &cerr) == XSF_OK)
        describe(job, &hdr);
    t.in_pinned = &src->pinned;
    t.in_device = &src->device;
    t.cap = xs_gpu_encoder_max_bytes(t.genc);
    t.cs_pinned = cmp_gpu_host_alloc(t.cap);
    const xsf_format *fmt = &src->host.fmt;
    uint16_t *out = cmp_gpu_host_alloc(xsf_format_bytes(fmt));
    if (!t.cs_pinned || !out) {
        st = xsf_error_set(&job->err, XSF_ERR_NOMEM,
                           "no pinned memory for the codestream and picture");
        goto done;
    }
    size_t off = 0;
    for (int c = 0; c < fmt->nc; c++) {
        t.out_pinned[c] = out + off;
        off += (size_t)fmt->width[c] * (size_t)fmt->height[c];
    }
    if ((st = gpu_encode_transfers(&t))) {
        if (st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED) {
            refuse(job, xs_gpu_encoder_error(t.genc));
            st = XSF_OK;
        } else
            xsf_error_set(&job->err, st, "JPEG XS GPU encoder: %s", xs_gpu_encoder_error(t.genc));
        goto done;
    }
    job->bytes = t.len;
    if ((st = decode_reference(job, t.cs_pinned, t.len)))
        goto done;
    if ((st = xs_gpu_decoder_create(&t.gdec, 0, NULL))) {
        xsf_error_set(&job->err, st, "cannot create the JPEG XS GPU decoder");
        goto done;
    }
    if ((st = gpu_decode_transfers(&t))) {
        xsf_error_set(&job->err, st, "JPEG XS GPU decoder: %s", xs_gpu_decoder_error(t.gdec));
        goto done;
    }
    xsf_picture gpu_pic = job->decoded;
    gpu_pic.ref = NULL; /* a view of out_pinned */
    for (int c = 0; c < gpu_pic.fmt.nc; c++) {
        gpu_pic.data[c] = (uint8_t *)t.out_pinned[c];
        gpu_pic.stride[c] = xsf_format_row_bytes(&gpu_pic.fmt, c);
    }
    if (!cmp_pictures_equal(&gpu_pic, &job->decoded)) {
        st = xsf_error_set(
            &job->err, XSF_ERR_INVALID,
            "MISMATCH: the JPEG XS GPU decoder's picture differs from the C reference "
            "decoder's (%zu-byte codestream)",
            t.len);
        goto done;
    }
    job->checked = 1;
    if (!(t.cs_device = cmp_gpu_device_alloc(t.len)) ||
        cmp_gpu_upload(t.cs_device, t.cs_pinned, t.len)) {
        st = xsf_error_set(&job->err, XSF_ERR_CUDA, "no device memory for the codestream");
        goto done;
    }
    /* The first timed call of each kind warms its path up (the median
     * takes care of the rest). */
    st = cmp_time_median(gpu_encode_kernels, &t, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
    if (!st)
        st = cmp_time_median(gpu_encode_transfers, &t, job->time_ms, &job->enc_s[1],
                             &job->enc_runs[1]);
    if (st) {
        xsf_error_set(&job->err, st, "JPEG XS GPU encoder while timing: %s",
                      xs_gpu_encoder_error(t.genc));
        goto done;
    }
    st = cmp_time_median(gpu_decode_kernels, &t, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
    if (!st)
        st = cmp_time_median(gpu_decode_transfers, &t, job->time_ms, &job->dec_s[1],
                             &job->dec_runs[1]);
    if (st)
        xsf_error_set(&job->err, st, "JPEG XS GPU decoder while timing: %s",
                      xs_gpu_decoder_error(t.gdec));
done:
    xs_gpu_encoder_destroy(t.genc);
    xs_gpu_decoder_destroy(t.gdec);
    cmp_gpu_host_free(t.cs_pinned);
    cmp_gpu_host_free(out);
    cmp_gpu_device_free(t.cs_device);
    return st;
}

xsf_status cmp_run_xs(cmp_job *job)
{
    xs_encoder_config cfg;
    snprintf(job->filter, sizeof job->filter, "5/3");
    job->colour = "none";
    if (make_config(job, &cfg))
        return XSF_OK;
    return job->path == CMP_PATH_GPU ? run_gpu(job, &cfg) : run_cpu(job, &cfg);
}
