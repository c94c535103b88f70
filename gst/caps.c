/* Caps fields from codestream headers (see xsflow_gst.h). */
#include <string.h>

#include "rtp.h"
#include "xsflow_gst.h"

const char *xsf_gst_sampling_name(const xs_header *hdr)
{
    if (hdr->nc == 1)
        return "GRAYSCALE";
    if (hdr->nc < 3 || hdr->nc > 4 || hdr->sx[0] != 1 || hdr->sy[0] != 1)
        return NULL;
    for (int c = 1; c < hdr->nc; c++)
        if (hdr->sx[c] != hdr->sx[1] || hdr->sy[c] != hdr->sy[1])
            if (!(c == 3 && hdr->sx[3] == 1 && hdr->sy[3] == 1))
                return NULL;
    const int sx = hdr->sx[1], sy = hdr->sy[1];
    if (hdr->nc == 4)
        return sx == 1 && sy == 1 && hdr->sx[3] == 1 && hdr->sy[3] == 1 ? "YCbCr-4:4:4:4" : NULL;
    if (sx == 1 && sy == 1)
        return hdr->cpih == 1 ? "RGB" : "YCbCr-4:4:4";
    if (sx == 2 && sy == 1)
        return "YCbCr-4:2:2";
    if (sx == 2 && sy == 2)
        return "YCbCr-4:2:0";
    return NULL;
}

void xsf_gst_caps_from_header(GstStructure *s, const xs_header *hdr, int fields)
{
    char buf[32];
    const char *sampling = xsf_gst_sampling_name(hdr);
    gst_structure_set(s, "width", G_TYPE_INT, (int)hdr->wf, "height", G_TYPE_INT,
                      (int)hdr->hf * (fields == 2 ? 2 : 1), "depth", G_TYPE_INT, (int)hdr->depth[0],
                      "interlace-mode", G_TYPE_STRING, fields == 2 ? "fields" : "progressive",
                      NULL);
    if (sampling)
        gst_structure_set(s, "sampling", G_TYPE_STRING, sampling, NULL);
    if (rtp_sdp_profile_name(hdr->ppih, buf, sizeof buf))
        gst_structure_set(s, "profile", G_TYPE_STRING, buf, NULL);
    if (rtp_sdp_level_name(hdr->plev, buf, sizeof buf))
        gst_structure_set(s, "level", G_TYPE_STRING, buf, NULL);
    if (rtp_sdp_sublevel_name(hdr->plev, buf, sizeof buf))
        gst_structure_set(s, "sublevel", G_TYPE_STRING, buf, NULL);
}

xsf_status xsf_gst_codestream_size(const guint8 *data, gsize len, gsize *bytes, xsf_error *err)
{
    size_t n = 0;
    const xsf_status st = xs_jxs_next(data, len, 0, &n, NULL, err);
    if (st == XSF_OK)
        *bytes = n;
    return st;
}
