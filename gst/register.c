/* Registration of the plugin's elements (shared by plugin.c and the tests). */
#include "xsflow_gst.h"

gboolean xsf_gst_register_elements(GstPlugin *plugin)
{
    gboolean ok = TRUE;
    ok &= GST_ELEMENT_REGISTER(xsflowdec, plugin);
    ok &= GST_ELEMENT_REGISTER(xsflowenc, plugin);
    ok &= GST_ELEMENT_REGISTER(xsflowjxsparse, plugin);
    ok &= GST_ELEMENT_REGISTER(xsflowjxspay, plugin);
    ok &= GST_ELEMENT_REGISTER(xsflowjxsdepay, plugin);
    return ok;
}

GType xsf_gst_device_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {XSF_GST_DEVICE_AUTO, "The GPU where one is usable, else the CPU", "auto"},
        {XSF_GST_DEVICE_GPU, "The GPU (fails where none is usable)", "gpu"},
        {XSF_GST_DEVICE_CPU, "The C implementation on the CPU", "cpu"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("XsfGstDevice", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}
