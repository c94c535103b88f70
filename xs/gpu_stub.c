/* The GPU decoder's entry points in a build without CUDA: each says so. */
#include "xs.h"

#if !XSF_HAVE_CUDA
xsf_status xs_gpu_available(void)
{
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decoder_create(xs_gpu_decoder **dec, int device, xs_cuda_stream stream,
                                 xsf_error *err)
{
    (void)device;
    (void)stream;
    if (dec)
        *dec = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA kernels");
}
void xs_gpu_decoder_destroy(xs_gpu_decoder *dec)
{
    (void)dec;
}
xsf_status xs_gpu_decode(xs_gpu_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed)
{
    (void)dec, (void)buf, (void)len, (void)consumed;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decode_device(xs_gpu_decoder *dec, const uint8_t *dev_buf,
                                const uint8_t *host_copy, size_t len, size_t *consumed)
{
    (void)dec, (void)dev_buf, (void)host_copy, (void)len, (void)consumed;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decode_begin(xs_gpu_decoder *dec, const uint8_t *buf, size_t len)
{
    (void)dec, (void)buf, (void)len;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decode_more(xs_gpu_decoder *dec, const uint8_t *buf, size_t len)
{
    (void)dec, (void)buf, (void)len;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decode_end(xs_gpu_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed)
{
    (void)dec, (void)buf, (void)len, (void)consumed;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decode_parsed(xs_gpu_decoder *dec, const xs_header *hdr, const uint8_t *buf,
                                size_t len, size_t *consumed)
{
    (void)dec, (void)hdr, (void)buf, (void)len, (void)consumed;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_decode_begin_parsed(xs_gpu_decoder *dec, const xs_header *hdr, const uint8_t *buf,
                                      size_t len)
{
    (void)dec, (void)hdr, (void)buf, (void)len;
    return XSF_ERR_NODEVICE;
}
void xs_gpu_decode_abort(xs_gpu_decoder *dec)
{
    (void)dec;
}
void xs_gpu_decode_rows(const xs_gpu_decoder *dec, int rows[XS_MAX_COMPONENTS])
{
    (void)dec;
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        rows[c] = 0;
}
xsf_status xs_gpu_set_output(xs_gpu_decoder *dec, uint16_t *const plane[XS_MAX_COMPONENTS],
                             const size_t pitch_bytes[XS_MAX_COMPONENTS])
{
    (void)dec, (void)plane, (void)pitch_bytes;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_set_output_format(xs_gpu_decoder *dec, xsf_container container,
                                    const xsf_colour *colour,
                                    uint8_t *const plane[XS_MAX_COMPONENTS],
                                    const size_t pitch_bytes[XS_MAX_COMPONENTS])
{
    (void)dec, (void)container, (void)colour, (void)plane, (void)pitch_bytes;
    return XSF_ERR_NODEVICE;
}
const xsf_picture *xs_gpu_decoder_picture(const xs_gpu_decoder *dec)
{
    (void)dec;
    return NULL;
}
xsf_status xs_gpu_download(xs_gpu_decoder *dec, uint16_t *const host_plane[XS_MAX_COMPONENTS],
                           int sync)
{
    (void)dec, (void)host_plane, (void)sync;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_download_rows(xs_gpu_decoder *dec, uint16_t *const host_plane[XS_MAX_COMPONENTS],
                                const int from[XS_MAX_COMPONENTS], const int to[XS_MAX_COMPONENTS])
{
    (void)dec, (void)host_plane, (void)from, (void)to;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_download_planes(xs_gpu_decoder *dec, uint8_t *const host_plane[XS_MAX_COMPONENTS],
                                  const int from[XS_MAX_COMPONENTS],
                                  const int to[XS_MAX_COMPONENTS])
{
    (void)dec, (void)host_plane, (void)from, (void)to;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_sync(xs_gpu_decoder *dec)
{
    (void)dec;
    return XSF_ERR_NODEVICE;
}
const char *xs_gpu_decoder_error(const xs_gpu_decoder *dec)
{
    (void)dec;
    return "this build of xsflow has no CUDA support";
}
void xs_gpu_set_timing(xs_gpu_decoder *dec, int on)
{
    (void)dec, (void)on;
}
int xs_gpu_kernel_times(const xs_gpu_decoder *dec, const char **names, float *ms, int max)
{
    (void)dec, (void)names, (void)ms, (void)max;
    return 0;
}
#endif
