/* xsflowjxsdepay: RTP packets (RFC 9134, ST 2110-22; both packetization
 * modes) back into JPEG XS codestreams with the rtp/ depacketizer, one
 * buffer per frame, picture segment boxes removed. Frames with a missing
 * packet are dropped (and counted in the "stats" property). Interlaced
 * streams give one buffer per frame holding both fields' codestreams
 * (interlace-mode=fields).
 *
 * SMPTE ST 2022-7: the legs of one stream come in on the always `sink` pad
 * (the first leg) and request pads `sink_1`.. (the others), one upstream
 * source each. With one leg nothing below changes: the base class's chain
 * and event handling, as before. With more, every packet goes through the
 * rtp/ merger (rtp_merge.h) tagged with its pad's leg, and only a number's
 * first copy reaches the depacketizer; a later copy is dropped before its
 * payload is read.
 *
 * Threads: each leg's upstream pushes from its own streaming thread.
 *   - The merger (and the statistics' snapshot) is under the object lock,
 *     held only for the offer: the "stats" property never waits on a push.
 *   - The depacketizer, the frame under way and the push downstream are
 *     under depay_lock, taken by the chain of every leg (after the offer)
 *     and by serialized events; the leg whose packet completes a frame
 *     pushes it. The object lock may be taken inside depay_lock, never the
 *     other way round.
 *   - FLUSH_START never takes depay_lock: a push blocked downstream holds
 *     it, and that event is what unblocks the push.
 *   - Serialized events are one stream's, copied on every leg (each source
 *     sends its own stream-start, caps, segment): the lead leg's are taken
 *     (the first leg to send one; and the first caps of any leg, so that a
 *     leg's packets never wait for caps from a leg that has gone down), the
 *     others' dropped; EOS goes downstream once every linked leg has ended
 *     (or at once where downstream has ended: its EOS is given to every leg).
 *     One lock around them: the base class never sees two legs' events at
 *     once. */
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

enum { PROP_0, PROP_STATS, PROP_DUP_WINDOW };

struct _XsflowJxsDepay {
    GstRTPBaseDepayload parent;
    /* The base class's chain functions of the `sink` pad (one leg). */
    GstPadChainFunction base_chain;
    GstPadChainListFunction base_chain_list;
    /* Legs: 1 + the highest request pad's number (atomic; written under the object lock). */
    gint legs;
    /* Under the object lock: */
    guint pads_used;        /* request pads, a bit a leg */
    guint dup_window_ms;    /* the skew tolerated */
    rtp_merger *merger;     /* several legs */
    int merger_legs;        /* the legs it was made for */
    int lead;               /* the leg whose serialized events stand for the stream; -1: none */
    guint eos_legs;         /* legs that ended, a bit each */
    guint32 segment_seqnum; /* the lead's segment event's */
    rtp_stats dp_stats;     /* the depacketizer's, after the last packet */
    int leg_silent[RTP_LEGS_MAX];
    uint64_t silence_checked_ns;
    /* depay_lock: the depacketizer, the fields below it, the push downstream. */
    GMutex depay_lock;
    rtp_depacketizer *dp;
    int dp_legs; /* the legs it was set up for (its reorder window) */
    GstCaps *caps;
    GstClockTime in_pts, in_dts, in_duration; /* the packet being merged (several legs) */
    int discont;
    uint64_t dropped_seen; /* frames dropped and packets lost when the last frame went out */
    GstFlowReturn flow;
    /* Several legs: what downstream answered a push with, when it was the end (EOS, not
     * linked, an error), given to every leg from then on (atomic; OK again at a flush). */
    gint downstream_flow;
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

#define RTP_JXSV_CAPS                                                                              \
    "application/x-rtp, media = (string) video, clock-rate = (int) 90000, "                        \
    "encoding-name = (string) { JXSV, jxsv }"
static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(RTP_JXSV_CAPS));
/* The other legs of the stream (SMPTE ST 2022-7): sink_1 .. sink_3. */
static GstStaticPadTemplate leg_template = GST_STATIC_PAD_TEMPLATE(
    "sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS(RTP_JXSV_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame, "
                                            "interlace-mode = (string) { progressive, fields }"));

/* How often the legs' silence is looked at (the merger notices it after RTP_LEG_SILENT_NS). */
#define SILENCE_CHECK_NS (100 * 1000 * 1000ull)

/* The leg of a sink pad: 0 for `sink`, N for sink_N. */
static unsigned pad_leg(GstPad *pad)
{
    return GPOINTER_TO_UINT(gst_pad_get_element_private(pad));
}

static void leg_pad_name(unsigned leg, char *name, size_t size)
{
    if (leg)
        g_snprintf(name, size, "sink_%u", leg);
    else
        g_strlcpy(name, "sink", size);
}

static int several_legs(XsflowJxsDepay *self)
{
    return g_atomic_int_get(&self->legs) > 1;
}

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
    gst_caps_replace(&self->caps, caps);
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

/* Several legs: the base class saw none of the packets (its chain drops a packet behind the
 * last one it took, which is what a copy that fills a hole from a lagging leg is), so what
 * it would have set is set here: the segment (the lead leg's) before the first frame, the
 * timestamps of the packet that completed the frame, DISCONT after a loss. */
static void prepare_merged(XsflowJxsDepay *self, GstBuffer *b)
{
    GstRTPBaseDepayload *dp = GST_RTP_BASE_DEPAYLOAD(self);
    if (dp->need_newsegment) {
        GST_OBJECT_LOCK(self);
        GstSegment seg = dp->segment;
        const guint32 seqnum = self->segment_seqnum;
        GST_OBJECT_UNLOCK(self);
        if (seg.format != GST_FORMAT_TIME)
            gst_segment_init(&seg, GST_FORMAT_TIME);
        GstEvent *ev = gst_event_new_segment(&seg);
        if (seqnum != GST_SEQNUM_INVALID)
            gst_event_set_seqnum(ev, seqnum);
        gst_pad_push_event(GST_RTP_BASE_DEPAYLOAD_SRCPAD(dp), ev);
        dp->need_newsegment = FALSE;
    }
    GST_BUFFER_PTS(b) = self->in_pts;
    GST_BUFFER_DTS(b) = self->in_dts;
    GST_BUFFER_DURATION(b) = self->in_duration;
    self->in_pts = self->in_dts = self->in_duration = GST_CLOCK_TIME_NONE;
    const rtp_stats *st = rtp_depacketizer_stats(self->dp);
    if (self->discont || st->lost + st->frames_dropped != self->dropped_seen)
        GST_BUFFER_FLAG_SET(b, GST_BUFFER_FLAG_DISCONT);
    self->discont = 0;
    self->dropped_seen = st->lost + st->frames_dropped;
}

static void push_out(XsflowJxsDepay *self, GstBuffer *b)
{
    if (self->flow != GST_FLOW_OK) {
        gst_buffer_unref(b);
        return;
    }
    if (self->dp_legs > 1)
        prepare_merged(self, b);
    self->flow = gst_rtp_base_depayload_push(GST_RTP_BASE_DEPAYLOAD(self), b);
}

static void push(XsflowJxsDepay *self, GstBuffer *b, const uint8_t *cs, size_t len, int fields)
{
    if (self->flow != GST_FLOW_OK || !push_caps(self, cs, len, fields)) {
        gst_buffer_unref(b);
        return;
    }
    push_out(self, b);
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
            push_out(self, gst_buffer_append(first, b));
        }
        return;
    default: push(self, b, fr->data, fr->bytes, 1); return;
    }
}

/* The depacketizer's statistics, for the "stats" property (which then reads them under the
 * object lock, not while a packet is pushed). Under depay_lock. */
static void snapshot_stats(XsflowJxsDepay *self)
{
    const rtp_stats st = *rtp_depacketizer_stats(self->dp);
    GST_OBJECT_LOCK(self);
    self->dp_stats = st;
    GST_OBJECT_UNLOCK(self);
}

/* The depacketizer, for `legs` legs (under depay_lock). Several legs: its reorder window
 * covers the skew window, so that a hole waits for the lagging leg's copy. A depacketizer
 * for another number of legs (a pad requested or released while streaming) ends the frame
 * under way and is made again. */
static gboolean ensure_depacketizer(XsflowJxsDepay *self, int legs)
{
    if (self->dp && self->dp_legs == legs)
        return TRUE;
    if (self->dp) {
        GST_INFO_OBJECT(self, "%d legs now (were %d): depacketizer set up again", legs,
                        self->dp_legs);
        self->flow = GST_FLOW_OK;
        rtp_depacketizer_flush(self->dp);
        g_clear_pointer(&self->dp, rtp_depacketizer_destroy);
    }
    rtp_depacketizer_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.payload_type = -1;
    cfg.reorder_packets = 64;
    cfg.reorder_ns = 20 * 1000 * 1000; /* give up on a missing packet after 20 ms, as xsflow recv */
    cfg.validate = 1;
    cfg.on_frame = on_frame;
    cfg.ctx = self;
    if (legs > 1) {
        rtp_merger_config mc = {.legs = (unsigned)legs};
        GST_OBJECT_LOCK(self);
        mc.window_ms = self->dup_window_ms;
        GST_OBJECT_UNLOCK(self);
        rtp_receiver_cover_skew(&cfg, &mc);
    }
    xsf_error err = {0};
    if (rtp_depacketizer_create(&self->dp, &cfg, &err) != XSF_OK) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, (NULL), ("depacketizer: %s", err.msg));
        return FALSE;
    }
    self->dp_legs = legs;
    self->dropped_seen = 0;
    return TRUE;
}

/* One leg: the base class's chain calls this for each packet (under depay_lock). */
static GstBuffer *xsflow_jxs_depay_process(GstRTPBaseDepayload *dp, GstRTPBuffer *rtp)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(dp);
    if (!ensure_depacketizer(self, 1))
        return NULL;
    GstMapInfo map;
    if (!gst_buffer_map(rtp->buffer, &map, GST_MAP_READ))
        return NULL;
    self->flow = GST_FLOW_OK;
    const uint64_t now_ns = xsf_clock_mono_ns();
    rtp_depacketizer_push(self->dp, map.data, map.size, now_ns);
    rtp_depacketizer_poll(self->dp, now_ns);
    gst_buffer_unmap(rtp->buffer, &map);
    snapshot_stats(self);
    return NULL;
}

/* A leg that fell silent or came back: a warning, or an info message, on the bus (with the
 * leg and its pad in the details), once each time. */
static void report_leg(XsflowJxsDepay *self, unsigned leg, int silent)
{
    char pad[16];
    leg_pad_name(leg, pad, sizeof pad);
    if (silent)
        GST_ELEMENT_WARNING_WITH_DETAILS(
            self, RESOURCE, READ, ("Leg %u (pad %s) is silent: no packet for 1 s", leg + 1, pad),
            ("SMPTE ST 2022-7: the other legs carry the stream"),
            ("leg", G_TYPE_UINT, leg, "pad", G_TYPE_STRING, pad, "silent", G_TYPE_BOOLEAN, TRUE,
             NULL));
    else
        GST_ELEMENT_INFO_WITH_DETAILS(self, RESOURCE, READ,
                                      ("Leg %u (pad %s) is back", leg + 1, pad), (NULL),
                                      ("leg", G_TYPE_UINT, leg, "pad", G_TYPE_STRING, pad, "silent",
                                       G_TYPE_BOOLEAN, FALSE, NULL));
}

/* Several legs: a packet of leg `leg`. The merger decides under the object lock; the first
 * copy goes to the depacketizer under depay_lock. */
static GstFlowReturn leg_chain(XsflowJxsDepay *self, unsigned leg, GstBuffer *buf)
{
    GstMapInfo map;
    if (!gst_buffer_map(buf, &map, GST_MAP_READ)) {
        gst_buffer_unref(buf);
        return GST_FLOW_OK;
    }
    /* Downstream has ended: every leg is told, not only the one whose packet completed the
     * frame it refused (else the other leg's source would run on alone). */
    const GstFlowReturn ended = (GstFlowReturn)g_atomic_int_get(&self->downstream_flow);
    if (ended != GST_FLOW_OK) {
        gst_buffer_unmap(buf, &map);
        gst_buffer_unref(buf);
        return ended;
    }
    const uint64_t now_ns = xsf_clock_mono_ns();
    const int legs = g_atomic_int_get(&self->legs);
    xsf_error err = {0};
    xsf_status st = XSF_OK;
    int keep = 1, changed[RTP_LEGS_MAX] = {0};
    uint64_t seq_ext =
        0; /* the merge's number, taken with it (another leg's thread may offer next) */
    GST_OBJECT_LOCK(self);
    if (self->merger && self->merger_legs != legs)
        g_clear_pointer(&self->merger, rtp_merger_destroy); /* a pad requested or released */
    if (!self->merger) {
        const rtp_merger_config mc = {.legs = (unsigned)legs, .window_ms = self->dup_window_ms};
        st = rtp_merger_create(&self->merger, &mc, &err);
        self->merger_legs = legs;
        memset(self->leg_silent, 0, sizeof self->leg_silent);
    }
    if (st == XSF_OK) {
        keep = rtp_merger_offer(self->merger, leg, map.data, map.size, now_ns);
        seq_ext = rtp_merger_ext(self->merger);
        if (now_ns - self->silence_checked_ns >= SILENCE_CHECK_NS) {
            self->silence_checked_ns = now_ns;
            const rtp_merge_stats *ms = rtp_merger_stats(self->merger);
            for (int k = 0; k < legs; k++)
                if (ms->leg[k].silent != self->leg_silent[k]) {
                    self->leg_silent[k] = ms->leg[k].silent;
                    changed[k] = ms->leg[k].silent ? 2 : 1; /* 2: fell silent, 1: back */
                }
        }
    }
    GST_OBJECT_UNLOCK(self);
    if (st != XSF_OK) {
        gst_buffer_unmap(buf, &map);
        gst_buffer_unref(buf);
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, (NULL), ("merger: %s", err.msg));
        return GST_FLOW_ERROR;
    }
    for (int k = 0; k < legs; k++)
        if (changed[k])
            report_leg(self, (unsigned)k, changed[k] == 2);
    GstFlowReturn ret = GST_FLOW_OK;
    if (keep) {
        g_mutex_lock(&self->depay_lock);
        if (!self->caps) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("No RTP format was negotiated."),
                              ("no leg had caps before its packets"));
            ret = GST_FLOW_NOT_NEGOTIATED;
        } else if (!ensure_depacketizer(self, legs)) {
            ret = GST_FLOW_ERROR;
        } else {
            self->in_pts = GST_BUFFER_PTS(buf);
            self->in_dts = GST_BUFFER_DTS(buf);
            self->in_duration = GST_BUFFER_DURATION(buf);
            self->flow = GST_FLOW_OK;
            rtp_depacketizer_push_seq(self->dp, map.data, map.size, now_ns, seq_ext);
            rtp_depacketizer_poll(self->dp, now_ns);
            snapshot_stats(self);
            ret = self->flow;
        }
        if (ret != GST_FLOW_OK && ret != GST_FLOW_FLUSHING)
            g_atomic_int_set(&self->downstream_flow, ret);
        g_mutex_unlock(&self->depay_lock);
    }
    gst_buffer_unmap(buf, &map);
    gst_buffer_unref(buf);
    return ret;
}

static GstFlowReturn leg_chain_list(XsflowJxsDepay *self, unsigned leg, GstBufferList *list)
{
    GstFlowReturn ret = GST_FLOW_OK;
    const guint n = gst_buffer_list_length(list);
    for (guint i = 0; i < n && ret == GST_FLOW_OK; i++)
        ret = leg_chain(self, leg, gst_buffer_ref(gst_buffer_list_get(list, i)));
    gst_buffer_list_unref(list);
    return ret;
}

/* The `sink` pad, a buffer or (list not NULL) a list: one leg, the base class's chain
 * as before; several, leg 0. */
static GstFlowReturn sink_push(GstPad *pad, GstObject *parent, GstBuffer *buf, GstBufferList *list)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(parent);
    if (several_legs(self))
        return list ? leg_chain_list(self, 0, list) : leg_chain(self, 0, buf);
    g_mutex_lock(&self->depay_lock);
    const GstFlowReturn ret =
        list ? self->base_chain_list(pad, parent, list) : self->base_chain(pad, parent, buf);
    g_mutex_unlock(&self->depay_lock);
    return ret;
}

static GstFlowReturn sink_chain(GstPad *pad, GstObject *parent, GstBuffer *buf)
{
    return sink_push(pad, parent, buf, NULL);
}

static GstFlowReturn sink_chain_list(GstPad *pad, GstObject *parent, GstBufferList *list)
{
    return sink_push(pad, parent, NULL, list);
}

static GstFlowReturn leg_pad_chain(GstPad *pad, GstObject *parent, GstBuffer *buf)
{
    return leg_chain(XSFLOW_JXS_DEPAY(parent), pad_leg(pad), buf);
}

static GstFlowReturn leg_pad_chain_list(GstPad *pad, GstObject *parent, GstBufferList *list)
{
    return leg_chain_list(XSFLOW_JXS_DEPAY(parent), pad_leg(pad), list);
}

/* The stream's depacketizer and the frame under way, forgotten (a flush; under depay_lock). */
static void reset_stream(XsflowJxsDepay *self)
{
    g_clear_pointer(&self->dp, rtp_depacketizer_destroy);
    g_clear_pointer(&self->first_field, gst_buffer_unref);
    self->have_caps = 0;
    self->dp_legs = 0;
    self->discont = 1;
    g_atomic_int_set(&self->downstream_flow, GST_FLOW_OK);
    GST_OBJECT_LOCK(self);
    memset(&self->dp_stats, 0, sizeof self->dp_stats); /* as the depacketizer's, gone */
    GST_OBJECT_UNLOCK(self);
    self->in_pts = self->in_dts = self->in_duration = GST_CLOCK_TIME_NONE;
}

/* An event of the stream: what the element did with one leg, and does with the lead leg's
 * events of several (under depay_lock, but for FLUSH_START). */
static gboolean stream_event(XsflowJxsDepay *self, GstEvent *event)
{
    GstRTPBaseDepayload *dp = GST_RTP_BASE_DEPAYLOAD(self);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
        if (self->dp) {
            self->flow = GST_FLOW_OK;
            rtp_depacketizer_flush(self->dp);
            snapshot_stats(self);
        }
        break;
    case GST_EVENT_FLUSH_STOP: reset_stream(self); break;
    default: break;
    }
    return GST_RTP_BASE_DEPAYLOAD_CLASS(xsflow_jxs_depay_parent_class)->handle_event(dp, event);
}

/* Every linked leg has ended. */
static int all_legs_ended(XsflowJxsDepay *self)
{
    int all = 1;
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l; l = l->next) {
        GstPad *pad = l->data;
        if (!(self->eos_legs & (1u << pad_leg(pad))) && gst_pad_is_linked(pad))
            all = 0;
    }
    GST_OBJECT_UNLOCK(self);
    return all;
}

/* Several legs: a serialized event of leg `leg` (under depay_lock). */
static gboolean merged_event(XsflowJxsDepay *self, unsigned leg, GstEvent *event)
{
    const GstEventType type = GST_EVENT_TYPE(event);
    GST_OBJECT_LOCK(self);
    if (self->lead < 0)
        self->lead = (int)leg;
    /* A leg's packets never wait for the lead's caps: the first caps of any leg are taken. */
    const int take = self->lead == (int)leg || (type == GST_EVENT_CAPS && !self->caps);
    if (type == GST_EVENT_SEGMENT && take)
        self->segment_seqnum = gst_event_get_seqnum(event);
    if (type == GST_EVENT_FLUSH_STOP && take)
        self->eos_legs = 0;
    if (type == GST_EVENT_EOS)
        self->eos_legs |= 1u << leg;
    GST_OBJECT_UNLOCK(self);
    if (type == GST_EVENT_EOS) {
        /* Downstream ended the stream (a leg was told, at its packet, and its source sends
         * this): it goes on at once, not after a leg that may never send anything again. */
        const int refused = g_atomic_int_get(&self->downstream_flow) == GST_FLOW_EOS;
        if (!refused && !all_legs_ended(self)) {
            GST_DEBUG_OBJECT(self, "leg %u ended; the others go on", leg + 1);
            gst_event_unref(event);
            return TRUE;
        }
        GST_OBJECT_LOCK(self);
        if (self->merger)
            rtp_merger_flush(self->merger);
        GST_OBJECT_UNLOCK(self);
        return stream_event(self, event);
    }
    if (type == GST_EVENT_CAPS && !take && self->caps) {
        GstCaps *caps = NULL;
        gst_event_parse_caps(event, &caps);
        if (!gst_caps_is_equal(caps, self->caps))
            GST_WARNING_OBJECT(self,
                               "leg %u's caps %" GST_PTR_FORMAT
                               " are not the stream's %" GST_PTR_FORMAT
                               ": its packets are merged as the same stream's",
                               leg + 1, caps, self->caps);
    }
    if (!take) {
        GST_LOG_OBJECT(self, "leg %u: %s event left to the lead leg", leg + 1,
                       GST_EVENT_TYPE_NAME(event));
        gst_event_unref(event);
        return TRUE;
    }
    return stream_event(self, event);
}

static gboolean leg_event(XsflowJxsDepay *self, unsigned leg, GstEvent *event)
{
    if (!GST_EVENT_IS_SERIALIZED(event)) {
        /* FLUSH_START and the like: never under depay_lock (a push blocked downstream holds
         * it, and a flush is what unblocks it); one leg's, or the lead leg's, go on. */
        GST_OBJECT_LOCK(self);
        const int take = self->lead < 0 || self->lead == (int)leg;
        GST_OBJECT_UNLOCK(self);
        if (several_legs(self) && !take) {
            gst_event_unref(event);
            return TRUE;
        }
        return GST_RTP_BASE_DEPAYLOAD_CLASS(xsflow_jxs_depay_parent_class)
            ->handle_event(GST_RTP_BASE_DEPAYLOAD(self), event);
    }
    g_mutex_lock(&self->depay_lock);
    const gboolean res =
        several_legs(self) ? merged_event(self, leg, event) : stream_event(self, event);
    g_mutex_unlock(&self->depay_lock);
    return res;
}

/* The `sink` pad's events (through the base class). */
static gboolean xsflow_jxs_depay_handle_event(GstRTPBaseDepayload *dp, GstEvent *event)
{
    return leg_event(XSFLOW_JXS_DEPAY(dp), 0, event);
}

static gboolean leg_pad_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
    return leg_event(XSFLOW_JXS_DEPAY(parent), pad_leg(pad), event);
}

/* self->legs from the request pads in use: 1 + the highest one's number (under the
 * object lock). */
static void count_legs(XsflowJxsDepay *self)
{
    int legs = 1;
    for (int k = 1; k < RTP_LEGS_MAX; k++)
        if (self->pads_used & (1u << k))
            legs = k + 1;
    g_atomic_int_set(&self->legs, legs);
}

/* sink_N, N from 1 to RTP_LEGS_MAX - 1 (`sink` is the first leg); the lowest free one
 * without a name. */
static GstPad *xsflow_jxs_depay_request_new_pad(GstElement *el, GstPadTemplate *templ,
                                                const gchar *name, const GstCaps *caps)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(el);
    (void)caps;
    guint leg = 0;
    GST_OBJECT_LOCK(self);
    if (name) {
        char tail = 0;
        if (sscanf(name, "sink_%u%c", &leg, &tail) != 1)
            leg = 0;
    } else {
        for (leg = 1; leg < RTP_LEGS_MAX && (self->pads_used & (1u << leg)); leg++)
            ;
    }
    if (leg < 1 || leg >= RTP_LEGS_MAX || (self->pads_used & (1u << leg))) {
        GST_OBJECT_UNLOCK(self);
        GST_WARNING_OBJECT(self,
                           "no pad %s: the legs are sink (the first) and sink_1 to sink_%d, "
                           "each once",
                           name ? name : "sink_%u", RTP_LEGS_MAX - 1);
        return NULL;
    }
    self->pads_used |= 1u << leg;
    count_legs(self);
    GST_OBJECT_UNLOCK(self);
    char pad_name[16];
    leg_pad_name(leg, pad_name, sizeof pad_name);
    GstPad *pad = gst_pad_new_from_template(templ, pad_name);
    gst_pad_set_element_private(pad, GUINT_TO_POINTER(leg));
    gst_pad_set_chain_function(pad, GST_DEBUG_FUNCPTR(leg_pad_chain));
    gst_pad_set_chain_list_function(pad, GST_DEBUG_FUNCPTR(leg_pad_chain_list));
    gst_pad_set_event_function(pad, GST_DEBUG_FUNCPTR(leg_pad_event));
    gst_element_add_pad(el, pad);
    return pad;
}

static void xsflow_jxs_depay_release_pad(GstElement *el, GstPad *pad)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(el);
    const unsigned leg = pad_leg(pad);
    GST_OBJECT_LOCK(self);
    self->pads_used &= ~(1u << leg);
    self->eos_legs &= ~(1u << leg);
    if (self->lead == (int)leg)
        self->lead = -1;
    count_legs(self);
    GST_OBJECT_UNLOCK(self);
    gst_element_remove_pad(el, pad);
}

static GstStateChangeReturn xsflow_jxs_depay_change_state(GstElement *el, GstStateChange t)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(el);
    GstStateChangeReturn ret =
        GST_ELEMENT_CLASS(xsflow_jxs_depay_parent_class)->change_state(el, t);
    if (t == GST_STATE_CHANGE_PAUSED_TO_READY) {
        /* The pads are inactive: no streaming thread is inside. */
        g_mutex_lock(&self->depay_lock);
        reset_stream(self);
        gst_caps_replace(&self->caps, NULL);
        g_mutex_unlock(&self->depay_lock);
        GST_OBJECT_LOCK(self);
        g_clear_pointer(&self->merger, rtp_merger_destroy);
        memset(self->leg_silent, 0, sizeof self->leg_silent);
        self->silence_checked_ns = 0;
        self->lead = -1;
        self->eos_legs = 0;
        self->segment_seqnum = GST_SEQNUM_INVALID;
        GST_OBJECT_UNLOCK(self);
    }
    return ret;
}

/* Several legs: the merge's counts (ST 2022-7), each leg's in "legs", an array of
 * structures in the order of the pads (sink, sink_1, ...). */
static void add_merge_stats(GstStructure *s, const rtp_merge_stats *ms, unsigned legs,
                            guint window_ms)
{
    gst_structure_set(s, "packets-recovered", G_TYPE_UINT64, ms->packets_recovered, "packets-lost",
                      G_TYPE_UINT64, ms->packets_lost, "copies-dropped", G_TYPE_UINT64, ms->dropped,
                      "dup-window", G_TYPE_UINT, window_ms, "merge-memory-bytes", G_TYPE_UINT64,
                      ms->memory_bytes, NULL);
    GValue arr = G_VALUE_INIT;
    g_value_init(&arr, GST_TYPE_ARRAY);
    for (unsigned k = 0; k < legs; k++) {
        const rtp_leg_stats *l = &ms->leg[k];
        char pad[16];
        leg_pad_name(k, pad, sizeof pad);
        GValue v = G_VALUE_INIT;
        g_value_init(&v, GST_TYPE_STRUCTURE);
        g_value_take_boxed(
            &v, gst_structure_new(
                    "application/x-xsflow-rtp-leg-stats", "pad", G_TYPE_STRING, pad,
                    "packets-received", G_TYPE_UINT64, l->packets_received, "packets-lost",
                    G_TYPE_UINT64, l->packets_lost, "duplicates", G_TYPE_UINT64, l->duplicates,
                    "last-packet-age-ms", G_TYPE_DOUBLE, l->last_packet_age_ms, "skew-p50-ms",
                    G_TYPE_DOUBLE, l->skew_p50_ms, "skew-max-ms", G_TYPE_DOUBLE, l->skew_max_ms,
                    "silent", G_TYPE_BOOLEAN, l->silent ? TRUE : FALSE, "silences", G_TYPE_UINT64,
                    l->silences, "returns", G_TYPE_UINT64, l->returns, NULL));
        gst_value_array_append_and_take_value(&arr, &v);
    }
    gst_structure_take_value(s, "legs", &arr);
}

static void xsflow_jxs_depay_set_property(GObject *obj, guint id, const GValue *v,
                                          GParamSpec *pspec)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(obj);
    if (id != PROP_DUP_WINDOW) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
        return;
    }
    GST_OBJECT_LOCK(self);
    self->dup_window_ms = g_value_get_uint(v);
    GST_OBJECT_UNLOCK(self);
}

static void xsflow_jxs_depay_get_property(GObject *obj, guint id, GValue *v, GParamSpec *pspec)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(obj);
    if (id == PROP_DUP_WINDOW) {
        GST_OBJECT_LOCK(self);
        g_value_set_uint(v, self->dup_window_ms);
        GST_OBJECT_UNLOCK(self);
        return;
    }
    if (id != PROP_STATS) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
        return;
    }
    const int legs = g_atomic_int_get(&self->legs);
    rtp_merge_stats ms;
    memset(&ms, 0, sizeof ms);
    GST_OBJECT_LOCK(self);
    const rtp_stats st = self->dp_stats;
    const guint window_ms = self->dup_window_ms;
    if (self->merger) {
        /* The legs' ages and silences as of now, not of the last packet. */
        rtp_merger_poll(self->merger, xsf_clock_mono_ns());
        ms = *rtp_merger_stats(self->merger);
    }
    GST_OBJECT_UNLOCK(self);
    GstStructure *s =
        gst_structure_new("application/x-xsflow-rtp-stats", "packets", G_TYPE_UINT64, st.packets,
                          "lost", G_TYPE_UINT64, st.lost, "reordered", G_TYPE_UINT64, st.reordered,
                          "duplicated", G_TYPE_UINT64, st.duplicated, "invalid", G_TYPE_UINT64,
                          st.invalid, "frames-complete", G_TYPE_UINT64, st.frames_complete,
                          "frames-dropped", G_TYPE_UINT64, st.frames_dropped, NULL);
    if (legs > 1)
        add_merge_stats(s, &ms, (unsigned)legs, window_ms);
    g_value_take_boxed(v, s);
}

static void xsflow_jxs_depay_finalize(GObject *obj)
{
    XsflowJxsDepay *self = XSFLOW_JXS_DEPAY(obj);
    reset_stream(self);
    gst_caps_replace(&self->caps, NULL);
    g_clear_pointer(&self->merger, rtp_merger_destroy);
    g_mutex_clear(&self->depay_lock);
    G_OBJECT_CLASS(xsflow_jxs_depay_parent_class)->finalize(obj);
}

static void xsflow_jxs_depay_class_init(XsflowJxsDepayClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstRTPBaseDepayloadClass *dp_class = GST_RTP_BASE_DEPAYLOAD_CLASS(klass);
    oc->set_property = xsflow_jxs_depay_set_property;
    oc->get_property = xsflow_jxs_depay_get_property;
    oc->finalize = xsflow_jxs_depay_finalize;
    g_object_class_install_property(
        oc, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics",
                           "Packets, losses and frames of the stream; with several legs "
                           "(SMPTE ST 2022-7) the merge's too, and each leg's (legs)",
                           GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    g_object_class_install_property(
        oc, PROP_DUP_WINDOW,
        g_param_spec_uint("dup-window", "Skew window",
                          "Several legs (SMPTE ST 2022-7): the path skew tolerated in ms (50: "
                          "moderate skew, up to 450: high skew)",
                          1, RTP_MERGE_WINDOW_MS_MAX, RTP_MERGE_WINDOW_MS_DEFAULT,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &leg_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "xsflow RFC 9134 JPEG XS depayloader", "Codec/Depayloader/Network/RTP",
        "Extracts JPEG XS codestreams from RTP packets (RFC 9134, "
        "SMPTE ST 2110-22), of one leg or several (SMPTE ST 2022-7)",
        "xsflow");
    element_class->change_state = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_change_state);
    element_class->request_new_pad = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_request_new_pad);
    element_class->release_pad = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_release_pad);
    dp_class->set_caps = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_set_caps);
    dp_class->process_rtp_packet = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_process);
    dp_class->handle_event = GST_DEBUG_FUNCPTR(xsflow_jxs_depay_handle_event);
}

static void xsflow_jxs_depay_init(XsflowJxsDepay *self)
{
    self->fps_d = 1;
    self->legs = 1;
    self->lead = -1;
    self->dup_window_ms = RTP_MERGE_WINDOW_MS_DEFAULT;
    self->segment_seqnum = GST_SEQNUM_INVALID;
    self->discont = 1;
    self->in_pts = self->in_dts = self->in_duration = GST_CLOCK_TIME_NONE;
    g_mutex_init(&self->depay_lock);
    /* The base class made the `sink` pad: its chain goes through ours, which takes the
     * packets of the first leg into the merge when there are several. */
    GstPad *sink = GST_RTP_BASE_DEPAYLOAD_SINKPAD(self);
    self->base_chain = GST_PAD_CHAINFUNC(sink);
    self->base_chain_list = GST_PAD_CHAINLISTFUNC(sink);
    gst_pad_set_chain_function(sink, GST_DEBUG_FUNCPTR(sink_chain));
    gst_pad_set_chain_list_function(sink, GST_DEBUG_FUNCPTR(sink_chain_list));
}
