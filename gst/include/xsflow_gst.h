/* xsflow GStreamer plugin: what its elements share. Internal to gst/.
 *
 * Caps follow GStreamer's own JPEG XS elements so that pipelines can swap
 * theirs for ours:
 *   image/x-jxsc, alignment=frame, width, height, depth, sampling
 *     ("YCbCr-4:2:2", ...: RFC 9134 7.1's names), interlace-mode
 *     (progressive, or fields: one buffer holds both fields' codestreams,
 *     first field first), framerate, and where known profile, level,
 *     sublevel (RFC 9134 names) and codestream-length;
 *   application/x-rtp, media=video, clock-rate=90000, encoding-name=JXSV,
 *     packetmode, transmode and the SDP's fmtp parameters as strings. */
#ifndef XSF_GST_XSFLOW_GST_H
#define XSF_GST_XSFLOW_GST_H

#include <gst/gst.h>

#include "xs.h"

G_BEGIN_DECLS

/* Registers the five elements with `plugin` (plugin_init, or a test's
 * gst_plugin_register_static). */
gboolean xsf_gst_register_elements(GstPlugin *plugin);

/* RFC 9134 sampling name of a codestream's components: "YCbCr-4:2:2",
 * "YCbCr-4:2:0", "YCbCr-4:4:4", "RGB" (colour transform RCT), "YCbCr-4:4:4:4"
 * for four full components (alpha), "GRAYSCALE" for one, NULL otherwise. */
const char *xsf_gst_sampling_name(const xs_header *hdr);

/* Fills the image/x-jxsc fields that follow from a codestream header into
 * `s` (width, height, depth, sampling, profile, level, sublevel).
 * `fields` is 2 for interlace-mode=fields (height is then the frame's). */
void xsf_gst_caps_from_header(GstStructure *s, const xs_header *hdr, int fields);

/* The size in bytes of the codestream at data[0..len): XSF_OK and *bytes,
 * XSF_ERR_TRUNCATED where data ends inside it, else invalid. */
xsf_status xsf_gst_codestream_size(const guint8 *data, gsize len, gsize *bytes, xsf_error *err);

/* The "device" property of the codecs. */
typedef enum {
    XSF_GST_DEVICE_AUTO = 0,
    XSF_GST_DEVICE_GPU = 1,
    XSF_GST_DEVICE_CPU = 2
} XsfGstDevice;
GType xsf_gst_device_get_type(void);
#define XSF_GST_TYPE_DEVICE (xsf_gst_device_get_type())

GST_ELEMENT_REGISTER_DECLARE(xsflowdec);
GST_ELEMENT_REGISTER_DECLARE(xsflowenc);
GST_ELEMENT_REGISTER_DECLARE(xsflowjxsparse);
GST_ELEMENT_REGISTER_DECLARE(xsflowjxspay);
GST_ELEMENT_REGISTER_DECLARE(xsflowjxsdepay);

G_END_DECLS
#endif
