/* The CUDA codec's entry points in a build without CUDA: no device. */
#include "bpc.h"

xsf_status bpc_gpu_available(void)
{
    return XSF_ERR_NODEVICE;
}

xsf_status bpc_gpu_encoder_create(bpc_gpu_encoder **enc, const bpc_params *params,
                                  const xsf_format *shape, struct CUstream_st *stream,
                                  xsf_error *err)
{
    (void)params;
    (void)shape;
    (void)stream;
    *enc = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA kernels");
}

void bpc_gpu_encoder_destroy(bpc_gpu_encoder *enc)
{
    (void)enc;
}

xsf_status bpc_gpu_encode(bpc_gpu_encoder *enc, const xsf_picture *img, uint8_t *out, size_t cap,
                          size_t *len)
{
    (void)enc;
    (void)img;
    (void)out;
    (void)cap;
    *len = 0;
    return XSF_ERR_NODEVICE;
}

const char *bpc_gpu_encoder_error(const bpc_gpu_encoder *enc)
{
    (void)enc;
    return "this build has no CUDA kernels";
}

xsf_status bpc_gpu_decoder_create(bpc_gpu_decoder **dec, struct CUstream_st *stream, xsf_error *err)
{
    (void)stream;
    *dec = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA kernels");
}

void bpc_gpu_decoder_destroy(bpc_gpu_decoder *dec)
{
    (void)dec;
}

void bpc_gpu_decoder_set_tables(bpc_gpu_decoder *dec, const bpc_tables *tables)
{
    (void)dec;
    (void)tables;
}

xsf_status bpc_gpu_decode(bpc_gpu_decoder *dec, const uint8_t *buf, size_t len, int device,
                          size_t *consumed, const xsf_picture **img)
{
    return bpc_gpu_decode_parsed(dec, NULL, buf, len, device, consumed, img);
}

xsf_status bpc_gpu_decode_parsed(bpc_gpu_decoder *dec, const bpc_info *info, const uint8_t *buf,
                                 size_t len, int device, size_t *consumed, const xsf_picture **img)
{
    (void)dec;
    (void)info;
    (void)buf;
    (void)len;
    (void)device;
    *consumed = 0;
    *img = NULL;
    return XSF_ERR_NODEVICE;
}

const char *bpc_gpu_decoder_error(const bpc_gpu_decoder *dec)
{
    (void)dec;
    return "this build has no CUDA kernels";
}
