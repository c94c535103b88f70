/* Live encoding as a command line asks for it (pl_encode.h): the knobs of a
 * pl_encode_request, its defaults, the input's kind, and the feed's
 * configuration it gives. */
#include <stddef.h>
#include <string.h>

#include "pl_encode.h"
#include "xsf_parse.h"

void pl_encode_request_init(pl_encode_request *r, const xsf_codec *codec)
{
    memset(r, 0, sizeof *r);
    r->codec = codec;
    r->engine = -1;
    r->depth = codec->encoder->yuv_depth;
    r->sampling = codec->encoder->yuv_sampling;
}

imgio_format pl_encode_request_format(const pl_encode_request *r, const char *in)
{
    static const imgio_format stdin_format[] = {IMGIO_FORMAT_NONE, IMGIO_FORMAT_NONE,
                                                IMGIO_FORMAT_Y4M, IMGIO_FORMAT_YUV};
    if (strcmp(in, "-"))
        return imgio_format_from_path(in);
    if (r->input == PL_ENCODE_INPUT_AUTO && r->bpp > 0)
        return IMGIO_FORMAT_Y4M;
    return r->input >= 0 && r->input <= PL_ENCODE_INPUT_YUV ? stdin_format[r->input]
                                                            : IMGIO_FORMAT_NONE;
}

xsf_status pl_encode_request_config(const pl_encode_request *r, const char *in, imgio_format format,
                                    pl_encode_config *c, xsf_error *err)
{
    memset(c, 0, sizeof *c);
    c->in = in;
    c->format = format;
    c->codec = r->codec;
    c->device = -1;
    c->max_frames = r->frames_given ? r->frames : 0;
    xsf_encode_settings_init(&c->settings);
    c->settings.bpp = r->bpp;
    if (r->tune)
        c->settings.options = "tune=visual";
    if (format != IMGIO_FORMAT_YUV)
        return XSF_OK;
    return imgio_raw_layout_make(&c->raw, r->sampling, r->size[0], r->size[1], r->depth, err);
}

static xsf_status parse_size(void *obj, const char *value, xsf_error *err)
{
    pl_encode_request *r = obj;
    return xsf_parse_size(value, 65535, &r->size[0], &r->size[1], err);
}

#define AT(field) offsetof(pl_encode_request, field)
const xsf_option pl_encode_knobs[] = {
    XSF_OPTION_HEAD("live encoding (IN.y4m, IN.yuv, .ppm, .pgm):"),
    XSF_OPTION("bpp", XSF_OPTION_DOUBLE, AT(bpp), "B",
               "bits per pixel (of component 0's size): codestreams of\n"
               "floor(B*W*H/8) bytes; needed for a picture input",
               .lo = 0, .hi = 1024, .flags = XSF_OPTION_ABOVE_LO),
    XSF_OPTION("cpu", XSF_OPTION_SET, AT(engine), NULL, "the C encoder", .value = 0),
    XSF_OPTION("gpu", XSF_OPTION_SET, AT(engine), NULL,
               "the CUDA encoder (same bytes; the default where a GPU is usable)", .value = 1),
    XSF_OPTION("frames", XSF_OPTION_INT, AT(frames), "N", "send the first N frames only", .lo = 1,
               .hi = 1 << 30, .flags = XSF_OPTION_GIVEN, .given_offset = AT(frames_given)),
    XSF_OPTION("format", XSF_OPTION_CHOICE, AT(input), "F",
               "what standard input (IN '-') holds: jxs, y4m or yuv (default:\n"
               "y4m with --bpp, else jxs)",
               .choices = "auto|jxs|y4m|yuv"),
    XSF_OPTION("size", XSF_OPTION_CALL, AT(size), "WxH", "a .yuv input's picture size",
               .parse = parse_size),
    XSF_OPTION("depth", XSF_OPTION_INT, AT(depth), "N",
               "a .yuv input's bits per sample, 1..16 (default 10)", .lo = 1, .hi = 16),
    XSF_OPTION("tune", XSF_OPTION_CHOICE, AT(tune), "T",
               "JPEG XS gains and priorities for psnr (default) or visual\n"
               "(contrast sensitivity; xsflow encode --tune)",
               .choices = "psnr|visual"),
    XSF_OPTION_TABLE_END};
#undef AT
