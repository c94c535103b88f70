/* xsflowenc: JPEG XS encoder (GstVideoEncoder) on the GPU, or the C encoder
 * (both give the same bytes), through the codec table (xsf_codec.h's
 * encoder ops, as `xsflow encode`): the properties become the codec's
 * settings and knobs. Interlaced input is coded as two fields, one
 * codestream each, in one buffer (interlace-mode=fields). Planar RGB input
 * (GBR*) is coded with the reversible colour transform. */
#include <string.h>

#include <gst/video/video.h>

#include "xsf_codecs.h"
#include "xsflow_gst.h"

GST_DEBUG_CATEGORY_STATIC(xsflowenc_debug);
#define GST_CAT_DEFAULT xsflowenc_debug

#define XSFLOW_TYPE_ENC (xsflow_enc_get_type())
G_DECLARE_FINAL_TYPE(XsflowEnc, xsflow_enc, XSFLOW, ENC, GstVideoEncoder)

enum {
    PROP_0,
    PROP_BPP,
    PROP_DECOMP_H,
    PROP_DECOMP_V,
    PROP_SLICE_HEIGHT,
    PROP_QUANT_MODE,
    PROP_CODING_SIGNS,
    PROP_RATE_CONTROL,
    PROP_QUANTIZATION,
    PROP_REFINEMENT,
    PROP_SIGF,
    PROP_VPRED,
    PROP_RAW,
    PROP_RUN_MODE,
    PROP_PRECINCT_WIDTH,
    PROP_LOSSLESS,
    PROP_DEVICE,
    PROP_GPU_ID,
    PROP_ENGINE,
    PROP_TUNE,
};

typedef struct enc_settings {
    double bpp;
    int decomp_h, decomp_v, slice_height, quant_mode, coding_signs, rate_control, q, r;
    gboolean sigf, vpred, raw, lossless;
    int run_mode, precinct_width, tune;
    XsfGstDevice device;
    int gpu_id;
} enc_settings;

struct _XsflowEnc {
    GstVideoEncoder parent;
    enc_settings set;
    GstVideoCodecState *input_state;
    int fields;
    const xsf_codec *codec; /* JPEG XS, from the codec table */
    void *enc;              /* its encoder (codec->encoder), NULL until configured */
    int on_gpu;             /* enc is the GPU encoder */
    size_t max_bytes;       /* per codestream */
    uint16_t *planes;       /* 8-bit input widened to uint16 */
    size_t planes_samples;
};

G_DEFINE_TYPE(XsflowEnc, xsflow_enc, GST_TYPE_VIDEO_ENCODER)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(xsflowenc, "xsflowenc", GST_RANK_PRIMARY + 1, XSFLOW_TYPE_ENC,
                                      GST_DEBUG_CATEGORY_INIT(xsflowenc_debug, "xsflowenc", 0,
                                                              "xsflow JPEG XS encoder"));

#define ENC_FORMATS                                                                                \
    "{ I420, Y42B, Y444, I420_10LE, I422_10LE, Y444_10LE, I420_12LE, I422_12LE, Y444_12LE, "       \
    "Y444_16LE, GRAY8, GRAY16_LE, GBR, GBR_10LE, GBR_12LE }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(ENC_FORMATS) "; " GST_VIDEO_CAPS_MAKE(
        ENC_FORMATS) ", interlace-mode = (string) interleaved"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame, "
                    "interlace-mode = (string) { progressive, fields }, "
                    "width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ]"));

#define ENUM_TYPE(fn, name, ...)                                                                   \
    static GType fn(void)                                                                          \
    {                                                                                              \
        static gsize type = 0;                                                                     \
        static const GEnumValue values[] = {__VA_ARGS__, {0, NULL, NULL}};                         \
        if (g_once_init_enter(&type))                                                              \
            g_once_init_leave(&type, g_enum_register_static(name, values));                        \
        return (GType)type;                                                                        \
    }
ENUM_TYPE(quant_mode_type, "XsflowEncQuantMode", {0, "Deadzone quantizer", "deadzone"},
          {1, "Uniform quantizer", "uniform"})
ENUM_TYPE(coding_signs_type, "XsflowEncCodingSigns", {0, "Signs inline with the magnitudes", "off"},
          {2, "Sign packing: the signs of non-zero coefficients in their own subpacket", "full"})
ENUM_TYPE(rate_control_type, "XsflowEncRateControl",
          {XS_RC_SLICE, "Every slice exactly its share of the target (CBR)", "slice"},
          {XS_RC_PRECINCT, "Every precinct exactly its share (strict CBR)", "precinct"},
          {XS_RC_FIXED, "Fixed quantization and refinement (VBR)", "fixed"})
ENUM_TYPE(tune_type, "XsflowEncTune",
          {XS_TUNE_PSNR, "Gains and priorities for PSNR (6:1:1 YCbCr, R,G,B with the RCT)", "psnr"},
          {XS_TUNE_VISUAL, "Gains and priorities from contrast sensitivity (3 HD picture heights)",
           "visual"})
ENUM_TYPE(run_mode_type, "XsflowEncRunMode",
          {0, "Runs of zero prediction residuals", "zero-residuals"},
          {1, "Runs of zero coefficients", "zero-coefficients"})

/* The layout of an input format: sampling (for the log), components,
 * subsampling of components 1 and 2, depth, R'G'B' planes. */
typedef struct input_layout {
    GstVideoFormat format;
    const char *sampling;
    int nc, sx, sy, depth, rgb;
} input_layout;

static const input_layout *layout_of(GstVideoFormat f)
{
    static const input_layout layouts[] = {
        {GST_VIDEO_FORMAT_I420, "420", 3, 2, 2, 8, 0},
        {GST_VIDEO_FORMAT_Y42B, "422", 3, 2, 1, 8, 0},
        {GST_VIDEO_FORMAT_Y444, "444", 3, 1, 1, 8, 0},
        {GST_VIDEO_FORMAT_I420_10LE, "420", 3, 2, 2, 10, 0},
        {GST_VIDEO_FORMAT_I422_10LE, "422", 3, 2, 1, 10, 0},
        {GST_VIDEO_FORMAT_Y444_10LE, "444", 3, 1, 1, 10, 0},
        {GST_VIDEO_FORMAT_I420_12LE, "420", 3, 2, 2, 12, 0},
        {GST_VIDEO_FORMAT_I422_12LE, "422", 3, 2, 1, 12, 0},
        {GST_VIDEO_FORMAT_Y444_12LE, "444", 3, 1, 1, 12, 0},
        {GST_VIDEO_FORMAT_Y444_16LE, "444", 3, 1, 1, 16, 0},
        {GST_VIDEO_FORMAT_GRAY8, "400", 1, 1, 1, 8, 0},
        {GST_VIDEO_FORMAT_GRAY16_LE, "400", 1, 1, 1, 16, 0},
        {GST_VIDEO_FORMAT_GBR, "444", 3, 1, 1, 8, 1},
        {GST_VIDEO_FORMAT_GBR_10LE, "444", 3, 1, 1, 10, 1},
        {GST_VIDEO_FORMAT_GBR_12LE, "444", 3, 1, 1, 12, 1},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++)
        if (layouts[i].format == f)
            return &layouts[i];
    return NULL;
}

/* The pictures of a layout at width x height (a field's height when interlaced). */
static void layout_format(const input_layout *l, int width, int height, xsf_format *f)
{
    memset(f, 0, sizeof *f);
    f->container = XSF_PLANAR_U16;
    f->nc = l->nc;
    for (int c = 0; c < l->nc; c++) {
        const int sx = c ? l->sx : 1, sy = c ? l->sy : 1;
        f->width[c] = (width + sx - 1) / sx;
        f->height[c] = (height + sy - 1) / sy;
        f->depth[c] = l->depth;
    }
}

/* The codec's own knobs (xsf_option.h) of the properties. */
static void settings_knobs(const enc_settings *set, char *buf, size_t cap)
{
    GEnumClass *rc = g_type_class_ref(rate_control_type()),
               *qm = g_type_class_ref(quant_mode_type()), *tu = g_type_class_ref(tune_type());
    const GEnumValue *rcv = g_enum_get_value(rc, set->rate_control),
                     *qmv = g_enum_get_value(qm, set->quant_mode),
                     *tuv = g_enum_get_value(tu, set->tune);
    char slice[32] = "";
    if (set->slice_height) /* 0: the codec's default, 16 */
        g_snprintf(slice, sizeof slice, " slice-height=%d", set->slice_height);
    /* The nicks of rate-control-mode and quant-mode are the knobs' values. */
    g_snprintf(buf, cap,
               "rc=%s q=%d r=%d nlx=%d nly=%d quant=%s sign-packing=%d run-mode=%d "
               "modes=nopred%s%s%s cw=%d%s tune=%s",
               rcv ? rcv->value_nick : "slice", set->q, set->r, set->decomp_h, set->decomp_v,
               qmv ? qmv->value_nick : "deadzone", set->coding_signs ? 1 : 0, set->run_mode,
               set->sigf ? ",sig" : "", set->vpred ? ",vpred" : "", set->raw ? ",raw" : "",
               set->precinct_width, slice, tuv ? tuv->value_nick : "psnr");
    g_type_class_unref(tu);
    g_type_class_unref(rc);
    g_type_class_unref(qm);
}

static void free_encoders(XsflowEnc *self)
{
    if (self->enc)
        self->codec->encoder->destroy(self->enc);
    self->enc = NULL;
    self->on_gpu = 0;
    g_clear_pointer(&self->planes, g_free);
    self->planes_samples = 0;
}

static gboolean xsflow_enc_set_format(GstVideoEncoder *ve, GstVideoCodecState *state)
{
    XsflowEnc *self = XSFLOW_ENC(ve);
    const GstVideoInfo *info = &state->info;
    const input_layout *layout = layout_of(GST_VIDEO_INFO_FORMAT(info));
    if (!layout || !self->codec || !self->codec->encoder)
        return FALSE;
    free_encoders(self);
    g_clear_pointer(&self->input_state, gst_video_codec_state_unref);
    self->input_state = gst_video_codec_state_ref(state);
    self->fields = GST_VIDEO_INFO_IS_INTERLACED(info) ? 2 : 1;
    const int width = GST_VIDEO_INFO_WIDTH(info),
              height = GST_VIDEO_INFO_HEIGHT(info) / self->fields;

    GST_OBJECT_LOCK(self);
    const enc_settings set = self->set;
    GST_OBJECT_UNLOCK(self);
    const xsf_encoder_ops *ops = self->codec->encoder;
    char knobs[256];
    settings_knobs(&set, knobs, sizeof knobs);
    xsf_encode_settings es;
    xsf_encode_settings_init(&es);
    layout_format(layout, width, height, &es.format);
    es.rgb = layout->rgb;
    es.colour_transform = layout->rgb;
    es.lossless = set.lossless;
    /* A rate only where one is held: rc=fixed and lossless coding have none. */
    if (set.rate_control != XS_RC_FIXED && !set.lossless)
        es.bpp = set.bpp;
    es.options = knobs;

    xsf_error err = {0};
    xsf_status st = XSF_ERR_NODEVICE;
    if (set.device != XSF_GST_DEVICE_CPU && ops->gpu_available() == XSF_OK) {
        st = ops->create(&self->enc, &es, set.gpu_id, NULL, &err);
        self->on_gpu = st == XSF_OK;
    }
    if (st != XSF_OK && set.device == XSF_GST_DEVICE_GPU) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT,
                          ("no GPU encoder: %s", err.msg[0] ? err.msg : "no usable GPU"),
                          ("%s", xsf_status_name(st)));
        return FALSE;
    }
    if (st != XSF_OK) {
        xsf_error_clear(&err);
        st = ops->create(&self->enc, &es, -1, NULL, &err);
        if (st != XSF_OK) {
            GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("encoder settings refused: %s", err.msg),
                              ("%s", xsf_status_name(st)));
            return FALSE;
        }
    }
    self->max_bytes = ops->max_bytes(self->enc);
    GST_INFO_OBJECT(self,
                    "encoding %s %dx%d at depth %d on the %s, at most %zu bytes per codestream",
                    layout->sampling, width, height, layout->depth, self->on_gpu ? "GPU" : "CPU",
                    self->max_bytes);

    /* The caps say what the codestreams' header says (JPEG XS's: xs_header). */
    xsf_codec_frame frame;
    if (!ops->header || ops->header(&es, &frame, &err) != XSF_OK)
        return FALSE;
    const xs_header *hdr = (const xs_header *)(const void *)frame.header.bytes;
    GstCaps *caps = gst_caps_new_simple("image/x-jxsc", "alignment", G_TYPE_STRING, "frame", NULL);
    GstStructure *s = gst_caps_get_structure(caps, 0);
    xsf_gst_caps_from_header(s, hdr, self->fields);
    if (set.rate_control != XS_RC_FIXED && !set.lossless)
        gst_structure_set(s, "codestream-length", G_TYPE_INT, (int)(self->max_bytes * self->fields),
                          NULL);
    if (GST_VIDEO_INFO_FPS_N(info) > 0)
        gst_structure_set(s, "framerate", GST_TYPE_FRACTION, GST_VIDEO_INFO_FPS_N(info),
                          GST_VIDEO_INFO_FPS_D(info), NULL);
    GstVideoCodecState *out = gst_video_encoder_set_output_state(ve, caps, state);
    /* The base class writes interlace-mode from the info: one codestream per field. */
    GST_VIDEO_INFO_INTERLACE_MODE(&out->info) =
        self->fields == 2 ? GST_VIDEO_INTERLACE_MODE_FIELDS : GST_VIDEO_INTERLACE_MODE_PROGRESSIVE;
    gst_video_codec_state_unref(out);
    return gst_video_encoder_negotiate(ve);
}

/* The picture of one field (or the frame) as the encoder takes it. */
static gboolean frame_picture(XsflowEnc *self, GstVideoFrame *vf, int field, xsf_picture *pic)
{
    const int nc = GST_VIDEO_FRAME_N_COMPONENTS(vf);
    const int fields = self->fields;
    xsf_picture_init(pic);
    pic->fmt.container = XSF_PLANAR_U16;
    pic->fmt.nc = nc;
    size_t need = 0;
    for (int c = 0; c < nc; c++)
        need += (size_t)GST_VIDEO_FRAME_COMP_WIDTH(vf, c) *
                (size_t)(GST_VIDEO_FRAME_COMP_HEIGHT(vf, c) / fields);
    const gboolean wide = GST_VIDEO_FRAME_COMP_DEPTH(vf, 0) > 8;
    if (!wide && need > self->planes_samples) {
        g_free(self->planes);
        self->planes = g_try_new(uint16_t, need);
        if (!self->planes)
            return FALSE;
        self->planes_samples = need;
    }
    size_t off = 0;
    for (int c = 0; c < nc; c++) {
        const int w = GST_VIDEO_FRAME_COMP_WIDTH(vf, c),
                  h = GST_VIDEO_FRAME_COMP_HEIGHT(vf, c) / fields;
        const int stride = GST_VIDEO_FRAME_COMP_STRIDE(vf, c);
        const guint8 *base = GST_VIDEO_FRAME_COMP_DATA(vf, c) + (gsize)field * stride;
        pic->fmt.width[c] = w;
        pic->fmt.height[c] = h;
        pic->fmt.depth[c] = GST_VIDEO_FRAME_COMP_DEPTH(vf, c);
        if (wide && (stride % 2) == 0 && G_BYTE_ORDER == G_LITTLE_ENDIAN) {
            /* 10..16-bit little-endian samples are the encoder's uint16 already. */
            pic->data[c] = (uint8_t *)base;
            pic->stride[c] = (size_t)stride * fields;
            continue;
        }
        if (wide && need > self->planes_samples) {
            g_free(self->planes);
            self->planes = g_try_new(uint16_t, need);
            if (!self->planes)
                return FALSE;
            self->planes_samples = need;
        }
        uint16_t *dst = self->planes + off;
        for (int y = 0; y < h; y++) {
            const guint8 *row = base + (gsize)y * stride * fields;
            for (int x = 0; x < w; x++)
                dst[(size_t)y * w + x] = wide ? GST_READ_UINT16_LE(row + 2 * x) : row[x];
        }
        pic->data[c] = (uint8_t *)dst;
        pic->stride[c] = (size_t)w * sizeof(uint16_t);
        off += (size_t)w * h;
    }
    return TRUE;
}

static GstFlowReturn xsflow_enc_handle_frame(GstVideoEncoder *ve, GstVideoCodecFrame *frame)
{
    XsflowEnc *self = XSFLOW_ENC(ve);
    if (!self->input_state || !self->enc) {
        gst_video_codec_frame_unref(frame);
        return GST_FLOW_NOT_NEGOTIATED;
    }
    GstVideoFrame vf;
    if (!gst_video_frame_map(&vf, &self->input_state->info, frame->input_buffer, GST_MAP_READ)) {
        gst_video_codec_frame_unref(frame);
        GST_ELEMENT_ERROR(self, RESOURCE, READ, (NULL), ("cannot map the input frame"));
        return GST_FLOW_ERROR;
    }
    GstFlowReturn ret =
        gst_video_encoder_allocate_output_frame(ve, frame, self->max_bytes * self->fields);
    if (ret != GST_FLOW_OK) {
        gst_video_frame_unmap(&vf);
        gst_video_codec_frame_unref(frame);
        return ret;
    }
    GstMapInfo out;
    if (!gst_buffer_map(frame->output_buffer, &out, GST_MAP_WRITE)) {
        gst_video_frame_unmap(&vf);
        gst_video_codec_frame_unref(frame);
        return GST_FLOW_ERROR;
    }
    size_t total = 0;
    xsf_status st = XSF_OK;
    xsf_error err;
    xsf_error_clear(&err);
    for (int field = 0; field < self->fields && st == XSF_OK; field++) {
        xsf_picture pic;
        size_t len = 0;
        if (!frame_picture(self, &vf, field, &pic)) {
            st = xsf_error_set(&err, XSF_ERR_NOMEM, "out of memory");
            break;
        }
        st = self->codec->encoder->encode(self->enc, &pic, out.data + total, out.size - total, &len,
                                          &err);
        total += len;
    }
    gst_buffer_unmap(frame->output_buffer, &out);
    gst_video_frame_unmap(&vf);
    if (st != XSF_OK) {
        gst_video_codec_frame_unref(frame);
        GST_ELEMENT_ERROR(self, STREAM, ENCODE, (NULL), ("%s (%s)", err.msg, xsf_status_name(st)));
        return GST_FLOW_ERROR;
    }
    gst_buffer_set_size(frame->output_buffer, total);
    GST_VIDEO_CODEC_FRAME_SET_SYNC_POINT(frame);
    return gst_video_encoder_finish_frame(ve, frame);
}

static gboolean xsflow_enc_stop(GstVideoEncoder *ve)
{
    XsflowEnc *self = XSFLOW_ENC(ve);
    free_encoders(self);
    g_clear_pointer(&self->input_state, gst_video_codec_state_unref);
    return TRUE;
}

static gboolean xsflow_enc_propose_allocation(GstVideoEncoder *ve, GstQuery *query)
{
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    return GST_VIDEO_ENCODER_CLASS(xsflow_enc_parent_class)->propose_allocation(ve, query);
}

static void xsflow_enc_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *pspec)
{
    XsflowEnc *self = XSFLOW_ENC(obj);
    enc_settings *s = &self->set;
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_BPP: s->bpp = g_value_get_double(v); break;
    case PROP_DECOMP_H: s->decomp_h = g_value_get_int(v); break;
    case PROP_DECOMP_V: s->decomp_v = g_value_get_int(v); break;
    case PROP_SLICE_HEIGHT: s->slice_height = g_value_get_int(v); break;
    case PROP_QUANT_MODE: s->quant_mode = g_value_get_enum(v); break;
    case PROP_CODING_SIGNS: s->coding_signs = g_value_get_enum(v); break;
    case PROP_RATE_CONTROL: s->rate_control = g_value_get_enum(v); break;
    case PROP_QUANTIZATION: s->q = g_value_get_int(v); break;
    case PROP_REFINEMENT: s->r = g_value_get_int(v); break;
    case PROP_SIGF: s->sigf = g_value_get_boolean(v); break;
    case PROP_VPRED: s->vpred = g_value_get_boolean(v); break;
    case PROP_RAW: s->raw = g_value_get_boolean(v); break;
    case PROP_RUN_MODE: s->run_mode = g_value_get_enum(v); break;
    case PROP_PRECINCT_WIDTH: s->precinct_width = g_value_get_int(v); break;
    case PROP_LOSSLESS: s->lossless = g_value_get_boolean(v); break;
    case PROP_DEVICE: s->device = g_value_get_enum(v); break;
    case PROP_GPU_ID: s->gpu_id = g_value_get_int(v); break;
    case PROP_TUNE: s->tune = g_value_get_enum(v); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void xsflow_enc_get_property(GObject *obj, guint id, GValue *v, GParamSpec *pspec)
{
    XsflowEnc *self = XSFLOW_ENC(obj);
    const enc_settings *s = &self->set;
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_BPP: g_value_set_double(v, s->bpp); break;
    case PROP_DECOMP_H: g_value_set_int(v, s->decomp_h); break;
    case PROP_DECOMP_V: g_value_set_int(v, s->decomp_v); break;
    case PROP_SLICE_HEIGHT: g_value_set_int(v, s->slice_height); break;
    case PROP_QUANT_MODE: g_value_set_enum(v, s->quant_mode); break;
    case PROP_CODING_SIGNS: g_value_set_enum(v, s->coding_signs); break;
    case PROP_RATE_CONTROL: g_value_set_enum(v, s->rate_control); break;
    case PROP_QUANTIZATION: g_value_set_int(v, s->q); break;
    case PROP_REFINEMENT: g_value_set_int(v, s->r); break;
    case PROP_SIGF: g_value_set_boolean(v, s->sigf); break;
    case PROP_VPRED: g_value_set_boolean(v, s->vpred); break;
    case PROP_RAW: g_value_set_boolean(v, s->raw); break;
    case PROP_RUN_MODE: g_value_set_enum(v, s->run_mode); break;
    case PROP_PRECINCT_WIDTH: g_value_set_int(v, s->precinct_width); break;
    case PROP_LOSSLESS: g_value_set_boolean(v, s->lossless); break;
    case PROP_DEVICE: g_value_set_enum(v, s->device); break;
    case PROP_GPU_ID: g_value_set_int(v, s->gpu_id); break;
    case PROP_TUNE: g_value_set_enum(v, s->tune); break;
    case PROP_ENGINE:
        g_value_set_string(v, !self->enc ? NULL : self->on_gpu ? "GPU" : "CPU");
        break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void xsflow_enc_class_init(XsflowEncClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstVideoEncoderClass *ve_class = GST_VIDEO_ENCODER_CLASS(klass);
    oc->set_property = xsflow_enc_set_property;
    oc->get_property = xsflow_enc_get_property;
    g_object_class_install_property(
        oc, PROP_BPP,
        g_param_spec_double(
            "bits-per-pixel", "Bits per pixel",
            "Target rate in bits per pixel of component 0 (may be fractional, e.g. 3.75)", 0.01,
            64.0, 3.0, RW));
    g_object_class_install_property(
        oc, PROP_DECOMP_H,
        g_param_spec_int("decomp-h", "Horizontal decompositions",
                         "Horizontal wavelet levels (at least decomp-v)", 1, 8, 5, RW));
    g_object_class_install_property(oc, PROP_DECOMP_V,
                                    g_param_spec_int("decomp-v", "Vertical decompositions",
                                                     "Vertical wavelet levels", 0, 2, 2, RW));
    g_object_class_install_property(
        oc, PROP_SLICE_HEIGHT,
        g_param_spec_int("slice-height", "Slice height",
                         "Slice height in lines, a multiple of 2^decomp-v (0: 16)", 0, 65535, 16,
                         RW));
    g_object_class_install_property(oc, PROP_QUANT_MODE,
                                    g_param_spec_enum("quant-mode", "Quantization mode",
                                                      "Inverse quantizer", quant_mode_type(), 0,
                                                      RW));
    g_object_class_install_property(oc, PROP_CODING_SIGNS,
                                    g_param_spec_enum("coding-signs", "Sign coding",
                                                      "Sign handling", coding_signs_type(), 2, RW));
    g_object_class_install_property(oc, PROP_RATE_CONTROL,
                                    g_param_spec_enum("rate-control-mode", "Rate control",
                                                      "How the rate is held", rate_control_type(),
                                                      XS_RC_SLICE, RW));
    g_object_class_install_property(oc, PROP_QUANTIZATION,
                                    g_param_spec_int("quantization", "Quantization",
                                                     "Rate control fixed: quantization Q", 0, 30, 0,
                                                     RW));
    g_object_class_install_property(oc, PROP_REFINEMENT,
                                    g_param_spec_int("refinement", "Refinement",
                                                     "Rate control fixed: refinement R", 0, 255, 0,
                                                     RW));
    g_object_class_install_property(oc, PROP_SIGF,
                                    g_param_spec_boolean("coding-sigf", "Significance flags",
                                                         "Allow significance coding", TRUE, RW));
    g_object_class_install_property(
        oc, PROP_VPRED,
        g_param_spec_boolean("coding-vpred", "Vertical prediction",
                             "Allow vertical prediction of bit-plane counts", TRUE, RW));
    g_object_class_install_property(oc, PROP_RAW,
                                    g_param_spec_boolean("coding-raw", "Raw mode",
                                                         "Allow raw bit-plane counts per packet",
                                                         TRUE, RW));
    g_object_class_install_property(
        oc, PROP_RUN_MODE,
        g_param_spec_enum("run-mode", "Run mode", "Significance run mode", run_mode_type(), 0, RW));
    g_object_class_install_property(
        oc, PROP_PRECINCT_WIDTH,
        g_param_spec_int("precinct-width", "Precinct width",
                         "Precinct width in units of 8 x 2^decomp-h samples (0: the full width)", 0,
                         65535, 0, RW));
    g_object_class_install_property(
        oc, PROP_LOSSLESS,
        g_param_spec_boolean("lossless", "Lossless", "Lossless coding (bits-per-pixel is ignored)",
                             FALSE, RW));
    g_object_class_install_property(oc, PROP_DEVICE,
                                    g_param_spec_enum("device", "Device", "Where to encode",
                                                      XSF_GST_TYPE_DEVICE, XSF_GST_DEVICE_AUTO,
                                                      RW));
    g_object_class_install_property(
        oc, PROP_GPU_ID,
        g_param_spec_int("gpu-id", "GPU id", "CUDA device to encode on", 0, 63, 0, RW));
    g_object_class_install_property(
        oc, PROP_TUNE,
        g_param_spec_enum("tune", "Tune",
                          "What the gains and priorities minimize (xsflow encode --tune)",
                          tune_type(), XS_TUNE_PSNR, RW));
    g_object_class_install_property(
        oc, PROP_ENGINE,
        g_param_spec_string("engine", "Engine", "Which encoder runs: GPU or CPU (once configured)",
                            NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    gst_type_mark_as_plugin_api(quant_mode_type(), 0);
    gst_type_mark_as_plugin_api(coding_signs_type(), 0);
    gst_type_mark_as_plugin_api(rate_control_type(), 0);
    gst_type_mark_as_plugin_api(run_mode_type(), 0);
    gst_type_mark_as_plugin_api(tune_type(), 0);
    gst_type_mark_as_plugin_api(XSF_GST_TYPE_DEVICE, 0);

    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "xsflow JPEG XS encoder", "Codec/Encoder/Video",
        "Encodes JPEG XS (ISO/IEC 21122) on the GPU, or on the CPU "
        "where no GPU is usable",
        "xsflow");
    ve_class->set_format = GST_DEBUG_FUNCPTR(xsflow_enc_set_format);
    ve_class->handle_frame = GST_DEBUG_FUNCPTR(xsflow_enc_handle_frame);
    ve_class->stop = GST_DEBUG_FUNCPTR(xsflow_enc_stop);
    ve_class->propose_allocation = GST_DEBUG_FUNCPTR(xsflow_enc_propose_allocation);
}

static void xsflow_enc_init(XsflowEnc *self)
{
    /* Every setting at its property's default, as class_init states them. */
    guint n = 0;
    GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(self), &n);
    for (guint i = 0; i < n; i++)
        if (specs[i]->owner_type == XSFLOW_TYPE_ENC && (specs[i]->flags & G_PARAM_WRITABLE))
            xsflow_enc_set_property(G_OBJECT(self), specs[i]->param_id,
                                    g_param_spec_get_default_value(specs[i]), specs[i]);
    g_free(specs);
    self->codec = xsf_codec_find("jpeg-xs");
    self->fields = 1;
}
