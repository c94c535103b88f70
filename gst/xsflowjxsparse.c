/* xsflowjxsparse: splits a byte stream of JPEG XS codestreams (a .jxs file)
 * into one buffer per codestream (SOC .. EOC), with caps from its picture
 * header. Bytes before an SOC marker followed by CAP are skipped. */
#include <string.h>

#include <gst/base/gstbaseparse.h>

#include "xsflow_gst.h"

GST_DEBUG_CATEGORY_STATIC(xsflowjxsparse_debug);
#define GST_CAT_DEFAULT xsflowjxsparse_debug

#define XSFLOW_TYPE_JXS_PARSE (xsflow_jxs_parse_get_type())
G_DECLARE_FINAL_TYPE(XsflowJxsParse, xsflow_jxs_parse, XSFLOW, JXS_PARSE, GstBaseParse)

struct _XsflowJxsParse {
    GstBaseParse parent;
    xs_header last; /* the header the caps were made from */
    int have_caps;
    gsize want; /* bytes asked for the codestream under way */
};

G_DEFINE_TYPE(XsflowJxsParse, xsflow_jxs_parse, GST_TYPE_BASE_PARSE)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(
    xsflowjxsparse, "xsflowjxsparse", GST_RANK_PRIMARY + 1, XSFLOW_TYPE_JXS_PARSE,
    GST_DEBUG_CATEGORY_INIT(xsflowjxsparse_debug, "xsflowjxsparse", 0, "xsflow JPEG XS parser"));

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("image/x-jxsc"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("image/x-jxsc, alignment = (string) frame, parsed = (boolean) true, "
                    "interlace-mode = (string) progressive, width = (int) [ 1, 65535 ], "
                    "height = (int) [ 1, 65535 ]"));

/* The SOC, CAP marker pair that opens every codestream (21122-1 A.4). */
static gsize find_start(const guint8 *d, gsize n)
{
    for (gsize i = 0; i + 4 <= n; i++)
        if (d[i] == 0xff && d[i + 1] == 0x10 && d[i + 2] == 0xff && d[i + 3] == 0x50)
            return i;
    return n >= 3 ? n - 3 : 0;
}

static gboolean headers_differ(const xs_header *a, const xs_header *b)
{
    if (a->wf != b->wf || a->hf != b->hf || a->nc != b->nc || a->cpih != b->cpih ||
        a->ppih != b->ppih || a->plev != b->plev)
        return TRUE;
    for (int c = 0; c < a->nc; c++)
        if (a->depth[c] != b->depth[c] || a->sx[c] != b->sx[c] || a->sy[c] != b->sy[c])
            return TRUE;
    return FALSE;
}

static void update_caps(XsflowJxsParse *self, const xs_header *hdr)
{
    GstBaseParse *bp = GST_BASE_PARSE(self);
    if (self->have_caps && !headers_differ(&self->last, hdr) &&
        !gst_pad_check_reconfigure(GST_BASE_PARSE_SRC_PAD(bp)))
        return;
    GstCaps *caps = gst_caps_new_simple("image/x-jxsc", "alignment", G_TYPE_STRING, "frame",
                                        "parsed", G_TYPE_BOOLEAN, TRUE, NULL);
    GstStructure *s = gst_caps_get_structure(caps, 0);
    xsf_gst_caps_from_header(s, hdr, 1);
    if (hdr->lcod)
        gst_structure_set(s, "codestream-length", G_TYPE_INT, (int)hdr->lcod, NULL);
    /* The frame rate comes from upstream where it knows one. */
    GstCaps *up = gst_pad_get_current_caps(GST_BASE_PARSE_SINK_PAD(bp));
    gint num = 0, den = 1;
    if (up && gst_structure_get_fraction(gst_caps_get_structure(up, 0), "framerate", &num, &den)) {
        gst_structure_set(s, "framerate", GST_TYPE_FRACTION, num, den, NULL);
        if (num > 0)
            gst_base_parse_set_frame_rate(bp, num, den, 0, 0);
    }
    if (up)
        gst_caps_unref(up);
    GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT, caps);
    gst_pad_set_caps(GST_BASE_PARSE_SRC_PAD(bp), caps);
    gst_caps_unref(caps);
    self->last = *hdr;
    self->have_caps = 1;
}

static GstFlowReturn xsflow_jxs_parse_handle_frame(GstBaseParse *bp, GstBaseParseFrame *frame,
                                                   gint *skipsize)
{
    XsflowJxsParse *self = XSFLOW_JXS_PARSE(bp);
    GstMapInfo map;
    if (!gst_buffer_map(frame->buffer, &map, GST_MAP_READ))
        return GST_FLOW_ERROR;
    GstFlowReturn ret = GST_FLOW_OK;
    const gsize start = find_start(map.data, map.size);
    if (start > 0) {
        GST_DEBUG_OBJECT(self, "skipping %" G_GSIZE_FORMAT " bytes before a codestream", start);
        *skipsize = (gint)start;
        goto out;
    }
    xs_header hdr;
    xsf_error err = {0};
    xsf_status st = xs_parse_header(map.data, map.size, &hdr, &err);
    gsize bytes = 0;
    if (st == XSF_OK)
        st = xsf_gst_codestream_size(map.data, map.size, &bytes, &err);
    if (st == XSF_ERR_TRUNCATED) {
        if (GST_BASE_PARSE_DRAINING(bp)) {
            GST_ELEMENT_WARNING(self, STREAM, DECODE, (NULL),
                                ("the stream ends inside a codestream (%" G_GSIZE_FORMAT
                                 " bytes): %s",
                                 map.size, err.msg));
            *skipsize = (gint)map.size;
            goto out;
        }
        /* Ask for more: the codestream length where the header gives it,
         * else twice what we have. */
        gsize want = map.size * 2;
        if (xs_parse_header(map.data, map.size, &hdr, &err) == XSF_OK && hdr.lcod > map.size)
            want = hdr.lcod;
        self->want = MAX(want, 64);
        gst_base_parse_set_min_frame_size(bp, (guint)MIN(self->want, (gsize)G_MAXUINT));
        goto out;
    }
    if (st != XSF_OK) {
        /* Not a codestream after all: skip this marker pair, look for the next. */
        GST_WARNING_OBJECT(self, "not a codestream: %s", err.msg);
        *skipsize = 2;
        goto out;
    }
    update_caps(self, &hdr);
    gst_base_parse_set_min_frame_size(bp, 64);
    gst_buffer_unmap(frame->buffer, &map);
    GST_BUFFER_FLAG_UNSET(frame->buffer, GST_BUFFER_FLAG_DELTA_UNIT);
    return gst_base_parse_finish_frame(bp, frame, (gint)bytes);
out:
    gst_buffer_unmap(frame->buffer, &map);
    return ret;
}

static gboolean xsflow_jxs_parse_start(GstBaseParse *bp)
{
    XsflowJxsParse *self = XSFLOW_JXS_PARSE(bp);
    self->have_caps = 0;
    self->want = 0;
    gst_base_parse_set_min_frame_size(bp, 64);
    gst_base_parse_set_has_timing_info(bp, FALSE);
    return TRUE;
}

static void xsflow_jxs_parse_class_init(XsflowJxsParseClass *klass)
{
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseParseClass *bp_class = GST_BASE_PARSE_CLASS(klass);
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "xsflow JPEG XS parser", "Codec/Parser/Video",
        "Splits a stream of JPEG XS codestreams into frames", "xsflow");
    bp_class->start = GST_DEBUG_FUNCPTR(xsflow_jxs_parse_start);
    bp_class->handle_frame = GST_DEBUG_FUNCPTR(xsflow_jxs_parse_handle_frame);
}

static void xsflow_jxs_parse_init(XsflowJxsParse *self)
{
    GST_PAD_SET_ACCEPT_INTERSECT(GST_BASE_PARSE_SINK_PAD(self));
    GST_PAD_SET_ACCEPT_TEMPLATE(GST_BASE_PARSE_SINK_PAD(self));
}
