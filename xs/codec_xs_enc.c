/* The JPEG XS encoders in the codec table (xsf_codec.h's xsf_encoder_ops):
 * the common settings and the encoder's own knobs (the table below, every
 * field of xs_encoder_config a user may set) become an xs_encoder_config,
 * coded by the C reference (xs_encoder) or the CUDA encoder (xs_gpu_encoder),
 * which give the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs.h"
#include "xs_internal.h"
#include "xsf_codec.h"
#include "xsf_parse.h"

/* What the knobs set: the configuration, and what is decided once the
 * format and the other knobs are known. */
typedef struct xs_knobs {
    xs_encoder_config cfg;
    int rct; /* -1: not given */
    int nly_given, quant_given;
    int gains[XS_MAX_BANDS], prios[XS_MAX_BANDS], ngains, nprios;
} xs_knobs;

#define CFG(field) (offsetof(xs_knobs, cfg) + offsetof(xs_encoder_config, field))

static xsf_status parse_nly(void *obj, const char *v, xsf_error *err)
{
    xs_knobs *k = obj;
    int64_t n;
    const xsf_status st = xsf_parse_integer(v, 0, 2, &n, err);
    if (st == XSF_OK) {
        k->cfg.nly = (int)n;
        k->nly_given = 1;
    }
    return st;
}

static xsf_status parse_quant(void *obj, const char *v, xsf_error *err)
{
    xs_knobs *k = obj;
    if (strcmp(v, "deadzone") && strcmp(v, "uniform"))
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not deadzone or uniform", v);
    k->cfg.qpih = !strcmp(v, "uniform");
    k->quant_given = 1;
    return XSF_OK;
}

static xsf_status parse_modes(void *obj, const char *v, xsf_error *err)
{
    static const struct {
        const char *name;
        unsigned mode;
    } names[] = {{"raw", XS_GCLI_RAW},
                 {"nopred", XS_GCLI_NOPRED},
                 {"vpred", XS_GCLI_VPRED},
                 {"sig", XS_GCLI_SIGFLAGS},
                 {"all", XS_GCLI_ALL}};
    unsigned modes = 0;
    for (const char *s = v; *s;) {
        const size_t n = strcspn(s, ",");
        size_t i = 0;
        while (i < sizeof names / sizeof names[0] &&
               (strlen(names[i].name) != n || strncmp(s, names[i].name, n)))
            i++;
        if (i == sizeof names / sizeof names[0]) {
            modes = 0;
            break;
        }
        modes |= names[i].mode;
        s += n + (s[n] == ',');
    }
    if (!modes)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a list of raw, nopred, vpred, sig, all",
                             v);
    ((xs_knobs *)obj)->cfg.gcli_modes = modes;
    return XSF_OK;
}

static xsf_status parse_nlt(void *obj, const char *v, xsf_error *err)
{
    xs_encoder_config *c = &((xs_knobs *)obj)->cfg;
    unsigned long a, b, e;
    char tail;
    if (!strcmp(v, "none")) {
        c->tnlt = 0;
        return XSF_OK;
    }
    if (sscanf(v, "quadratic:%lu:%lu%c", &a, &b, &tail) == 2 && a <= 1 && b <= 32767) {
        c->tnlt = 1;
        c->nlt_sigma = (int)a;
        c->nlt_alpha = (unsigned)b;
        return XSF_OK;
    }
    if (sscanf(v, "extended:%lu:%lu:%lu%c", &a, &b, &e, &tail) == 3 && a <= UINT32_MAX &&
        b <= UINT32_MAX && e < 20) {
        c->tnlt = 2;
        c->nlt_t1 = (uint32_t)a;
        c->nlt_t2 = (uint32_t)b;
        c->nlt_e = (int)e;
        return XSF_OK;
    }
    return xsf_error_set(err, XSF_ERR_ARG,
                         "'%s' is not none, quadratic:SIGMA:ALPHA or extended:T1:T2:E", v);
}

static xsf_status parse_profile(void *obj, const char *v, xsf_error *err)
{
    static const struct {
        const char *name;
        uint16_t ppih;
    } t[] = {{"unrestricted", XS_PPIH_UNRESTRICTED},
             {"light422.10", XS_PPIH_LIGHT_422_10},
             {"main422.10", XS_PPIH_MAIN_422_10},
             {"main444.12", XS_PPIH_MAIN_444_12},
             {"high444.12", XS_PPIH_HIGH_444_12}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(v, t[i].name)) {
            ((xs_knobs *)obj)->cfg.ppih = t[i].ppih;
            return XSF_OK;
        }
    return xsf_error_set(
        err, XSF_ERR_ARG,
        "'%s' is not unrestricted, light422.10, main422.10, main444.12, high444.12", v);
}

static const int rate_controls[] = {XS_RC_SLICE, XS_RC_PRECINCT, XS_RC_FIXED};
static const int tunes[] = {XS_TUNE_PSNR, XS_TUNE_VISUAL};

static const xsf_option knobs[] = {
    XSF_OPTION_HEAD("JPEG XS rate:"),
    XSF_OPTION("rc", XSF_OPTION_CHOICE, CFG(rate_control), "MODE",
               "slice: each slice exactly its share, unused bytes of a precinct\n"
               "go to the next ones of its slice (default); precinct: each\n"
               "precinct exactly its share; fixed: no target, --q/--r everywhere",
               .choices = "slice|precinct|fixed", .values = rate_controls),
    XSF_OPTION("q", XSF_OPTION_INT, CFG(q), "Q", "quantization for --rc fixed (default 0)", .lo = 0,
               .hi = 255),
    XSF_OPTION("r", XSF_OPTION_INT, CFG(r), "R", "refinement for --rc fixed (default 0)", .lo = 0,
               .hi = 255),
    XSF_OPTION_HEAD("JPEG XS transform:"),
    XSF_OPTION("nlx", XSF_OPTION_INT, CFG(nlx), "N", "horizontal levels 1..8 (default 5)", .lo = 1,
               .hi = 8),
    XSF_OPTION("nly", XSF_OPTION_CALL, 0, "N",
               "vertical levels 0..2 (default 2; 1 with the Light and Main profiles)",
               .parse = parse_nly),
    XSF_OPTION("rct", XSF_OPTION_SET, offsetof(xs_knobs, rct), NULL,
               "reversible colour transform on components 0..2 given as R, G, B\n(default: on for "
               ".ppm, off otherwise)",
               .value = 1),
    XSF_OPTION("no-rct", XSF_OPTION_SET, offsetof(xs_knobs, rct), NULL, "no colour transform",
               .value = 0),
    XSF_OPTION("cwd", XSF_OPTION_INT, CFG(sd), "N",
               "leave the last N components untransformed (CWD, Sd)", .lo = 0, .hi = 7),
    XSF_OPTION("bw", XSF_OPTION_INT, CFG(bw), "N", "coefficient precision (default 20)", .lo = 8,
               .hi = 20),
    XSF_OPTION("fq", XSF_OPTION_INT, CFG(fq), "N", "fractional bits (default 8)", .lo = 0, .hi = 8),
    XSF_OPTION("nlt", XSF_OPTION_CALL, 0, "quadratic:SIGMA:ALPHA | extended:T1:T2:E | none",
               "non-linearity (21122-1 Annex G) the decoder undoes", .parse = parse_nlt),
    XSF_OPTION_HEAD("JPEG XS coding:"),
    XSF_OPTION("quant", XSF_OPTION_CALL, 0, "Q",
               "deadzone or uniform (default; deadzone with the Light profile)",
               .parse = parse_quant),
    XSF_OPTION("sign-packing", XSF_OPTION_INT, CFG(fs), "0|1",
               "signs of non-zero coefficients in their own subpacket (default 1)", .lo = 0,
               .hi = 1),
    XSF_OPTION("run-mode", XSF_OPTION_INT, CFG(rm), "0|1",
               "significance runs of zero residuals (0, default) or counts (1)", .lo = 0, .hi = 1),
    XSF_OPTION("modes", XSF_OPTION_CALL, 0, "LIST",
               "bitplane-count coding modes the encoder may pick from, by cost:\n"
               "comma list of raw, nopred, vpred, sig, or all (default all)",
               .parse = parse_modes),
    XSF_OPTION("slice-height", XSF_OPTION_INT, CFG(slice_lines), "L",
               "lines per slice, a multiple of 2^NLy (default 16)", .lo = 1, .hi = 65535),
    XSF_OPTION("cw", XSF_OPTION_INT, CFG(cw), "N",
               "precinct width in units of 8*max(sx)*2^NLx (default 0: full)", .lo = 0,
               .hi = 65535),
    XSF_OPTION("long-headers", XSF_OPTION_FLAG, CFG(long_headers), NULL, "7-byte packet headers"),
    XSF_OPTION("tune", XSF_OPTION_CHOICE, CFG(tune), "T",
               "what the derived gains and priorities minimize: psnr (default;\n"
               "the 6:1:1 YCbCr or the R,G,B squared error) or visual (the error\n"
               "weighted by contrast sensitivity at 3 HD picture heights)",
               .choices = "psnr|visual", .values = tunes),
    XSF_OPTION("gains", XSF_OPTION_INTS, offsetof(xs_knobs, gains), "LIST",
               "WGT gains in band order (default: derived for --tune)", .lo = 0, .hi = 255,
               .max_items = XS_MAX_BANDS, .count_offset = offsetof(xs_knobs, ngains)),
    XSF_OPTION("priorities", XSF_OPTION_INTS, offsetof(xs_knobs, prios), "LIST",
               "WGT priorities in band order, one per gain", .lo = 0, .hi = 255,
               .max_items = XS_MAX_BANDS, .count_offset = offsetof(xs_knobs, nprios)),
    XSF_OPTION("profile", XSF_OPTION_CALL, 0, "P",
               "unrestricted (default), light422.10, main422.10, main444.12,\n"
               "high444.12: checked, and signalled with a derived level",
               .parse = parse_profile),
    XSF_OPTION("plev", XSF_OPTION_INT, CFG(plev), "0xNNNN",
               "Plev to write instead of the derived one", .lo = 0, .hi = 0xffff),
    XSF_OPTION_HEAD("JPEG XS C encoder:"),
    XSF_OPTION("threads", XSF_OPTION_INT, CFG(threads), "N",
               "threads a frame is coded on (default 0: every online core;\n"
               "the same codestream for any N; the GPU encoder ignores it)",
               .lo = 0, .hi = XS_MAX_THREADS),
    XSF_OPTION_TABLE_END,
};

static void knobs_init(xs_knobs *k)
{
    memset(k, 0, sizeof *k);
    xs_encoder_config_init(&k->cfg);
    /* Uniform quantization: on the set of bench/xs_encode/rd_svt.sh its
     * BD-rate is 2.5 to 3.2 points below deadzone's on every format
     * (xs/ENCODER.md, "Coding tools"). */
    k->cfg.qpih = 1;
    k->rct = -1;
}

/* The picture's part of the configuration; XSF_ERR_ARG for a format JPEG XS
 * does not code. `same`: components 0..2 share size and depth. */
static xsf_status set_format(const xsf_format *f, xs_encoder_config *c, int *same, xsf_error *err)
{
    if (f->nc > XS_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "more components than JPEG XS codes");
    c->width = f->width[0];
    c->height = f->height[0];
    c->nc = f->nc;
    *same = f->nc >= 3;
    for (int i = 0; i < f->nc; i++) {
        if (f->depth[i] < 8)
            return xsf_error_set(err, XSF_ERR_ARG, "JPEG XS codes 8..16-bit samples");
        c->depth[i] = f->depth[i];
        c->sx[i] = f->width[0] / f->width[i];
        c->sy[i] = f->height[0] / f->height[i];
        if ((c->sx[i] != 1 && c->sx[i] != 2) || (c->sy[i] != 1 && c->sy[i] != 2) ||
            (f->width[0] + c->sx[i] - 1) / c->sx[i] != f->width[i] ||
            (f->height[0] + c->sy[i] - 1) / c->sy[i] != f->height[i])
            return xsf_error_set(err, XSF_ERR_ARG, "component sizes JPEG XS cannot sample");
        *same &= i > 2 || (c->sx[i] == 1 && c->sy[i] == 1 && f->depth[i] == f->depth[0]);
    }
    return XSF_OK;
}

/* The configuration of the settings (without a format: all but the picture's part). */
static xsf_status make_config(const xsf_encode_settings *s, xs_encoder_config *out, xsf_error *err)
{
    xs_knobs k;
    knobs_init(&k);
    xsf_status st = xsf_options_apply(knobs, &k, s->options, "JPEG XS encoders", err);
    if (st != XSF_OK)
        return st;
    xs_encoder_config *c = &k.cfg;
    if (k.ngains != k.nprios)
        return xsf_error_set(err, XSF_ERR_ARG, "%d gains but %d priorities", k.ngains, k.nprios);
    for (int i = 0; i < k.ngains; i++) {
        c->gain[i] = (uint8_t)k.gains[i];
        c->priority[i] = (uint8_t)k.prios[i];
    }
    if (k.ngains)
        c->nbands = k.ngains;
    c->bpp = s->bpp;
    c->target_bytes = s->target_bytes;
    c->lossless |= s->lossless;
    if (s->bpp > 64 || s->target_bytes > 0x7fffffff)
        return xsf_error_set(err, XSF_ERR_ARG, "a target above 64 bits per pixel or 2^31 bytes");
    if (c->rate_control == XS_RC_FIXED || c->lossless) {
        if (c->bpp > 0 || c->target_bytes)
            return xsf_error_set(
                err, XSF_ERR_ARG,
                "--bpp and --bytes set a target, which --rc fixed and --lossless have none of");
    } else if (!(c->bpp > 0) && !c->target_bytes) {
        return xsf_error_set(err, XSF_ERR_ARG,
                             "no rate: give --bpp B (or --bytes N, --rc fixed, --lossless)");
    }
    /* The Light and Main profiles allow one vertical level. */
    if (!k.nly_given && (c->ppih == XS_PPIH_LIGHT_422_10 || c->ppih == XS_PPIH_MAIN_422_10 ||
                         c->ppih == XS_PPIH_MAIN_444_12))
        c->nly = 1;
    /* The Light profile allows the deadzone quantizer only. */
    if (!k.quant_given && c->ppih == XS_PPIH_LIGHT_422_10)
        c->qpih = 0;
    int same = 0;
    if (s->format.nc > 0 && (st = set_format(&s->format, c, &same, err)) != XSF_OK)
        return st;
    c->cpih = k.rct >= 0 ? k.rct : s->colour_transform >= 0 ? s->colour_transform : s->rgb && same;
    *out = k.cfg;
    return XSF_OK;
}

static xsf_status check_option(const char *key, const char *value, xsf_error *err)
{
    const xsf_option *o = xsf_option_find(knobs, key);
    if (!o)
        return xsf_error_set(err, XSF_ERR_ARG, "JPEG XS encoders have no option '%s'", key);
    xs_knobs k;
    knobs_init(&k);
    return xsf_option_set(o, &k, value, err);
}

static xsf_status check(const xsf_encode_settings *s, xsf_error *err)
{
    xs_encoder_config c;
    xsf_status st = make_config(s, &c, err);
    if (st != XSF_OK || s->format.nc < 1)
        return st;
    xs_header h;
    return xs_encoder_config_header(&c, &h, err);
}

static void describe(const xsf_encode_settings *s, xsf_encode_info *info)
{
    memset(info, 0, sizeof *info);
    info->transform = "5/3";
    info->colour = "none";
    xs_encoder_config c;
    xs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    if (make_config(s, &c, &err) != XSF_OK || xs_encoder_config_header(&c, &h, &err) != XSF_OK)
        return;
    info->levels_h = h.nlx;
    info->levels_v = h.nly;
    info->colour = h.cpih == 1 ? "RCT" : "none";
}

static xsf_status header(const xsf_encode_settings *s, xsf_codec_frame *out, xsf_error *err)
{
    if (s->format.nc < 1)
        return xsf_error_set(err, XSF_ERR_ARG, "a header needs the pictures' format");
    xs_encoder_config c;
    xs_header h;
    xsf_status st = make_config(s, &c, err);
    if (st == XSF_OK)
        st = xs_encoder_config_header(&c, &h, err);
    return st != XSF_OK ? st : xs_codec.describe(&h, sizeof h, out, err);
}

/* ---- the encoders ---- */

typedef struct xs_enc {
    xs_encoder *cpu;
    xs_gpu_encoder *gpu;
    xsf_error err;
} xs_enc;

static xsf_status gpu_available(void)
{
    return xs_gpu_available();
}

static void destroy(void *enc)
{
    xs_enc *e = enc;
    if (!e)
        return;
    xs_encoder_destroy(e->cpu);
    xs_gpu_encoder_destroy(e->gpu);
    free(e);
}

static xsf_status create(void **enc, const xsf_encode_settings *s, int device, void *stream,
                         xsf_error *err)
{
    *enc = NULL;
    if (s->format.nc < 1)
        return xsf_error_set(err, XSF_ERR_ARG, "an encoder needs the pictures' format");
    xs_encoder_config cfg;
    xsf_status st = make_config(s, &cfg, err);
    if (st != XSF_OK)
        return st;
    xs_enc *e = calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for an encoder");
    st = device < 0 ? xs_encoder_create(&e->cpu, &cfg, err)
                    : xs_gpu_encoder_create(&e->gpu, &cfg, device, (xs_cuda_stream)stream, err);
    if (st != XSF_OK) {
        destroy(e);
        return st;
    }
    *enc = e;
    return XSF_OK;
}

static size_t max_bytes(const void *enc)
{
    const xs_enc *e = enc;
    return e->cpu ? xs_encoder_max_bytes(e->cpu) : xs_gpu_encoder_max_bytes(e->gpu);
}

static xsf_status encode_gpu(xs_enc *e, const xsf_picture *in, uint8_t *out, size_t cap,
                             size_t *len, xsf_error *err)
{
    xsf_status st = xs_gpu_encode(e->gpu, in);
    if (st == XSF_OK)
        st = out ? xs_gpu_encoder_download(e->gpu, out, cap, len, 1) : xs_gpu_encoder_sync(e->gpu);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_encoder_error(e->gpu));
}

static xsf_status encode(void *enc, const xsf_picture *in, uint8_t *out, size_t cap, size_t *len,
                         xsf_error *err)
{
    xs_enc *e = enc;
    *len = 0;
    if (e->gpu)
        return encode_gpu(e, in, out, cap, len, err);
    if (in->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "the C encoder codes pictures in host memory");
    xsf_status st;
    uint8_t *buf = out;
    if (!buf && !(buf = malloc(xs_encoder_max_bytes(e->cpu))))
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a codestream");
    st = xs_encode(e->cpu, in, buf, out ? cap : xs_encoder_max_bytes(e->cpu), len);
    if (!out) {
        free(buf);
        *len = 0;
    }
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_encoder_error(e->cpu));
}

const xsf_encoder_ops xs_codec_encoder = {
    XSF_ENCODER_FUNCTIONS,
    .header = header,
    .yuv_sampling = "422",
    .yuv_depth = 10,
};
