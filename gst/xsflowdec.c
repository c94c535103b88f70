/* xsflowdec: JPEG XS decoder (GstVideoDecoder) on the GPU, or the C decoder.
 *
 * Several frames are in flight at once (decode_engine.h): handle_frame
 * queues the codestream and returns; pictures come back in order and are
 * finished from the streaming thread. With interlace-mode=fields each
 * buffer holds two codestreams, first field first; they are decoded as two
 * pictures and woven into one interleaved frame. */
#include <string.h>

#include <gst/video/video.h>

#include "decode_engine.h"
#include "xsflow_gst.h"

GST_DEBUG_CATEGORY_STATIC(xsflowdec_debug);
#define GST_CAT_DEFAULT xsflowdec_debug

#define XSFLOW_TYPE_DEC (xsflow_dec_get_type())
G_DECLARE_FINAL_TYPE(XsflowDec, xsflow_dec, XSFLOW, DEC, GstVideoDecoder)

enum { PROP_0, PROP_DEVICE, PROP_GPU_ID, PROP_FRAMES_IN_FLIGHT, PROP_ENGINE };

/* A frame in flight: one codestream, or two fields. */
typedef struct dec_frame {
    GstVideoCodecFrame *frame;
    int fields, done, failed;
} dec_frame;

/* One codestream in flight. */
typedef struct dec_job {
    dec_frame *f;
    int field;
} dec_job;

struct _XsflowDec {
    GstVideoDecoder parent;
    XsfGstDevice device;
    int gpu_id;
    guint frames_in_flight;
    xsfd_engine *engine;
    GstVideoCodecState *input_state;
    int fields;
    /* The negotiated output. */
    GstVideoFormat format;
    int out_width, out_height;
    int stopping;
    GstFlowReturn flow; /* of the pictures finished since the last handle_frame */
};

G_DEFINE_TYPE(XsflowDec, xsflow_dec, GST_TYPE_VIDEO_DECODER)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(xsflowdec, "xsflowdec", GST_RANK_PRIMARY + 1, XSFLOW_TYPE_DEC,
                                      GST_DEBUG_CATEGORY_INIT(xsflowdec_debug, "xsflowdec", 0,
                                                              "xsflow JPEG XS decoder"));

#define DEC_FORMATS                                                                                \
    "{ I420, Y42B, Y444, I420_10LE, I422_10LE, Y444_10LE, I420_12LE, I422_12LE, Y444_12LE, "       \
    "Y444_16LE, GRAY8, GRAY16_LE, GBR, GBR_10LE, GBR_12LE, GBRA, GBRA_10LE, GBRA_12LE, A420, "     \
    "A420_10LE, A422_10LE, A444_10LE }"

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(DEC_FORMATS) "; " GST_VIDEO_CAPS_MAKE(DEC_FORMATS)
                        ", interlace-mode = (string) interleaved"));

/* The output format of a picture: its GStreamer format and the depth its
 * samples are scaled to (8 or the format's). UNKNOWN where none fits. */
static GstVideoFormat output_format(const xs_header *h, const xs_image *img, int *target_depth)
{
    int d = 0;
    for (int c = 0; c < img->nc; c++)
        d = MAX(d, img->depth[c]);
    const int t = d <= 8 ? 8 : d <= 10 ? 10 : d <= 12 ? 12 : 16;
    *target_depth = t;
    if (img->nc == 1)
        return t == 8 ? GST_VIDEO_FORMAT_GRAY8 : (*target_depth = 16, GST_VIDEO_FORMAT_GRAY16_LE);
    if (img->nc != 3 && img->nc != 4)
        return GST_VIDEO_FORMAT_UNKNOWN;
    const int w0 = img->width[0], h0 = img->height[0];
    if (img->width[1] != img->width[2] || img->height[1] != img->height[2])
        return GST_VIDEO_FORMAT_UNKNOWN;
    if (img->nc == 4 && (img->width[3] != w0 || img->height[3] != h0))
        return GST_VIDEO_FORMAT_UNKNOWN;
    const int full = img->width[1] == w0 && img->height[1] == h0;
    const int s422 = img->width[1] == (w0 + 1) / 2 && img->height[1] == h0;
    const int s420 = img->width[1] == (w0 + 1) / 2 && img->height[1] == (h0 + 1) / 2;
    static const GstVideoFormat yuv444[] = {GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_Y444_10LE,
                                            GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE};
    static const GstVideoFormat yuv422[] = {GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_I422_10LE,
                                            GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_UNKNOWN};
    static const GstVideoFormat yuv420[] = {GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420_10LE,
                                            GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_UNKNOWN};
    static const GstVideoFormat rgb[] = {GST_VIDEO_FORMAT_GBR, GST_VIDEO_FORMAT_GBR_10LE,
                                         GST_VIDEO_FORMAT_GBR_12LE, GST_VIDEO_FORMAT_UNKNOWN};
    static const GstVideoFormat rgba[] = {GST_VIDEO_FORMAT_GBRA, GST_VIDEO_FORMAT_GBRA_10LE,
                                          GST_VIDEO_FORMAT_GBRA_12LE, GST_VIDEO_FORMAT_UNKNOWN};
    const int i = t == 8 ? 0 : t == 10 ? 1 : t == 12 ? 2 : 3;
    if (h->cpih == 1)
        return full ? (img->nc == 3 ? rgb : rgba)[i] : GST_VIDEO_FORMAT_UNKNOWN;
    if (img->nc == 3)
        return full ? yuv444[i] : s422 ? yuv422[i] : s420 ? yuv420[i] : GST_VIDEO_FORMAT_UNKNOWN;
    /* Y, Cb, Cr and a full-size alpha. */
    if (t <= 10 && s420)
        return t == 8 ? GST_VIDEO_FORMAT_A420 : (*target_depth = 10, GST_VIDEO_FORMAT_A420_10LE);
    if (t <= 10 && (s422 || full)) {
        *target_depth = 10;
        return s422 ? GST_VIDEO_FORMAT_A422_10LE : GST_VIDEO_FORMAT_A444_10LE;
    }
    return GST_VIDEO_FORMAT_UNKNOWN;
}

/* Copies one component into the frame, rows `step` apart from row `first`,
 * scaling samples of depth d up to t bits (the high bits repeated below). */
static void write_component(GstVideoFrame *vf, int comp, const xs_image *img, int c, int t, int first,
                            int step)
{
    const int w = img->width[c], h = img->height[c], d = img->depth[c];
    const int up = t - d;
    guint8 *base = GST_VIDEO_FRAME_COMP_DATA(vf, comp);
    const int stride = GST_VIDEO_FRAME_COMP_STRIDE(vf, comp);
    const int comp_h = GST_VIDEO_FRAME_COMP_HEIGHT(vf, comp);
    const int comp_w = GST_VIDEO_FRAME_COMP_WIDTH(vf, comp);
    for (int y = 0; y < h; y++) {
        const int row = first + y * step;
        if (row >= comp_h)
            break;
        const uint16_t *src = img->plane[c] + (size_t)y * img->pitch[c];
        const int n = MIN(w, comp_w);
        if (t == 8) {
            guint8 *dst = base + (gsize)row * stride;
            for (int x = 0; x < n; x++) {
                unsigned v = src[x];
                dst[x] = (guint8)(up > 0 ? (v << up) | (v >> (d - up > 0 ? d - up : d)) : v);
            }
        } else {
            guint16 *dst = (guint16 *)(base + (gsize)row * stride);
            for (int x = 0; x < n; x++) {
                unsigned v = src[x];
                if (up > 0)
                    v = (v << up) | (up < d ? v >> (d - up) : 0);
                dst[x] = GUINT16_TO_LE((guint16)v);
            }
        }
    }
}

static gboolean ensure_output(XsflowDec *self, const xsfd_result *r, int *target_depth)
{
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    GstVideoFormat fmt = output_format(r->hdr, r->img, target_depth);
    if (fmt == GST_VIDEO_FORMAT_UNKNOWN) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, (NULL),
                          ("no raw video format for %d components of %dx%d at depth %d", r->img->nc,
                           r->img->width[0], r->img->height[0], r->img->depth[0]));
        return FALSE;
    }
    const int w = r->img->width[0], h = r->img->height[0] * self->fields;
    if (fmt == self->format && w == self->out_width && h == self->out_height &&
        !gst_pad_check_reconfigure(GST_VIDEO_DECODER_SRC_PAD(vd)))
        return TRUE;
    GstVideoCodecState *out = gst_video_decoder_set_output_state(vd, fmt, w, h, self->input_state);
    if (self->fields == 2) {
        GST_VIDEO_INFO_INTERLACE_MODE(&out->info) = GST_VIDEO_INTERLACE_MODE_INTERLEAVED;
        GST_VIDEO_INFO_FIELD_ORDER(&out->info) = GST_VIDEO_FIELD_ORDER_TOP_FIELD_FIRST;
    } else {
        GST_VIDEO_INFO_INTERLACE_MODE(&out->info) = GST_VIDEO_INTERLACE_MODE_PROGRESSIVE;
    }
    gst_video_codec_state_unref(out);
    if (!gst_video_decoder_negotiate(vd)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (NULL), ("downstream refused %s %dx%d",
                                                            gst_video_format_to_string(fmt), w, h));
        return FALSE;
    }
    self->format = fmt;
    self->out_width = w;
    self->out_height = h;
    return TRUE;
}


static void on_picture(void *ctx, const xsfd_result *r)
{
    XsflowDec *self = ctx;
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    dec_job *job = r->user;
    dec_frame *f = job->f;
    const int field = job->field;
    g_free(job);
    f->done++;
    const int last = f->done == f->fields;

    if (self->stopping || r->status == XSF_ERR_AGAIN) { /* stopping, or discarded by a flush */
        if (last) {
            if (self->stopping)
                gst_video_codec_frame_unref(f->frame);
            else
                gst_video_decoder_release_frame(vd, f->frame);
            g_free(f);
        }
        return;
    }
    if (r->status != XSF_OK) {
        f->failed = 1;
        GST_VIDEO_DECODER_ERROR(self, 1, STREAM, DECODE, (NULL),
                                ("frame %u%s: %s (%s)", f->frame->system_frame_number,
                                 f->fields == 2 ? (field ? " second field" : " first field") : "",
                                 r->message, xsf_status_name(r->status)),
                                self->flow);
    }
    int target = 8;
    if (!f->failed && !ensure_output(self, r, &target)) {
        f->failed = 1;
        self->flow = GST_FLOW_NOT_NEGOTIATED;
    }
    if (!f->failed && !f->frame->output_buffer) {
        GstFlowReturn ret = gst_video_decoder_allocate_output_frame(vd, f->frame);
        if (ret != GST_FLOW_OK) {
            f->failed = 1;
            self->flow = ret;
        }
    }
    if (!f->failed) {
        GstVideoCodecState *out = gst_video_decoder_get_output_state(vd);
        GstVideoFrame vf;
        if (!gst_video_frame_map(&vf, &out->info, f->frame->output_buffer, GST_MAP_WRITE)) {
            GST_ELEMENT_ERROR(self, RESOURCE, WRITE, (NULL), ("cannot map the output buffer"));
            f->failed = 1;
            self->flow = GST_FLOW_ERROR;
        } else {
            for (int c = 0; c < r->img->nc && c < (int)GST_VIDEO_FRAME_N_COMPONENTS(&vf); c++)
                write_component(&vf, c, r->img, c, target, field, f->fields);
            gst_video_frame_unmap(&vf);
        }
        gst_video_codec_state_unref(out);
    }
    if (!last)
        return;
    GstFlowReturn ret;
    if (f->failed)
        ret = gst_video_decoder_drop_frame(vd, f->frame);
    else
        ret = gst_video_decoder_finish_frame(vd, f->frame);
    g_free(f);
    if (self->flow == GST_FLOW_OK)
        self->flow = ret;
}

static gboolean xsflow_dec_start(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    char msg[XSF_ERRMSG_LEN];
    GST_OBJECT_LOCK(self);
    const xsfd_device dev = self->device == XSF_GST_DEVICE_GPU   ? XSFD_GPU
                            : self->device == XSF_GST_DEVICE_CPU ? XSFD_CPU
                                                                 : XSFD_AUTO;
    const int gpu_id = self->gpu_id;
    const guint n = self->frames_in_flight;
    GST_OBJECT_UNLOCK(self);
    xsf_status st = xsfd_engine_create(&self->engine, dev, gpu_id, n, on_picture, self, msg);
    if (st != XSF_OK) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("no JPEG XS decoder: %s", msg),
                          ("%s", xsf_status_name(st)));
        return FALSE;
    }
    GST_INFO_OBJECT(self, "decoding on the %s, %u frames in flight", xsfd_engine_name(self->engine),
                    xsfd_engine_in_flight(self->engine));
    self->stopping = 0;
    self->flow = GST_FLOW_OK;
    self->format = GST_VIDEO_FORMAT_UNKNOWN;
    self->out_width = self->out_height = 0;
    self->fields = 1;
    return TRUE;
}

static gboolean xsflow_dec_stop(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    if (self->engine) {
        self->stopping = 1;
        xsfd_engine_finish(self->engine, 1);
        GST_OBJECT_LOCK(self);
        xsfd_engine *e = self->engine;
        self->engine = NULL;
        GST_OBJECT_UNLOCK(self);
        xsfd_engine_destroy(e);
    }
    g_clear_pointer(&self->input_state, gst_video_codec_state_unref);
    return TRUE;
}

static gboolean xsflow_dec_set_format(GstVideoDecoder *vd, GstVideoCodecState *state)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    const GstStructure *s = gst_caps_get_structure(state->caps, 0);
    const char *mode = gst_structure_get_string(s, "interlace-mode");
    const int fields = mode && !strcmp(mode, "fields") ? 2 : 1;
    if (self->engine && fields != self->fields)
        xsfd_engine_finish(self->engine, 0);
    self->fields = fields;
    self->out_width = 0; /* renegotiate with the new input state */
    g_clear_pointer(&self->input_state, gst_video_codec_state_unref);
    self->input_state = gst_video_codec_state_ref(state);
    return TRUE;
}

static GstFlowReturn xsflow_dec_handle_frame(GstVideoDecoder *vd, GstVideoCodecFrame *frame)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    GstMapInfo map;
    if (!gst_buffer_map(frame->input_buffer, &map, GST_MAP_READ)) {
        gst_video_decoder_drop_frame(vd, frame);
        GST_ELEMENT_ERROR(self, RESOURCE, READ, (NULL), ("cannot map the input buffer"));
        return GST_FLOW_ERROR;
    }
    /* Where each field's codestream lies. */
    gsize off[2] = {0, 0}, len[2] = {map.size, 0};
    const int fields = self->fields;
    if (fields == 2) {
        xsf_error err = {0};
        gsize first = 0;
        if (xsf_gst_codestream_size(map.data, map.size, &first, &err) != XSF_OK) {
            gst_buffer_unmap(frame->input_buffer, &map);
            GstFlowReturn ret = GST_FLOW_OK;
            GST_VIDEO_DECODER_ERROR(self, 1, STREAM, DECODE, (NULL),
                                    ("first field: %s", err.msg), ret);
            gst_video_decoder_drop_frame(vd, frame);
            return ret;
        }
        len[0] = first;
        off[1] = first;
        len[1] = map.size - first;
    }
    self->flow = GST_FLOW_OK;
    dec_frame *f = g_new0(dec_frame, 1);
    f->frame = frame; /* our reference, given to finish_frame by the last field */
    f->fields = fields;
    xsf_status st = XSF_OK;
    for (int i = 0; i < fields && st == XSF_OK; i++) {
        dec_job *job = g_new0(dec_job, 1);
        job->f = f;
        job->field = i;
        st = xsfd_engine_submit(self->engine, map.data + off[i], len[i], job);
        if (st != XSF_OK)
            g_free(job);
    }
    gst_buffer_unmap(frame->input_buffer, &map);
    if (st != XSF_OK) {
        /* The engine failed (memory, CUDA): nothing more can be decoded. */
        xsfd_engine_finish(self->engine, 0);
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, (NULL), ("decoder: %s", xsf_status_name(st)));
        return GST_FLOW_ERROR;
    }
    return self->flow;
}

static GstFlowReturn xsflow_dec_drain(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    self->flow = GST_FLOW_OK;
    if (self->engine)
        xsfd_engine_finish(self->engine, 0);
    return self->flow;
}

static gboolean xsflow_dec_flush(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    if (self->engine)
        xsfd_engine_finish(self->engine, 1);
    self->flow = GST_FLOW_OK;
    return TRUE;
}

static gboolean xsflow_dec_decide_allocation(GstVideoDecoder *vd, GstQuery *query)
{
    if (!GST_VIDEO_DECODER_CLASS(xsflow_dec_parent_class)->decide_allocation(vd, query))
        return FALSE;
    GstBufferPool *pool = NULL;
    if (gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, &pool, NULL, NULL, NULL);
    if (pool) {
        GstStructure *config = gst_buffer_pool_get_config(pool);
        if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL))
            gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        gst_buffer_pool_set_config(pool, config);
        gst_object_unref(pool);
    }
    return TRUE;
}

static void xsflow_dec_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *pspec)
{
    XsflowDec *self = XSFLOW_DEC(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_DEVICE:
        self->device = g_value_get_enum(v);
        break;
    case PROP_GPU_ID:
        self->gpu_id = g_value_get_int(v);
        break;
    case PROP_FRAMES_IN_FLIGHT:
        self->frames_in_flight = g_value_get_uint(v);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void xsflow_dec_get_property(GObject *obj, guint id, GValue *v, GParamSpec *pspec)
{
    XsflowDec *self = XSFLOW_DEC(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_DEVICE:
        g_value_set_enum(v, self->device);
        break;
    case PROP_GPU_ID:
        g_value_set_int(v, self->gpu_id);
        break;
    case PROP_FRAMES_IN_FLIGHT:
        g_value_set_uint(v, self->frames_in_flight);
        break;
    case PROP_ENGINE:
        g_value_set_string(v, self->engine ? xsfd_engine_name(self->engine) : NULL);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void xsflow_dec_class_init(XsflowDecClass *klass)
{
    GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstVideoDecoderClass *vd_class = GST_VIDEO_DECODER_CLASS(klass);

    gobject_class->set_property = xsflow_dec_set_property;
    gobject_class->get_property = xsflow_dec_get_property;
    g_object_class_install_property(
        gobject_class, PROP_DEVICE,
        g_param_spec_enum("device", "Device", "Where to decode", XSF_GST_TYPE_DEVICE,
                          XSF_GST_DEVICE_AUTO,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        gobject_class, PROP_GPU_ID,
        g_param_spec_int("gpu-id", "GPU id", "CUDA device to decode on", 0, 63, 0,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        gobject_class, PROP_FRAMES_IN_FLIGHT,
        g_param_spec_uint("frames-in-flight", "Frames in flight",
                          "Codestreams decoded at once (0: 3 on the GPU, one per core on the CPU)", 0,
                          32, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        gobject_class, PROP_ENGINE,
        g_param_spec_string("engine", "Engine", "Which decoder runs: GPU or CPU (once started)", NULL,
                            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    gst_type_mark_as_plugin_api(XSF_GST_TYPE_DEVICE, 0);

    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(element_class, "xsflow JPEG XS decoder", "Codec/Decoder/Video",
                                          "Decodes JPEG XS (ISO/IEC 21122) codestreams on the GPU, or on "
                                          "the CPU where no GPU is usable",
                                          "xsflow");

    vd_class->start = GST_DEBUG_FUNCPTR(xsflow_dec_start);
    vd_class->stop = GST_DEBUG_FUNCPTR(xsflow_dec_stop);
    vd_class->set_format = GST_DEBUG_FUNCPTR(xsflow_dec_set_format);
    vd_class->handle_frame = GST_DEBUG_FUNCPTR(xsflow_dec_handle_frame);
    vd_class->drain = GST_DEBUG_FUNCPTR(xsflow_dec_drain);
    vd_class->finish = GST_DEBUG_FUNCPTR(xsflow_dec_drain);
    vd_class->flush = GST_DEBUG_FUNCPTR(xsflow_dec_flush);
    vd_class->decide_allocation = GST_DEBUG_FUNCPTR(xsflow_dec_decide_allocation);
}

static void xsflow_dec_init(XsflowDec *self)
{
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    gst_video_decoder_set_packetized(vd, TRUE);
    gst_video_decoder_set_use_default_pad_acceptcaps(vd, TRUE);
    GST_PAD_SET_ACCEPT_TEMPLATE(GST_VIDEO_DECODER_SINK_PAD(vd));
    self->device = XSF_GST_DEVICE_AUTO;
    self->fields = 1;
}
