/* The GPU encoder's entry points in a build without CUDA: each says so. */
#include "xs.h"

#if !XSF_HAVE_CUDA
xsf_status xs_gpu_encoder_create(xs_gpu_encoder **enc, const xs_encoder_config *cfg, int device,
                                 xs_cuda_stream stream, xsf_error *err)
{
    (void)cfg, (void)device, (void)stream;
    if (enc)
        *enc = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA encoder");
}
void xs_gpu_encoder_destroy(xs_gpu_encoder *enc)
{
    (void)enc;
}
size_t xs_gpu_encoder_max_bytes(const xs_gpu_encoder *enc)
{
    (void)enc;
    return 0;
}
xsf_status xs_gpu_encode(xs_gpu_encoder *enc, const xsf_picture *pic)
{
    (void)enc, (void)pic;
    return XSF_ERR_NODEVICE;
}
const uint8_t *xs_gpu_encoder_codestream(const xs_gpu_encoder *enc)
{
    (void)enc;
    return NULL;
}
xsf_status xs_gpu_encoder_download(xs_gpu_encoder *enc, uint8_t *out, size_t cap, size_t *len,
                                   int sync)
{
    (void)enc, (void)out, (void)cap, (void)sync;
    if (len)
        *len = 0;
    return XSF_ERR_NODEVICE;
}
xsf_status xs_gpu_encoder_sync(xs_gpu_encoder *enc)
{
    (void)enc;
    return XSF_ERR_NODEVICE;
}
void xs_gpu_encoder_set_timing(xs_gpu_encoder *enc, int on)
{
    (void)enc, (void)on;
}
int xs_gpu_encoder_stage_times(const xs_gpu_encoder *enc, const char **names, float *ms, int max)
{
    (void)enc, (void)names, (void)ms, (void)max;
    return 0;
}
const char *xs_gpu_encoder_error(const xs_gpu_encoder *enc)
{
    (void)enc;
    return "this build has no CUDA encoder";
}
#endif
