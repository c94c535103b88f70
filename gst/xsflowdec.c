/* xsflowdec: JPEG XS decoder (GstVideoDecoder) on the pipeline of
 * pipeline/ (pipeline.h): the GPU engine where usable, else the C decoder.
 *
 * One pl_pipeline per element, from start to stop, with one stream
 * (PL_BLOCK: nothing is dropped, the streaming thread waits for a free
 * frame). handle_frame copies the codestream into a pipeline frame
 * (pinned memory with the GPU engine) and submits it; several frames are
 * decoded at once. The stream's sink, deliver(), runs on a decode thread,
 * frames in order, and finishes each GstVideoCodecFrame there:
 *  - zero copy where the output format's layout is the picture's (uint16
 *    samples at the format's depth, planes one after another, tight rows:
 *    the *_10LE, *_12LE, *_16LE planar formats at the stream's own depth):
 *    the picture is wrapped in a GstBuffer whose memory gives the frame
 *    back to the pipeline's pool when downstream frees it. A GstVideoMeta
 *    carries the real offsets and strides (GStreamer's default strides
 *    round rows up to 4 bytes, and GBR orders its planes G, B, R); where
 *    they differ from the defaults and downstream takes no video meta, the
 *    picture is copied instead;
 *  - otherwise (8-bit formats, depths scaled to the format's, two fields
 *    woven into one frame, or too many pictures already held downstream)
 *    the picture is converted into a buffer of the negotiated pool, on the
 *    decode thread, and the frame goes back to the pool at once.
 * With interlace-mode=fields each input buffer holds two codestreams,
 * first field first; they travel as one pipeline frame of two fields.
 *
 * Packed and semi-planar formats (v210, UYVP: ST 2110-20's pgroup, UYVY,
 * NV12, P010_10LE, RGBA, BGRA; and I420 for a stream that is not 4:2:0
 * 8-bit): where downstream takes none of the planar formats of the stream's
 * layout, the first format downstream prefers that applies to the stream
 * (xsf_format_convert) becomes the stream's picture request
 * (pl_stream_config.pix_fmt): the decoder writes it (on the GPU its last
 * kernel), and the picture is lent as it is (zero copy, with a GstVideoMeta
 * where its strides are not GStreamer's) or its rows copied. The request is
 * made with the stream, from its first codestream and downstream's caps
 * then, and stays for the element's run (start to stop).
 *
 * Locking. GstVideoDecoder's state (frame list, output state, negotiation,
 * pushing downstream) is guarded by its stream lock, so deliver() takes it
 * to finish a frame. Everything here that waits for deliver() therefore
 * waits with the stream lock released: handle_frame around
 * pl_frame_acquire (a free frame), drain and finish around
 * pl_stream_finish, flush around pl_stream_flush, set_format around the
 * drain of the old format. GstVideoDecoder (1.22) calls those vfuncs with
 * the stream lock taken once (chain, setcaps, sink_event for EOS,
 * STREAM_START and FLUSH_STOP), so one unlock releases it. The other way,
 * deliver() queueing pictures for a src-pad task, needs the same unlocking
 * (the task needs the lock to finish frames while drain and flush wait for
 * them) plus a task to stop on every state change; the pipeline's in-order
 * deliver() on a decode thread already is such a task. Stop runs after the
 * pads are deactivated (the streaming thread has left handle_frame) and
 * before the base class takes the stream lock.
 *
 * deliver() finds its GstVideoCodecFrame by system_frame_number, which
 * GstVideoDecoder never reuses: a frame dropped by a flush is simply not
 * found, and `discarding` covers the window of flush and stop. Pictures
 * lent downstream hold a reference on the pipeline (dec_pipe), so that a
 * buffer outliving the element's stop still finds its pool. */
#include <string.h>
#include <unistd.h>

#include <gst/video/video.h>

#include "pipeline.h"
#include "xsflow_gst.h"

GST_DEBUG_CATEGORY_STATIC(xsflowdec_debug);
#define GST_CAT_DEFAULT xsflowdec_debug

#define XSFLOW_TYPE_DEC (xsflow_dec_get_type())
G_DECLARE_FINAL_TYPE(XsflowDec, xsflow_dec, XSFLOW, DEC, GstVideoDecoder)

enum {
    PROP_0,
    PROP_DEVICE,
    PROP_GPU_ID,
    PROP_FRAMES_IN_FLIGHT,
    PROP_POOL_FRAMES,
    PROP_ZERO_COPY,
    PROP_ENGINE
};

/* Pictures downstream may hold at once beyond what keeps the decoders
 * busy, with pool-frames=0. */
#define DEC_DEFAULT_LENT 4

/* The pipeline, shared by the element and the pictures it lends. */
typedef struct dec_pipe {
    gint refs; /* the element's (start to stop) and one per picture lent downstream */
    gint lent; /* pictures lent downstream */
    pl_pipeline *pl;
    int stream;   /* -1 until the first frame (its size sizes the pool's buffers) */
    guint frames; /* of the stream's pool */
} dec_pipe;

struct _XsflowDec {
    GstVideoDecoder parent;
    /* Properties (object lock). */
    XsfGstDevice device;
    int gpu_id;
    guint frames_in_flight;
    guint pool_frames;
    gboolean zero_copy;
    /* From start to stop. */
    dec_pipe *pipe;
    gint lend_limit; /* lend pictures while fewer than this are out */
    gboolean on_gpu;
    /* Under the stream lock. */
    GstVideoCodecState *input_state;
    int fields;
    GstVideoFormat format; /* negotiated output */
    int out_width, out_height, out_fields;
    int target_depth;         /* the output format's sample depth */
    gboolean downstream_meta; /* downstream takes GstVideoMeta */
    gboolean discarding;      /* flush or stop under way: deliver() drops */
    GstFlowReturn flow;       /* of the frames finished on the decode thread */
};

G_DEFINE_TYPE(XsflowDec, xsflow_dec, GST_TYPE_VIDEO_DECODER)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(xsflowdec, "xsflowdec", GST_RANK_PRIMARY + 1, XSFLOW_TYPE_DEC,
                                      GST_DEBUG_CATEGORY_INIT(xsflowdec_debug, "xsflowdec", 0,
                                                              "xsflow JPEG XS decoder"));

#define DEC_FORMATS                                                                                \
    "{ I420, Y42B, Y444, I420_10LE, I422_10LE, Y444_10LE, I420_12LE, I422_12LE, Y444_12LE, "       \
    "Y444_16LE, GRAY8, GRAY16_LE, GBR, GBR_10LE, GBR_12LE, GBRA, GBRA_10LE, GBRA_12LE, A420, "     \
    "A420_10LE, A422_10LE, A444_10LE, v210, UYVP, UYVY, NV12, P010_10LE, RGBA, BGRA }"

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(DEC_FORMATS) "; " GST_VIDEO_CAPS_MAKE(
        DEC_FORMATS) ", interlace-mode = (string) interleaved"));

/* ---- the pipeline's lifetime ---- */

static void dec_pipe_unref(dec_pipe *pp)
{
    if (g_atomic_int_dec_and_test(&pp->refs)) {
        pl_destroy(pp->pl); /* every frame is back: the last picture was freed */
        g_free(pp);
    }
}

/* The destroy notify of a lent picture's memory (any thread). */
static void lent_picture_free(gpointer data)
{
    pl_frame *pf = data;
    dec_pipe *pp = (dec_pipe *)(guintptr)pf->user;
    pl_frame_release(pf);
    g_atomic_int_add(&pp->lent, -1);
    dec_pipe_unref(pp);
}

/* ---- output formats ---- */

/* Formats by layout, at depths 8, 10, 12, 16 (UNKNOWN where GStreamer has none). */
enum {
    LAYOUT_GRAY,
    LAYOUT_444,
    LAYOUT_422,
    LAYOUT_420,
    LAYOUT_GBR,
    LAYOUT_GBRA,
    LAYOUT_A420,
    LAYOUT_A422,
    LAYOUT_A444,
    LAYOUTS
};
static const GstVideoFormat layout_formats[LAYOUTS][4] = {
    {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_UNKNOWN, GST_VIDEO_FORMAT_UNKNOWN,
     GST_VIDEO_FORMAT_GRAY16_LE},
    {GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_Y444_12LE,
     GST_VIDEO_FORMAT_Y444_16LE},
    {GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_12LE,
     GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_I420_12LE,
     GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_GBR, GST_VIDEO_FORMAT_GBR_10LE, GST_VIDEO_FORMAT_GBR_12LE,
     GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_GBRA, GST_VIDEO_FORMAT_GBRA_10LE, GST_VIDEO_FORMAT_GBRA_12LE,
     GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_A420, GST_VIDEO_FORMAT_A420_10LE, GST_VIDEO_FORMAT_UNKNOWN,
     GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_UNKNOWN, GST_VIDEO_FORMAT_A422_10LE, GST_VIDEO_FORMAT_UNKNOWN,
     GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_UNKNOWN, GST_VIDEO_FORMAT_A444_10LE, GST_VIDEO_FORMAT_UNKNOWN,
     GST_VIDEO_FORMAT_UNKNOWN},
};
static const int layout_depths[4] = {8, 10, 12, 16};

/* The layout of a picture, or -1. */
static int picture_layout(int rgb, const xsf_picture *pic)
{
    if (pic->fmt.nc == 1)
        return LAYOUT_GRAY;
    if (pic->fmt.nc != 3 && pic->fmt.nc != 4)
        return -1;
    const int w0 = pic->fmt.width[0], h0 = pic->fmt.height[0];
    if (pic->fmt.width[1] != pic->fmt.width[2] || pic->fmt.height[1] != pic->fmt.height[2])
        return -1;
    if (pic->fmt.nc == 4 && (pic->fmt.width[3] != w0 || pic->fmt.height[3] != h0))
        return -1;
    const int full = pic->fmt.width[1] == w0 && pic->fmt.height[1] == h0;
    const int s422 = pic->fmt.width[1] == (w0 + 1) / 2 && pic->fmt.height[1] == h0;
    const int s420 = pic->fmt.width[1] == (w0 + 1) / 2 && pic->fmt.height[1] == (h0 + 1) / 2;
    if (rgb)
        return full ? (pic->fmt.nc == 3 ? LAYOUT_GBR : LAYOUT_GBRA) : -1;
    if (pic->fmt.nc == 3)
        return full ? LAYOUT_444 : s422 ? LAYOUT_422 : s420 ? LAYOUT_420 : -1;
    return full ? LAYOUT_A444 : s422 ? LAYOUT_A422 : s420 ? LAYOUT_A420 : -1;
}

/* The format of the picture's own depth: the smallest depth of the layout
 * that holds every component. UNKNOWN where none does. */
static GstVideoFormat native_format(int layout, const xsf_picture *pic, int *depth)
{
    int d = 0;
    for (int c = 0; c < pic->fmt.nc; c++)
        d = MAX(d, pic->fmt.depth[c]);
    for (int i = 0; i < 4 && layout >= 0; i++) {
        if (layout_depths[i] >= d && layout_formats[layout][i] != GST_VIDEO_FORMAT_UNKNOWN) {
            *depth = layout_depths[i];
            return layout_formats[layout][i];
        }
    }
    return GST_VIDEO_FORMAT_UNKNOWN;
}

/* Whether downstream's `allowed` caps take format `f`. */
static gboolean takes(GstCaps *allowed, GstVideoFormat f)
{
    GstCaps *one = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                       gst_video_format_to_string(f), NULL);
    const gboolean ok = gst_caps_can_intersect(one, allowed);
    gst_caps_unref(one);
    return ok;
}

/* The format to negotiate: the native one if downstream takes it, else
 * another depth of the same layout that it takes (e.g. caps forcing Y42B
 * for a 10-bit stream), else the native one (negotiation then fails with
 * downstream's reason). */
static GstVideoFormat pick_format(XsflowDec *self, int layout, GstVideoFormat native, int *depth)
{
    GstCaps *allowed = gst_pad_get_allowed_caps(GST_VIDEO_DECODER_SRC_PAD(self));
    GstVideoFormat fmt = native;
    if (allowed && !gst_caps_is_any(allowed)) {
        int order[4] = {0, 1, 2, 3}; /* native first, then others from deep to shallow */
        int k = 0, native_i = 0;
        for (int i = 0; i < 4; i++)
            if (layout_formats[layout][i] == native)
                native_i = i;
        order[k++] = native_i;
        for (int i = 3; i >= 0; i--)
            if (i != native_i)
                order[k++] = i;
        for (int j = 0; j < 4; j++) {
            const GstVideoFormat f = layout_formats[layout][order[j]];
            if (f == GST_VIDEO_FORMAT_UNKNOWN)
                continue;
            if (takes(allowed, f)) {
                fmt = f;
                *depth = layout_depths[order[j]];
                break;
            }
        }
    }
    if (allowed)
        gst_caps_unref(allowed);
    return fmt;
}

/* The formats the pipeline writes itself (its picture request), GStreamer's
 * names for xsf_picture.h's containers. */
static const struct {
    GstVideoFormat gst;
    xsf_container container;
} written_formats[] = {
    {GST_VIDEO_FORMAT_v210, XSF_V210},  {GST_VIDEO_FORMAT_UYVP, XSF_PGROUP10},
    {GST_VIDEO_FORMAT_UYVY, XSF_UYVY},  {GST_VIDEO_FORMAT_NV12, XSF_NV12},
    {GST_VIDEO_FORMAT_I420, XSF_I420},  {GST_VIDEO_FORMAT_P010_10LE, XSF_P010},
    {GST_VIDEO_FORMAT_RGBA, XSF_RGBA8}, {GST_VIDEO_FORMAT_BGRA, XSF_BGRA8},
};

static GstVideoFormat written_format(xsf_container c)
{
    for (size_t i = 0; i < G_N_ELEMENTS(written_formats); i++)
        if (written_formats[i].container == c)
            return written_formats[i].gst;
    return GST_VIDEO_FORMAT_UNKNOWN;
}

/* The container downstream's format string `name` asks the pipeline to write for a
 * picture of `shape` (its format and colour), or planar16 where it is none of
 * written_formats or does not apply to the picture. */
static xsf_container written_container(const char *name, const xsf_picture *shape)
{
    const GstVideoFormat f = name ? gst_video_format_from_string(name) : GST_VIDEO_FORMAT_UNKNOWN;
    xsf_format out;
    for (size_t i = 0; i < G_N_ELEMENTS(written_formats); i++)
        if (written_formats[i].gst == f &&
            xsf_format_convert(&shape->fmt, &shape->colour, written_formats[i].container, &out,
                               NULL) == XSF_OK)
            return written_formats[i].container;
    return XSF_PLANAR_U16;
}

/* The stream's picture request (see the top), from its first codestream
 * data[0, len) and downstream's caps: planar16 where downstream takes any
 * format (or nothing is known), or a planar format of the picture's layout. */
static xsf_container choose_request(XsflowDec *self, const guint8 *data, gsize len)
{
    xs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_parse_header(data, len, &h, &err) != XSF_OK)
        return XSF_PLANAR_U16; /* the decoder says what is wrong */
    xsf_picture shape;
    xsf_picture_init(&shape);
    shape.fmt.nc = MIN(h.nc, XSF_MAX_COMPONENTS);
    for (int c = 0; c < shape.fmt.nc; c++) {
        shape.fmt.width[c] = h.wf / h.sx[c];
        shape.fmt.height[c] = h.hf / h.sy[c];
        shape.fmt.depth[c] = h.depth[c];
    }
    xs_header_colour(&h, &shape.colour);
    const int layout = picture_layout(shape.colour.source == XSF_COLOUR_CODESTREAM &&
                                          shape.colour.matrix == XSF_MATRIX_IDENTITY,
                                      &shape);
    GstCaps *allowed = gst_pad_get_allowed_caps(GST_VIDEO_DECODER_SRC_PAD(self));
    xsf_container want = XSF_PLANAR_U16;
    gboolean planar = !allowed || gst_caps_is_any(allowed);
    for (int i = 0; i < 4 && !planar && layout >= 0; i++)
        planar = layout_formats[layout][i] != GST_VIDEO_FORMAT_UNKNOWN &&
                 takes(allowed, layout_formats[layout][i]);
    /* Downstream's formats in its order of preference: the first the pipeline writes. */
    for (guint k = 0; !planar && want == XSF_PLANAR_U16 && k < gst_caps_get_size(allowed); k++) {
        const GValue *v = gst_structure_get_value(gst_caps_get_structure(allowed, k), "format");
        if (v && G_VALUE_HOLDS_STRING(v))
            want = written_container(g_value_get_string(v), &shape);
        for (guint j = 0; v && GST_VALUE_HOLDS_LIST(v) && want == XSF_PLANAR_U16 &&
                          j < gst_value_list_get_size(v);
             j++) {
            const GValue *one = gst_value_list_get_value(v, j);
            if (G_VALUE_HOLDS_STRING(one))
                want = written_container(g_value_get_string(one), &shape);
        }
    }
    if (allowed)
        gst_caps_unref(allowed);
    GST_INFO_OBJECT(self, "picture request: %s", xsf_container_name(want));
    return want;
}

/* Negotiates the output for a picture when its format or size changed (or
 * downstream asked for it). Stream lock held. */
static GstFlowReturn ensure_output(XsflowDec *self, const pl_frame *pf)
{
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    const xsf_picture *pic = &pf->picture[0];
    /* The codestream's own RGB (a reversible colour transform): G, B, R planes as they are. */
    const int layout = picture_layout(pic->colour.source == XSF_COLOUR_CODESTREAM &&
                                          pic->colour.matrix == XSF_MATRIX_IDENTITY,
                                      pic);
    int depth = 0;
    const int written = pic->fmt.container != XSF_PLANAR_U16; /* the picture request's */
    const GstVideoFormat native =
        written ? written_format(pic->fmt.container) : native_format(layout, pic, &depth);
    if (native == GST_VIDEO_FORMAT_UNKNOWN) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, (NULL),
                          ("no raw video format for %d components of %dx%d at depth %d",
                           pic->fmt.nc, pic->fmt.width[0], pic->fmt.height[0], pic->fmt.depth[0]));
        return GST_FLOW_ERROR;
    }
    const int w = pic->fmt.width[0], h = pic->fmt.height[0] * pf->fields;
    const gboolean same = self->format != GST_VIDEO_FORMAT_UNKNOWN && w == self->out_width &&
                          h == self->out_height && pf->fields == self->out_fields;
    /* The format chosen last time stays while the picture's shape does. */
    if (same && !gst_pad_check_reconfigure(GST_VIDEO_DECODER_SRC_PAD(vd)))
        return GST_FLOW_OK;
    const GstVideoFormat fmt = written ? native : pick_format(self, layout, native, &depth);
    GstVideoCodecState *out = gst_video_decoder_set_output_state(vd, fmt, w, h, self->input_state);
    if (pf->fields == 2) {
        GST_VIDEO_INFO_INTERLACE_MODE(&out->info) = GST_VIDEO_INTERLACE_MODE_INTERLEAVED;
        GST_VIDEO_INFO_FIELD_ORDER(&out->info) = GST_VIDEO_FIELD_ORDER_TOP_FIELD_FIRST;
    } else {
        GST_VIDEO_INFO_INTERLACE_MODE(&out->info) = GST_VIDEO_INTERLACE_MODE_PROGRESSIVE;
    }
    gst_video_codec_state_unref(out);
    self->downstream_meta = FALSE; /* decide_allocation says */
    if (!gst_video_decoder_negotiate(vd)) {
        self->format = GST_VIDEO_FORMAT_UNKNOWN;
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (NULL),
                          ("downstream refused %s %dx%d", gst_video_format_to_string(fmt), w, h));
        return GST_FLOW_NOT_NEGOTIATED;
    }
    GST_DEBUG_OBJECT(self, "output %s %dx%d (%d-bit samples), downstream %s video meta",
                     gst_video_format_to_string(fmt), w, h, depth,
                     self->downstream_meta ? "takes" : "does not take");
    self->format = fmt;
    self->target_depth = depth;
    self->out_width = w;
    self->out_height = h;
    self->out_fields = pf->fields;
    return GST_FLOW_OK;
}

/* Whether `info` describes the picture's memory as it lies: every
 * component a plane of its own, 16-bit little-endian samples at the
 * picture's depth, of the picture's size. Fills the planes' offsets and
 * strides in bytes, and *custom when they differ from GStreamer's defaults
 * (a GstVideoMeta must then say where they are). */
static gboolean layout_is_picture(const GstVideoInfo *info, const xsf_picture *pic,
                                  gsize offset[GST_VIDEO_MAX_PLANES],
                                  gint stride[GST_VIDEO_MAX_PLANES], gboolean *custom)
{
    const GstVideoFormatInfo *fi = info->finfo;
    if (pic->fmt.container != XSF_PLANAR_U16) { /* the format negotiated for it: its planes */
        const int planes = xsf_format_planes(&pic->fmt);
        if ((int)GST_VIDEO_INFO_N_PLANES(info) != planes || !pic->data[0])
            return FALSE;
        *custom = FALSE;
        for (int p = 0; p < planes; p++) {
            offset[p] = (gsize)(pic->data[p] - pic->data[0]);
            stride[p] = (gint)pic->stride[p];
            if (offset[p] != GST_VIDEO_INFO_PLANE_OFFSET(info, p) ||
                stride[p] != GST_VIDEO_INFO_PLANE_STRIDE(info, p))
                *custom = TRUE;
        }
        return TRUE;
    }
    if (G_BYTE_ORDER != G_LITTLE_ENDIAN || (int)GST_VIDEO_INFO_N_COMPONENTS(info) != pic->fmt.nc ||
        (int)GST_VIDEO_INFO_N_PLANES(info) != pic->fmt.nc || !GST_VIDEO_FORMAT_INFO_IS_LE(fi) ||
        !pic->data[0])
        return FALSE;
    *custom = FALSE;
    for (int c = 0; c < pic->fmt.nc; c++) {
        const guint p = GST_VIDEO_FORMAT_INFO_PLANE(fi, c);
        if (GST_VIDEO_FORMAT_INFO_PSTRIDE(fi, c) != 2 ||
            GST_VIDEO_FORMAT_INFO_POFFSET(fi, c) != 0 || GST_VIDEO_FORMAT_INFO_SHIFT(fi, c) != 0 ||
            (int)GST_VIDEO_FORMAT_INFO_DEPTH(fi, c) != pic->fmt.depth[c] ||
            GST_VIDEO_INFO_COMP_WIDTH(info, c) != pic->fmt.width[c] ||
            GST_VIDEO_INFO_COMP_HEIGHT(info, c) != pic->fmt.height[c])
            return FALSE;
        offset[p] = (gsize)(pic->data[c] - pic->data[0]);
        stride[p] = (gint)pic->stride[c];
        if (offset[p] != GST_VIDEO_INFO_PLANE_OFFSET(info, p) ||
            stride[p] != GST_VIDEO_INFO_PLANE_STRIDE(info, p))
            *custom = TRUE;
    }
    return TRUE;
}

/* Copies one component into the mapped frame, rows `step` apart from row
 * `first` (two fields woven), samples of depth d brought to the frame's
 * depth t: the high bits repeated below when t > d, rounded when t < d. */
static void write_component(GstVideoFrame *vf, int comp, const xsf_picture *pic, int c, int t,
                            int first, int step)
{
    const int w = pic->fmt.width[c], h = pic->fmt.height[c], d = pic->fmt.depth[c];
    guint8 *base = GST_VIDEO_FRAME_COMP_DATA(vf, comp);
    const int stride = GST_VIDEO_FRAME_COMP_STRIDE(vf, comp);
    const int comp_h = GST_VIDEO_FRAME_COMP_HEIGHT(vf, comp);
    const int n = MIN(w, GST_VIDEO_FRAME_COMP_WIDTH(vf, comp));
    const unsigned max = (1u << t) - 1;
    for (int y = 0; y < h; y++) {
        const int row = first + y * step;
        if (row >= comp_h)
            break;
        const uint16_t *src = xsf_picture_row16(pic, c, y);
        guint8 *dst8 = base + (gsize)row * stride;
        if (t == d && t > 8 && G_BYTE_ORDER == G_LITTLE_ENDIAN) {
            memcpy(dst8, src, (size_t)n * sizeof(uint16_t));
            continue;
        }
        /* One loop per case, with no test per sample (the compiler
         * vectorizes them): a UHD picture is 8 to 25 million samples. */
        if (t < d) {
            const unsigned sh = (unsigned)(d - t), half = 1u << (sh - 1);
            if (t == 8)
                for (int x = 0; x < n; x++) {
                    const unsigned v = (src[x] + half) >> sh;
                    dst8[x] = (guint8)(v > max ? max : v);
                }
            else
                for (int x = 0; x < n; x++) {
                    const unsigned v = (src[x] + half) >> sh;
                    ((guint16 *)dst8)[x] = GUINT16_TO_LE((guint16)(v > max ? max : v));
                }
        } else if (t > d) {
            const unsigned up = (unsigned)(t - d), down = up < (unsigned)d ? (unsigned)d - up : 0;
            const unsigned keep = up < (unsigned)d ? ~0u : 0u; /* high bits repeated below */
            for (int x = 0; x < n; x++) {
                const unsigned v = src[x];
                ((guint16 *)dst8)[x] = GUINT16_TO_LE((guint16)((v << up) | ((v >> down) & keep)));
            }
        } else { /* t == d == 8, or a big-endian host */
            if (t == 8)
                for (int x = 0; x < n; x++)
                    dst8[x] = (guint8)src[x];
            else
                for (int x = 0; x < n; x++)
                    ((guint16 *)dst8)[x] = GUINT16_TO_LE(src[x]);
        }
    }
}

/* Copies the planes of a picture the pipeline wrote in the negotiated
 * format into the mapped frame, rows `step` apart from row `first` (two
 * fields woven); each row as long as the shorter of the two. */
static void write_planes(GstVideoFrame *vf, const xsf_picture *pic, int first, int step)
{
    const GstVideoFormatInfo *fi = vf->info.finfo;
    const int planes = MIN(xsf_format_planes(&pic->fmt), (int)GST_VIDEO_FRAME_N_PLANES(vf));
    for (int p = 0; p < planes; p++) {
        int plane_h = 0; /* the frame's rows of plane p: those of a component in it */
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(vf); c++)
            if ((int)GST_VIDEO_FORMAT_INFO_PLANE(fi, c) == p)
                plane_h = MAX(plane_h, GST_VIDEO_FRAME_COMP_HEIGHT(vf, c));
        guint8 *base = GST_VIDEO_FRAME_PLANE_DATA(vf, p);
        const gsize stride = (gsize)GST_VIDEO_FRAME_PLANE_STRIDE(vf, p);
        const gsize n = MIN(xsf_format_row_bytes(&pic->fmt, p), stride);
        const int rows = xsf_format_plane_rows(&pic->fmt, p);
        for (int y = 0; y < rows && first + y * step < plane_h; y++)
            memcpy(base + (gsize)(first + y * step) * stride,
                   pic->data[p] + (gsize)y * pic->stride[p], n);
    }
}

/* ---- the sink of the stream: on a decode thread, frames in order ---- */

/* Finishes `frame` with the picture of `pf`; consumes both. Stream lock held. */
static GstFlowReturn output_picture(XsflowDec *self, GstVideoCodecFrame *frame, pl_frame *pf)
{
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    GstFlowReturn ret = ensure_output(self, pf);
    if (ret != GST_FLOW_OK) {
        pl_frame_release(pf);
        gst_video_decoder_drop_frame(vd, frame);
        return ret;
    }
    GstVideoCodecState *out = gst_video_decoder_get_output_state(vd);
    gsize offset[GST_VIDEO_MAX_PLANES] = {0};
    gint stride[GST_VIDEO_MAX_PLANES] = {0};
    gboolean custom = FALSE;
    dec_pipe *pp = self->pipe;
    if (self->zero_copy && pf->fields == 1 && g_atomic_int_get(&pp->lent) < self->lend_limit &&
        layout_is_picture(&out->info, &pf->picture[0], offset, stride, &custom) &&
        (!custom || self->downstream_meta)) {
        const xsf_picture *pic = &pf->picture[0];
        const gsize bytes = xsf_format_bytes(&pic->fmt); /* its planes, one after the other */
        g_atomic_int_inc(&pp->refs);
        g_atomic_int_inc(&pp->lent);
        pf->user = (guint64)(guintptr)pp; /* the frame is ours now: lent_picture_free reads it */
        GstBuffer *buf =
            gst_buffer_new_wrapped_full(0, pic->data[0], bytes, 0, bytes, pf, lent_picture_free);
        if (custom || self->downstream_meta)
            gst_buffer_add_video_meta_full(
                buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&out->info),
                GST_VIDEO_INFO_WIDTH(&out->info), GST_VIDEO_INFO_HEIGHT(&out->info),
                GST_VIDEO_INFO_N_PLANES(&out->info), offset, stride);
        gst_video_codec_state_unref(out);
        frame->output_buffer = buf;
        return gst_video_decoder_finish_frame(vd, frame);
    }

    /* A copy into a buffer of the negotiated pool. */
    ret = gst_video_decoder_allocate_output_frame(vd, frame);
    if (ret != GST_FLOW_OK) {
        gst_video_codec_state_unref(out);
        pl_frame_release(pf);
        gst_video_decoder_release_frame(vd, frame);
        return ret;
    }
    /* The conversion runs without the stream lock, so that the streaming
     * thread goes on feeding the decoders meanwhile. `frame` stays ours (a
     * reference); a flush meanwhile takes it off the decoder's list. */
    const guint32 number = frame->system_frame_number;
    const int target = self->target_depth;
    GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
    GstVideoFrame vf;
    const gboolean mapped =
        gst_video_frame_map(&vf, &out->info, frame->output_buffer, GST_MAP_WRITE);
    if (mapped) {
        for (int field = 0; field < pf->fields; field++) {
            const xsf_picture *pic = &pf->picture[field];
            if (pic->fmt.container != XSF_PLANAR_U16) {
                write_planes(&vf, pic, field, pf->fields);
                continue;
            }
            for (int c = 0; c < pic->fmt.nc && c < (int)GST_VIDEO_FRAME_N_COMPONENTS(&vf); c++)
                write_component(&vf, c, pic, c, target, field, pf->fields);
        }
        gst_video_frame_unmap(&vf);
    }
    pl_frame_release(pf);
    gst_video_codec_state_unref(out);
    GST_VIDEO_DECODER_STREAM_LOCK(vd);
    GstVideoCodecFrame *still =
        self->discarding ? NULL : gst_video_decoder_get_frame(vd, (int)number);
    if (!still) {
        gst_video_codec_frame_unref(frame);
        return GST_FLOW_OK;
    }
    gst_video_codec_frame_unref(still);
    if (!mapped) {
        GST_ELEMENT_ERROR(self, RESOURCE, WRITE, (NULL), ("cannot map the output buffer"));
        gst_video_decoder_drop_frame(vd, frame);
        return GST_FLOW_ERROR;
    }
    return gst_video_decoder_finish_frame(vd, frame);
}

static void on_decoded(void *ctx, pl_frame *pf)
{
    XsflowDec *self = ctx;
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    GST_VIDEO_DECODER_STREAM_LOCK(vd);
    GstVideoCodecFrame *frame =
        self->discarding ? NULL : gst_video_decoder_get_frame(vd, (int)pf->user);
    if (!frame) { /* flushed */
        GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
        pl_frame_release(pf);
        return;
    }
    const GstFlowReturn ret = output_picture(self, frame, pf);
    if (ret != GST_FLOW_OK && self->flow == GST_FLOW_OK)
        self->flow = ret;
    GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
}

static void on_refused(void *ctx, const pl_frame *pf, const char *why)
{
    XsflowDec *self = ctx;
    GstVideoDecoder *vd = GST_VIDEO_DECODER(self);
    GST_VIDEO_DECODER_STREAM_LOCK(vd);
    GstVideoCodecFrame *frame =
        self->discarding ? NULL : gst_video_decoder_get_frame(vd, (int)pf->user);
    if (frame) {
        /* Counted against max-errors: an error message past it, else (the
         * base class only logs) a warning, so the application hears of it. */
        GstFlowReturn ret = GST_FLOW_OK;
        GST_VIDEO_DECODER_ERROR(self, 1, STREAM, DECODE,
                                ("frame %u does not decode: %s", frame->system_frame_number, why),
                                (NULL), ret);
        if (ret == GST_FLOW_OK)
            GST_ELEMENT_WARNING(self, STREAM, DECODE,
                                ("frame %u does not decode: %s", frame->system_frame_number, why),
                                ("dropped; the stream goes on (max-errors)"));
        gst_video_decoder_drop_frame(vd, frame);
        if (ret != GST_FLOW_OK && self->flow == GST_FLOW_OK)
            self->flow = ret;
    }
    GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
}

/* ---- GstVideoDecoder ---- */

static gboolean xsflow_dec_start(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    GST_OBJECT_LOCK(self);
    pl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = self->device == XSF_GST_DEVICE_GPU   ? PL_ENGINE_GPU
                 : self->device == XSF_GST_DEVICE_CPU ? PL_ENGINE_CPU
                                                      : PL_ENGINE_AUTO;
    cfg.ngpus = 1;
    cfg.gpus[0] = self->gpu_id;
    cfg.contexts_per_gpu = self->frames_in_flight;
    cfg.cpu_threads = self->frames_in_flight;
    guint pool = self->pool_frames;
    GST_OBJECT_UNLOCK(self);

    xsf_error err;
    xsf_error_clear(&err);
    pl_pipeline *pl = NULL;
    if (pl_create(&pl, &cfg, &err) != XSF_OK) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("no JPEG XS decoder: %s", err.msg),
                          ("%s", xsf_status_name(err.status)));
        return FALSE;
    }
    /* What keeps the decoders busy, as the pipeline counts it (PL_BLOCK),
     * plus pictures for downstream to hold. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const guint decoders = cfg.contexts_per_gpu ? cfg.contexts_per_gpu
                           : pl_uses_gpu(pl)    ? 3
                                                : (guint)(cores > 0 ? cores : 1);
    if (pool == 0)
        pool = 2 * decoders + 2 + DEC_DEFAULT_LENT;
    pool = MAX(pool, decoders + 2);
    dec_pipe *pp = g_new0(dec_pipe, 1);
    pp->refs = 1;
    pp->pl = pl;
    pp->stream = -1;
    pp->frames = pool;
    GST_INFO_OBJECT(self, "%s; %u frames in the stream's pool", pl_describe(pl), pool);
    GST_OBJECT_LOCK(self);
    self->pipe = pp;
    self->on_gpu = pl_uses_gpu(pl);
    /* Lend pictures while at least decoders + 1 frames stay with the
     * decoders: the pool never runs dry because downstream holds it. */
    self->lend_limit = (gint)(pool - (decoders + 1));
    GST_OBJECT_UNLOCK(self);
    self->discarding = FALSE;
    self->flow = GST_FLOW_OK;
    self->format = GST_VIDEO_FORMAT_UNKNOWN;
    self->out_width = self->out_height = self->out_fields = 0;
    self->fields = 1;
    return TRUE;
}

static gboolean xsflow_dec_stop(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    dec_pipe *pp = self->pipe;
    if (pp) {
        GST_VIDEO_DECODER_STREAM_LOCK(vd);
        self->discarding = TRUE;
        GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
        /* The pads are deactivated: the streaming thread, the stream's
         * source, has left handle_frame, so this thread may flush. */
        if (pp->stream >= 0)
            pl_stream_flush(pp->pl, pp->stream);
        GST_OBJECT_LOCK(self);
        self->pipe = NULL;
        GST_OBJECT_UNLOCK(self);
        dec_pipe_unref(pp); /* the pipeline goes with the last picture lent */
    }
    g_clear_pointer(&self->input_state, gst_video_codec_state_unref);
    return TRUE;
}

/* Waits (stream lock released) until every frame submitted has been finished. */
static GstFlowReturn xsflow_dec_drain(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    if (self->pipe && self->pipe->stream >= 0) {
        GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
        pl_stream_finish(self->pipe->pl, self->pipe->stream);
        GST_VIDEO_DECODER_STREAM_LOCK(vd);
    }
    return self->flow;
}

static gboolean xsflow_dec_flush(GstVideoDecoder *vd)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    if (self->pipe && self->pipe->stream >= 0) {
        self->discarding = TRUE;
        GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
        pl_stream_flush(self->pipe->pl, self->pipe->stream);
        GST_VIDEO_DECODER_STREAM_LOCK(vd);
        self->discarding = FALSE;
    }
    self->flow = GST_FLOW_OK;
    return TRUE;
}

static gboolean xsflow_dec_set_format(GstVideoDecoder *vd, GstVideoCodecState *state)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    const GstStructure *s = gst_caps_get_structure(state->caps, 0);
    const char *mode = gst_structure_get_string(s, "interlace-mode");
    /* The frames of the old caps leave first, with the old input state. */
    if (self->input_state)
        xsflow_dec_drain(vd);
    self->fields = mode && !strcmp(mode, "fields") ? 2 : 1;
    self->format = GST_VIDEO_FORMAT_UNKNOWN; /* renegotiate with the new input state */
    g_clear_pointer(&self->input_state, gst_video_codec_state_unref);
    self->input_state = gst_video_codec_state_ref(state);
    return TRUE;
}

static GstFlowReturn xsflow_dec_handle_frame(GstVideoDecoder *vd, GstVideoCodecFrame *frame)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    if (self->flow != GST_FLOW_OK) {
        gst_video_decoder_release_frame(vd, frame);
        return self->flow;
    }
    GstMapInfo map;
    if (!gst_buffer_map(frame->input_buffer, &map, GST_MAP_READ)) {
        gst_video_decoder_drop_frame(vd, frame);
        GST_ELEMENT_ERROR(self, RESOURCE, READ, (NULL), ("cannot map the input buffer"));
        return GST_FLOW_ERROR;
    }
    gsize first = map.size;
    const int fields = self->fields;
    if (fields == 2) {
        xsf_error err;
        xsf_error_clear(&err);
        if (xsf_gst_codestream_size(map.data, map.size, &first, &err) != XSF_OK) {
            gst_buffer_unmap(frame->input_buffer, &map);
            GstFlowReturn ret = GST_FLOW_OK;
            GST_VIDEO_DECODER_ERROR(
                self, 1, STREAM, DECODE,
                ("frame %u: no first field: %s", frame->system_frame_number, err.msg), (NULL), ret);
            gst_video_decoder_drop_frame(vd, frame);
            return ret;
        }
    }
    dec_pipe *pp = self->pipe;
    if (pp->stream < 0) {
        /* Codestream buffers (pinned with the GPU engine) of this frame's
         * size and half again: growing them later would reallocate pinned
         * memory while decoding. */
        pl_stream_config sc = {.name = "xsflowdec",
                               .backpressure = PL_BLOCK,
                               .frames = pp->frames,
                               .codestream_bytes = MAX(map.size + map.size / 2, (gsize)1 << 16),
                               .sink = {.deliver = on_decoded,
                                        .ctx = self,
                                        .placement = PL_PICTURE_HOST,
                                        .refused = on_refused},
                               .pix_fmt = choose_request(self, map.data, first)};
        xsf_error err;
        xsf_error_clear(&err);
        if (pl_stream_add(pp->pl, &sc, &pp->stream, &err) != XSF_OK) {
            pp->stream = -1;
            gst_buffer_unmap(frame->input_buffer, &map);
            gst_video_decoder_drop_frame(vd, frame);
            GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("no JPEG XS decoder: %s", err.msg),
                              ("%s", xsf_status_name(err.status)));
            return GST_FLOW_ERROR;
        }
    }
    /* Waiting for a free frame and copying into it, without the stream
     * lock: deliver() finishes older frames meanwhile (see the top). */
    GST_VIDEO_DECODER_STREAM_UNLOCK(vd);
    pl_frame *pf = pl_frame_acquire(pp->pl, pp->stream, map.size);
    if (pf) {
        memcpy(pf->buffer, map.data, map.size);
        pf->codestream = pf->buffer;
        pf->codestream_bytes = map.size;
        pf->fields = fields;
        pf->field_bytes[0] = first;
        pf->field_bytes[1] = map.size - first;
        pf->user = frame->system_frame_number;
        pf->t.first_packet = pf->t.last_packet = pl_now_ns();
    }
    GST_VIDEO_DECODER_STREAM_LOCK(vd);
    gst_buffer_unmap(frame->input_buffer, &map);
    if (!pf) {
        gst_video_decoder_drop_frame(vd, frame);
        GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL),
                          ("no memory for a %zu-byte codestream", (size_t)map.size));
        return GST_FLOW_ERROR;
    }
    pl_frame_submit(pp->pl, pf);
    /* The decoder's frame list keeps the frame until deliver() finishes it. */
    gst_video_codec_frame_unref(frame);
    return self->flow;
}

static gboolean xsflow_dec_decide_allocation(GstVideoDecoder *vd, GstQuery *query)
{
    XsflowDec *self = XSFLOW_DEC(vd);
    if (!GST_VIDEO_DECODER_CLASS(xsflow_dec_parent_class)->decide_allocation(vd, query))
        return FALSE;
    self->downstream_meta = gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    GstBufferPool *pool = NULL;
    if (gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, &pool, NULL, NULL, NULL);
    if (pool) {
        GstStructure *config = gst_buffer_pool_get_config(pool);
        if (self->downstream_meta)
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
    case PROP_DEVICE: self->device = g_value_get_enum(v); break;
    case PROP_GPU_ID: self->gpu_id = g_value_get_int(v); break;
    case PROP_FRAMES_IN_FLIGHT: self->frames_in_flight = g_value_get_uint(v); break;
    case PROP_POOL_FRAMES: self->pool_frames = g_value_get_uint(v); break;
    case PROP_ZERO_COPY: self->zero_copy = g_value_get_boolean(v); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void xsflow_dec_get_property(GObject *obj, guint id, GValue *v, GParamSpec *pspec)
{
    XsflowDec *self = XSFLOW_DEC(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_DEVICE: g_value_set_enum(v, self->device); break;
    case PROP_GPU_ID: g_value_set_int(v, self->gpu_id); break;
    case PROP_FRAMES_IN_FLIGHT: g_value_set_uint(v, self->frames_in_flight); break;
    case PROP_POOL_FRAMES: g_value_set_uint(v, self->pool_frames); break;
    case PROP_ZERO_COPY: g_value_set_boolean(v, self->zero_copy); break;
    case PROP_ENGINE:
        g_value_set_string(v, self->pipe ? (self->on_gpu ? "GPU" : "CPU") : NULL);
        break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec); break;
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
    const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;
    g_object_class_install_property(gobject_class, PROP_DEVICE,
                                    g_param_spec_enum("device", "Device", "Where to decode",
                                                      XSF_GST_TYPE_DEVICE, XSF_GST_DEVICE_AUTO,
                                                      ready));
    g_object_class_install_property(gobject_class, PROP_GPU_ID,
                                    g_param_spec_int("gpu-id", "GPU id", "CUDA device to decode on",
                                                     0, PL_MAX_GPUS - 1, 0, ready));
    g_object_class_install_property(
        gobject_class, PROP_FRAMES_IN_FLIGHT,
        g_param_spec_uint(
            "frames-in-flight", "Frames in flight",
            "Frames decoded at once: decoder contexts (CUDA streams) on the GPU, threads on "
            "the CPU (0: 3 on the GPU, one per core on the CPU)",
            0, 32, 0, ready));
    g_object_class_install_property(
        gobject_class, PROP_POOL_FRAMES,
        g_param_spec_uint(
            "pool-frames", "Pool frames",
            "Frames of the decoder's pool: codestreams waiting, frames decoding and pictures "
            "held downstream without a copy (0: 2 x frames-in-flight + 2, plus 4 for "
            "downstream). Pictures are copied while downstream holds all but "
            "frames-in-flight + 1 of them",
            0, 256, 0, ready));
    g_object_class_install_property(
        gobject_class, PROP_ZERO_COPY,
        g_param_spec_boolean(
            "zero-copy", "Zero copy",
            "Hand the decoder's pictures downstream without a copy where the output format "
            "is laid out as they are (the 10, 12 and 16-bit planar formats)",
            TRUE, ready));
    g_object_class_install_property(
        gobject_class, PROP_ENGINE,
        g_param_spec_string("engine", "Engine", "Which decoder runs: GPU or CPU (once started)",
                            NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    gst_type_mark_as_plugin_api(XSF_GST_TYPE_DEVICE, 0);

    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "xsflow JPEG XS decoder", "Codec/Decoder/Video",
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
    self->zero_copy = TRUE;
    self->fields = 1;
}
