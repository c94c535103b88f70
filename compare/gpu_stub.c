/* GPU helpers of compare/ in a build without CUDA: no device. */
#include "compare_internal.h"

xsf_status cmp_gpu_available(void)
{
    return XSF_ERR_NODEVICE;
}

void *cmp_gpu_host_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void cmp_gpu_host_free(void *p)
{
    (void)p;
}

void *cmp_gpu_device_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void cmp_gpu_device_free(void *p)
{
    (void)p;
}

xsf_status cmp_gpu_upload(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    (void)src;
    (void)bytes;
    return XSF_ERR_NODEVICE;
}

void cmp_gpu_device_name(char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
}
