/* The BPC-PaCo encoders in the codec table (xsf_codec.h's xsf_encoder_ops):
 * the common settings and the encoder's own knobs (passes, filter, levels,
 * colour, qstep; tables through the codec's parameters) become bpc_params,
 * coded by the C reference (bpc_encoder) or the CUDA encoder
 * (bpc_gpu_encoder), which give the same bytes. The CUDA encoder works on
 * the device create names: each call makes it current and the caller's
 * current again after (xsf_cuda_device.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"
#include "xsf_codec.h"
#include "xsf_parse.h"

#if XSF_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "xsf_cuda_device.h"
#endif

typedef struct bpc_knobs {
    int passes, filter, levels;
    int colour; /* -1: not given */
    float qstep;
} bpc_knobs;

static xsf_status parse_levels(void *obj, const char *v, xsf_error *err)
{
    int64_t n;
    if (xsf_parse_integer(v, 0, BPC_MAX_LEVELS, &n, NULL) != XSF_OK)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a level count from 0 to %d", v,
                             BPC_MAX_LEVELS);
    ((bpc_knobs *)obj)->levels = (int)n;
    return XSF_OK;
}

static xsf_status parse_qstep(void *obj, const char *v, xsf_error *err)
{
    char *end;
    const float q = strtof(v, &end);
    if (!*v || *end || !(q > 0))
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a positive step", v);
    ((bpc_knobs *)obj)->qstep = q;
    return XSF_OK;
}

static const int filters[] = {BPC_FILTER_53, BPC_FILTER_97, BPC_FILTER_53, BPC_FILTER_97};

static const xsf_option knobs[] = {
    XSF_OPTION_HEAD("BPC-PaCo:"),
    XSF_OPTION("passes", XSF_OPTION_INT, offsetof(bpc_knobs, passes), "1|2|3",
               "coding passes per bitplane (default 2)", .lo = 1, .hi = 3),
    XSF_OPTION("filter", XSF_OPTION_CHOICE, offsetof(bpc_knobs, filter), "53|97",
               "5/3 reversible (default) or 9/7 irreversible", .choices = "53|97|5/3|9/7",
               .values = filters),
    XSF_OPTION("levels", XSF_OPTION_CALL, 0, "L", "DWT levels 0..6 (default 5)",
               .parse = parse_levels),
    XSF_OPTION("colour", XSF_OPTION_CHOICE, offsetof(bpc_knobs, colour), "C",
               "auto (default: RCT with the 5/3, ICT with the 9/7, for three\n"
               "components of one shape), none, rct, ict",
               .choices = "none|rct|ict|auto"),
    XSF_OPTION("color", XSF_OPTION_CHOICE, offsetof(bpc_knobs, colour), "C", NULL,
               .flags = XSF_OPTION_HIDDEN, .choices = "none|rct|ict|auto"),
    XSF_OPTION("qstep", XSF_OPTION_CALL, 0, "Q", "9/7 quantization step in 8-bit units (default 1)",
               .parse = parse_qstep),
    XSF_OPTION("tables", XSF_OPTION_FILE, 0, "FILE",
               "probability tables from xsflow bpc-train (the decoder needs them)"),
    XSF_OPTION_TABLE_END,
};
_Static_assert(BPC_COLOUR_NONE == 0 && BPC_COLOUR_RCT == 1 && BPC_COLOUR_ICT == 2 &&
                   BPC_COLOUR_AUTO == 3,
               "the colour knob's choices are bpc_colour in order");

static void knobs_init(bpc_knobs *k)
{
    bpc_params p;
    bpc_params_default(&p);
    k->passes = (int)p.variant;
    k->filter = (int)p.filter;
    k->levels = p.levels;
    k->colour = -1;
    k->qstep = p.qstep;
}

/* The parameters of the settings; with a format, its rate and whether it
 * can be coded (XSF_ERR_ARG). */
static xsf_status make_params(const xsf_encode_settings *s, bpc_params *p, xsf_error *err)
{
    bpc_knobs k;
    knobs_init(&k);
    const xsf_status st = xsf_options_apply(knobs, &k, s->options, "BPC-PaCo encoders", err);
    if (st != XSF_OK)
        return st;
    bpc_params_default(p);
    p->variant = (bpc_variant)k.passes;
    p->filter = (bpc_filter)k.filter;
    p->levels = k.levels;
    p->qstep = k.qstep;
    p->colour = k.colour >= 0              ? (bpc_colour)k.colour
                : s->colour_transform == 0 ? BPC_COLOUR_NONE
                                           : BPC_COLOUR_AUTO;
    p->tables = s->params;
    if (s->lossless && (p->filter != BPC_FILTER_53 || s->bpp > 0 || s->target_bytes))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "lossless BPC-PaCo is the 5/3 with every pass: no 9/7, no target");
    if (s->format.nc > BPC_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "%d components: BPC-PaCo codes at most %d",
                             s->format.nc, BPC_MAX_COMPONENTS);
    if (s->bpp > 0)
        bpc_params_set_bpp(p, s->bpp, s->format.width[0], s->format.height[0]);
    else
        p->target_bytes = s->target_bytes;
    return XSF_OK;
}

/* Bytes a codestream of the format may take, or XSF_ERR_ARG. */
static xsf_status bound(const bpc_params *p, const xsf_format *f, size_t *cap, xsf_error *err)
{
    *cap = bpc_encode_bound(p, f);
    if (!*cap)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "cannot code this picture with these parameters (sizes, depth, step)");
    return XSF_OK;
}

static xsf_status check_option(const char *key, const char *value, xsf_error *err)
{
    const xsf_option *o = xsf_option_find(knobs, key);
    if (!o)
        return xsf_error_set(err, XSF_ERR_ARG, "BPC-PaCo encoders have no option '%s'", key);
    if (o->kind == XSF_OPTION_FILE)
        return XSF_OK; /* the file is read by the caller, its bytes checked by params_set */
    bpc_knobs k;
    knobs_init(&k);
    return xsf_option_set(o, &k, value, err);
}

static xsf_status check(const xsf_encode_settings *s, xsf_error *err)
{
    bpc_params p;
    size_t cap;
    xsf_status st = make_params(s, &p, err);
    return st != XSF_OK || s->format.nc < 1 ? st : bound(&p, &s->format, &cap, err);
}

static void describe(const xsf_encode_settings *s, xsf_encode_info *info)
{
    memset(info, 0, sizeof *info);
    bpc_params p;
    xsf_error err;
    xsf_error_clear(&err);
    if (make_params(s, &p, &err) != XSF_OK)
        bpc_params_default(&p);
    const xsf_format *f = &s->format;
    int colour = (int)p.colour;
    if (colour == BPC_COLOUR_AUTO) {
        const int same =
            f->nc < 1 || (f->nc >= 3 && f->width[1] == f->width[0] && f->width[2] == f->width[0] &&
                          f->height[1] == f->height[0] && f->height[2] == f->height[0] &&
                          f->depth[1] == f->depth[0] && f->depth[2] == f->depth[0]);
        colour = !same                       ? BPC_COLOUR_NONE
                 : p.filter == BPC_FILTER_97 ? BPC_COLOUR_ICT
                                             : BPC_COLOUR_RCT;
    }
    info->transform = p.filter == BPC_FILTER_97 ? "9/7" : "5/3";
    info->levels_h = info->levels_v = p.levels;
    info->colour = colour == BPC_COLOUR_RCT ? "RCT" : colour == BPC_COLOUR_ICT ? "ICT" : "none";
    info->qstep = p.filter == BPC_FILTER_97 ? (double)p.qstep : 0;
}

/* ---- the encoders ---- */

typedef struct bpc_enc {
    bpc_params params;
    bpc_encoder *cpu;
    bpc_gpu_encoder *gpu;
    int device; /* the CUDA encoder's; -1: the C encoder */
    size_t cap;
    uint8_t *scratch; /* the codestream of an encode without `out` (pinned for the GPU) */
} bpc_enc;

/* A call of the CUDA encoder on its device: device_enter, the call, then
 * device_leave whatever enter returned. Nothing for the C encoder (-1). */
typedef struct device_scope {
#if XSF_HAVE_CUDA
    xsf_cuda_device_saved saved;
#endif
    int device;
} device_scope;

static xsf_status device_enter(device_scope *on, int device, xsf_error *err)
{
    on->device = device;
#if XSF_HAVE_CUDA
    if (device >= 0)
        return bpc_codec_device_enter(&on->saved, device, err);
#endif
    (void)err;
    return XSF_OK;
}

static void device_leave(device_scope *on)
{
#if XSF_HAVE_CUDA
    if (on->device >= 0)
        xsf_cuda_device_leave(&on->saved);
#endif
    (void)on;
}

/* Room for the codestreams an encode without `out` makes: pinned for the
 * CUDA encoder, whose codestream comes back to host memory. */
static uint8_t *scratch_alloc(const bpc_enc *e)
{
#if XSF_HAVE_CUDA
    void *p = NULL;
    if (e->gpu)
        return cudaMallocHost(&p, e->cap) == cudaSuccess ? p : NULL;
#endif
    return malloc(e->cap);
}

static void scratch_free(const bpc_enc *e)
{
#if XSF_HAVE_CUDA
    if (e->gpu) {
        if (e->scratch)
            cudaFreeHost(e->scratch);
        return;
    }
#endif
    free(e->scratch);
}

static xsf_status gpu_available(void)
{
    return bpc_gpu_available();
}

static void destroy(void *enc)
{
    bpc_enc *e = enc;
    if (!e)
        return;
    bpc_encoder_destroy(e->cpu);
    device_scope on;
    (void)device_enter(&on, e->device, NULL); /* the CUDA encoder's memory is freed there */
    scratch_free(e);
    bpc_gpu_encoder_destroy(e->gpu);
    device_leave(&on);
    free(e);
}

/* The CUDA encoder, made on `device`. */
static xsf_status create_gpu(bpc_enc *e, const xsf_format *f, int device, void *stream,
                             xsf_error *err)
{
    e->device = device;
    device_scope on;
    xsf_status st = device_enter(&on, device, err);
    if (st == XSF_OK)
        st = bpc_gpu_encoder_create(&e->gpu, &e->params, f, (struct CUstream_st *)stream, err);
    device_leave(&on);
    return st;
}

static xsf_status create(void **enc, const xsf_encode_settings *s, int device, void *stream,
                         xsf_error *err)
{
    *enc = NULL;
    if (s->format.nc < 1)
        return xsf_error_set(err, XSF_ERR_ARG, "an encoder needs the pictures' format");
    bpc_enc *e = calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for an encoder");
    e->device = -1;
    xsf_status st = make_params(s, &e->params, err);
    if (st == XSF_OK)
        st = bound(&e->params, &s->format, &e->cap, err);
    if (st == XSF_OK)
        st = device < 0 ? bpc_encoder_create(&e->cpu, &e->params, err)
                        : create_gpu(e, &s->format, device, stream, err);
    if (st != XSF_OK) {
        xsf_codec_fail(err, st, NULL); /* where nothing was said yet */
        destroy(e);
        return st;
    }
    *enc = e;
    return XSF_OK;
}

static size_t max_bytes(const void *enc)
{
    return ((const bpc_enc *)enc)->cap;
}

/* encode on the encoder's device. */
static xsf_status encode_here(bpc_enc *e, const xsf_picture *in, uint8_t *out, size_t cap,
                              size_t *len, xsf_error *err)
{
    if (!out) {
        if (!e->scratch && !(e->scratch = scratch_alloc(e)))
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a codestream");
        out = e->scratch;
        cap = e->cap;
    }
    const xsf_status st =
        e->gpu ? bpc_gpu_encode(e->gpu, in, out, cap, len) : bpc_encode(e->cpu, in, out, cap, len);
    if (out == e->scratch)
        *len = 0;
    if (st != XSF_OK)
        return xsf_codec_fail(err, st,
                              e->gpu ? bpc_gpu_encoder_error(e->gpu) : bpc_encoder_error(e->cpu));
    return XSF_OK;
}

static xsf_status encode(void *enc, const xsf_picture *in, uint8_t *out, size_t cap, size_t *len,
                         xsf_error *err)
{
    bpc_enc *e = enc;
    *len = 0;
    if (in->memory == XSF_MEMORY_DEVICE && !e->gpu)
        return xsf_error_set(err, XSF_ERR_ARG, "the C encoder codes pictures in host memory");
    if (in->fmt.nc > BPC_MAX_COMPONENTS || in->fmt.container != XSF_PLANAR_U16)
        return xsf_error_set(err, XSF_ERR_ARG, "a picture BPC-PaCo does not code");
    device_scope on;
    xsf_status st = device_enter(&on, e->device, err);
    if (st == XSF_OK)
        st = encode_here(e, in, out, cap, len, err);
    device_leave(&on);
    return st;
}

const xsf_encoder_ops bpc_codec_encoder = {
    XSF_ENCODER_FUNCTIONS,
    .yuv_sampling = "444",
    .yuv_depth = 8,
};
