/* libgstxsflow.so: JPEG XS decoding and encoding on the GPU (or the CPU) and
 * RFC 9134 (ST 2110-22) payloading, on the xsflow libraries. */
#include "xsflow_gst.h"

static gboolean plugin_init(GstPlugin *plugin)
{
    return xsf_gst_register_elements(plugin);
}

/* Where this build comes from: XSF_PACKAGE_ORIGIN (CMake), a URL where there
 * is one; otherwise what GStreamer's own builds say when none is set. */
#ifndef XSF_PACKAGE_ORIGIN
#define XSF_PACKAGE_ORIGIN "Unknown package origin"
#endif

/* "BSD": GStreamer's name for the BSD licences (LICENSE: BSD-2-Clause). */
#define PACKAGE "xsflow"
GST_PLUGIN_DEFINE(
    GST_VERSION_MAJOR, GST_VERSION_MINOR, xsflow,
    "JPEG XS (ISO/IEC 21122) GPU decoder and encoder, RFC 9134 payloader and depayloader",
    plugin_init, XSF_GST_VERSION, "BSD", PACKAGE, XSF_PACKAGE_ORIGIN)
