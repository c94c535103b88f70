/* JPEG XS in the codec table (common/include/xsf_codec.h): the header parser, the C
 * reference decoder and the GPU decoder (with its incremental calls) behind
 * the table's functions. The parsed header travels as an xs_header in
 * xsf_codec_frame.header; the decoders take it back (xs_decode_parsed,
 * xs_gpu_decode_parsed). */
#include <string.h>

#include "xs.h"
#include "xs_internal.h"
#include "xsf_codec.h"

_Static_assert(sizeof(xs_header) <= XSF_CODEC_HEADER_MAX,
               "xs_header must fit xsf_codec_frame.header");

static int probe(const uint8_t *buf, size_t len)
{
    if (len < 2 || buf[0] != 0xff || buf[1] != 0x10) /* SOC */
        return 0;
    if (len < 4)
        return 50;
    return buf[2] == 0xff && buf[3] == 0x50 ? 100 : 0; /* CAP follows SOC */
}

/* The picture a header decodes to (XSF_PLANAR_U16). */
static void header_format(const xs_header *h, xsf_format *f)
{
    memset(f, 0, sizeof *f);
    f->container = XSF_PLANAR_U16;
    f->nc = h->nc;
    for (int c = 0; c < h->nc && c < XSF_MAX_COMPONENTS; c++) {
        /* 21122-1 A.4.4: the header reader has checked that sx and sy divide the frame. */
        f->width[c] = h->wf / h->sx[c];
        f->height[c] = h->hf / h->sy[c];
        f->depth[c] = h->depth[c];
    }
}

static xsf_status describe(const void *parsed, size_t size, xsf_codec_frame *out, xsf_error *err)
{
    const xsf_status st =
        xsf_codec_frame_start(out, &xs_codec, parsed, size, sizeof(xs_header), err);
    if (st != XSF_OK) /* the field stays NONE: the codestream does not say (RTP and boxes do) */
        return st;
    const xs_header *h = parsed;
    header_format(h, &out->format);
    out->codestream_bytes = h->lcod;
    out->header_bytes = h->header_bytes;
    xs_header_colour(h, &out->colour); /* the decoders' pictures carry the same */
    return XSF_OK;
}

static xsf_status parse_header(const uint8_t *buf, size_t len, xsf_codec_frame *out, xsf_error *err)
{
    xs_header h;
    const xsf_status st = xs_parse_header(buf, len, &h, err);
    return st != XSF_OK ? st : describe(&h, sizeof h, out, err);
}

static xsf_status codestream_size(const uint8_t *buf, size_t len, size_t *bytes, xsf_error *err)
{
    return xs_jxs_next(buf, len, 0, bytes, NULL, err);
}

/* The parsed header of `frame` where it is JPEG XS's, else NULL (the decoder reads it). */
static const xs_header *header_of(const xsf_codec_frame *frame)
{
    return xsf_codec_frame_header(frame, &xs_codec);
}

/* ---- C decoder ---- */

XSF_CODEC_CPU_DECODER(xs_decoder, xs_decoder_create, xs_decoder_destroy);

/* The picture `frame` decodes to: from its parsed header where it has one,
 * else from buf's (XSF_ERR_TRUNCATED and the like where that fails). */
static xsf_status decoded_format(const xsf_codec_frame *frame, const uint8_t *buf, size_t len,
                                 xsf_format *f, xsf_error *err)
{
    const xs_header *h = frame ? header_of(frame) : NULL;
    xs_header parsed;
    if (!h) {
        const xsf_status st = xs_parse_header(buf, len, &parsed, err);
        if (st != XSF_OK)
            return st;
        h = &parsed;
    }
    header_format(h, f);
    return XSF_OK;
}

/* `want` must be the decoded picture of `frame` in its own pixel format:
 * xsf_format_convert's (with the frame's colour) for a format other than
 * planar16; XSF_ERR_UNSUPPORTED where that format does not apply. */
static xsf_status check_converted(const xsf_codec_frame *frame, const uint8_t *buf, size_t len,
                                  const xsf_format *want, xsf_error *err)
{
    xsf_format dec, conv;
    xsf_colour colour;
    xsf_colour_default(&colour);
    xsf_status st = decoded_format(frame, buf, len, &dec, err);
    if (st == XSF_OK)
        st =
            xsf_format_convert(&dec, frame ? &frame->colour : &colour, want->container, &conv, err);
    if (st == XSF_OK && !xsf_format_equal(&conv, want))
        st = xsf_error_set(err, XSF_ERR_ARG,
                           "the %s picture is not the %dx%d frame's in that pixel format "
                           "(xsf_format_convert)",
                           xsf_container_name(want->container), dec.width[0], dec.height[0]);
    return st;
}

static xsf_status cpu_decode(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err)
{
    (void)params;
    xs_decoder *d = dec;
    size_t consumed;
    if (out->fmt.container == XSF_PLANAR_U16) {
        /* Straight into the caller's planes; the picture's description stays its owner's. */
        const xsf_status st = xs_decode_into(d, header_of(frame), buf, len, &consumed, out);
        return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_decoder_error(d));
    }
    /* Another pixel format: the decoder's own planar picture, converted
     * (xsf_codec_copy_picture, as every codec's C decoder) with the frame's colour. */
    xsf_status st = check_converted(frame, buf, len, &out->fmt, err);
    if (st != XSF_OK)
        return st;
    const xs_header *h = header_of(frame);
    const xsf_picture *img = NULL;
    st = h ? xs_decode_parsed(d, h, buf, len, &consumed, &img)
           : xs_decode(d, buf, len, &consumed, &img);
    if (st != XSF_OK)
        return xsf_codec_fail(err, st, xs_decoder_error(d));
    xsf_picture src = *img;
    if (frame)
        src.colour = frame->colour;
    return xsf_codec_copy_picture(out, &src, err);
}

static void cpu_parallel(void *dec, const xsf_parallel *par)
{
    xs_decoder_set_parallel(dec, par);
}

/* ---- GPU decoder ---- */

static xsf_status gpu_available(void)
{
    return xs_gpu_available();
}

static xsf_status gpu_create(void **dec, int device, void *stream, xsf_error *err)
{
    xs_gpu_decoder *d = NULL;
    const xsf_status st = xs_gpu_decoder_create(&d, device, (xs_cuda_stream)stream, err);
    *dec = d;
    return st;
}

static void gpu_destroy(void *dec)
{
    xs_gpu_decoder_destroy(dec);
}

/* Where the picture goes and in which pixel format: the caller's device
 * planes (out's format), or (out NULL) the decoder's own, of frame->format's
 * container. A format other than planar16 must be the frame's converted
 * (check_converted); the conversion takes the frame's colour. */
static xsf_status set_output(xs_gpu_decoder *d, const xsf_codec_frame *frame, const uint8_t *buf,
                             size_t len, xsf_picture *out, xsf_error *err)
{
    const xsf_format *want = out ? &out->fmt : frame ? &frame->format : NULL;
    const xsf_container container = want ? want->container : XSF_PLANAR_U16;
    if (out && (out->memory != XSF_MEMORY_DEVICE || out->fmt.nc > XS_MAX_COMPONENTS))
        return xsf_error_set(err, XSF_ERR_ARG, "the GPU decoder writes into device pictures");
    if (container != XSF_PLANAR_U16) {
        const xsf_status st = check_converted(frame, buf, len, want, err);
        if (st != XSF_OK)
            return st;
    }
    uint8_t *planes[XS_MAX_COMPONENTS] = {0};
    size_t pitch[XS_MAX_COMPONENTS] = {0};
    for (int p = 0; out && p < xsf_format_planes(&out->fmt) && p < XS_MAX_COMPONENTS; p++) {
        planes[p] = out->data[p];
        pitch[p] = out->stride[p];
    }
    const xsf_status st = xs_gpu_set_output_format(d, container, frame ? &frame->colour : NULL,
                                                   out ? planes : NULL, out ? pitch : NULL);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(d));
}

static xsf_status gpu_decode(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err)
{
    (void)params;
    xs_gpu_decoder *d = dec;
    xsf_status st = set_output(d, frame, buf, len, out, err);
    if (st != XSF_OK)
        return st;
    size_t consumed;
    st = xs_gpu_decode_parsed(d, header_of(frame), buf, len, &consumed);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(d));
}

/* Rows of the host picture's planes: index c is plane c, whose rows are
 * component c's (xs_gpu_download_rows). */
static xsf_status gpu_download_rows(void *dec, xsf_picture *host,
                                    const int from[XSF_MAX_COMPONENTS],
                                    const int to[XSF_MAX_COMPONENTS], xsf_error *err)
{
    xs_gpu_decoder *d = dec;
    uint8_t *planes[XS_MAX_COMPONENTS] = {0};
    int f[XS_MAX_COMPONENTS] = {0}, t[XS_MAX_COMPONENTS] = {0};
    if (host->memory == XSF_MEMORY_DEVICE || host->fmt.nc > XS_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "the rows go to a host picture");
    const xsf_picture *pic = xs_gpu_decoder_picture(d);
    if (pic && pic->fmt.container != host->fmt.container)
        return xsf_error_set(err, XSF_ERR_ARG, "the picture is %s, the host picture %s",
                             xsf_container_name(pic->fmt.container),
                             xsf_container_name(host->fmt.container));
    for (int c = 0; c < xsf_format_planes(&host->fmt); c++) {
        if (host->stride[c] !=
            xsf_format_row_bytes(&host->fmt, c)) /* xs_gpu_download_rows' layout */
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "the host picture's rows must be tightly packed");
        planes[c] = host->data[c];
        f[c] = from[c];
        t[c] = to[c];
    }
    const xsf_status st = xs_gpu_download_planes(d, planes, f, t);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(d));
}

static xsf_status gpu_decode_device(void *dec, const xsf_codec_frame *frame, const void *params,
                                    const uint8_t *buf, const uint8_t *dev, size_t len,
                                    xsf_picture *out, xsf_error *err)
{
    (void)params;
    xs_gpu_decoder *d = dec; /* xs_gpu_decode_device reads the headers from buf */
    xsf_status st = set_output(d, frame, buf, len, out, err);
    if (st != XSF_OK)
        return st;
    size_t consumed;
    st = xs_gpu_decode_device(d, dev, buf, len, &consumed);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(d));
}

static xsf_status gpu_sync(void *dec, xsf_error *err)
{
    const xsf_status st = xs_gpu_sync(dec);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(dec));
}

static xsf_status gpu_begin(void *dec, const xsf_codec_frame *frame, const uint8_t *buf, size_t len,
                            xsf_picture *out, xsf_error *err)
{
    xs_gpu_decoder *d = dec;
    xsf_status st = set_output(d, frame, buf, len, out, err);
    if (st == XSF_ERR_TRUNCATED) { /* a converted format's check read the header: not whole yet */
        if (err)
            xsf_error_clear(err);
        return xsf_error_set(err, XSF_ERR_AGAIN, "the header is not whole in %zu bytes", len);
    }
    if (st != XSF_OK)
        return st;
    st = xs_gpu_decode_begin_parsed(d, header_of(frame), buf, len);
    if (st == XSF_ERR_AGAIN) /* nothing under way: the output is not kept */
        xs_gpu_set_output(d, NULL, NULL);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(d));
}

static xsf_status gpu_more(void *dec, const uint8_t *buf, size_t len, xsf_error *err)
{
    const xsf_status st = xs_gpu_decode_more(dec, buf, len);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(dec));
}

static xsf_status gpu_end(void *dec, const uint8_t *buf, size_t len, xsf_error *err)
{
    size_t consumed;
    const xsf_status st = xs_gpu_decode_end(dec, buf, len, &consumed);
    return st == XSF_OK ? st : xsf_codec_fail(err, st, xs_gpu_decoder_error(dec));
}

static void gpu_abort(void *dec)
{
    xs_gpu_decode_abort(dec);
}

static void gpu_rows(void *dec, int rows[XSF_MAX_COMPONENTS])
{
    int r[XS_MAX_COMPONENTS];
    xs_gpu_decode_rows(dec, r);
    for (int c = 0; c < XSF_MAX_COMPONENTS; c++)
        rows[c] = c < XS_MAX_COMPONENTS ? r[c] : 0;
}

const xsf_codec xs_codec = {
    .name = "jpeg-xs",
    .long_name = "JPEG XS (ISO/IEC 21122-1)",
    .extension = "jxs",
    .gpu_decode_device = gpu_decode_device,
    XSF_CODEC_FUNCTIONS,
    .cpu_parallel = cpu_parallel,
    .gpu_begin = gpu_begin,
    .gpu_more = gpu_more,
    .gpu_end = gpu_end,
    .gpu_abort = gpu_abort,
    .gpu_rows = gpu_rows,
    .encoder = &xs_codec_encoder,
};
