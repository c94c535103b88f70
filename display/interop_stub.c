/* Builds without CUDA: no interop; device pictures are refused. */
#include "interop.h"

int dsp_interop_usable(void)
{
    return 0;
}

int dsp_interop_built(void)
{
    return 0;
}

xsf_status dsp_interop_register(unsigned texture, void **resource, xsf_error *err)
{
    (void)texture;
    *resource = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA-GL interop");
}

void dsp_interop_unregister(void *resource)
{
    (void)resource;
}

xsf_status dsp_interop_copy(void *const *resource, int n, const xsf_picture *pic, void *stream,
                            xsf_error *err)
{
    (void)resource, (void)n, (void)pic, (void)stream;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA-GL interop");
}

void *dsp_interop_stream_create(void)
{
    return NULL;
}

void dsp_interop_stream_destroy(void *stream)
{
    (void)stream;
}

xsf_status dsp_interop_stream_sync(void *stream, xsf_error *err)
{
    (void)stream;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA-GL interop");
}

/* The CUDA compositor (compose.h) is not built either; dsp_create never
 * turns it on without CUDA. */
#include "compose.h"

xsf_status dsp_compose_register(unsigned texture, void **resource, xsf_error *err)
{
    (void)texture;
    *resource = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA compositor");
}

xsf_status dsp_compose_map(void *resource, void *stream, unsigned long long *surface,
                           xsf_error *err)
{
    (void)resource, (void)stream;
    *surface = 0;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA compositor");
}

xsf_status dsp_compose_unmap(void *resource, unsigned long long surface, void *stream,
                             xsf_error *err)
{
    (void)resource, (void)surface, (void)stream;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA compositor");
}

void dsp_compose_clear(unsigned long long surface, int width, int height, int out8, void *stream)
{
    (void)surface, (void)width, (void)height, (void)out8, (void)stream;
}

void dsp_compose_tile(unsigned long long surface, int out_h, int out8, int rx, int ry, int rw,
                      int rh, const dsp_compose_params *cp, void *stream)
{
    (void)surface, (void)out_h, (void)out8, (void)rx, (void)ry, (void)rw, (void)rh, (void)cp,
        (void)stream;
}

void *dsp_cuda_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void dsp_cuda_free(void *p)
{
    (void)p;
}

xsf_status dsp_cuda_copy_plane(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                               size_t row_bytes, size_t rows, int from_host, void *stream,
                               xsf_error *err)
{
    (void)dst, (void)dst_pitch, (void)src, (void)src_pitch, (void)row_bytes, (void)rows,
        (void)from_host, (void)stream;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA compositor");
}

void *dsp_cuda_event_create(void)
{
    return NULL;
}

void dsp_cuda_event_destroy(void *event)
{
    (void)event;
}

int dsp_cuda_event_record(void *event, void *stream)
{
    (void)event, (void)stream;
    return -1;
}

int dsp_cuda_event_done(void *event)
{
    (void)event;
    return 1;
}

xsf_status dsp_compose_check(xsf_error *err)
{
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA compositor");
}
