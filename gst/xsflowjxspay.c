/* xsflowjxspay: JPEG XS codestreams into RTP packets (RFC 9134, ST 2110-22)
 * with the rtp/ packetizer, in codestream or slice packetization mode, each
 * picture segment preceded by its boxes. With interlace-mode=fields a
 * buffer holds both fields' codestreams; each field is its own picture
 * segment, with its own RTP timestamp (half a frame after the first),
 * sharing the frame counter. The base class sets the sequence numbers,
 * SSRC, payload type and timestamps (properties seqnum-offset, ssrc, pt,
 * timestamp-offset); mtu is the largest RTP packet. */
#include <string.h>

#include <gst/rtp/rtp.h>

#include "rtp.h"
#include "xsflow_gst.h"

GST_DEBUG_CATEGORY_STATIC(xsflowjxspay_debug);
#define GST_CAT_DEFAULT xsflowjxspay_debug

#define XSFLOW_TYPE_JXS_PAY (xsflow_jxs_pay_get_type())
G_DECLARE_FINAL_TYPE(XsflowJxsPay, xsflow_jxs_pay, XSFLOW, JXS_PAY, GstRTPBasePayload)

enum { PROP_0, PROP_PACKETIZATION_MODE };

struct _XsflowJxsPay {
    GstRTPBasePayload parent;
    rtp_jxs_mode mode;
    rtp_packetizer *pk;
    unsigned f_counter;
    int fields;
    gint fps_n, fps_d;
};

G_DEFINE_TYPE(XsflowJxsPay, xsflow_jxs_pay, GST_TYPE_RTP_BASE_PAYLOAD)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(xsflowjxspay, "xsflowjxspay", GST_RANK_SECONDARY,
                                      XSFLOW_TYPE_JXS_PAY,
                                      GST_DEBUG_CATEGORY_INIT(xsflowjxspay_debug, "xsflowjxspay", 0,
                                                              "xsflow RFC 9134 payloader"));

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-rtp, media = (string) video, clock-rate = (int) 90000, "
                    "encoding-name = (string) { JXSV, jxsv }, payload = (int) [ 96, 127 ]"));

static GType packetization_mode_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {RTP_JXS_CODESTREAM, "One packetization unit per picture segment (K=0)", "codestream"},
        {RTP_JXS_SLICE, "One packetization unit per slice (K=1)", "slice"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("XsflowJxsPacketizationMode", values));
    return (GType)type;
}

static gboolean xsflow_jxs_pay_set_caps(GstRTPBasePayload *pay, GstCaps *caps)
{
    XsflowJxsPay *self = XSFLOW_JXS_PAY(pay);
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    const char *mode = gst_structure_get_string(s, "interlace-mode");
    self->fields = mode && !strcmp(mode, "fields") ? 2 : 1;
    self->fps_n = 0;
    self->fps_d = 1;
    gst_structure_get_fraction(s, "framerate", &self->fps_n, &self->fps_d);
    gst_rtp_base_payload_set_options(pay, "video", TRUE, "JXSV", RTP_CLOCK_HZ);

    /* RFC 9134 7.1's fmtp parameters, as strings as an SDP carries them. */
    GstStructure *out = gst_structure_new("unused", "packetmode", G_TYPE_INT, (int)self->mode,
                                          "transmode", G_TYPE_INT, 1, NULL);
    static const char *const copy[] = {"sampling", "profile", "level", "sublevel"};
    for (size_t i = 0; i < G_N_ELEMENTS(copy); i++) {
        const char *v = gst_structure_get_string(s, copy[i]);
        if (v)
            gst_structure_set(out, copy[i], G_TYPE_STRING, v, NULL);
    }
    static const char *const ints[] = {"width", "height", "depth"};
    for (size_t i = 0; i < G_N_ELEMENTS(ints); i++) {
        int v;
        if (gst_structure_get_int(s, ints[i], &v)) {
            char buf[16];
            g_snprintf(buf, sizeof buf, "%d", v);
            gst_structure_set(out, ints[i], G_TYPE_STRING, buf, NULL);
        }
    }
    if (self->fps_n > 0) {
        char buf[32];
        if (self->fps_d == 1)
            g_snprintf(buf, sizeof buf, "%d", self->fps_n);
        else
            g_snprintf(buf, sizeof buf, "%d/%d", self->fps_n, self->fps_d);
        gst_structure_set(out, "exactframerate", G_TYPE_STRING, buf, NULL);
    }
    if (self->fields == 2)
        gst_structure_set(out, "interlace", G_TYPE_STRING, "", NULL);
    gboolean ok = gst_rtp_base_payload_set_outcaps_structure(pay, out);
    gst_structure_free(out);
    return ok;
}

typedef struct pay_ctx {
    XsflowJxsPay *self;
    GstBufferList *list;
    GstClockTime pts;
} pay_ctx;

static int on_packet(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    pay_ctx *c = ctx;
    GstBuffer *b = gst_buffer_new_memdup(pkt, len);
    GST_BUFFER_PTS(b) = c->pts;
    gst_buffer_list_add(c->list, b);
    return 0;
}

static gboolean ensure_packetizer(XsflowJxsPay *self)
{
    GstRTPBasePayload *pay = GST_RTP_BASE_PAYLOAD(self);
    if (self->pk)
        return TRUE;
    rtp_packetizer_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = self->mode;
    cfg.packet_bytes = GST_RTP_BASE_PAYLOAD_MTU(pay);
    cfg.payload_type = (uint8_t)GST_RTP_BASE_PAYLOAD_PT(pay);
    cfg.boxes = 1;
    /* The boxes as every xsflow sender writes them (rtp_jxs_boxes_for_stream): the frame
     * rate (jpvi frat: N or N/1.001), the interlace mode; no bit rate or sampling known
     * here, the colour unspecified. */
    const rtp_stream_desc d = {.rate_num = self->fps_n > 0 ? (unsigned)self->fps_n : 0,
                               .rate_den = self->fps_n > 0 ? (unsigned)self->fps_d : 0,
                               .interlaced = self->fields == 2};
    rtp_jxs_boxes_for_stream(&cfg.box_template, NULL, &d);
    xsf_error err = {0};
    if (rtp_packetizer_create(&self->pk, &cfg, &err) != XSF_OK) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, (NULL), ("packetizer: %s", err.msg));
        return FALSE;
    }
    return TRUE;
}

static GstFlowReturn xsflow_jxs_pay_handle_buffer(GstRTPBasePayload *pay, GstBuffer *buffer)
{
    XsflowJxsPay *self = XSFLOW_JXS_PAY(pay);
    if (!ensure_packetizer(self)) {
        gst_buffer_unref(buffer);
        return GST_FLOW_ERROR;
    }
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        gst_buffer_unref(buffer);
        return GST_FLOW_ERROR;
    }
    GstFlowReturn ret = GST_FLOW_OK;
    gsize off = 0;
    const GstClockTime pts = GST_BUFFER_PTS(buffer);
    GstClockTime dur = GST_BUFFER_DURATION(buffer);
    if (!GST_CLOCK_TIME_IS_VALID(dur) && self->fps_n > 0)
        dur = gst_util_uint64_scale_int(GST_SECOND, self->fps_d, self->fps_n);
    for (int field = 0; field < self->fields && ret == GST_FLOW_OK; field++) {
        gsize len = map.size - off;
        xsf_error err = {0};
        if (self->fields == 2 || map.size == 0) {
            if (xsf_gst_codestream_size(map.data + off, map.size - off, &len, &err) != XSF_OK) {
                GST_ELEMENT_ERROR(
                    self, STREAM, FORMAT, (NULL),
                    ("%s: not a codestream: %s", field ? "second field" : "first field", err.msg));
                ret = GST_FLOW_ERROR;
                break;
            }
        }
        pay_ctx c = {self, gst_buffer_list_new(), pts};
        if (field == 1 && GST_CLOCK_TIME_IS_VALID(pts) && GST_CLOCK_TIME_IS_VALID(dur))
            c.pts = pts + dur / 2; /* RFC 9134 4.2 (erratum 6752): each field its own instant */
        const rtp_jxs_scan scan = self->fields == 2
                                      ? (field ? RTP_JXS_FIELD_SECOND : RTP_JXS_FIELD_FIRST)
                                      : RTP_JXS_PROGRESSIVE;
        /* The base class rewrites sequence number, timestamp, SSRC and type. */
        xsf_status st = rtp_packetize(self->pk, map.data + off, len, 0, self->f_counter, scan,
                                      on_packet, &c, &err);
        if (st != XSF_OK) {
            gst_buffer_list_unref(c.list);
            GST_ELEMENT_ERROR(self, STREAM, FORMAT, (NULL), ("packetizer: %s", err.msg));
            ret = GST_FLOW_ERROR;
            break;
        }
        ret = gst_rtp_base_payload_push_list(pay, c.list);
        off += len;
    }
    self->f_counter = (self->f_counter + 1) % 32;
    gst_buffer_unmap(buffer, &map);
    gst_buffer_unref(buffer);
    return ret;
}

static GstStateChangeReturn xsflow_jxs_pay_change_state(GstElement *el, GstStateChange t)
{
    XsflowJxsPay *self = XSFLOW_JXS_PAY(el);
    GstStateChangeReturn ret = GST_ELEMENT_CLASS(xsflow_jxs_pay_parent_class)->change_state(el, t);
    if (t == GST_STATE_CHANGE_PAUSED_TO_READY) {
        g_clear_pointer(&self->pk, rtp_packetizer_destroy);
        self->f_counter = 0;
    }
    return ret;
}

static void xsflow_jxs_pay_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *pspec)
{
    XsflowJxsPay *self = XSFLOW_JXS_PAY(obj);
    if (id == PROP_PACKETIZATION_MODE)
        self->mode = (rtp_jxs_mode)g_value_get_enum(v);
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
}

static void xsflow_jxs_pay_get_property(GObject *obj, guint id, GValue *v, GParamSpec *pspec)
{
    XsflowJxsPay *self = XSFLOW_JXS_PAY(obj);
    if (id == PROP_PACKETIZATION_MODE)
        g_value_set_enum(v, self->mode);
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
}

static void xsflow_jxs_pay_finalize(GObject *obj)
{
    XsflowJxsPay *self = XSFLOW_JXS_PAY(obj);
    g_clear_pointer(&self->pk, rtp_packetizer_destroy);
    G_OBJECT_CLASS(xsflow_jxs_pay_parent_class)->finalize(obj);
}

static void xsflow_jxs_pay_class_init(XsflowJxsPayClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstRTPBasePayloadClass *pay_class = GST_RTP_BASE_PAYLOAD_CLASS(klass);
    oc->set_property = xsflow_jxs_pay_set_property;
    oc->get_property = xsflow_jxs_pay_get_property;
    oc->finalize = xsflow_jxs_pay_finalize;
    g_object_class_install_property(
        oc, PROP_PACKETIZATION_MODE,
        g_param_spec_enum("packetization-mode", "Packetization mode",
                          "RFC 9134 packetization mode (K)", packetization_mode_type(),
                          RTP_JXS_CODESTREAM,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    gst_type_mark_as_plugin_api(packetization_mode_type(), 0);
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "xsflow RFC 9134 JPEG XS payloader", "Codec/Payloader/Network/RTP",
        "Payloads JPEG XS codestreams into RTP packets (RFC 9134, "
        "SMPTE ST 2110-22)",
        "xsflow");
    element_class->change_state = GST_DEBUG_FUNCPTR(xsflow_jxs_pay_change_state);
    pay_class->set_caps = GST_DEBUG_FUNCPTR(xsflow_jxs_pay_set_caps);
    pay_class->handle_buffer = GST_DEBUG_FUNCPTR(xsflow_jxs_pay_handle_buffer);
}

static void xsflow_jxs_pay_init(XsflowJxsPay *self)
{
    self->mode = RTP_JXS_CODESTREAM;
    self->fields = 1;
    self->fps_d = 1;
}
