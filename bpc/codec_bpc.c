/* BPC-PaCo in the codec table (common/include/xsf_codec.h): the header reader, the
 * C reference decoder and the CUDA decoder behind the table's functions.
 * The parsed header travels as a bpc_info in xsf_codec_frame.header, and
 * the decoders take it back (bpc_decode_parsed, bpc_gpu_decode_parsed):
 * they read only the code-block index from the bytes. The CUDA decoder
 * writes into planes of its own and synchronizes its stream
 * (bpc_gpu_decode); a caller's device picture gets a copy of them on the
 * device, a host picture its rows. bpc's GPU code works on the current
 * device; the table's GPU decoder and encoder make theirs (gpu_create's,
 * create's) current for each call and restore the caller's
 * (xsf_cuda_device.h). No incremental decoding. */
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"
#include "xsf_codec.h"

#if XSF_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "xsf_cuda_device.h"
#endif

_Static_assert(sizeof(bpc_info) <= XSF_CODEC_HEADER_MAX,
               "bpc_info must fit xsf_codec_frame.header");

static int probe(const uint8_t *buf, size_t len)
{
    return bpc_detect(buf, len) ? 100 : 0;
}

static xsf_status describe(const void *parsed, size_t size, xsf_codec_frame *out, xsf_error *err)
{
    const xsf_status st =
        xsf_codec_frame_start(out, &bpc_codec, parsed, size, sizeof(bpc_info), err);
    if (st != XSF_OK)
        return st;
    const bpc_info *h = parsed;
    bpc_info_format(h, &out->format);
    out->codestream_bytes = h->codestream_bytes;
    out->header_bytes = h->header_bytes;
    bpc_transform_colour(h->colour, &out->colour); /* the decoders' pictures carry the same */
    return XSF_OK;
}

/* The parsed header of `frame` where it is BPC-PaCo's, else NULL (the decoder reads it). */
static const bpc_info *header_of(const xsf_codec_frame *frame)
{
    return xsf_codec_frame_header(frame, &bpc_codec);
}

static xsf_status parse_header(const uint8_t *buf, size_t len, xsf_codec_frame *out, xsf_error *err)
{
    bpc_info info;
    const xsf_status st = bpc_parse_header(buf, len, &info, err);
    return st != XSF_OK ? st : describe(&info, sizeof info, out, err);
}

static xsf_status codestream_size(const uint8_t *buf, size_t len, size_t *bytes, xsf_error *err)
{
    bpc_info info;
    *bytes = 0;
    const xsf_status st = bpc_parse_header(buf, len, &info, err);
    if (st != XSF_OK)
        return st;
    if (info.codestream_bytes == 0 || info.codestream_bytes > len)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "the codestream of %zu bytes ends after %zu",
                             info.codestream_bytes, len);
    *bytes = info.codestream_bytes;
    return XSF_OK;
}

static xsf_status params_set(void **params, const char *key, const uint8_t *value, size_t len,
                             xsf_error *err)
{
    if (!key || strcmp(key, "tables"))
        return xsf_error_set(err, XSF_ERR_ARG, "BPC-PaCo decoders take \"tables\", not \"%s\"",
                             key ? key : "(null)");
    bpc_tables *t = NULL;
    const xsf_status st = bpc_tables_load(&t, value, len, err);
    if (st != XSF_OK)
        return st;
    bpc_tables_destroy(*params);
    *params = t;
    return XSF_OK;
}

static void params_free(void *params)
{
    bpc_tables_destroy(params);
}

/* ---- C decoder ---- */

XSF_CODEC_CPU_DECODER(bpc_decoder, bpc_decoder_create, bpc_decoder_destroy);

static xsf_status cpu_decode(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err)
{
    bpc_decoder *d = dec;
    bpc_decoder_set_tables(d, params);
    size_t consumed;
    const xsf_picture *img;
    const xsf_status st = bpc_decode_parsed(d, header_of(frame), buf, len, &consumed, &img);
    if (st != XSF_OK)
        return xsf_codec_fail(err, st, bpc_decoder_error(d));
    /* An output pixel format is converted from the planar16 picture, with the colour
     * the frame's description gives the conversion. */
    xsf_picture src = *img;
    src.colour = frame->colour;
    return xsf_codec_copy_picture(out, &src, err);
}

/* ---- CUDA decoder ---- */

#if XSF_HAVE_CUDA
typedef struct gpu_dec {
    bpc_gpu_decoder *d;
    cudaStream_t stream;
    int device;
    /* The last picture, a view: the decoder's planes, or the caller's copy
     * of them (fmt.nc 0: none). */
    xsf_picture last;
} gpu_dec;

static xsf_status cuda_failed(xsf_error *err, cudaError_t e, const char *what)
{
    cudaGetLastError();
    return xsf_error_set(err, XSF_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

xsf_status bpc_codec_device_enter(xsf_cuda_device_saved *saved, int device, xsf_error *err)
{
    const cudaError_t e = xsf_cuda_device_enter(saved, device);
    return e == cudaSuccess ? XSF_OK : cuda_failed(err, e, "selecting the codec's GPU");
}

static xsf_status gpu_available(void)
{
    return bpc_gpu_available();
}

static void gpu_destroy(void *dec)
{
    gpu_dec *g = dec;
    if (!g)
        return;
    xsf_cuda_device_saved on;
    (void)bpc_codec_device_enter(&on, g->device, NULL); /* its memory is freed there */
    bpc_gpu_decoder_destroy(g->d);
    xsf_cuda_device_leave(&on);
    free(g);
}

static xsf_status gpu_create(void **dec, int device, void *stream, xsf_error *err)
{
    *dec = NULL;
    gpu_dec *g = calloc(1, sizeof *g);
    if (!g)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a decoder");
    g->stream = (cudaStream_t)stream;
    g->device = device;
    xsf_cuda_device_saved on;
    xsf_status st = bpc_codec_device_enter(&on, device, err);
    if (st == XSF_OK)
        st = bpc_gpu_decoder_create(&g->d, (struct CUstream_st *)stream, err);
    xsf_cuda_device_leave(&on);
    if (st != XSF_OK) {
        gpu_destroy(g); /* what the decoder's creation made before it failed */
        return st;
    }
    *dec = g;
    return XSF_OK;
}

/* gpu_decode on the decoder's device. */
static xsf_status decode_on_device(gpu_dec *g, const xsf_codec_frame *frame, const void *params,
                                   const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err)
{
    bpc_gpu_decoder_set_tables(g->d, params);
    size_t consumed;
    const xsf_picture *img;
    const xsf_status st =
        bpc_gpu_decode_parsed(g->d, header_of(frame), buf, len, 1, &consumed, &img);
    if (st != XSF_OK)
        return xsf_codec_fail(err, st, bpc_gpu_decoder_error(g->d));
    if (out && !xsf_format_equal(&out->fmt, &img->fmt))
        return xsf_error_set(err, XSF_ERR_ARG, "the picture given is not one of the codestream's");
    xsf_picture last = *img;
    for (int c = 0; out && c < img->fmt.nc; c++) {
        const cudaError_t e =
            cudaMemcpy2DAsync(out->data[c], out->stride[c], img->data[c], img->stride[c],
                              xsf_format_row_bytes(&img->fmt, c), (size_t)img->fmt.height[c],
                              cudaMemcpyDeviceToDevice, g->stream);
        if (e != cudaSuccess)
            return cuda_failed(err, e, "copying the picture on the device");
        last.data[c] = out->data[c];
        last.stride[c] = out->stride[c];
    }
    g->last = last;
    return XSF_OK;
}

static xsf_status gpu_decode(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err)
{
    gpu_dec *g = dec;
    xsf_picture_init(&g->last);
    if (out && out->memory != XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "the GPU decoder writes into device pictures");
    if ((out ? out->fmt.container : frame->format.container) != XSF_PLANAR_U16)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "BPC-PaCo's GPU decoder writes planar16 pictures only: another "
                             "pixel format is decoded on the CPU (--cpu)");
    xsf_cuda_device_saved on;
    xsf_status st = bpc_codec_device_enter(&on, g->device, err);
    if (st == XSF_OK)
        st = decode_on_device(g, frame, params, buf, len, out, err);
    xsf_cuda_device_leave(&on);
    return st;
}

/* gpu_download_rows on the decoder's device. */
static xsf_status download_on_device(gpu_dec *g, xsf_picture *host,
                                     const int from[XSF_MAX_COMPONENTS],
                                     const int to[XSF_MAX_COMPONENTS], xsf_error *err)
{
    const xsf_picture *last = &g->last;
    for (int c = 0; c < last->fmt.nc; c++) {
        const int h = last->fmt.height[c];
        const int y0 = from[c] < 0 ? 0 : from[c], y1 = to[c] > h ? h : to[c];
        if (y1 <= y0)
            continue;
        const cudaError_t e =
            cudaMemcpy2DAsync(host->data[c] + (size_t)y0 * host->stride[c], host->stride[c],
                              last->data[c] + (size_t)y0 * last->stride[c], last->stride[c],
                              xsf_format_row_bytes(&last->fmt, c), (size_t)(y1 - y0),
                              cudaMemcpyDeviceToHost, g->stream);
        if (e != cudaSuccess)
            return cuda_failed(err, e, "downloading the picture");
    }
    return XSF_OK;
}

static xsf_status gpu_download_rows(void *dec, xsf_picture *host,
                                    const int from[XSF_MAX_COMPONENTS],
                                    const int to[XSF_MAX_COMPONENTS], xsf_error *err)
{
    gpu_dec *g = dec;
    const xsf_picture *last = &g->last;
    if (host->memory == XSF_MEMORY_DEVICE || host->fmt.nc != last->fmt.nc || !last->fmt.nc)
        return xsf_error_set(err, XSF_ERR_ARG, "no picture of that shape to download");
    for (int c = 0; c < last->fmt.nc; c++)
        if (host->fmt.width[c] != last->fmt.width[c] || host->fmt.height[c] != last->fmt.height[c])
            return xsf_error_set(err, XSF_ERR_ARG, "no picture of that shape to download");
    xsf_cuda_device_saved on;
    xsf_status st = bpc_codec_device_enter(&on, g->device, err);
    if (st == XSF_OK)
        st = download_on_device(g, host, from, to, err);
    xsf_cuda_device_leave(&on);
    return st;
}

/* Waits for the stream (any device may wait for it). */
static xsf_status gpu_sync(void *dec, xsf_error *err)
{
    gpu_dec *g = dec;
    const cudaError_t e = cudaStreamSynchronize(g->stream);
    return e == cudaSuccess ? XSF_OK : cuda_failed(err, e, "the decoder's stream");
}
#else
static xsf_status gpu_available(void)
{
    return XSF_ERR_NODEVICE;
}

static xsf_status gpu_create(void **dec, int device, void *stream, xsf_error *err)
{
    (void)stream;
    *dec = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "no BPC-PaCo GPU decoder in this build (GPU %d)",
                         device);
}

static void gpu_destroy(void *dec)
{
    (void)dec;
}

static xsf_status gpu_decode(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err)
{
    (void)dec, (void)frame, (void)params, (void)buf, (void)len, (void)out;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "no BPC-PaCo GPU decoder in this build");
}

static xsf_status gpu_download_rows(void *dec, xsf_picture *host,
                                    const int from[XSF_MAX_COMPONENTS],
                                    const int to[XSF_MAX_COMPONENTS], xsf_error *err)
{
    (void)dec, (void)host, (void)from, (void)to;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "no BPC-PaCo GPU decoder in this build");
}

static xsf_status gpu_sync(void *dec, xsf_error *err)
{
    (void)dec;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "no BPC-PaCo GPU decoder in this build");
}
#endif

const xsf_codec bpc_codec = {
    .name = "bpc-paco",
    .long_name = "BPC-PaCo (xsflow bpc/FORMAT.md)",
    .extension = "bpc",
    .params_set = params_set,
    .params_free = params_free,
    XSF_CODEC_FUNCTIONS,
    .encoder = &bpc_codec_encoder,
};
