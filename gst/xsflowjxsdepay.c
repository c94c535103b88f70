/* xsflowjxsdepay: RTP packets (RFC 9134, ST 2110-22; both packetization
 * modes) back into JPEG XS codestreams with the rtp/ depacketizer, one
 * buffer per frame, picture segment boxes removed. Frames with a missing
 * packet are dropped (and counted in the "stats" property). Interlaced
 * streams give one buffer per frame holding both fields' codestreams
 * (interlace-mode=fields). */
#include <stdio.h>
#include <string.h>

#include <gst/rtp/rtp.h>

#include "rtp.h"
#include "xsf_clock.h"
#include "xsflow_gst.h"

GST_DEBUG_CATEGORY_STATIC(xsflowjxsdepay_debug);
#define GST_CAT_DEFAULT xsflowjxsdepay_debug

#define XSFLOW_TYPE_JXS_DEPAY (xsflow_jxs_depay_get_type())
G_DECLARE_FINAL_TYPE(XsflowJxsDepay, xsflow_jxs_depay, XSFLOW, JXS_DEPAY, GstRTPBaseDepayload)

enum { PROP_0, PROP_STATS };

struct _XsflowJxsDepay {
    GstRTPBaseDepayload parent;
    rtp_depacketizer *dp;
    GstFlowReturn flow;
    gint fps_n, fps_d;
    /* Caps of what was pushed last. */
    xs_header last;
    int last_fields, have_caps;
    /* The first field, waiting for its second. */
    GstBuffer *first_field;
    uint8_t first_f;
};

G_DEFINE_TYPE(XsflowJxsDepay, xsflow_jxs_depay, GST_TYPE_RTP_BASE_DEPAYLOAD)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(xsflowjxsdepay, "xsflowjxsdepay", GST_RANK_SECONDARY,
                                      XSFLOW_TYPE_JXS_DEPAY,
                                      GST_DEBUG_CATEGORY_INIT(xsflowjxsdepay_debug,
                                                              "xsflowjxsdepay", 0,
                                                              "xsflow RFC 9134 depayloader"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-rtp, media = (string) video, "
                    "clock-rate = (int) 90000, encoding-name = (string) { JXSV, jxsv }"));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame, "
                                            "interlace-mode = (string) { progressive, fields }"));

static gboolean xsflow_jxs_depay_set_caps(GstRTPBaseDepayload *dp, GstCaps *caps)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(dp);
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    const char *rate = gst_structure_get_string(s, "exactframerate");
    self->fps_n = 0;
    self->fps_d = 1;
    if (rate) {
        unsigned n = 0, d = 1;
        if (sscanf(rate, "%u/%u", &n, &d) >= 1 && n > 0 && d > 0 && n <= G_MAXINT &&
            d <= G_MAXINT) {
            self->fps_n = (gint)n;
            self->fps_d = (gint)d;
        }
    }
    self->have_caps = 0; /* sent with the next frame */
    return TRUE;
}

static gboolean push_caps(XsflowJxsDepay *self, const uint8_t *cs, size_t len, int fields)
{
    GstRTPBaseDepayload *dp = GST_RTP_BASE_DEPAYLOAD(self);
    xs_header hdr;
    xsf_error err = {0};
    if (xs_parse_header(cs, len, &hdr, &err) != XSF_OK) {
        GST_WARNING_OBJECT(self, "not a codestream: %s", err.msg);
        return FALSE;
    }
    if (self->have_caps && fields == self->last_fields && hdr.wf == self->last.wf &&
        hdr.hf == self->last.hf && hdr.nc == self->last.nc && hdr.depth[0] == self->last.depth[0] &&
        hdr.sx[1] == self->last.sx[1] && hdr.sy[1] == self->last.sy[1] &&
        hdr.cpih == self->last.cpih)
        return TRUE;
    GstCaps *caps = gst_caps_new_simple("image/x-jxsc", "alignment", G_TYPE_STRING, "frame", NULL);
    GstStructure *s = gst_caps_get_structure(caps, 0);
    xsf_gst_caps_from_header(s, &hdr, fields);
    if (self->fps_n > 0)
        gst_structure_set(s, "framerate", GST_TYPE_FRACTION, self->fps_n, self->fps_d, NULL);
    const gboolean ok = gst_pad_set_caps(GST_RTP_BASE_DEPAYLOAD_SRCPAD(dp), caps);
    gst_caps_unref(caps);
    self->last = hdr;
    self->last_fields = fields;
    self->have_caps = ok;
    return ok;
}

static void push(XsflowJxsDepay *self, GstBuffer *b, const uint8_t *cs, size_t len, int fields)
{
    if (self->flow != GST_FLOW_OK || !push_caps(self, cs, len, fields)) {
        gst_buffer_unref(b);
        return;
    }
    self->flow = gst_rtp_base_depayload_push(GST_RTP_BASE_DEPAYLOAD(self), b);
}

static void on_frame(void *ctx, const rtp_frame *fr)
{
    XsflowJxsDepay *self = ctx;
    if (!fr->complete) {
        GST_DEBUG_OBJECT(self, "dropping a partial frame (timestamp %u)", fr->timestamp);
        return;
    }
    GstBuffer *b = gst_buffer_new_memdup(fr->data, fr->bytes);
    switch (fr->scan) {
    case RTP_JXS_FIELD_FIRST:
        if (self->first_field) {
            GST_DEBUG_OBJECT(self, "first field without a second: dropped");
            gst_buffer_unref(self->first_field);
        }
        self->first_field = b;
        self->first_f = fr->f_counter;
        return;
    case RTP_JXS_FIELD_SECOND:
        if (!self->first_field || self->first_f != fr->f_counter) {
            GST_DEBUG_OBJECT(self, "second field without its first: dropped");
            gst_buffer_unref(b);
            g_clear_pointer(&self->first_field, gst_buffer_unref);
            return;
        }
        {
            GstBuffer *first = self->first_field;
            self->first_field = NULL;
            GstMapInfo m;
            if (!gst_buffer_map(first, &m, GST_MAP_READ)) {
                gst_buffer_unref(first);
                gst_buffer_unref(b);
                return;
            }
            /* Caps from the first field's header, which both share. */
            const gboolean caps_ok = push_caps(self, m.data, m.size, 2);
            gst_buffer_unmap(first, &m);
            if (!caps_ok) {
                gst_buffer_unref(first);
                gst_buffer_unref(b);
                return;
            }
            GstBuffer *frame = gst_buffer_append(first, b);
            if (self->flow == GST_FLOW_OK)
                self->flow = gst_rtp_base_depayload_push(GST_RTP_BASE_DEPAYLOAD(self), frame);
            else
                gst_buffer_unref(frame);
        }
        return;
    default: push(self, b, fr->data, fr->bytes, 1); return;
    }
}

static gboolean ensure_depacketizer(XsflowJxsDepay *self)
{
    if (self->dp)
        return TRUE;
    rtp_depacketizer_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.payload_type = -1;
    cfg.reorder_packets = 64;
    cfg.reorder_ns = 20 * 1000 * 1000; /* give up on a missing packet after 20 ms, as xsflow recv */
    cfg.validate = 1;
    cfg.on_frame = on_frame;
    cfg.ctx = self;
    xsf_error err = {0};
    if (rtp_depacketizer_create(&self->dp, &cfg, &err) != XSF_OK) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, (NULL), ("depacketizer: %s", err.msg));
        return FALSE;
    }
    return TRUE;
}

static GstBuffer *xsflow_jxs_depay_process(GstRTPBaseDepayload *dp, GstRTPBuffer *rtp)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(dp);
    if (!ensure_depacketizer(self))
        return NULL;
    GstMapInfo map;
    if (!gst_buffer_map(rtp->buffer, &map, GST_MAP_READ))
        return NULL;
    self->flow = GST_FLOW_OK;
    const uint64_t now_ns = xsf_clock_mono_ns();
    rtp_depacketizer_push(self->dp, map.data, map.size, now_ns);
    rtp_depacketizer_poll(self->dp, now_ns);
    gst_buffer_unmap(rtp->buffer, &map);
    return NULL;
}

static void reset(XsflowJxsDepay *self)
{
    g_clear_pointer(&self->dp, rtp_depacketizer_destroy);
    g_clear_pointer(&self->first_field, gst_buffer_unref);
    self->have_caps = 0;
}

static gboolean xsflow_jxs_depay_handle_event(GstRTPBaseDepayload *dp, GstEvent *event)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(dp);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
        if (self->dp) {
            self->flow = GST_FLOW_OK;
            rtp_depacketizer_flush(self->dp);
        }
        break;
    case GST_EVENT_FLUSH_STOP: reset(self); break;
    default: break;
    }
    return GST_RTP_BASE_DEPAYLOAD_CLASS(xsflow_jxs_depay_parent_class)->handle_event(dp, event);
}

static GstStateChangeReturn xsflow_jxs_depay_change_state(GstElement *el, GstStateChange t)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(el);
    GstStateChangeReturn ret =
        GST_ELEMENT_CLASS(xsflow_jxs_depay_parent_class)->change_state(el, t);
    if (t == GST_STATE_CHANGE_PAUSED_TO_READY) {
        GST_OBJECT_LOCK(self);
        reset(self);
        GST_OBJECT_UNLOCK(self);
    }
    return ret;
}

static void xsflow_jxs_depay_get_property(GObject *obj, guint id, GValue *v, GParamSpec *pspec)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(obj);
    if (id != PROP_STATS) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
        return;
    }
    GST_OBJECT_LOCK(self);
    rtp_stats st;
    memset(&st, 0, sizeof st);
    if (self->dp)
        st = *rtp_depacketizer_stats(self->dp);
    GST_OBJECT_UNLOCK(self);
    g_value_take_boxed(v,
                       gst_structure_new("application/x-xsflow-rtp-stats", "packets", G_TYPE_UINT64,
                                         st.packets, "lost", G_TYPE_UINT64, st.lost, "reordered",
                                         G_TYPE_UINT64, st.reordered, "duplicated", G_TYPE_UINT64,
                                         st.duplicated, "invalid", G_TYPE_UINT64, st.invalid,
                                         "frames-complete", G_TYPE_UINT64, st.frames_complete,
                                         "frames-dropped", G_TYPE_UINT64, st.frames_dropped, NULL));
}

static void xsflow_jxs_depay_finalize(GObject *obj)
{
    reset(XSFLOW_JXS_DEPAY(obj));
    G_OBJECT_CLASS(xsflow_jxs_depay_parent_class)->finalize(obj);
}

static void xsflow_jxs_depay_class_init(XsflowJxsDepayClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstRTPBaseDepayloadClass *dp_class = GST_RTP_BASE_DEPAYLOAD_CLASS(klass);
    oc->get_property = xsflow_jxs_depay_get_property;
    oc->finalize = xsflow_jxs_depay_finalize;
    g_object_class_install_property(
        oc, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics", "Packets, losses and frames of the stream",
                           GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "xsflow RFC 9134 JPEG XS depayloader", "Codec/Depayloader/Network/RTP",
        "Extracts JPEG XS codestreams from RTP packets (RFC 9134, "
        "SMPTE ST 2110-22)",
        "xsflow");
    element_class->change_state = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_change_state);
    dp_class->set_caps = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_set_caps);
    dp_class->process_rtp_packet = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_process);
    dp_class->handle_event = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_handle_event);
}

static void xsflow_jxs_depay_init(XsflowJxsDepay *self)
{
    self->fps_d = 1;
}
