/* xsflow compare: the session, the variants and rates, the timing loop,
 * and the rows built from each codec run. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare_internal.h"
#include "xsf_clock.h"

const double cmp_default_rates[CMP_DEFAULT_RATE_COUNT] = {0.5, 1, 2, 3, 4, 6, 8, 0};

/* The variants: JPEG XS as its encoder's defaults and tuned for PSNR, and
 * BPC-PaCo with each pass count. The JPEG XS quality settings were measured
 * with this command on the 1080p 4:4:4 12-bit and 4:2:2 10-bit photographs
 * of vectors/xs at 0.5..8 bpp (COMPARISON.md): slices of 32 precinct rows
 * (128 lines at NLy=2) instead of 4, so a precinct may spend what the ones
 * above it in its slice left (+0.2..0.7 dB), and 8 horizontal levels instead
 * of 5 (+0.05..0.1 dB), fewer where the picture is too narrow; together
 * +0.3..0.9 dB below 6 bpp. Left out: the uniform quantizer (+0.3..0.5 dB
 * below 3 bpp but -0.7..1.3 dB at 6..8 bpp) and run mode 1 (no gain). The
 * slices stay many enough for the GPU encoder, which decides slices in
 * parallel. BPC-PaCo codes lossy rates with the 9/7 and the coarsest step
 * that reaches the rate (run.c), lossless with the 5/3 and every pass. */
static const cmp_variant_spec variants[CMP_VARIANTS] = {
    {"xs",
     "default",
     "JPEG XS, the encoder's defaults: 5/3, 5 horizontal and 2 vertical levels, deadzone "
     "quantizer, "
     "slices of 16 lines, PSNR gains, every coding tool, RCT for RGB",
     {"threads=1"},
     NULL,
     NULL},
    {"xs",
     "quality",
     "JPEG XS tuned for PSNR: the defaults with 8 horizontal levels (fewer where the picture is "
     "too narrow) and slices of 32 precinct rows (128 lines) instead of 4",
     {"nlx=8 slice-height=128 threads=1", "nlx=7 slice-height=128 threads=1",
      "nlx=6 slice-height=128 threads=1", "slice-height=128 threads=1"},
     NULL,
     NULL},
    {"bpc",
     "1pass",
     "BPC-PaCo, 1 pass per bitplane: 9/7 (5 levels, ICT for RGB, coarsest step reaching the rate) "
     "lossy, 5/3 (5 levels, RCT) lossless",
     {"passes=1"},
     "filter=97",
     "qstep"},
    {"bpc",
     "2pass",
     "BPC-PaCo, 2 passes per bitplane, as 1pass otherwise",
     {"passes=2"},
     "filter=97",
     "qstep"},
    {"bpc",
     "3pass",
     "BPC-PaCo, 3 passes per bitplane, as 1pass otherwise",
     {"passes=3"},
     "filter=97",
     "qstep"},
    /* The peers (peer_svt.c, peer_opj.c): their own settings, not knobs. */
    {"svt",
     "default",
     "SVT-JPEG-XS's encoder (SvtJpegxsEncApp, another project's precinct-path encoder) with its "
     "defaults: 5/3, 5 horizontal and 2 vertical levels, slices of 16 lines, no colour transform "
     "(it writes none for RGB), no lossless mode; its codestreams decoded by xsflow's C decoder "
     "(SvtJpegxsDecApp, where found, must give the same picture)",
     {""},
     NULL,
     NULL},
    {"opj",
     "default",
     "OpenJPEG's JPEG 2000 (libopenjp2, the bitplane family's reference): 9/7 with ICT for RGB "
     "lossy, 5/3 with RCT lossless, 5 levels (fewer on small pictures), 64x64 code blocks, one "
     "quality layer, post-compression rate-distortion optimisation to at most the byte budget",
     {""},
     NULL,
     NULL},
};

const cmp_variant_spec *cmp_variant_spec_of(cmp_variant v)
{
    return (unsigned)v < CMP_VARIANTS ? &variants[v] : NULL;
}

const char *cmp_variant_codec(cmp_variant v)
{
    return (unsigned)v < CMP_VARIANTS ? variants[v].codec : "?";
}

const char *cmp_variant_name(cmp_variant v)
{
    return (unsigned)v < CMP_VARIANTS ? variants[v].name : "?";
}

const char *cmp_variant_describe(cmp_variant v)
{
    return (unsigned)v < CMP_VARIANTS ? variants[v].describe : "?";
}

int cmp_variant_is_peer(cmp_variant v)
{
    return (unsigned)v < CMP_VARIANTS && ((1u << v) & CMP_PEER_VARIANTS);
}

const char *cmp_timing_name(cmp_timing t)
{
    return t == CMP_TIMING_KERNELS ? "kernels" : (t == CMP_TIMING_TRANSFERS ? "transfers" : "cpu");
}

/* Whether s[0..n) is the word w. */
static int is_word(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && !strncmp(s, w, n);
}

/* The variants one name of a list selects (0: none): "all" (xsflow's), "peers", a codec
 * of the variants table (all its variants), one of xsflow's variants as codec-name
 * (a peer has one and is named by its codec), or one of the aliases. */
static unsigned variants_named(const char *s, size_t n)
{
    static const struct {
        const char *alias, *name;
    } aliases[] = {
        {"bpc1", "bpc-1pass"}, {"bpc2", "bpc-2pass"}, {"bpc3", "bpc-3pass"},
        {"openjpeg", "opj"},   {"j2k", "opj"},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (is_word(s, n, aliases[i].alias)) {
            s = aliases[i].name;
            n = strlen(s);
            break;
        }
    if (is_word(s, n, "all"))
        return CMP_OWN_VARIANTS;
    if (is_word(s, n, "peers"))
        return CMP_PEER_VARIANTS;
    unsigned m = 0;
    for (int v = 0; v < CMP_VARIANTS; v++) {
        const size_t c = strlen(variants[v].codec);
        if (c > n || strncmp(s, variants[v].codec, c))
            continue;
        if (c == n || (!cmp_variant_is_peer((cmp_variant)v) && s[c] == '-' &&
                       is_word(s + c + 1, n - c - 1, variants[v].name)))
            m |= 1u << v;
    }
    return m;
}

xsf_status cmp_parse_variants(const char *list, unsigned *mask, xsf_error *err)
{
    *mask = 0;
    const char *s = list;
    while (s && *s) {
        const char *end = strchr(s, ',');
        const size_t n = end ? (size_t)(end - s) : strlen(s);
        const unsigned m = variants_named(s, n);
        if (!m)
            return xsf_error_set(
                err, XSF_ERR_ARG,
                "'%.*s' is not a codec: expected xs, bpc, xs-default, xs-quality, bpc-1pass, "
                "bpc-2pass, bpc-3pass, svt, opj, peers",
                (int)n, s);
        *mask |= m;
        s = end ? end + 1 : NULL;
    }
    if (!*mask)
        return xsf_error_set(err, XSF_ERR_ARG, "no codec named");
    return XSF_OK;
}

xsf_status cmp_parse_rates(const char *list, double *rates, size_t max, size_t *n, xsf_error *err)
{
    *n = 0;
    const char *s = list;
    while (s && *s) {
        const char *end = strchr(s, ',');
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[32];
        if (len == 0 || len >= sizeof item)
            return xsf_error_set(err, XSF_ERR_ARG, "'%.*s' is not a rate", (int)len, s);
        memcpy(item, s, len);
        item[len] = 0;
        double r;
        if (!strcmp(item, "lossless")) {
            r = 0;
        } else {
            char *e;
            r = strtod(item, &e);
            if (*e || !(r > 0 && r <= 64))
                return xsf_error_set(err, XSF_ERR_ARG,
                                     "'%s' is not a rate: bits per pixel in (0, 64] or lossless",
                                     item);
        }
        if (*n >= max)
            return xsf_error_set(err, XSF_ERR_ARG, "more than %zu rates", max);
        rates[(*n)++] = r;
        s = end ? end + 1 : NULL;
    }
    if (!*n)
        return xsf_error_set(err, XSF_ERR_ARG, "no rate given");
    return XSF_OK;
}

/* ---- timing ---- */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

xsf_status cmp_time_median(cmp_timed_fn fn, void *ctx, double min_ms, double *seconds, int *runs)
{
    enum { MAX_RUNS = 100000 };
    size_t cap = 64, n = 0;
    double *t = malloc(cap * sizeof *t);
    if (!t)
        return XSF_ERR_NOMEM;
    const double start = xsf_clock_mono_s();
    xsf_status st = XSF_OK;
    do {
        const double t0 = xsf_clock_mono_s();
        if ((st = fn(ctx)))
            break;
        if (n == cap) {
            double *g = realloc(t, 2 * cap * sizeof *t);
            if (!g) {
                st = XSF_ERR_NOMEM;
                break;
            }
            t = g;
            cap *= 2;
        }
        t[n++] = xsf_clock_mono_s() - t0;
    } while (n < MAX_RUNS && (xsf_clock_mono_s() - start) * 1e3 < min_ms);
    if (!st) {
        qsort(t, n, sizeof *t, cmp_double);
        *seconds = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
        *runs = (int)n;
    }
    free(t);
    return st;
}

int cmp_pictures_equal(const xsf_picture *a, const xsf_picture *b)
{
    if (!xsf_format_equal(&a->fmt, &b->fmt))
        return 0;
    for (int c = 0; c < a->fmt.nc; c++)
        for (int y = 0; y < a->fmt.height[c]; y++)
            if (memcmp(xsf_picture_row16(a, c, y), xsf_picture_row16(b, c, y),
                       xsf_format_row_bytes(&a->fmt, c)))
                return 0;
    return 1;
}

/* ---- the session ---- */

struct cmp_session {
    cmp_options opt;
    double rates[64];
    char device[96];
    cmp_peers peers;
    cmp_row *rows;
    size_t nrows, cap;
    xsf_error err;
};

void cmp_cpu_name(char *buf, size_t len)
{
    snprintf(buf, len, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10))
            continue;
        const char *v = strchr(line, ':');
        if (!v)
            break;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(buf, len, "%s", v);
        buf[strcspn(buf, "\n")] = 0;
        break;
    }
    fclose(f);
}

xsf_status cmp_session_create(cmp_session **out, const cmp_options *opt, xsf_error *err)
{
    *out = NULL;
    if (!opt || (opt->rates && (opt->nrates == 0 || opt->nrates > 64)) || !(opt->time_ms >= 0) ||
        (opt->path != CMP_PATH_CPU && opt->path != CMP_PATH_GPU) ||
        (opt->variants & ~CMP_ALL_VARIANTS))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "bad compare options (1..64 rates, time >= 0, known codecs)");
    if (opt->path == CMP_PATH_GPU && cmp_gpu_available() != XSF_OK)
        return xsf_error_set(
            err, XSF_ERR_NODEVICE,
            "no usable GPU for the CUDA codecs (no device, or a build without CUDA kernels)");
    cmp_session *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory");
    s->opt = *opt;
    if (!s->opt.variants)
        s->opt.variants = CMP_OWN_VARIANTS;
    cmp_peers_init(&s->peers, opt);
    for (int v = 0; v < CMP_VARIANTS; v++)
        if ((s->opt.variants & (1u << v) & CMP_PEER_VARIANTS) &&
            cmp_peer_check(&s->peers, (cmp_variant)v, err) != XSF_OK) {
            free(s);
            return XSF_ERR_UNSUPPORTED;
        }
    if (opt->rates) {
        memcpy(s->rates, opt->rates, opt->nrates * sizeof(double));
        s->opt.nrates = opt->nrates;
    } else {
        memcpy(s->rates, cmp_default_rates, sizeof cmp_default_rates);
        s->opt.nrates = CMP_DEFAULT_RATE_COUNT;
    }
    s->opt.rates = s->rates;
    for (size_t i = 0; i < s->opt.nrates; i++)
        if (!(s->rates[i] >= 0 && s->rates[i] <= 64)) {
            const double bad = s->rates[i];
            free(s);
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "rate %g: expected (0, 64] bpp or 0 for lossless", bad);
        }
    if (s->opt.path == CMP_PATH_GPU)
        cmp_gpu_device_name(s->device, sizeof s->device);
    else
        cmp_cpu_name(s->device, sizeof s->device);
    *out = s;
    return XSF_OK;
}

void cmp_session_destroy(cmp_session *s)
{
    if (!s)
        return;
    free(s->rows);
    free(s);
}

size_t cmp_session_rows(const cmp_session *s)
{
    return s->nrows;
}

const cmp_row *cmp_session_row(const cmp_session *s, size_t i)
{
    return i < s->nrows ? &s->rows[i] : NULL;
}

const char *cmp_session_error(const cmp_session *s)
{
    return s->err.msg;
}

const char *cmp_session_peer(const cmp_session *s, cmp_variant v)
{
    return cmp_variant_is_peer(v) && (s->opt.variants & (1u << v)) ? s->peers.about[v] : NULL;
}

static cmp_row *new_row(cmp_session *s)
{
    if (s->nrows == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 64;
        cmp_row *g = realloc(s->rows, cap * sizeof *g);
        if (!g)
            return NULL;
        s->rows = g;
        s->cap = cap;
    }
    cmp_row *r = &s->rows[s->nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

static void release_source(cmp_source *src)
{
    cmp_picture_free(&src->host);
    cmp_gpu_host_free(src->pinned.data[0]);
    cmp_gpu_device_free(src->device.data[0]);
    memset(src, 0, sizeof *src);
}

/* The host copy, and on the GPU a pinned and a device copy of the same
 * tightly packed planes. */
static xsf_status make_source(cmp_session *s, const xsf_picture *pic, int rgb, cmp_source *src)
{
    memset(src, 0, sizeof *src);
    xsf_status st = cmp_picture_copy(&src->host, pic, &s->err);
    if (st)
        return st;
    src->rgb = rgb && pic->fmt.nc >= 3;
    for (int c = 0; c < pic->fmt.nc; c++)
        src->samples += (size_t)pic->fmt.width[c] * (size_t)pic->fmt.height[c];
    if (s->opt.path != CMP_PATH_GPU)
        return XSF_OK;
    const size_t bytes = src->samples * sizeof(uint16_t);
    uint8_t *pinned = cmp_gpu_host_alloc(bytes), *device = cmp_gpu_device_alloc(bytes);
    /* Views of the same layout: plane c at the offset it has in the host block. */
    uint8_t *pinned_data[XSF_MAX_COMPONENTS], *device_data[XSF_MAX_COMPONENTS];
    for (int c = 0; c < pic->fmt.nc; c++) {
        const size_t off = (size_t)(src->host.data[c] - src->host.data[0]);
        pinned_data[c] = pinned ? pinned + off : NULL;
        device_data[c] = device ? device + off : NULL;
    }
    xsf_picture_wrap(&src->pinned, &src->host.fmt, pinned_data, src->host.stride, XSF_MEMORY_PINNED,
                     -1);
    xsf_picture_wrap(&src->device, &src->host.fmt, device_data, src->host.stride, XSF_MEMORY_DEVICE,
                     0);
    src->pinned.colour = src->device.colour = src->host.colour;
    if (!pinned || !device) {
        release_source(src);
        return xsf_error_set(&s->err, XSF_ERR_NOMEM,
                             "no pinned or device memory for a picture of %zu bytes", bytes);
    }
    memcpy(pinned, src->host.data[0], bytes);
    if (cmp_gpu_upload(device, pinned, bytes)) {
        release_source(src);
        return xsf_error_set(&s->err, XSF_ERR_CUDA, "cannot upload the picture to the device");
    }
    return XSF_OK;
}

static void fill_rows(cmp_session *s, const char *name, const cmp_source *src, const cmp_job *job)
{
    const xsf_picture *p = &src->host;
    cmp_row base;
    memset(&base, 0, sizeof base);
    snprintf(base.picture, sizeof base.picture, "%s", name);
    base.width = p->fmt.width[0];
    base.height = p->fmt.height[0];
    base.nc = p->fmt.nc;
    for (int c = 0; c < p->fmt.nc; c++)
        base.depth = p->fmt.depth[c] > base.depth ? p->fmt.depth[c] : base.depth;
    base.variant = job->variant;
    base.bpp_target = job->bpp;
    snprintf(base.filter, sizeof base.filter, "%s", job->filter);
    base.levels_h = job->levels_h;
    base.levels_v = job->levels_v;
    base.qstep = job->qstep;
    base.colour = job->colour ? job->colour : "none";
    base.coded = !job->refused;
    snprintf(base.note, sizeof base.note, "%s", job->note);
    const int peer = cmp_variant_is_peer(job->variant);
    base.path = peer ? CMP_PATH_CPU : s->opt.path;
    base.threads = peer ? s->peers.threads : (base.path == CMP_PATH_CPU ? 1 : 0);
    snprintf(base.device, sizeof base.device, "%s", peer ? s->peers.cpu : s->device);
    for (int c = 0; c < CMP_MAX_COMPONENTS; c++)
        base.psnr[c] = NAN;
    base.psnr_all = base.ssim = base.ms_ssim = NAN;
    if (base.coded) {
        base.bytes = job->bytes;
        base.bpp = (double)job->bytes * 8.0 / ((double)p->fmt.width[0] * (double)p->fmt.height[0]);
        for (int c = 0; c < p->fmt.nc && c < CMP_MAX_COMPONENTS; c++)
            base.psnr[c] = cmp_psnr_component(p, &job->decoded, c);
        base.psnr_all = cmp_psnr_all(p, &job->decoded);
        base.ssim = cmp_ssim_luma(p, &job->decoded, src->rgb);
        base.ms_ssim = cmp_msssim_luma(p, &job->decoded, src->rgb);
        base.exact = cmp_pictures_equal(p, &job->decoded);
        base.checked = job->checked;
    }
    const int kinds = base.path == CMP_PATH_GPU ? 2 : 1;
    for (int k = 0; k < kinds; k++) {
        cmp_row *r = new_row(s);
        if (!r)
            return;
        *r = base;
        r->timing = base.path == CMP_PATH_GPU ? (k ? CMP_TIMING_TRANSFERS : CMP_TIMING_KERNELS)
                                              : CMP_TIMING_CPU;
        if (base.coded) {
            r->enc_runs = job->enc_runs[k];
            r->dec_runs = job->dec_runs[k];
            r->enc_s = job->enc_s[k];
            r->dec_s = job->dec_s[k];
            r->enc_fps = r->enc_s > 0 ? 1.0 / r->enc_s : NAN;
            r->dec_fps = r->dec_s > 0 ? 1.0 / r->dec_s : NAN;
            r->enc_gsamples = r->enc_fps * (double)src->samples / 1e9;
            r->dec_gsamples = r->dec_fps * (double)src->samples / 1e9;
        } else {
            r->enc_fps = r->dec_fps = r->enc_gsamples = r->dec_gsamples = NAN;
        }
        if (s->opt.progress)
            s->opt.progress(s->opt.progress_ctx, r);
    }
}

xsf_status cmp_session_add_picture(cmp_session *s, const char *name, const xsf_picture *pic,
                                   int rgb)
{
    xsf_error_clear(&s->err);
    if (!name || !pic || pic->fmt.nc < 1 || pic->fmt.nc > IMGIO_MAX_COMPONENTS)
        return xsf_error_set(&s->err, XSF_ERR_ARG, "no picture");
    cmp_source src;
    xsf_status st = make_source(s, pic, rgb, &src);
    if (st)
        return st;
    for (int v = 0; v < CMP_VARIANTS && !st; v++) {
        if (!(s->opt.variants & (1u << v)))
            continue;
        double qstep =
            0; /* a variant with a step: rates in the given order reuse the last step as a start */
        for (size_t i = 0; i < s->opt.nrates && !st; i++) {
            cmp_job job;
            memset(&job, 0, sizeof job);
            job.src = &src;
            job.variant = (cmp_variant)v;
            job.bpp = s->rates[i];
            job.path = s->opt.path;
            job.time_ms = s->opt.time_ms;
            job.tune = s->opt.tune;
            job.qstep_hint = i > 0 && s->rates[i] >= s->rates[i - 1] ? qstep : 0;
            job.peers = &s->peers;
            xsf_error_clear(&job.err);
            st = cmp_variant_is_peer(job.variant) ? cmp_run_peer(&job) : cmp_run(&job);
            if (st) {
                char rate[32];
                if (job.bpp > 0)
                    snprintf(rate, sizeof rate, "%g bpp", job.bpp);
                else
                    snprintf(rate, sizeof rate, "lossless");
                xsf_error_set(&s->err, st, "%s: %s %s at %s: %s", name,
                              cmp_variant_codec(job.variant), cmp_variant_name(job.variant), rate,
                              job.err.msg);
            } else {
                if (job.qstep > 0)
                    qstep = job.qstep;
                const size_t before = s->nrows;
                fill_rows(s, name, &src, &job);
                if (s->nrows == before)
                    st = xsf_error_set(&s->err, XSF_ERR_NOMEM, "no memory for the rows");
            }
            cmp_picture_free(&job.decoded);
        }
    }
    release_source(&src);
    return st;
}
