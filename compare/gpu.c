/* GPU helpers of compare/ (built with CUDA): pinned and device memory for
 * the pictures and codestreams the timed loops use, and the device name. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "compare_internal.h"
#include "xsf_codecs.h"

/* Every codec of the table with its GPU encoder and decoder. */
xsf_status cmp_gpu_available(void)
{
    unsigned it = 0;
    for (const xsf_codec *c; (c = xsf_codec_iterate(&it));)
        if (!c->encoder || !c->gpu_available || c->gpu_available() != XSF_OK ||
            c->encoder->gpu_available() != XSF_OK)
            return XSF_ERR_NODEVICE;
    return XSF_OK;
}

void *cmp_gpu_host_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocHost(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

void cmp_gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}

void *cmp_gpu_device_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

void cmp_gpu_device_free(void *p)
{
    if (p)
        cudaFree(p);
}

xsf_status cmp_gpu_upload(void *dst, const void *src, size_t bytes)
{
    return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess ? XSF_OK
                                                                              : XSF_ERR_CUDA;
}

void cmp_gpu_device_name(char *buf, size_t len)
{
    int dev = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        snprintf(buf, len, "GPU");
        return;
    }
    snprintf(buf, len, "%s", prop.name);
}
